// Runs methods on the GPU and reads the results back into the CPU pipeline's structure (rig::Evaluation), so that
// the same rig::writeReportJson, statistics and tests apply to both devices.
#pragma once

#include <array>
#include <span>
#include <utility>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "rig/deform/deform.h"
#include "rig/model/pose.h"

namespace viewer {

class GpuDeformer;

/// One mesh's axis-aligned box as the GPU computed it. An empty mesh has min > max.
struct MeshBounds {
    glm::vec3 min{0.0f}, max{0.0f};
    bool empty = true;
};

/// What the GPU computes beyond rig::Evaluation.
struct GpuEvaluationExtras {
    std::vector<MeshBounds> linearBounds;           ///< per mesh, of the linear-blend positions
    std::vector<MeshBounds> dualQuaternionBounds;   ///< per mesh, when dual-quaternion was evaluated
    std::vector<MeshBounds> centerOfRotationBounds; ///< per mesh, when center-of-rotation was evaluated
    /// The boxes of method m's positions (rig::ownPositions, else the linear ones).
    const std::vector<MeshBounds>& boundsOf(rig::Method m) const
    {
        return m == rig::Method::DualQuaternion     ? dualQuaternionBounds
               : m == rig::Method::CenterOfRotation ? centerOfRotationBounds
                                                    : linearBounds;
    }
    std::vector<MeshBounds>& boundsOf(rig::Method m)
    {
        return const_cast<std::vector<MeshBounds>&>(std::as_const(*this).boundsOf(m));
    }
    /// Per mesh, per vertex: the candy-wrapper scale and volume of linear blending (GpuDeformer::blendScaleBuffer;
    /// rig::CandyWrapper's scale and volume).
    std::vector<std::vector<float>> blendScale, blendVolume;
    /// Per mesh, per vertex: |dual-quaternion − linear| and that over the limb radius (-1: undefined), as
    /// rig::measureDqDisplacement defines them (the blend-scale buffer's z and w).
    std::vector<std::vector<float>> dqDisplacement, dqFraction;
    /// When the deformer has a comparison (GpuDeformer::hasComparison): per method (rig::Method index), per mesh, per
    /// vertex, the format difference (GpuDeformer::formatDifferenceBuffer): distance and normal angle (-1 undefined).
    std::array<std::vector<std::vector<float>>, rig::kMethodCount> formatDistance, formatNormalDeg;
};

/// Evaluates `methods` (as rig::evaluate does: the linear surface always, the ownPositions() surfaces when asked, the
/// reference of each, every method's frames, errors and flags, then the statistics by rig::errorStats) with offscreen
/// frames on the deformer's QRhi, and fills `out` in rig::evaluate's layout. The deformer must hold the rig
/// (setRig). Changes the deformer's pose, settings and method (and enables its comparison when it has one and `extras`
/// is given). Must not be called while the QRhi records a frame.
/// Returns false with a message when a frame or a readback fails.
bool evaluateOnGpu(GpuDeformer& deformer, const rig::ResolvedPose& pose, std::span<const rig::Method> methods,
                   const rig::DeformSettings& settings, rig::Evaluation& out, GpuEvaluationExtras* extras = nullptr,
                   std::string* error = nullptr);

} // namespace viewer
