// The reference's face pass and gather with AVX2 (reference_kernels.h): reference_avx512.cpp's split at eight elements
// a block, for the machines without AVX-512. Per element, the indexed part with 128-bit loads and adds or
// subtractions (the face pass's edges of two elements in one 256-bit subtraction where their corners load whole: the
// scalar operations, component by component, in the same order); the dependent rest eight at a time (the gather's two
// blocks at once, interleaved: its chain is long for eight lanes — x1.06 on Zen 4, where the face pass's and the
// AVX-512 gather's pairs gained nothing); between them the in-lane 4 x 4 transpose of element pairs
// (avx2::transpose4: lane 4L + j <-> element 2j + L). Built with -ffp-contract=off: bit-identical to the scalar
// kernels.
#include <immintrin.h>

#include <limits>

#include "rig/analysis/reference/reference_kernels.h"
#include "rig/deform/kernels/avx2_math.h"

namespace rig::detail {

namespace {

using avx2::load3;
using avx2::transpose4;

constexpr int kBlock = 8;
constexpr int kBlocks = 8; ///< blocks whose indexed parts run before their dependent parts (inBlockRuns)
constexpr int kChunk = kBlock * kBlocks;
/// How far ahead of a run the face pass fetches triangle indices (two runs, 1.5 KB): the hardware's stream prefetch
/// restarts at every 4 KB page of them, and a run's first loads (the last-vertex test) waited for memory at 1M
/// vertices: x1.056 at 1M, x1.01 at 100k on Zen 4 (one run ahead x1.05, four x1.05).
constexpr size_t kIndexAhead = 2 * kChunk;

/// glm's dot of a vec3: (x x' + y y') + z z'.
inline __m256 dot3(__m256 ax, __m256 ay, __m256 az, __m256 bx, __m256 by, __m256 bz)
{
    return _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(ax, bx), _mm256_mul_ps(ay, by)), _mm256_mul_ps(az, bz));
}

inline __m256 absolute(__m256 x) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x); }

/// All ones where |x| is finite.
inline __m256 finite(__m256 x)
{
    return _mm256_cmp_ps(absolute(x), _mm256_set1_ps(std::numeric_limits<float>::infinity()), _CMP_LT_OQ);
}

/// safeNormalize: v (1 / sqrt(|v|²)), zero where |v|² < kZeroLength2 or is not finite.
inline void normalize3(__m256& x, __m256& y, __m256& z)
{
    const __m256 len2 = dot3(x, y, z, x, y, z);
    const __m256 ok = _mm256_and_ps(_mm256_cmp_ps(len2, _mm256_set1_ps(kZeroLength2), _CMP_GE_OQ), finite(len2));
    const __m256 r = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(len2));
    x = _mm256_and_ps(_mm256_mul_ps(x, r), ok);
    y = _mm256_and_ps(_mm256_mul_ps(y, r), ok);
    z = _mm256_and_ps(_mm256_mul_ps(z, r), ok);
}

/// isDefined: |v|² > 0.25 and finite (all ones where so).
inline __m256 defined3(__m256 x, __m256 y, __m256 z)
{
    const __m256 len2 = dot3(x, y, z, x, y, z);
    return _mm256_and_ps(_mm256_cmp_ps(len2, _mm256_set1_ps(0.25f), _CMP_GT_OQ), finite(len2));
}

/// Eight rows of four floats (32 floats from `rows`, 32-byte aligned) as one register per component.
inline void columns(const float* rows, __m256& x, __m256& y, __m256& z, __m256& w)
{
    transpose4(_mm256_load_ps(rows), _mm256_load_ps(rows + 8), _mm256_load_ps(rows + 16), _mm256_load_ps(rows + 24), x,
               y, z, w);
}

/// columns of rows at any 16-byte boundary (the UV differences' rows from a triangle of the call's range).
inline void columnsUnaligned(const float* rows, __m256& x, __m256& y, __m256& z, __m256& w)
{
    transpose4(_mm256_loadu_ps(rows), _mm256_loadu_ps(rows + 8), _mm256_loadu_ps(rows + 16), _mm256_loadu_ps(rows + 24),
               x, y, z, w);
}

/// Eight rows of (x y z z) from one register per component (r[j]: element 2j | element 2j + 1; avx2::transpose4's
/// order): w a copy of z, so that two unpacks and four shuffles make them, not transpose4's eight.
inline void rowsXyzz(__m256 x, __m256 y, __m256 z, __m256 (&r)[4])
{
    const __m256 t0 = _mm256_unpacklo_ps(x, y), t1 = _mm256_unpackhi_ps(x, y); // per lane: x0 y0 x1 y1, x2 y2 x3 y3
    r[0] = _mm256_shuffle_ps(t0, z, _MM_SHUFFLE(0, 0, 1, 0));
    r[1] = _mm256_shuffle_ps(t0, z, _MM_SHUFFLE(1, 1, 3, 2));
    r[2] = _mm256_shuffle_ps(t1, z, _MM_SHUFFLE(2, 2, 1, 0));
    r[3] = _mm256_shuffle_ps(t1, z, _MM_SHUFFLE(3, 3, 3, 2));
}

/// Eight face-term rows (x y z z: reference.h's ReferenceScratch) from one register per component, stored at `out`
/// (32 floats). x1.016 on the AVX2 rebuild at 100k on Zen 4 over transpose4 with w = 0; w = 0 by four blends after
/// rowsXyzz: x0.975.
inline void storeRows(__m256 x, __m256 y, __m256 z, float* out)
{
    __m256 r[4];
    rowsXyzz(x, y, z, r);
    for (int j = 0; j < 4; ++j)
        _mm256_storeu_ps(out + 8 * j, r[j]);
}

/// Eight triangles' pairs (reference_kernels.h's kPairFloats: normal row, tangent row) from one register per
/// component of their normal (n) and tangent (t) terms, stored at `out` (64 floats): each component's normal and
/// tangent lanes of the same elements side by side first (lane L of a component holds elements L, 2 + L, 4 + L,
/// 6 + L: avx2::transpose4's order), then rowsXyzz of those makes whole pairs, 18 shuffles in all (rowsXyzz of each
/// term, then a lane permute a pair: 20).
inline void storePairs(const __m256 (&n)[3], const __m256 (&t)[3], float* out)
{
    for (int lane = 0; lane < 2; ++lane) {
        __m256 c[3];
        for (int k = 0; k < 3; ++k)
            c[k] = lane == 0 ? _mm256_permute2f128_ps(n[k], t[k], 0x20) : _mm256_permute2f128_ps(n[k], t[k], 0x31);
        __m256 r[4]; // r[j]: element 2j + lane's pair
        rowsXyzz(c[0], c[1], c[2], r);
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j)
            _mm256_storeu_ps(out + kPairFloats * size_t(2 * j + lane), r[j]);
    }
}

/// Eight vertices' normals (24 floats, exactly: the next vertex may be another thread's) from one register per
/// component, as three whole stores (six permutes and three blends) instead of four extracts and eight masked 3-float
/// stores (vmaskmovps to memory, microcoded on older AMD cores).
inline void storeNormals(__m256 x, __m256 y, __m256 z, float* out)
{
    __m256 r[4]; // r[j]: (element 2j x y z z | element 2j + 1 x y z z)
    rowsXyzz(x, y, z, r);
    auto pick = [](__m256 v, int i0, int i1, int i2, int i3, int i4, int i5, int i6, int i7) {
        return _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(i0, i1, i2, i3, i4, i5, i6, i7));
    };
    // 0x 0y 0z 1x 1y 1z 2x 2y | 2z 3x 3y 3z 4x 4y 4z 5x | 5y 5z 6x 6y 6z 7x 7y 7z (the unused picks are 0).
    _mm256_storeu_ps(out, _mm256_blend_ps(pick(r[0], 0, 1, 2, 4, 5, 6, 0, 0), pick(r[1], 0, 0, 0, 0, 0, 0, 0, 1), 0xC0));
    _mm256_storeu_ps(out + 8, _mm256_blend_ps(pick(r[1], 2, 4, 5, 6, 0, 0, 0, 0), pick(r[2], 0, 0, 0, 0, 0, 1, 2, 4), 0xF0));
    _mm256_storeu_ps(out + 16, _mm256_blend_ps(pick(r[3], 0, 0, 0, 1, 2, 4, 5, 6), pick(r[2], 5, 6, 0, 0, 0, 0, 0, 0), 0x03));
}

/// The dependent part of eight triangles' terms from their rows (e1, e2 and the UV differences d1.x d1.y d2.x d2.y:
/// dRows, or with kSource Differences the precomputed rows of triangle t on; ignored without UVs), written as rows at
/// triangle `t`.
template <UvSource kSource>
inline void faceBlock(const FaceArgs& a, size_t t, const float* e1Rows, const float* e2Rows, const float* dRows)
{
    constexpr bool kUvs = kSource != UvSource::None;
    const __m256 zero = _mm256_setzero_ps();
    __m256 e1x, e1y, e1z, e2x, e2y, e2z, unused;
    columns(e1Rows, e1x, e1y, e1z, unused);
    columns(e2Rows, e2x, e2y, e2z, unused);
    // glm::cross(e1, e2) and its squared length.
    const __m256 cx = _mm256_sub_ps(_mm256_mul_ps(e1y, e2z), _mm256_mul_ps(e2y, e1z));
    const __m256 cy = _mm256_sub_ps(_mm256_mul_ps(e1z, e2x), _mm256_mul_ps(e2z, e1x));
    const __m256 cz = _mm256_sub_ps(_mm256_mul_ps(e1x, e2y), _mm256_mul_ps(e2x, e1y));
    const __m256 area2 = dot3(cx, cy, cz, cx, cy, cz);
    const __m256 valid = _mm256_and_ps(_mm256_cmp_ps(area2, zero, _CMP_GT_OQ), finite(area2));
    const __m256 n[3] = {_mm256_and_ps(cx, valid), _mm256_and_ps(cy, valid), _mm256_and_ps(cz, valid)};
    // Named registers, not an array (reference_avx512.cpp's faceBlock).
    __m256 tx = zero, ty = zero, tz = zero, bx = zero, by = zero, bz = zero;
    if constexpr (kUvs) {
        __m256 d1x, d1y, d2x, d2y;
        if constexpr (kSource == UvSource::Differences)
            columnsUnaligned(a.uvDifferences + 4 * t, d1x, d1y, d2x, d2y);
        else
            columns(dRows, d1x, d1y, d2x, d2y);
        const __m256 det = _mm256_sub_ps(_mm256_mul_ps(d1x, d2y), _mm256_mul_ps(d2x, d1y));
        const __m256 uvOk = _mm256_and_ps(
            _mm256_and_ps(valid, _mm256_cmp_ps(absolute(det), _mm256_set1_ps(kMinUvDet), _CMP_GT_OQ)), finite(det));
        const __m256 w = _mm256_div_ps(_mm256_sqrt_ps(area2), det);
        // (e1 d2.y - e2 d1.y) w and (e2 d1.x - e1 d2.x) w, per component.
        auto tangent = [&](__m256 e1c, __m256 e2c) {
            return _mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(e1c, d2y), _mm256_mul_ps(e2c, d1y)), w);
        };
        auto bitangent = [&](__m256 e1c, __m256 e2c) {
            return _mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(e2c, d1x), _mm256_mul_ps(e1c, d2x)), w);
        };
        tx = tangent(e1x, e2x);
        ty = tangent(e1y, e2y);
        tz = tangent(e1z, e2z);
        bx = bitangent(e1x, e2x);
        by = bitangent(e1y, e2y);
        bz = bitangent(e1z, e2z);
        // The scalar test's sum, left to right.
        const __m256 sum = _mm256_add_ps(
            _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(tx, ty), tz), bx), by), bz);
        const __m256 keep = _mm256_and_ps(uvOk, finite(sum));
        tx = _mm256_and_ps(tx, keep);
        ty = _mm256_and_ps(ty, keep);
        tz = _mm256_and_ps(tz, keep);
        bx = _mm256_and_ps(bx, keep);
        by = _mm256_and_ps(by, keep);
        bz = _mm256_and_ps(bz, keep);
    }
    storePairs(n, {tx, ty, tz}, a.pairs + kPairFloats * t);
    storeRows(bx, by, bz, a.bitangents + 4 * t);
}

/// faceTermsAvx2 with the UVs' source fixed at compile time: the indexed loop tests nothing per triangle.
template <UvSource kSource>
void faceTermsAvx2Impl(const FaceArgs& args, size_t first, size_t last)
{
    const FaceArgs a = args; // a local copy: stores through its row pointers cannot change it

    // Rows per triangle: e1 and e2 (x y z, w unused), the UV differences (d1.x d1.y d2.x d2.y).
    alignas(32) float e1Rows[4 * kChunk], e2Rows[4 * kChunk], dRows[4 * kChunk];
    const float* p = reinterpret_cast<const float*>(a.positions);
    [[maybe_unused]] const double* uv = reinterpret_cast<const double*>(a.uvs);
    // The corners' positions as whole 16-byte loads (one instruction, not three; the fourth float, the next vertex's
    // x, lands in the rows' w, which faceBlock never reads) for the runs with no corner on the mesh's last vertex, whose
    // next float may be past the array; exactly otherwise, and where the vertex count is not known.
    const uint32_t lastVertex = a.vertexCount ? uint32_t(a.vertexCount - 1) : 0;
    const __m256i lastVertex8 = _mm256_set1_epi32(int(lastVertex));
    auto uvRow = [&](const uint32_t* idx, int j) RS_INLINE_LAMBDA { // triangle j's UV differences from its UVs
        const __m128 u0 = _mm_castpd_ps(_mm_load_sd(uv + idx[0]));
        const __m128 d1 = _mm_sub_ps(_mm_castpd_ps(_mm_load_sd(uv + idx[1])), u0);
        const __m128 d2 = _mm_sub_ps(_mm_castpd_ps(_mm_load_sd(uv + idx[2])), u0);
        _mm_store_ps(dRows + 4 * j, _mm_movelh_ps(d1, d2));
    };
    auto corners = [&](size_t t, int j) RS_INLINE_LAMBDA { // exact loads, one triangle
        const uint32_t* idx = a.indices + 3 * t;
        const __m128 p0 = load3(p + 3 * size_t(idx[0]));
        _mm_store_ps(e1Rows + 4 * j, _mm_sub_ps(load3(p + 3 * size_t(idx[1])), p0));
        _mm_store_ps(e2Rows + 4 * j, _mm_sub_ps(load3(p + 3 * size_t(idx[2])), p0));
        if constexpr (kSource == UvSource::Uvs)
            uvRow(idx, j);
    };
    // Whole loads, two triangles at once (j even): each corner of both in one register, the second's in the upper
    // half, so that their edges take one 256-bit subtraction and store where two triangles took two 128-bit ones each
    // (x1.007-1.011 on Zen 4); the rows land where corners() puts them (32-byte aligned).
    auto cornerPair = [&](size_t t, int j) RS_INLINE_LAMBDA {
        const uint32_t* idx = a.indices + 3 * t;
        auto both = [&](int c) RS_INLINE_LAMBDA { // corner c of both triangles
            return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p + 3 * size_t(idx[c]))),
                                        _mm_loadu_ps(p + 3 * size_t(idx[3 + c])), 1);
        };
        const __m256 p0 = both(0);
        _mm256_store_ps(e1Rows + 4 * j, _mm256_sub_ps(both(1), p0));
        _mm256_store_ps(e2Rows + 4 * j, _mm256_sub_ps(both(2), p0));
        if constexpr (kSource == UvSource::Uvs) {
            uvRow(idx, j);
            uvRow(idx + 3, j + 1);
        }
    };
    const size_t rest = inBlockRunsOf<kBlock, kBlocks>(
        first, last,
        [&](size_t e, int count) RS_INLINE_LAMBDA {
            if (e + kIndexAhead + size_t(count) <= a.triangleCount) {
                prefetchLines(a.indices + 3 * (e + kIndexAhead), 12 * size_t(count));
                if constexpr (kSource == UvSource::Differences) // a stream of its own, restarted at every page as well
                    prefetchLines(a.uvDifferences + 4 * (e + kIndexAhead), 16 * size_t(count));
            }
            // Any of the run's 3 x count corner indices (a multiple of 24) on the last vertex?
            __m256i onLast = _mm256_setzero_si256();
            const __m256i* idx = reinterpret_cast<const __m256i*>(a.indices + 3 * e);
            for (int i = 0; i < 3 * count / 8; ++i)
                onLast = _mm256_or_si256(onLast, _mm256_cmpeq_epi32(_mm256_loadu_si256(idx + i), lastVertex8));
            if (a.vertexCount && _mm256_testz_si256(onLast, onLast))
                for (int j = 0; j < count; j += 2)
                    cornerPair(e + size_t(j), j);
            else
                for (int j = 0; j < count; ++j)
                    corners(e + size_t(j), j);
        },
        [&](size_t t, int r) RS_INLINE_LAMBDA { faceBlock<kSource>(a, t, e1Rows + r, e2Rows + r, dRows + r); });
    for (size_t t = rest; t < last; ++t)
        faceTerms(a, t);
}

} // namespace

void faceTermsAvx2(const FaceArgs& args, size_t first, size_t last)
{
    switch (uvSource(args)) {
    case UvSource::None: return faceTermsAvx2Impl<UvSource::None>(args, first, last);
    case UvSource::Uvs: return faceTermsAvx2Impl<UvSource::Uvs>(args, first, last);
    case UvSource::Differences: return faceTermsAvx2Impl<UvSource::Differences>(args, first, last);
    }
}

namespace {

/// The dependent part of K x eight vertices' frames from their sums (rows: 32 floats a block), written from vertex
/// `v` on; the K blocks' operations interleaved, phase by phase, so that their long chains (two normalisations, a
/// projection, the handedness) overlap.
template <int K>
inline void gatherBlocks(const GatherArgs& a, size_t v, const float* nRows, const float* tRows, const float* bRows)
{
    const __m256 zero = _mm256_setzero_ps();
    __m256 nx[K], ny[K], nz[K], unused;
#pragma GCC unroll 4
    for (int k = 0; k < K; ++k)
        columns(nRows + 32 * k, nx[k], ny[k], nz[k], unused);
#pragma GCC unroll 4
    for (int k = 0; k < K; ++k)
        normalize3(nx[k], ny[k], nz[k]);
#pragma GCC unroll 4
    for (int k = 0; k < K; ++k)
        storeNormals(nx[k], ny[k], nz[k], a.normals + 3 * (v + 8 * size_t(k)));
    if (!a.tangents)
        return;
    __m256 tx[K], ty[K], tz[K], hand[K];
    if (a.withTangents) {
        __m256 nOk[K];
#pragma GCC unroll 4
        for (int k = 0; k < K; ++k) {
            nOk[k] = defined3(nx[k], ny[k], nz[k]);
            __m256 sx, sy, sz;
            columns(tRows + 32 * k, sx, sy, sz, unused);
            const __m256 d = dot3(nx[k], ny[k], nz[k], sx, sy, sz);
            tx[k] = _mm256_sub_ps(sx, _mm256_mul_ps(nx[k], d));
            ty[k] = _mm256_sub_ps(sy, _mm256_mul_ps(ny[k], d));
            tz[k] = _mm256_sub_ps(sz, _mm256_mul_ps(nz[k], d));
        }
#pragma GCC unroll 4
        for (int k = 0; k < K; ++k)
            normalize3(tx[k], ty[k], tz[k]);
#pragma GCC unroll 4
        for (int k = 0; k < K; ++k) {
            __m256 bx, by, bz;
            columns(bRows + 32 * k, bx, by, bz, unused);
            // glm::cross(n, t) dotted with the bitangent sum.
            const __m256 cx = _mm256_sub_ps(_mm256_mul_ps(ny[k], tz[k]), _mm256_mul_ps(ty[k], nz[k]));
            const __m256 cy = _mm256_sub_ps(_mm256_mul_ps(nz[k], tx[k]), _mm256_mul_ps(tz[k], nx[k]));
            const __m256 cz = _mm256_sub_ps(_mm256_mul_ps(nx[k], ty[k]), _mm256_mul_ps(tx[k], ny[k]));
            const __m256 side = dot3(cx, cy, cz, bx, by, bz);
            const __m256 keep = _mm256_and_ps(nOk[k], defined3(tx[k], ty[k], tz[k]));
            hand[k] = _mm256_blendv_ps(_mm256_set1_ps(1.0f), _mm256_set1_ps(-1.0f), _mm256_cmp_ps(side, zero, _CMP_LT_OQ));
            tx[k] = _mm256_and_ps(tx[k], keep);
            ty[k] = _mm256_and_ps(ty[k], keep);
            tz[k] = _mm256_and_ps(tz[k], keep);
            hand[k] = _mm256_and_ps(hand[k], keep);
        }
    } else {
        for (int k = 0; k < K; ++k)
            tx[k] = ty[k] = tz[k] = hand[k] = zero;
    }
    // Tangents are rows of four already: each pair of vertices one 8-float store.
#pragma GCC unroll 4
    for (int k = 0; k < K; ++k) {
        __m256 r[4];
        transpose4(tx[k], ty[k], tz[k], hand[k], r[0], r[1], r[2], r[3]);
        float* ot = a.tangents + 4 * (v + 8 * size_t(k));
#pragma GCC unroll 4 // left rolled, GCC copied r through the stack in 16-byte halves
        for (int j = 0; j < 4; ++j)
            _mm256_storeu_ps(ot + 8 * j, r[j]);
    }
}

/// gatherFramesAvx2 with whether the gather has compact lists and tangents to sum fixed at compile time (visitTerms).
template <bool kCompact, bool kTangents>
void gatherFramesAvx2Impl(const GatherArgs& args, size_t first, size_t last)
{
    const GatherArgs a = args; // a local copy: stores through its output pointers cannot change it

    // Each vertex's sums as n, t, b rows.
    alignas(32) float nRows[4 * kChunk], tRows[4 * kChunk], bRows[4 * kChunk];
    // Pairs of blocks (gatherBlocks<2>); the rest, under sixteen vertices, scalar. (A second run for a last single
    // block made the compiler call the vertex sums out of line from both: 0.6x.)
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

void gatherFramesAvx2(const GatherArgs& args, size_t first, size_t last)
{
    withFlags(args.compactBegin != nullptr, args.withTangents, [&](auto compact, auto tangents) RS_INLINE_LAMBDA {
        gatherFramesAvx2Impl<decltype(compact)::value, decltype(tangents)::value>(args, first, last);
    });
}

} // namespace rig::detail
