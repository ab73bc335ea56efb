// Method::Linear with 4 influences, AVX2 + FMA. Compiled with -mavx2 -mfma; called only when the CPU has both.
//
// Per vertex: the blended matrix is accumulated as two 8-float registers (columns 0|1 and 2|3 of the 3x4 part), then
// positions, normals and tangents are each one multiply, one FMA and a half-add. Normals and tangents are normalised
// together in one register with rsqrt plus a Newton step. No allocation, no call per vertex.
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "math.h"
#include "skinning.h"

namespace rig {

bool cpuHasAvx2Fma()
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

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

} // namespace

void runLinearAvx2K4(const SkinJob& job, size_t first, size_t last)
{
    const JointFrame* pal = job.palette.data();
    const uint16_t* joints = job.joints.data();
    const float* weights = job.weights.data();
    const glm::vec3* inP = job.positions.data();
    const glm::vec3* inN = job.normals.data();
    const glm::vec4* inT = job.tangents.data();
    float* outP = reinterpret_cast<float*>(job.outPositions.data());
    float* outN = reinterpret_cast<float*>(job.outNormals.data());
    float* outT = reinterpret_cast<float*>(job.outTangents.data());
    uint8_t* flags = job.outFlags.empty() ? nullptr : job.outFlags.data();
    const bool tangents = !job.tangents.empty();

    const __m256 ones = _mm256_set1_ps(1.0f);
    const __m256 zeros = _mm256_setzero_ps();
    const __m256 half = _mm256_set1_ps(0.5f);
    const __m256 three = _mm256_set1_ps(3.0f);
    const __m256 tiny = _mm256_set1_ps(kZeroLength2);
    const __m128i keepXyz = _mm_setr_epi32(-1, -1, -1, 0);

    for (size_t v = first; v < last; ++v) {
        const uint16_t* j = joints + 4 * v;
        const float* w = weights + 4 * v;
        const float* m0 = &pal[j[0]].matrix[0][0];
        const float* m1 = &pal[j[1]].matrix[0][0];
        const float* m2 = &pal[j[2]].matrix[0][0];
        const float* m3 = &pal[j[3]].matrix[0][0];
        __m256 w0 = _mm256_broadcast_ss(w + 0);
        __m256 a01 = _mm256_mul_ps(w0, _mm256_loadu_ps(m0));
        __m256 a23 = _mm256_mul_ps(w0, _mm256_loadu_ps(m0 + 8));
        __m256 w1 = _mm256_broadcast_ss(w + 1);
        a01 = _mm256_fmadd_ps(w1, _mm256_loadu_ps(m1), a01);
        a23 = _mm256_fmadd_ps(w1, _mm256_loadu_ps(m1 + 8), a23);
        __m256 w2 = _mm256_broadcast_ss(w + 2);
        a01 = _mm256_fmadd_ps(w2, _mm256_loadu_ps(m2), a01);
        a23 = _mm256_fmadd_ps(w2, _mm256_loadu_ps(m2 + 8), a23);
        __m256 w3 = _mm256_broadcast_ss(w + 3);
        a01 = _mm256_fmadd_ps(w3, _mm256_loadu_ps(m3), a01);
        a23 = _mm256_fmadd_ps(w3, _mm256_loadu_ps(m3 + 8), a23);

        const float* p = &inP[v].x;
        const float* n = &inN[v].x;
        // position: c0 px + c1 py | c2 pz + c3
        const __m128 pos = foldHalves(_mm256_fmadd_ps(a23, _mm256_blend_ps(_mm256_broadcast_ss(p + 2), ones, 0xF0),
                                                      _mm256_mul_ps(a01, pairBroadcast(p, p + 1))));
        const __m128 nrm = foldHalves(_mm256_fmadd_ps(a23, _mm256_blend_ps(_mm256_broadcast_ss(n + 2), zeros, 0xF0),
                                                      _mm256_mul_ps(a01, pairBroadcast(n, n + 1))));
        __m128 tan = _mm_setzero_ps();
        if (tangents) {
            const float* t = &inT[v].x;
            tan = foldHalves(_mm256_fmadd_ps(a23, _mm256_blend_ps(_mm256_broadcast_ss(t + 2), zeros, 0xF0),
                                             _mm256_mul_ps(a01, pairBroadcast(t, t + 1))));
        }
        // Normalise normal (low half) and tangent (high half) together; lane 3 of each is 0.
        const __m256 nt = _mm256_insertf128_ps(_mm256_castps128_ps256(nrm), tan, 1);
        const __m256 sq = _mm256_mul_ps(nt, nt);
        __m256 len2 = _mm256_hadd_ps(sq, sq);
        len2 = _mm256_hadd_ps(len2, len2);
        const __m256 r0 = _mm256_rsqrt_ps(len2);
        // One Newton step: r = r0 * (3 - len2 * r0²) / 2
        const __m256 r = _mm256_mul_ps(_mm256_mul_ps(half, r0), _mm256_fnmadd_ps(_mm256_mul_ps(len2, r0), r0, three));
        const __m256 ok = _mm256_cmp_ps(len2, tiny, _CMP_GE_OQ);
        const __m256 unit = _mm256_and_ps(_mm256_mul_ps(nt, r), ok);

        if (v + 1 < last) {
            // 4-wide stores spill one float into the next vertex, which this loop writes next.
            _mm_storeu_ps(outP + 3 * v, pos);
            _mm_storeu_ps(outN + 3 * v, _mm256_castps256_ps128(unit));
        } else {
            _mm_maskstore_ps(outP + 3 * v, keepXyz, pos);
            _mm_maskstore_ps(outN + 3 * v, keepXyz, _mm256_castps256_ps128(unit));
        }
        if (tangents) {
            const __m128 tw = _mm_blend_ps(_mm256_extractf128_ps(unit, 1), _mm_broadcast_ss(&inT[v].w), 0x8);
            _mm_storeu_ps(outT + 4 * v, tw);
        }
        if (flags)
            flags[v] = SkinFlagNone;
    }
}

} // namespace rig
