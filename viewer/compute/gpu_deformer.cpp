#include "gpu_deformer.h"

#include <QFile>
#include <QtGui/private/qrhi_p.h>
#include <QtGui/private/qshader_p.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "rig/analysis/diagnosis/dq_displacement.h"
#include "rig/deform/engine_profiles.h"

namespace viewer {

namespace {

constexpr uint32_t kNone = 0xffffffffu;
constexpr size_t kMeshStride = 8;      // uints per mesh in the layout buffer
constexpr size_t kJointFloats = 52;    // 13 vec4 per palette entry (see struct Joint in deform_skin.comp)
constexpr size_t kParamCount = 16;     // uints in the Params uniform block

// Indices into the Params block (same order as the GLSL declaration).
enum Param {
    ParamMethod,
    ParamMorphNormals,
    ParamInfluences,
    ParamVertexCount,
    ParamTriangleCount,
    ParamMeshCount,
    ParamGroupCount,
    ParamGroupsX,
    ParamTriangleGroupsX,
    ParamTriangleGroupCount,
    ParamAdjGroupBase,
    ParamAdjNormalOffsetBase,
    ParamAdjTangentOffsetBase,
    ParamAdjNormalListBase,
    ParamAdjTangentListBase,
    ParamGradEntryBase,
};

enum MeshFlag : uint32_t { MeshHasTangents = 1, MeshHasUvs = 2, MeshSkinned = 4 };

uint32_t floatBits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

float bitsFloat(uint32_t u)
{
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

QShader loadShader(const char* name)
{
    QFile f(QStringLiteral(":/rigscope/shaders/%1.comp.qsb").arg(QLatin1String(name)));
    if (!f.open(QIODevice::ReadOnly))
        return QShader();
    return QShader::fromSerialized(f.readAll());
}

template <typename T>
void deleteResource(T*& r)
{
    delete r;
    r = nullptr;
}

size_t groupsFor(size_t count)
{
    return (count + size_t(GpuDeformer::kGroupSize) - 1) / size_t(GpuDeformer::kGroupSize);
}

} // namespace

GpuDeformer::GpuDeformer(QRhi* rhi) : m_rhi(rhi)
{
    m_params.assign(kParamCount, 0u);
}

GpuDeformer::~GpuDeformer()
{
    release();
}

void GpuDeformer::release()
{
    if (m_pending) {
        m_pending->release();
        m_pending = nullptr;
    }
    for (int p = 0; p < PassCount; ++p) {
        deleteResource(m_pipeline[p]);
        deleteResource(m_srb[p]);
    }
    QRhiBuffer** buffers[] = {&m_paramsBuffer, &m_layout,    &m_rest,      &m_uvs,        &m_targets,     &m_weights,
                              &m_deltas,       &m_paletteBuffer, &m_influences, &m_gradients, &m_triangles,
                              &m_adjacency,    &m_morphed,   &m_faces,     &m_partials,   &m_positions,   &m_normals,
                              &m_tangents,     &m_refNormals, &m_refTangents, &m_errors,  &m_flags,       &m_bounds, &m_bindReference, &m_rawInfluences, &m_blendScale,
                              &m_indices, &m_compareParams, &m_compareInfluences, &m_compareGradients,
                              &m_comparePositions, &m_compareNormals, &m_compareTangents, &m_compareFlags, &m_formatDiff};
    for (QRhiBuffer** b : buffers)
        deleteResource(*b);
    m_ready = false;
    m_hasComparison = false;
    m_dirty = 0;
    m_rig = nullptr;
    m_runtime = nullptr;
    m_meshes.clear();
    m_paletteSources.clear();
    m_vertexCount = m_triangleCount = m_groupCount = m_morphTargetCount = m_staticBytes = 0;
}

QRhiResourceUpdateBatch* GpuDeformer::pendingBatch()
{
    if (!m_pending)
        m_pending = m_rhi->nextResourceUpdateBatch();
    return m_pending;
}

namespace {
/// Words of the raw influence buffer: N + 1 offsets and two per authored influence.
size_t rawInfluenceWords(const rig::Rig& rig)
{
    size_t words = 1;
    for (const rig::Mesh& m : rig.meshes) {
        words += m.vertexCount();
        if (m.isSkinned() && m.influenceOffsets.size() == m.vertexCount() + 1)
            words += 2 * std::min<size_t>(m.influenceOffsets.back(), m.influences.size());
    }
    return words;
}
} // namespace

rig::Result<bool> packComparison(const rig::Rig& rig, const rig::RigRuntime& reference, GpuRigPack& pack)
{
    if (!(reference.format == rig::kReferenceFormat))
        return rig::fail("the comparison must be built with the float reference's format");
    auto packed = packGpuRig(rig, reference);
    if (!packed)
        return rig::fail(packed.error());
    if (packed.value().vertices != pack.vertices || packed.value().groups != pack.groups)
        return rig::fail("the comparison was built for another rig");
    pack.compareInfluenceWords = std::move(packed.value().influenceWords);
    pack.compareGradients = std::move(packed.value().gradients);
    return true;
}

rig::Result<GpuRigPack> packGpuRig(const rig::Rig& rig, const rig::RigRuntime& runtime)
{
    auto fail = [](const std::string& message) { return rig::fail(message); };
    if (runtime.meshes.size() != rig.meshes.size())
        return fail("the runtime data was built for another rig");
    const int k = runtime.influencesPerVertex;
    if (k != 4 && k != 8)
        return fail("influences per vertex must be 4 or 8");
    const size_t meshCount = rig.meshes.size();
    const size_t blocks = size_t(k) / 4;

    // --- Layout: ranges, palette, validation --------------------------------------------------------------------
    GpuRigPack pack;
    pack.influences = k;
    pack.meshes.resize(meshCount);
    std::vector<int> skinBase(rig.skins.size(), -1);
    size_t vertices = 0, triangles = 0, groups = 0, targets = 0, gradientEntries = 0;
    for (size_t m = 0; m < meshCount; ++m) {
        const rig::Mesh& mesh = rig.meshes[m];
        const rig::MeshRuntime& mr = runtime.meshes[m];
        GpuMeshRange& r = pack.meshes[m];
        const size_t n = mesh.vertexCount();
        const std::string where = "mesh " + std::to_string(m) + " ('" + mesh.name + "'): ";
        if (mesh.normals.size() != n)
            return fail(where + "normal count differs from the vertex count");
        if (!mesh.tangents.empty() && mesh.tangents.size() != n)
            return fail(where + "tangent count differs from the vertex count");
        if (!mesh.uvs.empty() && mesh.uvs.size() != n)
            return fail(where + "UV count differs from the vertex count");
        if (mr.stream.joints.size() != n * size_t(k) || mr.stream.weights.size() != n * size_t(k))
            return fail(where + "influence stream size mismatch");
        if (mr.gradients.offsets.size() != n + 1 || mr.gradients.joints.size() != mr.gradients.gradients.size() ||
            mr.gradients.offsets.back() > mr.gradients.joints.size())
            return fail(where + "weight gradient size mismatch");
        for (uint32_t idx : mesh.indices)
            if (idx >= n)
                return fail(where + "triangle index out of range");
        for (const rig::MorphTarget& t : mesh.morphTargets) {
            if (t.positionDeltas.size() != n || (!t.normalDeltas.empty() && t.normalDeltas.size() != n) ||
                (!t.tangentDeltas.empty() && t.tangentDeltas.size() != n))
                return fail(where + "morph target '" + t.name + "' has a wrong delta count");
        }

        r.vertexBegin = uint32_t(vertices);
        r.vertexCount = uint32_t(n);
        r.triangleBegin = uint32_t(triangles);
        r.triangleCount = uint32_t(mesh.triangleCount());
        r.groupBegin = uint32_t(groups);
        r.groupCount = uint32_t(groupsFor(n));
        r.morphBegin = uint32_t(targets);
        r.morphCount = uint32_t(mesh.morphTargets.size());
        r.hasTangents = mesh.hasTangents();
        r.hasUvs = !mesh.uvs.empty();
        r.skinned = mesh.isSkinned();
        if (mesh.isSkinned()) {
            if (size_t(mesh.skin) >= rig.skins.size())
                return fail(where + "skin index out of range");
            const rig::Skin& skin = rig.skins[size_t(mesh.skin)];
            int& base = skinBase[size_t(mesh.skin)];
            if (base < 0) {
                base = int(pack.paletteSources.size());
                for (size_t j = 0; j <= skin.joints.size(); ++j) // the last one is the identity entry
                    pack.paletteSources.push_back({mesh.skin, int(j), -1});
            }
            r.paletteBegin = uint32_t(base);
            r.paletteCount = uint32_t(skin.joints.size() + 1);
        } else {
            r.paletteBegin = uint32_t(pack.paletteSources.size());
            r.paletteCount = 1;
            pack.paletteSources.push_back({-1, -1, mesh.node});
        }
        for (uint16_t j : mr.stream.joints)
            if (j >= r.paletteCount)
                return fail(where + "influence joint index outside the palette");
        for (uint16_t j : mr.gradients.joints)
            if (j >= r.paletteCount)
                return fail(where + "weight gradient joint index outside the palette");

        vertices += n;
        triangles += r.triangleCount;
        groups += r.groupCount;
        targets += r.morphCount;
        gradientEntries += mr.gradients.joints.size();
    }
    // Every size must fit the 32-bit offsets of the shaders and QRhi's int buffer sizes.
    const size_t limit = size_t(std::numeric_limits<int>::max()) / 64;
    if (vertices > limit || triangles > limit || gradientEntries > limit)
        return fail("the rig is too large for the GPU path (" + std::to_string(vertices) + " vertices)");
    pack.vertices = vertices;
    pack.triangles = triangles;
    pack.groups = groups;
    pack.morphTargets = targets;
    const size_t N = vertices, T = triangles, G = groups;

    // --- Static arrays ------------------------------------------------------------------------------------------
    std::vector<uint32_t>& layout = pack.layout;
    std::vector<float>& rest = pack.rest;
    std::vector<float>& uvs = pack.uvs;
    std::vector<uint32_t>& targetInfo = pack.targetInfo;
    std::vector<float>& deltas = pack.deltas;
    std::vector<uint32_t>& influences = pack.influenceWords;
    std::vector<uint32_t>& gradients = pack.gradients;
    std::vector<uint32_t>& tris = pack.triangleWords;
    std::vector<uint32_t>& indices = pack.indices;
    layout.assign(meshCount * kMeshStride + G, 0u);
    rest.assign(12 * N, 0.0f);
    uvs.assign(2 * std::max<size_t>(N, 1), 0.0f);
    targetInfo.assign(4 * std::max<size_t>(targets, 1), kNone);
    influences.assign(2 * blocks * 4 * N, 0u);
    gradients.assign(N + 1 + 4 * gradientEntries + 4 * N, 0u); // offsets, entries, centres of rotation
    tris.assign(4 * T, 0u);
    indices.assign(3 * T, 0u);

    size_t deltaCount = 0;
    for (const rig::Mesh& mesh : rig.meshes)
        for (const rig::MorphTarget& t : mesh.morphTargets)
            deltaCount += mesh.vertexCount() * (1 + (t.normalDeltas.empty() ? 0 : 1) +
                                                (t.tangentDeltas.empty() || !mesh.hasTangents() ? 0 : 1));
    if (deltaCount > limit)
        return fail("too many morph target deltas for the GPU path");
    deltas.reserve(4 * std::max<size_t>(deltaCount, 1));

    size_t gradientEntry = 0;
    for (size_t m = 0; m < meshCount; ++m) {
        const rig::Mesh& mesh = rig.meshes[m];
        const rig::MeshRuntime& mr = runtime.meshes[m];
        const GpuMeshRange& r = pack.meshes[m];
        const size_t n = r.vertexCount, vb = r.vertexBegin;
        uint32_t* info = &layout[m * kMeshStride];
        info[0] = r.vertexBegin;
        info[1] = r.vertexCount;
        info[2] = r.groupBegin;
        info[3] = r.groupCount;
        info[4] = r.morphBegin;
        info[5] = r.morphCount;
        info[6] = (r.hasTangents ? MeshHasTangents : 0u) | (r.hasUvs ? MeshHasUvs : 0u) | (r.skinned ? MeshSkinned : 0u);
        info[7] = r.paletteBegin;
        for (uint32_t g = 0; g < r.groupCount; ++g)
            layout[meshCount * kMeshStride + r.groupBegin + g] = uint32_t(m);

        for (size_t v = 0; v < n; ++v) {
            float* p = &rest[4 * (vb + v)];
            p[0] = mesh.positions[v].x, p[1] = mesh.positions[v].y, p[2] = mesh.positions[v].z, p[3] = 1.0f;
            float* nr = &rest[4 * (N + vb + v)];
            nr[0] = mesh.normals[v].x, nr[1] = mesh.normals[v].y, nr[2] = mesh.normals[v].z, nr[3] = 0.0f;
            if (r.hasTangents) {
                float* t = &rest[4 * (2 * N + vb + v)];
                t[0] = mesh.tangents[v].x, t[1] = mesh.tangents[v].y, t[2] = mesh.tangents[v].z, t[3] = mesh.tangents[v].w;
            }
            if (r.hasUvs) {
                uvs[2 * (vb + v)] = mesh.uvs[v].x;
                uvs[2 * (vb + v) + 1] = mesh.uvs[v].y;
            }
            // Influences: K/4 blocks of (4 palette indices, 4 weight bits).
            for (size_t b = 0; b < blocks; ++b) {
                uint32_t* blk = &influences[((vb + v) * blocks + b) * 8];
                for (size_t c = 0; c < 4; ++c) {
                    const size_t s = v * size_t(k) + 4 * b + c;
                    blk[c] = r.paletteBegin + mr.stream.joints[s];
                    blk[4 + c] = floatBits(mr.stream.weights[s]);
                }
            }
        }

        // Morph targets.
        for (size_t t = 0; t < mesh.morphTargets.size(); ++t) {
            const rig::MorphTarget& target = mesh.morphTargets[t];
            uint32_t* ti = &targetInfo[4 * (r.morphBegin + t)];
            auto append = [&](const std::vector<glm::vec3>& d) {
                const uint32_t first = uint32_t(deltas.size() / 4);
                for (const glm::vec3& x : d)
                    deltas.insert(deltas.end(), {x.x, x.y, x.z, 0.0f});
                return first;
            };
            ti[0] = append(target.positionDeltas);
            ti[1] = target.normalDeltas.empty() ? kNone : append(target.normalDeltas);
            ti[2] = target.tangentDeltas.empty() || !r.hasTangents ? kNone : append(target.tangentDeltas);
            ti[3] = 0;
        }

        // Jacobian weight gradients: global CSR.
        for (size_t v = 0; v < n; ++v)
            gradients[vb + v] = uint32_t(gradientEntry + mr.gradients.offsets[v]);
        for (size_t e = 0; e < mr.gradients.joints.size(); ++e) {
            uint32_t* g = &gradients[N + 1 + 4 * (gradientEntry + e)];
            g[0] = floatBits(mr.gradients.gradients[e].x);
            g[1] = floatBits(mr.gradients.gradients[e].y);
            g[2] = floatBits(mr.gradients.gradients[e].z);
            g[3] = r.paletteBegin + mr.gradients.joints[e];
        }
        gradientEntry += mr.gradients.joints.size();

        // Centres of rotation: after every mesh's gradient entries (placed below, once their count is known).

        // Triangles (global corner indices, mesh) and the draw index list.
        for (size_t t = 0; t < r.triangleCount; ++t) {
            const size_t gt = r.triangleBegin + t;
            for (int c = 0; c < 3; ++c) {
                tris[4 * gt + size_t(c)] = uint32_t(vb) + mesh.indices[3 * t + size_t(c)];
                indices[3 * gt + size_t(c)] = uint32_t(vb) + mesh.indices[3 * t + size_t(c)];
            }
            tris[4 * gt + 3] = uint32_t(m);
        }
    }
    gradients[N] = uint32_t(gradientEntry);
    // The centres of rotation, 4 uints a global vertex after the gradient entries (deform_skin.comp).
    for (size_t m = 0; m < meshCount; ++m) {
        const rig::MeshRuntime& mr = runtime.meshes[m];
        const GpuMeshRange& r = pack.meshes[m];
        float largestRadius = 0.0f;
        for (float x : mr.limbRadius)
            largestRadius = std::max(largestRadius, x);
        for (size_t v = 0; v < r.vertexCount; ++v) {
            const glm::vec3 c = v < mr.centers.size() ? mr.centers[v] : rig.meshes[m].positions[v];
            uint32_t* g = &gradients[N + 1 + 4 * gradientEntry + 4 * (r.vertexBegin + v)];
            g[0] = floatBits(c.x);
            g[1] = floatBits(c.y);
            g[2] = floatBits(c.z);
            // The limb radius, 0 where measureDqDisplacement leaves the fraction undefined.
            const float radius = v < mr.limbRadius.size() ? mr.limbRadius[v] : 0.0f;
            g[3] = floatBits(radius > rig::kMinLimbRadiusFraction * largestRadius && radius > 0.0f ? radius : 0.0f);
        }
    }
    if (deltas.empty())
        deltas.assign(4, 0.0f);

    // Adjacency for the reference gather: the runtime's topology over all meshes (rig/analysis/reference/reference.h), whose
    // global numbering is this deformer's: the group representative of every vertex, the group triangle lists
    // (normals) and every vertex's own triangle list (tangents), both CSR, triangles in increasing order with
    // multiplicity — the order in which the CPU's gather adds them.
    const rig::ReferenceTopology& topo = runtime.reference;
    if (runtime.bind.size() != meshCount)
        return fail("the bind reference does not match the rig");
    for (size_t m = 0; m < meshCount; ++m)
        if (runtime.bind[m].normals.size() != rig.meshes[m].vertexCount() ||
            (!runtime.bind[m].tangents.empty() && runtime.bind[m].tangents.size() != rig.meshes[m].vertexCount()) ||
            (!runtime.meshes[m].carryEdges.partner.empty() &&
             runtime.meshes[m].carryEdges.partner.size() != rig.meshes[m].vertexCount()))
            return fail("the bind reference does not match the rig");
    if (topo.vertexCount() != N || topo.triangleCount() != T || topo.groupTriangleOffsets.size() != N + 1 ||
        topo.vertexTriangleOffsets.size() != N + 1 || topo.groupTriangles.size() != 3 * T ||
        topo.vertexTriangles.size() != 3 * T)
        return fail("the reference topology does not match the rig");
    const size_t adjGroupBase = 0, adjNormalOffsetBase = N, adjTangentOffsetBase = 2 * N + 1;
    const size_t adjNormalListBase = 3 * N + 2, adjTangentListBase = adjNormalListBase + 3 * T;
    std::vector<uint32_t>& adjacency = pack.adjacency;
    adjacency.assign(adjTangentListBase + 3 * T + 1, 0u);
    std::copy(topo.group.begin(), topo.group.end(), adjacency.begin() + ptrdiff_t(adjGroupBase));
    std::copy(topo.groupTriangleOffsets.begin(), topo.groupTriangleOffsets.end(), adjacency.begin() + ptrdiff_t(adjNormalOffsetBase));
    std::copy(topo.vertexTriangleOffsets.begin(), topo.vertexTriangleOffsets.end(),
              adjacency.begin() + ptrdiff_t(adjTangentOffsetBase));
    std::copy(topo.groupTriangles.begin(), topo.groupTriangles.end(), adjacency.begin() + ptrdiff_t(adjNormalListBase));
    std::copy(topo.vertexTriangles.begin(), topo.vertexTriangles.end(), adjacency.begin() + ptrdiff_t(adjTangentListBase));

    {
        // The reference at the bind pose (rig::RigRuntime::bind): normals, then tangents; then the carrier edges
        // (rig::MeshRuntime::carryEdges): the bind tangent, and w the far end's global index (0xFFFFFFFF: none).
        std::vector<float>& bind = pack.bind;
        bind.assign(12 * std::max<size_t>(N, 1), 0.0f);
        for (size_t m = 0; m < meshCount; ++m) {
            const rig::BindReference& b = runtime.bind[m];
            const size_t vb = pack.meshes[m].vertexBegin;
            for (size_t v = 0; v < b.normals.size(); ++v)
                std::memcpy(&bind[4 * (vb + v)], &b.normals[v], 12);
            for (size_t v = 0; v < b.tangents.size(); ++v)
                std::memcpy(&bind[4 * (N + vb + v)], &b.tangents[v], 16);
            const rig::CarryEdges& edges = runtime.meshes[m].carryEdges;
            for (size_t v = 0; v < edges.partner.size(); ++v) {
                const uint32_t q = edges.partner[v];
                std::memcpy(&bind[4 * (2 * N + vb + v)], &edges.bindTangents[v], 12);
                const uint32_t global = q == rig::CarryEdges::kNone ? q : uint32_t(vb + q);
                std::memcpy(&bind[4 * (2 * N + vb + v) + 3], &global, 4);
            }
        }
    }
    {
        // The raw influences as authored, for the weight views: [0, N]: CSR offsets into the entries; then per entry
        // (node index or kNone when the joint is outside the skin, weight bits).
        std::vector<uint32_t>& raw = pack.raw;
        raw.assign(rawInfluenceWords(rig), 0u);
        size_t entry = 0;
        for (size_t m = 0; m < meshCount; ++m) {
            const rig::Mesh& mesh = rig.meshes[m];
            const size_t vb = pack.meshes[m].vertexBegin;
            const rig::Skin* skin = mesh.isSkinned() ? &rig.skins[size_t(mesh.skin)] : nullptr;
            const bool csr = skin && mesh.influenceOffsets.size() == mesh.vertexCount() + 1;
            for (size_t v = 0; v < mesh.vertexCount(); ++v) {
                raw[vb + v] = uint32_t(entry);
                if (!csr)
                    continue;
                const uint32_t e = std::min<uint32_t>(mesh.influenceOffsets[v + 1], uint32_t(mesh.influences.size()));
                for (uint32_t i = mesh.influenceOffsets[v]; i < e; ++i, ++entry) {
                    const rig::Influence in = mesh.influences[i];
                    raw[N + 1 + 2 * entry] = in.joint < skin->joints.size() ? uint32_t(skin->joints[in.joint]) : kNone;
                    raw[N + 1 + 2 * entry + 1] = floatBits(in.weight);
                }
            }
        }
        raw[N] = uint32_t(entry);
    }

    {
        // The viewport's draw input per vertex: UV0 as the file gives it (the procedural materials), the base colour
        // texture's coordinate (UV0 with the image's first row at 0) and the base colour factor (RGBA8, alpha 0: none).
        pack.draw.assign(std::max<size_t>(N, 1), DrawVertex{glm::vec2(0.0f), glm::vec2(0.0f), 0u});
        for (size_t m = 0; m < meshCount; ++m) {
            const rig::Mesh& mesh = rig.meshes[m];
            uint32_t color = 0;
            if (mesh.baseColor.w >= 0.0f) {
                const glm::vec4 c = glm::clamp(mesh.baseColor, glm::vec4(0.0f), glm::vec4(1.0f));
                color = uint32_t(std::lround(c.x * 255.0f)) | uint32_t(std::lround(c.y * 255.0f)) << 8 |
                        uint32_t(std::lround(c.z * 255.0f)) << 16 | 255u << 24;
            }
            const bool hasUvs = mesh.uvs.size() == mesh.vertexCount();
            const size_t vb = pack.meshes[m].vertexBegin;
            for (size_t v = 0; v < mesh.vertexCount(); ++v) {
                const glm::vec2 uv = hasUvs ? mesh.uvs[v] : glm::vec2(0.0f);
                pack.draw[vb + v] = DrawVertex{uv, mesh.uvOriginTopLeft ? uv : glm::vec2(uv.x, 1.0f - uv.y), color};
            }
        }
    }
    return pack;
}

bool GpuDeformer::setRig(const rig::Rig& rig, const rig::RigRuntime& runtime, std::string* error)
{
    rig::Result<GpuRigPack> pack = packGpuRig(rig, runtime);
    if (!pack) {
        release();
        if (error)
            *error = pack.error();
        return false;
    }
    return setRig(rig, runtime, std::make_shared<const GpuRigPack>(std::move(pack.value())), error);
}

bool GpuDeformer::setRig(const rig::Rig& rig, const rig::RigRuntime& runtime, std::shared_ptr<const GpuRigPack> packed,
                         std::string* error)
{
    release();
    auto fail = [&](const std::string& message) {
        release();
        if (error)
            *error = message;
        return false;
    };
    if (!m_rhi)
        return fail("no QRhi");
    if (!m_rhi->isFeatureSupported(QRhi::Compute))
        return fail(std::string("the ") + m_rhi->backendName() + " backend has no compute shaders (needs Vulkan or OpenGL 4.3+ / ES 3.1)");
    if (!packed)
        return fail("no GPU pack for the rig");
    if (runtime.meshes.size() != rig.meshes.size() || packed->meshes.size() != rig.meshes.size())
        return fail("the runtime data was built for another rig");
    const GpuRigPack& pack = *packed;
    const int k = pack.influences;
    const size_t meshCount = rig.meshes.size();
    m_meshes = pack.meshes;
    m_paletteSources = pack.paletteSources;
    m_vertexCount = pack.vertices;
    m_triangleCount = pack.triangles;
    m_groupCount = pack.groups;
    m_morphTargetCount = pack.morphTargets;
    const size_t N = pack.vertices, T = pack.triangles, G = pack.groups, P = m_paletteSources.size();
    const size_t targets = pack.morphTargets;
    const size_t adjGroupBase = 0, adjNormalOffsetBase = N, adjTangentOffsetBase = 2 * N + 1;
    const size_t adjNormalListBase = 3 * N + 2, adjTangentListBase = adjNormalListBase + 3 * T;

    int maxGroups = std::max(1, m_rhi->resourceLimit(QRhi::MaxThreadGroupsPerDimension));
    if (m_dispatchLimit > 0)
        maxGroups = std::min(maxGroups, m_dispatchLimit);
    m_groupsX = int(std::min<size_t>(std::max<size_t>(G, 1), size_t(maxGroups)));
    m_groupsY = int((std::max<size_t>(G, 1) + size_t(m_groupsX) - 1) / size_t(m_groupsX));
    const size_t triangleGroups = groupsFor(T);
    m_triangleGroupsX = int(std::min<size_t>(std::max<size_t>(triangleGroups, 1), size_t(maxGroups)));
    m_triangleGroupsY = int((std::max<size_t>(triangleGroups, 1) + size_t(m_triangleGroupsX) - 1) / size_t(m_triangleGroupsX));
    if (m_groupsY > maxGroups || m_triangleGroupsY > maxGroups || meshCount > size_t(maxGroups))
        return fail("the rig is too large for one dispatch");

    // --- GPU buffers --------------------------------------------------------------------------------------------
    const QRhiBuffer::UsageFlags storage = QRhiBuffer::StorageBuffer;
    const QRhiBuffer::UsageFlags output = QRhiBuffer::StorageBuffer | QRhiBuffer::VertexBuffer;
    bool ok = true;
    auto make = [&](QRhiBuffer*& b, QRhiBuffer::UsageFlags usage, size_t bytes, QRhiBuffer::Type type = QRhiBuffer::Static) {
        b = m_rhi->newBuffer(type, usage, int(std::max<size_t>(bytes, 16)));
        if (!b->create()) {
            ok = false;
            deleteResource(b);
        }
    };
    make(m_paramsBuffer, QRhiBuffer::UniformBuffer, kParamCount * 4, QRhiBuffer::Dynamic);
    make(m_layout, storage, pack.layout.size() * 4);
    make(m_rest, storage, pack.rest.size() * 4);
    make(m_uvs, storage, pack.uvs.size() * 4);
    make(m_targets, storage, pack.targetInfo.size() * 4);
    make(m_weights, storage, std::max<size_t>(targets, 1) * 4);
    make(m_deltas, storage, pack.deltas.size() * 4);
    make(m_paletteBuffer, storage, P * kJointFloats * 4);
    make(m_influences, storage, pack.influenceWords.size() * 4);
    make(m_gradients, storage, pack.gradients.size() * 4);
    make(m_triangles, storage, pack.triangleWords.size() * 4);
    make(m_adjacency, storage, pack.adjacency.size() * 4);
    make(m_morphed, storage, 3 * N * 16);
    make(m_faces, storage, 3 * T * 16);
    make(m_partials, storage, 2 * G * 16);
    make(m_positions, output, N * 16);
    make(m_normals, output, N * 16);
    make(m_tangents, output, N * 16);
    make(m_refNormals, output, N * 16);
    make(m_refTangents, output, N * 16);
    make(m_errors, output, N * 16);
    make(m_bindReference, storage, 3 * N * 16);
    make(m_rawInfluences, storage, pack.raw.size() * 4);
    make(m_flags, output, N * 4);
    make(m_blendScale, output, N * 16);
    make(m_bounds, output, meshCount * 32);
    make(m_indices, QRhiBuffer::IndexBuffer, pack.indices.size() * 4);
    make(m_formatDiff, output, N * 16);
    m_hasComparison = pack.hasComparison();
    if (m_hasComparison) {
        make(m_compareParams, QRhiBuffer::UniformBuffer, kParamCount * 4, QRhiBuffer::Dynamic);
        make(m_compareInfluences, storage, pack.compareInfluenceWords.size() * 4);
        make(m_compareGradients, storage, pack.compareGradients.size() * 4);
        make(m_comparePositions, storage, N * 16);
        make(m_compareNormals, storage, N * 16);
        make(m_compareTangents, storage, N * 16);
        make(m_compareFlags, storage, N * 4);
    }
    if (!ok)
        return fail("creating the GPU buffers failed (" + std::to_string(N) + " vertices)");

    QRhiResourceUpdateBatch* u = pendingBatch();
    auto upload = [&](QRhiBuffer* b, const auto& data) {
        const size_t bytes = data.size() * sizeof(data[0]);
        if (bytes > 0)
            u->uploadStaticBuffer(b, 0, int(bytes), data.data());
        m_staticBytes += bytes;
    };
    upload(m_layout, pack.layout);
    upload(m_rest, pack.rest);
    upload(m_uvs, pack.uvs);
    upload(m_targets, pack.targetInfo);
    upload(m_deltas, pack.deltas);
    upload(m_influences, pack.influenceWords);
    upload(m_gradients, pack.gradients);
    upload(m_triangles, pack.triangleWords);
    upload(m_adjacency, pack.adjacency);
    upload(m_indices, pack.indices);
    upload(m_bindReference, pack.bind);
    upload(m_rawInfluences, pack.raw);
    if (m_hasComparison) {
        upload(m_compareInfluences, pack.compareInfluenceWords);
        upload(m_compareGradients, pack.compareGradients);
    }

    m_params.assign(kParamCount, 0u);
    m_params[ParamInfluences] = uint32_t(k);
    m_params[ParamVertexCount] = uint32_t(N);
    m_params[ParamTriangleCount] = uint32_t(T);
    m_params[ParamMeshCount] = uint32_t(meshCount);
    m_params[ParamGroupCount] = uint32_t(G);
    m_params[ParamGroupsX] = uint32_t(m_groupsX);
    m_params[ParamTriangleGroupsX] = uint32_t(m_triangleGroupsX);
    m_params[ParamTriangleGroupCount] = uint32_t(triangleGroups);
    m_params[ParamAdjGroupBase] = uint32_t(adjGroupBase);
    m_params[ParamAdjNormalOffsetBase] = uint32_t(adjNormalOffsetBase);
    m_params[ParamAdjTangentOffsetBase] = uint32_t(adjTangentOffsetBase);
    m_params[ParamAdjNormalListBase] = uint32_t(adjNormalListBase);
    m_params[ParamAdjTangentListBase] = uint32_t(adjTangentListBase);
    m_params[ParamGradEntryBase] = uint32_t(N + 1);

    if (!buildPipelines(error)) {
        const std::string message = error ? *error : std::string();
        return fail(message.empty() ? std::string("creating the compute pipelines failed") : message);
    }

    // Per-pose CPU arrays, sized once.
    m_rig = &rig;
    m_runtime = &runtime;
    m_matrices.assign(P, glm::mat4(1.0f));
    m_frames.assign(P, rig::JointFrame{});
    m_jointStaging.assign(std::max<size_t>(P, 1) * kJointFloats, 0.0f);
    m_morphWeights.assign(std::max<size_t>(targets, 1), 0.0f);
    m_ready = true;

    // The rest pose: the rig's default morph weights, no clip, no edits.
    rig::ResolvedPose restPose;
    restPose.morphWeights.resize(meshCount);
    for (size_t m = 0; m < meshCount; ++m) {
        restPose.morphWeights[m] = rig.meshes[m].defaultMorphWeights;
        restPose.morphWeights[m].resize(rig.meshes[m].morphTargets.size(), 0.0f);
    }
    setPose(restPose);
    pendingBatch()->uploadStaticBuffer(m_weights, 0, int(m_morphWeights.size() * 4), m_morphWeights.data());
    m_params[ParamMethod] = uint32_t(m_method);
    m_params[ParamMorphNormals] = m_morphNormals ? 1u : 0u;
    m_dirty = DirtyAll;
    return true;
}

bool GpuDeformer::buildPipelines(std::string* error)
{
    using B = QRhiShaderResourceBinding;
    const auto cs = B::ComputeStage;
    const B params = B::uniformBuffer(0, cs, m_paramsBuffer);
    const B layout = B::bufferLoad(1, cs, m_layout);
    struct Spec {
        const char* shader;
        std::initializer_list<B> bindings;
    };
    const Spec specs[PassCount] = {
        {"deform_morph",
         {params, layout, B::bufferLoad(2, cs, m_rest), B::bufferLoad(3, cs, m_targets), B::bufferLoad(4, cs, m_weights),
          B::bufferLoad(5, cs, m_deltas), B::bufferStore(6, cs, m_morphed)}},
        {"deform_skin",
         {params, layout, B::bufferLoad(2, cs, m_paletteBuffer), B::bufferLoad(3, cs, m_influences),
          B::bufferLoad(4, cs, m_gradients), B::bufferLoad(5, cs, m_morphed), B::bufferStore(6, cs, m_positions),
          B::bufferStore(7, cs, m_normals), B::bufferStore(8, cs, m_tangents), B::bufferStore(9, cs, m_flags)}},
        {"deform_faces",
         {params, layout, B::bufferLoad(2, cs, m_triangles), B::bufferLoad(3, cs, m_positions),
          B::bufferLoad(4, cs, m_uvs), B::bufferStore(5, cs, m_faces)}},
        {"deform_reference",
         {params, layout, B::bufferLoad(2, cs, m_faces), B::bufferLoad(3, cs, m_adjacency),
          B::bufferStore(4, cs, m_refNormals), B::bufferStore(5, cs, m_refTangents)}},
        {"deform_bounds_partial",
         {params, layout, B::bufferLoad(2, cs, m_positions), B::bufferStore(3, cs, m_partials)}},
        {"deform_bounds_reduce",
         {params, layout, B::bufferLoad(2, cs, m_partials), B::bufferStore(3, cs, m_bounds)}},
        {"deform_errors",
         {params, layout, B::bufferLoadStore(2, cs, m_normals), B::bufferLoadStore(3, cs, m_tangents),
          B::bufferLoad(4, cs, m_refNormals), B::bufferLoad(5, cs, m_refTangents), B::bufferStore(6, cs, m_errors),
          B::bufferLoad(7, cs, m_bindReference), B::bufferLoad(8, cs, m_rest), B::bufferLoad(9, cs, m_positions)}},
        {"deform_blend_scale",
         {params, layout, B::bufferLoad(2, cs, m_paletteBuffer), B::bufferLoad(3, cs, m_influences),
          B::bufferStore(4, cs, m_blendScale), B::bufferLoad(5, cs, m_morphed), B::bufferLoad(6, cs, m_gradients)}},
        // The comparison: the same skin pass over the reference's streams, then the difference.
        {"deform_skin",
         {B::uniformBuffer(0, cs, m_compareParams), layout, B::bufferLoad(2, cs, m_paletteBuffer),
          B::bufferLoad(3, cs, m_compareInfluences), B::bufferLoad(4, cs, m_compareGradients),
          B::bufferLoad(5, cs, m_morphed), B::bufferStore(6, cs, m_comparePositions),
          B::bufferStore(7, cs, m_compareNormals), B::bufferStore(8, cs, m_compareTangents),
          B::bufferStore(9, cs, m_compareFlags)}},
        {"deform_format_diff",
         {params, layout, B::bufferLoad(2, cs, m_positions), B::bufferLoad(3, cs, m_normals),
          B::bufferLoad(4, cs, m_comparePositions), B::bufferLoad(5, cs, m_compareNormals),
          B::bufferStore(6, cs, m_formatDiff)}},
    };
    for (int p = 0; p < PassCount; ++p) {
        if ((p == PassCompareSkin || p == PassFormatDiff) && !m_hasComparison)
            continue;
        const QShader shader = loadShader(specs[p].shader);
        if (!shader.isValid()) {
            if (error)
                *error = std::string("compute shader ") + specs[p].shader + " is missing from the resources";
            return false;
        }
        m_srb[p] = m_rhi->newShaderResourceBindings();
        m_srb[p]->setBindings(specs[p].bindings.begin(), specs[p].bindings.end());
        if (!m_srb[p]->create()) {
            if (error)
                *error = std::string("creating the shader resource bindings of ") + specs[p].shader + " failed";
            return false;
        }
        m_pipeline[p] = m_rhi->newComputePipeline();
        m_pipeline[p]->setShaderStage({QRhiShaderStage::Compute, shader});
        m_pipeline[p]->setShaderResourceBindings(m_srb[p]);
        if (!m_pipeline[p]->create()) {
            if (error)
                *error = std::string("creating the compute pipeline ") + specs[p].shader + " failed";
            return false;
        }
    }
    return true;
}

void GpuDeformer::uploadPalette()
{
    const size_t P = m_frames.size();
    for (size_t i = 0; i < P; ++i) {
        const rig::JointFrame& f = m_frames[i];
        float* d = &m_jointStaging[i * kJointFloats];
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r)
                d[4 * c + r] = f.matrix[c][r];
        for (int c = 0; c < 3; ++c) {
            for (int r = 0; r < 3; ++r) {
                d[16 + 4 * c + r] = f.inverseTranspose[c][r];
                d[28 + 4 * c + r] = f.stretch[c][r];
            }
            d[16 + 4 * c + 3] = 0.0f;
            d[28 + 4 * c + 3] = 0.0f;
        }
        d[40] = f.dq.real.x, d[41] = f.dq.real.y, d[42] = f.dq.real.z, d[43] = f.dq.real.w;
        d[44] = f.dq.dual.x, d[45] = f.dq.dual.y, d[46] = f.dq.dual.z, d[47] = f.dq.dual.w;
        d[48] = bitsFloat(f.mirrored ? 1u : 0u);
        d[49] = bitsFloat(f.singular ? 1u : 0u);
        d[50] = bitsFloat(0u);
        d[51] = bitsFloat(0u);
    }
    if (P > 0)
        pendingBatch()->uploadStaticBuffer(m_paletteBuffer, 0, int(P * kJointFloats * 4), m_jointStaging.data());
}

void GpuDeformer::setPose(const rig::ResolvedPose& pose)
{
    if (!m_ready)
        return;
    const rig::Rig& rig = *m_rig;
    rig::evaluateWorld(rig, pose, m_world, &m_atBind);
    rig::evaluatePalettes(rig, m_world, m_skinPalettes, &m_atBind);
    for (size_t i = 0; i < m_paletteSources.size(); ++i) {
        const PaletteSource& s = m_paletteSources[i];
        glm::mat4 m(1.0f);
        if (s.skin >= 0) {
            const std::vector<glm::mat4>& pal = m_skinPalettes[size_t(s.skin)];
            if (size_t(s.joint) < pal.size())
                m = pal[size_t(s.joint)]; // else: the identity entry
        } else if (s.node >= 0 && size_t(s.node) < m_world.size()) {
            m = m_world[size_t(s.node)];
        }
        m_matrices[i] = m;
    }
    rig::buildJointFrames(m_matrices, m_frames);
    uploadPalette();

    bool morphChanged = false;
    for (size_t m = 0; m < m_meshes.size(); ++m) {
        const GpuMeshRange& r = m_meshes[m];
        const std::vector<float>* w = m < pose.morphWeights.size() ? &pose.morphWeights[m] : nullptr;
        for (size_t t = 0; t < r.morphCount; ++t) {
            const float x = w && t < w->size() ? (*w)[t] : 0.0f;
            float& slot = m_morphWeights[r.morphBegin + t];
            if (std::memcmp(&slot, &x, 4) != 0) {
                slot = x;
                morphChanged = true;
            }
        }
    }
    if (morphChanged) {
        pendingBatch()->uploadStaticBuffer(m_weights, 0, int(m_morphWeights.size() * 4), m_morphWeights.data());
        m_dirty |= DirtyMorph;
    }
    m_dirty |= DirtySkin | DirtyPositions | DirtyErrors | DirtyBlendScale;
}

void GpuDeformer::setMethod(rig::Method method)
{
    if (method == m_method)
        return;
    // The positions change between the linear ones and a method's own (dual quaternion, centre of rotation).
    const bool positionsChange = method != m_method && (rig::ownPositions(method) || rig::ownPositions(m_method));
    m_method = method;
    m_params[ParamMethod] = uint32_t(method);
    m_dirty |= DirtyParams | DirtySkin | DirtyErrors | (positionsChange ? DirtyPositions : 0u);
}

void GpuDeformer::setComparisonEnabled(bool on)
{
    if (on == m_compareEnabled)
        return;
    m_compareEnabled = on;
    if (on)
        m_dirty |= DirtyCompare;
}

void GpuDeformer::setSettings(const rig::DeformSettings& settings)
{
    if (settings.morphNormals == m_morphNormals)
        return;
    m_morphNormals = settings.morphNormals;
    m_params[ParamMorphNormals] = m_morphNormals ? 1u : 0u;
    // Positions do not depend on the normal/tangent deltas: the reference stays.
    m_dirty |= DirtyParams | DirtyMorph | DirtySkin | DirtyErrors;
}

QRhiResourceUpdateBatch* GpuDeformer::takeUploads()
{
    QRhiResourceUpdateBatch* u = m_pending;
    m_pending = nullptr;
    if (m_dirty & DirtyParams) {
        if (!u)
            u = m_rhi->nextResourceUpdateBatch();
        u->updateDynamicBuffer(m_paramsBuffer, 0, int(kParamCount * 4), m_params.data());
        if (m_hasComparison) {
            m_compareParamWords = m_params;
            m_compareParamWords[ParamInfluences] = uint32_t(rig::kReferenceFormat.influences);
            u->updateDynamicBuffer(m_compareParams, 0, int(kParamCount * 4), m_compareParamWords.data());
        }
        m_dirty &= ~unsigned(DirtyParams);
    }
    return u;
}

void GpuDeformer::recordUploads(QRhiCommandBuffer* cb)
{
    if (!m_ready)
        return;
    if (QRhiResourceUpdateBatch* u = takeUploads())
        cb->resourceUpdate(u);
}

void GpuDeformer::record(QRhiCommandBuffer* cb)
{
    if (!m_ready || (m_dirty == 0 && !m_pending))
        return;
    QRhiResourceUpdateBatch* u = takeUploads();
    // One compute pass per stage: QRhi orders the storage-buffer accesses of consecutive passes with barriers.
    auto pass = [&](Pass p, int x, int y) {
        if (x <= 0 || y <= 0)
            return;
        cb->beginComputePass(u);
        u = nullptr;
        cb->setComputePipeline(m_pipeline[p]);
        cb->setShaderResources(m_srb[p]);
        cb->dispatch(x, y, 1);
        cb->endComputePass();
    };
    const bool anyVertices = m_groupCount > 0;
    if (anyVertices && (m_dirty & DirtyMorph))
        pass(PassMorph, m_groupsX, m_groupsY);
    if (anyVertices && (m_dirty & DirtySkin))
        pass(PassSkin, m_groupsX, m_groupsY);
    if (m_dirty & DirtyPositions) {
        if (m_triangleCount > 0)
            pass(PassFaces, m_triangleGroupsX, m_triangleGroupsY);
        if (anyVertices) {
            pass(PassReference, m_groupsX, m_groupsY);
            pass(PassBoundsPartial, m_groupsX, m_groupsY);
        }
        pass(PassBoundsReduce, int(m_meshes.size()), 1);
    }
    if (anyVertices && (m_dirty & DirtyErrors))
        pass(PassErrors, m_groupsX, m_groupsY);
    if (anyVertices && (m_dirty & DirtyBlendScale))
        pass(PassBlendScale, m_groupsX, m_groupsY);
    // After the errors pass: it settles the method's normals (Rebuilt's are the reference copied in).
    if (anyVertices && m_hasComparison && m_compareEnabled && (m_dirty & (DirtySkin | DirtyCompare))) {
        pass(PassCompareSkin, m_groupsX, m_groupsY);
        pass(PassFormatDiff, m_groupsX, m_groupsY);
    }
    if (u)
        cb->resourceUpdate(u);
    m_dirty = 0;
}

} // namespace viewer
