// A per-thread cap on what one operation (a file import) may allocate, so that a hostile file cannot make a third-party
// parser take the machine down. This file also replaces the global operator new/delete (they call malloc/free as the
// standard library's do, plus one thread-local check).
#pragma once

#include <cstddef>

namespace rig {

/// While alive, every operator new on the constructing thread counts its size against `bytes`; once the running
/// total would pass it, operator new throws std::bad_alloc (nothrow forms return null) and exceeded() turns true.
/// Frees are not credited (sized delete is not reliable across libraries): the budget bounds what the operation
/// allocates in total. Budgets do not nest: the inner one applies until it ends, then the outer one again.
class AllocationBudget {
public:
    explicit AllocationBudget(size_t bytes);
    ~AllocationBudget();
    AllocationBudget(const AllocationBudget&) = delete;
    AllocationBudget& operator=(const AllocationBudget&) = delete;

    /// Stops counting now (the destructor then does nothing more); call before building an error message.
    void end();

    bool exceeded() const { return m_exceeded; }
    size_t allocated() const { return m_allocated; }
    size_t limit() const { return m_limit; }

    /// Internal: called by operator new. Returns false when `n` more bytes would pass the current thread's budget.
    static bool charge(size_t n);

private:
    size_t m_limit;
    size_t m_allocated = 0;
    bool m_exceeded = false;
    AllocationBudget* m_outer;
    bool m_active = true;
};

} // namespace rig
