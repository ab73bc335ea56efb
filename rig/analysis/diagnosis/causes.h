// "Why is this vertex wrong?": each vertex whose normal error under a method exceeds a threshold gets its main cause,
// from quantities the core already has (README "Error causes" defines the rule). The first that holds, in order:
//   authoring_baseline    the skinning error is at most half the error and the authored normal was already at least
//                         half of it off the rebuilt one at the bind pose: authoring, carried along, not skinning;
//   collapse              the linear blend keeps less than 70 % of the neighbourhood (candy-wrapper scale < 0.7):
//                         linear blending's collapse, what dual quaternions avoid (so never dual-quaternion's cause);
//   morph_without_deltas  a morph target moves the vertex and carries no normal deltas (or they are switched off):
//                         the morph changed the surface and nothing turned the authored normal with it;
//   non_rigid             the blended 3×3 scales or shears unevenly (σ_min / σ_max < 0.98): what the inverse
//                         transpose and the cofactor correct for a normal;
//   weight_gradient       the weights change across the vertex's triangles (two or more influences): the term the
//                         jacobian adds and every other method leaves out;
//   other                 none of these.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "rig/deform/skinning.h"

namespace rig {

struct Rig;
struct RigRuntime;
struct Evaluation;
struct CandyWrapper;
struct DeformSettings;

enum class ErrorCause : uint8_t { None, AuthoringBaseline, Collapse, MorphWithoutDeltas, NonRigid, WeightGradient, Other };
inline constexpr int kErrorCauseCount = 7;

/// The report's key of a cause ("weight_gradient", …; "none" for None).
const char* errorCauseId(ErrorCause c);

struct ErrorCauses {
    float thresholdDeg = 5.0f;
    std::array<size_t, kErrorCauseCount> counts{}; ///< by ErrorCause; None: vertices at or under the threshold
    std::vector<std::vector<ErrorCause>> perVertex; ///< per mesh, per vertex
};

/// One vertex's cause and the numbers it was chosen from (undefined ones: kUndefinedError / kUndefinedScale).
struct VertexCause {
    ErrorCause cause = ErrorCause::None; ///< None: the error is at or under the threshold (or undefined)
    float errorDeg = -1.0f;              ///< the method's normal error against the reference rebuilt now
    float skinningErrorDeg = -1.0f;      ///< against the reference carried from the bind pose
    float baselineDeg = -1.0f;           ///< the authored normal against the one rebuilt at the bind pose
    float scale = -1.0f;                 ///< the candy-wrapper scale (blend_scale.h)
    float isotropy = -1.0f;              ///< σ_min / σ_max of the blended 3×3
    bool morphWithoutDeltas = false;     ///< a morph target without normal deltas (or with them off) moves it
    int influences = 0;                  ///< runtime influences with a weight above 0
};

/// The cause of vertex `vertex` of mesh `mesh` under method `m` (the rule above) with its inputs; the same as
/// classifyErrorCauses gives that vertex. O(influences + morph targets).
VertexCause explainVertexError(const Rig& rig, const RigRuntime& runtime, const Evaluation& eval, const CandyWrapper& cw,
                               Method m, const DeformSettings& settings, size_t mesh, size_t vertex,
                               float thresholdDeg = 5.0f);

/// Classifies method `m`'s vertices of `eval` (which must hold m) against the normal error (against the reference
/// rebuilt now), with `cw` the same pose's candy-wrapper measure (measureCandyWrapper) and `settings` the evaluation's.
ErrorCauses classifyErrorCauses(const Rig& rig, const RigRuntime& runtime, const Evaluation& eval, const CandyWrapper& cw,
                                Method m, const DeformSettings& settings, float thresholdDeg = 5.0f);

} // namespace rig
