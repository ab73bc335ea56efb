#include "rig/analysis/reference.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <unordered_map>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "rig/model/math.h"
#include "rig/deform/parallel.h"

namespace rig {

namespace {

struct PositionKey {
    uint32_t x, y, z;
    bool operator==(const PositionKey&) const = default;
};

struct PositionHash {
    size_t operator()(const PositionKey& k) const
    {
        uint64_t h = k.x * 0x9E3779B97F4A7C15ull;
        h ^= (k.y + 0x7F4A7C15ull + (h << 6) + (h >> 2)) * 0xC2B2AE3D27D4EB4Full;
        h ^= (k.z + 0x165667B19E3779F9ull + (h << 6) + (h >> 2)) * 0x9E3779B97F4A7C15ull;
        return size_t(h ^ (h >> 31));
    }
};

PositionKey keyOf(const glm::vec3& p)
{
    // Bit-identical positions group together; +0 and -0 are the same place.
    PositionKey k;
    const float c[3] = {p.x == 0.0f ? 0.0f : p.x, p.y == 0.0f ? 0.0f : p.y, p.z == 0.0f ? 0.0f : p.z};
    std::memcpy(&k.x, &c[0], 4);
    std::memcpy(&k.y, &c[1], 4);
    std::memcpy(&k.z, &c[2], 4);
    return k;
}

} // namespace

std::vector<uint32_t> buildSmoothingGroups(std::span<const glm::vec3> positions, std::span<const glm::vec3> normals)
{
    assert(normals.empty() || normals.size() == positions.size());
    const size_t n = positions.size();
    std::vector<uint32_t> group(n);
    // For each distinct position, the representatives of the groups found there so far (usually one).
    std::unordered_map<PositionKey, std::vector<uint32_t>, PositionHash> seen;
    seen.reserve(n);
    const float cosLimit = std::cos(radians(kHardEdgeDegrees));
    for (size_t v = 0; v < n; ++v) {
        group[v] = uint32_t(v);
        std::vector<uint32_t>& reps = seen[keyOf(positions[v])];
        bool placed = false;
        for (uint32_t r : reps) {
            bool agree = true;
            if (!normals.empty()) {
                const glm::vec3 a = safeNormalize(normals[v]);
                const glm::vec3 b = safeNormalize(normals[r]);
                // Two undefined rest normals agree with each other, not with a defined one.
                const bool da = isDefined(a), db = isDefined(b);
                agree = (da == db) && (!da || glm::dot(a, b) >= cosLimit);
            }
            if (agree) {
                group[v] = r;
                placed = true;
                break;
            }
        }
        if (!placed)
            reps.push_back(uint32_t(v));
    }
    return group;
}

namespace {

// The scatter of rebuildFrames, restricted to the accumulators in [lo, hi): normal sums are indexed by smoothing group,
// tangent and bitangent sums by vertex, all in [0, n). Triangles are visited in index order and every owned sum gets
// exactly the additions, in exactly the order, of one sequential pass over all triangles — so splitting the index
// space between threads leaves every sum bit-for-bit the same.
struct Scatter {
    const glm::vec3* positions;
    const glm::vec2* uvs;
    const uint32_t* indices;
    const uint32_t* groups;
    glm::vec3* nsum;
    glm::vec3* tsum;
    glm::vec3* bsum;
    bool wantTangents;

    // Adds triangle t; the flags say which of its corners' sums are owned (all of them when kAll).
    template <bool kAll>
    inline __attribute__((always_inline)) void add(size_t t, uint32_t i0, uint32_t i1, uint32_t i2, uint32_t g0, uint32_t g1, uint32_t g2, bool n0,
                    bool n1, bool n2, bool v0, bool v1, bool v2) const
    {
        const glm::vec3 e1 = positions[i1] - positions[i0];
        const glm::vec3 e2 = positions[i2] - positions[i0];
        const glm::vec3 c = glm::cross(e1, e2);
        const float area2 = glm::dot(c, c);
        if (!(area2 > 0.0f) || !std::isfinite(area2))
            return; // zero-area (or non-finite) triangles contribute nothing
        if (kAll || n0)
            nsum[g0] += c;
        if (kAll || n1)
            nsum[g1] += c;
        if (kAll || n2)
            nsum[g2] += c;
        if (!wantTangents || (!kAll && !(v0 | v1 | v2)))
            return;
        const glm::vec2 d1 = uvs[i1] - uvs[i0];
        const glm::vec2 d2 = uvs[i2] - uvs[i0];
        const float det = d1.x * d2.y - d2.x * d1.y;
        if (!(std::fabs(det) > kMinUvDet) || !std::isfinite(det))
            return;
        const float w = std::sqrt(area2) / det;
        const glm::vec3 ft = (e1 * d2.y - e2 * d1.y) * w;
        const glm::vec3 fb = (e2 * d1.x - e1 * d2.x) * w;
        if (!std::isfinite(ft.x + ft.y + ft.z + fb.x + fb.y + fb.z))
            return;
        if (kAll || v0) {
            tsum[i0] += ft;
            bsum[i0] += fb;
        }
        if (kAll || v1) {
            tsum[i1] += ft;
            bsum[i1] += fb;
        }
        if (kAll || v2) {
            tsum[i2] += ft;
            bsum[i2] += fb;
        }
    }

    void run(size_t t0, size_t t1, uint32_t lo, uint32_t hi) const
    {
        auto own = [lo, hi](uint32_t i) { return i - lo < hi - lo; };
        for (size_t t = t0; t < t1; ++t) {
            const uint32_t i0 = indices[3 * t], i1 = indices[3 * t + 1], i2 = indices[3 * t + 2];
            const uint32_t g0 = groups[i0], g1 = groups[i1], g2 = groups[i2];
            const bool n0 = own(g0), n1 = own(g1), n2 = own(g2);
            const bool v0 = own(i0), v1 = own(i1), v2 = own(i2);
            if (n0 & n1 & n2 & v0 & v1 & v2) // the common case: every sum of the triangle is ours
                add<true>(t, i0, i1, i2, g0, g1, g2, true, true, true, true, true, true);
            else if (n0 | n1 | n2 | v0 | v1 | v2)
                add<false>(t, i0, i1, i2, g0, g1, g2, n0, n1, n2, v0, v1, v2);
        }
    }

    // One thread owns everything: the plain sequential scatter.
    void runAll(size_t triangles) const
    {
        for (size_t t = 0; t < triangles; ++t) {
            const uint32_t i0 = indices[3 * t], i1 = indices[3 * t + 1], i2 = indices[3 * t + 2];
            add<true>(t, i0, i1, i2, groups[i0], groups[i1], groups[i2], true, true, true, true, true, true);
        }
    }
};

// (min, max) of [begin, end), every value < 2^31. Four lanes of SSE2 (signed compares, valid below 2^31): scalar
// compare-and-move chains measured 5x slower on the benchmark machine.
std::pair<uint32_t, uint32_t> minMax(const uint32_t* begin, const uint32_t* end)
{
    uint32_t lo = UINT32_MAX, hi = 0;
    const uint32_t* p = begin;
#if defined(__SSE2__)
    __m128i vlo = _mm_set1_epi32(INT32_MAX), vhi = _mm_set1_epi32(-1);
    for (; p + 4 <= end; p += 4) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i gt = _mm_cmpgt_epi32(vlo, v);
        vlo = _mm_or_si128(_mm_and_si128(gt, v), _mm_andnot_si128(gt, vlo));
        const __m128i lt = _mm_cmpgt_epi32(v, vhi);
        vhi = _mm_or_si128(_mm_and_si128(lt, v), _mm_andnot_si128(lt, vhi));
    }
    alignas(16) int32_t l[4], h[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(l), vlo);
    _mm_store_si128(reinterpret_cast<__m128i*>(h), vhi);
    for (int k = 0; k < 4; ++k) {
        lo = std::min(lo, uint32_t(l[k]));
        hi = std::max(hi, uint32_t(std::max(h[k], 0)));
    }
#endif
    for (; p < end; ++p) {
        lo = std::min(lo, *p);
        hi = std::max(hi, *p);
    }
    return {lo, hi};
}

// Triangles per block of the parallel scatter, and vertices below which it runs on one thread.
constexpr size_t kBlockTriangles = 4096;
constexpr size_t kVertexBlock = 1024; // vertices per entry of the group-bounds table
constexpr size_t kParallelVertices = 1 << 16;

} // namespace

void rebuildFrames(std::span<const glm::vec3> positions, std::span<const glm::vec2> uvs, std::span<const uint32_t> indices,
                   std::span<const uint32_t> groups, std::span<glm::vec3> outNormals, std::span<glm::vec4> outTangents,
                   RebuildScratch& scratch)
{
    const size_t n = positions.size();
    assert(groups.size() == n && outNormals.size() == n);
    assert(outTangents.empty() || outTangents.size() == n);
    assert(uvs.empty() || uvs.size() == n);
    assert(n < size_t(UINT32_MAX));
    const bool wantTangents = !outTangents.empty() && !uvs.empty();

    // Sized here, zeroed by the owner of each range below.
    scratch.normalSums.resize(n);
    if (wantTangents) {
        scratch.tangentSums.resize(n);
        scratch.bitangentSums.resize(n);
    }
    const Scatter scatter{positions.data(),          uvs.data(),
                          indices.data(),            groups.data(),
                          scratch.normalSums.data(), scratch.tangentSums.data(),
                          scratch.bitangentSums.data(), wantTangents};
    auto zero = [&](size_t lo, size_t hi) {
        std::fill(scratch.normalSums.begin() + ptrdiff_t(lo), scratch.normalSums.begin() + ptrdiff_t(hi), glm::vec3(0.0f));
        if (wantTangents) {
            std::fill(scratch.tangentSums.begin() + ptrdiff_t(lo), scratch.tangentSums.begin() + ptrdiff_t(hi), glm::vec3(0.0f));
            std::fill(scratch.bitangentSums.begin() + ptrdiff_t(lo), scratch.bitangentSums.begin() + ptrdiff_t(hi),
                      glm::vec3(0.0f));
        }
    };

    const size_t triangles = indices.size() / 3;
    for (size_t i = 0; i < 3 * triangles; ++i)
        assert(indices[i] < n);
    const bool parallel = n >= kParallelVertices && n <= size_t(INT32_MAX) && triangles >= 2 * kBlockTriangles &&
                          resolveThreadCount(0) > 1;
    if (!parallel) {
        zero(0, n);
        scatter.runAll(triangles);
    } else {
        // Every block of triangles gets bounds on the accumulator indices it touches (vertices and their groups),
        // so that the owner of an index range visits only the blocks that can add to it. Bounds may be wider than
        // the truth, never narrower: a triangle block's vertex range [vlo, vhi], widened by the smallest and largest
        // group of every kVertexBlock-vertex block in that range.
        const size_t blocks = (triangles + kBlockTriangles - 1) / kBlockTriangles;
        const size_t vertexBlocks = (n + kVertexBlock - 1) / kVertexBlock;
        // Reused across calls on this thread (the lambdas below run on pool threads: they use the pointers).
        thread_local std::vector<std::pair<uint32_t, uint32_t>> boundsBuffer, groupBoundsBuffer;
        boundsBuffer.resize(blocks);
        groupBoundsBuffer.resize(vertexBlocks);
        std::pair<uint32_t, uint32_t>* bounds = boundsBuffer.data();
        std::pair<uint32_t, uint32_t>* groupBounds = groupBoundsBuffer.data();
        const uint32_t* idx = indices.data();
        const uint32_t* grp = groups.data();
        parallelFor(vertexBlocks, 16, 0, [&](size_t b0, size_t b1) {
            for (size_t b = b0; b < b1; ++b)
                groupBounds[b] = minMax(grp + b * kVertexBlock, grp + std::min(n, (b + 1) * kVertexBlock));
        });
        parallelFor(blocks, 16, 0, [&](size_t b0, size_t b1) {
            for (size_t b = b0; b < b1; ++b) {
                const auto [lo, hi] = minMax(idx + 3 * b * kBlockTriangles,
                                             idx + 3 * std::min(triangles, (b + 1) * kBlockTriangles));
                uint32_t glo = lo, ghi = hi;
                for (size_t vb = lo / kVertexBlock; vb <= hi / kVertexBlock; ++vb) {
                    glo = std::min(glo, groupBounds[vb].first);
                    ghi = std::max(ghi, groupBounds[vb].second);
                }
                bounds[b] = {glo, ghi};
            }
        });
        const auto* blockBounds = bounds;
        parallelFor(n, 8192, 0, [&](size_t lo, size_t hi) {
            zero(lo, hi);
            for (size_t b = 0; b < blocks; ++b)
                if (blockBounds[b].first < hi && blockBounds[b].second >= lo)
                    scatter.run(b * kBlockTriangles, std::min(triangles, (b + 1) * kBlockTriangles), uint32_t(lo),
                                uint32_t(hi));
        });
    }

    const glm::vec3* nsum = scratch.normalSums.data();
    const glm::vec3* tsum = scratch.tangentSums.data();
    const glm::vec3* bsum = scratch.bitangentSums.data();
    auto finish = [&](size_t first, size_t last) {
        for (size_t v = first; v < last; ++v) {
            const glm::vec3 nrm = safeNormalize(nsum[groups[v]]);
            outNormals[v] = nrm;
            if (outTangents.empty())
                continue;
            if (!wantTangents || !isDefined(nrm)) {
                outTangents[v] = glm::vec4(0.0f);
                continue;
            }
            const glm::vec3 tv = tsum[v];
            const glm::vec3 tan = safeNormalize(tv - nrm * glm::dot(nrm, tv));
            const float hand = glm::dot(glm::cross(nrm, tan), bsum[v]) < 0.0f ? -1.0f : 1.0f;
            outTangents[v] = isDefined(tan) ? glm::vec4(tan, hand) : glm::vec4(0.0f);
        }
    };
    if (!parallel)
        finish(0, n);
    else
        parallelFor(n, 16384, 0, finish);
}

} // namespace rig
