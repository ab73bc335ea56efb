#include "rig/analysis/diagnosis/twist_sweep.h"

#include <algorithm>
#include <cmath>

#include "rig/analysis/diagnosis/blend_scale.h"
#include "rig/model/joint_tools.h"

namespace rig {

Result<TwistSweep> sweepTwist(const Rig& rig, const RigRuntime& runtime, const ResolvedPose& base, int node, int steps,
                              const DeformSettings& settings, const std::atomic<bool>* cancel,
                              const std::function<void(int)>& progress)
{
    if (node < 0 || size_t(node) >= rig.skeleton.nodes.size())
        return fail("twist sweep: node " + std::to_string(node) + " is not in the rig");
    if (steps < 1 || steps > 3600)
        return fail("twist sweep: " + std::to_string(steps) + " steps (1 to 3600)");
    if (runtime.meshes.size() != rig.meshes.size())
        return fail("twist sweep: the runtime data is of another rig");

    // The vertices measured, per mesh: the node among their two largest runtime weights (both above 0).
    TwistSweep out;
    out.node = node;
    std::vector<std::vector<uint32_t>> measured(rig.meshes.size());
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        if (!mesh.isSkinned())
            continue;
        const Skin& skin = rig.skins[size_t(mesh.skin)];
        const InfluenceStream& stream = runtime.meshes[m].stream;
        const size_t k = size_t(stream.perVertex);
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            size_t first = k, second = k;
            twoLargestWeights(stream, v, first, second);
            if (second == k)
                continue;
            auto nodeOf = [&](size_t slot) {
                const uint16_t j = stream.joints[v * k + slot];
                return j < skin.joints.size() ? skin.joints[j] : -1;
            };
            if (nodeOf(first) == node || nodeOf(second) == node)
                measured[m].push_back(uint32_t(v));
        }
        out.vertices += measured[m].size();
    }

    ResolvedPose pose = base;
    auto it = std::find_if(pose.joints.begin(), pose.joints.end(), [&](const auto& e) { return e.first == node; });
    if (it == pose.joints.end()) {
        pose.joints.emplace_back(node, JointEdit{});
        it = pose.joints.end() - 1;
    }
    JointEdit& edit = it->second;
    const glm::vec3 axis = boneAxis(rig, node);
    Evaluation eval;
    // The bone's axis, from the joint's world matrix at 0° (the twist turns the joint about it, leaving it in place).
    glm::vec3 origin(0.0f), direction(1.0f, 0.0f, 0.0f);
    std::vector<std::vector<std::array<float, 3>>> restRadius(rig.meshes.size()); // per measured vertex and method
    float farthest = 0.0f;
    auto radiusOf = [&](const glm::vec3& p) {
        const glm::vec3 r = p - origin;
        return glm::length(r - glm::dot(r, direction) * direction);
    };
    std::vector<std::vector<float>> scale(rig.meshes.size()), volume(rig.meshes.size());
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        scale[m].assign(rig.meshes[m].vertexCount(), kUndefinedScale);
        volume[m].assign(rig.meshes[m].vertexCount(), 0.0f);
    }
    for (int step = 0; step <= steps; ++step) {
        if (cancel && cancel->load())
            break;
        TwistSweepSample sample;
        sample.angleDeg = 180.0f * float(step) / float(steps);
        edit.rotateDeg = twistEdit(axis, sample.angleDeg, edit.rotateOrder).rotateDeg;
        evaluate(rig, runtime, pose, kSweepMethods, settings, eval);
        if (step == 0) {
            const glm::mat4& w = eval.world[size_t(node)];
            origin = glm::vec3(w[3]);
            const glm::vec3 d = glm::mat3(w) * axis;
            direction = glm::length(d) > 0.0f ? glm::normalize(d) : glm::vec3(1.0f, 0.0f, 0.0f);
            for (size_t m = 0; m < rig.meshes.size(); ++m) {
                restRadius[m].resize(measured[m].size());
                for (size_t i = 0; i < measured[m].size(); ++i)
                    for (size_t k = 0; k < kSweepMethods.size(); ++k) {
                        const float r = radiusOf(eval.meshes[m].surfaceOf(kSweepMethods[k]).positions[measured[m][i]]);
                        restRadius[m][i][k] = r;
                        farthest = std::max(farthest, std::isfinite(r) ? r : 0.0f);
                    }
            }
        }
        for (size_t k = 0; k < kSweepMethods.size(); ++k) {
            float lo = kUndefinedScale, hi = kUndefinedScale;
            for (size_t m = 0; m < rig.meshes.size(); ++m) {
                const std::vector<glm::vec3>& positions = eval.meshes[m].surfaceOf(kSweepMethods[k]).positions;
                for (size_t i = 0; i < measured[m].size(); ++i) {
                    const float r0 = restRadius[m][i][k];
                    if (!(r0 > 0.01f * farthest))
                        continue;
                    const float ratio = radiusOf(positions[measured[m][i]]) / r0;
                    if (!std::isfinite(ratio))
                        continue;
                    lo = lo < 0.0f ? ratio : std::min(lo, ratio);
                    hi = hi < 0.0f ? ratio : std::max(hi, ratio);
                }
            }
            sample.radiusMin[k] = lo;
            sample.radiusMax[k] = hi;
        }
        float worst[2] = {kUndefinedScale, kUndefinedScale};
        for (int dq = 0; dq < 2; ++dq)
            for (size_t m = 0; m < rig.meshes.size(); ++m) {
                if (measured[m].empty())
                    continue;
                BlendScaleJob job;
                job.perVertex = runtime.meshes[m].stream.perVertex;
                job.joints = runtime.meshes[m].stream.joints;
                job.weights = runtime.meshes[m].stream.weights;
                job.palette = eval.meshes[m].palette;
                job.outScale = scale[m];
                job.outVolume = volume[m];
                job.dualQuaternion = dq == 1;
                if (!job.validate())
                    continue;
                for (uint32_t v : measured[m]) {
                    job.run(v, v + 1);
                    const float s = scale[m][v];
                    if (s >= 0.0f && (worst[dq] < 0.0f || s < worst[dq]))
                        worst[dq] = s;
                }
            }
        sample.linear = worst[0];
        sample.dualQuaternion = worst[1];
        out.samples.push_back(sample);
        if (progress)
            progress(step + 1);
    }
    return out;
}

} // namespace rig
