// The Converter's driver: run(), notes, the memory estimate.
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

Converter::Converter(const aiScene& scene, std::string displayName, const ImportOptions& options, const RawGltfSource& raw,
                     bool assimpFlippedV)
    : m_scene(scene), m_path(std::move(displayName)), m_options(options), m_rawSource(raw), m_assimpFlippedV(assimpFlippedV)
{
}

Result<Rig> Converter::run()
{
    m_rig.source = m_path;
    if (!m_scene.mRootNode)
        return failWith("the file has no node hierarchy");
    if (auto r = checkBudget(); !r.ok())
        return Error{r.error()};
    if (auto r = buildSkeleton(); !r.ok())
        return Error{r.error()};
    readRawSkins();
    if (auto r = buildMeshes(); !r.ok())
        return Error{r.error()};
    if (m_rawUsed)
        note(Severity::Info, "raw glTF skin weights read directly (Assimp drops invalid ones)");
    if (m_rawExternal)
        note(Severity::Info, "raw glTF skin weights not read: the file's buffers are external files, which cannot be "
                             "resolved when reading from memory; Assimp's influences are kept (it drops invalid ones)");
    if (m_rig.meshes.empty())
        return failWith("no triangle meshes");
    if (auto r = buildClips(); !r.ok())
        return Error{r.error()};
    if (m_suppressedNotes)
        m_rig.notes.push_back({Severity::Warning, std::to_string(m_suppressedNotes) + " further notes were not recorded"});
    return std::move(m_rig);
}

void Converter::note(Severity severity, std::string message)
{
    if (m_rig.notes.size() < kMaxNotes)
        m_rig.notes.push_back({severity, std::move(message)});
    else
        ++m_suppressedNotes;
}

const aiMesh* Converter::meshAt(unsigned i) const
{
    return (m_scene.mMeshes && i < m_scene.mNumMeshes) ? m_scene.mMeshes[i] : nullptr;
}

std::string Converter::meshLabel(unsigned aiIndex) const
{
    const aiMesh* mesh = meshAt(aiIndex);
    std::string name = mesh ? str(mesh->mName) : std::string();
    return name.empty() ? "mesh" + std::to_string(aiIndex) : name;
}

Result<void> Converter::checkBudget()
{
    ByteCount& bytes = m_bytes;
    for (unsigned i = 0; i < m_scene.mNumMeshes; ++i) {
        const aiMesh* mesh = meshAt(i);
        if (!mesh)
            continue;
        const uint64_t v = mesh->mNumVertices;
        const bool uv = mesh->mTextureCoords[0] != nullptr;
        const bool fileTangents = mesh->mTangents != nullptr;
        uint64_t perVertex = sizeof(glm::vec3) * 2; // positions, normals (read or generated)
        if (uv)
            perVertex += sizeof(glm::vec2);
        if (uv || fileTangents)
            perVertex += sizeof(glm::vec4);
        if (mesh->mNumBones > 0)
            perVertex += sizeof(uint32_t);
        if (!mesh->mNormals || (uv && !fileTangents))
            perVertex += sizeof(uint32_t) + 3 * sizeof(glm::vec3) + sizeof(glm::vec3) + sizeof(glm::vec4); // scratch
        bytes.add(v, perVertex);
        bytes.add(mesh->mNumFaces, 3 * sizeof(uint32_t));
        if (mesh->mBones)
            for (unsigned b = 0; b < mesh->mNumBones; ++b) {
                bytes.add(sizeof(glm::mat4) + sizeof(int));
                if (mesh->mBones[b])
                    bytes.add(mesh->mBones[b]->mNumWeights, sizeof(Influence));
            }
        if (mesh->mAnimMeshes)
            for (unsigned k = 0; k < mesh->mNumAnimMeshes; ++k) {
                const aiAnimMesh* am = mesh->mAnimMeshes[k];
                if (!am || am->mNumVertices != mesh->mNumVertices)
                    continue;
                uint64_t perTarget = sizeof(glm::vec3);
                if (am->mNormals)
                    perTarget += sizeof(glm::vec3);
                if (am->mTangents)
                    perTarget += sizeof(glm::vec3);
                bytes.add(v, perTarget);
            }
    }
    if (m_scene.mAnimations)
        for (unsigned a = 0; a < m_scene.mNumAnimations; ++a) {
            const aiAnimation* anim = m_scene.mAnimations[a];
            if (!anim)
                continue;
            if (anim->mChannels)
                for (unsigned c = 0; c < anim->mNumChannels; ++c)
                    if (const aiNodeAnim* ch = anim->mChannels[c]) {
                        bytes.add(ch->mNumPositionKeys, sizeof(float) + sizeof(glm::vec3));
                        bytes.add(ch->mNumRotationKeys, sizeof(float) + sizeof(glm::quat));
                        bytes.add(ch->mNumScalingKeys, sizeof(float) + sizeof(glm::vec3));
                    }
            if (anim->mMorphMeshChannels)
                for (unsigned c = 0; c < anim->mNumMorphMeshChannels; ++c)
                    if (const aiMeshMorphAnim* ch = anim->mMorphMeshChannels[c]) {
                        bytes.add(ch->mNumKeys, sizeof(float));
                        if (ch->mKeys)
                            for (unsigned k = 0; k < ch->mNumKeys; ++k)
                                bytes.add(ch->mKeys[k].mNumValuesAndWeights, sizeof(float));
                    }
        }
    return checkEstimate();
}

Result<void> Converter::checkEstimate() const
{
    if (m_bytes.value <= m_options.memoryBudgetBytes)
        return {};
    constexpr uint64_t MiB = uint64_t(1) << 20;
    const uint64_t need = m_bytes.value / MiB + (m_bytes.value % MiB ? 1 : 0);
    const uint64_t budget = uint64_t(m_options.memoryBudgetBytes) / MiB;
    return failWith("needs " + std::to_string(need) + " MiB, over the " + std::to_string(budget) + " MiB budget");
}

} // namespace rig::assimp_import
