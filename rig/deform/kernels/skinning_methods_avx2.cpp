// Every skinning method but linear (its own kernels) with AVX2 + FMA, one vertex at a time in 128/256-bit registers:
// positions-only, blend-inverse-transpose, inverse-transpose, cofactor, dual-quaternion and the jacobian. Compiled
// with -mavx2 -mfma -O3; called only when the CPU has both, on AVX-512 machines too (for dual-quaternion and the
// jacobian they are the fastest kernels there).
//
// Each follows the scalar reference in skinning.cpp step for step, with the same outputs and flags: the blended 3x4
// matrix from the compact palette (zero-weight slots multiply a finite matrix by 0 instead of being skipped, which
// adds +0), the cofactor as the cross products of the blended columns (cof(A) = [c1×c2 | c2×c0 | c0×c1]), and rsqrt
// plus one Newton step for the normalisations. The results equal the scalar path within float rounding (tests:
// tests/core/test_skinning.cpp, every kernel against the scalar one). Inputs are read without over-reading their arrays
// (3-float vectors as a 64-bit and a 32-bit load); outputs are written in order, the 4-float store of a 3-float vector
// spilling into the next vertex, which is written next, except for the range's last vertex (a masked store): nothing
// outside [first, last) is touched. No allocation, no call per vertex.
//
// skinning_methods_avx2_evex.cpp compiles this file once more with AVX-512VL allowed, defining
// RIG_AVX2_METHODS_ENTRY as runMethodAvx2Evex: the same 256-bit code over 32 vector registers instead of 16. Everything
// here but that entry has internal linkage or is always inlined (no weak symbol: nothing of one build can stand in
// for the other's at link time).
#include <immintrin.h>

#include <array>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "rig/deform/kernels/avx2_math.h"
#include "rig/deform/kernels/skinning_internal.h"
#include "rig/deform/weight_gradients.h"
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
    /// Vertices v, v + 1 from a pair of registers (x y z _ per 128-bit lane; tRaw: the input tangents, whose w is
    /// copied), each output one 8-float store: the two spare floats of a 3-float pair land on vertex v + 2, which must
    /// lie inside the range and be written after. No flags.
    RS_INLINE void storePair(size_t v, __m256 pos, __m256 nrm, __m256 tan, __m256 tRaw) const
    {
        if (p)
            storePair3Wide(p + 3 * v, pos);
        if (n)
            storePair3Wide(n + 3 * v, nrm);
        if (t)
            _mm256_storeu_ps(t + 4 * v, _mm256_blend_ps(tan, tRaw, 0x88));
    }
    /// Vertices v, v + 1 with their flags: storePair inside the range, the range's last pair written exactly.
    RS_INLINE void writePair(size_t v, __m256 pos, __m256 nrm, __m256 tan, __m256 tRaw, uint8_t fa, uint8_t fb) const
    {
        if (v + 3 > last) {
            write(v, _mm256_castps256_ps128(pos), _mm256_castps256_ps128(nrm), _mm256_castps256_ps128(tan), fa);
            write(v + 1, _mm256_extractf128_ps(pos, 1), _mm256_extractf128_ps(nrm, 1), _mm256_extractf128_ps(tan, 1), fb);
            return;
        }
        storePair(v, pos, nrm, tan, tRaw);
        if (flags) {
            flags[v] = fa;
            flags[v + 1] = fb;
        }
    }
};

/// blendPair of two palettes over the same slots (the weights broadcast once): a from pal, b from other.
template <int K>
RS_INLINE void blendPairs2(const PaletteMatrix* pal, const PaletteMatrix* other, const uint16_t* j, const float* w, Pair34& a,
                           Pair34& b)
{
    __m256 h[2][4]; // per vertex of the pair: pal (c0|c1, c2|t), other (c0|c1, c2|t)
    for (int q = 0; q < 2; ++q) {
        const uint16_t* jq = j + K * q;
        const float* wq = w + K * q;
        const __m256 w0 = _mm256_broadcast_ss(wq);
        h[q][0] = _mm256_mul_ps(w0, _mm256_load_ps(pal[jq[0]].m));
        h[q][1] = _mm256_mul_ps(w0, _mm256_load_ps(pal[jq[0]].m + 8));
        h[q][2] = _mm256_mul_ps(w0, _mm256_load_ps(other[jq[0]].m));
        h[q][3] = _mm256_mul_ps(w0, _mm256_load_ps(other[jq[0]].m + 8));
        for (int i = 1; i < K; ++i) {
            const __m256 wi = _mm256_broadcast_ss(wq + i);
            h[q][0] = _mm256_fmadd_ps(wi, _mm256_load_ps(pal[jq[i]].m), h[q][0]);
            h[q][1] = _mm256_fmadd_ps(wi, _mm256_load_ps(pal[jq[i]].m + 8), h[q][1]);
            h[q][2] = _mm256_fmadd_ps(wi, _mm256_load_ps(other[jq[i]].m), h[q][2]);
            h[q][3] = _mm256_fmadd_ps(wi, _mm256_load_ps(other[jq[i]].m + 8), h[q][3]);
        }
    }
    a = {_mm256_permute2f128_ps(h[0][0], h[1][0], 0x20), _mm256_permute2f128_ps(h[0][0], h[1][0], 0x31),
         _mm256_permute2f128_ps(h[0][1], h[1][1], 0x20), _mm256_permute2f128_ps(h[0][1], h[1][1], 0x31)};
    b = {_mm256_permute2f128_ps(h[0][2], h[1][2], 0x20), _mm256_permute2f128_ps(h[0][2], h[1][2], 0x31),
         _mm256_permute2f128_ps(h[0][3], h[1][3], 0x20), _mm256_permute2f128_ps(h[0][3], h[1][3], 0x31)};
}

/// Cofactor, inverse-transpose and blend-inverse-transpose two vertices at a time from `first`; returns where it
/// stopped (an odd last vertex is left to the one-vertex loop).
template <Method M, int K>
__attribute__((noinline)) size_t runPairs(const SkinJob& job, const PaletteMatrix* pal, const MethodTables& tables, const Writer& out, size_t first,
                size_t last)
{
    const uint16_t* joints = job.joints.data();
    const float* weights = job.weights.data();
    const float* inP = reinterpret_cast<const float*>(job.positions.data());
    const float* inN = reinterpret_cast<const float*>(job.normals.data());
    const __m256 zero = _mm256_setzero_ps();
    const __m256 keep3 = _mm256_castsi256_ps(_mm256_setr_epi32(-1, -1, -1, 0, -1, -1, -1, 0));
    const OutputsAhead ahead = outputsAhead(job.positions.size(), out.p, out.n, out.t);
    size_t v = first;
    for (; v + 2 <= last; v += 2) {
        prefetchInputs<K>(joints, weights, inP, inN, out.inT, first, v, last);
        prefetchOutputs(ahead, first, v, last);
        const uint16_t* j = joints + K * v;
        const float* w = weights + K * v;
        Pair34 a, it;
        if constexpr (M == Method::BlendInverseTranspose)
            blendPairs2<K>(pal, tables.inverseTranspose, j, w, a, it); // both blends in one pass over the slots
        else
            a = blendPair<K>(pal, j, w);
        const __m256 n0 = pair3(inN + 3 * v);
        __m256 pos = zero, tan = zero, nrm;
        if (out.p)
            pos = a.point(pair3(inP + 3 * v));
        __m256 tRaw = zero;
        if (out.t) {
            tRaw = _mm256_loadu_ps(out.inT + 4 * v);
            tan = a.dir(_mm256_and_ps(tRaw, keep3)); // normalised with the normal below
        }
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
        out.writePair(v, pos, nrm, tan, tRaw, fa, fb);
    }
    return v;
}

/// Blend-inverse-transpose two vertices at a time from `first` where no joint is singular (every flag is None: the
/// caller writes them), the outputs fixed at compile time; returns where it stopped, before the range's last pair
/// (which runPairs writes exactly). The same operations in the same order as runPairs, so the same bits; a loop of
/// its own because runPairs' run-time output tests and its singular check kept its pointers and the joint indices
/// in memory (stores through the outputs may alias the Writer, so every pointer was reloaded after each store).
template <int K, bool kPositions, bool kTangents>
__attribute__((noinline)) size_t blendInverseTransposePairs(const SkinJob& job, const PaletteMatrix* pal, const PaletteMatrix* it,
                                                            const Writer& out, size_t first, size_t last)
{
    const uint16_t* joints = job.joints.data();
    const float* weights = job.weights.data();
    const float* inP = reinterpret_cast<const float*>(job.positions.data());
    const float* inN = reinterpret_cast<const float*>(job.normals.data());
    const float* inT = out.inT;
    float* outP = out.p;
    float* outN = out.n;
    float* outT = out.t;
    const __m256 keep3 = _mm256_castsi256_ps(_mm256_setr_epi32(-1, -1, -1, 0, -1, -1, -1, 0));
    // v + 2 lies inside the range: the pair's 8-float loads and stores (pair3Wide, storePair3Wide) reach into it, and
    // it is written next.
    struct Frames {
        __m256 pos, nrm, tan, tRaw;
    };
    auto frames = [&](size_t v) RS_INLINE_LAMBDA {
        Pair34 a, b;
        blendPairs2<K>(pal, it, joints + K * v, weights + K * v, a, b);
        Frames f{_mm256_setzero_ps(), b.dir(pair3Wide(inN + 3 * v)), _mm256_setzero_ps(), _mm256_setzero_ps()};
        if constexpr (kTangents) {
            f.tRaw = _mm256_loadu_ps(inT + 4 * v);
            f.tan = a.dir(_mm256_and_ps(f.tRaw, keep3));
        }
        if constexpr (kPositions)
            f.pos = a.point(pair3Wide(inP + 3 * v));
        return f;
    };
    auto store = [&](size_t v, const Frames& f) RS_INLINE_LAMBDA {
        if constexpr (kPositions)
            storePair3Wide(outP + 3 * v, f.pos);
        storePair3Wide(outN + 3 * v, f.nrm);
        if constexpr (kTangents)
            _mm256_storeu_ps(outT + 4 * v, _mm256_blend_ps(f.tan, f.tRaw, 0x88));
    };
    auto pair = [&](size_t v) RS_INLINE_LAMBDA {
        Frames f = frames(v);
        normalizePairs(f.nrm, f.tan);
        store(v, f);
    };
    const OutputsAhead ahead = outputsAhead(job.positions.size(), kPositions ? outP : nullptr, outN, kTangents ? outT : nullptr);
    size_t v = first;
    for (; v + 5 <= last; v += 4) { // two pairs an iteration, normalised together (normalizePairs2)
        prefetchInputs<K>(joints, weights, inP, inN, inT, first, v, last);
        prefetchOutputs(ahead, first, v, last);
        Frames f0 = frames(v), f1 = frames(v + 2);
        normalizePairs2(f0.nrm, f0.tan, f1.nrm, f1.tan);
        store(v, f0);
        store(v + 2, f1);
    }
    if (v + 3 <= last) {
        pair(v);
        v += 2;
    }
    return v;
}

/// Eight vertices' 3-vectors, one register per component (lane 4L + j <-> vertex 2j + L: transpose4's order).
struct Soa8 {
    __m256 x, y, z;
};

RS_INLINE Soa8 operator*(__m256 s, const Soa8& a) { return {_mm256_mul_ps(s, a.x), _mm256_mul_ps(s, a.y), _mm256_mul_ps(s, a.z)}; }

RS_INLINE Soa8 operator+(const Soa8& a, const Soa8& b)
{
    return {_mm256_add_ps(a.x, b.x), _mm256_add_ps(a.y, b.y), _mm256_add_ps(a.z, b.z)};
}

RS_INLINE Soa8 crossSoa(const Soa8& a, const Soa8& b)
{
    return {_mm256_fmsub_ps(a.y, b.z, _mm256_mul_ps(a.z, b.y)), _mm256_fmsub_ps(a.z, b.x, _mm256_mul_ps(a.x, b.z)),
            _mm256_fmsub_ps(a.x, b.y, _mm256_mul_ps(a.y, b.x))};
}

/// v / |v| per lane (rsqrt + one Newton step, as normalize8), zero where |v|² < kZeroLength2 or not finite.
RS_INLINE Soa8 normalizeSoa(const Soa8& v)
{
    const __m256 len2 = _mm256_fmadd_ps(v.z, v.z, _mm256_fmadd_ps(v.y, v.y, _mm256_mul_ps(v.x, v.x)));
    __m256 r, ok;
    reciprocalLengths(len2, r, ok);
    return {_mm256_and_ps(_mm256_mul_ps(v.x, r), ok), _mm256_and_ps(_mm256_mul_ps(v.y, r), ok),
            _mm256_and_ps(_mm256_mul_ps(v.z, r), ok)};
}

/// normalizeSoa of v with its sign flipped where `sign` (a float's sign bit per lane) is set, and zero where `keep` is
/// clear: the flip applied to the reciprocal length and `keep` to the mask (one operation each, not three), the same
/// bits as normalizeSoa({v.x ^ sign, v.y ^ sign, v.z ^ sign}) masked with keep (the squares do not see the sign; a
/// product's sign is the xor of its factors').
RS_INLINE Soa8 normalizeSoaSigned(const Soa8& v, __m256 sign, __m256 keep)
{
    const __m256 len2 = _mm256_fmadd_ps(v.z, v.z, _mm256_fmadd_ps(v.y, v.y, _mm256_mul_ps(v.x, v.x)));
    __m256 r, ok;
    reciprocalLengths(len2, r, ok);
    ok = _mm256_and_ps(ok, keep);
    const __m256 rs = _mm256_xor_ps(r, sign);
    return {_mm256_and_ps(_mm256_mul_ps(v.x, rs), ok), _mm256_and_ps(_mm256_mul_ps(v.y, rs), ok),
            _mm256_and_ps(_mm256_mul_ps(v.z, rs), ok)};
}

/// Eight 3-float vectors from base + 3 v as one register per component: each pair (x y z x' y' z') with one
/// 8-float load and a permute to (x y z x' | x' y' z' ·), except where that load would pass the range's end (the
/// last block of a range): pair3, which reads exactly.
RS_INLINE Soa8 load3x8(const float* base, size_t v, size_t last)
{
    const float* f = base + 3 * v;
    __m256 a[4];
    if (v + 9 <= last) {
        for (int p = 0; p < 4; ++p)
            a[p] = pair3Wide(f + 6 * p);
    } else {
        for (int p = 0; p < 4; ++p)
            a[p] = pair3(f + 6 * p);
    }
    Soa8 x;
    __m256 unused;
    transpose4(a[0], a[1], a[2], a[3], x.x, x.y, x.z, unused);
    return x;
}

/// The eight vertices' tangents from v: their raw rows (for the w copied to the output) and their x y z per lane.
RS_INLINE Soa8 loadTangents8(const float* inT, size_t v, __m256 (&raw)[4])
{
    for (int p = 0; p < 4; ++p)
        raw[p] = _mm256_loadu_ps(inT + 4 * v + 8 * p);
    Soa8 x;
    __m256 unused;
    transpose4(raw[0], raw[1], raw[2], raw[3], x.x, x.y, x.z, unused);
    return x;
}

/// Column k of four vertex pairs' blended matrices, one register per component.
RS_INLINE Soa8 columnSoa(__m256 a0, __m256 a1, __m256 a2, __m256 a3)
{
    Soa8 c;
    __m256 unused;
    transpose4(a0, a1, a2, a3, c.x, c.y, c.z, unused);
    return c;
}

/// x0 v.x + x1 v.y + x2 v.z per lane (Pair34::dir's order).
RS_INLINE Soa8 combine(const Soa8& x0, const Soa8& x1, const Soa8& x2, const Soa8& v)
{
    return {_mm256_fmadd_ps(x2.x, v.z, _mm256_fmadd_ps(x1.x, v.y, _mm256_mul_ps(x0.x, v.x))),
            _mm256_fmadd_ps(x2.y, v.z, _mm256_fmadd_ps(x1.y, v.y, _mm256_mul_ps(x0.y, v.x))),
            _mm256_fmadd_ps(x2.z, v.z, _mm256_fmadd_ps(x1.z, v.y, _mm256_mul_ps(x0.z, v.x)))};
}

/// Writes eight vertices from v (positions and tangents where the writer has them; tRaw: the input tangent rows,
/// whose w is copied), and their flags (flags[q]: vertex v + q).
RS_INLINE void writeBlock8(const Writer& out, size_t v, const Soa8& pos, const Soa8& nrm, const Soa8& tan,
                           const __m256 (&tRaw)[4], const uint8_t (&flags)[8])
{
    const __m256 zero = _mm256_setzero_ps();
    __m256 op[4] = {zero, zero, zero, zero}, on[4], ot[4] = {zero, zero, zero, zero};
    transpose4(nrm.x, nrm.y, nrm.z, zero, on[0], on[1], on[2], on[3]);
    if (out.p)
        transpose4(pos.x, pos.y, pos.z, zero, op[0], op[1], op[2], op[3]);
    if (out.t)
        transpose4(tan.x, tan.y, tan.z, zero, ot[0], ot[1], ot[2], ot[3]);
    if (v + 9 <= out.last) { // the whole block inside the range: one bounds test for the four pairs
        for (int p = 0; p < 4; ++p)
            out.storePair(v + 2 * size_t(p), op[p], on[p], ot[p], tRaw[p]);
        if (out.flags)
            std::memcpy(out.flags + v, flags, 8);
        return;
    }
    for (int p = 0; p < 4; ++p)
        out.writePair(v + 2 * size_t(p), op[p], on[p], ot[p], tRaw[p], flags[2 * p], flags[2 * p + 1]);
}

/// Lane l of transpose4's order holds vertex 2 (l mod 4) + l / 4 of the block: vertex q's lane.
inline constexpr int kLaneOfVertex[8] = {0, 4, 1, 5, 2, 6, 3, 7};

/// For each 8-lane mask of regular lanes (bit l: lane l, in transpose4's order), a block's eight flag bytes in vertex
/// order (byte q: vertex q): SkinFlagSingular where the vertex's lane is clear, SkinFlagNone where it is set.
inline constexpr auto kSingularFlagBytes = [] {
    std::array<uint64_t, 256> t{};
    for (int mask = 0; mask < 256; ++mask)
        for (int q = 0; q < 8; ++q)
            t[size_t(mask)] |= uint64_t((mask >> kLaneOfVertex[q]) & 1 ? SkinFlagNone : SkinFlagSingular) << (8 * q);
    return t;
}();

/// Eight vertices' outputs, one register per component (positions and tangents where the kernel computed them).
struct Block8 {
    Soa8 pos, n, tan;
    __m256 tRaw[4]; // the input tangents' rows (their w is copied)
};

/// Stores a Block8 of the vertices from v with the outputs fixed at compile time, each output 8-float stores: v + 8
/// must lie inside the range and be written after (the last pair's spare floats land on it). No flags.
template <bool kPositions, bool kTangents>
RS_INLINE void storeBlock8(float* outP, float* outN, float* outT, size_t v, const Block8& r)
{
    const __m256 zero = _mm256_setzero_ps();
    __m256 on[4], op[4], ot[4];
    transpose4(r.n.x, r.n.y, r.n.z, zero, on[0], on[1], on[2], on[3]);
    if constexpr (kPositions)
        transpose4(r.pos.x, r.pos.y, r.pos.z, zero, op[0], op[1], op[2], op[3]);
    if constexpr (kTangents)
        transpose4(r.tan.x, r.tan.y, r.tan.z, zero, ot[0], ot[1], ot[2], ot[3]);
    for (int p = 0; p < 4; ++p) { // pair by pair, as writeBlock8
        if constexpr (kPositions)
            storePair3Wide(outP + 3 * (v + 2 * p), op[p]);
        storePair3Wide(outN + 3 * (v + 2 * p), on[p]);
        if constexpr (kTangents)
            _mm256_storeu_ps(outT + 4 * (v + 2 * p), _mm256_blend_ps(ot[p], r.tRaw[p], 0x88));
    }
}

/// Cofactor or inverse-transpose eight vertices at a time from `first`: the blends of four blocks first (their loads
/// by joint index, independent of each other), then each block with one vertex per lane (the cross products, for
/// inverse-transpose the determinant and its singularity test, the normalisations without shuffles); returns where
/// it stopped (the rest is left to runPairs and the one-vertex loop). Blending a run of blocks ahead lets the core
/// overlap those loads with a block's long dependent chain (+5–10% on Zen 4 against blending each block just before
/// its math). Blend-inverse-transpose stays with the pair kernel: its second blend would need a second transpose.
template <Method M, int K>
__attribute__((noinline)) size_t cofactorBlocks8(const SkinJob& job, const PaletteMatrix* pal, const Writer& out, size_t first, size_t last)
{
    const uint16_t* joints = job.joints.data();
    const float* weights = job.weights.data();
    const float* inP = reinterpret_cast<const float*>(job.positions.data());
    const float* inN = reinterpret_cast<const float*>(job.normals.data());
    const __m256 zero = _mm256_setzero_ps();
    constexpr int kRun = 4; // blocks blended before their math
    Pair34 blends[4 * kRun];
    const OutputsAhead ahead = outputsAhead(job.positions.size(), out.p, out.n, out.t);
    size_t v = first;
    size_t runStart = first, runEnd = first;
    for (; v + 8 <= last; v += 8) {
        if (v == runEnd) {
            runStart = v;
            const size_t blocks = std::min<size_t>(kRun, (last - v) / 8);
            for (size_t q = 0; q < 4 * blocks; ++q)
                blends[q] = blendPair<K>(pal, joints + K * (v + 2 * q), weights + K * (v + 2 * q));
            runEnd = v + 8 * blocks;
        }
        prefetchInputs<K>(joints, weights, inP, inN, out.inT, first, v, last);
        prefetchOutputs(ahead, first, v, last);
        const Pair34* a = blends + (v - runStart) / 2;
        const Soa8 c0 = columnSoa(a[0].c0, a[1].c0, a[2].c0, a[3].c0);
        const Soa8 c1 = columnSoa(a[0].c1, a[1].c1, a[2].c1, a[3].c1);
        const Soa8 c2 = columnSoa(a[0].c2, a[1].c2, a[2].c2, a[3].c2);
        const Soa8 k0 = crossSoa(c1, c2);
        const Soa8 cn = combine(k0, crossSoa(c2, c0), crossSoa(c0, c1), load3x8(inN, v, last));
        uint8_t flags[8] = {SkinFlagNone, SkinFlagNone, SkinFlagNone, SkinFlagNone,
                            SkinFlagNone, SkinFlagNone, SkinFlagNone, SkinFlagNone};
        Soa8 nrm;
        if constexpr (M == Method::Cofactor) {
            nrm = normalizeSoa(cn);
        } else {
            static_assert(M == Method::InverseTranspose);
            // A^{-T} n = cof(A) n / det: the cofactor's direction, flipped where det < 0; singular as singular3().
            auto dot = [](const Soa8& x, const Soa8& y) {
                return _mm256_fmadd_ps(x.z, y.z, _mm256_fmadd_ps(x.y, y.y, _mm256_mul_ps(x.x, y.x)));
            };
            const __m256 det = dot(c0, k0);
            const __m256 f2 = _mm256_add_ps(_mm256_add_ps(dot(c0, c0), dot(c1, c1)), dot(c2, c2));
            const __m256 sc = _mm256_mul_ps(f2, _mm256_set1_ps(1.0f / 3.0f));
            const __m256 absDet = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), det);
            const __m256 keep =
                _mm256_and_ps(_mm256_cmp_ps(absDet, _mm256_mul_ps(_mm256_set1_ps(1e-6f), _mm256_mul_ps(sc, _mm256_sqrt_ps(sc))), _CMP_GT_OQ),
                              _mm256_cmp_ps(absDet, _mm256_set1_ps(INFINITY), _CMP_LT_OQ));
            // -cof(A) n where det < 0, zero where singular; flagged without a branch (the branch to a rare path
            // that zeroed the normals and wrote the flags cost ~1.5%, though no benchmark vertex took it).
            nrm = normalizeSoaSigned(cn, _mm256_and_ps(det, _mm256_set1_ps(-0.0f)), keep);
            const uint64_t flagBytes = kSingularFlagBytes[_mm256_movemask_ps(keep)];
            std::memcpy(flags, &flagBytes, sizeof flags);
        }
        Soa8 pos{zero, zero, zero}, tan{zero, zero, zero};
        __m256 tRaw[4] = {zero, zero, zero, zero};
        if (out.t)
            tan = normalizeSoa(combine(c0, c1, c2, loadTangents8(out.inT, v, tRaw)));
        if (out.p)
            pos = combine(c0, c1, c2, load3x8(inP, v, last)) + columnSoa(a[0].t, a[1].t, a[2].t, a[3].t);
        writeBlock8(out, v, pos, nrm, tan, tRaw, flags);
    }
    return v;
}

/// The dual-quaternion blend of a vertex pair (j, w: the pair's first vertex): per 128-bit lane the vertex's
/// Σ ±w_i q_i, real and dual parts, each slot flipped to the pivot's hemisphere (the pivot is the largest weight, slot
/// 0; a zero weight adds 0 whatever its joint), and Σ w_i in every float of the lane.
template <int K>
RS_INLINE void dqBlendPair(const float* dq, const uint16_t* j, const float* w, __m256& real, __m256& dual, __m256& weightSum)
{
    auto slot = [&](int i, __m256& r, __m256& d) {
        const __m256 a = _mm256_load_ps(dq + 8 * size_t(j[i])), b = _mm256_load_ps(dq + 8 * size_t(j[K + i]));
        r = _mm256_permute2f128_ps(a, b, 0x20);
        d = _mm256_permute2f128_ps(a, b, 0x31);
    };
    // (the pair's weights i..i+3 | the second vertex's), then slot i broadcast within each lane.
    const __m256 w03 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(w)), _mm_loadu_ps(w + K), 1);
    __m256 w47 = w03;
    if constexpr (K == 8)
        w47 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(w + 4)), _mm_loadu_ps(w + K + 4), 1);
    auto weight = [&](int i) { return laneBroadcast(i < 4 ? w03 : w47, i); };
    __m256 pivot, pd;
    slot(0, pivot, pd);
    const __m256 w0 = weight(0);
    __m256 sum = w0;
    real = _mm256_mul_ps(w0, pivot);
    dual = _mm256_mul_ps(w0, pd);
    const __m256 signBit = _mm256_set1_ps(-0.0f);
    // Slots 1.. in groups of up to four: their dots with the pivot summed by three horizontal adds for the group (one
    // float of each lane a slot) rather than two a slot — the same two-level sums, (x·x' + y·y') + (z·z' + w·w'), so
    // the same bits; x1.06-1.07 on Zen 4 at 100k and 1M (one process, against two horizontal adds a slot).
    for (int g = 1; g < K; g += 4) {
        const int n = K - g < 4 ? K - g : 4;
        __m256 r[4], d[4], dots[4];
        for (int i = 0; i < n; ++i) {
            slot(g + i, r[i], d[i]);
            dots[i] = _mm256_mul_ps(r[i], pivot);
        }
        for (int i = n; i < 4; ++i)
            dots[i] = dots[n - 1];
        const __m256 dot = _mm256_hadd_ps(_mm256_hadd_ps(dots[0], dots[1]), _mm256_hadd_ps(dots[2], dots[3]));
        const __m256 flip = _mm256_and_ps(_mm256_cmp_ps(dot, _mm256_setzero_ps(), _CMP_LT_OQ), signBit);
        for (int i = 0; i < n; ++i) {
            const __m256 wi = weight(g + i);
            sum = _mm256_add_ps(sum, wi);
            const __m256 sw = _mm256_xor_ps(wi, laneBroadcast(flip, i));
            real = _mm256_fmadd_ps(sw, r[i], real);
            dual = _mm256_fmadd_ps(sw, d[i], dual);
        }
    }
    weightSum = sum;
}

/// Blocks of eight whose blends dualQuaternionBlocks runs before their math (4.6 KB of DqBlend8 on the stack): the
/// blends' loads by joint index then run ahead of the blocks' long chains (a square root, a division, two rotations,
/// two normalisations), which the out-of-order core overlaps with the next run's loads, as the reference rebuild's
/// inBlockRuns. On Zen 4, against the blend just before its math: x1.06 at 16k, x1.07 at 100k, x1.09 at 1M (4 blocks
/// ahead); 8 x1.01-1.015 over 4, 16 x1.01-1.02 over 8, 32 x0.98-1.00 over 16; 2 x0.99 under 4.
constexpr int kDqBlendsAhead = 16;

/// Eight vertices' blended dual quaternions, one vertex per lane: real x y z w, dual x y z w, Σ w.
struct DqBlend8 {
    __m256 rx, ry, rz, rw, dx, dy, dz, dw, sw;
};

/// The blends of the eight vertices from v (dqBlendPair per pair, transposed).
template <int K>
RS_INLINE void dqBlend8(const MethodTables& tables, const uint16_t* joints, const float* weights, size_t v, DqBlend8& out)
{
    const uint16_t* j = joints + K * v;
    const float* w = weights + K * v;
    __m256 r[4], d[4], s[4];
    for (int p = 0; p < 4; ++p)
        dqBlendPair<K>(tables.dualQuaternions, j + 2 * K * p, w + 2 * K * p, r[p], d[p], s[p]);
    __m256 unused0, unused1, unused2;
    transpose4(r[0], r[1], r[2], r[3], out.rx, out.ry, out.rz, out.rw);
    transpose4(d[0], d[1], d[2], d[3], out.dx, out.dy, out.dz, out.dw);
    transpose4(s[0], s[1], s[2], s[3], out.sw, unused0, unused1, unused2);
}

/// Dual quaternions for the eight vertices from v from their blends b (dqBlend8): everything after the blends with one
/// vertex per lane (as the AVX-512 kernel's dqBlockSoa), into out (positions and tangents as asked). False — out not
/// set — when a vertex's blend vanishes (its per-vertex path flags it); the caller has ruled out singular and mirrored
/// joints.
template <int K, bool kPositions, bool kTangents>
RS_INLINE bool dqBlock8(const float* inP, const float* inN, const float* inT, const MethodTables& tables,
                        const uint16_t* joints, const float* weights, size_t v, size_t last, const DqBlend8& b, Block8& out)
{
    const uint16_t* j = joints + K * v;
    const float* w = weights + K * v;
    const __m256 rx = b.rx, ry = b.ry, rz = b.rz, rw = b.rw, dx = b.dx, dy = b.dy, dz = b.dz, dw = b.dw, sw = b.sw;
    __m256 unused0;
    const __m256 len = _mm256_sqrt_ps(_mm256_add_ps(_mm256_fmadd_ps(ry, ry, _mm256_mul_ps(rx, rx)),
                                                    _mm256_fmadd_ps(rw, rw, _mm256_mul_ps(rz, rz))));
    const __m256 good = _mm256_and_ps(_mm256_cmp_ps(len, _mm256_set1_ps(1e-12f), _CMP_GT_OQ),
                                      _mm256_cmp_ps(len, _mm256_set1_ps(INFINITY), _CMP_LT_OQ));
    if (_mm256_movemask_ps(good) != 0xFF)
        return false;
    const __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f), len);
    const Soa8 u = inv * Soa8{rx, ry, rz}, ud = inv * Soa8{dx, dy, dz};
    const __m256 qw = _mm256_mul_ps(rw, inv), dqw = _mm256_mul_ps(dw, inv);
    const __m256 two = _mm256_set1_ps(2.0f);
    auto rotate = [&](const Soa8& x) {
        const Soa8 t = two * crossSoa(u, x);
        return Soa8{_mm256_fmadd_ps(qw, t.x, x.x), _mm256_fmadd_ps(qw, t.y, x.y), _mm256_fmadd_ps(qw, t.z, x.z)} + crossSoa(u, t);
    };
    auto load = [&](const float* base) { return load3x8(base, v, last); };
    // The stretch S: blended per pair and transposed (column c of every vertex), or (Σ w) I on rigid joints, where
    // cof(S) n = (Σ w)² n, S p = (Σ w) p, S t = (Σ w) t.
    const bool rigid = tables.unitStretch;
    Soa8 sc[3] = {}; // set below unless rigid (zeros keep the compiler from warning)
    if (!rigid) {
        Pair34 sp[4];
        for (int p = 0; p < 4; ++p)
            sp[p] = blendPair<K>(tables.stretch, j + 2 * K * p, w + 2 * K * p);
        transpose4(sp[0].c0, sp[1].c0, sp[2].c0, sp[3].c0, sc[0].x, sc[0].y, sc[0].z, unused0);
        transpose4(sp[0].c1, sp[1].c1, sp[2].c1, sp[3].c1, sc[1].x, sc[1].y, sc[1].z, unused0);
        transpose4(sp[0].c2, sp[1].c2, sp[2].c2, sp[3].c2, sc[2].x, sc[2].y, sc[2].z, unused0);
    }
    auto times = [](const Soa8 (&m)[3], const Soa8& x) {
        return Soa8{_mm256_fmadd_ps(m[2].x, x.z, _mm256_fmadd_ps(m[1].x, x.y, _mm256_mul_ps(m[0].x, x.x))),
                    _mm256_fmadd_ps(m[2].y, x.z, _mm256_fmadd_ps(m[1].y, x.y, _mm256_mul_ps(m[0].y, x.x))),
                    _mm256_fmadd_ps(m[2].z, x.z, _mm256_fmadd_ps(m[1].z, x.y, _mm256_mul_ps(m[0].z, x.x)))};
    };
    auto stretch = [&](const Soa8& x) { return rigid ? sw * x : times(sc, x); };
    auto cofactorStretch = [&](const Soa8& x) {
        if (rigid)
            return _mm256_mul_ps(sw, sw) * x;
        const Soa8 cof[3] = {crossSoa(sc[1], sc[2]), crossSoa(sc[2], sc[0]), crossSoa(sc[0], sc[1])};
        return times(cof, x);
    };
    out = Block8{};
    out.n = normalizeSoa(rotate(cofactorStretch(load(inN))));
    if constexpr (kPositions) {
        // translation = 2 vec(dual conj(real)) = 2 (rw ud - dw u + u × ud)
        const Soa8 tr = two * (Soa8{_mm256_fmsub_ps(qw, ud.x, _mm256_mul_ps(dqw, u.x)), _mm256_fmsub_ps(qw, ud.y, _mm256_mul_ps(dqw, u.y)),
                                    _mm256_fmsub_ps(qw, ud.z, _mm256_mul_ps(dqw, u.z))} +
                               crossSoa(u, ud));
        out.pos = rotate(stretch(load(inP))) + tr;
    }
    if constexpr (kTangents)
        out.tan = normalizeSoa(rotate(stretch(loadTangents8(inT, v, out.tRaw))));
    return true;
}

/// Whether any of the vertices [v, v + n) has a non-zero weight on a singular or mirrored joint (no dual quaternion:
/// the per-vertex path's linear fallback, flagged).
template <int K>
RS_INLINE bool dqFallback(const MethodTables& tables, const uint16_t* joints, const float* weights, size_t v, size_t n)
{
    bool fallback = false;
    for (size_t i = K * v; i < K * (v + n); ++i)
        fallback |= weights[i] != 0.0f && (tables.jointFlags[joints[i]] & (MethodTables::Singular | MethodTables::Mirrored));
    return fallback;
}

/// Dual-quaternion blocks of eight from v (first: where the caller's loop began, for the prefetch phase) with the
/// outputs fixed at compile time (normals always: every method but positions-only writes them): up to the first block
/// that needs the per-vertex path (a singular or mirrored joint, a vanishing blend) or the range's last block (v + 8
/// must stay inside the range); returns where it stopped. No flags (the caller writes them: all None). A loop of its
/// own as jacobianPlanned; the blends of kDqBlendsAhead blocks at a time before their math (the same operations: the
/// same bits).
template <int K, bool kPositions, bool kTangents>
__attribute__((noinline)) size_t dualQuaternionBlocks(const SkinJob& job, const MethodTables& tables, const float* inT, float* outP,
                                                      float* outN, float* outT, size_t first, size_t v, size_t last)
{
    const uint16_t* joints = job.joints.data();
    const float* weights = job.weights.data();
    const float* inP = reinterpret_cast<const float*>(job.positions.data());
    const float* inN = reinterpret_cast<const float*>(job.normals.data());
    const bool flaggedJoints = tables.anySingular || tables.anyMirrored;
    const OutputsAhead ahead = outputsAhead(job.positions.size(), kPositions ? outP : nullptr, outN, kTangents ? outT : nullptr);
    DqBlend8 blends[kDqBlendsAhead];
    while (v + 9 <= last) {
        // The blends of up to kDqBlendsAhead blocks, then their math block by block.
        int n = 0;
        bool flagged = false;
        for (; n < kDqBlendsAhead && v + 8 * size_t(n) + 9 <= last; ++n) {
            const size_t u = v + 8 * size_t(n);
            prefetchInputs<K>(joints, weights, inP, inN, inT, first, u, last);
            if (flaggedJoints && dqFallback<K>(tables, joints, weights, u, 8)) {
                flagged = true;
                break;
            }
            dqBlend8<K>(tables, joints, weights, u, blends[n]);
        }
        for (int b = 0; b < n; ++b, v += 8) {
            prefetchOutputs(ahead, first, v, last);
            Block8 r;
            if (!dqBlock8<K, kPositions, kTangents>(inP, inN, inT, tables, joints, weights, v, last, blends[b], r))
                return v;
            storeBlock8<kPositions, kTangents>(outP, outN, outT, v, r);
        }
        if (flagged)
            break;
    }
    return v;
}

/// For the jacobian's block plan: per 8-bit vertex mask of half a block, lane l's place among the mask's vertices
/// (vertex kVertexOfLane[l]; the compact gradients hold the mask's vertices in order) and whether it is one of them.
struct HalfMaskTables {
    int32_t place[256][8];
    int32_t member[256][8];
};

constexpr HalfMaskTables makeHalfMaskTables()
{
    constexpr int kVertexOfLane[8] = {0, 2, 4, 6, 1, 3, 5, 7}; // the inverse of kLaneOfVertex
    HalfMaskTables t{};
    for (int m = 0; m < 256; ++m)
        for (int l = 0; l < 8; ++l) {
            const int q = kVertexOfLane[l];
            int rank = 0;
            for (int i = 0; i < q; ++i)
                rank += m >> i & 1;
            t.place[m][l] = (m >> q & 1) ? rank : 0;
            t.member[m][l] = (m >> q & 1) ? -1 : 0;
        }
    return t;
}

alignas(32) inline constexpr HalfMaskTables kHalfMasks = makeHalfMaskTables();

/// The slots of half `half` of planned block b (WeightGradients' blockHalves): [s0, s1), every one with a vertex in
/// the half, their gradients from d.
struct HalfSlots {
    uint32_t s0, s1;
    const float* d;
};

RS_INLINE HalfSlots halfSlots(const uint32_t* blockSlots, const uint32_t* blockHalves, const uint32_t* blockData,
                              const float* slotGradients, size_t b, int half)
{
    const uint32_t first = blockSlots[b], runs = blockHalves[b];
    const float* d = slotGradients + blockData[b];
    if (half == 0)
        return {first, first + (runs >> 8 & 0xFFu), d};
    return {first + (runs & 0xFFu), blockSlots[b + 1] & ~WeightGradients::kUnplanned, d + (runs >> 16)};
}

RS_INLINE HalfSlots halfSlots(const WeightGradientsView& g, size_t b, int half)
{
    return halfSlots(g.blockSlots.data(), g.blockHalves.data(), g.blockData.data(), g.slotGradients.data(), b, half);
}

/// The jacobian of half a planned block (vertices v .. v + 7, half kHalf of its block of 16: a template argument, so
/// that each slot's vertex mask and gradient offsets take no shift by a variable and no branch — x1.03–1.06 at
/// 100k, x1.04–1.08 at 1M on Zen 4 in one process, the same bits; the half's slots [s0, s1) and their gradients from
/// d: halfSlots), one vertex per lane as the AVX-512 kernel's jacobianBlockSoa:
/// A blended per pair and transposed; per slot, q = M_j p for the eight (zero in the lanes of the vertices that do
/// not list the joint) and J's columns gain q ∇w_j[c], the gradients placed in their lanes by one permute each.
///
/// Folded (kFold: WeightGradients::blockFolded, the block's slots hold every weighted joint of its vertices), A is not
/// blended per pair: each slot also adds w_j R_j to J's columns and w_j q to the position, the weights from
/// slotWeights (one float per gradient triple, so a slot's weights start at its gradients' offset / 3) placed like the
/// gradients — no blend, no transposes, no joint or weight loads. A's terms are then summed in slot order, interleaved
/// with the gradient terms, where the scalar path sums A per influence first: the same terms, rounded in another order,
/// as the AVX-512 kernel's folded blocks.
template <int K, bool kPositions, bool kTangents, bool kFold, int kHalf>
RS_INLINE Block8 jacobianBlock8(const SkinJob& job, const PaletteMatrix* pal, const float* inT, size_t v, size_t last,
                                HalfSlots h)
{
    const uint32_t s0 = h.s0, s1 = h.s1;
    const float* d = h.d;
    const uint16_t* j = job.joints.data() + K * v;
    const float* w = job.weights.data() + K * v;
    const float* inP = reinterpret_cast<const float*>(job.positions.data());
    const float* inN = reinterpret_cast<const float*>(job.normals.data());
    const uint32_t* slots = job.gradients.slotEntries.data();
    Soa8 col[3];
    const Soa8 p = load3x8(inP, v, last);
    Block8 r{};
    [[maybe_unused]] const float* dw = nullptr; // the slot's weights (folded)
    if constexpr (kFold) {
        const __m256 zero = _mm256_setzero_ps();
        for (Soa8& x : col)
            x = {zero, zero, zero};
        r.pos = {zero, zero, zero};
        dw = job.gradients.slotWeights.data() + (d - job.gradients.slotGradients.data()) / 3;
    } else {
        Pair34 a[4];
        for (int p = 0; p < 4; ++p)
            a[p] = blendPair<K>(pal, j + 2 * K * p, w + 2 * K * p);
        col[0] = columnSoa(a[0].c0, a[1].c0, a[2].c0, a[3].c0);
        col[1] = columnSoa(a[0].c1, a[1].c1, a[2].c1, a[3].c1);
        col[2] = columnSoa(a[0].c2, a[1].c2, a[2].c2, a[3].c2);
        if constexpr (kPositions)
            r.pos = combine(col[0], col[1], col[2], p) + columnSoa(a[0].t, a[1].t, a[2].t, a[3].t);
    }
    for (uint32_t s = s0; s < s1; ++s) {
        const uint32_t slot = slots[s];
        const uint32_t vertices = slot >> 16;
        const uint32_t mine = (vertices >> (8 * kHalf)) & 0xFFu;
        assert(mine != 0); // the plan's runs: no slot of the range lacks a vertex in the half
        const int count = __builtin_popcount(vertices);
        const float* g = d + (kHalf ? __builtin_popcount(vertices & 0xFFu) : 0);
        d += 3 * count;
        const float* m = pal[slot & 0xFFFFu].m;
        const __m256 member = _mm256_load_ps(reinterpret_cast<const float*>(kHalfMasks.member[mine]));
        auto rowAll = [&](int r) __attribute__((always_inline)) { // row r of q = M_j p in all eight lanes
            return _mm256_fmadd_ps(_mm256_broadcast_ss(m + 8 + r), p.z,
                                   _mm256_fmadd_ps(_mm256_broadcast_ss(m + 4 + r), p.y,
                                                   _mm256_fmadd_ps(_mm256_broadcast_ss(m + r), p.x, _mm256_broadcast_ss(m + 12 + r))));
        };
        auto row = [&](int r) __attribute__((always_inline)) { return _mm256_and_ps(member, rowAll(r)); };
        const __m256i place = _mm256_load_si256(reinterpret_cast<const __m256i*>(kHalfMasks.place[mine]));
        if constexpr (kFold) {
            const __m256 wj = _mm256_and_ps(member, _mm256_permutevar8x32_ps(
                                                        _mm256_loadu_ps(dw + (kHalf ? __builtin_popcount(vertices & 0xFFu) : 0)), place));
            dw += count;
            // The gradients placed and zeroed outside the slot's vertices here, once, rather than q masked row by row
            // below: the mask is then dead during the twelve sums (x1.03 at 100k and 1M on Zen 4 in one process; the
            // same terms, q 0 or ∇w_j 0 outside the slot's vertices: the same bits).
            const __m256 gs[3] = {_mm256_and_ps(member, _mm256_permutevar8x32_ps(_mm256_loadu_ps(g), place)),
                                  _mm256_and_ps(member, _mm256_permutevar8x32_ps(_mm256_loadu_ps(g + count), place)),
                                  _mm256_and_ps(member, _mm256_permutevar8x32_ps(_mm256_loadu_ps(g + 2 * count), place))};
            // Row k of q and of J's columns at a time: few registers beside the twelve sums, only q's row, the weight,
            // the gradients and one operand (with all of q live GCC kept more sums on the stack: x1.05-1.07 at 100k on
            // Ice Lake in one process; GCC 12 still keeps about eight of them there, loaded and stored each slot). Each
            // sum gets w_j R_j, then q ∇w_j, in the same order as before: the same bits.
            for (int k = 0; k < 3; ++k) {
                const __m256 qk = rowAll(k);
                __m256* const ck[3] = {k == 0 ? &col[0].x : k == 1 ? &col[0].y : &col[0].z,
                                       k == 0 ? &col[1].x : k == 1 ? &col[1].y : &col[1].z,
                                       k == 0 ? &col[2].x : k == 1 ? &col[2].y : &col[2].z};
                if constexpr (kPositions) {
                    __m256& pk = k == 0 ? r.pos.x : k == 1 ? r.pos.y : r.pos.z;
                    pk = _mm256_fmadd_ps(qk, wj, pk);
                }
                for (int i = 0; i < 3; ++i)
                    *ck[i] = _mm256_fmadd_ps(qk, gs[i], _mm256_fmadd_ps(_mm256_broadcast_ss(m + 4 * i + k), wj, *ck[i]));
            }
            continue;
        }
        const Soa8 q{row(0), row(1), row(2)}; // zero outside the slot's vertices: their gradients there are others'
        for (int i = 0; i < 3; ++i) {
            const __m256 gi = _mm256_permutevar8x32_ps(_mm256_loadu_ps(g + i * count), place);
            col[i] = {_mm256_fmadd_ps(q.x, gi, col[i].x), _mm256_fmadd_ps(q.y, gi, col[i].y), _mm256_fmadd_ps(q.z, gi, col[i].z)};
        }
    }
    r.n = normalizeSoa(combine(crossSoa(col[1], col[2]), crossSoa(col[2], col[0]), crossSoa(col[0], col[1]),
                               load3x8(inN, v, last)));
    if constexpr (kTangents)
        r.tan = normalizeSoa(combine(col[0], col[1], col[2], loadTangents8(inT, v, r.tRaw)));
    return r;
}

/// jacobianBlock8 folded or not, as the plan has block b (WeightGradients::blockFolded; `folded` null: none is), for
/// half `half` (0 or 1) of it.
template <int K, bool kPositions, bool kTangents>
RS_INLINE Block8 jacobianHalf(const SkinJob& job, const PaletteMatrix* pal, const float* inT, const uint8_t* folded,
                              size_t b, size_t v, size_t last, int half, const HalfSlots& h)
{
    return withFlags(folded && folded[b], half != 0, [&](auto fold, auto second) RS_INLINE_LAMBDA {
        return jacobianBlock8<K, kPositions, kTangents, decltype(fold)::value, decltype(second)::value ? 1 : 0>(
            job, pal, inT, v, last, h);
    });
}

/// The jacobian's planned halves from v (a multiple of 8; `start`: where the caller's loop began, for the prefetch
/// phase), the outputs fixed at compile time (normals always: every method but positions-only writes them): up to
/// the first unplanned block or the range's last block (v + 8 must stay inside the range: the block's last 8-float
/// stores reach into it); returns where it stopped. No flags (the caller writes them: all None). The same operations
/// as the range's last block, which run() writes through its Writer: the same bits. A loop of its own for the reason
/// blendInverseTransposePairs has one: its pointers stay in registers.
template <int K, bool kPositions, bool kTangents>
__attribute__((noinline)) size_t jacobianPlanned(const SkinJob& job, const PaletteMatrix* pal, const float* inT, float* outP,
                                                 float* outN, float* outT, size_t start, size_t v, size_t last)
{
    const uint32_t* plan = job.gradients.blockSlots.data();
    const uint32_t* blockData = job.gradients.blockData.data();
    const float* slotGradients = job.gradients.slotGradients.data();
    const uint32_t* halves = job.gradients.blockHalves.data();
    const uint8_t* folded = job.gradients.blockFolded.empty() ? nullptr : job.gradients.blockFolded.data();
    const float* slotWeights = job.gradients.slotWeights.empty() ? nullptr : job.gradients.slotWeights.data();
    const size_t blocks = job.gradients.blockSlots.size() - 1;
    const float* inP = reinterpret_cast<const float*>(job.positions.data());
    const float* inN = reinterpret_cast<const float*>(job.normals.data());
    const OutputsAhead ahead = outputsAhead(job.positions.size(), kPositions ? outP : nullptr, outN, kTangents ? outT : nullptr);
    for (; v + 9 <= last; v += 8) {
        const size_t b = v / 16;
        if (plan[b] & WeightGradients::kUnplanned)
            break;
        // The frames' inputs fetched ahead, not the joints and weights, which folded halves do not read (unfolded ones,
        // 3% of the benchmark rig's at 1M, read them unfetched, as since b05e009): with those too
        // (the other AVX2 loops' prefetchInputs) and the plan's gradient prefetch below this loop ran ×0.92 at 100k and
        // 1M on Ice Lake (twenty-first session); positions, normals and tangents alone ×1.04–1.14 at 1M, ×1.00–1.04 at
        // 100k on Zen 4 (twenty-second session; both in one process against the loop without).
        prefetchInputs<K>(nullptr, nullptr, inP, inN, kTangents ? inT : nullptr, start, v, last);
        prefetchOutputs(ahead, start, v, last);
        const int half = int(v / 8 % 2);
        constexpr int kHalfLines = kGradientPrefetchLines / 2;
        if (b + kPrefetchBlocks < blocks) {
            prefetchGradientBlock<kHalfLines>(plan, blockData, job.gradients.slotEntries.data(), slotGradients,
                                              b + kPrefetchBlocks, kHalfLines * half);
            if (slotWeights && half == 0)
                prefetchLines(slotWeights + blockData[b + kPrefetchBlocks] / 3, kSlotWeightPrefetchBytes);
        }
        const HalfSlots h = halfSlots(plan, halves, blockData, slotGradients, b, half);
        const Block8 r = jacobianHalf<K, kPositions, kTangents>(job, pal, inT, folded, b, v, last, half, h);
        storeBlock8<kPositions, kTangents>(outP, outN, outT, v, r);
    }
    return v;
}

/// Positions alone (ozz's positions-only job): in a function of its own, so that the register allocation of the
/// other methods' blocks in run() cannot touch this short loop (it did: 500 -> 400 M vertices/s when the dual
/// quaternion block was added there). Two vertex pairs an iteration (blendPair, one 8-float load and one 8-float
/// store a pair, Pair34::point doing Affine34::point's operations in its order: the one-vertex loop's bits), the
/// range's last vertex or two one at a time. `prefetch`: the inputs fetched ahead (prefetchInputs) — for jobs whose
/// positions pass kStreamingOutputBytes only: at 1M vertices ×1.07 in one process, at 100k (cached) ×0.95.
template <int K>
__attribute__((noinline)) void positionsAlone(const PaletteMatrix* pal, const uint16_t* joints, const float* weights,
                                              const float* inP, const Writer& out, size_t first, size_t last, bool prefetch)
{
    const Writer w = out; // a local copy: its fields stay in registers
    auto pair = [&](size_t v) RS_INLINE_LAMBDA {
        storePair3Wide(w.p + 3 * v, blendPair<K>(pal, joints + K * v, weights + K * v).point(pair3Wide(inP + 3 * v)));
    };
    size_t v = first;
    for (; v + 5 <= last; v += 4) { // each pair's spare floats land on the next pair's first vertex, written after
        if (prefetch)
            prefetchInputs<K>(joints, weights, inP, nullptr, nullptr, first, v, last);
        pair(v);
        pair(v + 2);
    }
    for (; v < last; ++v)
        w.store3(w.p, v, blend<K>(pal, joints + K * v, weights + K * v).point(inP + 3 * v));
    if (out.flags)
        std::memset(out.flags + first, SkinFlagNone, last - first);
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
            positionsAlone<K>(pal, joints, weights, inP, out, first, last,
                                  outputsPassStreamingBytes(job.positions.size(), true, false, false));
            break;
        }
        for (size_t v = first; v < last; ++v) {
            const Affine34 a = blend<K>(pal, joints + K * v, weights + K * v);
            out.write(v, out.p ? a.point(inP + 3 * v) : zero, out.n ? normalize3(load3(inN + 3 * v)) : zero,
                      tangents ? normalize3(tangentIn(v)) : zero, SkinFlagNone);
        }
        break;
    case Method::Cofactor:
        for (size_t v = runPairs<Method::Cofactor, K>(job, pal, tables, out, cofactorBlocks8<Method::Cofactor, K>(job, pal, out, first, last), last); v < last; ++v) {
            const Affine34 a = blend<K>(pal, joints + K * v, weights + K * v);
            out.write(v, a.point(inP + 3 * v), normalize3(a.cofactorTimes(inN + 3 * v)),
                      tangents ? normalize3(a.dir(tangentIn(v))) : zero, SkinFlagNone);
        }
        break;
    case Method::InverseTranspose:
        for (size_t v = runPairs<Method::InverseTranspose, K>(job, pal, tables, out, cofactorBlocks8<Method::InverseTranspose, K>(job, pal, out, first, last), last); v < last; ++v) {
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
    case Method::BlendInverseTranspose: {
        size_t start = first;
        if (!tables.anySingular && out.n) { // every flag None; positions and tangents as the job has them
            start = withFlags(out.p != nullptr, tangents, [&](auto p, auto t) {
                return blendInverseTransposePairs<K, decltype(p)::value, decltype(t)::value>(job, pal, tables.inverseTranspose,
                                                                                             out, first, last);
            });
            if (out.flags)
                std::memset(out.flags + first, SkinFlagNone, start - first);
        }
        for (size_t v = runPairs<Method::BlendInverseTranspose, K>(job, pal, tables, out, start, last); v < last; ++v) {
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
    }
    case Method::Jacobian: {
        const uint32_t* off = job.gradients.offsets.data();
        const uint16_t* gj = job.gradients.joints.data();
        const float* gg = reinterpret_cast<const float*>(job.gradients.gradients.data()); // may be empty
        auto perVertex = [&](size_t from, size_t to) {
            for (size_t v = from; v < to; ++v) {
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
        };
        const std::span<const uint32_t> plan = job.gradients.blockSlots;
        if (plan.empty()) {
            perVertex(first, last);
            break;
        }
        // Halves of the plan's blocks, eight vertices from a multiple of 8; the rest, and unplanned blocks, per vertex.
        size_t v = std::min(last, (first + 7) / 8 * 8);
        perVertex(first, v);
        const size_t blocks = plan.size() - 1;
        auto planned = [&](size_t start, size_t from) {
            return withFlags(out.p != nullptr, tangents, [&](auto p, auto t) {
                return jacobianPlanned<K, decltype(p)::value, decltype(t)::value>(job, pal, inT, out.p, out.n, out.t, start,
                                                                                  from, last);
            });
        };
        for (const size_t start = v; v + 8 <= last;) {
            const size_t b = v / 16;
            if (plan[b] & WeightGradients::kUnplanned) {
                prefetchInputs<K>(joints, weights, inP, inN, inT, start, v, last);
                if (v % 16 == 0 && b + kPrefetchBlocks < blocks) // the plan as far ahead as the AVX-512 kernel
                    prefetchGradientBlock(plan.data(), job.gradients.blockData.data(), job.gradients.slotEntries.data(),
                                          job.gradients.slotGradients.data(), b + kPrefetchBlocks);
                perVertex(v, v + 8);
                v += 8;
                continue;
            }
            if (v + 9 <= last) { // planned halves with the outputs fixed, up to the next unplanned block
                const size_t to = planned(start, v);
                if (out.flags)
                    std::memset(out.flags + v, SkinFlagNone, to - v);
                v = to;
                continue;
            }
            // The range's last block: positions computed whether or not they are written.
            const int half = int(v / 8 % 2);
            const HalfSlots h = halfSlots(job.gradients, b, half);
            const uint8_t* folded = job.gradients.blockFolded.empty() ? nullptr : job.gradients.blockFolded.data();
            const Block8 r = tangents ? jacobianHalf<K, true, true>(job, pal, inT, folded, b, v, last, half, h)
                                      : jacobianHalf<K, true, false>(job, pal, inT, folded, b, v, last, half, h);
            const uint8_t flags[8] = {SkinFlagNone, SkinFlagNone, SkinFlagNone, SkinFlagNone,
                                      SkinFlagNone, SkinFlagNone, SkinFlagNone, SkinFlagNone};
            writeBlock8(out, v, r.pos, r.n, r.tan, r.tRaw, flags);
            v += 8;
        }
        perVertex(v, last);
        break;
    }
    case Method::DualQuaternion:
    case Method::CenterOfRotation: {
        const float* dq = tables.dualQuaternions; // per joint: real (x y z w), dual (x y z w)
        auto flagged = [&](size_t v) { return dqFallback<K>(tables, joints, weights, v, 1); };
        // Centres of rotation (as the scalar path): the same rotation and stretch blends, the position
        // Q S (p - c) + A c instead of the dual part's translation.
        const float* centers = job.method == Method::CenterOfRotation ? reinterpret_cast<const float*>(job.centers.data())
                                                                      : nullptr;
        // One vertex at a time.
        auto runDq = [&](size_t from, size_t to) {
            for (size_t v = from; v < to; ++v) {
                const uint16_t* j = joints + K * v;
                const float* w = weights + K * v;
                const bool fallback = flagged(v);
                if (fallback) {
                    // A mirrored or singular joint has no dual quaternion: the linear blend, flagged.
                    const Affine34 a = blend<K>(pal, j, w);
                    out.write(v, a.point(inP + 3 * v), normalize3(a.dir(inN + 3 * v)), tangents ? normalize3(a.dir(tangentIn(v))) : zero,
                              SkinFlagDqFallback);
                    continue;
                }
                // The pivot is the largest weight: slot 0 of the sorted stream. Antipodal quaternions are flipped to its
                // hemisphere (the sign applied without a branch); a zero weight adds 0 whatever its joint.
                const __m128 pivot = _mm_load_ps(dq + 8 * size_t(j[0]));
                __m256 rd = _mm256_setzero_ps(); // real | dual
                const __m128 signBit = _mm_set_ss(-0.0f);
                for (int i = 0; i < K; ++i) {
                    const __m256 q = _mm256_load_ps(dq + 8 * size_t(j[i]));
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
                __m128 pos;
                if (centers) {
                    const Affine34 a = blend<K>(pal, j, w);
                    const __m128 c = load3(centers + 3 * v);
                    pos = _mm_add_ps(rotate(s.dir(_mm_sub_ps(load3(inP + 3 * v), c))), _mm_add_ps(a.dir(c), a.t));
                } else {
                    pos = _mm_add_ps(rotate(s.dir(inP + 3 * v)), tr);
                }
                const __m128 nrm = normalize3(rotate(s.cofactorTimes(inN + 3 * v)));
                out.write(v, pos, nrm, tangents ? normalize3(rotate(s.dir(tangentIn(v)))) : zero, SkinFlagNone);
            }
        };
        if (centers) { // no block path: one vertex at a time
            runDq(first, last);
            break;
        }
        // Eight at a time, one vertex per lane (dqBlock8), where no vertex of the eight has a singular or mirrored
        // joint and none's blend vanishes; otherwise, and for the rest, one at a time.
        const bool flaggedJoints = tables.anySingular || tables.anyMirrored;
        auto blocks = [&](size_t from) { // the blocks with the outputs fixed, from `from` on
            return withFlags(out.p != nullptr, tangents, [&](auto p, auto t) {
                return dualQuaternionBlocks<K, decltype(p)::value, decltype(t)::value>(job, tables, inT, out.p, out.n, out.t,
                                                                                       first, from, last);
            });
        };
        size_t b = first;
        while (b + 8 <= last) {
            if (b + 9 <= last) {
                const size_t to = blocks(b);
                if (out.flags)
                    std::memset(out.flags + b, SkinFlagNone, to - b);
                b = to;
                if (b + 8 > last)
                    break;
            }
            // The block the loop above stopped at (the per-vertex path's, or the range's last block): positions computed
            // whether or not they are written.
            prefetchInputs<K>(joints, weights, inP, inN, inT, first, b, last);
            Block8 r;
            bool plain = !(flaggedJoints && dqFallback<K>(tables, joints, weights, b, 8));
            if (plain) {
                DqBlend8 q;
                dqBlend8<K>(tables, joints, weights, b, q);
                plain = tangents ? dqBlock8<K, true, true>(inP, inN, inT, tables, joints, weights, b, last, q, r)
                                 : dqBlock8<K, true, false>(inP, inN, inT, tables, joints, weights, b, last, q, r);
            }
            if (plain) {
                const uint8_t none[8] = {SkinFlagNone, SkinFlagNone, SkinFlagNone, SkinFlagNone,
                                         SkinFlagNone, SkinFlagNone, SkinFlagNone, SkinFlagNone};
                writeBlock8(out, b, r.pos, r.n, r.tan, r.tRaw, none);
            } else {
                runDq(b, b + 8);
            }
            b += 8;
        }
        runDq(b, last);
        break;
    }
    case Method::Linear:
    case Method::Rebuilt:
        break; // linear has its own kernels; rebuilt is not a skin job
    }
}

} // namespace

#ifndef RIG_AVX2_METHODS_ENTRY
#define RIG_AVX2_METHODS_ENTRY runMethodAvx2
#endif

void RIG_AVX2_METHODS_ENTRY(const SkinJob& job, const PaletteMatrix* pal, const MethodTables& tables, size_t first,
                            size_t last)
{
    if (job.influencesPerVertex == 8)
        run<8>(job, pal, tables, first, last);
    else
        run<4>(job, pal, tables, first, last);
}

} // namespace rig::detail
