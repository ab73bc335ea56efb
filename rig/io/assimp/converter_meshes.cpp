// Meshes: attributes, generated normals and tangents, skins and raw influences, morph targets.
#include "rig/io/assimp/converter.h"

#include <assimp/material.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "rig/analysis/reference/reference.h"
#include "rig/model/math.h"

namespace rig::assimp_import {

Result<void> Converter::buildMeshes()
{
    m_rigMeshOf.assign(m_scene.mNumMeshes, -1);
    m_targetOf.resize(m_scene.mNumMeshes);
    for (unsigned i = 0; i < m_scene.mNumMeshes; ++i) {
        const aiMesh* mesh = meshAt(i);
        if (!mesh) {
            note(Severity::Error, "mesh " + std::to_string(i) + " is null; skipped");
            continue;
        }
        if (auto r = buildMesh(i, *mesh); !r.ok())
            return r;
    }
    return {};
}

Result<void> Converter::buildMesh(unsigned aiIndex, const aiMesh& src)
{
    const std::string label = meshLabel(aiIndex);
    const std::string who = "mesh '" + label + "'";
    const unsigned vertexCount = src.mNumVertices;
    if (vertexCount == 0 || !src.mVertices) {
        note(Severity::Warning, who + ": no vertices; skipped");
        return {};
    }

    // Faces first: a mesh without a single triangle face (points / lines only) is not a triangle mesh.
    size_t triangleFaces = 0, otherFaces = 0;
    if (src.mFaces)
        for (unsigned f = 0; f < src.mNumFaces; ++f)
            (src.mFaces[f].mNumIndices == 3 && src.mFaces[f].mIndices) ? ++triangleFaces : ++otherFaces;
    if (triangleFaces == 0) {
        note(Severity::Warning, who + ": no triangles (" + std::to_string(otherFaces) + " point/line faces); skipped");
        return {};
    }
    if (src.mNumBones > kMaxJointsPerSkin)
        return failWith(who + " has " + std::to_string(src.mNumBones) + " joints in one skin, over the limit of " +
                        std::to_string(kMaxJointsPerSkin));

    Mesh mesh;
    mesh.name = label;
    mesh.node = m_meshNode[aiIndex] >= 0 ? m_meshNode[aiIndex] : 0;
    // The material's base colour factor and texture, for the lit view.
    readMaterial(src.mMaterialIndex, mesh);

    // Positions (kept raw, non-finite ones reported).
    mesh.positions.resize(vertexCount);
    size_t badPositions = 0;
    unsigned firstBad = 0;
    for (unsigned v = 0; v < vertexCount; ++v) {
        mesh.positions[v] = toGlm(src.mVertices[v]);
        if (!isFinite(mesh.positions[v]) && badPositions++ == 0)
            firstBad = v;
    }
    if (badPositions)
        note(Severity::Error, who + ": " + std::to_string(badPositions) + " vertices have non-finite positions (first: vertex " +
                                  std::to_string(firstBad) + ")");

    // Triangles; other faces and out-of-range indices are skipped.
    mesh.indices.reserve(triangleFaces * 3);
    size_t badFaces = 0;
    for (unsigned f = 0; f < src.mNumFaces; ++f) {
        const aiFace& face = src.mFaces[f];
        if (face.mNumIndices != 3 || !face.mIndices)
            continue;
        if (face.mIndices[0] >= vertexCount || face.mIndices[1] >= vertexCount || face.mIndices[2] >= vertexCount) {
            ++badFaces;
            continue;
        }
        mesh.indices.insert(mesh.indices.end(), face.mIndices, face.mIndices + 3);
    }
    if (otherFaces)
        note(Severity::Warning, who + ": " + std::to_string(otherFaces) + " non-triangle (point/line) faces skipped");
    if (badFaces)
        note(Severity::Error, who + ": " + std::to_string(badFaces) + " triangles have vertex indices out of range; skipped");

    // UV0, in the file's own convention (Assimp flips V of glTF and X: undone here).
    if (src.mTextureCoords[0]) {
        mesh.uvs.resize(vertexCount);
        for (unsigned v = 0; v < vertexCount; ++v) {
            const aiVector3D& uv = src.mTextureCoords[0][v];
            mesh.uvs[v] = glm::vec2(uv.x, m_assimpFlippedV ? 1.0f - uv.y : uv.y);
        }
        mesh.uvOriginTopLeft = m_assimpFlippedV;
    }

    // Normals and tangents: from the file, else generated from the rest triangles (and flagged).
    const bool fileNormals = src.mNormals != nullptr;
    const bool fileTangents = src.mTangents != nullptr;
    if (fileNormals) {
        mesh.normals.resize(vertexCount);
        for (unsigned v = 0; v < vertexCount; ++v)
            mesh.normals[v] = toGlm(src.mNormals[v]);
    }
    const bool generateTangents = !fileTangents && !mesh.uvs.empty();
    if (!fileNormals || generateTangents) {
        std::vector<glm::vec3> normals(vertexCount);
        std::vector<glm::vec4> tangents(generateTangents ? vertexCount : 0);
        // Smoothing groups as the reference forms them: by position, and by the file's normals when it has them (so
        // that hard edges stay hard and the generated handedness is the reference's at the bind pose).
        ReferenceScratch scratch;
        const ReferenceTopology topology =
            buildMeshTopology(mesh.positions, fileNormals ? std::span<const glm::vec3>(mesh.normals) : std::span<const glm::vec3>(),
                              mesh.indices);
        rebuildMeshFrames(topology, mesh.positions, mesh.uvs, mesh.indices, normals, tangents, scratch);
        if (!fileNormals) {
            mesh.normals = std::move(normals);
            mesh.normalsGenerated = true;
            note(Severity::Info, who + ": no normals in the file, generated from the rest triangles");
        }
        if (generateTangents) {
            // Keep the generated tangents perpendicular to the normals the mesh actually uses; the handedness is the
            // rebuilt one (the bitangent's side of the rebuilt normal), kept on the file normal's side.
            if (fileNormals)
                for (unsigned v = 0; v < vertexCount; ++v) {
                    const glm::vec3 n = safeNormalize(mesh.normals[v]);
                    const glm::vec3 t(tangents[v]);
                    const glm::vec3 o = safeNormalize(t - n * glm::dot(n, t));
                    if (!isDefined(o) || !isDefined(n))
                        continue;
                    const glm::vec3 bitangent = tangents[v].w * glm::cross(normals[v], t);
                    tangents[v] = glm::vec4(o, glm::dot(glm::cross(n, o), bitangent) < 0.0f ? -1.0f : 1.0f);
                }
            mesh.tangents = std::move(tangents);
            mesh.tangentsGenerated = true;
            note(Severity::Info, who + ": no tangents in the file, generated from the rest triangles and UV0");
        }
    }
    if (fileTangents) {
        mesh.tangents.resize(vertexCount);
        for (unsigned v = 0; v < vertexCount; ++v) {
            const glm::vec3 t = toGlm(src.mTangents[v]);
            float w = 1.0f;
            if (src.mBitangents) {
                const float d = glm::dot(glm::cross(mesh.normals[v], t), toGlm(src.mBitangents[v]));
                w = d < 0.0f ? -1.0f : 1.0f; // zero (or NaN) -> +1
            }
            mesh.tangents[v] = glm::vec4(t, w);
        }
        if (!src.mBitangents)
            note(Severity::Warning, who + ": tangents without bitangents in the file; handedness set to +1");
    } else if (mesh.uvs.empty()) {
        note(Severity::Info, who + ": no UV0: tangents undefined");
    }

    if (src.mNumBones > 0)
        if (auto r = buildSkin(aiIndex, src, who, mesh); !r.ok())
            return r;

    buildMorphTargets(aiIndex, src, who, mesh);

    m_rigMeshOf[aiIndex] = int(m_rig.meshes.size());
    m_rig.meshes.push_back(std::move(mesh));
    return {};
}

Result<void> Converter::buildSkin(unsigned aiIndex, const aiMesh& src, const std::string& who, Mesh& mesh)
{
    const unsigned vertexCount = src.mNumVertices;
    const unsigned boneCount = src.mBones ? src.mNumBones : 0;
    if (!src.mBones)
        note(Severity::Error, who + ": declares " + std::to_string(src.mNumBones) + " bones but has none");

    Skin skin;
    skin.name = mesh.name;
    skin.joints.resize(boneCount, -1);
    skin.inverseBind.resize(boneCount, glm::mat4(1.0f));
    for (unsigned b = 0; b < boneCount; ++b) {
        const aiBone* bone = src.mBones[b];
        if (!bone) {
            note(Severity::Error, who + ": bone " + std::to_string(b) + " is null; mapped to no node");
            continue;
        }
        const std::string name = str(bone->mName);
        skin.joints[b] = findNode(name);
        if (skin.joints[b] < 0)
            note(Severity::Error, who + ": bone '" + name + "' matches no node; its joint is mapped to -1 (identity)");
        else
            noteIfAmbiguous(name, who + ": bone");
        skin.inverseBind[b] = toGlm(bone->mOffsetMatrix);
        if (!isFinite(skin.inverseBind[b]))
            note(Severity::Warning, who + ": bone '" + name + "' has a non-finite inverse bind matrix (kept)");
    }

    // Count, then fill. Only Assimp's weight == 0 dummies are dropped; negative, NaN and > 1 weights stay.
    std::vector<uint32_t> counts(size_t(vertexCount) + 1, 0);
    size_t outOfRange = 0;
    std::string firstOutOfRangeBone;
    uint64_t total = 0;
    for (unsigned b = 0; b < boneCount; ++b) {
        const aiBone* bone = src.mBones[b];
        if (!bone || !bone->mWeights)
            continue;
        for (unsigned w = 0; w < bone->mNumWeights; ++w) {
            const aiVertexWeight& vw = bone->mWeights[w];
            if (vw.mVertexId >= vertexCount) {
                if (outOfRange++ == 0)
                    firstOutOfRangeBone = str(bone->mName);
                continue;
            }
            if (vw.mWeight == 0.0f)
                continue;
            ++counts[vw.mVertexId];
            ++total;
        }
    }
    if (total > UINT32_MAX)
        return failWith(who + " has more than 2^32 influences");
    if (outOfRange)
        note(Severity::Warning, who + ": " + std::to_string(outOfRange) + " bone weights name vertices out of range (first in bone '" +
                                    firstOutOfRangeBone + "'); skipped");

    mesh.influenceOffsets.assign(size_t(vertexCount) + 1, 0);
    for (unsigned v = 0; v < vertexCount; ++v)
        mesh.influenceOffsets[v + 1] = mesh.influenceOffsets[v] + counts[v];
    mesh.influences.resize(total);
    std::vector<uint32_t> cursor(mesh.influenceOffsets.begin(), mesh.influenceOffsets.end() - 1);
    for (unsigned b = 0; b < boneCount; ++b) {
        const aiBone* bone = src.mBones[b];
        if (!bone || !bone->mWeights)
            continue;
        for (unsigned w = 0; w < bone->mNumWeights; ++w) {
            const aiVertexWeight& vw = bone->mWeights[w];
            if (vw.mVertexId >= vertexCount || vw.mWeight == 0.0f)
                continue;
            mesh.influences[cursor[vw.mVertexId]++] = Influence{b, vw.mWeight};
        }
    }

    if (auto r = applyRawSkin(aiIndex, src, who, mesh); !r.ok())
        return r;
    mesh.skin = shareSkin(std::move(skin));
    return {};
}

int Converter::shareSkin(Skin skin)
{
    uint64_t h = 1469598103934665603ull; // FNV-1a over the joints and matrix bits
    auto mix = [&h](const void* p, size_t n) {
        const unsigned char* b = static_cast<const unsigned char*>(p);
        for (size_t i = 0; i < n; ++i)
            h = (h ^ b[i]) * 1099511628211ull;
    };
    mix(skin.joints.data(), skin.joints.size() * sizeof(int));
    mix(skin.inverseBind.data(), skin.inverseBind.size() * sizeof(glm::mat4));
    std::vector<int>& bucket = m_skinsByHash[h];
    for (int candidate : bucket) {
        const Skin& other = m_rig.skins[size_t(candidate)];
        if (other.joints == skin.joints && other.inverseBind.size() == skin.inverseBind.size() &&
            std::memcmp(other.inverseBind.data(), skin.inverseBind.data(), skin.inverseBind.size() * sizeof(glm::mat4)) == 0)
            return candidate;
    }
    bucket.push_back(int(m_rig.skins.size()));
    m_rig.skins.push_back(std::move(skin));
    return bucket.back();
}

void Converter::buildMorphTargets(unsigned aiIndex, const aiMesh& src, const std::string& who, Mesh& mesh)
{
    std::vector<int>& targetOf = m_targetOf[aiIndex];
    if (!src.mAnimMeshes || src.mNumAnimMeshes == 0)
        return;
    targetOf.assign(src.mNumAnimMeshes, -1);
    const unsigned vertexCount = src.mNumVertices;
    const bool baseNormals = src.mNormals != nullptr;
    const bool baseTangents = src.mTangents != nullptr;
    for (unsigned k = 0; k < src.mNumAnimMeshes; ++k) {
        const aiAnimMesh* am = src.mAnimMeshes[k];
        std::string name = am ? str(am->mName) : std::string();
        if (name.empty())
            name = "target" + std::to_string(k);
        if (!am || am->mNumVertices != vertexCount) {
            note(Severity::Warning, who + ": morph target '" + name + "' has " + std::to_string(am ? am->mNumVertices : 0) +
                                        " vertices, the mesh " + std::to_string(vertexCount) + "; skipped");
            continue;
        }
        MorphTarget target;
        target.name = name;
        target.positionDeltas.resize(vertexCount, glm::vec3(0.0f));
        if (am->mVertices)
            for (unsigned v = 0; v < vertexCount; ++v)
                target.positionDeltas[v] = toGlm(am->mVertices[v]) - mesh.positions[v];
        if (am->mNormals && baseNormals) {
            target.normalDeltas.resize(vertexCount);
            for (unsigned v = 0; v < vertexCount; ++v)
                target.normalDeltas[v] = toGlm(am->mNormals[v]) - mesh.normals[v];
        } else if (am->mNormals) {
            note(Severity::Warning, who + ": morph target '" + name + "' has normals but the base mesh has none; ignored");
        }
        if (am->mTangents && baseTangents) {
            target.tangentDeltas.resize(vertexCount);
            for (unsigned v = 0; v < vertexCount; ++v)
                target.tangentDeltas[v] = toGlm(am->mTangents[v]) - glm::vec3(mesh.tangents[v]);
        } else if (am->mTangents) {
            note(Severity::Warning, who + ": morph target '" + name + "' has tangents but the base mesh has none; ignored");
        }
        targetOf[k] = int(mesh.morphTargets.size());
        mesh.morphTargets.push_back(std::move(target));
        // Assimp 5.2 puts glTF mesh.weights (0 when absent) into mWeight.
        mesh.defaultMorphWeights.push_back(am->mWeight);
    }
}

} // namespace rig::assimp_import
