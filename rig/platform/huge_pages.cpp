#include "rig/platform/huge_pages.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace rig {

#if defined(__linux__) && !defined(MADV_COLLAPSE)
#define MADV_COLLAPSE 25 // Linux 6.1 (asm-generic/mman-common.h); older glibc headers lack it
#endif

HugePageSpan hugePageInterior(const void* data, size_t bytes)
{
    if (!data || bytes < kHugePageMinBytes)
        return {};
    const auto start = reinterpret_cast<uintptr_t>(data);
    const uintptr_t begin = (start + kHugePageBytes - 1) & ~uintptr_t(kHugePageBytes - 1);
    const uintptr_t end = (start + bytes) & ~uintptr_t(kHugePageBytes - 1);
    if (end <= begin)
        return {};
    return {begin, end};
}

namespace {

enum class Advice { HugePage, Collapse };

/// madvise over the span (MADV_HUGEPAGE or MADV_COLLAPSE); false where it is empty, the kernel refuses, or not Linux.
bool advise([[maybe_unused]] HugePageSpan s, [[maybe_unused]] Advice advice)
{
#if defined(__linux__)
    return s.begin != s.end && madvise(reinterpret_cast<void*>(s.begin), s.end - s.begin,
                                       advice == Advice::HugePage ? MADV_HUGEPAGE : MADV_COLLAPSE) == 0;
#else
    return false;
#endif
}

} // namespace

bool adviseHugePagesBeforeUse(const void* data, size_t bytes)
{
    return advise(hugePageInterior(data, bytes), Advice::HugePage); // fails: THP "never"
}

size_t adviseHugePages(const void* data, size_t bytes)
{
    const HugePageSpan s = hugePageInterior(data, bytes);
    if (!advise(s, Advice::HugePage))
        return 0;
    // Best effort: EINVAL before Linux 6.1, EAGAIN/ENOMEM when the kernel finds no free 2 MB pages; the pages then
    // stay as they are, and MADV_HUGEPAGE still lets khugepaged collapse them later.
    return advise(s, Advice::Collapse) ? s.end - s.begin : 0;
}

} // namespace rig
