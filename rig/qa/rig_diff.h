// `rigscope diff A B`: two versions of one rig, compared as an artist reviews a rig change. Joints are matched by name,
// vertices by order (when every mesh has the same vertex count) or by bind-space position (the nearest vertex of the
// other version within a tolerance); then: joints added, removed, reparented or moved at the bind pose, each matched
// vertex's weight change, and how every method's error changed at the same poses (the rest pose, each clip both
// versions have, and the caller's poses). The README's "rigscope diff" section gives the rules and the JSON schema.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "rig/deform/skinning.h"
#include "rig/model/model.h"
#include "rig/model/pose.h"
#include "rig/model/result.h"

namespace rig {

enum class VertexMatch : uint8_t { Auto, Order, Position };
const char* vertexMatchName(VertexMatch m); ///< "auto", "order", "position"

struct RigDiffOptions {
    VertexMatch match = VertexMatch::Auto;
    /// Bind positions closer than this are the same vertex (position matching) or have not moved (order matching);
    /// <= 0: 1e-4 of A's bind bounding-box diagonal.
    float tolerance = 0.0f;
    float weightThreshold = 0.01f; ///< a vertex whose weight of some joint changes by more than this has changed
    double errorThresholdDeg = 1.0; ///< a method whose p95 skinning normal error changes by more than this has changed
    int influences = 4;            ///< K of the runtimes the errors are measured with (4 or 8)
    size_t maxClipFrames = 120;    ///< a clip's frames beyond this are sampled evenly
    std::vector<std::pair<std::string, Pose>> poses; ///< more poses (by name), resolved against each version
};

struct JointDiff {
    std::string name;
    std::string parentA, parentB; ///< parent joint names ("" for none); differ when reparented
    float bindMoved = 0.0f;       ///< distance between the two bind positions (scene units)
};

/// One method at one pose set: the worst over its frames of each version.
struct MethodErrorDiff {
    Method method = Method::Linear;
    double p95A = 0.0, p95B = 0.0; ///< skinning normal error p95 (degrees; against the reference carried from bind)
    double maxA = 0.0, maxB = 0.0; ///< normal error max (against the reference rebuilt at the pose)
};

struct PoseDiff {
    std::string name; ///< "rest", "clip:<name>" or the caller's pose name
    size_t frames = 1;
    std::vector<MethodErrorDiff> methods; ///< every method but rebuilt, in allMethods() order
};

struct JointWeightChange {
    std::string joint;
    size_t vertices = 0; ///< matched vertices whose weight of this joint changed by more than the threshold
    float maxChange = 0.0f;
};

struct RigDiff {
    VertexMatch match = VertexMatch::Order; ///< the matching used (Auto resolved)
    float tolerance = 0.0f;                 ///< the distance used
    std::vector<std::string> jointsAdded, jointsRemoved; ///< skin joints only in B / only in A, by name
    std::vector<JointDiff> jointsReparented;             ///< common joints whose parent joint changed
    std::vector<JointDiff> jointsMoved;                  ///< common joints whose bind position moved beyond tolerance
    size_t verticesA = 0, verticesB = 0;
    size_t matched = 0;                 ///< B vertices with a partner in A
    size_t unmatchedA = 0, unmatchedB = 0;
    size_t movedVertices = 0;           ///< matched by order, bind positions further apart than the tolerance
    float maxVertexMove = 0.0f;
    size_t weightChangedVertices = 0;   ///< matched vertices over the weight threshold
    float maxWeightChange = 0.0f;       ///< over matched vertices: max over joints of |w_A − w_B| (normalised raw weights)
    int64_t maxWeightChangeVertex = -1; ///< B's global vertex index of that maximum (-1: none)
    std::vector<JointWeightChange> jointChanges; ///< per joint, most vertices first
    /// Per B global vertex: its weight change, or -1 where it has no partner in A (the app's heatmap).
    std::vector<float> weightChange;
    std::vector<PoseDiff> poses;
    size_t errorChanges = 0; ///< (pose, method) pairs whose p95 skinning error changed by more than the threshold

    /// Joints added, removed or reparented, vertices unmatched, weights changed or errors changed beyond the thresholds.
    bool differs() const;
};

/// Compares B with A. Fails (naming the pose and the joint) when a caller's pose does not resolve against a version,
/// or when the options are out of range.
Result<RigDiff> diffRigs(const Rig& a, const Rig& b, const RigDiffOptions& options);

/// The per-vertex weight change alone (no poses evaluated): what the app's heatmap needs, O(vertices · influences).
Result<RigDiff> diffWeights(const Rig& a, const Rig& b, const RigDiffOptions& options);

/// The JSON (README schema); `nameA` / `nameB` are the sources as given.
void writeRigDiffJson(std::ostream& out, const RigDiff& d, const std::string& nameA, const std::string& nameB,
                      const RigDiffOptions& options);
/// The text summary.
void printRigDiff(std::ostream& out, const RigDiff& d, const std::string& nameA, const std::string& nameB,
                  const RigDiffOptions& options);

} // namespace rig
