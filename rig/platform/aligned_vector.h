// std::vector with storage aligned beyond its element type's own alignment (whole cache lines for SIMD stores).
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace rig {

/// The allocator of AlignedVector: operator new with an alignment.
template <typename T, size_t Alignment>
struct AlignedAllocator {
    using value_type = T;
    template <typename U>
    struct rebind {
        using other = AlignedAllocator<U, Alignment>;
    };
    AlignedAllocator() = default;
    template <typename U>
    AlignedAllocator(const AlignedAllocator<U, Alignment>&) noexcept
    {
    }
    T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(Alignment))); }
    void deallocate(T* p, size_t) noexcept { ::operator delete(p, std::align_val_t(Alignment)); }
    template <typename U>
    bool operator==(const AlignedAllocator<U, Alignment>&) const noexcept
    {
        return true;
    }
};

template <typename T, size_t Alignment = 64>
using AlignedVector = std::vector<T, AlignedAllocator<T, Alignment>>;

} // namespace rig
