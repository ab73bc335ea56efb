#include "rig/analysis/reference.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

#include "rig/analysis/reference_kernels.h"
#include "rig/deform/parallel.h"
#include "rig/model/cpu_features.h"
#include "rig/model/math.h"

namespace rig {

namespace {

constexpr size_t kTriangleGrain = 16384;
constexpr size_t kVertexGrain = 16384;

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

void rebuildFaces(const ReferenceTopology& topology, size_t mesh, std::span<const glm::vec3> positions,
                  std::span<const glm::vec2> uvs, std::span<const uint32_t> indices, ReferenceScratch& scratch)
{
    assert(mesh + 1 < topology.triangleBegin.size());
    const size_t total = topology.triangleCount();
    for (AlignedVector<glm::vec4>* rows : {&scratch.faceNormals, &scratch.faceTangents, &scratch.faceBitangents})
        if (rows->size() != total)
            rows->assign(total, glm::vec4(0.0f));
    const size_t tb = topology.triangleBegin[mesh];
    const size_t triangles = topology.triangleBegin[mesh + 1] - tb;
    assert(indices.size() >= 3 * triangles);
    assert(positions.size() == topology.vertexBegin[mesh + 1] - topology.vertexBegin[mesh]);
    assert(uvs.empty() || uvs.size() == positions.size());
    detail::FaceArgs a;
    a.positions = positions.data();
    a.uvs = uvs.empty() ? nullptr : uvs.data();
    a.indices = indices.data();
    a.normals = reinterpret_cast<float*>(scratch.faceNormals.data() + tb);
    a.tangents = reinterpret_cast<float*>(scratch.faceTangents.data() + tb);
    a.bitangents = reinterpret_cast<float*>(scratch.faceBitangents.data() + tb);
    const ReferenceKernel kernel = scratch.kernel;
    parallelFor(triangles, kTriangleGrain, 0, [&a, kernel](size_t first, size_t last) {
        if (kernel == ReferenceKernel::Avx512) {
            detail::faceTermsAvx512(a, first, last);
            return;
        }
        if (kernel == ReferenceKernel::Avx2) {
            detail::faceTermsAvx2(a, first, last);
            return;
        }
        for (size_t t = first; t < last; ++t)
            detail::faceTerms(a, t);
    });
}

void gatherFrames(const ReferenceTopology& topology, size_t mesh, bool hasUvs, const ReferenceScratch& scratch,
                  std::span<glm::vec3> outNormals, std::span<glm::vec4> outTangents)
{
    assert(mesh + 1 < topology.vertexBegin.size());
    const size_t vb = topology.vertexBegin[mesh];
    const size_t n = topology.vertexBegin[mesh + 1] - vb;
    assert(outNormals.size() == n && (outTangents.empty() || outTangents.size() == n));
    assert(scratch.faceNormals.size() == topology.triangleCount());
    detail::GatherArgs a;
    a.group = topology.group.data() + vb;
    a.gOff = topology.groupTriangleOffsets.data();
    a.gTri = topology.groupTriangles.data();
    a.vOff = topology.vertexTriangleOffsets.data() + vb;
    a.vTri = topology.vertexTriangles.data();
    a.faceNormals = reinterpret_cast<const float*>(scratch.faceNormals.data());
    a.faceTangents = reinterpret_cast<const float*>(scratch.faceTangents.data());
    a.faceBitangents = reinterpret_cast<const float*>(scratch.faceBitangents.data());
    // Component stores (a glm::vec3 store per vertex went through the stack: a store-forwarding stall each).
    a.normals = reinterpret_cast<float*>(outNormals.data()); // null for an empty mesh: never dereferenced then
    a.tangents = outTangents.empty() ? nullptr : reinterpret_cast<float*>(outTangents.data());
    a.withTangents = a.tangents && hasUvs;
    a.vertexBegin = uint32_t(vb);
    const ReferenceKernel kernel = scratch.kernel;
    parallelFor(n, kVertexGrain, 0, [&a, kernel](size_t first, size_t last) {
        if (kernel == ReferenceKernel::Avx512) {
            detail::gatherFramesAvx512(a, first, last);
            return;
        }
        if (kernel == ReferenceKernel::Avx2) {
            detail::gatherFramesAvx2(a, first, last);
            return;
        }
        for (size_t v = first; v < last; ++v)
            detail::gatherVertex(a, v);
    });
}

std::vector<BindReference> rebuildBindReference(const Rig& rig, const ReferenceTopology& topology)
{
    ReferenceScratch scratch;
    for (size_t m = 0; m < rig.meshes.size(); ++m)
        rebuildFaces(topology, m, rig.meshes[m].positions, rig.meshes[m].uvs, rig.meshes[m].indices, scratch);
    std::vector<BindReference> bind(rig.meshes.size());
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        bind[m].normals.resize(mesh.vertexCount());
        bind[m].tangents.resize(mesh.hasTangents() ? mesh.vertexCount() : 0);
        gatherFrames(topology, m, !mesh.uvs.empty(), scratch, bind[m].normals, bind[m].tangents);
    }
    return bind;
}

void rebuildMeshFrames(const ReferenceTopology& topology, std::span<const glm::vec3> positions,
                       std::span<const glm::vec2> uvs, std::span<const uint32_t> indices, std::span<glm::vec3> outNormals,
                       std::span<glm::vec4> outTangents, ReferenceScratch& scratch)
{
    assert(topology.vertexBegin.size() == 2);
    rebuildFaces(topology, 0, positions, uvs, indices, scratch);
    gatherFrames(topology, 0, !uvs.empty(), scratch, outNormals, outTangents);
}

} // namespace rig
