#include "rig/model/structure.h"

#include <cmath>
#include <string>

namespace rig {

Result<void> checkStructure(const Rig& r)
{
    const auto& nodes = r.skeleton.nodes;
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].parent < -1 || nodes[i].parent >= int(i))
            return fail("node " + std::to_string(i) + " has parent " + std::to_string(nodes[i].parent));
    for (size_t s = 0; s < r.skins.size(); ++s) {
        const Skin& skin = r.skins[s];
        const std::string who = "skin " + std::to_string(s);
        if (skin.joints.size() != skin.inverseBind.size())
            return fail(who + ": " + std::to_string(skin.joints.size()) + " joints but " +
                        std::to_string(skin.inverseBind.size()) + " inverse bind matrices");
        if (skin.joints.size() > kMaxJointsPerSkin)
            return fail(who + ": more than " + std::to_string(kMaxJointsPerSkin) + " joints");
        for (int j : skin.joints)
            if (j < -1 || j >= int(nodes.size()))
                return fail(who + ": joint node " + std::to_string(j) + " out of range");
    }
    if (r.meshes.empty())
        return fail("no meshes");
    for (size_t mi = 0; mi < r.meshes.size(); ++mi) {
        const Mesh& m = r.meshes[mi];
        const size_t n = m.vertexCount();
        const std::string who = "mesh " + std::to_string(mi);
        if (n == 0)
            return fail(who + ": no vertices");
        if (m.indices.size() % 3 != 0)
            return fail(who + ": the index count is not a multiple of 3");
        if (m.node < -1 || m.node >= int(nodes.size()))
            return fail(who + ": node out of range");
        if (m.normals.size() != n || (!m.tangents.empty() && m.tangents.size() != n) ||
            (!m.uvs.empty() && m.uvs.size() != n))
            return fail(who + ": attribute counts differ from the vertex count");
        for (uint32_t i : m.indices)
            if (i >= n)
                return fail(who + ": index out of range");
        if (m.skin >= 0) {
            if (m.skin >= int(r.skins.size()))
                return fail(who + ": skin out of range");
            if (m.influenceOffsets.size() != n + 1 || m.influenceOffsets[0] != 0 ||
                m.influenceOffsets.back() != m.influences.size())
                return fail(who + ": influence offsets do not cover the influences");
            for (size_t v = 0; v < n; ++v)
                if (m.influenceOffsets[v + 1] < m.influenceOffsets[v])
                    return fail(who + ": influence offsets decrease");
        } else if (m.skin != -1 || !m.influenceOffsets.empty() || !m.influences.empty()) {
            return fail(who + ": influences without a skin");
        }
        if (m.baseColorImage < -1 || m.baseColorImage >= int(r.images.size()))
            return fail(who + ": base colour image out of range");
        if (m.defaultMorphWeights.size() != m.morphTargets.size())
            return fail(who + ": one default morph weight per target expected");
        for (const MorphTarget& t : m.morphTargets)
            if (t.positionDeltas.size() != n || (!t.normalDeltas.empty() && t.normalDeltas.size() != n) ||
                (!t.tangentDeltas.empty() && t.tangentDeltas.size() != n))
                return fail(who + ": morph target '" + t.name + "' has a wrong delta count");
    }
    for (size_t i = 0; i < r.images.size(); ++i) {
        const Image& im = r.images[i];
        const bool empty = im.width == 0 && im.height == 0 && im.rgba.empty();
        if (!empty && (!im.decoded() || im.width > kMaxImageSide || im.height > kMaxImageSide))
            return fail("image " + std::to_string(i) + ": its size and its pixels disagree or exceed the limit");
    }
    for (const Clip& c : r.clips) {
        const std::string who = "clip '" + c.name + "'";
        if (!std::isfinite(c.duration) || c.duration < 0.0f)
            return fail(who + ": duration is not a finite number >= 0");
        for (const JointChannel& ch : c.joints)
            if (ch.node < 0 || ch.node >= int(nodes.size()))
                return fail(who + ": channel node out of range");
        for (const MorphChannel& ch : c.morphs)
            if (ch.mesh < 0 || ch.mesh >= int(r.meshes.size()))
                return fail(who + ": morph channel mesh out of range");
    }
    return {};
}

} // namespace rig
