// Transparent huge pages for the large per-vertex arrays.
//
// A 1M-vertex rig's streams (bind attributes, influences, weight gradients, every method's outputs) span ~160 MB. On
// 4 KB pages a pass over them crosses a page every few vertices in each stream, far more pages than the TLB holds, so
// the skinning kernels wait on page walks: on the Intel Xeon of BENCHMARKS.md (2026-12-02), backing the streams with
// 2 MB pages made `linear` ~12% and `jacobian` ~40% faster on one core at 1M vertices. Linux backs anonymous memory
// with huge pages by itself only in THP mode "always"; in the common mode "madvise" a program has to ask.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace rig {

/// Arrays smaller than this are left alone: they hold at most one whole 2 MB page.
inline constexpr size_t kHugePageMinBytes = size_t(4) << 20;
inline constexpr size_t kHugePageBytes = size_t(2) << 20;

/// The whole 2 MB pages inside [data, data + bytes): [begin, end), empty (begin == end) when there is none or the
/// range is under kHugePageMinBytes. What adviseHugePages advises.
struct HugePageSpan {
    uintptr_t begin = 0, end = 0;
};
HugePageSpan hugePageInterior(const void* data, size_t bytes);

/// For memory not touched yet (a fresh reserve): MADV_HUGEPAGE on the whole 2 MB pages inside [data, data + bytes),
/// so that their first touch maps huge pages directly (fewer faults than 4 KB pages, no copy). Returns whether the
/// kernel took the advice (false for a small range, THP "never", not Linux).
bool adviseHugePagesBeforeUse(const void* data, size_t bytes);

/// For memory already written: MADV_HUGEPAGE, then MADV_COLLAPSE, which moves the pages into huge pages now (a copy,
/// once: ~0.3 ms a MB here for freshly built arrays, but up to ~10 ms a MB measured on outputs a process had just
/// re-allocated, so evaluate's outputs use resizeOnHugePages instead). A hint only: no byte changes, and where the
/// kernel cannot (THP "never", before Linux 6.1, memory pressure, not Linux) it does nothing. Returns the number of
/// bytes the kernel collapsed (0 when it did not, or for a small range). The memory must be an ordinary heap or
/// anonymous allocation that stays mapped.
size_t adviseHugePages(const void* data, size_t bytes);

/// The same for a contiguous container (std::vector, AlignedVector, std::span).
template <typename Container>
size_t adviseHugePages(const Container& c)
{
    return adviseHugePages(static_cast<const void*>(c.data()), c.size() * sizeof(*c.data()));
}

/// v.resize(n), where a new allocation of a large array is advised before its first touch: the elements move into a
/// fresh reserve of n, advised (adviseHugePagesBeforeUse), then the rest is value-initialised as resize does.
template <typename T, typename A>
void resizeOnHugePages(std::vector<T, A>& v, size_t n)
{
    if (n > v.capacity() && n * sizeof(T) >= kHugePageMinBytes) {
        std::vector<T, A> fresh(v.get_allocator());
        fresh.reserve(n);
        adviseHugePagesBeforeUse(fresh.data(), n * sizeof(T));
        fresh.assign(std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
        v.swap(fresh);
    }
    v.resize(n);
}

} // namespace rig
