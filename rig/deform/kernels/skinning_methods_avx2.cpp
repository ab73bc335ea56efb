// Every skinning method but linear (its own kernels) with AVX2 + FMA, one vertex at a time in 128/256-bit registers:
// positions-only, blend-inverse-transpose, inverse-transpose, cofactor, dual-quaternion and the jacobian. Compiled
// with -mavx2 -mfma -O3; called only when the CPU has both, on AVX-512 machines too (for dual-quaternion and the
// jacobian they are the fastest kernels there).
//
// Each follows the scalar reference in skinning.cpp step for step, with the same outputs and flags: the blended 3x4
// matrix from the compact palette (zero-weight slots multiply a finite matrix by 0 instead of being skipped, which
// adds +0), the cofactor as the cross products of the blended columns (cof(A) = [c1×c2 | c2×c0 | c0×c1]), and rsqrt
// plus one Newton step for the normalisations. The results equal the scalar path within float rounding (tests:
// tests/test_skinning.cpp, every kernel against the scalar one). Inputs are read without over-reading their arrays
// (3-float vectors as a 64-bit and a 32-bit load); outputs are written in order, the 4-float store of a 3-float vector
// spilling into the next vertex, which is written next, except for the range's last vertex (a masked store): nothing
// outside [first, last) is touched. No allocation, no call per vertex.
#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "rig/deform/kernels/avx2_math.h"
#include "rig/deform/kernels/skinning_internal.h"
#include "rig/model/math.h"

namespace rig::detail {

namespace {

using namespace avx2;

/// The 3x4 affine blend Σ w M: columns c0, c1, c2 and the translation t, each (x, y, z, 0).
struct Affine34 {
    __m128 c0, c1, c2, t;
    RS_INLINE __m128 dir(const float* v) const
    {
        return _mm_fmadd_ps(c2, _mm_broadcast_ss(v + 2), _mm_fmadd_ps(c1, _mm_broadcast_ss(v + 1), _mm_mul_ps(c0, _mm_broadcast_ss(v))));
    }
    RS_INLINE __m128 dir(__m128 v) const
    {
        return _mm_fmadd_ps(c2, _mm_shuffle_ps(v, v, 0xAA), _mm_fmadd_ps(c1, _mm_shuffle_ps(v, v, 0x55), _mm_mul_ps(c0, _mm_shuffle_ps(v, v, 0x00))));
    }
    RS_INLINE __m128 point(const float* p) const { return _mm_add_ps(dir(p), t); }
    /// cof(A) v = v.x (c1×c2) + v.y (c2×c0) + v.z (c0×c1).
    RS_INLINE __m128 cofactorTimes(const float* v) const
    {
        return _mm_fmadd_ps(cross3(c0, c1), _mm_broadcast_ss(v + 2),
                            _mm_fmadd_ps(cross3(c2, c0), _mm_broadcast_ss(v + 1), _mm_mul_ps(cross3(c1, c2), _mm_broadcast_ss(v))));
    }
};

template <int K>
RS_INLINE Affine34 blend(const PaletteMatrix* pal, const uint16_t* j, const float* w)
{
    __m256 a01, a23;
    blendHalves<K>(pal, j, w, a01, a23);
    return {_mm256_castps256_ps128(a01), _mm256_extractf128_ps(a01, 1), _mm256_castps256_ps128(a23),
            _mm256_extractf128_ps(a23, 1)};
}

/// The outputs of one range: 3-float stores that may spill into the next vertex except at the range's end.
struct Writer {
    float* p;
    float* n;
    float* t;       // null without tangents
    uint8_t* flags; // null when not asked for
    size_t last;
    const float* inT; // the input tangents (their w is copied), null without tangents
    RS_INLINE void store3(float* base, size_t v, __m128 x) const
    {
        if (v + 1 < last)
            _mm_storeu_ps(base + 3 * v, x);
        else
            _mm_maskstore_ps(base + 3 * v, _mm_setr_epi32(-1, -1, -1, 0), x);
    }
    RS_INLINE void write(size_t v, __m128 pos, __m128 nrm, __m128 tan, uint8_t f) const
    {
        if (p)
            store3(p, v, pos);
        if (n)
            store3(n, v, nrm);
        if (t)
            _mm_storeu_ps(t + 4 * v, _mm_blend_ps(tan, _mm_broadcast_ss(inT + 4 * v + 3), 0x8)); // w copied
        if (flags)
            flags[v] = f;
    }
};

/// Cofactor, inverse-transpose and blend-inverse-transpose two vertices at a time from `first`; returns where it
/// stopped (an odd last vertex is left to the one-vertex loop).
template <Method M, int K>
size_t runPairs(const SkinJob& job, const PaletteMatrix* pal, const MethodTables& tables, const Writer& out, size_t first,
                size_t last)
{
    const uint16_t* joints = job.joints.data();
    const float* weights = job.weights.data();
    const float* inP = reinterpret_cast<const float*>(job.positions.data());
    const float* inN = reinterpret_cast<const float*>(job.normals.data());
    const __m256 zero = _mm256_setzero_ps();
    const __m256 keep3 = _mm256_castsi256_ps(_mm256_setr_epi32(-1, -1, -1, 0, -1, -1, -1, 0));
    size_t v = first;
    for (; v + 2 <= last; v += 2) {
        const uint16_t* j = joints + K * v;
        const float* w = weights + K * v;
        const Pair34 a = blendPair<K>(pal, j, w);
        const __m256 n0 = pair3(inN + 3 * v);
        __m256 pos = zero, tan = zero, nrm;
        if (out.p)
            pos = a.point(pair3(inP + 3 * v));
        if (out.t)
            tan = a.dir(_mm256_and_ps(_mm256_loadu_ps(out.inT + 4 * v), keep3)); // normalised with the normal below
        uint8_t fa = SkinFlagNone, fb = SkinFlagNone;
        const __m256 nx = _mm256_shuffle_ps(n0, n0, 0x00), ny = _mm256_shuffle_ps(n0, n0, 0x55), nz = _mm256_shuffle_ps(n0, n0, 0xAA);
        if constexpr (M == Method::Cofactor) {
            nrm = _mm256_fmadd_ps(cross8(a.c0, a.c1), nz, _mm256_fmadd_ps(cross8(a.c2, a.c0), ny, _mm256_mul_ps(cross8(a.c1, a.c2), nx)));
            normalizePairs(nrm, tan);
        } else if constexpr (M == Method::InverseTranspose) {
            const __m256 k0 = cross8(a.c1, a.c2), k1 = cross8(a.c2, a.c0), k2 = cross8(a.c0, a.c1);
            const __m256 cn = _mm256_fmadd_ps(k2, nz, _mm256_fmadd_ps(k1, ny, _mm256_mul_ps(k0, nx)));
            const __m256 det = _mm256_dp_ps(a.c0, k0, 0x7F);
            const __m256 f2 = _mm256_add_ps(_mm256_add_ps(_mm256_dp_ps(a.c0, a.c0, 0x7F), _mm256_dp_ps(a.c1, a.c1, 0x7F)),
                                            _mm256_dp_ps(a.c2, a.c2, 0x7F));
            const __m256 sc = _mm256_mul_ps(f2, _mm256_set1_ps(1.0f / 3.0f));
            const __m256 absDet = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), det);
            const __m256 ok = _mm256_and_ps(_mm256_cmp_ps(absDet, _mm256_mul_ps(_mm256_set1_ps(1e-6f), _mm256_mul_ps(sc, _mm256_sqrt_ps(sc))), _CMP_GT_OQ),
                                            _mm256_cmp_ps(absDet, _mm256_set1_ps(INFINITY), _CMP_LT_OQ));
            const __m256 flipped = _mm256_xor_ps(cn, _mm256_and_ps(det, _mm256_set1_ps(-0.0f)));
            nrm = flipped;
            normalizePairs(nrm, tan);
            nrm = _mm256_and_ps(nrm, ok);
            const int mask = _mm256_movemask_ps(ok);
            fa = (mask & 0x01) ? SkinFlagNone : SkinFlagSingular;
            fb = (mask & 0x10) ? SkinFlagNone : SkinFlagSingular;
        } else {
            static_assert(M == Method::BlendInverseTranspose);
            const Pair34 it = blendPair<K>(tables.inverseTranspose, j, w);
            bool sa = false, sb = false;
            if (tables.anySingular)
                for (int i = 0; i < K; ++i) {
                    sa |= w[i] != 0.0f && (tables.jointFlags[j[i]] & MethodTables::Singular);
                    sb |= w[K + i] != 0.0f && (tables.jointFlags[j[K + i]] & MethodTables::Singular);
                }
            nrm = it.dir(n0);
            normalizePairs(nrm, tan);
            if (sa)
                nrm = _mm256_blend_ps(nrm, zero, 0x0F);
            if (sb)
                nrm = _mm256_blend_ps(nrm, zero, 0xF0);
            fa = sa ? SkinFlagSingular : SkinFlagNone;
            fb = sb ? SkinFlagSingular : SkinFlagNone;
        }
        out.write(v, _mm256_castps256_ps128(pos), _mm256_castps256_ps128(nrm), _mm256_castps256_ps128(tan), fa);
        out.write(v + 1, _mm256_extractf128_ps(pos, 1), _mm256_extractf128_ps(nrm, 1), _mm256_extractf128_ps(tan, 1), fb);
    }
    return v;
}

template <int K>
void run(const SkinJob& job, const PaletteMatrix* pal, const MethodTables& tables, size_t first, size_t last)
{
    const uint16_t* joints = job.joints.data();
    const float* weights = job.weights.data();
    const float* inP = reinterpret_cast<const float*>(job.positions.data());
    const float* inN = reinterpret_cast<const float*>(job.normals.data());
    const bool tangents = !job.tangents.empty() && !job.outTangents.empty();
    const float* inT = tangents ? reinterpret_cast<const float*>(job.tangents.data()) : nullptr;
    const Writer out{reinterpret_cast<float*>(job.outPositions.data()), reinterpret_cast<float*>(job.outNormals.data()),
                     tangents ? reinterpret_cast<float*>(job.outTangents.data()) : nullptr,
                     job.outFlags.empty() ? nullptr : job.outFlags.data(), last, inT};
    const __m128 zero = _mm_setzero_ps();
    auto tangentIn = [&](size_t v) { return tangents ? _mm_and_ps(_mm_loadu_ps(inT + 4 * v), _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0))) : zero; };

    switch (job.method) {
    case Method::PositionsOnly:
        if (!out.n && !out.t) { // positions alone: nothing else changes
            for (size_t v = first; v < last; ++v)
                out.store3(out.p, v, blend<K>(pal, joints + K * v, weights + K * v).point(inP + 3 * v));
            if (out.flags)
                std::memset(out.flags + first, SkinFlagNone, last - first);
            break;
        }
        for (size_t v = first; v < last; ++v) {
            const Affine34 a = blend<K>(pal, joints + K * v, weights + K * v);
            out.write(v, out.p ? a.point(inP + 3 * v) : zero, out.n ? normalize3(load3(inN + 3 * v)) : zero,
                      tangents ? normalize3(tangentIn(v)) : zero, SkinFlagNone);
        }
        break;
    case Method::Cofactor:
        for (size_t v = runPairs<Method::Cofactor, K>(job, pal, tables, out, first, last); v < last; ++v) {
            const Affine34 a = blend<K>(pal, joints + K * v, weights + K * v);
            out.write(v, a.point(inP + 3 * v), normalize3(a.cofactorTimes(inN + 3 * v)),
                      tangents ? normalize3(a.dir(tangentIn(v))) : zero, SkinFlagNone);
        }
        break;
    case Method::InverseTranspose:
        for (size_t v = runPairs<Method::InverseTranspose, K>(job, pal, tables, out, first, last); v < last; ++v) {
            const Affine34 a = blend<K>(pal, joints + K * v, weights + K * v);
            const float* n0 = inN + 3 * v;
            // cof(A) n from the three cross products, det(A) = c0 · (c1 × c2) from the first: A^{-T} n = cof(A) n / det,
            // singular as singular3() in skinning.cpp — all in registers, one branch-free select.
            const __m128 k0 = cross3(a.c1, a.c2), k1 = cross3(a.c2, a.c0), k2 = cross3(a.c0, a.c1);
            const __m128 cn = _mm_fmadd_ps(k2, _mm_broadcast_ss(n0 + 2), _mm_fmadd_ps(k1, _mm_broadcast_ss(n0 + 1), _mm_mul_ps(k0, _mm_broadcast_ss(n0))));
            const __m128 det = _mm_dp_ps(a.c0, k0, 0x7F);
            const __m128 f2 = _mm_add_ps(_mm_add_ps(_mm_dp_ps(a.c0, a.c0, 0x7F), _mm_dp_ps(a.c1, a.c1, 0x7F)), _mm_dp_ps(a.c2, a.c2, 0x7F));
            const __m128 s = _mm_mul_ps(f2, _mm_set1_ps(1.0f / 3.0f));
            const __m128 absDet = _mm_andnot_ps(_mm_set1_ps(-0.0f), det);
            const __m128 ok = _mm_and_ps(_mm_cmp_ps(absDet, _mm_mul_ps(_mm_set1_ps(1e-6f), _mm_mul_ps(s, _mm_sqrt_ps(s))), _CMP_GT_OQ),
                                         _mm_cmp_ps(absDet, _mm_set1_ps(INFINITY), _CMP_LT_OQ));
            const __m128 flipped = _mm_xor_ps(cn, _mm_and_ps(det, _mm_set1_ps(-0.0f))); // -cn when det < 0
            const bool singular = (_mm_movemask_ps(ok) & 1) == 0;
            out.write(v, out.p ? a.point(inP + 3 * v) : zero, _mm_and_ps(normalize3(flipped), ok),
                      tangents ? normalize3(a.dir(tangentIn(v))) : zero, singular ? SkinFlagSingular : SkinFlagNone);
        }
        break;
    case Method::BlendInverseTranspose:
        for (size_t v = runPairs<Method::BlendInverseTranspose, K>(job, pal, tables, out, first, last); v < last; ++v) {
            const uint16_t* j = joints + K * v;
            const float* w = weights + K * v;
            const Affine34 a = blend<K>(pal, j, w);
            const Affine34 it = blend<K>(tables.inverseTranspose, j, w);
            bool singular = false;
            for (int i = 0; i < K; ++i)
                singular |= w[i] != 0.0f && (tables.jointFlags[j[i]] & MethodTables::Singular);
            const __m128 n = singular ? zero : normalize3(it.dir(inN + 3 * v));
            out.write(v, a.point(inP + 3 * v), n, tangents ? normalize3(a.dir(tangentIn(v))) : zero,
                      singular ? SkinFlagSingular : SkinFlagNone);
        }
        break;
    case Method::Jacobian: {
        const uint32_t* off = job.gradients.offsets.data();
        const uint16_t* gj = job.gradients.joints.data();
        const float* gg = reinterpret_cast<const float*>(job.gradients.gradients.data()); // may be empty
        for (size_t v = first; v < last; ++v) {
            const Affine34 a = blend<K>(pal, joints + K * v, weights + K * v);
            const float* p = inP + 3 * v;
            Affine34 jac = a;
            for (uint32_t g = off[v]; g < off[v + 1]; ++g) {
                // J += (M_j p) ∇w_jᵀ: column c gains (M_j p) ∇w_j[c].
                const float* m = pal[gj[g]].m;
                const __m128 mp = _mm_add_ps(
                    _mm_fmadd_ps(_mm_load_ps(m + 8), _mm_broadcast_ss(p + 2),
                                 _mm_fmadd_ps(_mm_load_ps(m + 4), _mm_broadcast_ss(p + 1), _mm_mul_ps(_mm_load_ps(m), _mm_broadcast_ss(p)))),
                    _mm_load_ps(m + 12));
                jac.c0 = _mm_fmadd_ps(mp, _mm_broadcast_ss(gg + 3 * g), jac.c0);
                jac.c1 = _mm_fmadd_ps(mp, _mm_broadcast_ss(gg + 3 * g + 1), jac.c1);
                jac.c2 = _mm_fmadd_ps(mp, _mm_broadcast_ss(gg + 3 * g + 2), jac.c2);
            }
            out.write(v, a.point(p), normalize3(jac.cofactorTimes(inN + 3 * v)), tangents ? normalize3(jac.dir(tangentIn(v))) : zero,
                      SkinFlagNone);
        }
        break;
    }
    case Method::DualQuaternion: {
        const float* dq = tables.dualQuaternions; // per joint: real (x y z w), dual (x y z w)
        for (size_t v = first; v < last; ++v) {
            const uint16_t* j = joints + K * v;
            const float* w = weights + K * v;
            bool fallback = false;
            for (int i = 0; i < K; ++i)
                fallback |= w[i] != 0.0f && (tables.jointFlags[j[i]] & (MethodTables::Singular | MethodTables::Mirrored));
            if (fallback) {
                // A mirrored or singular joint has no dual quaternion: the linear blend, flagged.
                const Affine34 a = blend<K>(pal, j, w);
                out.write(v, a.point(inP + 3 * v), normalize3(a.dir(inN + 3 * v)), tangents ? normalize3(a.dir(tangentIn(v))) : zero,
                          SkinFlagDqFallback);
                continue;
            }
            // The pivot is the largest weight: slot 0 of the sorted stream. Antipodal quaternions are flipped to its
            // hemisphere (the sign applied without a branch); a zero weight adds 0 whatever its joint.
            const __m128 pivot = _mm_load_ps(dq + 8 * j[0]);
            __m256 rd = _mm256_setzero_ps(); // real | dual
            const __m128 signBit = _mm_set_ss(-0.0f);
            for (int i = 0; i < K; ++i) {
                const __m256 q = _mm256_load_ps(dq + 8 * j[i]);
                const __m128 d = _mm_dp_ps(_mm256_castps256_ps128(q), pivot, 0xF1);
                const __m128 sw = _mm_xor_ps(_mm_load_ss(w + i), _mm_and_ps(_mm_cmp_ss(d, _mm_setzero_ps(), _CMP_LT_OQ), signBit));
                rd = _mm256_fmadd_ps(_mm256_broadcastss_ps(sw), q, rd);
            }
            const Affine34 s = blend<K>(tables.stretch, j, w);
            __m128 real = _mm256_castps256_ps128(rd), dual = _mm256_extractf128_ps(rd, 1);
            const float len = std::sqrt(_mm_cvtss_f32(_mm_dp_ps(real, real, 0xF1)));
            if (!(len > 1e-12f) || !std::isfinite(len)) {
                out.write(v, zero, zero, zero, SkinFlagSingular);
                if (out.t)
                    _mm_storeu_ps(out.t + 4 * v, zero);
                continue;
            }
            const __m128 inv = _mm_set1_ps(1.0f / len);
            real = _mm_mul_ps(real, inv);
            dual = _mm_mul_ps(dual, inv);
            // Vector parts (lane 3 = 0) and scalars.
            const __m128 keep3 = _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0));
            const __m128 u = _mm_and_ps(real, keep3), ud = _mm_and_ps(dual, keep3);
            const __m128 rw = _mm_shuffle_ps(real, real, 0xFF), dw = _mm_shuffle_ps(dual, dual, 0xFF);
            // translation = 2 vec(dual conj(real)) = 2 (rw ud - dw u + u × ud)
            const __m128 tr = _mm_mul_ps(_mm_set1_ps(2.0f), _mm_add_ps(_mm_fmsub_ps(rw, ud, _mm_mul_ps(dw, u)), cross3(u, ud)));
            auto rotate = [&](__m128 x) {
                const __m128 t = _mm_mul_ps(_mm_set1_ps(2.0f), cross3(u, x));
                return _mm_add_ps(_mm_fmadd_ps(rw, t, x), cross3(u, t));
            };
            const __m128 pos = _mm_add_ps(rotate(s.dir(inP + 3 * v)), tr);
            const __m128 nrm = normalize3(rotate(s.cofactorTimes(inN + 3 * v)));
            out.write(v, pos, nrm, tangents ? normalize3(rotate(s.dir(tangentIn(v)))) : zero, SkinFlagNone);
        }
        break;
    }
    case Method::Linear:
    case Method::Rebuilt:
        break; // linear has its own kernels; rebuilt is not a skin job
    }
}

} // namespace

void runMethodAvx2(const SkinJob& job, const PaletteMatrix* pal, const MethodTables& tables, size_t first, size_t last)
{
    if (job.influencesPerVertex == 8)
        run<8>(job, pal, tables, first, last);
    else
        run<4>(job, pal, tables, first, last);
}

} // namespace rig::detail
