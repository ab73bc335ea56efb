// Method::Linear, AVX2 + FMA. Compiled with -mavx2 -mfma; called only when the CPU has both (the fallback where
// AVX-512 is missing).
//
// Per vertex: the blended matrix is accumulated as two 8-float registers (columns 0|1 and 2|3 of the compact 3x4
// palette line). Two vertices per iteration: their columns are transposed so that one 256-bit register holds a column
// of both (vertex a low, b high), and positions, normals and tangents are three FMAs each for the pair; two pairs'
// normals and tangents are normalised together, with one rsqrt plus a Newton step (normalizePairs2). The range's last vertex (and an odd one before it) goes through the one-vertex form:
// each product one multiply, one FMA and a half-add, normal and tangent normalised together. No allocation, no call
// per vertex, nothing written outside [first, last).
#include <immintrin.h>

#include <cstring>

#include "rig/deform/kernels/avx2_math.h"
#include "rig/deform/kernels/skinning_internal.h"
#include "rig/model/math.h"

namespace rig::detail {

namespace {

inline __m256 pairBroadcast(const float* a, const float* b)
{
    return _mm256_blend_ps(_mm256_broadcast_ss(a), _mm256_broadcast_ss(b), 0xF0);
}

// Sum of the two 128-bit halves.
inline __m128 foldHalves(__m256 v)
{
    return _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
}

struct Out {
    __m128 p, n, t; // x y z 0 (t: x y z w)
};

template <int K, bool kTangents>
inline __attribute__((always_inline)) Out skinOne(const PaletteMatrix* pal, const uint16_t* j, const float* w, const float* p, const float* n,
                   const float* t)
{
    const __m256 ones = _mm256_set1_ps(1.0f);
    const __m256 zeros = _mm256_setzero_ps();
    __m256 a01, a23;
    avx2::blendHalves<K>(pal, j, w, a01, a23);
    Out o;
    // position: c0 px + c1 py | c2 pz + c3
    o.p = foldHalves(_mm256_fmadd_ps(a23, _mm256_blend_ps(_mm256_broadcast_ss(p + 2), ones, 0xF0),
                                     _mm256_mul_ps(a01, pairBroadcast(p, p + 1))));
    const __m128 nrm = foldHalves(_mm256_fmadd_ps(a23, _mm256_blend_ps(_mm256_broadcast_ss(n + 2), zeros, 0xF0),
                                                  _mm256_mul_ps(a01, pairBroadcast(n, n + 1))));
    __m128 tan = _mm_setzero_ps();
    if constexpr (kTangents)
        tan = foldHalves(_mm256_fmadd_ps(a23, _mm256_blend_ps(_mm256_broadcast_ss(t + 2), zeros, 0xF0),
                                         _mm256_mul_ps(a01, pairBroadcast(t, t + 1))));
    // Normalise normal (low half) and tangent (high half) together; lane 3 of each is 0.
    const __m256 nt = _mm256_insertf128_ps(_mm256_castps128_ps256(nrm), tan, 1);
    const __m256 sq = _mm256_mul_ps(nt, nt);
    __m256 len2 = _mm256_hadd_ps(sq, sq);
    len2 = _mm256_hadd_ps(len2, len2);
    const __m256 r0 = _mm256_rsqrt_ps(len2);
    // One Newton step: r = r0 * (3 - len2 * r0²) / 2
    const __m256 r = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), r0),
                                   _mm256_fnmadd_ps(_mm256_mul_ps(len2, r0), r0, _mm256_set1_ps(3.0f)));
    // Defined when kZeroLength2 <= len2 < inf (NaN fails both), like safeNormalize.
    const __m256 ok = _mm256_and_ps(_mm256_cmp_ps(len2, _mm256_set1_ps(kZeroLength2), _CMP_GE_OQ),
                                    _mm256_cmp_ps(len2, _mm256_set1_ps(INFINITY), _CMP_LT_OQ));
    const __m256 unit = _mm256_and_ps(_mm256_mul_ps(nt, r), ok);
    o.n = _mm256_castps256_ps128(unit);
    if constexpr (kTangents)
        o.t = _mm_blend_ps(_mm256_extractf128_ps(unit, 1), _mm_broadcast_ss(t + 3), 0x8);
    return o;
}

template <int K, bool kTangents>
void run(const SkinJob& job, const PaletteMatrix* pal, size_t first, size_t last)
{
    const uint16_t* joints = job.joints.data();
    const float* weights = job.weights.data();
    const float* inP = &job.positions.data()->x;
    const float* inN = &job.normals.data()->x;
    const float* inT = kTangents ? &job.tangents.data()->x : nullptr;
    float* outP = &job.outPositions.data()->x;
    float* outN = &job.outNormals.data()->x;
    float* outT = kTangents ? &job.outTangents.data()->x : nullptr;

    auto one = [&](size_t v) {
        return skinOne<K, kTangents>(pal, joints + K * v, weights + K * v, inP + 3 * v, inN + 3 * v,
                                     kTangents ? inT + 4 * v : nullptr);
    };
    size_t v = first;
    // Two vertices at a time in one 256-bit register each (avx2_math.h): the pair's blends transposed into columns,
    // every product and normalisation done for both at once. While v + 2 < last, the pair's positions and normals
    // come from one 8-float load each (reading vertex v + 2's x and y, unused), and each output is one 8-float store
    // whose two spare floats land on vertex v + 2, written right after (in order).
    const __m256 keep3 = _mm256_castsi256_ps(_mm256_setr_epi32(-1, -1, -1, 0, -1, -1, -1, 0));
    auto pair = [&](size_t v) RS_INLINE_LAMBDA {
        const avx2::Pair34 a = avx2::blendPair<K>(pal, joints + K * v, weights + K * v);
        const __m256 pos = a.point(avx2::pair3Wide(inP + 3 * v));
        __m256 nrm = a.dir(avx2::pair3Wide(inN + 3 * v)), tan = _mm256_setzero_ps(), tIn;
        if constexpr (kTangents) {
            tIn = _mm256_loadu_ps(inT + 4 * v);
            tan = a.dir(_mm256_and_ps(tIn, keep3));
        }
        avx2::normalizePairs(nrm, tan);
        avx2::storePair3Wide(outP + 3 * v, pos);
        avx2::storePair3Wide(outN + 3 * v, nrm);
        if constexpr (kTangents)
            _mm256_storeu_ps(outT + 4 * v, _mm256_blend_ps(tan, tIn, 0x88)); // w copied
    };
    // Two pairs with one normalisation (normalizePairs2): what pair() does, for v and v + 2.
    auto twoPairs = [&](size_t v) RS_INLINE_LAMBDA {
        const avx2::Pair34 a = avx2::blendPair<K>(pal, joints + K * v, weights + K * v);
        const avx2::Pair34 b = avx2::blendPair<K>(pal, joints + K * (v + 2), weights + K * (v + 2));
        const __m256 posA = a.point(avx2::pair3Wide(inP + 3 * v)), posB = b.point(avx2::pair3Wide(inP + 3 * v + 6));
        __m256 nA = a.dir(avx2::pair3Wide(inN + 3 * v)), nB = b.dir(avx2::pair3Wide(inN + 3 * v + 6));
        __m256 tA = _mm256_setzero_ps(), tB = _mm256_setzero_ps(), tInA, tInB;
        if constexpr (kTangents) {
            tInA = _mm256_loadu_ps(inT + 4 * v);
            tInB = _mm256_loadu_ps(inT + 4 * v + 8);
            tA = a.dir(_mm256_and_ps(tInA, keep3));
            tB = b.dir(_mm256_and_ps(tInB, keep3));
        }
        avx2::normalizePairs2(nA, tA, nB, tB);
        avx2::storePair3Wide(outP + 3 * v, posA);
        avx2::storePair3Wide(outN + 3 * v, nA);
        if constexpr (kTangents)
            _mm256_storeu_ps(outT + 4 * v, _mm256_blend_ps(tA, tInA, 0x88));
        avx2::storePair3Wide(outP + 3 * v + 6, posB);
        avx2::storePair3Wide(outN + 3 * v + 6, nB);
        if constexpr (kTangents)
            _mm256_storeu_ps(outT + 4 * v + 8, _mm256_blend_ps(tB, tInB, 0x88));
    };
    const avx2::OutputsAhead ahead = avx2::outputsAhead(job.positions.size(), outP, outN, outT);
    for (; v + 5 <= last; v += 4) { // two pairs an iteration: the prefetch test and the loop's bookkeeping once
        avx2::prefetchInputs<K>(joints, weights, inP, inN, inT, first, v, last);
        avx2::prefetchOutputs(ahead, first, v, last);
        twoPairs(v);
    }
    if (v + 3 <= last) {
        pair(v);
        v += 2;
    }
    const __m128i keepXyz = _mm_setr_epi32(-1, -1, -1, 0);
    for (; v < last; ++v) {
        const Out a = one(v);
        _mm_maskstore_ps(outP + 3 * v, keepXyz, a.p);
        _mm_maskstore_ps(outN + 3 * v, keepXyz, a.n);
        if constexpr (kTangents)
            _mm_storeu_ps(outT + 4 * v, a.t);
    }
}

} // namespace

void runLinearAvx2(const SkinJob& job, const PaletteMatrix* pal, size_t first, size_t last)
{
    const bool tangents = !job.tangents.empty();
    if (job.influencesPerVertex == 8) {
        if (tangents)
            run<8, true>(job, pal, first, last);
        else
            run<8, false>(job, pal, first, last);
    } else {
        if (tangents)
            run<4, true>(job, pal, first, last);
        else
            run<4, false>(job, pal, first, last);
    }
    if (!job.outFlags.empty())
        std::memset(job.outFlags.data() + first, SkinFlagNone, last - first);
}

} // namespace rig::detail
