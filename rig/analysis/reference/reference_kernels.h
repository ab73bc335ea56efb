// Internal to the reference (reference.cpp, reference_avx512.cpp, reference_avx2.cpp): one triangle's face terms and
// one vertex's frame, written once here and used by all three, so that the SIMD kernels' remainders and the scalar
// path are the same code, and which lists a vertex sums is decided in one place (visitTerms).
// Internal linkage on purpose: each translation unit compiles its own copy for its own target.
#pragma once

#include <cstddef>
#include <cmath>
#include <cstdint>

#include <xmmintrin.h> // SSE: part of baseline x86-64, so the scalar path's translation unit can include it too
#if defined(__AVX__)
#include <immintrin.h> // the SIMD kernels' translation units: sumVertexAvx
#endif

#include "rig/analysis/reference/reference.h"
#include "rig/model/math.h"

namespace rig::detail {

/// A triangle's face terms are three rows of four floats (x y z z: reference.h's ReferenceScratch) in two arrays: its
/// normal and tangent rows side by side, 8 floats a triangle (a pair), and its bitangent row, 4 a triangle. The SIMD
/// gathers add a triangle's normal and tangent rows with one 256-bit load and add.
constexpr size_t kPairFloats = 8;

/// Everything the face pass of one mesh reads and writes (reference.cpp's rebuildFaces fills it).
struct FaceArgs {
    const glm::vec3* positions;
    const glm::vec2* uvs;    ///< or null
    const uint32_t* indices;
    /// The mesh's first triangle's rows: its pair (kPairFloats a triangle, 32-byte aligned) and its bitangent row (4,
    /// 16-byte aligned).
    float* pairs;
    float* bitangents;
    /// The mesh's vertex count, or 0 where unknown: the AVX2 face pass then reads every corner's three floats exactly
    /// (with it, a whole 16-byte load for the runs whose corners all have a next vertex).
    size_t vertexCount = 0;
    /// The triangles `indices` holds from its start, or 0 where unknown: the SIMD face passes fetch the indices of
    /// triangles ahead of the ones they read (software prefetch, only inside the array), past the call's range too,
    /// where the next call of a schedule's task goes on.
    size_t triangleCount = 0;
    /// With uvs: the triangles' UV differences from `indices`' first (referenceUvDifferences: d1.x d1.y d2.x d2.y, 4
    /// floats a triangle), or null. The SIMD face passes read them instead of the UVs; faceTerms computes them from
    /// the UVs (the same bits).
    const float* uvDifferences = nullptr;
};

/// Everything the gather of one mesh reads and writes (reference.cpp's gatherFrames fills it).
struct GatherArgs {
    const uint32_t* group;   ///< per vertex of the mesh: its group's representative (global)
    const uint32_t* gOff;    ///< global: group triangle offsets
    const uint32_t* gTri;
    const uint32_t* vOff;    ///< per vertex of the mesh (+1): own triangle offsets
    const uint32_t* vTri;
    /// Global: the face pass's pairs (kPairFloats a triangle, 32-byte aligned: the gathers load them whole) and
    /// bitangent rows (4 floats a triangle, 16-byte aligned).
    const float* facePairs;
    const float* faceBitangents;
    float* normals;          ///< 3 per vertex
    float* tangents;         ///< 4 per vertex, or null
    bool withTangents;       ///< tangents && the mesh has UVs
    uint32_t vertexBegin;    ///< the mesh's first global vertex
    /// Triangle t's rows are at row t & faceMask: all ones for arrays of every triangle, the window size - 1 for a
    /// schedule's window (reference.h).
    uint32_t faceMask = ~0u;
    /// A schedule's compact lists (ReferenceTopology::Schedule): per vertex of the mesh (+1), or null; their entries
    /// are window rows times four (bitangent row offsets in floats).
    const uint32_t* compactBegin = nullptr;
    const uint16_t* compactTri = nullptr;
};

/// Where the SIMD face passes take a triangle's UV differences from: no UVs, the UVs by index, or
/// FaceArgs::uvDifferences (a template argument of their loops: nothing tested per triangle).
enum class UvSource { None, Uvs, Differences };

/// The UV source of a face pass's arguments.
inline UvSource uvSource(const FaceArgs& a)
{
    return !a.uvs ? UvSource::None : a.uvDifferences ? UvSource::Differences : UvSource::Uvs;
}

namespace {

/// The face terms of triangle t (reference.h's definition).
inline void faceTerms(const FaceArgs& a, size_t t)
{
    const uint32_t i0 = a.indices[3 * t], i1 = a.indices[3 * t + 1], i2 = a.indices[3 * t + 2];
    const glm::vec3* p = a.positions;
    const glm::vec3 e1 = p[i1] - p[i0];
    const glm::vec3 e2 = p[i2] - p[i0];
    const glm::vec3 c = glm::cross(e1, e2);
    const float area2 = glm::dot(c, c);
    glm::vec3 normal(0.0f), tangentTerm(0.0f), bitangentTerm(0.0f);
    // Zero-area (or non-finite) triangles contribute nothing.
    if (area2 > 0.0f && std::isfinite(area2)) {
        normal = c;
        if (a.uvs) {
            const glm::vec2 d1 = a.uvs[i1] - a.uvs[i0];
            const glm::vec2 d2 = a.uvs[i2] - a.uvs[i0];
            const float det = d1.x * d2.y - d2.x * d1.y;
            if (std::fabs(det) > kMinUvDet && std::isfinite(det)) {
                const float w = std::sqrt(area2) / det;
                const glm::vec3 tangent = (e1 * d2.y - e2 * d1.y) * w;
                const glm::vec3 bitangent = (e2 * d1.x - e1 * d2.x) * w;
                if (std::isfinite(tangent.x + tangent.y + tangent.z + bitangent.x + bitangent.y + bitangent.z)) {
                    tangentTerm = tangent;
                    bitangentTerm = bitangent;
                }
            }
        }
    }
    auto row = [](float* out, const glm::vec3& x) {
        out[0] = x.x;
        out[1] = x.y;
        out[2] = x.z;
        out[3] = x.z; // w: a copy of z (ReferenceScratch)
    };
    row(a.pairs + kPairFloats * t, normal);
    row(a.pairs + kPairFloats * t + 4, tangentTerm);
    row(a.bitangents + 4 * t, bitangentTerm);
}

/// The frame of vertex v from its sums (n: the group's normal sum; t, b: its own tangent and bitangent sums), exactly
/// as the reference defines it (reference.h); what the SIMD tails reproduce lane by lane.
inline void finishVertex(const GatherArgs& a, size_t v, const float n[3], const float t[3], const float b[3])
{
    const glm::vec3 nrm = safeNormalize(glm::vec3(n[0], n[1], n[2]));
    a.normals[3 * v] = nrm.x;
    a.normals[3 * v + 1] = nrm.y;
    a.normals[3 * v + 2] = nrm.z;
    if (!a.tangents)
        return;
    glm::vec4 frame(0.0f);
    if (a.withTangents && isDefined(nrm)) {
        const glm::vec3 tsum(t[0], t[1], t[2]), bsum(b[0], b[1], b[2]);
        const glm::vec3 tan = safeNormalize(tsum - nrm * glm::dot(nrm, tsum));
        const float hand = glm::dot(glm::cross(nrm, tan), bsum) < 0.0f ? -1.0f : 1.0f;
        if (isDefined(tan))
            frame = glm::vec4(tan, hand);
    }
    a.tangents[4 * v] = frame.x;
    a.tangents[4 * v + 1] = frame.y;
    a.tangents[4 * v + 2] = frame.z;
    a.tangents[4 * v + 3] = frame.w;
}

/// Visits the triangles vertex v sums: normal(r) for each triangle of its group's list, then (with tangents)
/// tangents(r) for each of its own, r being the offset of the triangle's bitangent row in floats (4 a row; its pair's is
/// 2 r). A vertex alone in its group (most are) has one list for both: with tangents, both(r) for each of its triangles
/// instead, and the visit returns true (a kernel then adds each pair whole: the same terms in the same order).
/// kCompact and kTangents, where not -1, are what a.compactBegin != null and a.withTangents are (the SIMD kernels'
/// instantiations: no test of them per vertex).
template <int kCompact = -1, int kTangents = -1, typename Normal, typename Tangents, typename Both>
inline bool visitTerms(const GatherArgs& a, size_t v, Normal normal, Tangents tangents, Both both)
{
    const bool compact = kCompact < 0 ? a.compactBegin != nullptr : kCompact != 0;
    const bool withTangents = kTangents < 0 ? a.withTangents : kTangents != 0;
    if (compact) { // alone in its group: one list, in 16 bits
        const uint32_t cb = a.compactBegin[v];
        if (!(cb >> 31)) {
            const uint32_t ce = a.compactBegin[v + 1] & 0x7FFFFFFFu;
            if (withTangents)
                for (uint32_t i = cb; i < ce; ++i)
                    both(size_t(a.compactTri[i]));
            else
                for (uint32_t i = cb; i < ce; ++i)
                    normal(size_t(a.compactTri[i]));
            return withTangents;
        }
    }
    const uint32_t rep = a.group[v];
    const uint32_t gb = a.gOff[rep], ge = a.gOff[rep + 1];
    if (withTangents && rep == a.vertexBegin + v && ge - gb == a.vOff[v + 1] - a.vOff[v]) {
        for (uint32_t i = gb; i < ge; ++i)
            both(4 * size_t(a.gTri[i] & a.faceMask));
        return true;
    }
    for (uint32_t i = gb; i < ge; ++i)
        normal(4 * size_t(a.gTri[i] & a.faceMask));
    if (withTangents)
        for (uint32_t i = a.vOff[v]; i < a.vOff[v + 1]; ++i)
            tangents(4 * size_t(a.vTri[i] & a.faceMask));
    return false;
}

/// visitTerms with both(r) as normal(r) then tangents(r).
template <int kCompact = -1, int kTangents = -1, typename Normal, typename Tangents>
inline void visitTerms(const GatherArgs& a, size_t v, Normal normal, Tangents tangents)
{
    visitTerms<kCompact, kTangents>(a, v, normal, tangents, [&](size_t r) {
        normal(r);
        tangents(r);
    });
}

/// The sums of vertex v: over its group's triangles for the normal, its own for the tangents.
inline void sumVertex(const GatherArgs& a, size_t v, float n[3], float t[3], float b[3])
{
    n[0] = n[1] = n[2] = t[0] = t[1] = t[2] = b[0] = b[1] = b[2] = 0.0f;
    visitTerms(
        a, v,
        [&](size_t f) {
            const float* fn = a.facePairs + 2 * f;
            n[0] += fn[0];
            n[1] += fn[1];
            n[2] += fn[2];
        },
        [&](size_t f) {
            const float* ft = a.facePairs + 2 * f + 4;
            const float* fb = a.faceBitangents + f;
            t[0] += ft[0];
            t[1] += ft[1];
            t[2] += ft[2];
            b[0] += fb[0];
            b[1] += fb[1];
            b[2] += fb[2];
        });
}

#if defined(__AVX__)
/// sumVertex in the SIMD kernels (compiled with AVX): the same sums, component by component, in the same order, as
/// three vectors (lanes 0..2; lane 3 sums the rows' copies of z, unused), with 128-bit loads and adds; where the
/// vertex has one list for both (visitTerms' both), each triangle's pair with one 256-bit load and add instead of
/// two of 128 (with the face passes' pair stores, x1.031-1.038 on the AVX-512 rebuild and x1.005-1.009 on the AVX2
/// one on Zen 4, 16k to 1M vertices). kCompact, kTangents: visitTerms'.
template <int kCompact = -1, int kTangents = -1>
inline __attribute__((always_inline)) void sumVertexAvx(const GatherArgs& a, size_t v, __m128& n, __m128& t, __m128& b)
{
    const float* pairs = a.facePairs;
    const float* bitangents = a.faceBitangents;
    n = t = b = _mm_setzero_ps();
    __m256 nt = _mm256_setzero_ps();
    const bool whole = visitTerms<kCompact, kTangents>(
        a, v, [&](size_t f) __attribute__((always_inline)) { n = _mm_add_ps(n, _mm_load_ps(pairs + 2 * f)); },
        [&](size_t f) __attribute__((always_inline)) {
            t = _mm_add_ps(t, _mm_load_ps(pairs + 2 * f + 4));
            b = _mm_add_ps(b, _mm_load_ps(bitangents + f));
        },
        [&](size_t f) __attribute__((always_inline)) {
            nt = _mm256_add_ps(nt, _mm256_load_ps(pairs + 2 * f));
            b = _mm_add_ps(b, _mm_load_ps(bitangents + f));
        });
    if (whole) {
        n = _mm256_castps256_ps128(nt);
        t = _mm256_extractf128_ps(nt, 1);
    }
}
#endif

/// Elements [first, last) in runs of up to Blocks whole blocks of Block elements (the SIMD kernels): run(e, count) for
/// the run's elements [e, e + count) (the indexed part, which may decide something once for the run), then
/// dependent(e, r) for each block of the run (e: its first element, r: the offset of its rows in the run's buffers, 4
/// floats an element). A block's dependent part loads whole registers of rows its indexed part stored 16 bytes at a
/// time, which a store cannot forward: done a few blocks later, the stores have reached the cache; and the out-of-order
/// core overlaps one block's long dependent chain (square roots, divisions) with the next run's loads. Returns where
/// the blocks end (the rest, less than a block, is the caller's). Forced inline, with inBlockRuns' lambda: left to
/// itself, GCC 12 compiled the AVX-512 rebuild's loops through inBlockRuns slower (x0.977 at 100k on Zen 4) than a
/// loop of inBlockRuns' own; forced, as fast (x0.998-1.005 at 100k and 1M, both kernels).
template <int Block, int Blocks, typename Run, typename Dependent>
inline __attribute__((always_inline)) size_t inBlockRunsOf(size_t first, size_t last, Run run, Dependent dependent)
{
    size_t e = first;
    while (last - e >= size_t(Block)) {
        const size_t whole = (last - e) / Block;
        const int blocks = whole < size_t(Blocks) ? int(whole) : Blocks;
        run(e, blocks * Block);
        for (int b = 0; b < blocks; ++b)
            dependent(e + size_t(b * Block), 4 * Block * b);
        e += size_t(blocks * Block);
    }
    return e;
}

/// inBlockRunsOf with the indexed part per element: indexed(e, j) for each element e of a run (j: its place in the run).
template <int Block, int Blocks, typename Indexed, typename Dependent>
inline __attribute__((always_inline)) size_t inBlockRuns(size_t first, size_t last, Indexed indexed, Dependent dependent)
{
    return inBlockRunsOf<Block, Blocks>(
        first, last,
        [&](size_t e, int count) __attribute__((always_inline)) {
            for (int j = 0; j < count; ++j)
                indexed(e + size_t(j), j);
        },
        dependent);
}

inline void gatherVertex(const GatherArgs& a, size_t v)
{
    float n[3], t[3], b[3];
    sumVertex(a, v, n, t, b);
    finishVertex(a, v, n, t, b);
}

} // namespace

/// Triangles [first, last) with AVX-512: each triangle's edges with 128-bit loads, then the terms of sixteen at once;
/// bit-identical to faceTerms. Call only when cpuHasAvx512().
void faceTermsAvx512(const FaceArgs& a, size_t first, size_t last);

/// The same with AVX2, eight at a time (reference_avx2.cpp). Call only when cpuHasAvx2().
void faceTermsAvx2(const FaceArgs& a, size_t first, size_t last);
void gatherFramesAvx2(const GatherArgs& a, size_t first, size_t last);

/// Vertices [first, last) with AVX-512: the sums of each vertex with 128-bit adds, then every vertex's normalisations
/// sixteen at a time; bit-identical to gatherVertex (no FMA, the same operations in the same order).
/// Call only when cpuHasAvx512().
void gatherFramesAvx512(const GatherArgs& a, size_t first, size_t last);

} // namespace rig::detail
