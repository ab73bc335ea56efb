#include "rig/analysis/weight_checks.h"

#include <algorithm>
#include <cmath>

namespace rig {

VertexWeightFacts vertexWeightFacts(std::span<const Influence> influences, size_t jointCount)
{
    VertexWeightFacts f;
    for (size_t i = 0; i < influences.size(); ++i) {
        const Influence in = influences[i];
        const bool finite = std::isfinite(in.weight);
        f.nonFinite = f.nonFinite || !finite;
        f.negative = f.negative || in.weight < 0.0f;
        if (in.joint >= jointCount) {
            f.outOfRange = true; // the validator reports these and skips them
            continue;
        }
        if (finite)
            f.sum += double(in.weight);
        if (finite && in.weight > 0.0f)
            ++f.usable;
        if (in.weight == 0.0f || !finite)
            continue;
        // Repeated among the earlier non-zero in-range entries (a vertex has a handful: quadratic is fine).
        for (size_t k = 0; k < i && !f.duplicate; ++k)
            f.duplicate = influences[k].joint == in.joint && influences[k].weight != 0.0f;
        f.sum32 = float(double(f.sum32) + double(in.weight));
        f.tolerance += 2e-7;
    }
    f.nonNormalized = std::fabs(double(f.sum32) - 1.0) > f.tolerance;
    return f;
}

WeightChecks checkWeights(const Rig& rig)
{
    WeightChecks c;
    c.nodeVertexCounts.assign(rig.skeleton.nodes.size(), 0);
    uint32_t base = 0;
    for (const Mesh& mesh : rig.meshes) {
        const uint32_t n = uint32_t(mesh.vertexCount());
        const Skin* skin = mesh.isSkinned() && size_t(mesh.skin) < rig.skins.size() ? &rig.skins[size_t(mesh.skin)] : nullptr;
        if (skin && mesh.influenceOffsets.size() == size_t(n) + 1) {
            size_t zw = 0;
            for (uint32_t v = 0; v < n; ++v) {
                const uint32_t b = mesh.influenceOffsets[v];
                const uint32_t e = std::min<uint32_t>(mesh.influenceOffsets[v + 1], uint32_t(mesh.influences.size()));
                const std::span<const Influence> span(mesh.influences.data() + b, b < e ? e - b : 0);
                const VertexWeightFacts f = vertexWeightFacts(span, skin->joints.size());
                const uint32_t g = base + v;
                if (f.nonNormalized)
                    c.nonNormalized.hit(g);
                if (f.usable > 4)
                    c.over4.hit(g);
                if (f.usable > 8)
                    c.over8.hit(g);
                if (f.negative || f.nonFinite)
                    c.negativeOrNan.hit(g);
                if (f.duplicate)
                    c.duplicateJoints.hit(g);
                while (zw < mesh.zeroWeightJointVertices.size() && mesh.zeroWeightJointVertices[zw] < v)
                    ++zw;
                if (zw < mesh.zeroWeightJointVertices.size() && mesh.zeroWeightJointVertices[zw] == v)
                    c.zeroWeightInfluences.hit(g);
                if (f.usable == 0)
                    c.noInfluence.hit(g);
                c.maxInfluences = std::max<size_t>(c.maxInfluences, f.usable);
                // Per node, each vertex once however many entries name it.
                for (uint32_t i = b; i < e; ++i) {
                    const Influence in = mesh.influences[i];
                    if (in.joint >= skin->joints.size() || !(std::isfinite(in.weight) && in.weight > 0.0f))
                        continue;
                    const int node = skin->joints[in.joint];
                    bool first = true;
                    for (uint32_t k = b; k < i && first; ++k)
                        first = !(mesh.influences[k].joint < skin->joints.size() &&
                                  skin->joints[mesh.influences[k].joint] == node && std::isfinite(mesh.influences[k].weight) &&
                                  mesh.influences[k].weight > 0.0f);
                    if (first && node >= 0 && size_t(node) < c.nodeVertexCounts.size())
                        ++c.nodeVertexCounts[size_t(node)];
                }
            }
        }
        base += n;
    }
    std::vector<bool> isJoint(rig.skeleton.nodes.size(), false);
    for (const Skin& s : rig.skins)
        for (int j : s.joints)
            if (j >= 0 && size_t(j) < isJoint.size())
                isJoint[size_t(j)] = true;
    for (size_t i = 0; i < isJoint.size(); ++i)
        if (isJoint[i] && c.nodeVertexCounts[i] == 0)
            c.unusedJoints.push_back(int(i));
    return c;
}

} // namespace rig
