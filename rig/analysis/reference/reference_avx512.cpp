// The reference's face pass and gather with AVX-512 (reference_kernels.h). Each element's work is split in two: the
// part that reads memory by index (a triangle's corners; a vertex's triangles) runs per element with 128-bit loads and
// adds — the scalar operations, component by component, in the same order; the long dependent rest (a square root and
// a division per triangle; two normalisations, a projection and the handedness per vertex) then runs for sixteen
// elements at once instead of one after the other. Between the two, rows of four floats per element become one
// register per component with in-lane 4 x 4 transposes (and back), in the order lane 4L + j <-> element 4j + L, the
// same for every register, so the lane-wise arithmetic is unaffected. The face terms go out as whole registers of
// (x y z z) rows; the indexed parts of four blocks run before their dependent parts, so that the dependent part's
// 64-byte loads of rows stored 16 bytes at a time find them in the cache (a store cannot forward to a wider load).
// Built with -ffp-contract=off: every product and sum is rounded as the scalar code rounds it, so both kernels are
// bit-identical to it.
#include "rig/deform/kernels/avx512_math.h"

#include <limits>

#include "rig/analysis/reference/reference_kernels.h"

namespace rig::detail {

namespace {

using avx512::transpose4;

constexpr int kBlock = 16;
constexpr int kBlocks = 4; ///< blocks whose indexed parts run before their dependent parts (inBlockRuns)
constexpr int kChunk = kBlock * kBlocks;
/// How far ahead of a block the face pass fetches triangle indices (reference_avx2.cpp's kIndexAhead): x1.04 at 1M,
/// x1.00 at 100k on Zen 4.
constexpr size_t kIndexAhead = 2 * kChunk;

/// glm's dot of a vec3: (x x' + y y') + z z'.
inline __m512 dot3(__m512 ax, __m512 ay, __m512 az, __m512 bx, __m512 by, __m512 bz)
{
    return _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(ax, bx), _mm512_mul_ps(ay, by)), _mm512_mul_ps(az, bz));
}

inline __mmask16 finite(__m512 x)
{
    return _mm512_cmp_ps_mask(_mm512_abs_ps(x), _mm512_set1_ps(std::numeric_limits<float>::infinity()), _CMP_LT_OQ);
}

/// safeNormalize: v (1 / sqrt(|v|²)), zero where |v|² < kZeroLength2 or is not finite.
inline void normalize3(__m512& x, __m512& y, __m512& z)
{
    const __m512 len2 = dot3(x, y, z, x, y, z);
    const __mmask16 ok = _mm512_cmp_ps_mask(len2, _mm512_set1_ps(kZeroLength2), _CMP_GE_OQ) & finite(len2);
    const __m512 r = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_sqrt_ps(len2));
    x = _mm512_maskz_mul_ps(ok, x, r);
    y = _mm512_maskz_mul_ps(ok, y, r);
    z = _mm512_maskz_mul_ps(ok, z, r);
}

/// isDefined: |v|² > 0.25 and finite.
inline __mmask16 defined3(__m512 x, __m512 y, __m512 z)
{
    const __m512 len2 = dot3(x, y, z, x, y, z);
    return _mm512_cmp_ps_mask(len2, _mm512_set1_ps(0.25f), _CMP_GT_OQ) & finite(len2);
}

/// Sixteen rows of four floats (64 floats from `rows`) as one register per component.
inline void columns(const float* rows, __m512& x, __m512& y, __m512& z, __m512& w)
{
    transpose4(_mm512_load_ps(rows), _mm512_load_ps(rows + 16), _mm512_load_ps(rows + 32), _mm512_load_ps(rows + 48), x,
               y, z, w);
}

/// Sixteen rows (x y z z) from one register per component: two unpacks and four shuffles, as reference_avx2.cpp's
/// rowsXyzz (here no faster than transpose4 with w = 0, but the rows are the same in every kernel); r[q] holds
/// elements 4q .. 4q + 3, one a 128-bit lane.
inline void rowsXyzz(__m512 x, __m512 y, __m512 z, __m512 (&r)[4])
{
    const __m512 t0 = _mm512_unpacklo_ps(x, y), t1 = _mm512_unpackhi_ps(x, y);
    r[0] = _mm512_shuffle_ps(t0, z, _MM_SHUFFLE(0, 0, 1, 0));
    r[1] = _mm512_shuffle_ps(t0, z, _MM_SHUFFLE(1, 1, 3, 2));
    r[2] = _mm512_shuffle_ps(t1, z, _MM_SHUFFLE(2, 2, 1, 0));
    r[3] = _mm512_shuffle_ps(t1, z, _MM_SHUFFLE(3, 3, 3, 2));
}

/// Sixteen face-term rows from one register per component, stored at `out` (64 floats).
inline void storeRows(__m512 x, __m512 y, __m512 z, float* out)
{
    __m512 r[4];
    rowsXyzz(x, y, z, r);
    for (int q = 0; q < 4; ++q)
        _mm512_storeu_ps(out + 16 * q, r[q]);
}

/// Sixteen triangles' pairs (reference_kernels.h's kPairFloats: normal row, tangent row) from one register per
/// component of their normal (n) and tangent (t) terms, stored at `out` (128 floats): each component's normal and
/// tangent lanes of the same elements interleaved first (128-bit lane L of a component holds elements L, 4 + L, 8 + L,
/// 12 + L: avx512::transpose4's order), then rowsXyzz of those makes two whole pairs a register, 18 shuffles in all
/// (rowsXyzz of each term, then a two-source permute for each two pairs: 20).
inline void storePairs(const __m512 (&n)[3], const __m512 (&t)[3], float* out)
{
    // Lanes (n.L0 t.L0 n.L1 t.L1), then (n.L2 t.L2 n.L3 t.L3).
    const __m512i index[2] = {_mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23),
                              _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31)};
    for (int half = 0; half < 2; ++half) {
        __m512 c[3];
        for (int k = 0; k < 3; ++k)
            c[k] = _mm512_permutex2var_ps(n[k], index[half], t[k]);
        __m512 r[4]; // r[q]: the pairs of elements 4q + 2 half and 4q + 2 half + 1
        rowsXyzz(c[0], c[1], c[2], r);
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q)
            _mm512_storeu_ps(out + kPairFloats * size_t(4 * q + 2 * half), r[q]);
    }
}

/// The dependent part of sixteen triangles' terms from their rows (e1, e2 and the UV differences d1.x d1.y d2.x
/// d2.y: dRows, or with kSource Differences the precomputed rows of triangle t on; ignored without UVs), written as
/// rows at triangle `t`.
template <UvSource kSource>
inline void faceBlock(const FaceArgs& a, size_t t, const float* e1Rows, const float* e2Rows, const float* dRows)
{
    constexpr bool kUvs = kSource != UvSource::None;
    __m512 e1x, e1y, e1z, e2x, e2y, e2z, unused;
    columns(e1Rows, e1x, e1y, e1z, unused);
    columns(e2Rows, e2x, e2y, e2z, unused);
    // glm::cross(e1, e2) and its squared length.
    const __m512 cx = _mm512_sub_ps(_mm512_mul_ps(e1y, e2z), _mm512_mul_ps(e2y, e1z));
    const __m512 cy = _mm512_sub_ps(_mm512_mul_ps(e1z, e2x), _mm512_mul_ps(e2z, e1x));
    const __m512 cz = _mm512_sub_ps(_mm512_mul_ps(e1x, e2y), _mm512_mul_ps(e2x, e1y));
    const __m512 area2 = dot3(cx, cy, cz, cx, cy, cz);
    const __mmask16 valid = _mm512_cmp_ps_mask(area2, _mm512_setzero_ps(), _CMP_GT_OQ) & finite(area2);
    const __m512 zero = _mm512_setzero_ps();
    const __m512 n[3] = {_mm512_maskz_mov_ps(valid, cx), _mm512_maskz_mov_ps(valid, cy), _mm512_maskz_mov_ps(valid, cz)};
    // Named registers, not an array: the array stayed on the stack, its masking a loop over memory.
    __m512 tx = zero, ty = zero, tz = zero, bx = zero, by = zero, bz = zero;
    if constexpr (kUvs) {
        __m512 d1x, d1y, d2x, d2y;
        if constexpr (kSource == UvSource::Differences) {
            const float* d = a.uvDifferences + 4 * t; // rows at any 16-byte boundary
            transpose4(_mm512_loadu_ps(d), _mm512_loadu_ps(d + 16), _mm512_loadu_ps(d + 32), _mm512_loadu_ps(d + 48), d1x,
                       d1y, d2x, d2y);
        } else {
            columns(dRows, d1x, d1y, d2x, d2y);
        }
        const __m512 det = _mm512_sub_ps(_mm512_mul_ps(d1x, d2y), _mm512_mul_ps(d2x, d1y));
        const __mmask16 uvOk =
            valid & _mm512_cmp_ps_mask(_mm512_abs_ps(det), _mm512_set1_ps(kMinUvDet), _CMP_GT_OQ) & finite(det);
        const __m512 w = _mm512_div_ps(_mm512_sqrt_ps(area2), det);
        // (e1 d2.y - e2 d1.y) w and (e2 d1.x - e1 d2.x) w, per component.
        auto tangent = [&](__m512 e1c, __m512 e2c) {
            return _mm512_mul_ps(_mm512_sub_ps(_mm512_mul_ps(e1c, d2y), _mm512_mul_ps(e2c, d1y)), w);
        };
        auto bitangent = [&](__m512 e1c, __m512 e2c) {
            return _mm512_mul_ps(_mm512_sub_ps(_mm512_mul_ps(e2c, d1x), _mm512_mul_ps(e1c, d2x)), w);
        };
        tx = tangent(e1x, e2x);
        ty = tangent(e1y, e2y);
        tz = tangent(e1z, e2z);
        bx = bitangent(e1x, e2x);
        by = bitangent(e1y, e2y);
        bz = bitangent(e1z, e2z);
        // The scalar test's sum, left to right.
        const __m512 sum = _mm512_add_ps(
            _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(tx, ty), tz), bx), by), bz);
        const __mmask16 keep = uvOk & finite(sum);
        tx = _mm512_maskz_mov_ps(keep, tx);
        ty = _mm512_maskz_mov_ps(keep, ty);
        tz = _mm512_maskz_mov_ps(keep, tz);
        bx = _mm512_maskz_mov_ps(keep, bx);
        by = _mm512_maskz_mov_ps(keep, by);
        bz = _mm512_maskz_mov_ps(keep, bz);
    }
    storePairs(n, {tx, ty, tz}, a.pairs + kPairFloats * t);
    storeRows(bx, by, bz, a.bitangents + 4 * t);
}

/// faceTermsAvx512 with the UVs' source fixed at compile time: the indexed loop tests nothing per triangle.
template <UvSource kSource>
void faceTermsAvx512Impl(const FaceArgs& args, size_t first, size_t last)
{
    const FaceArgs a = args; // a local copy: stores through its row pointers cannot change it

    // Rows per triangle: e1 and e2 (x y z 0), the UV differences (d1.x d1.y d2.x d2.y).
    alignas(64) float e1Rows[4 * kChunk], e2Rows[4 * kChunk], dRows[4 * kChunk];
    const float* p = reinterpret_cast<const float*>(a.positions);
    [[maybe_unused]] const double* uv = reinterpret_cast<const double*>(a.uvs);
    const size_t rest = inBlockRuns<kBlock, kBlocks>(
        first, last,
        [&](size_t t, int j) RS_INLINE_LAMBDA {
            const uint32_t* idx = a.indices + 3 * t;
            // Three floats each: the masked lane is not read, so the last vertex's load stays inside its array.
            const __m128 p0 = _mm_maskz_loadu_ps(0x7, p + 3 * size_t(idx[0]));
            _mm_store_ps(e1Rows + 4 * j, _mm_sub_ps(_mm_maskz_loadu_ps(0x7, p + 3 * size_t(idx[1])), p0));
            _mm_store_ps(e2Rows + 4 * j, _mm_sub_ps(_mm_maskz_loadu_ps(0x7, p + 3 * size_t(idx[2])), p0));
            if constexpr (kSource == UvSource::Uvs) {
                const __m128 u0 = _mm_castpd_ps(_mm_load_sd(uv + idx[0]));
                const __m128 d1 = _mm_sub_ps(_mm_castpd_ps(_mm_load_sd(uv + idx[1])), u0);
                const __m128 d2 = _mm_sub_ps(_mm_castpd_ps(_mm_load_sd(uv + idx[2])), u0);
                _mm_store_ps(dRows + 4 * j, _mm_movelh_ps(d1, d2));
            }
        },
        [&](size_t t, int r) RS_INLINE_LAMBDA {
            if (t + kIndexAhead + kBlock <= a.triangleCount) {
                prefetchLines(a.indices + 3 * (t + kIndexAhead), 12 * kBlock);
                if constexpr (kSource == UvSource::Differences) // a stream of its own, restarted at every page as well
                    prefetchLines(a.uvDifferences + 4 * (t + kIndexAhead), 16 * kBlock);
            }
            faceBlock<kSource>(a, t, e1Rows + r, e2Rows + r, dRows + r);
        });
    for (size_t t = rest; t < last; ++t)
        faceTerms(a, t);
}

} // namespace

void faceTermsAvx512(const FaceArgs& args, size_t first, size_t last)
{
    switch (uvSource(args)) {
    case UvSource::None: return faceTermsAvx512Impl<UvSource::None>(args, first, last);
    case UvSource::Uvs: return faceTermsAvx512Impl<UvSource::Uvs>(args, first, last);
    case UvSource::Differences: return faceTermsAvx512Impl<UvSource::Differences>(args, first, last);
    }
}

namespace {

/// The dependent part of K x sixteen vertices' frames from their sums (rows: 64 floats a block), written from vertex
/// `v` on; the K blocks' operations interleaved, phase by phase, as gatherFramesAvx2's blocks, so that their long
/// chains (two normalisations, a projection, the handedness) overlap.
template <int K>
inline void gatherBlocks(const GatherArgs& a, size_t v, const float* nRows, const float* tRows, const float* bRows)
{
    static const avx512::BlockLayout layout = avx512::makeBlockLayout();
    __m512 nx[K], ny[K], nz[K], unused;
#pragma GCC unroll 4
    for (int k = 0; k < K; ++k)
        columns(nRows + 64 * k, nx[k], ny[k], nz[k], unused);
#pragma GCC unroll 4
    for (int k = 0; k < K; ++k)
        normalize3(nx[k], ny[k], nz[k]);
#pragma GCC unroll 4
    for (int k = 0; k < K; ++k) {
        // The sixteen normals' 48 floats as three whole registers (exactly the block's: the next vertex may be
        // another thread's).
        __m512 r[4];
        transpose4(nx[k], ny[k], nz[k], _mm512_setzero_ps(), r[0], r[1], r[2], r[3]);
        float* on = a.normals + 3 * (v + 16 * size_t(k));
        for (int z = 0; z < 3; ++z)
            _mm512_storeu_ps(on + 16 * z, _mm512_permutex2var_ps(r[z], layout.pack[z], r[z + 1]));
    }
    if (!a.tangents)
        return;
    __m512 tx[K], ty[K], tz[K], hand[K];
    if (a.withTangents) {
        __mmask16 nOk[K];
#pragma GCC unroll 4
        for (int k = 0; k < K; ++k) {
            nOk[k] = defined3(nx[k], ny[k], nz[k]);
            __m512 sx, sy, sz;
            columns(tRows + 64 * k, sx, sy, sz, unused);
            const __m512 d = dot3(nx[k], ny[k], nz[k], sx, sy, sz);
            tx[k] = _mm512_sub_ps(sx, _mm512_mul_ps(nx[k], d));
            ty[k] = _mm512_sub_ps(sy, _mm512_mul_ps(ny[k], d));
            tz[k] = _mm512_sub_ps(sz, _mm512_mul_ps(nz[k], d));
        }
#pragma GCC unroll 4
        for (int k = 0; k < K; ++k)
            normalize3(tx[k], ty[k], tz[k]);
#pragma GCC unroll 4
        for (int k = 0; k < K; ++k) {
            __m512 bx, by, bz;
            columns(bRows + 64 * k, bx, by, bz, unused);
            // glm::cross(n, t) dotted with the bitangent sum.
            const __m512 cx = _mm512_sub_ps(_mm512_mul_ps(ny[k], tz[k]), _mm512_mul_ps(ty[k], nz[k]));
            const __m512 cy = _mm512_sub_ps(_mm512_mul_ps(nz[k], tx[k]), _mm512_mul_ps(tz[k], nx[k]));
            const __m512 cz = _mm512_sub_ps(_mm512_mul_ps(nx[k], ty[k]), _mm512_mul_ps(tx[k], ny[k]));
            const __m512 side = dot3(cx, cy, cz, bx, by, bz);
            const __mmask16 keep = nOk[k] & defined3(tx[k], ty[k], tz[k]);
            hand[k] = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(side, _mm512_setzero_ps(), _CMP_LT_OQ),
                                           _mm512_set1_ps(1.0f), _mm512_set1_ps(-1.0f));
            tx[k] = _mm512_maskz_mov_ps(keep, tx[k]);
            ty[k] = _mm512_maskz_mov_ps(keep, ty[k]);
            tz[k] = _mm512_maskz_mov_ps(keep, tz[k]);
            hand[k] = _mm512_maskz_mov_ps(keep, hand[k]);
        }
    } else {
        for (int k = 0; k < K; ++k)
            tx[k] = ty[k] = tz[k] = hand[k] = _mm512_setzero_ps();
    }
    // Tangents are rows of four already: sixteen consecutive records a block.
#pragma GCC unroll 4
    for (int k = 0; k < K; ++k) {
        __m512 r[4];
        transpose4(tx[k], ty[k], tz[k], hand[k], r[0], r[1], r[2], r[3]);
        float* ot = a.tangents + 4 * (v + 16 * size_t(k));
#pragma GCC unroll 4 // left rolled, GCC kept r on the stack and copied it out
        for (int j = 0; j < 4; ++j)
            _mm512_storeu_ps(ot + 16 * j, r[j]);
    }
}

/// gatherFramesAvx512 with whether the gather has compact lists and tangents to sum fixed at compile time (visitTerms).
template <bool kCompact, bool kTangents>
void gatherFramesAvx512Impl(const GatherArgs& args, size_t first, size_t last)
{
    const GatherArgs a = args; // a local copy: stores through its output pointers cannot change it

    // Each vertex's sums as n, t, b rows.
    alignas(64) float nRows[4 * kChunk], tRows[4 * kChunk], bRows[4 * kChunk];
    // Pairs of blocks (gatherBlocks<2>), as gatherFramesAvx2; the rest, under 32 vertices, scalar.
    const size_t rest = inBlockRuns<2 * kBlock, kBlocks / 2>(
        first, last,
        [&](size_t v, int j) RS_INLINE_LAMBDA {
            __m128 n, t, b;
            sumVertexAvx<kCompact, kTangents>(a, v, n, t, b);
            _mm_store_ps(nRows + 4 * j, n);
            _mm_store_ps(tRows + 4 * j, t);
            _mm_store_ps(bRows + 4 * j, b);
        },
        [&](size_t v, int r) RS_INLINE_LAMBDA { gatherBlocks<2>(a, v, nRows + r, tRows + r, bRows + r); });
    for (size_t v = rest; v < last; ++v)
        gatherVertex(a, v);
}

} // namespace

void gatherFramesAvx512(const GatherArgs& args, size_t first, size_t last)
{
    withFlags(args.compactBegin != nullptr, args.withTangents, [&](auto compact, auto tangents) RS_INLINE_LAMBDA {
        gatherFramesAvx512Impl<decltype(compact)::value, decltype(tangents)::value>(args, first, last);
    });
}

} // namespace rig::detail
