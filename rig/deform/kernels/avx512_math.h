// Internal to the AVX-512 kernels (skinning_linear_avx512.cpp, skinning_methods_avx512.h and the files that
// instantiate it, analysis/reference_avx512.cpp, all built with
// -mavx512f -mavx512dq -mavx512bw -mavx512vl -mavx2 -mfma): the 16-vertex block layout they share. A block is four
// groups of four vertices; a vertex's blended 3x4 matrix is one zmm (c0 | c1 | c2 | t, each x y z 0), and the inputs
// of the block's 3-float streams (48 floats, three zmm) are spread to per-lane-group broadcasts with two-source
// permutes.
#pragma once

// GCC 12 warns about its own _mm512_undefined_ps() (`__Y = __Y`) inside the intrinsics headers at -O3: off for the
// rest of the kernel files that include this (they include nothing after it that the warning would serve).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstdint>

#include "rig/deform/kernels/skinning_internal.h"
#include "rig/model/math.h"

namespace rig::detail::avx512 {


/// Group g's first float in a block's 3-float stream, relative to the first zmm it lies in (groups 0..3 start at
/// floats 0, 12, 24, 36: zmm 0, 0, 1, 2).
inline constexpr int kGroupOffset[4] = {0, 12, 8, 4};

/// The permutation tables of the block layout.
struct BlockLayout {
    __m512i spread3[4][3]; ///< group g, component c: lane l <- float (o_g + 3 (l / 4) + c) of the block's 3-float data
    __m512i spread4[3];    ///< component c: lane l <- float (4 (l / 4) + c)
    __m512i pack[3];       ///< 4 x (x y z _) -> 12-float stride, output zmm 0..2
};

inline BlockLayout makeBlockLayout()
{
    BlockLayout k;
    alignas(64) int32_t idx[16];
    for (int g = 0; g < 4; ++g)
        for (int c = 0; c < 3; ++c) {
            for (int l = 0; l < 16; ++l)
                idx[l] = kGroupOffset[g] + 3 * (l / 4) + c;
            k.spread3[g][c] = _mm512_load_si512(idx);
        }
    for (int c = 0; c < 3; ++c) {
        for (int l = 0; l < 16; ++l)
            idx[l] = 4 * (l / 4) + c;
        k.spread4[c] = _mm512_load_si512(idx);
    }
    // Packed float f of output zmm z is float (16 z + f) of the block: vertex q = that / 3, component c = that % 3,
    // found in group zmm q / 4, lane 4 (q % 4) + c; output z reads groups z and z + 1 (two-source permute).
    for (int z = 0; z < 3; ++z) {
        for (int f = 0; f < 16; ++f) {
            const int q = (16 * z + f) / 3, c = (16 * z + f) % 3;
            idx[f] = 16 * (q / 4 - z) + 4 * (q % 4) + c;
        }
        k.pack[z] = _mm512_load_si512(idx);
    }
    return k;
}

/// The in-lane 4 x 4 transpose of four registers: lane 4L + j of x (y, z, w) is component x (y, z, w) of a_j's
/// 128-bit lane L. Its own inverse. Applied to a block's four groups, it gives one register per component with
/// the 16 vertices in the order lane 4L + j <-> vertex 4j + L.
RS_INLINE void transpose4(__m512 a0, __m512 a1, __m512 a2, __m512 a3, __m512& x, __m512& y, __m512& z, __m512& w)
{
    const __m512 t0 = _mm512_unpacklo_ps(a0, a1), t1 = _mm512_unpackhi_ps(a0, a1);
    const __m512 t2 = _mm512_unpacklo_ps(a2, a3), t3 = _mm512_unpackhi_ps(a2, a3);
    x = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    y = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    z = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    w = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

/// Σ w_i M_{j_i} over the K slots (zero-weight slots multiply a finite matrix by 0).
template <int K>
RS_INLINE __m512 blendMatrix(const PaletteMatrix* pal, const uint16_t* j, const float* w)
{
    __m512 a = _mm512_mul_ps(_mm512_load_ps(pal[j[0]].m), _mm512_set1_ps(w[0]));
    for (int i = 1; i < K; ++i)
        a = _mm512_fmadd_ps(_mm512_load_ps(pal[j[i]].m), _mm512_set1_ps(w[i]), a);
    return a;
}

/// Normalises the (x y z 0) groups of n and t (zero when |v|² < kZeroLength2 or not finite).
RS_INLINE void normalizePair(__m512& n, __m512& t)
{
    const __m512 nn = _mm512_mul_ps(n, n);
    const __m512 tt = _mm512_mul_ps(t, t);
    // (nx² + nz², ny² + nw², tx² + tz², ty² + tw²), then (|n|², |n|², |t|², |t|²) per group.
    __m512 s = _mm512_add_ps(_mm512_shuffle_ps(nn, tt, _MM_SHUFFLE(1, 0, 1, 0)),
                             _mm512_shuffle_ps(nn, tt, _MM_SHUFFLE(3, 2, 3, 2)));
    s = _mm512_add_ps(s, _mm512_permute_ps(s, _MM_SHUFFLE(2, 3, 0, 1)));
    const __m512 r0 = _mm512_rsqrt14_ps(s);
    // One Newton step: r = r0 (1.5 - 0.5 s r0²).
    const __m512 h = _mm512_mul_ps(_mm512_mul_ps(s, _mm512_set1_ps(0.5f)), r0);
    const __mmask16 ok = _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(s, _mm512_set1_ps(kZeroLength2), _CMP_GE_OQ), s,
                                                 _mm512_set1_ps(INFINITY), _CMP_LT_OQ);
    const __m512 r = _mm512_mul_ps(r0, _mm512_fnmadd_ps(h, r0, _mm512_set1_ps(1.5f)));
    // Undefined groups are zeroed in the product itself: zeroing r alone leaves NaN * 0 = NaN in the output when the
    // input is NaN or infinite. Mask bit 4g holds |n|² of group g, bit 4g + 2 |t|²: spread each over its group.
    const __mmask16 okN = __mmask16((ok & 0x1111u) * 0xFu);
    const __mmask16 okT = __mmask16(((ok >> 2) & 0x1111u) * 0xFu);
    n = _mm512_maskz_mul_ps(okN, n, _mm512_permute_ps(r, _MM_SHUFFLE(0, 0, 0, 0)));
    t = _mm512_maskz_mul_ps(okT, t, _mm512_permute_ps(r, _MM_SHUFFLE(2, 2, 2, 2)));
}

/// The two-source permute of a block's 3-float stream d (three zmm) that reaches group G's floats.
template <int G>
RS_INLINE __m512 spread3(const __m512 (&d)[3], __m512i idx)
{
    if constexpr (G == 0)
        return _mm512_permutexvar_ps(idx, d[0]);
    else if constexpr (G == 1)
        return _mm512_permutex2var_ps(d[0], idx, d[1]);
    else if constexpr (G == 2)
        return _mm512_permutex2var_ps(d[1], idx, d[2]);
    else
        return _mm512_permutexvar_ps(idx, d[2]);
}

// Writes a float stream as whole aligned 64-byte lines. Every put() appends M zmm of consecutive floats; the
// stream starts `shift` floats into a line, so line m of a put is (tail of the previous zmm | head of this one).
// The first line of the range and the last are partial: masked stores that leave the neighbours' floats alone.
template <int M, bool kStream>
class LineWriter {
public:
    explicit LineWriter(float* start)
    {
        const auto addr = reinterpret_cast<uintptr_t>(start);
        m_shift = int((addr & 63) / 4);
        m_line = reinterpret_cast<float*>(addr & ~uintptr_t(63));
        alignas(64) int32_t idx[16];
        for (int l = 0; l < 16; ++l)
            idx[l] = 16 - m_shift + l;
        m_idx = _mm512_load_si512(idx);
        m_carry = _mm512_setzero_ps();
    }

    RS_INLINE void put(const __m512* z)
    {
        const __m512 first = _mm512_permutex2var_ps(m_carry, m_idx, z[0]);
        if (m_started) {
            store(m_line, first);
        } else {
            _mm512_mask_storeu_ps(m_line, __mmask16(0xFFFFu << m_shift), first);
            m_started = true;
        }
        for (int m = 1; m < M; ++m)
            store(m_line + 16 * m, _mm512_permutex2var_ps(z[m - 1], m_idx, z[m]));
        m_carry = z[M - 1];
        m_line += 16 * M;
    }

    /// Writes what the last put() left over (the first `shift` floats of the next line).
    void finish()
    {
        if (m_started && m_shift > 0)
            _mm512_mask_storeu_ps(m_line, __mmask16((1u << m_shift) - 1),
                                  _mm512_permutex2var_ps(m_carry, m_idx, _mm512_setzero_ps()));
    }

private:
    static RS_INLINE void store(float* line, __m512 v)
    {
        if constexpr (kStream)
            _mm512_stream_ps(line, v);
        else
            _mm512_store_ps(line, v);
    }

    float* m_line;
    __m512i m_idx;
    __m512 m_carry;
    int m_shift;
    bool m_started = false;
};

} // namespace rig::detail::avx512
