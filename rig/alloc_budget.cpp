#include "alloc_budget.h"

#include <cstdlib>
#include <new>

namespace rig {

namespace {
thread_local AllocationBudget* t_budget = nullptr;
}

AllocationBudget::AllocationBudget(size_t bytes) : m_limit(bytes), m_outer(t_budget)
{
    t_budget = this;
}

AllocationBudget::~AllocationBudget()
{
    end();
}

void AllocationBudget::end()
{
    if (m_active && t_budget == this)
        t_budget = m_outer;
    m_active = false;
}

bool AllocationBudget::charge(size_t n)
{
    AllocationBudget* b = t_budget;
    if (!b)
        return true;
    if (n > b->m_limit - b->m_allocated) {
        b->m_exceeded = true;
        return false;
    }
    b->m_allocated += n;
    return true;
}

} // namespace rig

// ---- global allocation functions -----------------------------------------------------------------------------------
// Same semantics as the standard library's (malloc/free based, so any mix with its deletes stays valid), with the
// budget check in front.

namespace {

void* allocate(std::size_t n)
{
    if (!rig::AllocationBudget::charge(n))
        return nullptr;
    return std::malloc(n ? n : 1);
}

void* allocateAligned(std::size_t n, std::align_val_t al)
{
    if (!rig::AllocationBudget::charge(n))
        return nullptr;
    std::size_t a = static_cast<std::size_t>(al);
    if (a < sizeof(void*))
        a = sizeof(void*);
    const std::size_t rounded = (n + a - 1) / a * a;
    return std::aligned_alloc(a, rounded ? rounded : a);
}

} // namespace

void* operator new(std::size_t n)
{
    if (void* p = allocate(n))
        return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n)
{
    if (void* p = allocate(n))
        return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new(std::size_t n, std::align_val_t al)
{
    if (void* p = allocateAligned(n, al))
        return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n, std::align_val_t al)
{
    if (void* p = allocateAligned(n, al))
        return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept { return allocateAligned(n, al); }
void* operator new[](std::size_t n, std::align_val_t al, const std::nothrow_t&) noexcept { return allocateAligned(n, al); }

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
