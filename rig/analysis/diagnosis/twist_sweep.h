// The twist sweep: one joint turned about its bone axis from 0° to 180°, the rest of the pose as it is, and at each
// angle the worst scale that linear blending and dual quaternions keep over the vertices that blend that joint with
// another (the two largest weights of a vertex; blend_scale.h defines the scale). Linear blending's falls as
// cos(θ / 2) for a 0.5 / 0.5 vertex between rigid joints and reaches 0 at 180° (the candy wrapper); dual quaternions
// keep 1 for rigid joints and blend only the joints' own stretch.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

#include "rig/deform/deform.h"
#include "rig/model/pose.h"
#include "rig/model/result.h"

namespace rig {

struct Rig;
struct RigRuntime;

struct TwistSweepSample {
    float angleDeg = 0.0f;
    float linear = 1.0f;         ///< worst scale under linear blending (kUndefinedScale: none defined)
    float dualQuaternion = 1.0f; ///< worst scale under dual quaternions
};

struct TwistSweep {
    int node = -1;
    size_t vertices = 0; ///< the vertices measured: the joint is one of their two largest weights, both above 0
    std::vector<TwistSweepSample> samples; ///< steps + 1 angles, 0° to 180°
};

/// Sweeps `node`'s twist: at each of steps + 1 angles its edit in `base` takes the rotation twistEdit gives (in its
/// rotate order; translate and scale kept) and the pose is evaluated (linear only). Fails when the node is not a
/// joint of the rig or steps is not 1..3600; returns what it has when `cancel` turns true (samples fewer than
/// steps + 1). `progress`, when given, is called after each angle with the count done. Allocates once per sweep.
Result<TwistSweep> sweepTwist(const Rig& rig, const RigRuntime& runtime, const ResolvedPose& base, int node, int steps = 36,
                              const DeformSettings& settings = {}, const std::atomic<bool>* cancel = nullptr,
                              const std::function<void(int)>& progress = {});

} // namespace rig
