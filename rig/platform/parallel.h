// A minimal fork-join over index ranges for the vertex loops: a persistent pool of worker threads (started on first
// use, parked on a condition variable between calls) that take chunks of the range from a shared counter.
#pragma once

#include <cstddef>
#include <functional>

namespace rig {

/// Number of hardware threads (at least 1).
unsigned defaultThreadCount();

/// The number of threads parallelFor would use for `threads` (0 = the default, see below), before the range and
/// grain limit it further.
unsigned resolveThreadCount(unsigned threads);

/// Calls fn(first, last) on disjoint chunks covering [0, count), on up to `threads` threads (0 = the default: the
/// innermost ScopedThreadLimit on this thread, else defaultThreadCount()), and returns when all are done. The caller
/// runs chunks too. Chunks are at least `grain` long and are handed out dynamically (about 8 per thread), so a thread
/// slowed down by other work on the machine does not hold the others up. fn must not throw. Calls made while the pool
/// is busy (from inside fn, or from another thread at the same time) get threads of their own instead.
void parallelFor(size_t count, size_t grain, unsigned threads, const std::function<void(size_t, size_t)>& fn);

/// Caps the default thread count of parallelFor calls (threads == 0) made on this thread while it lives; nests.
class ScopedThreadLimit {
public:
    explicit ScopedThreadLimit(unsigned threads);
    ~ScopedThreadLimit();
    ScopedThreadLimit(const ScopedThreadLimit&) = delete;
    ScopedThreadLimit& operator=(const ScopedThreadLimit&) = delete;

private:
    unsigned m_previous;
};

} // namespace rig
