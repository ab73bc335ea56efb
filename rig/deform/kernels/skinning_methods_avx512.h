// Internal to the AVX-512 kernels of the normal-correct methods: the block machinery they share, and each method's
// block. skinning_methods_avx512.cpp is the entry point (runMethodAvx512); the methods' blocks are instantiated in
// skinning_cofactor_avx512.cpp (cofactor, inverse-transpose), skinning_blends_avx512.cpp (blend-inverse-transpose,
// dual-quaternion) and skinning_jacobian_avx512.cpp, so that the sanitizer builds compile them on several cores (in
// one file, the clang ASan build of this code alone took ten minutes). All are compiled with AVX-512 F + DQ + BW + VL
// (and AVX2, FMA) and only those include this; called only when the CPU and the OS support them (cpuHasAvx512),
// through methodKernel(). Positions-only's positions alone: skinning_linear_avx512.cpp.
//
// Layout of the work, as in the linear kernel (skinning_linear_avx512.cpp): 16 vertices per block, four groups of four.
// A vertex's blended 3x4 matrix is one zmm; a group's four are transposed into X_c = (column c of vertex 0 | ... | 3).
// Cofactor, inverse-transpose, dual-quaternion and the planned jacobian then transpose the block once more, in-lane,
// to one vertex per lane, where the 3-vector algebra of the scalar reference is plain FMAs; blend-inverse-transpose and
// the unplanned jacobian stay in the group layout (3-vectors as x y z 0 in each 128-bit lane). Per method, step for
// step with the scalar reference in skinning.cpp:
// - cofactor: cof(A) n = n.x (c1×c2) + n.y (c2×c0) + n.z (c0×c1) (normalBlockSoa);
// - inverse-transpose: the same, flipped where det = c0 · (c1×c2) < 0, zero and flagged singular where
//   |det| <= 1e-6 s^1.5 (s = |A|_F² / 3) or not finite — branch-free, per lane (normalBlockSoa);
// - blend-inverse-transpose: a second blend, of the joints' R^{-T};
// - dual-quaternion: each slot's (real | dual) pair flipped to the pivot's hemisphere by a per-lane sign and blended
//   in the group layout (as are the stretches S); then the block is transposed in-lane to one vertex per lane, and
//   the normalisation, translation, cof(S) and quaternion rotations are plain FMAs (positions and tangents through
//   S, normals through cof(S); S = (Σ w) I on a palette without stretch, MethodTables::unitStretch); the blends of
//   a few blocks run before their math (dqBlocks);
// - jacobian: J = A + Σ_g (M_g p) ∇w_gᵀ. A block the weight gradients' block plan covers (WeightGradients: most
//   are) runs one vertex per lane, joint by joint (jacobianBlockSoa); any other, column c as A's plus
//   (Σ_g ∇w_g[c] M_g) p — the sums blended per vertex (the number of gradient terms varies), then transposed like A.
//   Normals through cof(J), tangents through J, positions through A.
// What only a few vertices take — a blend-inverse-transpose vertex on a singular joint, a dual-quaternion vertex on a
// mirrored or singular joint or with a vanishing quaternion — sends its whole block to the per-vertex AVX2 kernel
// (skinning_methods_avx2.cpp), which has those branches; so does the range's last partial block. The check runs only
// when the palette has such a joint at all. Full blocks are written as three (four for tangents) whole zmm per
// array, exactly the block's floats; for large jobs (kStreamingOutputBytes, as the linear kernel) as whole
// non-temporal 64-byte lines instead (LineWriter), which saves the read-for-ownership of every output line: these
// kernels were bound by it at 1M vertices on Intel (144 bytes a vertex moved with ordinary stores, 104 streamed).
// Nothing outside [first, last) is touched. No allocation, no call per vertex.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>

#include "rig/deform/kernels/avx512_math.h"
#include "rig/deform/kernels/skinning_internal.h"
#include "rig/deform/weight_gradients.h"
#include "rig/model/math.h"

namespace rig::detail::avx512m {

using namespace avx512;

struct Constants : BlockLayout {
    __m512i vectors3[4];   // group g: lane 4q + c <- float (o_g + 3 q + c) (lane 4q + 3: masked to 0 after)
    __m512i weight4[4];    // K = 4, slot i: lane l <- weight (4 (l / 4) + i) of the group
    __m512i weight8[8];    // K = 8, slot i: lane l <- weight (8 (l / 4) + i) of the group (two sources)
    __m512i laneOrder;     // lane l <- vertex (4 (l % 4) + l / 4) of a block: vertex order to transpose4's lane order
    alignas(64) int32_t iota[16]; // 0 .. 15
};

inline Constants makeConstants()
{
    Constants k;
    static_cast<BlockLayout&>(k) = makeBlockLayout();
    alignas(64) int32_t idx[16];
    for (int g = 0; g < 4; ++g) {
        for (int l = 0; l < 16; ++l)
            idx[l] = kGroupOffset[g] + 3 * (l / 4) + std::min(l % 4, 2);
        k.vectors3[g] = _mm512_load_si512(idx);
    }
    for (int i = 0; i < 4; ++i) {
        for (int l = 0; l < 16; ++l)
            idx[l] = 4 * (l / 4) + i;
        k.weight4[i] = _mm512_load_si512(idx);
    }
    for (int i = 0; i < 8; ++i) {
        for (int l = 0; l < 16; ++l)
            idx[l] = 8 * (l / 4) + i;
        k.weight8[i] = _mm512_load_si512(idx);
    }
    for (int l = 0; l < 16; ++l)
        idx[l] = 4 * (l % 4) + l / 4;
    k.laneOrder = _mm512_load_si512(idx);
    for (int l = 0; l < 16; ++l)
        k.iota[l] = l;
    return k;
}

inline const Constants& constants()
{
    static const Constants k = makeConstants();
    return k;
}

// (y z x w) of every 128-bit lane.
RS_INLINE __m512 yzx(__m512 a)
{
    return _mm512_permute_ps(a, _MM_SHUFFLE(3, 0, 2, 1));
}

// a × b per 128-bit lane; lane 3 is 0 when a's and b's are (and finite).
RS_INLINE __m512 cross(__m512 a, __m512 b)
{
    return yzx(_mm512_fmsub_ps(a, yzx(b), _mm512_mul_ps(yzx(a), b)));
}

// The sum of each 128-bit lane's four floats, in all four.
RS_INLINE __m512 hsum4(__m512 a)
{
    a = _mm512_add_ps(a, _mm512_permute_ps(a, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm512_add_ps(a, _mm512_permute_ps(a, _MM_SHUFFLE(1, 0, 3, 2)));
}

/// Column c of four vertices' 3x4 matrices: x[c] = (column c of vertex 0 | 1 | 2 | 3).
struct Columns {
    __m512 x[4];
    /// x0 v.x + x1 v.y + x2 v.z for per-lane-group broadcasts vx, vy, vz.
    RS_INLINE __m512 dir(__m512 vx, __m512 vy, __m512 vz) const
    {
        return _mm512_fmadd_ps(x[2], vz, _mm512_fmadd_ps(x[1], vy, _mm512_mul_ps(x[0], vx)));
    }
    /// cof(A) v = v.x (c1×c2) + v.y (c2×c0) + v.z (c0×c1).
    RS_INLINE __m512 cofactorTimes(__m512 vx, __m512 vy, __m512 vz) const
    {
        return _mm512_fmadd_ps(cross(x[0], x[1]), vz,
                               _mm512_fmadd_ps(cross(x[2], x[0]), vy, _mm512_mul_ps(cross(x[1], x[2]), vx)));
    }
};

RS_INLINE Columns transpose(__m512 a0, __m512 a1, __m512 a2, __m512 a3)
{
    const __m512 t0 = _mm512_shuffle_f32x4(a0, a1, _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 t1 = _mm512_shuffle_f32x4(a0, a1, _MM_SHUFFLE(3, 2, 3, 2));
    const __m512 t2 = _mm512_shuffle_f32x4(a2, a3, _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 t3 = _mm512_shuffle_f32x4(a2, a3, _MM_SHUFFLE(3, 2, 3, 2));
    return {{_mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(3, 1, 3, 1)),
             _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(3, 1, 3, 1))}};
}

// The blended matrices of a group's four vertices (j, w: the group's first vertex).
template <int K>
RS_INLINE Columns blendGroup(const PaletteMatrix* pal, const uint16_t* j, const float* w)
{
    return transpose(blendMatrix<K>(pal, j, w), blendMatrix<K>(pal, j + K, w + K), blendMatrix<K>(pal, j + 2 * K, w + 2 * K),
                     blendMatrix<K>(pal, j + 3 * K, w + 3 * K));
}

/// blendGroup of two palettes over the same slots in one pass (blend-inverse-transpose: the joints' matrices and their
/// R^{-T}): each slot's joint index and weight read once for both.
template <int K>
RS_INLINE void blendGroup2(const PaletteMatrix* pal, const PaletteMatrix* other, const uint16_t* j, const float* w, Columns& a,
                           Columns& b)
{
    __m512 x[4], y[4];
    for (int q = 0; q < 4; ++q) {
        const uint16_t* jq = j + K * q;
        const __m512 w0 = _mm512_set1_ps(w[K * q]);
        x[q] = _mm512_mul_ps(_mm512_load_ps(pal[jq[0]].m), w0);
        y[q] = _mm512_mul_ps(_mm512_load_ps(other[jq[0]].m), w0);
        for (int i = 1; i < K; ++i) {
            const __m512 wi = _mm512_set1_ps(w[K * q + i]);
            x[q] = _mm512_fmadd_ps(_mm512_load_ps(pal[jq[i]].m), wi, x[q]);
            y[q] = _mm512_fmadd_ps(_mm512_load_ps(other[jq[i]].m), wi, y[q]);
        }
    }
    a = transpose(x[0], x[1], x[2], x[3]);
    b = transpose(y[0], y[1], y[2], y[3]);
}

/// The group's four 3-float vectors as (x y z 0) per 128-bit lane.
template <int G>
RS_INLINE __m512 vectors(const Constants& k, const __m512 (&d)[3])
{
    return _mm512_maskz_mov_ps(0x7777, spread3<G>(d, k.vectors3[G]));
}

/// Everything one run reads.
struct Context {
    const Constants& k;
    const PaletteMatrix* pal;
    const MethodTables& tables;
    const uint16_t* joints;
    const float* weights;
    const float* inP;
    const float* inN;
    const float* inT;
    float* outP;
    float* outN;
    float* outT;
    uint8_t* outFlags;
    const uint32_t* gradOffsets;
    const uint16_t* gradJoints;
    const float* gradients;
    uint8_t fallbackFlags; // joint flags that send a vertex to the per-vertex kernel (0: none in this palette)
    // The jacobian's block plan (WeightGradients): null when the job has none.
    const uint32_t* blockSlots;
    const uint32_t* blockData;
    const uint32_t* slotEntries;
    const float* slotGradients;
    // The plan's weights in the slots' lanes and the blocks that may use them (WeightGradients): null without.
    const float* slotWeights;
    const uint8_t* blockFolded;
};

/// One group's outputs: (x y z _) per 128-bit lane.
struct GroupOut {
    __m512 p, n, t;
};

/// One block's outputs, packed as the arrays store them: positions and normals 48 floats each, tangents 64 (w
/// included); p is left unset when positions are not written.
struct BlockOut {
    __m512 p[3], n[3], t[4];
};

// The broadcasts of one 3-float input of the group's vertices: (v.c of vertex 0 x4 | ... | vertex 3 x4).
template <int G>
struct Spread {
    __m512 x, y, z;
    RS_INLINE Spread(const Constants& k, const __m512 (&d)[3])
        : x(spread3<G>(d, k.spread3[G][0])), y(spread3<G>(d, k.spread3[G][1])), z(spread3<G>(d, k.spread3[G][2]))
    {
    }
};

/// The dual-quaternion blend of a group's four vertices (j, w: the group's first): per 128-bit lane the vertex's
/// Σ ±w_i q_i, real and dual parts, each slot flipped to the pivot's hemisphere (the pivot is the largest weight: slot
/// 0; a zero weight adds 0 whatever its joint: the tables are finite), and weightSum = Σ w_i in every lane.
template <int K>
RS_INLINE void dqBlend(const Context& c, const uint16_t* j, const float* w, __m512& real, __m512& dual, __m512& weightSum)
{
    const Constants& k = c.k;
    const __m512 zero = _mm512_setzero_ps();
    // Slot i's (real | dual) of the four vertices: two 256-bit loads per zmm, then real and dual apart.
    auto slot = [&](int i, __m512& r, __m512& d) {
        const float* q = c.tables.dualQuaternions;
        const __m512 a = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_load_ps(q + 8 * size_t(j[i]))), _mm256_load_ps(q + 8 * size_t(j[K + i])), 1);
        const __m512 b = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_load_ps(q + 8 * size_t(j[2 * K + i]))),
                                            _mm256_load_ps(q + 8 * size_t(j[3 * K + i])), 1);
        r = _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(2, 0, 2, 0));
        d = _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(3, 1, 3, 1));
    };
    __m512 w0, w1;
    w0 = _mm512_loadu_ps(w);
    if constexpr (K == 8)
        w1 = _mm512_loadu_ps(w + 16);
    auto weight = [&](int i) {
        if constexpr (K == 4)
            return _mm512_permutexvar_ps(k.weight4[i], w0);
        else
            return _mm512_permutex2var_ps(w0, k.weight8[i], w1);
    };
    __m512 pivot, pd;
    slot(0, pivot, pd);
    const __m512 w0s = weight(0);
    __m512 sum = w0s;
    real = _mm512_mul_ps(w0s, pivot);
    dual = _mm512_mul_ps(w0s, pd);
    for (int i = 1; i < K; ++i) {
        __m512 r, d;
        slot(i, r, d);
        const __mmask16 away = _mm512_cmp_ps_mask(hsum4(_mm512_mul_ps(r, pivot)), zero, _CMP_LT_OQ);
        const __m512 wi = weight(i);
        sum = _mm512_add_ps(sum, wi);
        const __m512 sw = _mm512_mask_sub_ps(wi, away, zero, wi);
        real = _mm512_fmadd_ps(sw, r, real);
        dual = _mm512_fmadd_ps(sw, d, dual);
    }
    weightSum = sum;
}

/// 16 vertices' 3-vectors, one register per component (the transposed order above).
struct Soa3 {
    __m512 x, y, z;
};

RS_INLINE Soa3 operator*(__m512 s, const Soa3& a)
{
    return {_mm512_mul_ps(s, a.x), _mm512_mul_ps(s, a.y), _mm512_mul_ps(s, a.z)};
}

RS_INLINE Soa3 operator+(const Soa3& a, const Soa3& b)
{
    return {_mm512_add_ps(a.x, b.x), _mm512_add_ps(a.y, b.y), _mm512_add_ps(a.z, b.z)};
}

RS_INLINE Soa3 crossSoa(const Soa3& a, const Soa3& b)
{
    return {_mm512_fmsub_ps(a.y, b.z, _mm512_mul_ps(a.z, b.y)), _mm512_fmsub_ps(a.z, b.x, _mm512_mul_ps(a.x, b.z)),
            _mm512_fmsub_ps(a.x, b.y, _mm512_mul_ps(a.y, b.x))};
}

/// v / |v| per lane (rsqrt14 + Newton, as normalizePair), zero where |v|² < kZeroLength2 or not finite.
RS_INLINE Soa3 normalizeSoa(const Soa3& v)
{
    const __m512 len2 = _mm512_fmadd_ps(v.z, v.z, _mm512_fmadd_ps(v.y, v.y, _mm512_mul_ps(v.x, v.x)));
    const __m512 r0 = _mm512_rsqrt14_ps(len2);
    const __m512 h = _mm512_mul_ps(_mm512_mul_ps(len2, _mm512_set1_ps(0.5f)), r0);
    const __m512 r = _mm512_mul_ps(r0, _mm512_fnmadd_ps(h, r0, _mm512_set1_ps(1.5f)));
    const __mmask16 ok = _mm512_cmp_ps_mask(len2, _mm512_set1_ps(kZeroLength2), _CMP_GE_OQ) &
                         _mm512_cmp_ps_mask(len2, _mm512_set1_ps(INFINITY), _CMP_LT_OQ);
    return {_mm512_maskz_mul_ps(ok, v.x, r), _mm512_maskz_mul_ps(ok, v.y, r), _mm512_maskz_mul_ps(ok, v.z, r)};
}

/// x0 v.x + x1 v.y + x2 v.z per lane.
RS_INLINE Soa3 combineSoa(const Soa3& x0, const Soa3& x1, const Soa3& x2, const Soa3& v)
{
    return {_mm512_fmadd_ps(x2.x, v.z, _mm512_fmadd_ps(x1.x, v.y, _mm512_mul_ps(x0.x, v.x))),
            _mm512_fmadd_ps(x2.y, v.z, _mm512_fmadd_ps(x1.y, v.y, _mm512_mul_ps(x0.y, v.x))),
            _mm512_fmadd_ps(x2.z, v.z, _mm512_fmadd_ps(x1.z, v.y, _mm512_mul_ps(x0.z, v.x)))};
}

/// A block's 3-float stream (48 floats from base) as one register per component, in transpose4's lane order.
RS_INLINE Soa3 loadSoa3(const Constants& k, const float* base)
{
    const __m512 d[3] = {_mm512_loadu_ps(base), _mm512_loadu_ps(base + 16), _mm512_loadu_ps(base + 32)};
    Soa3 r;
    __m512 unused;
    transpose4(vectors<0>(k, d), vectors<1>(k, d), vectors<2>(k, d), vectors<3>(k, d), r.x, r.y, r.z, unused);
    return r;
}

/// The inverse of loadSoa3: the sixteen vectors packed as the arrays store them.
RS_INLINE void packSoa3(const Constants& k, const Soa3& a, __m512 (&out)[3])
{
    __m512 o[4];
    transpose4(a.x, a.y, a.z, _mm512_setzero_ps(), o[0], o[1], o[2], o[3]);
    for (int z = 0; z < 3; ++z)
        out[z] = _mm512_permutex2var_ps(o[z], k.pack[z], o[z + 1]);
}

/// A block's tangents (64 floats from t): x y z per component, and the rows' w.
RS_INLINE Soa3 loadTangentsSoa(const float* t, __m512& w)
{
    Soa3 r;
    transpose4(_mm512_loadu_ps(t), _mm512_loadu_ps(t + 16), _mm512_loadu_ps(t + 32), _mm512_loadu_ps(t + 48), r.x, r.y, r.z, w);
    return r;
}

/// The inverse of loadTangentsSoa, with w (copied from the input).
RS_INLINE void packTangentsSoa(const Soa3& a, __m512 w, __m512 (&out)[4])
{
    transpose4(a.x, a.y, a.z, w, out[0], out[1], out[2], out[3]);
}

/// A block's blended dual quaternions, one vertex per lane: real x y z w, dual x y z w, Σ w.
struct DqBlend16 {
    __m512 rx, ry, rz, rw, dx, dy, dz, dw, sw;
};

/// The blends of the block from v (dqBlend per group, transposed in-lane).
template <int K>
RS_INLINE void dqBlendSoa(const Context& c, size_t v, DqBlend16& b)
{
    const uint16_t* j = c.joints + K * v;
    const float* w = c.weights + K * v;
    __m512 r[4], d[4], s[4];
    for (int g = 0; g < 4; ++g)
        dqBlend<K>(c, j + 4 * K * g, w + 4 * K * g, r[g], d[g], s[g]);
    __m512 unused0, unused1, unused2;
    transpose4(r[0], r[1], r[2], r[3], b.rx, b.ry, b.rz, b.rw);
    transpose4(d[0], d[1], d[2], d[3], b.dx, b.dy, b.dz, b.dw);
    transpose4(s[0], s[1], s[2], s[3], b.sw, unused0, unused1, unused2); // every lane of s[g] holds its vertex's sum
}

/// Dual quaternions, one block, from its blends b (dqBlendSoa): the stretches blended in the group layout unless
/// MethodTables::unitStretch, then everything else with one vertex per lane (no shuffles in the quaternion algebra).
/// False when a vertex's blend vanishes (the per-vertex kernel flags it).
template <int K, bool kTangents, bool kPositions>
RS_INLINE bool dqBlockSoa(const Context& c, size_t v, const DqBlend16& b, BlockOut& out)
{
    const Constants& k = c.k;
    const uint16_t* j = c.joints + K * v;
    const float* w = c.weights + K * v;
    const __m512 rx = b.rx, ry = b.ry, rz = b.rz, rw = b.rw, dx = b.dx, dy = b.dy, dz = b.dz, dw = b.dw, sw = b.sw;
    __m512 unused0;
    const __m512 len = _mm512_sqrt_ps(_mm512_add_ps(_mm512_fmadd_ps(ry, ry, _mm512_mul_ps(rx, rx)),
                                                    _mm512_fmadd_ps(rw, rw, _mm512_mul_ps(rz, rz))));
    const __mmask16 good = _mm512_cmp_ps_mask(len, _mm512_set1_ps(1e-12f), _CMP_GT_OQ) &
                           _mm512_cmp_ps_mask(len, _mm512_set1_ps(INFINITY), _CMP_LT_OQ);
    if (good != 0xFFFF)
        return false;
    const __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.0f), len);
    const Soa3 u = inv * Soa3{rx, ry, rz}, ud = inv * Soa3{dx, dy, dz};
    const __m512 qw = _mm512_mul_ps(rw, inv), dqw = _mm512_mul_ps(dw, inv);
    const __m512 two = _mm512_set1_ps(2.0f);
    auto rotate = [&](const Soa3& x) {
        const Soa3 t = two * crossSoa(u, x);
        return Soa3{_mm512_fmadd_ps(qw, t.x, x.x), _mm512_fmadd_ps(qw, t.y, x.y), _mm512_fmadd_ps(qw, t.z, x.z)} + crossSoa(u, t);
    };
    // Inputs: the group layout (x y z 0 per vertex), then transposed like the blends.
    const Soa3 n = loadSoa3(k, c.inN + 3 * v);
    // The stretch S: blended and transposed (column c of every vertex), or (Σ w) I on rigid joints, where
    // cof(S) n = (Σ w)² n, S p = (Σ w) p, S t = (Σ w) t.
    const bool rigid = c.tables.unitStretch;
    Soa3 sc[3];
    if (!rigid) {
        Columns sg[4];
        for (int g = 0; g < 4; ++g)
            sg[g] = blendGroup<K>(c.tables.stretch, j + 4 * K * g, w + 4 * K * g);
        for (int col = 0; col < 3; ++col)
            transpose4(sg[0].x[col], sg[1].x[col], sg[2].x[col], sg[3].x[col], sc[col].x, sc[col].y, sc[col].z, unused0);
    }
    auto stretch = [&](const Soa3& x) { return rigid ? sw * x : combineSoa(sc[0], sc[1], sc[2], x); };
    auto cofactorStretch = [&](const Soa3& x) {
        if (rigid)
            return _mm512_mul_ps(sw, sw) * x;
        return combineSoa(crossSoa(sc[1], sc[2]), crossSoa(sc[2], sc[0]), crossSoa(sc[0], sc[1]), x);
    };
    packSoa3(k, normalizeSoa(rotate(cofactorStretch(n))), out.n);
    if constexpr (kPositions) {
        const Soa3 p = loadSoa3(k, c.inP + 3 * v);
        // translation = 2 vec(dual conj(real)) = 2 (rw ud - dw u + u × ud)
        const Soa3 tr = two * (Soa3{_mm512_fmsub_ps(qw, ud.x, _mm512_mul_ps(dqw, u.x)), _mm512_fmsub_ps(qw, ud.y, _mm512_mul_ps(dqw, u.y)),
                                    _mm512_fmsub_ps(qw, ud.z, _mm512_mul_ps(dqw, u.z))} +
                               crossSoa(u, ud));
        packSoa3(k, rotate(stretch(p)) + tr, out.p);
    }
    if constexpr (kTangents) {
        __m512 tw;
        const Soa3 tin = loadTangentsSoa(c.inT + 4 * v, tw);
        packTangentsSoa(normalizeSoa(rotate(stretch(tin))), tw, out.t);
    }
    if (c.outFlags)
        std::memset(c.outFlags + v, SkinFlagNone, 16);
    return true;
}

/// The blended matrices of a block's sixteen vertices (j, w: its first vertex's), one vertex per lane: col[0..2] the
/// columns, col[3] the translation (kColumns = 4) — blended per vertex, then transposed (blendGroup, transpose4).
template <int K, int kColumns>
RS_INLINE void blendBlockSoa(const PaletteMatrix* pal, const uint16_t* j, const float* w, Soa3 (&col)[4])
{
    Columns a[4];
    for (int g = 0; g < 4; ++g)
        a[g] = blendGroup<K>(pal, j + 4 * K * g, w + 4 * K * g);
    __m512 unused;
    for (int i = 0; i < kColumns; ++i)
        transpose4(a[0].x[i], a[1].x[i], a[2].x[i], a[3].x[i], col[i].x, col[i].y, col[i].z, unused);
}

RS_INLINE __m512 dotSoa(const Soa3& a, const Soa3& b)
{
    return _mm512_fmadd_ps(a.z, b.z, _mm512_fmadd_ps(a.y, b.y, _mm512_mul_ps(a.x, b.x)));
}

/// Cofactor and inverse-transpose, one block with one vertex per lane: the blends transposed once (blendBlockSoa),
/// then the cross products, the determinant and its singularity test, the products and the normalisations are plain
/// FMAs: no shuffles and no lane spent on the vectors' fourth component. The group layout (skinGroup) spent ~9
/// shuffles a vertex on them, on the port Intel's 512-bit FMAs share: one vertex per lane ran inverse-transpose 25%
/// faster (100k vertices on a Sapphire Rapids-class Xeon: 175 -> 225 M/s; cofactor 195 -> 232). Not
/// blend-inverse-transpose: its second blend would need a second transpose, and measured slower (157 -> 150).
template <Method M, int K, bool kTangents, bool kPositions>
RS_INLINE void normalBlockSoa(const Context& c, size_t v, BlockOut& out)
{
    const Constants& k = c.k;
    const uint16_t* j = c.joints + K * v;
    const float* w = c.weights + K * v;
    Soa3 col[4];
    blendBlockSoa<K, kPositions ? 4 : 3>(c.pal, j, w, col);
    if constexpr (kPositions)
        packSoa3(k, combineSoa(col[0], col[1], col[2], loadSoa3(k, c.inP + 3 * v)) + col[3], out.p);
    if constexpr (kTangents) {
        __m512 tw;
        const Soa3 tin = loadTangentsSoa(c.inT + 4 * v, tw);
        packTangentsSoa(normalizeSoa(combineSoa(col[0], col[1], col[2], tin)), tw, out.t);
    }
    const Soa3 n = loadSoa3(k, c.inN + 3 * v);
    __mmask16 ok = 0xFFFF; // lanes whose normal transform is regular
    Soa3 nrm;
    // cof(A) n = n.x (c1×c2) + n.y (c2×c0) + n.z (c0×c1).
    const Soa3 k0 = crossSoa(col[1], col[2]);
    const Soa3 cn = combineSoa(k0, crossSoa(col[2], col[0]), crossSoa(col[0], col[1]), n);
    if constexpr (M == Method::Cofactor) {
        nrm = normalizeSoa(cn);
    } else {
        static_assert(M == Method::InverseTranspose);
        // A^{-T} n = cof(A) n / det: the cofactor's direction, flipped where det = c0 · (c1×c2) < 0; zero and flagged
        // where |det| <= 1e-6 s^1.5 (s = |A|_F² / 3) or not finite, as singular3().
        const __m512 det = dotSoa(col[0], k0);
        const __m512 f2 = _mm512_add_ps(_mm512_add_ps(dotSoa(col[0], col[0]), dotSoa(col[1], col[1])), dotSoa(col[2], col[2]));
        const __m512 s = _mm512_mul_ps(f2, _mm512_set1_ps(1.0f / 3.0f));
        const __m512 absDet = _mm512_abs_ps(det);
        ok = _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(absDet, _mm512_mul_ps(_mm512_set1_ps(1e-6f), _mm512_mul_ps(s, _mm512_sqrt_ps(s))), _CMP_GT_OQ),
                                     absDet, _mm512_set1_ps(INFINITY), _CMP_LT_OQ);
        const __m512 sign = _mm512_and_ps(det, _mm512_set1_ps(-0.0f)); // -cof(A) n where det < 0
        nrm = normalizeSoa({_mm512_xor_ps(cn.x, sign), _mm512_xor_ps(cn.y, sign), _mm512_xor_ps(cn.z, sign)});
        nrm = {_mm512_maskz_mov_ps(ok, nrm.x), _mm512_maskz_mov_ps(ok, nrm.y), _mm512_maskz_mov_ps(ok, nrm.z)};
    }
    packSoa3(k, nrm, out.n);
    if (c.outFlags) {
        // Lane l holds vertex 4 (l % 4) + l / 4 (laneOrder is its own inverse): the flags back in vertex order.
        const __m512i f = _mm512_mask_blend_epi32(ok, _mm512_set1_epi32(SkinFlagSingular), _mm512_set1_epi32(SkinFlagNone));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(c.outFlags + v), _mm512_cvtepi32_epi8(_mm512_permutexvar_epi32(k.laneOrder, f)));
    }
}

/// A block vertex mask (bit q: vertex q) in transpose4's lane order (vertex q in lane 4 (q % 4) + q / 4), by bytes.
struct LaneMasks {
    uint16_t low[256], high[256];
};

inline constexpr LaneMasks makeLaneMasks()
{
    LaneMasks m{};
    for (int b = 0; b < 256; ++b)
        for (int q = 0; q < 8; ++q)
            if (b >> q & 1) {
                m.low[b] = uint16_t(m.low[b] | 1u << (4 * (q % 4) + q / 4));
                m.high[b] = uint16_t(m.high[b] | 1u << (4 * ((q + 8) % 4) + (q + 8) / 4));
            }
    return m;
}

inline constexpr LaneMasks kLaneMasks = makeLaneMasks();

/// The jacobian of a planned block (WeightGradients' block plan, slots [s0, s1)), one vertex per lane: A blended per
/// vertex and transposed like dqBlockSoa's stretches; then per slot q = M_j p for all sixteen vertices (twelve
/// broadcasts of the joint's matrix, nine FMAs) and J's columns gain q ∇w_j[c] in the lanes of the vertices that list
/// j (nine masked FMAs; the gradients expanded from the slot's packed floats into vertex order, then permuted to the
/// lanes). Each vertex's terms are added in slot order, where the per-vertex path adds them in its list's order: the
/// same terms, rounded in another order. Then cof(J) n, J t and A p as plain FMAs per lane.
///
/// Folded (kFold: WeightGradients::blockFolded, the block's slots hold every weighted joint of its vertices), A is not
/// blended per vertex beforehand: each slot also adds w_j R_j to J's columns and w_j q to the position (twelve more
/// masked FMAs; the weights from slotWeights like the gradients), so a block costs no per-vertex blend, no transposes
/// and no joint or weight loads. A's terms are then summed in slot order, interleaved with the gradient terms, where
/// the scalar path sums A per influence first: the same terms, rounded in another order (within the tolerances the
/// kernels are held to). Timing probe on an Ice Lake Xeon: x1.27 at 100k, x1.23 at 1M.
template <int K, bool kTangents, bool kPositions, bool kFold>
RS_INLINE void jacobianBlockSoa(const Context& c, size_t v, uint32_t s0, uint32_t s1, BlockOut& out)
{
    const Constants& k = c.k;
    Soa3 col[4];
    const Soa3 p = loadSoa3(k, c.inP + 3 * v);
    if constexpr (kFold) {
        const __m512 zero = _mm512_setzero_ps();
        for (Soa3& x : col)
            x = {zero, zero, zero};
    } else {
        blendBlockSoa<K, kPositions ? 4 : 3>(c.pal, c.joints + K * v, c.weights + K * v, col);
        if constexpr (kPositions)
            packSoa3(k, combineSoa(col[0], col[1], col[2], p) + col[3], out.p);
    }
    const float* d = c.slotGradients + c.blockData[v / 16];
    [[maybe_unused]] const float* dw = kFold ? c.slotWeights + c.blockData[v / 16] / 3 : nullptr;
    // In a register: an expand whose source is memory runs about ten times slower on Intel (Sapphire Rapids; measured:
    // three a slot took 40% of the kernel), and GCC folds a load of a constant into it.
    __m512i iota = _mm512_load_si512(k.iota);
    __asm__("" : "+v"(iota));
    for (uint32_t s = s0; s < s1; ++s) {
        const uint32_t slot = c.slotEntries[s];
        const float* m = c.pal[slot & 0xFFFFu].m;
        const auto vertices = __mmask16(slot >> 16);
        const auto lanes = __mmask16(kLaneMasks.low[vertices & 0xFFu] | kLaneMasks.high[vertices >> 8]);
        const int count = __builtin_popcount(vertices);
        auto row = [&](int r) RS_INLINE_LAMBDA {
            return _mm512_fmadd_ps(_mm512_set1_ps(m[8 + r]), p.z,
                                   _mm512_fmadd_ps(_mm512_set1_ps(m[4 + r]), p.y,
                                                   _mm512_fmadd_ps(_mm512_set1_ps(m[r]), p.x, _mm512_set1_ps(m[12 + r]))));
        };
        const Soa3 q{row(0), row(1), row(2)};
        // Lane l's vertex's place among the slot's vertices: the gradients are three plain loads and a permute each.
        const __m512i place = _mm512_permutexvar_epi32(k.laneOrder, _mm512_maskz_expand_epi32(vertices, iota));
        if constexpr (kFold) {
            const __m512 w = _mm512_permutexvar_ps(place, _mm512_loadu_ps(dw));
            dw += count;
            for (int i = 0; i < 3; ++i) {
                col[i].x = _mm512_mask3_fmadd_ps(_mm512_set1_ps(m[4 * i]), w, col[i].x, lanes);
                col[i].y = _mm512_mask3_fmadd_ps(_mm512_set1_ps(m[4 * i + 1]), w, col[i].y, lanes);
                col[i].z = _mm512_mask3_fmadd_ps(_mm512_set1_ps(m[4 * i + 2]), w, col[i].z, lanes);
            }
            if constexpr (kPositions) {
                col[3].x = _mm512_mask3_fmadd_ps(q.x, w, col[3].x, lanes);
                col[3].y = _mm512_mask3_fmadd_ps(q.y, w, col[3].y, lanes);
                col[3].z = _mm512_mask3_fmadd_ps(q.z, w, col[3].z, lanes);
            }
        }
        for (int i = 0; i < 3; ++i) {
            const __m512 g = _mm512_permutexvar_ps(place, _mm512_loadu_ps(d + i * count));
            col[i].x = _mm512_mask3_fmadd_ps(q.x, g, col[i].x, lanes);
            col[i].y = _mm512_mask3_fmadd_ps(q.y, g, col[i].y, lanes);
            col[i].z = _mm512_mask3_fmadd_ps(q.z, g, col[i].z, lanes);
        }
        d += 3 * count;
    }
    if constexpr (kFold && kPositions)
        packSoa3(k, col[3], out.p);
    // cof(J) n = n.x (J1 x J2) + n.y (J2 x J0) + n.z (J0 x J1).
    const Soa3 n = loadSoa3(k, c.inN + 3 * v);
    packSoa3(k, normalizeSoa(combineSoa(crossSoa(col[1], col[2]), crossSoa(col[2], col[0]), crossSoa(col[0], col[1]), n)),
             out.n);
    if constexpr (kTangents) {
        __m512 tw;
        const Soa3 tin = loadTangentsSoa(c.inT + 4 * v, tw);
        packTangentsSoa(normalizeSoa(combineSoa(col[0], col[1], col[2], tin)), tw, out.t);
    }
    if (c.outFlags)
        std::memset(c.outFlags + v, SkinFlagNone, 16);
}

template <Method M, int K, bool kTangents, bool kPositions, int G>
RS_INLINE bool skinGroup(const Context& c, size_t v0, const __m512 (&ip)[3], const __m512 (&in)[3], const __m512 (&it)[4],
                         GroupOut& o)
{
    const Constants& k = c.k;
    const size_t v = v0 + 4 * G;
    const uint16_t* j = c.joints + K * v;
    const float* w = c.weights + K * v;
    const Spread<G> n(k, in);
    __m512 tx, ty, tz;
    if constexpr (kTangents) {
        tx = _mm512_permutexvar_ps(k.spread4[0], it[G]);
        ty = _mm512_permutexvar_ps(k.spread4[1], it[G]);
        tz = _mm512_permutexvar_ps(k.spread4[2], it[G]);
    }
    const __m512 zero = _mm512_setzero_ps();
    o.t = zero;

    static_assert(M != Method::DualQuaternion, "dual quaternions: dqBlockSoa");
    if constexpr (M == Method::Jacobian) {
        // J = A + Σ_g (M_g p) ∇w_gᵀ: column c of J is A's plus B_c p, with B_c = Σ_g ∇w_g[c] M_g blended per vertex
        // like a palette matrix (three FMAs per gradient term, no reduction inside the loop); the four vertices' B_c
        // are then transposed and applied to p as the blended matrices are.
        // The four vertices' terms interleaved, term k of each per step (twelve independent FMA chains instead of
        // three, and one loop whose length is the group's longest list instead of four data-dependent ones); past
        // a vertex's last term its accumulators are left as they are (masked FMAs: palette entry 0 is read, and
        // whatever it holds adds nothing).
        __m512 b[3][4];
        uint32_t begin[4], count[4], longest = 0;
        for (int q = 0; q < 4; ++q) {
            b[0][q] = b[1][q] = b[2][q] = zero;
            begin[q] = c.gradOffsets[v + size_t(q)];
            count[q] = c.gradOffsets[v + size_t(q) + 1] - begin[q];
            longest = std::max(longest, count[q]);
        }
        static constexpr float kNoGradient[3] = {0.0f, 0.0f, 0.0f};
        for (uint32_t t = 0; t < longest; ++t)
            for (int q = 0; q < 4; ++q) {
                const bool has = t < count[q];
                const __mmask16 on = has ? 0xFFFF : 0;
                const uint32_t g = begin[q] + (has ? t : 0);
                const __m512 m = _mm512_load_ps(c.pal[has ? c.gradJoints[g] : 0].m);
                const float* gr = has ? c.gradients + 3 * size_t(g) : kNoGradient;
                b[0][q] = _mm512_mask3_fmadd_ps(m, _mm512_set1_ps(gr[0]), b[0][q], on);
                b[1][q] = _mm512_mask3_fmadd_ps(m, _mm512_set1_ps(gr[1]), b[1][q], on);
                b[2][q] = _mm512_mask3_fmadd_ps(m, _mm512_set1_ps(gr[2]), b[2][q], on);
            }
        const Columns a = blendGroup<K>(c.pal, j, w);
        const Spread<G> p(k, ip); // loaded even when positions are not written: J needs them
        Columns J = a;
        for (int col = 0; col < 3; ++col) {
            const Columns bc = transpose(b[col][0], b[col][1], b[col][2], b[col][3]);
            J.x[col] = _mm512_add_ps(J.x[col], _mm512_add_ps(bc.dir(p.x, p.y, p.z), bc.x[3]));
        }
        if constexpr (kPositions)
            o.p = _mm512_add_ps(a.dir(p.x, p.y, p.z), a.x[3]);
        o.n = J.cofactorTimes(n.x, n.y, n.z);
        if constexpr (kTangents)
            o.t = J.dir(tx, ty, tz);
        normalizePair(o.n, o.t);
        return true;
    } else {
        static_assert(M == Method::BlendInverseTranspose, "cofactor and inverse-transpose: normalBlockSoa");
        Columns a, it3;
        blendGroup2<K>(c.pal, c.tables.inverseTranspose, j, w, a, it3);
        if constexpr (kPositions) {
            const Spread<G> p(k, ip);
            o.p = _mm512_add_ps(a.dir(p.x, p.y, p.z), a.x[3]);
        }
        if constexpr (kTangents)
            o.t = a.dir(tx, ty, tz);
        o.n = it3.dir(n.x, n.y, n.z);
        normalizePair(o.n, o.t);
        return true;
    }
}

/// The block of every other method: four groups, then the packed stores.
template <Method M, int K, bool kTangents, bool kPositions>
RS_INLINE bool skinGroups(const Context& c, size_t v, BlockOut& out)
{
    __m512 ip[3], in[3], it[4];
    if constexpr (kPositions || M == Method::Jacobian)
        for (int z = 0; z < 3; ++z)
            ip[z] = _mm512_loadu_ps(c.inP + 3 * v + 16 * z);
    for (int z = 0; z < 3; ++z)
        in[z] = _mm512_loadu_ps(c.inN + 3 * v + 16 * z);
    if constexpr (kTangents)
        for (int g = 0; g < 4; ++g)
            it[g] = _mm512_loadu_ps(c.inT + 4 * v + 16 * g);

    GroupOut o[4];
    if (!skinGroup<M, K, kTangents, kPositions, 0>(c, v, ip, in, it, o[0]) ||
        !skinGroup<M, K, kTangents, kPositions, 1>(c, v, ip, in, it, o[1]) ||
        !skinGroup<M, K, kTangents, kPositions, 2>(c, v, ip, in, it, o[2]) ||
        !skinGroup<M, K, kTangents, kPositions, 3>(c, v, ip, in, it, o[3]))
        return false;

    const Constants& k = c.k;
    for (int z = 0; z < 3; ++z) {
        if constexpr (kPositions)
            out.p[z] = _mm512_permutex2var_ps(o[z].p, k.pack[z], o[z + 1].p);
        out.n[z] = _mm512_permutex2var_ps(o[z].n, k.pack[z], o[z + 1].n);
    }
    if constexpr (kTangents)
        for (int g = 0; g < 4; ++g)
            out.t[g] = _mm512_mask_mov_ps(o[g].t, 0x8888, it[g]); // w copied
    if (c.outFlags)
        std::memset(c.outFlags + v, SkinFlagNone, 16);
    return true;
}

/// Whether a vertex of the block from v has a non-zero weight on a joint the per-vertex kernel must take
/// (Context::fallbackFlags).
template <int K>
RS_INLINE bool blockFallsBack(const Context& c, size_t v)
{
    const uint16_t* j = c.joints + K * v;
    const float* w = c.weights + K * v;
    if (c.fallbackFlags)
        for (int i = 0; i < 16 * K; ++i)
            if (w[i] != 0.0f && (c.tables.jointFlags[j[i]] & c.fallbackFlags))
                return true;
    return false;
}

template <Method M, int K, bool kTangents, bool kPositions>
RS_INLINE bool skinBlock(const Context& c, size_t v, BlockOut& out)
{
    static_assert(M != Method::DualQuaternion, "dual quaternions: dqBlocks");
    if (blockFallsBack<K>(c, v))
        return false;
    if constexpr (M == Method::Jacobian)
        if (c.blockSlots && v % 16 == 0) {
            const uint32_t s0 = c.blockSlots[v / 16];
            if (!(s0 & WeightGradients::kUnplanned)) {
                const uint32_t s1 = c.blockSlots[v / 16 + 1] & ~WeightGradients::kUnplanned;
                if (c.blockFolded && c.blockFolded[v / 16])
                    jacobianBlockSoa<K, kTangents, kPositions, true>(c, v, s0, s1, out);
                else
                    jacobianBlockSoa<K, kTangents, kPositions, false>(c, v, s0, s1, out);
                return true;
            }
        }
    if constexpr (M == Method::Cofactor || M == Method::InverseTranspose) {
        normalBlockSoa<M, K, kTangents, kPositions>(c, v, out);
        return true;
    } else {
        return skinGroups<M, K, kTangents, kPositions>(c, v, out);
    }
}

/// Where a run of whole blocks goes: each block's registers stored where they belong, or, for large jobs (`stream`),
/// whole non-temporal 64-byte lines through LineWriter from the run's first vertex (partial lines at both ends
/// masked). finish() before anything else writes past the run. The choice is a run-time flag, not another template
/// parameter: the kernels' instantiations doubled with it, and the sanitizer builds of this file with them.
template <bool kTangents, bool kPositions>
class BlockWriter {
public:
    BlockWriter(const Context& c, size_t v, bool stream)
        : m_c(c), m_stream(stream), m_p(c.outP ? c.outP + 3 * v : c.outN), m_n(c.outN + 3 * v),
          m_t(c.outT ? c.outT + 4 * v : c.outN)
    {
    }

    RS_INLINE void put(size_t v, const BlockOut& o)
    {
        if (m_stream) {
            if constexpr (kPositions)
                m_p.put(o.p);
            m_n.put(o.n);
            if constexpr (kTangents)
                m_t.put(o.t);
            return;
        }
        for (int z = 0; z < 3; ++z) {
            if constexpr (kPositions)
                _mm512_storeu_ps(m_c.outP + 3 * v + 16 * z, o.p[z]);
            _mm512_storeu_ps(m_c.outN + 3 * v + 16 * z, o.n[z]);
        }
        if constexpr (kTangents)
            for (int g = 0; g < 4; ++g)
                _mm512_storeu_ps(m_c.outT + 4 * v + 16 * g, o.t[g]);
    }

    void finish()
    {
        if (!m_stream)
            return;
        if constexpr (kPositions)
            m_p.finish();
        m_n.finish();
        if constexpr (kTangents)
            m_t.finish();
    }

private:
    const Context& m_c;
    bool m_stream;
    LineWriter<3, true> m_p, m_n;
    LineWriter<4, true> m_t;
};

/// The input prefetch of the block from v (kPrefetchBlocks ahead, inside the range).
template <Method M, int K, bool kTangents>
RS_INLINE void prefetchBlock(const Context& c, size_t v, size_t last)
{
    if (v + 16 * (kPrefetchBlocks + 1) <= last) {
        prefetchInputs16<K>(c.joints, c.weights, c.inP, c.inN, kTangents ? c.inT : nullptr, v + 16 * kPrefetchBlocks);
        if constexpr (M == Method::Jacobian)
            if (c.blockSlots) {
                prefetchGradientBlock(c.blockSlots, c.blockData, c.slotEntries, c.slotGradients, v / 16 + kPrefetchBlocks);
                if (c.slotWeights)
                    prefetchLines(c.slotWeights + c.blockData[v / 16 + kPrefetchBlocks] / 3, kSlotWeightPrefetchBytes);
            }
    }
}

/// Dual-quaternion blocks whose blends dqBlocks runs before their math (2.3 KB of DqBlend16 on the stack), as the AVX2
/// kernel's dualQuaternionBlocks: the blends' loads by joint index run ahead of the blocks' long chains. On Zen 4
/// (half-width AVX-512), against one block at a time: x1.076 at 16k, x1.068 at 100k, x1.02 at 1M (one thread; x1.01
/// on two, near the memory's bandwidth); 2 blocks x0.99-1.00 against 4, 8 x0.97-1.00, 16 no better than 8.
constexpr int kDqBlendsAhead = 4;

/// Dual-quaternion blocks from v into `out` up to the first one the per-vertex kernel must take (a flagged joint, a
/// vanishing blend) or the range's end; returns where they stopped. The blends of up to kDqBlendsAhead blocks, then
/// each block's math (the same operations as one block at a time: the same bits).
template <int K, bool kTangents, bool kPositions>
RS_INLINE size_t dqBlocks(const Context& c, size_t v, size_t last, BlockWriter<kTangents, kPositions>& out)
{
    DqBlend16 blends[kDqBlendsAhead];
    while (v + 16 <= last) {
        int n = 0;
        bool declined = false;
        for (; n < kDqBlendsAhead && v + 16 * size_t(n + 1) <= last; ++n) {
            const size_t u = v + 16 * size_t(n);
            prefetchBlock<Method::DualQuaternion, K, kTangents>(c, u, last);
            if (blockFallsBack<K>(c, u)) {
                declined = true;
                break;
            }
            dqBlendSoa<K>(c, u, blends[n]);
        }
        for (int b = 0; b < n; ++b, v += 16) {
            BlockOut o;
            if (!dqBlockSoa<K, kTangents, kPositions>(c, v, blends[b], o))
                return v;
            out.put(v, o);
        }
        if (declined)
            break;
    }
    return v;
}

template <Method M, int K, bool kTangents, bool kPositions>
inline void run(const SkinJob& job, const Context& c, size_t first, size_t last)
{
    const bool stream = outputsPassStreamingBytes(job.positions.size(), kPositions, true, kTangents);
    size_t v = first;
    if constexpr (M == Method::Jacobian)
        if (c.blockSlots && v % 16 != 0) { // the plan's blocks start at multiples of 16: the few before, per vertex
            v = std::min(last, (v + 15) / 16 * 16);
            runMethodAvx2(job, c.pal, c.tables, first, v);
        }
    while (v + 16 <= last) {
        // A run of blocks, up to the first one skinBlock declines (it goes through the per-vertex kernel).
        BlockWriter<kTangents, kPositions> out(c, v, stream);
        if constexpr (M == Method::DualQuaternion) {
            v = dqBlocks<K, kTangents, kPositions>(c, v, last, out);
        } else {
            for (; v + 16 <= last; v += 16) {
                prefetchBlock<M, K, kTangents>(c, v, last);
                BlockOut o;
                if (!skinBlock<M, K, kTangents, kPositions>(c, v, o))
                    break;
                out.put(v, o);
            }
        }
        out.finish();
        if (v + 16 <= last) {
            runMethodAvx2(job, c.pal, c.tables, v, v + 16);
            v += 16;
        }
    }
    if (v < last)
        runMethodAvx2(job, c.pal, c.tables, v, last);
    if (stream)
        _mm_sfence(); // non-temporal stores are weakly ordered: complete them before the caller signals "done"
}

template <Method M, int K>
inline void runM(const SkinJob& job, const Context& c, size_t first, size_t last)
{
    const bool tangents = c.outT != nullptr, positions = c.outP != nullptr;
    if (tangents && positions)
        run<M, K, true, true>(job, c, first, last);
    else if (tangents)
        run<M, K, true, false>(job, c, first, last);
    else if (positions)
        run<M, K, false, true>(job, c, first, last);
    else
        run<M, K, false, false>(job, c, first, last);
}

/// Method M on [first, last) of the job (K from the job). Instantiated once per method, in its own file (see the top);
/// the entry point declares the instantiations extern.
template <Method M>
void runBlocks(const SkinJob& job, const Context& c, size_t first, size_t last)
{
    if (job.influencesPerVertex == 8)
        runM<M, 8>(job, c, first, last);
    else
        runM<M, 4>(job, c, first, last);
}

extern template void runBlocks<Method::Cofactor>(const SkinJob&, const Context&, size_t, size_t);
extern template void runBlocks<Method::InverseTranspose>(const SkinJob&, const Context&, size_t, size_t);
extern template void runBlocks<Method::BlendInverseTranspose>(const SkinJob&, const Context&, size_t, size_t);
extern template void runBlocks<Method::DualQuaternion>(const SkinJob&, const Context&, size_t, size_t);
extern template void runBlocks<Method::Jacobian>(const SkinJob&, const Context&, size_t, size_t);

} // namespace rig::detail::avx512m
