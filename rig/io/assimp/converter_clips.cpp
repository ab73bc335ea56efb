// Animation clips: joint tracks and morph weight channels.
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

Result<void> Converter::buildClips()
{
    if (!m_scene.mAnimations)
        return {};
    for (unsigned a = 0; a < m_scene.mNumAnimations; ++a) {
        const aiAnimation* anim = m_scene.mAnimations[a];
        if (!anim) {
            note(Severity::Error, "animation " + std::to_string(a) + " is null; skipped");
            continue;
        }
        Clip clip;
        clip.name = str(anim->mName);
        if (clip.name.empty())
            clip.name = "clip" + std::to_string(a);
        const std::string who = "clip '" + clip.name + "'";
        double ticksPerSecond = anim->mTicksPerSecond;
        if (ticksPerSecond == 0.0) {
            ticksPerSecond = 25.0; // Assimp's convention for "not specified"
        } else if (!(ticksPerSecond > 0.0) || !std::isfinite(ticksPerSecond)) {
            note(Severity::Warning, who + ": invalid ticks per second (" + std::to_string(ticksPerSecond) + "); 25 used");
            ticksPerSecond = 25.0;
        }
        float duration = 0.0f;

        if (anim->mChannels)
            for (unsigned c = 0; c < anim->mNumChannels; ++c)
                if (const aiNodeAnim* ch = anim->mChannels[c])
                    buildJointChannel(*ch, who, ticksPerSecond, clip, duration);
        if (anim->mMorphMeshChannels)
            for (unsigned c = 0; c < anim->mNumMorphMeshChannels; ++c)
                if (const aiMeshMorphAnim* ch = anim->mMorphMeshChannels[c])
                    if (auto r = buildMorphChannels(*ch, who, ticksPerSecond, clip, duration); !r.ok())
                        return r;
        if (anim->mNumMeshChannels > 0)
            note(Severity::Info, who + ": " + std::to_string(anim->mNumMeshChannels) +
                                     " vertex-animation (mesh) channels are not supported; ignored");
        clip.duration = duration;
        m_rig.clips.push_back(std::move(clip));
    }
    return {};
}

template <typename Key, typename T, typename Convert>
bool Converter::convertTrack(const Key* keys, unsigned count, double ticksPerSecond, Track<T>& track, const std::string& what,
                  float& duration, Convert convert)
{
    if (!keys || count == 0)
        return true;
    track.interpolation = Interpolation::Linear; // Assimp 5.2 keys carry no interpolation mode
    track.times.resize(count);
    track.values.resize(count);
    for (unsigned k = 0; k < count; ++k) {
        track.times[k] = float(keys[k].mTime / ticksPerSecond);
        track.values[k] = convert(keys[k].mValue);
        if (!std::isfinite(track.times[k]) || (k > 0 && !(track.times[k] >= track.times[k - 1]))) {
            note(Severity::Warning, what + ": key times are not sorted (key " + std::to_string(k) + "); track skipped");
            track = Track<T>{};
            return false;
        }
    }
    duration = std::max(duration, track.times.back());
    return true;
}

void Converter::buildJointChannel(const aiNodeAnim& ch, const std::string& who, double ticksPerSecond, Clip& clip, float& duration)
{
    const std::string name = str(ch.mNodeName);
    JointChannel channel;
    channel.node = findNode(name);
    if (channel.node < 0) {
        note(Severity::Warning, who + ": channel for unknown node '" + name + "'; skipped");
        return;
    }
    noteIfAmbiguous(name, who + ": channel");
    const std::string what = who + " node '" + name + "'";
    auto vec = [](const aiVector3D& v) { return toGlm(v); };
    auto quat = [](const aiQuaternion& q) { return glm::quat(q.w, q.x, q.y, q.z); }; // raw, not renormalised
    convertTrack(ch.mPositionKeys, ch.mNumPositionKeys, ticksPerSecond, channel.translation, what + " translation", duration, vec);
    convertTrack(ch.mRotationKeys, ch.mNumRotationKeys, ticksPerSecond, channel.rotation, what + " rotation", duration, quat);
    convertTrack(ch.mScalingKeys, ch.mNumScalingKeys, ticksPerSecond, channel.scale, what + " scale", duration, vec);
    if (channel.translation.empty() && channel.rotation.empty() && channel.scale.empty())
        return;
    clip.joints.push_back(std::move(channel));
}

std::vector<unsigned> Converter::morphChannelMeshes(const std::string& name)
{
    std::vector<unsigned> out;
    auto add = [&out](unsigned m) { out.push_back(m); };
    auto fromNode = [&](const std::string& n) {
        // Every node of that name (names should be unique; if not, all of them), each of its mesh references.
        auto it = m_nodesByName.find(n);
        if (it == m_nodesByName.end())
            return;
        for (int i : it->second) {
            const aiNode* node = m_aiNodes[size_t(i)];
            if (node->mMeshes)
                for (unsigned j = 0; j < node->mNumMeshes; ++j)
                    if (node->mMeshes[j] < m_scene.mNumMeshes)
                        add(node->mMeshes[j]);
        }
    };
    auto fromMeshName = [&](const std::string& n) {
        if (auto it = m_meshesByName.find(n); it != m_meshesByName.end())
            for (unsigned m : it->second)
                add(m);
    };
    fromNode(name);
    if (out.empty())
        fromMeshName(name);
    if (out.empty())
        if (const size_t star = name.rfind('*'); star != std::string::npos && star > 0) {
            fromNode(name.substr(0, star));
            if (out.empty())
                fromMeshName(name.substr(0, star));
        }
    std::sort(out.begin(), out.end()); // mesh order, each mesh once
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

Result<void> Converter::buildMorphChannels(const aiMeshMorphAnim& ch, const std::string& who, double ticksPerSecond, Clip& clip,
                                float& duration)
{
    const std::string name = str(ch.mName);
    const std::string what = who + " morph channel '" + name + "'";
    if (!ch.mKeys || ch.mNumKeys == 0) {
        note(Severity::Warning, what + ": no keys; skipped");
        return {};
    }
    std::vector<float> times(ch.mNumKeys);
    for (unsigned k = 0; k < ch.mNumKeys; ++k) {
        times[k] = float(ch.mKeys[k].mTime / ticksPerSecond);
        if (!std::isfinite(times[k]) || (k > 0 && !(times[k] >= times[k - 1]))) {
            note(Severity::Warning, what + ": key times are not sorted (key " + std::to_string(k) + "); skipped");
            return {};
        }
    }
    const std::vector<unsigned> meshes = morphChannelMeshes(name);
    if (meshes.empty()) {
        note(Severity::Warning, what + ": no node or mesh of that name; skipped");
        return {};
    }
    size_t badValues = 0;
    bool any = false;
    for (unsigned m : meshes) {
        const int rigMesh = m_rigMeshOf[m];
        if (rigMesh < 0)
            continue;
        const std::vector<int>& targetOf = m_targetOf[m];
        const size_t targets = m_rig.meshes[size_t(rigMesh)].morphTargets.size();
        if (targets == 0)
            continue;
        // Dense weights for every mesh of the node: count them against the budget before allocating.
        m_bytes.add(uint64_t(times.size()) * targets, sizeof(float));
        m_bytes.add(uint64_t(times.size()), sizeof(float));
        if (auto r = checkEstimate(); !r.ok())
            return r;
        MorphChannel channel;
        channel.mesh = rigMesh;
        channel.interpolation = Interpolation::Linear;
        channel.times = times;
        channel.weights.assign(times.size() * targets, 0.0f);
        for (unsigned k = 0; k < ch.mNumKeys; ++k) {
            const aiMeshMorphKey& key = ch.mKeys[k];
            if (!key.mValues || !key.mWeights)
                continue;
            for (unsigned q = 0; q < key.mNumValuesAndWeights; ++q) {
                const unsigned animMesh = key.mValues[q];
                const int target = animMesh < targetOf.size() ? targetOf[animMesh] : -1;
                if (target < 0) {
                    ++badValues;
                    continue;
                }
                channel.weights[size_t(k) * targets + size_t(target)] = float(key.mWeights[q]);
            }
        }
        clip.morphs.push_back(std::move(channel));
        any = true;
    }
    if (!any) {
        note(Severity::Warning, what + ": its meshes have no morph targets; skipped");
        return {};
    }
    if (badValues)
        note(Severity::Warning, what + ": " + std::to_string(badValues) + " key values name missing or skipped targets; ignored");
    duration = std::max(duration, times.back());
    return {};
}

} // namespace rig::assimp_import
