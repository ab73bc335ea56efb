#include "rig/analysis/reference/reference.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>

#include "rig/analysis/reference/reference_kernels.h"
#include "rig/platform/parallel.h"
#include "rig/platform/cpu_features.h"
#include "rig/model/math.h"

namespace rig {

namespace {

constexpr size_t kTriangleGrain = 16384;
constexpr size_t kVertexGrain = 16384;
// The rebuild's schedule (ReferenceTopology::Schedule): chunks of vertices, tasks of chunks, the window's bounds in
// triangles (48 bytes each: 4096 are 192 KB, a part of a core's L2).
constexpr uint32_t kScheduleChunk = 1024;
constexpr uint32_t kTaskChunks = 16;
constexpr uint32_t kMinWindow = 1024;
constexpr uint32_t kMaxWindow = 16384;
/// A task's face-pass calls cover a multiple of this many triangles past a chunk's need (up to the mesh's or the
/// window's end): the SIMD face passes' blocks (AVX-512 16, AVX2 8), so that their remainders, done by the scalar
/// code, come only at those ends (x1.01-1.02 on the rebuild on Zen 4). The window is that much larger than the span.
constexpr uint32_t kFaceCallAlign = 16;

/// A vertex's weld candidate key: its space and its position bits (+0 and -0 are the same place).
struct WeldEntry {
    uint32_t space, x, y, z;
    uint32_t vertex;
    bool sameKey(const WeldEntry& o) const { return space == o.space && x == o.x && y == o.y && z == o.z; }
    bool operator<(const WeldEntry& o) const
    {
        if (space != o.space)
            return space < o.space;
        if (x != o.x)
            return x < o.x;
        if (y != o.y)
            return y < o.y;
        if (z != o.z)
            return z < o.z;
        return vertex < o.vertex;
    }
};

uint32_t bitsOf(float f)
{
    if (f == 0.0f)
        f = 0.0f;
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

/// Union-find whose roots are the smallest index of their set.
class MinUnionFind {
public:
    explicit MinUnionFind(size_t n) : m_parent(n)
    {
        for (size_t i = 0; i < n; ++i)
            m_parent[i] = uint32_t(i);
    }
    uint32_t find(uint32_t v)
    {
        while (m_parent[v] != v) {
            m_parent[v] = m_parent[m_parent[v]]; // path halving
            v = m_parent[v];
        }
        return v;
    }
    void unite(uint32_t a, uint32_t b)
    {
        a = find(a);
        b = find(b);
        if (a == b)
            return;
        if (a < b)
            m_parent[b] = a;
        else
            m_parent[a] = b;
    }

private:
    std::vector<uint32_t> m_parent;
};

/// Two rest normals agree: both undefined, or both defined within kHardEdgeDegrees.
bool normalsAgree(const glm::vec3& na, const glm::vec3& nb, float cosLimit)
{
    const glm::vec3 a = safeNormalize(na), b = safeNormalize(nb);
    const bool da = isDefined(a), db = isDefined(b);
    return da == db && (!da || glm::dot(a, b) >= cosLimit);
}

void fillAdjacency(ReferenceTopology& t, const std::vector<uint32_t>& corners);
void buildSchedule(ReferenceTopology& t);

/// Fills group, the two CSR lists and crossMeshGroups from the weld entries (one per vertex) and the global corner
/// list. normalOf(v) gives the rest normal of global vertex v, or nullptr when grouping by position alone.
template <typename NormalOf>
void finishTopology(ReferenceTopology& t, std::vector<WeldEntry>& entries, const std::vector<uint32_t>& corners,
                    NormalOf normalOf, bool byPositionOnly)
{
    const size_t n = entries.size();
    assert(n < size_t(UINT32_MAX));
    std::sort(entries.begin(), entries.end());
    MinUnionFind sets(n);
    const float cosLimit = std::cos(radians(kHardEdgeDegrees));
    for (size_t first = 0; first < n;) {
        size_t last = first + 1;
        while (last < n && entries[last].sameKey(entries[first]))
            ++last;
        const size_t k = last - first;
        if (k > 1) {
            if (byPositionOnly) {
                for (size_t i = first + 1; i < last; ++i)
                    sets.unite(entries[first].vertex, entries[i].vertex);
            } else if (k <= kMaxPairwiseWeld) {
                for (size_t i = first; i < last; ++i)
                    for (size_t j = i + 1; j < last; ++j)
                        if (normalsAgree(normalOf(entries[i].vertex), normalOf(entries[j].vertex), cosLimit))
                            sets.unite(entries[i].vertex, entries[j].vertex);
            } else {
                // Too many at one place: weld identical normals only (sorted by their bits, then runs).
                std::sort(entries.begin() + ptrdiff_t(first), entries.begin() + ptrdiff_t(last),
                          [&](const WeldEntry& a, const WeldEntry& b) {
                              const glm::vec3 na = normalOf(a.vertex), nb = normalOf(b.vertex);
                              return std::memcmp(&na, &nb, sizeof na) < 0 ||
                                     (std::memcmp(&na, &nb, sizeof na) == 0 && a.vertex < b.vertex);
                          });
                for (size_t i = first + 1; i < last; ++i) {
                    const glm::vec3 na = normalOf(entries[i - 1].vertex), nb = normalOf(entries[i].vertex);
                    if (std::memcmp(&na, &nb, sizeof na) == 0)
                        sets.unite(entries[i - 1].vertex, entries[i].vertex);
                }
            }
        }
        first = last;
    }
    t.group.resize(n);
    for (size_t v = 0; v < n; ++v)
        t.group[v] = sets.find(uint32_t(v));
    fillAdjacency(t, corners);
}

} // namespace

namespace {

void fillAdjacency(ReferenceTopology& t, const std::vector<uint32_t>& corners)
{
    const size_t n = t.group.size();
    // Groups that span meshes.
    t.crossMeshGroups = 0;
    const size_t meshes = t.vertexBegin.size() - 1;
    if (meshes > 1) {
        std::vector<uint32_t> meshOfRep(n, UINT32_MAX);
        std::vector<uint8_t> counted(n, 0);
        for (size_t m = 0; m < meshes; ++m)
            for (uint32_t v = t.vertexBegin[m]; v < t.vertexBegin[m + 1]; ++v) {
                const uint32_t r = t.group[v];
                if (meshOfRep[r] == UINT32_MAX)
                    meshOfRep[r] = uint32_t(m);
                else if (meshOfRep[r] != m && !counted[r]) {
                    counted[r] = 1;
                    ++t.crossMeshGroups;
                }
            }
    }

    // The CSR lists, filled in triangle order (so increasing, with multiplicity).
    const size_t triangles = corners.size() / 3;
    t.groupTriangleOffsets.assign(n + 1, 0);
    t.vertexTriangleOffsets.assign(n + 1, 0);
    for (uint32_t c : corners) {
        ++t.groupTriangleOffsets[t.group[c] + 1];
        ++t.vertexTriangleOffsets[c + 1];
    }
    for (size_t v = 0; v < n; ++v) {
        t.groupTriangleOffsets[v + 1] += t.groupTriangleOffsets[v];
        t.vertexTriangleOffsets[v + 1] += t.vertexTriangleOffsets[v];
    }
    t.groupTriangles.resize(corners.size());
    t.vertexTriangles.resize(corners.size());
    std::vector<uint32_t> groupFill(t.groupTriangleOffsets.begin(), t.groupTriangleOffsets.end() - 1);
    std::vector<uint32_t> vertexFill(t.vertexTriangleOffsets.begin(), t.vertexTriangleOffsets.end() - 1);
    for (size_t tri = 0; tri < triangles; ++tri)
        for (int k = 0; k < 3; ++k) {
            const uint32_t c = corners[3 * tri + size_t(k)];
            t.groupTriangles[groupFill[t.group[c]]++] = uint32_t(tri);
            t.vertexTriangles[vertexFill[c]++] = uint32_t(tri);
        }
    buildSchedule(t);
}

void buildSchedule(ReferenceTopology& t)
{
    ReferenceTopology::Schedule& s = t.schedule;
    s = {};
    const size_t meshes = t.vertexBegin.size() - 1;
    for (size_t m = 0; m < meshes; ++m)
        for (uint32_t v = t.vertexBegin[m]; v < t.vertexBegin[m + 1]; v += kScheduleChunk) {
            s.chunkBegin.push_back(v);
            s.chunkMesh.push_back(uint32_t(m));
        }
    const size_t chunks = s.chunkMesh.size();
    s.chunkBegin.push_back(t.vertexBegin.back());
    s.needBegin.assign(chunks, 0);
    s.needEnd.assign(chunks, 0);
    for (size_t c = 0; c < chunks; ++c) {
        uint32_t lo = UINT32_MAX, hi = 0;
        auto need = [&](const std::vector<uint32_t>& offsets, const std::vector<uint32_t>& list, uint32_t v) {
            for (uint32_t i = offsets[v]; i < offsets[v + 1]; ++i) {
                lo = std::min(lo, list[i]);
                hi = std::max(hi, list[i] + 1);
            }
        };
        for (uint32_t v = s.chunkBegin[c]; v < s.chunkBegin[c + 1]; ++v) {
            need(t.groupTriangleOffsets, t.groupTriangles, t.group[v]);
            need(t.vertexTriangleOffsets, t.vertexTriangles, v);
        }
        if (lo < hi) {
            s.needBegin[c] = lo;
            s.needEnd[c] = hi;
        }
    }
    for (size_t c = 0; c < chunks; c += kTaskChunks)
        s.taskBegin.push_back(uint32_t(c));
    s.taskBegin.push_back(uint32_t(chunks));
    // The window each task needs (runScheduledTask's walk), and the triangles computed in all.
    uint64_t span = 0, work = 0;
    bool ordered = true;
    for (size_t k = 0; k + 1 < s.taskBegin.size() && ordered; ++k) {
        bool started = false;
        uint32_t lo = 0, computed = 0;
        for (uint32_t c = s.taskBegin[k]; c < s.taskBegin[k + 1]; ++c) {
            if (s.needEnd[c] == s.needBegin[c])
                continue;
            if (!started) {
                lo = computed = s.needBegin[c];
                started = true;
            }
            if (s.needBegin[c] < lo) {
                ordered = false; // it would need triangles the task never computed
                break;
            }
            computed = std::max(computed, s.needEnd[c]);
            span = std::max<uint64_t>(span, computed - s.needBegin[c]);
        }
        work += computed - lo;
    }
    const uint64_t triangles = t.triangleBegin.back();
    // Scattered orders: a window past kMaxWindow, or recomputing more than a quarter of the triangles again.
    if (!ordered || span + kFaceCallAlign > kMaxWindow || work > triangles + triangles / 4 || triangles == 0) {
        s = {};
        return;
    }
    s.windowTriangles = std::max<uint32_t>(kMinWindow, std::bit_ceil(uint32_t(span + kFaceCallAlign)));
    // The compact lists: window rows times four, the bitangent row's offset in floats (4 * 16383 fits in 16 bits),
    // so that the SIMD gathers address a bitangent row as 4 x the entry and a pair as 8 x, both scaled indices of
    // one load: no shift or copy of the entry a triangle.
    static_assert(4 * (kMaxWindow - 1) <= UINT16_MAX);
    s.compactBegin.assign(t.group.size() + 1, 0);
    for (size_t c = 0; c < chunks; ++c)
        for (uint32_t v = s.chunkBegin[c]; v < s.chunkBegin[c + 1]; ++v) {
            const bool alone = t.group[v] == v && t.groupTriangleOffsets[v + 1] - t.groupTriangleOffsets[v] ==
                                                      t.vertexTriangleOffsets[v + 1] - t.vertexTriangleOffsets[v];
            s.compactBegin[v] = uint32_t(s.compactTriangles.size()) | (alone ? 0u : 0x80000000u);
            if (alone)
                for (uint32_t i = t.vertexTriangleOffsets[v]; i < t.vertexTriangleOffsets[v + 1]; ++i)
                    s.compactTriangles.push_back(uint16_t(4 * (t.vertexTriangles[i] & (s.windowTriangles - 1))));
        }
    s.compactBegin.back() = uint32_t(s.compactTriangles.size());
}

} // namespace

ReferenceTopology buildReferenceTopology(const Rig& rig)
{
    ReferenceTopology t;
    const size_t meshes = rig.meshes.size();
    t.vertexBegin.assign(meshes + 1, 0);
    t.triangleBegin.assign(meshes + 1, 0);
    for (size_t m = 0; m < meshes; ++m) {
        t.vertexBegin[m + 1] = t.vertexBegin[m] + uint32_t(rig.meshes[m].vertexCount());
        t.triangleBegin[m + 1] = t.triangleBegin[m] + uint32_t(rig.meshes[m].triangleCount());
    }
    const size_t n = t.vertexBegin.back();
    std::vector<WeldEntry> entries(n);
    std::vector<uint32_t> corners(3 * size_t(t.triangleBegin.back()));
    std::vector<uint32_t> meshOf(n);
    for (size_t m = 0; m < meshes; ++m) {
        const Mesh& mesh = rig.meshes[m];
        // Skinned meshes share the bind space; an unskinned mesh lives in its node's space.
        const uint32_t space = mesh.isSkinned() ? 0u : uint32_t(mesh.node + 2);
        const uint32_t vb = t.vertexBegin[m];
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            const glm::vec3& p = mesh.positions[v];
            entries[vb + v] = {space, bitsOf(p.x), bitsOf(p.y), bitsOf(p.z), uint32_t(vb + v)};
            meshOf[vb + v] = uint32_t(m);
        }
        const size_t cb = 3 * size_t(t.triangleBegin[m]);
        for (size_t i = 0; i < mesh.indices.size(); ++i)
            corners[cb + i] = vb + mesh.indices[i];
    }
    auto normalOf = [&](uint32_t v) -> glm::vec3 {
        const uint32_t m = meshOf[v];
        return rig.meshes[m].normals[v - t.vertexBegin[m]];
    };
    finishTopology(t, entries, corners, normalOf, false);
    return t;
}

ReferenceTopology buildMeshTopology(std::span<const glm::vec3> positions, std::span<const glm::vec3> normals,
                                    std::span<const uint32_t> indices)
{
    assert(normals.empty() || normals.size() == positions.size());
    ReferenceTopology t;
    const size_t n = positions.size();
    t.vertexBegin = {0, uint32_t(n)};
    t.triangleBegin = {0, uint32_t(indices.size() / 3)};
    std::vector<WeldEntry> entries(n);
    for (size_t v = 0; v < n; ++v)
        entries[v] = {0, bitsOf(positions[v].x), bitsOf(positions[v].y), bitsOf(positions[v].z), uint32_t(v)};
    const std::vector<uint32_t> corners(indices.begin(), indices.begin() + ptrdiff_t(3 * (indices.size() / 3)));
    finishTopology(t, entries, corners, [&](uint32_t v) { return normals.empty() ? glm::vec3(0.0f) : normals[v]; },
                   normals.empty());
    return t;
}

ReferenceTopology meshTopologyWithGroups(std::span<const uint32_t> indices, std::vector<uint32_t> groups)
{
    ReferenceTopology t;
    t.vertexBegin = {0, uint32_t(groups.size())};
    t.triangleBegin = {0, uint32_t(indices.size() / 3)};
    for (size_t v = 0; v < groups.size(); ++v)
        assert(groups[v] < groups.size());
    t.group = std::move(groups);
    fillAdjacency(t, std::vector<uint32_t>(indices.begin(), indices.begin() + ptrdiff_t(3 * (indices.size() / 3))));
    return t;
}

ReferenceKernel bestReferenceKernel()
{
    static const ReferenceKernel best = cpuHasAvx512() ? ReferenceKernel::Avx512
                                        : cpuHasAvx2()  ? ReferenceKernel::Avx2
                                                        : ReferenceKernel::Scalar;
    return best;
}

const char* referenceKernelName(ReferenceKernel k)
{
    return k == ReferenceKernel::Avx512 ? "AVX-512" : k == ReferenceKernel::Avx2 ? "AVX2" : "scalar";
}

namespace {

void runFaces(ReferenceKernel kernel, const detail::FaceArgs& a, size_t first, size_t last)
{
    if (kernel == ReferenceKernel::Avx512)
        detail::faceTermsAvx512(a, first, last);
    else if (kernel == ReferenceKernel::Avx2)
        detail::faceTermsAvx2(a, first, last);
    else
        for (size_t t = first; t < last; ++t)
            detail::faceTerms(a, t);
}

void runGather(ReferenceKernel kernel, const detail::GatherArgs& a, size_t first, size_t last)
{
    if (kernel == ReferenceKernel::Avx512)
        detail::gatherFramesAvx512(a, first, last);
    else if (kernel == ReferenceKernel::Avx2)
        detail::gatherFramesAvx2(a, first, last);
    else
        for (size_t v = first; v < last; ++v)
            detail::gatherVertex(a, v);
}

/// Face arguments of a mesh's triangles from its triangle `first` on, their rows written from `pairs` (two rows a
/// triangle) and `bitangents` on (the kernels' triangle 0 is `first`).
detail::FaceArgs faceArgs(std::span<const glm::vec3> positions, std::span<const glm::vec2> uvs,
                          std::span<const glm::vec4> uvDifferences, std::span<const uint32_t> indices, size_t first,
                          glm::vec4* pairs, glm::vec4* bitangents)
{
    detail::FaceArgs a;
    a.positions = positions.data();
    a.uvs = uvs.empty() ? nullptr : uvs.data();
    assert(uvDifferences.empty() || (!uvs.empty() && uvDifferences.size() == indices.size() / 3));
    if (a.uvs && !uvDifferences.empty())
        a.uvDifferences = reinterpret_cast<const float*>(uvDifferences.data() + first);
    a.indices = indices.data() + 3 * first;
    a.triangleCount = indices.size() / 3 - first;
    a.pairs = reinterpret_cast<float*>(pairs);
    a.bitangents = reinterpret_cast<float*>(bitangents);
    a.vertexCount = positions.size();
    return a;
}

/// Gather arguments of mesh `mesh`, reading global triangle t's rows at index t & mask of `pairs` (two rows a
/// triangle) and `bitangents` (all ones: the scratch's arrays; the window size - 1: a window).
detail::GatherArgs gatherArgs(const ReferenceTopology& topology, size_t mesh, bool hasUvs,
                              std::span<glm::vec3> outNormals, std::span<glm::vec4> outTangents,
                              const glm::vec4* pairs, const glm::vec4* bitangents, uint32_t mask)
{
    const size_t vb = topology.vertexBegin[mesh];
    assert(outNormals.size() == topology.vertexBegin[mesh + 1] - vb);
    assert(outTangents.empty() || outTangents.size() == outNormals.size());
    detail::GatherArgs a;
    a.group = topology.group.data() + vb;
    a.gOff = topology.groupTriangleOffsets.data();
    a.gTri = topology.groupTriangles.data();
    a.vOff = topology.vertexTriangleOffsets.data() + vb;
    a.vTri = topology.vertexTriangles.data();
    a.facePairs = reinterpret_cast<const float*>(pairs);
    a.faceBitangents = reinterpret_cast<const float*>(bitangents);
    // Component stores (a glm::vec3 store per vertex went through the stack: a store-forwarding stall each).
    a.normals = reinterpret_cast<float*>(outNormals.data()); // null for an empty mesh: never dereferenced then
    a.tangents = outTangents.empty() ? nullptr : reinterpret_cast<float*>(outTangents.data());
    a.withTangents = a.tangents && hasUvs;
    a.vertexBegin = uint32_t(vb);
    a.faceMask = mask;
    return a;
}

/// A thread's window of face rows for the schedule (allocated once per thread and size).
struct FaceWindow {
    AlignedVector<glm::vec4> pairs, bitangents; ///< two rows a triangle, one
};

FaceWindow& threadWindow(size_t triangles)
{
    thread_local FaceWindow w;
    if (w.bitangents.size() < triangles) {
        w.pairs.assign(2 * triangles, glm::vec4(0.0f));
        w.bitangents.assign(triangles, glm::vec4(0.0f));
    }
    return w;
}

/// Task `task` of the schedule: its chunks' triangles into this thread's window, each chunk gathered from it.
void runScheduledTask(const ReferenceTopology& topology, std::span<const ReferenceMeshIO> meshes,
                      ReferenceKernel kernel, size_t task)
{
    const ReferenceTopology::Schedule& s = topology.schedule;
    const uint32_t size = s.windowTriangles, mask = size - 1;
    FaceWindow& w = threadWindow(size);
    uint32_t computed = 0; // triangles [.., computed) are in the window
    bool started = false;
    size_t mesh = 0;       // the mesh of triangle `computed`, found when first needed
    for (uint32_t c = s.taskBegin[task]; c < s.taskBegin[task + 1]; ++c) {
        if (s.needEnd[c] > s.needBegin[c]) {
            if (!started) {
                computed = s.needBegin[c];
                started = true;
                mesh = size_t(std::upper_bound(topology.triangleBegin.begin(), topology.triangleBegin.end(), computed) -
                              topology.triangleBegin.begin()) - 1;
            }
            assert(s.needBegin[c] + size >= std::max(computed, s.needEnd[c]));
            while (computed < s.needEnd[c]) {
                while (topology.triangleBegin[mesh + 1] <= computed)
                    ++mesh;
                // Up to the chunk's need (rounded up: kFaceCallAlign), the mesh's end and the window's end, whichever
                // comes first.
                const uint32_t need = s.needEnd[c] - computed;
                const uint32_t end = std::min({computed + (need + kFaceCallAlign - 1) / kFaceCallAlign * kFaceCallAlign,
                                               topology.triangleBegin[mesh + 1], (computed | mask) + 1});
                const ReferenceMeshIO& io = meshes[mesh];
                const size_t row = computed & mask;
                runFaces(kernel,
                         faceArgs(io.positions, io.uvs, io.uvDifferences, io.indices, computed - topology.triangleBegin[mesh],
                                  &w.pairs[2 * row], &w.bitangents[row]),
                         0, end - computed);
                computed = end;
            }
        }
        const size_t m = s.chunkMesh[c];
        const ReferenceMeshIO& io = meshes[m];
        detail::GatherArgs a = gatherArgs(topology, m, !io.uvs.empty(), io.outNormals, io.outTangents, w.pairs.data(),
                                          w.bitangents.data(), mask);
        a.compactBegin = s.compactBegin.data() + topology.vertexBegin[m];
        a.compactTri = s.compactTriangles.data();
        const uint32_t vb = topology.vertexBegin[m];
        runGather(kernel, a, s.chunkBegin[c] - vb, s.chunkBegin[c + 1] - vb);
    }
}

} // namespace

void rebuildFaces(const ReferenceTopology& topology, size_t mesh, std::span<const glm::vec3> positions,
                  std::span<const glm::vec2> uvs, std::span<const uint32_t> indices, ReferenceScratch& scratch,
                  std::span<const glm::vec4> uvDifferences)
{
    assert(mesh + 1 < topology.triangleBegin.size());
    const size_t total = topology.triangleCount();
    if (scratch.faceBitangents.size() != total) {
        scratch.facePairs.assign(2 * total, glm::vec4(0.0f));
        scratch.faceBitangents.assign(total, glm::vec4(0.0f));
    }
    const size_t tb = topology.triangleBegin[mesh];
    const size_t triangles = topology.triangleBegin[mesh + 1] - tb;
    assert(indices.size() >= 3 * triangles);
    assert(positions.size() == topology.vertexBegin[mesh + 1] - topology.vertexBegin[mesh]);
    assert(uvs.empty() || uvs.size() == positions.size());
    const detail::FaceArgs a = faceArgs(positions, uvs, uvDifferences, indices, 0, scratch.facePairs.data() + 2 * tb,
                                        scratch.faceBitangents.data() + tb);
    const ReferenceKernel kernel = scratch.kernel;
    parallelFor(triangles, kTriangleGrain, 0,
                [&a, kernel](size_t first, size_t last) { runFaces(kernel, a, first, last); });
}

void gatherFrames(const ReferenceTopology& topology, size_t mesh, bool hasUvs, const ReferenceScratch& scratch,
                  std::span<glm::vec3> outNormals, std::span<glm::vec4> outTangents)
{
    assert(mesh + 1 < topology.vertexBegin.size());
    assert(scratch.faceBitangents.size() == topology.triangleCount());
    const detail::GatherArgs a = gatherArgs(topology, mesh, hasUvs, outNormals, outTangents, scratch.facePairs.data(),
                                            scratch.faceBitangents.data(), ~0u);
    const ReferenceKernel kernel = scratch.kernel;
    parallelFor(outNormals.size(), kVertexGrain, 0,
                [&a, kernel](size_t first, size_t last) { runGather(kernel, a, first, last); });
}

void referenceUvDifferences(std::span<const glm::vec2> uvs, std::span<const uint32_t> indices,
                            AlignedVector<glm::vec4>& out)
{
    const size_t triangles = indices.size() / 3;
    out.resize(triangles);
    for (size_t t = 0; t < triangles; ++t) {
        const uint32_t i0 = indices[3 * t], i1 = indices[3 * t + 1], i2 = indices[3 * t + 2];
        assert(i0 < uvs.size() && i1 < uvs.size() && i2 < uvs.size());
        // faceTerms' d1 and d2.
        out[t] = glm::vec4(uvs[i1] - uvs[i0], uvs[i2] - uvs[i0]);
    }
}

void rebuildReference(const ReferenceTopology& topology, std::span<const ReferenceMeshIO> meshes,
                      ReferenceScratch& scratch)
{
    assert(meshes.size() + 1 == topology.vertexBegin.size());
    const ReferenceTopology::Schedule& s = topology.schedule;
    if (s.windowTriangles == 0) {
        for (size_t m = 0; m < meshes.size(); ++m)
            rebuildFaces(topology, m, meshes[m].positions, meshes[m].uvs, meshes[m].indices, scratch,
                         meshes[m].uvDifferences);
        for (size_t m = 0; m < meshes.size(); ++m)
            gatherFrames(topology, m, !meshes[m].uvs.empty(), scratch, meshes[m].outNormals, meshes[m].outTangents);
        return;
    }
    for (size_t m = 0; m < meshes.size(); ++m) {
        assert(meshes[m].positions.size() == topology.vertexBegin[m + 1] - topology.vertexBegin[m]);
        assert(meshes[m].uvs.empty() || meshes[m].uvs.size() == meshes[m].positions.size());
        assert(meshes[m].indices.size() >= 3 * size_t(topology.triangleBegin[m + 1] - topology.triangleBegin[m]));
        assert(meshes[m].outNormals.size() == meshes[m].positions.size());
        assert(meshes[m].uvDifferences.empty() || meshes[m].uvDifferences.size() == meshes[m].indices.size() / 3);
    }
    const ReferenceKernel kernel = scratch.kernel;
    parallelFor(s.taskBegin.size() - 1, 1, 0, [&](size_t first, size_t last) {
        for (size_t task = first; task < last; ++task)
            runScheduledTask(topology, meshes, kernel, task);
    });
}

std::vector<BindReference> rebuildBindReference(const Rig& rig, const ReferenceTopology& topology)
{
    ReferenceScratch scratch;
    std::vector<BindReference> bind(rig.meshes.size());
    std::vector<ReferenceMeshIO> io(rig.meshes.size());
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        bind[m].normals.resize(mesh.vertexCount());
        bind[m].tangents.resize(mesh.hasTangents() ? mesh.vertexCount() : 0);
        io[m] = {mesh.positions, mesh.uvs, mesh.indices, bind[m].normals, bind[m].tangents, {}};
    }
    rebuildReference(topology, io, scratch);
    return bind;
}

void rebuildMeshFrames(const ReferenceTopology& topology, std::span<const glm::vec3> positions,
                       std::span<const glm::vec2> uvs, std::span<const uint32_t> indices, std::span<glm::vec3> outNormals,
                       std::span<glm::vec4> outTangents, ReferenceScratch& scratch)
{
    assert(topology.vertexBegin.size() == 2);
    const ReferenceMeshIO io{positions, uvs, indices, outNormals, outTangents, {}};
    rebuildReference(topology, std::span(&io, 1), scratch);
}

} // namespace rig
