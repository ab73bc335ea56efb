// Method::Linear, AVX-512 (F + DQ + BW + VL). Compiled with those flags only; called only when the CPU and the OS
// support them (see cpuHasAvx512), through a dispatch resolved once.
//
// Layout of the work: 16 vertices per block, 4 groups of 4 vertices. Per vertex the blended 3x4 matrix is one zmm
// (K FMAs on 64-byte palette lines, the weight broadcast from memory). A group's four matrices are transposed into
// X_c = (column c of vertex 0 | ... | column c of vertex 3), so that positions, normals and tangents of four vertices
// are three FMAs each against per-lane broadcasts of the inputs (one permute each, straight from the block's loads).
// Normal and tangent lengths are reduced together and normalised with one rsqrt14 + Newton step. Outputs are
// repacked to the arrays' 12- and 16-byte strides and written as whole, aligned 64-byte lines (non-temporal for large
// jobs); only the first and last line of a range are partial, written with masked stores — nothing outside
// [first, last) is touched. Inputs are prefetched 8 blocks ahead. No allocation, no call per vertex.

#include <cstdint>
#include <cstring>

#include "rig/deform/kernels/avx512_math.h"
#include "rig/deform/kernels/skinning_internal.h"
#include "rig/model/math.h"

namespace rig::detail {

namespace {

using namespace avx512;

using Constants = BlockLayout;

const Constants& constants()
{
    static const Constants k = makeBlockLayout();
    return k;
}

struct Block {
    __m512 p[3], n[3], t[4]; // positions, normals (12-byte stride), tangents (16-byte stride) of 16 vertices
};

// The blended matrices of group G's four vertices, transposed: x[c] = (column c of vertex 4G | ... | 4G + 3).
template <int G, int K>
RS_INLINE void blendGroup(const PaletteMatrix* pal, const uint16_t* j, const float* w, __m512 (&x)[4])
{
    constexpr int v = 4 * G;
    const __m512 a0 = blendMatrix<K>(pal, j + K * (v + 0), w + K * (v + 0));
    const __m512 a1 = blendMatrix<K>(pal, j + K * (v + 1), w + K * (v + 1));
    const __m512 a2 = blendMatrix<K>(pal, j + K * (v + 2), w + K * (v + 2));
    const __m512 a3 = blendMatrix<K>(pal, j + K * (v + 3), w + K * (v + 3));
    const __m512 t0 = _mm512_shuffle_f32x4(a0, a1, _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 t1 = _mm512_shuffle_f32x4(a0, a1, _MM_SHUFFLE(3, 2, 3, 2));
    const __m512 t2 = _mm512_shuffle_f32x4(a2, a3, _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 t3 = _mm512_shuffle_f32x4(a2, a3, _MM_SHUFFLE(3, 2, 3, 2));
    x[0] = _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(2, 0, 2, 0));
    x[1] = _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(3, 1, 3, 1));
    x[2] = _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(2, 0, 2, 0));
    x[3] = _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(3, 1, 3, 1));
}

// Group G's four positions from the block's 3-float position registers: x0 p.x + x1 p.y + x2 p.z + x3.
template <int G>
RS_INLINE __m512 groupPoints(const Constants& k, const __m512 (&x)[4], const __m512 (&ip)[3])
{
    return _mm512_fmadd_ps(x[2], spread3<G>(ip, k.spread3[G][2]),
                           _mm512_fmadd_ps(x[1], spread3<G>(ip, k.spread3[G][1]),
                                           _mm512_fmadd_ps(x[0], spread3<G>(ip, k.spread3[G][0]), x[3])));
}

template <int G, int K, bool kTangents>
RS_INLINE void skinGroup(const Constants& k, const PaletteMatrix* pal, const uint16_t* j, const float* w,
                      const __m512 (&ip)[3], const __m512 (&in)[3], const __m512 (&it)[4], __m512& op, __m512& on,
                      __m512& ot)
{
    __m512 x[4];
    blendGroup<G, K>(pal, j, w, x);
    const __m512 x0 = x[0], x1 = x[1], x2 = x[2];
    op = groupPoints<G>(k, x, ip);
    on = _mm512_fmadd_ps(x2, spread3<G>(in, k.spread3[G][2]),
                         _mm512_fmadd_ps(x1, spread3<G>(in, k.spread3[G][1]),
                                         _mm512_mul_ps(x0, spread3<G>(in, k.spread3[G][0]))));
    if constexpr (kTangents) {
        const __m512 tin = it[G];
        ot = _mm512_fmadd_ps(x2, _mm512_permutexvar_ps(k.spread4[2], tin),
                             _mm512_fmadd_ps(x1, _mm512_permutexvar_ps(k.spread4[1], tin),
                                             _mm512_mul_ps(x0, _mm512_permutexvar_ps(k.spread4[0], tin))));
        normalizePair(on, ot);
        ot = _mm512_mask_mov_ps(ot, 0x8888, tin); // w copied from the input
    } else {
        __m512 unused = _mm512_setzero_ps();
        normalizePair(on, unused);
    }
}

// Skins the 16 vertices at j/w/p/n/t (K joints and weights, 3 + 3 (+ 4) floats per vertex).
template <int K, bool kTangents>
RS_INLINE void skinBlock(const Constants& k, const PaletteMatrix* pal, const uint16_t* j, const float* w, const float* p,
                      const float* n, const float* t, Block& o)
{
    const __m512 ip[3] = {_mm512_loadu_ps(p), _mm512_loadu_ps(p + 16), _mm512_loadu_ps(p + 32)};
    const __m512 in[3] = {_mm512_loadu_ps(n), _mm512_loadu_ps(n + 16), _mm512_loadu_ps(n + 32)};
    __m512 it[4];
    if constexpr (kTangents)
        for (int g = 0; g < 4; ++g)
            it[g] = _mm512_loadu_ps(t + 16 * g);
    __m512 qp[4], qn[4];
    skinGroup<0, K, kTangents>(k, pal, j, w, ip, in, it, qp[0], qn[0], o.t[0]);
    skinGroup<1, K, kTangents>(k, pal, j, w, ip, in, it, qp[1], qn[1], o.t[1]);
    skinGroup<2, K, kTangents>(k, pal, j, w, ip, in, it, qp[2], qn[2], o.t[2]);
    skinGroup<3, K, kTangents>(k, pal, j, w, ip, in, it, qp[3], qn[3], o.t[3]);
    for (int z = 0; z < 3; ++z) {
        o.p[z] = _mm512_permutex2var_ps(qp[z], k.pack[z], qp[z + 1]);
        o.n[z] = _mm512_permutex2var_ps(qn[z], k.pack[z], qn[z + 1]);
    }
}

template <int K, bool kTangents, bool kStream>
void run(const SkinJob& job, const PaletteMatrix* pal, size_t first, size_t last)
{
    const Constants& k = constants();
    const uint16_t* joints = job.joints.data();
    const float* weights = job.weights.data();
    const float* inP = &job.positions.data()->x;
    const float* inN = &job.normals.data()->x;
    const float* inT = kTangents ? &job.tangents.data()->x : nullptr;
    float* outP = &job.outPositions.data()->x;
    float* outN = &job.outNormals.data()->x;
    float* outT = kTangents ? &job.outTangents.data()->x : nullptr;

    LineWriter<3, kStream> wp(outP + 3 * first);
    LineWriter<3, kStream> wn(outN + 3 * first);
    LineWriter<4, kStream> wt(kTangents ? outT + 4 * first : outP);
    size_t v = first;
    Block o;
    for (; v + 16 <= last; v += 16) {
        if (v + 16 * (kPrefetchBlocks + 1) <= last)
            prefetchInputs16<K>(joints, weights, inP, inN, kTangents ? inT : nullptr, v + 16 * kPrefetchBlocks);
        skinBlock<K, kTangents>(k, pal, joints + K * v, weights + K * v, inP + 3 * v, inN + 3 * v,
                                kTangents ? inT + 4 * v : nullptr, o);
        wp.put(o.p);
        wn.put(o.n);
        if constexpr (kTangents)
            wt.put(o.t);
    }
    wp.finish();
    wn.finish();
    if constexpr (kTangents)
        wt.finish();

    if (v < last) {
        // The last < 16 vertices: through a zero-padded copy (joint 0, weight 0), so no load or store leaves the range.
        const size_t r = last - v;
        alignas(64) uint16_t tj[16 * K] = {};
        alignas(64) float tw[16 * K] = {};
        alignas(64) float tp[48] = {}, tn[48] = {}, tt[64] = {};
        std::memcpy(tj, joints + K * v, r * K * sizeof(uint16_t));
        std::memcpy(tw, weights + K * v, r * K * sizeof(float));
        std::memcpy(tp, inP + 3 * v, r * 3 * sizeof(float));
        std::memcpy(tn, inN + 3 * v, r * 3 * sizeof(float));
        if constexpr (kTangents)
            std::memcpy(tt, inT + 4 * v, r * 4 * sizeof(float));
        skinBlock<K, kTangents>(k, pal, tj, tw, tp, tn, tt, o);
        for (int z = 0; z < 3; ++z) {
            _mm512_store_ps(tp + 16 * z, o.p[z]);
            _mm512_store_ps(tn + 16 * z, o.n[z]);
        }
        std::memcpy(outP + 3 * v, tp, r * 3 * sizeof(float));
        std::memcpy(outN + 3 * v, tn, r * 3 * sizeof(float));
        if constexpr (kTangents) {
            for (int z = 0; z < 4; ++z)
                _mm512_store_ps(tt + 16 * z, o.t[z]);
            std::memcpy(outT + 4 * v, tt, r * 4 * sizeof(float));
        }
    }
    if constexpr (kStream)
        _mm_sfence(); // non-temporal stores are weakly ordered: complete them before the caller signals "done"
}

// Positions alone (positions-only without normal and tangent outputs: ozz's positions-only job), 16 vertices a block
// as skinBlock without the frames: per group the four blended matrices transposed, three FMAs against the spread
// positions, then packed; the same lines written the same way.
template <int K>
RS_INLINE void positionsBlock(const Constants& k, const PaletteMatrix* pal, const uint16_t* j, const float* w, const float* p,
                              __m512 (&out)[3])
{
    const __m512 ip[3] = {_mm512_loadu_ps(p), _mm512_loadu_ps(p + 16), _mm512_loadu_ps(p + 32)};
    __m512 q[4];
    auto group = [&]<int G>() RS_INLINE_LAMBDA {
        __m512 x[4];
        blendGroup<G, K>(pal, j, w, x);
        q[G] = groupPoints<G>(k, x, ip);
    };
    group.template operator()<0>();
    group.template operator()<1>();
    group.template operator()<2>();
    group.template operator()<3>();
    for (int z = 0; z < 3; ++z)
        out[z] = _mm512_permutex2var_ps(q[z], k.pack[z], q[z + 1]);
}

template <int K, bool kStream>
void runPositions(const SkinJob& job, const PaletteMatrix* pal, size_t first, size_t last)
{
    const Constants& k = constants();
    const uint16_t* joints = job.joints.data();
    const float* weights = job.weights.data();
    const float* inP = reinterpret_cast<const float*>(job.positions.data());
    float* outP = reinterpret_cast<float*>(job.outPositions.data());
    LineWriter<3, kStream> wp(outP + 3 * first);
    size_t v = first;
    __m512 o[3];
    for (; v + 16 <= last; v += 16) {
        if (v + 16 * (kPrefetchBlocks + 1) <= last)
            prefetchInputs16<K>(joints, weights, inP, nullptr, nullptr, v + 16 * kPrefetchBlocks);
        positionsBlock<K>(k, pal, joints + K * v, weights + K * v, inP + 3 * v, o);
        wp.put(o);
    }
    wp.finish();
    if (v < last) {
        // The last < 16 vertices through a zero-padded copy (joint 0, weight 0), as run() does.
        const size_t r = last - v;
        alignas(64) uint16_t tj[16 * K] = {};
        alignas(64) float tw[16 * K] = {};
        alignas(64) float tp[48] = {};
        std::memcpy(tj, joints + K * v, r * K * sizeof(uint16_t));
        std::memcpy(tw, weights + K * v, r * K * sizeof(float));
        std::memcpy(tp, inP + 3 * v, r * 3 * sizeof(float));
        positionsBlock<K>(k, pal, tj, tw, tp, o);
        for (int z = 0; z < 3; ++z)
            _mm512_store_ps(tp + 16 * z, o[z]);
        std::memcpy(outP + 3 * v, tp, r * 3 * sizeof(float));
    }
    if constexpr (kStream)
        _mm_sfence();
}

template <int K>
void runK(const SkinJob& job, const PaletteMatrix* pal, size_t first, size_t last)
{
    const bool tangents = !job.tangents.empty();
    if (outputsPassStreamingBytes(job.positions.size(), true, true, tangents)) {
        if (tangents)
            run<K, true, true>(job, pal, first, last);
        else
            run<K, false, true>(job, pal, first, last);
    } else {
        if (tangents)
            run<K, true, false>(job, pal, first, last);
        else
            run<K, false, false>(job, pal, first, last);
    }
}

} // namespace

void runLinearAvx512(const SkinJob& job, const PaletteMatrix* pal, size_t first, size_t last)
{
    if (job.influencesPerVertex == 8)
        runK<8>(job, pal, first, last);
    else
        runK<4>(job, pal, first, last);
    if (!job.outFlags.empty())
        std::memset(job.outFlags.data() + first, SkinFlagNone, last - first);
}

void runPositionsAvx512(const SkinJob& job, const PaletteMatrix* pal, size_t first, size_t last)
{
    const bool stream = outputsPassStreamingBytes(job.positions.size(), true, false, false);
    if (job.influencesPerVertex == 8)
        stream ? runPositions<8, true>(job, pal, first, last) : runPositions<8, false>(job, pal, first, last);
    else
        stream ? runPositions<4, true>(job, pal, first, last) : runPositions<4, false>(job, pal, first, last);
    if (!job.outFlags.empty())
        std::memset(job.outFlags.data() + first, SkinFlagNone, last - first);
}

} // namespace rig::detail
