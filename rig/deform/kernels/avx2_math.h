// Internal to the AVX2 + FMA kernels (skinning_linear_avx2.cpp, skinning_methods_avx2.cpp, both built with -mavx2
// -mfma): 3-vector helpers in 128-bit registers (one vertex, lane 3 = 0) and in 256-bit registers holding two
// vertices (vertex a in the low 128-bit lane, b in the high one). The two-vertex forms do the one-vertex forms'
// operations in their order (dp_ps, the in-lane shuffles and the FMAs work per 128-bit lane), so that a pair gives
// the bits the one-vertex path gives.
#pragma once

#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "rig/deform/kernels/skinning_internal.h"
#include "rig/model/math.h"

namespace rig::detail::avx2 {

/// (x, y, z, 0) from three floats, without reading a fourth.
RS_INLINE __m128 load3(const float* p)
{
    double xy; // 8 bytes at 4-byte alignment: through memcpy (one movsd), never a misaligned double*
    std::memcpy(&xy, p, sizeof xy);
    return _mm_movelh_ps(_mm_castpd_ps(_mm_set_sd(xy)), _mm_load_ss(p + 2));
}

RS_INLINE __m128 cross3(__m128 a, __m128 b)
{
    // (a * b.yzx - a.yzx * b).yzx; lane 3 stays 0 when both inputs have 0 there.
    const __m128 ay = _mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 0, 2, 1));
    const __m128 by = _mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 0, 2, 1));
    const __m128 c = _mm_fmsub_ps(a, by, _mm_mul_ps(ay, b));
    return _mm_shuffle_ps(c, c, _MM_SHUFFLE(3, 0, 2, 1));
}

/// v / |v| (rsqrt + Newton), or 0 when |v|² < kZeroLength2 or not finite (lane 3 of v must be 0).
RS_INLINE __m128 normalize3(__m128 v)
{
    const __m128 len2 = _mm_dp_ps(v, v, 0x7F);
    const __m128 r0 = _mm_rsqrt_ps(len2);
    const __m128 r = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), r0), _mm_fnmadd_ps(_mm_mul_ps(len2, r0), r0, _mm_set1_ps(3.0f)));
    const __m128 ok = _mm_and_ps(_mm_cmp_ps(len2, _mm_set1_ps(kZeroLength2), _CMP_GE_OQ),
                                 _mm_cmp_ps(len2, _mm_set1_ps(INFINITY), _CMP_LT_OQ));
    return _mm_and_ps(_mm_mul_ps(v, r), ok);
}

/// Float i % 4 of each 128-bit lane of q in all four floats of that lane (i a compile-time constant once inlined).
RS_INLINE __m256 laneBroadcast(__m256 q, int i)
{
    switch (i & 3) {
    case 0: return _mm256_permute_ps(q, 0x00);
    case 1: return _mm256_permute_ps(q, 0x55);
    case 2: return _mm256_permute_ps(q, 0xAA);
    default: return _mm256_permute_ps(q, 0xFF);
    }
}

/// Σ w_i M_{j_i} over the K slots as two 8-float halves of the compact palette line: a01 = (c0 | c1), a23 = (c2 | t).
/// The weights come as rows of four (one 16-byte load into both lanes) spread by in-lane permutes rather than by a
/// broadcast load each: the loads are what these loops have least of on Intel cores (two ports; three palette and
/// index loads a slot already), the permutes run beside them. Ice Lake, in one process: cofactor and
/// inverse-transpose blocks x1.03–1.06, positions alone x1.02–1.03, linear x0.98–1.02 (noise).
template <int K>
RS_INLINE void blendHalves(const PaletteMatrix* pal, const uint16_t* j, const float* w, __m256& a01, __m256& a23)
{
    const __m256 w03 = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(w));
    const __m256 w47 = K == 8 ? _mm256_broadcast_ps(reinterpret_cast<const __m128*>(w + 4)) : w03;
    auto weight = [&](int i) RS_INLINE_LAMBDA { return laneBroadcast(i < 4 ? w03 : w47, i); };
    const __m256 w0 = weight(0);
    a01 = _mm256_mul_ps(w0, _mm256_load_ps(pal[j[0]].m));
    a23 = _mm256_mul_ps(w0, _mm256_load_ps(pal[j[0]].m + 8));
    for (int i = 1; i < K; ++i) {
        const __m256 wi = weight(i);
        a01 = _mm256_fmadd_ps(wi, _mm256_load_ps(pal[j[i]].m), a01);
        a23 = _mm256_fmadd_ps(wi, _mm256_load_ps(pal[j[i]].m + 8), a23);
    }
}

RS_INLINE __m256 yzx8(__m256 a)
{
    return _mm256_shuffle_ps(a, a, _MM_SHUFFLE(3, 0, 2, 1));
}

RS_INLINE __m256 cross8(__m256 a, __m256 b)
{
    const __m256 c = _mm256_fmsub_ps(a, yzx8(b), _mm256_mul_ps(yzx8(a), b));
    return yzx8(c);
}

/// 1 / sqrt(len2) per float (rsqrt and one Newton step) and the mask of the floats whose length counts as defined:
/// kZeroLength2 <= len2 < inf (NaN fails both), as safeNormalize.
RS_INLINE void reciprocalLengths(__m256 len2, __m256& r, __m256& ok)
{
    const __m256 r0 = _mm256_rsqrt_ps(len2);
    r = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), r0), _mm256_fnmadd_ps(_mm256_mul_ps(len2, r0), r0, _mm256_set1_ps(3.0f)));
    ok = _mm256_and_ps(_mm256_cmp_ps(len2, _mm256_set1_ps(kZeroLength2), _CMP_GE_OQ),
                       _mm256_cmp_ps(len2, _mm256_set1_ps(INFINITY), _CMP_LT_OQ));
}

RS_INLINE __m256 normalize8(__m256 v)
{
    const __m256 len2 = _mm256_dp_ps(v, v, 0x7F);
    __m256 r, ok;
    reciprocalLengths(len2, r, ok);
    return _mm256_and_ps(_mm256_mul_ps(v, r), ok);
}

/// Normalises the normals n and the tangents t of a vertex pair (x y z 0 per 128-bit lane) together: both squared
/// lengths from two horizontal adds, summed as dp_ps (and normalize3) sum them, (x² + y²) + (z² + 0), one rsqrt and
/// Newton step for all four; zero where |v|² < kZeroLength2 or not finite.
RS_INLINE void normalizePairs(__m256& n, __m256& t)
{
    __m256 len2 = _mm256_hadd_ps(_mm256_mul_ps(n, n), _mm256_mul_ps(t, t)); // per lane: nx+ny, nz+nw, tx+ty, tz+tw
    len2 = _mm256_hadd_ps(len2, len2);                                      // per lane: |n|², |t|², |n|², |t|²
    __m256 r, ok;
    reciprocalLengths(len2, r, ok);
    // Zeroed after the product: a NaN or infinite input times a zeroed factor would still be NaN.
    n = _mm256_and_ps(_mm256_mul_ps(n, _mm256_shuffle_ps(r, r, 0x00)), _mm256_shuffle_ps(ok, ok, 0x00));
    t = _mm256_and_ps(_mm256_mul_ps(t, _mm256_shuffle_ps(r, r, 0x55)), _mm256_shuffle_ps(ok, ok, 0x55));
}

/// normalizePairs of two vertex pairs (n0, t0: the first pair's normals and tangents; n1, t1: the second's) with one
/// rsqrt and Newton step for all eight: a third horizontal add gathers the four squared lengths of each 128-bit lane
/// (|n0|², |t0|², |n1|², |t1|²), each summed as normalizePairs sums it — the same bits, a third fewer adds and half
/// the Newton steps and tests.
RS_INLINE void normalizePairs2(__m256& n0, __m256& t0, __m256& n1, __m256& t1)
{
    const __m256 h0 = _mm256_hadd_ps(_mm256_mul_ps(n0, n0), _mm256_mul_ps(t0, t0)); // per lane: n0x+n0y, n0z+n0w, t0...
    const __m256 h1 = _mm256_hadd_ps(_mm256_mul_ps(n1, n1), _mm256_mul_ps(t1, t1));
    const __m256 len2 = _mm256_hadd_ps(h0, h1); // per lane: |n0|², |t0|², |n1|², |t1|²
    __m256 r, ok;
    reciprocalLengths(len2, r, ok);
    // Zeroed after the product: a NaN or infinite input times a zeroed factor would still be NaN.
    n0 = _mm256_and_ps(_mm256_mul_ps(n0, _mm256_shuffle_ps(r, r, 0x00)), _mm256_shuffle_ps(ok, ok, 0x00));
    t0 = _mm256_and_ps(_mm256_mul_ps(t0, _mm256_shuffle_ps(r, r, 0x55)), _mm256_shuffle_ps(ok, ok, 0x55));
    n1 = _mm256_and_ps(_mm256_mul_ps(n1, _mm256_shuffle_ps(r, r, 0xAA)), _mm256_shuffle_ps(ok, ok, 0xAA));
    t1 = _mm256_and_ps(_mm256_mul_ps(t1, _mm256_shuffle_ps(r, r, 0xFF)), _mm256_shuffle_ps(ok, ok, 0xFF));
}

/// The in-lane 4 x 4 transpose of four registers (as avx512::transpose4, per 128-bit lane): lane 4L + j of x (y, z,
/// w) is component x (y, z, w) of a_j's lane L. Its own inverse. Applied to four vertex pairs (vertices 2j, 2j + 1
/// in a_j's lanes), it gives one register per component with lane 4L + j <-> vertex 2j + L.
RS_INLINE void transpose4(__m256 a0, __m256 a1, __m256 a2, __m256 a3, __m256& x, __m256& y, __m256& z, __m256& w)
{
    const __m256 t0 = _mm256_unpacklo_ps(a0, a1), t1 = _mm256_unpackhi_ps(a0, a1);
    const __m256 t2 = _mm256_unpacklo_ps(a2, a3), t3 = _mm256_unpackhi_ps(a2, a3);
    x = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    y = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    z = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    w = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

/// Per 128-bit lane (x, y, z, 0) of two 3-float vectors at p and p + 3.
RS_INLINE __m256 pair3(const float* p)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(load3(p)), load3(p + 3), 1);
}

/// pair3 from one 8-float load and a permute: per 128-bit lane the 3-float vectors at p and p + 3 as (x y z ·), lane
/// 3 of each half holding a neighbouring float that the pair forms never read as a component (Pair34::dir and point
/// broadcast x, y and z). Reads p[0..7]: the caller guarantees p[6] and p[7] (the next vertex's x and y) exist.
RS_INLINE __m256 pair3Wide(const float* p)
{
    return _mm256_permutevar8x32_ps(_mm256_loadu_ps(p), _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6));
}

/// Stores a pair (x y z · per 128-bit lane) as the six floats at p with one 8-float store: p[6] and p[7] receive
/// spare values, so the caller writes them (the next vertex) afterwards.
RS_INLINE void storePair3Wide(float* p, __m256 v)
{
    _mm256_storeu_ps(p, _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 6, 6)));
}

/// Two vertices' blended 3x4 matrices as columns: c_k = (column k of a | column k of b).
struct Pair34 {
    __m256 c0, c1, c2, t;
    RS_INLINE __m256 dir(__m256 v) const
    {
        return _mm256_fmadd_ps(c2, _mm256_shuffle_ps(v, v, 0xAA),
                               _mm256_fmadd_ps(c1, _mm256_shuffle_ps(v, v, 0x55), _mm256_mul_ps(c0, _mm256_shuffle_ps(v, v, 0x00))));
    }
    RS_INLINE __m256 point(__m256 p) const { return _mm256_add_ps(dir(p), t); }
};

template <int K>
RS_INLINE Pair34 blendPair(const PaletteMatrix* pal, const uint16_t* j, const float* w)
{
    __m256 a01, a23, b01, b23;
    blendHalves<K>(pal, j, w, a01, a23);
    blendHalves<K>(pal, j + K, w + K, b01, b23);
    return {_mm256_permute2f128_ps(a01, b01, 0x20), _mm256_permute2f128_ps(a01, b01, 0x31),
            _mm256_permute2f128_ps(a23, b23, 0x20), _mm256_permute2f128_ps(a23, b23, 0x31)};
}

/// prefetchInputs16 of the 16 vertices kPrefetchBlocks blocks ahead of v, once every 16 vertices of a loop that started
/// at `first` (as the AVX-512 kernels prefetch once a block); nothing past `last`. t may be null (no tangents).
template <int K>
RS_INLINE void prefetchInputs(const uint16_t* joints, const float* weights, const float* p, const float* n, const float* t,
                              size_t first, size_t v, size_t last)
{
    const size_t u = v + 16 * kPrefetchBlocks;
    if (((v - first) & 15) == 0 && u + 16 <= last)
        prefetchInputs16<K>(joints, weights, p, n, t, u);
}

/// The AVX2 loops' output arrays whose lines they fetch for writing ahead of their stores (prefetchOutputs): the
/// job's outputs where they pass kStreamingOutputBytes (they cannot stay in the caches, so each store's
/// read-for-ownership goes to L3 or memory), none otherwise (there the lines are mostly in L2 and the prefetches
/// cost more than they save). The AVX-512 kernels stream such jobs instead; 32-byte non-temporal stores were slower
/// here (BENCHMARKS.md). Null: not written, or not prefetched.
struct OutputsAhead {
    float* p = nullptr;
    float* n = nullptr;
    float* t = nullptr;
    bool any() const { return p || n || t; }
};

RS_INLINE OutputsAhead outputsAhead(size_t vertices, float* p, float* n, float* t)
{
    if (!outputsPassStreamingBytes(vertices, p, n, t))
        return {};
    return {p, n, t};
}

/// The output lines of the 16 vertices kPrefetchBlocks blocks ahead of v fetched for writing, at the points where
/// prefetchInputs fetches their inputs (once every 16 vertices of a loop that started at `first`); nothing past
/// `last`, so nothing of another thread's range.
RS_INLINE void prefetchOutputs(const OutputsAhead& o, size_t first, size_t v, size_t last)
{
    const size_t u = v + 16 * kPrefetchBlocks;
    if (!o.any() || ((v - first) & 15) != 0 || u + 16 > last)
        return;
    if (o.p)
        prefetchLinesForWrite(o.p + 3 * u, 16 * 12);
    if (o.n)
        prefetchLinesForWrite(o.n + 3 * u, 16 * 12);
    if (o.t)
        prefetchLinesForWrite(o.t + 4 * u, 16 * 16);
}

} // namespace rig::detail::avx2
