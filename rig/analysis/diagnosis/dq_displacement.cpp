#include "rig/analysis/diagnosis/dq_displacement.h"

#include <algorithm>
#include <cmath>

#include "rig/deform/deform.h"
#include "rig/model/model.h"

namespace rig {

namespace {

float pointSegmentDistance(const glm::vec3& p, const glm::vec3& a, const glm::vec3& b)
{
    const glm::vec3 ab = b - a;
    const float len2 = glm::dot(ab, ab);
    const float t = len2 > 0.0f ? std::clamp(glm::dot(p - a, ab) / len2, 0.0f, 1.0f) : 0.0f;
    return glm::length(p - (a + t * ab));
}

} // namespace

void skinBones(const Rig& rig, int skin, std::vector<glm::vec3>& bindPositions, std::vector<int>& parents)
{
    const Skin& s = rig.skins[size_t(skin)];
    bindPositions.assign(s.joints.size(), glm::vec3(0.0f));
    parents.assign(s.joints.size(), -1);
    for (size_t j = 0; j < s.joints.size(); ++j) {
        if (j < s.inverseBind.size()) {
            const glm::mat4 bind = glm::inverse(s.inverseBind[j]);
            bindPositions[j] = std::isfinite(bind[3].x + bind[3].y + bind[3].z) ? glm::vec3(bind[3]) : glm::vec3(0.0f);
        }
        // The nearest ancestor that is a joint of this skin.
        const int node = s.joints[j];
        int up = node >= 0 && size_t(node) < rig.skeleton.nodes.size() ? rig.skeleton.nodes[size_t(node)].parent : -1;
        for (size_t guard = 0; up >= 0 && guard < rig.skeleton.nodes.size(); ++guard) {
            const auto it = std::find(s.joints.begin(), s.joints.end(), up);
            if (it != s.joints.end()) {
                parents[j] = int(it - s.joints.begin());
                break;
            }
            up = rig.skeleton.nodes[size_t(up)].parent;
        }
    }
}

void limbRadii(std::span<const glm::vec3> positions, std::span<const uint16_t> joints, int perVertex,
               std::span<const glm::vec3> bindPositions, std::span<const int> parents, std::span<float> out)
{
    const size_t n = std::min(positions.size(), out.size());
    const size_t k = size_t(perVertex);
    // Children lists, CSR.
    const size_t count = bindPositions.size();
    std::vector<uint32_t> first(count + 1, 0), children;
    for (size_t j = 0; j < count; ++j)
        if (parents[j] >= 0 && size_t(parents[j]) < count)
            ++first[size_t(parents[j]) + 1];
    for (size_t j = 0; j < count; ++j)
        first[j + 1] += first[j];
    children.resize(first[count]);
    std::vector<uint32_t> fill(first.begin(), first.end() - 1);
    for (size_t j = 0; j < count; ++j)
        if (parents[j] >= 0 && size_t(parents[j]) < count)
            children[fill[size_t(parents[j])]++] = uint32_t(j);
    for (size_t v = 0; v < n; ++v) {
        const size_t j = v * k < joints.size() ? joints[v * k] : count;
        if (j >= count) {
            out[v] = 0.0f;
            continue;
        }
        const glm::vec3 a = bindPositions[j];
        float d = glm::length(positions[v] - a);
        for (uint32_t c = first[j]; c < first[j + 1]; ++c)
            d = std::min(d, pointSegmentDistance(positions[v], a, bindPositions[children[c]]));
        out[v] = std::isfinite(d) ? d : 0.0f;
    }
}

DqDisplacement measureDqDisplacement(const Rig& rig, const RigRuntime& runtime, const Evaluation& eval)
{
    DqDisplacement out;
    if (!eval.has(Method::DualQuaternion) || eval.meshes.size() != rig.meshes.size() ||
        runtime.meshes.size() != rig.meshes.size())
        return out;
    out.distance.resize(rig.meshes.size());
    out.fraction.resize(rig.meshes.size());
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const MeshEvaluation& me = eval.meshes[m];
        const size_t n = std::min(me.linear.positions.size(), me.dualQuaternion.positions.size());
        const std::vector<float>& radius = runtime.meshes[m].limbRadius;
        float largest = 0.0f;
        for (float r : radius)
            largest = std::max(largest, r);
        out.distance[m].resize(n);
        out.fraction[m].resize(n);
        for (size_t v = 0; v < n; ++v) {
            const float d = glm::length(me.dualQuaternion.positions[v] - me.linear.positions[v]);
            const float dist = std::isfinite(d) ? d : 0.0f;
            const float r = v < radius.size() ? radius[v] : 0.0f;
            const float f = r > kMinLimbRadiusFraction * largest && r > 0.0f ? dist / r : -1.0f;
            out.distance[m][v] = dist;
            out.fraction[m][v] = f;
            out.maxDistance = std::max(out.maxDistance, dist);
            if (f > out.maxFraction || (f >= 0.0f && out.worstMesh < 0)) {
                out.maxFraction = std::max(out.maxFraction, f);
                out.worstMesh = int(m);
                out.worstVertex = v;
            }
        }
    }
    return out;
}

} // namespace rig
