// Posing: a clip sampled at a time, then per-joint edits and morph weights on top; then joint world matrices.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "rig/model/math.h"
#include "rig/model/model.h"
#include "rig/model/result.h"

namespace rig {

/// A user's edit of one joint, applied after the rest (or sampled) local transform:
/// rotation = local * eulerXYZ(rotateDeg) (X first, then Y, then Z, in the joint's local frame),
/// translation = local + translate, scale = local * scale (componentwise).
struct JointEdit {
    glm::vec3 rotateDeg{0.0f};
    glm::vec3 translate{0.0f};
    glm::vec3 scale{1.0f};
    bool isIdentity() const;
};

/// A pose as the pose file and the UI describe it. Names refer to nodes and morph targets of the rig.
struct Pose {
    std::map<std::string, JointEdit> joints;
    std::map<std::string, float> morphs; ///< by target name; applies to every mesh that has a target of that name
    std::string clip;                    ///< clip name or index; empty for the rest pose
    double time = 0.0;                   ///< seconds into the clip
};

/// A pose resolved against one rig: indices instead of names.
struct ResolvedPose {
    int clip = -1;
    float time = 0.0f;
    std::vector<std::pair<int, JointEdit>> joints;   ///< node index, edit
    /// Per mesh, per target: the mesh's default weights, replaced by the clip's where it animates them,
    /// replaced by the pose file's where it names them.
    std::vector<std::vector<float>> morphWeights;
};

/// Rotation matrix of XYZ Euler angles in degrees: X applied first, then Y, then Z (Rz * Ry * Rx).
glm::mat3 eulerXYZ(const glm::vec3& degrees);

/// Resolves names; fails with a message naming the first unknown joint, morph target or clip.
Result<ResolvedPose> resolvePose(const Rig& rig, const Pose& pose);

/// Samples a track at time t (clamped to its key range). The track must be non-empty and well formed
/// (see validateClip). Quaternions are slerped (linear) or spline-interpolated then normalised (cubic).
glm::vec3 sampleTrack(const Track<glm::vec3>& track, float t);
glm::quat sampleTrack(const Track<glm::quat>& track, float t);

/// Samples one mesh's morph weights; `out` must hold targetCount values.
void sampleMorphChannel(const MorphChannel& channel, size_t targetCount, float t, float* out);

/// Checks that every track has sorted finite times and the value count its interpolation needs.
Result<void> validateClip(const Clip& clip, const Rig& rig);

/// World matrices of every node for the resolved pose. `world` is resized to the node count.
void evaluateWorld(const Rig& rig, const ResolvedPose& pose, std::vector<glm::mat4>& world);

/// Skin matrices (jointWorld × inverseBind) for every skin: palettes[s][j].
void evaluatePalettes(const Rig& rig, const std::vector<glm::mat4>& world, std::vector<std::vector<glm::mat4>>& palettes);

} // namespace rig
