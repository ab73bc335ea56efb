// Posing: a clip sampled at a time, then per-joint edits and morph weights on top; then joint world matrices.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "rig/model/math.h"
#include "rig/model/model.h"
#include "rig/model/result.h"

namespace rig {

/// The order in which a joint's three Euler angles apply, named as Maya names them: "xyz" rotates about X first, then
/// Y, then Z (R = Rz Ry Rx for column vectors), "zxy" about Z first, then X, then Y (R = Ry Rx Rz), and so on.
enum class RotateOrder : uint8_t { XYZ, YZX, ZXY, XZY, YXZ, ZYX };
constexpr int kRotateOrderCount = 6;

/// "xyz", "yzx", ... (lower case, as pose files and Maya write them).
const char* rotateOrderName(RotateOrder order);
/// Parses a name as rotateOrderName writes it (lower or upper case); false for anything else.
bool parseRotateOrder(std::string_view name, RotateOrder& out);
/// The axes in the order they apply: axis(order, 0) is the first rotation's axis (0 x, 1 y, 2 z).
int rotateOrderAxis(RotateOrder order, int step);

/// A user's edit of one joint, applied after the rest (or sampled) local transform:
/// rotation = local * eulerRotation(rotateDeg, rotateOrder) (in the joint's local frame; xyz unless set),
/// translation = local + translate, scale = local * scale (componentwise).
struct JointEdit {
    glm::vec3 rotateDeg{0.0f};
    glm::vec3 translate{0.0f};
    glm::vec3 scale{1.0f};
    RotateOrder rotateOrder = RotateOrder::XYZ;
    /// Some rotation, translation or scale: the joint's transform differs from its base. An order alone changes nothing.
    bool changesTransform() const;
    /// Nothing to keep: no change of the transform and the default order (an edit that only sets the order is kept).
    bool isIdentity() const;
};

/// Where a pose starts from: the file's node transforms ("rest"), or every joint at its bind pose ("bind": joint world =
/// inverse(inverse bind matrix), so every skin matrix is the identity and the mesh is exactly its authored shape).
enum class PoseBase : uint8_t { Rest, Bind };

/// A pose as the pose file and the UI describe it. Names refer to nodes and morph targets of the rig.
struct Pose {
    PoseBase base = PoseBase::Rest;
    std::map<std::string, JointEdit> joints;
    std::map<std::string, float> morphs; ///< by target name; applies to every mesh that has a target of that name
    std::string clip;                    ///< clip name or index; empty for the rest pose
    double time = 0.0;                   ///< seconds into the clip
};

/// A pose resolved against one rig: indices instead of names.
struct ResolvedPose {
    PoseBase base = PoseBase::Rest;
    int clip = -1;
    float time = 0.0f;
    std::vector<std::pair<int, JointEdit>> joints;   ///< node index, edit
    /// Per mesh, per target: the mesh's default weights, replaced by the clip's where it animates them,
    /// replaced by the pose file's where it names them.
    std::vector<std::vector<float>> morphWeights;
};

/// Rotation matrix of XYZ Euler angles in degrees: X applied first, then Y, then Z (Rz * Ry * Rx).
glm::mat3 eulerXYZ(const glm::vec3& degrees);
/// Rotation matrix of Euler angles in degrees (degrees.x about X, .y about Y, .z about Z) applied in `order`.
glm::mat3 eulerRotation(const glm::vec3& degrees, RotateOrder order);

/// Resolves names; fails with a message naming the first unknown joint, morph target or clip.
Result<ResolvedPose> resolvePose(const Rig& rig, const Pose& pose);

/// Samples a track at time t (clamped to its key range). The track must be non-empty and well formed
/// (see validateClip). Quaternions are slerped (linear) or spline-interpolated then normalised (cubic).
glm::vec3 sampleTrack(const Track<glm::vec3>& track, float t);
glm::quat sampleTrack(const Track<glm::quat>& track, float t);

/// Samples one mesh's morph weights; `out` must hold targetCount values.
void sampleMorphChannel(const MorphChannel& channel, size_t targetCount, float t, float* out);

/// Every key time of a clip (joint and morph channels), sorted, duplicates (within 1e-6 s) merged: the clip's own
/// sampling, for a timeline's frames. Non-finite times are left out.
std::vector<float> clipKeyTimes(const Clip& clip);

/// Checks that every track has sorted finite times and the value count its interpolation needs.
Result<void> validateClip(const Clip& clip, const Rig& rig);

/// World matrices of every node for the resolved pose. `world` is resized to the node count.
///
/// Base rest: each node's local transform is its rest matrix, replaced by its TRS with the clip's channels and the
/// edits applied where it has either; world = parent world × local.
/// Base bind: every joint's base world is inverse(its inverse bind matrix) (of the first skin that lists it), every other
/// node follows its parent with its rest matrix; local transforms are the base ones relative to the parent, and the
/// clip and the edits apply on them as above. A node whose subtree root-path is untouched by clip and edits keeps its
/// base world exactly; `atBind` (when given) marks those joints: their skin matrices are exactly the identity.
void evaluateWorld(const Rig& rig, const ResolvedPose& pose, std::vector<glm::mat4>& world,
                   std::vector<uint8_t>* atBind = nullptr);

/// Skin matrices (jointWorld × inverseBind) for every skin: palettes[s][j]. With `atBind` from evaluateWorld, the
/// joints at their bind pose get the exact identity (when this skin's inverse bind is the one their bind world came from).
void evaluatePalettes(const Rig& rig, const std::vector<glm::mat4>& world, std::vector<std::vector<glm::mat4>>& palettes,
                      const std::vector<uint8_t>* atBind = nullptr);

} // namespace rig
