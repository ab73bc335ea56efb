// Internal to the analysis passes' AVX2 loops (metrics.cpp, carried.cpp): eight 3-vectors between their array form
// (3 or 4 floats each) and one register per component, lane k = vector k, and their isDefined test. Functions with
// the AVX2 target attribute: their translation units are built for baseline x86-64 and choose these paths at run time
// (cpu_features.h).
#pragma once

#include <immintrin.h>

#include <cmath>

namespace rig::detail {

/// x, y, z, w of eight consecutive 4-float vectors at p, lane k = vector k.
__attribute__((target("avx2"), always_inline)) inline void loadSoa4x8(const float* p, __m256& x, __m256& y, __m256& z,
                                                                     __m256& w)
{
    const __m256 v0 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)), _mm_loadu_ps(p + 16), 1);
    const __m256 v1 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p + 4)), _mm_loadu_ps(p + 20), 1);
    const __m256 v2 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p + 8)), _mm_loadu_ps(p + 24), 1);
    const __m256 v3 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p + 12)), _mm_loadu_ps(p + 28), 1);
    const __m256 t0 = _mm256_unpacklo_ps(v0, v1), t1 = _mm256_unpackhi_ps(v0, v1); // x0 x1 y0 y1 | z0 z1 w0 w1
    const __m256 t2 = _mm256_unpacklo_ps(v2, v3), t3 = _mm256_unpackhi_ps(v2, v3);
    x = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    y = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    z = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    w = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

/// x, y, z of eight consecutive 3-float (stride 3) or 4-float (stride 4) vectors at p, lane k = vector k.
__attribute__((target("avx2"), always_inline)) inline void loadSoa8(const float* p, int stride, __m256& x, __m256& y,
                                                                   __m256& z)
{
    if (stride == 3) {
        // Vectors 0-3 in the low halves, 4-7 in the high halves: 12 floats each, as three 4-float loads.
        const __m256 m03 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)), _mm_loadu_ps(p + 12), 1);
        const __m256 m14 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p + 4)), _mm_loadu_ps(p + 16), 1);
        const __m256 m25 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p + 8)), _mm_loadu_ps(p + 20), 1);
        // Per half: m03 = x0 y0 z0 x1, m14 = y1 z1 x2 y2, m25 = z2 x3 y3 z3.
        const __m256 xy = _mm256_shuffle_ps(m14, m25, _MM_SHUFFLE(2, 1, 3, 2)); // x2 y2 x3 y3
        const __m256 yz = _mm256_shuffle_ps(m03, m14, _MM_SHUFFLE(1, 0, 2, 1)); // y0 z0 y1 z1
        x = _mm256_shuffle_ps(m03, xy, _MM_SHUFFLE(2, 0, 3, 0));                // x0 x1 x2 x3
        y = _mm256_shuffle_ps(yz, xy, _MM_SHUFFLE(3, 1, 2, 0));                 // y0 y1 y2 y3
        z = _mm256_shuffle_ps(yz, m25, _MM_SHUFFLE(3, 0, 3, 1));                // z0 z1 z2 z3
    } else {
        __m256 w;
        loadSoa4x8(p, x, y, z, w);
    }
}

/// Eight 3-vectors, lane k = vector k of x, y, z, stored as the 24 floats at p (exactly: the next vector may be
/// another thread's): loadSoa8's stride-3 shuffles undone, per 128-bit half (vectors 0-3, 4-7) three rows of four
/// floats, then three whole stores.
__attribute__((target("avx2"), always_inline)) inline void storeSoa3x8(float* p, __m256 x, __m256 y, __m256 z)
{
    const __m256 xyLo = _mm256_unpacklo_ps(x, y), xyHi = _mm256_unpackhi_ps(x, y); // x0 y0 x1 y1, x2 y2 x3 y3
    const __m256 z0x1 = _mm256_shuffle_ps(z, xyLo, _MM_SHUFFLE(2, 2, 0, 0));      // z0 z0 x1 x1
    const __m256 y1z1 = _mm256_shuffle_ps(xyLo, z, _MM_SHUFFLE(1, 1, 3, 3));      // y1 y1 z1 z1
    const __m256 z2x3 = _mm256_shuffle_ps(z, xyHi, _MM_SHUFFLE(2, 2, 2, 2));      // z2 z2 x3 x3
    const __m256 y3z3 = _mm256_shuffle_ps(xyHi, z, _MM_SHUFFLE(3, 3, 3, 3));      // y3 y3 z3 z3
    const __m256 m03 = _mm256_shuffle_ps(xyLo, z0x1, _MM_SHUFFLE(2, 0, 1, 0));    // x0 y0 z0 x1
    const __m256 m14 = _mm256_shuffle_ps(y1z1, xyHi, _MM_SHUFFLE(1, 0, 2, 0));    // y1 z1 x2 y2
    const __m256 m25 = _mm256_shuffle_ps(z2x3, y3z3, _MM_SHUFFLE(2, 0, 2, 0));    // z2 x3 y3 z3
    _mm256_storeu_ps(p, _mm256_permute2f128_ps(m03, m14, 0x20));
    _mm256_storeu_ps(p + 8, _mm256_permute2f128_ps(m25, m03, 0x30));
    _mm256_storeu_ps(p + 16, _mm256_permute2f128_ps(m14, m25, 0x31));
}

/// isDefined per lane (all ones where so): (x x + y y) + z z > 0.25 and finite.
__attribute__((target("avx2"), always_inline)) inline __m256 defined8(__m256 x, __m256 y, __m256 z)
{
    const __m256 len2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(x, x), _mm256_mul_ps(y, y)), _mm256_mul_ps(z, z));
    return _mm256_and_ps(_mm256_cmp_ps(len2, _mm256_set1_ps(0.25f), _CMP_GT_OQ),
                         _mm256_cmp_ps(len2, _mm256_set1_ps(INFINITY), _CMP_LT_OQ));
}

} // namespace rig::detail
