// glTF files: Assimp's influences replaced by the file's own (rig/io/gltf_skin.h) where verified.
#include "rig/io/assimp/converter.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "rig/analysis/reference/reference.h"
#include "rig/model/math.h"

namespace rig::assimp_import {

void Converter::readRawSkins()
{
    if (m_rawSource.kind == RawGltfSource::Kind::None)
        return;
    bool skinned = false;
    for (unsigned i = 0; i < m_scene.mNumMeshes && !skinned; ++i)
        if (const aiMesh* mesh = meshAt(i))
            skinned = mesh->mNumBones > 0;
    if (!skinned)
        return;
    GltfSkinOptions options;
    options.maxBytes = m_options.memoryBudgetBytes;
    options.root = m_rawSource.root;
    options.refused = m_rawSource.refused;
    Result<GltfSkinData> r = m_rawSource.kind == RawGltfSource::Kind::File
                                 ? readGltfSkinsFile(m_rawSource.path, options)
                                 : readGltfSkins(m_rawSource.data, m_rawSource.size, options);
    if (!r.ok()) {
        note(Severity::Warning, "raw glTF skin weights could not be read (" + oneLine(r.error()) +
                                    "); Assimp's influences are kept (it drops invalid ones)");
        return;
    }
    m_rawSkins = std::move(r.value());
    for (const auto& prims : m_rawSkins->meshes)
        for (const GltfPrimitiveSkin& p : prims)
            m_rawByName[p.assimpName].push_back(&p);
}

Result<void> Converter::applyRawSkin(unsigned aiIndex, const aiMesh& src, const std::string& who, Mesh& mesh)
{
    if (!m_rawSkins)
        return {};
    const GltfSkinData& raw = *m_rawSkins;
    // Candidates, most likely first: Assimp's own order, file order, then every primitive with Assimp's name.
    std::vector<const GltfPrimitiveSkin*> candidates;
    auto add = [&candidates](const GltfPrimitiveSkin* p) {
        if (p && std::find(candidates.begin(), candidates.end(), p) == candidates.end())
            candidates.push_back(p);
    };
    if (aiIndex < raw.assimpOrder.size())
        add(raw.primitive(raw.assimpOrder[aiIndex]));
    if (aiIndex < raw.fileOrder.size())
        add(raw.primitive(raw.fileOrder[aiIndex]));
    if (auto it = m_rawByName.find(str(src.mName)); it != m_rawByName.end())
        for (const GltfPrimitiveSkin* p : it->second)
            add(p);

    std::string reason;
    bool reasonFromSameSize = false, external = false;
    for (const GltfPrimitiveSkin* p : candidates) {
        std::vector<uint32_t> remap;
        std::string why;
        if (verifyRawSkin(raw, *p, src, mesh, remap, why)) {
            if (p->skinSets == 0)
                return {}; // no JOINTS/WEIGHTS in the file: Assimp's bones hold only padding, nothing to replace
            const uint64_t before = mesh.influences.size();
            mesh.influenceOffsets = p->influenceOffsets;
            mesh.influences = p->influences;
            mesh.zeroWeightJointVertices = p->zeroWeightJointVertices;
            for (Influence& in : mesh.influences)
                if (in.joint < remap.size())
                    in.joint = remap[in.joint]; // beyond the skin: stays raw, so out of range in ours too
            if (mesh.influences.size() > before)
                m_bytes.add(mesh.influences.size() - before, sizeof(Influence));
            m_rawUsed = true;
            return checkEstimate();
        }
        external = external || p->needsExternalBuffer;
        const bool sameSize = p->error.empty() && p->vertexCount == src.mNumVertices;
        if (reason.empty() || (sameSize && !reasonFromSameSize)) {
            reason = why;
            reasonFromSameSize = sameSize;
        }
    }
    if (external && !reasonFromSameSize) {
        m_rawExternal = true;
        return {};
    }
    note(Severity::Warning, "raw glTF weights could not be matched to " + who + " (" +
                                (reason.empty() ? std::string("no glTF primitive corresponds to it") : oneLine(reason)) +
                                "); Assimp's influences are kept (it drops invalid ones)");
    return {};
}

bool Converter::verifyRawSkin(const GltfSkinData& raw, const GltfPrimitiveSkin& p, const aiMesh& src, const Mesh& assimp,
                   std::vector<uint32_t>& remap, std::string& why) const
{
    if (!p.error.empty()) {
        why = p.error;
        return false;
    }
    const std::string prim = "mesh " + std::to_string(p.mesh) + " primitive " + std::to_string(p.primitive);
    if (p.vertexCount != src.mNumVertices) {
        why = prim + " has " + std::to_string(p.vertexCount) + " vertices, the mesh " + std::to_string(src.mNumVertices);
        return false;
    }
    static_assert(sizeof(ai_real) == sizeof(float), "positions are compared bit for bit as floats");
    for (size_t v = 0; v < p.positions.size(); ++v) {
        const aiVector3D& a = src.mVertices[v];
        const glm::vec3& b = p.positions[v];
        if (std::bit_cast<uint32_t>(float(a.x)) != std::bit_cast<uint32_t>(b.x) ||
            std::bit_cast<uint32_t>(float(a.y)) != std::bit_cast<uint32_t>(b.y) ||
            std::bit_cast<uint32_t>(float(a.z)) != std::bit_cast<uint32_t>(b.z)) {
            why = prim + ": position of vertex " + std::to_string(v) + " differs from the mesh's";
            return false;
        }
    }
    if (p.skinSets == 0) {
        if (!assimp.influences.empty()) {
            why = prim + " has no JOINTS/WEIGHTS, the mesh has influences";
            return false;
        }
        return true;
    }
    const unsigned boneCount = src.mBones ? src.mNumBones : 0;
    std::vector<std::string> bones(boneCount);
    for (unsigned b = 0; b < boneCount; ++b)
        bones[b] = src.mBones[b] ? str(src.mBones[b]->mName) : std::string();
    const std::vector<int>& skins = raw.meshSkins.at(size_t(p.mesh));
    if (skins.empty()) {
        why = "no node instances glTF mesh " + std::to_string(p.mesh) + " with a skin";
        return false;
    }
    std::vector<std::pair<uint32_t, float>> expected, actual;
    for (int s : skins) {
        const std::string skin = "skin " + std::to_string(s);
        if (!raw.skinValid[size_t(s)]) {
            why = skin + " lists a joint that is not a node";
            continue;
        }
        const std::vector<std::string>& names = raw.skinJointNames[size_t(s)];
        if (names.size() != bones.size()) {
            why = skin + " has " + std::to_string(names.size()) + " joints, the mesh " + std::to_string(bones.size()) + " bones";
            continue;
        }
        // Joint j -> bone: identity when the names agree in order (Assimp 5.2.4), else by unique name.
        remap.resize(names.size());
        bool mapped = true;
        if (names == bones) {
            for (size_t j = 0; j < names.size(); ++j)
                remap[j] = uint32_t(j);
        } else {
            std::unordered_map<std::string, uint32_t> boneIndex;
            for (size_t b = 0; b < bones.size() && mapped; ++b)
                mapped = boneIndex.emplace(bones[b], uint32_t(b)).second;
            for (size_t j = 0; j < names.size() && mapped; ++j) {
                auto it = boneIndex.find(names[j]);
                mapped = it != boneIndex.end();
                if (mapped)
                    remap[j] = it->second;
            }
            if (!mapped) {
                why = skin + ": its joints do not match the mesh's bones by name";
                continue;
            }
            std::vector<uint32_t> sorted = remap;
            std::sort(sorted.begin(), sorted.end());
            if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
                why = skin + ": two joints map to one bone";
                continue;
            }
        }
        if (!p.floatWeights)
            return true;
        bool same = true;
        for (uint32_t v = 0; v < p.vertexCount && same; ++v) {
            expected.clear();
            actual.clear();
            for (uint32_t i = p.influenceOffsets[v]; i < p.influenceOffsets[v + 1]; ++i) {
                const Influence in = p.influences[i];
                if (in.weight > 0.0f && in.joint < names.size())
                    expected.emplace_back(remap[in.joint], in.weight);
            }
            for (uint32_t i = assimp.influenceOffsets[v]; i < assimp.influenceOffsets[v + 1]; ++i)
                actual.emplace_back(assimp.influences[i].joint, assimp.influences[i].weight);
            std::sort(expected.begin(), expected.end());
            std::sort(actual.begin(), actual.end());
            if (expected != actual) {
                why = skin + ": influences of vertex " + std::to_string(v) + " differ from Assimp's";
                same = false;
            }
        }
        if (same)
            return true;
    }
    return false;
}

} // namespace rig::assimp_import
