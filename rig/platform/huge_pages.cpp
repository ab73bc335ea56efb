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

bool adviseHugePagesBeforeUse(const void* data, size_t bytes)
{
    const HugePageSpan s = hugePageInterior(data, bytes);
    if (s.begin == s.end)
        return false;
#if defined(__linux__)
    return madvise(reinterpret_cast<void*>(s.begin), s.end - s.begin, MADV_HUGEPAGE) == 0; // fails: THP "never"
#else
    return false;
#endif
}

size_t adviseHugePages(const void* data, size_t bytes)
{
    if (!adviseHugePagesBeforeUse(data, bytes))
        return 0;
#if defined(__linux__)
    const HugePageSpan s = hugePageInterior(data, bytes);
    // Best effort: EINVAL before Linux 6.1, EAGAIN/ENOMEM when the kernel finds no free 2 MB pages; the pages then
    // stay as they are, and MADV_HUGEPAGE still lets khugepaged collapse them later.
    return madvise(reinterpret_cast<void*>(s.begin), s.end - s.begin, MADV_COLLAPSE) == 0 ? s.end - s.begin : 0;
#else
    return 0;
#endif
}

} // namespace rig
