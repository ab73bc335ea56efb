// The twist sweep: one joint turned about its bone axis from 0° to 180°, the rest of the pose as it is, and at each
// angle the worst scale that linear blending and dual quaternions keep over the vertices that blend that joint with
// another (the two largest weights of a vertex; blend_scale.h defines the scale). Linear blending's falls as
// cos(θ / 2) for a 0.5 / 0.5 vertex between rigid joints and reaches 0 at 180° (the candy wrapper); dual quaternions
// keep 1 for rigid joints and blend only the joints' own stretch.
// Beside the scale, what each method's positions do: every measured vertex's distance from the bone's axis (the line
// through the joint along its bone) against its distance at 0°, for linear, dual-quaternion and center-of-rotation.
// A rigid twist keeps it; linear blending's 0.5 / 0.5 vertex shrinks to cos(θ / 2) of it.
#pragma once

#include <array>
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
    /// Per method (kSweepMethods order): the smallest and the largest ratio of a measured vertex's distance from the
    /// bone's axis to its distance at 0° (kUndefinedScale: no vertex off the axis).
    std::array<float, 3> radiusMin{1.0f, 1.0f, 1.0f};
    std::array<float, 3> radiusMax{1.0f, 1.0f, 1.0f};
};

/// The methods whose positions the sweep measures, in TwistSweepSample's radius order.
inline constexpr std::array<Method, 3> kSweepMethods = {Method::Linear, Method::DualQuaternion, Method::CenterOfRotation};

struct TwistSweep {
    int node = -1;
    size_t vertices = 0; ///< the vertices measured: the joint is one of their two largest weights, both above 0
    std::vector<TwistSweepSample> samples; ///< steps + 1 angles, 0° to 180°
};

/// Sweeps `node`'s twist: at each of steps + 1 angles its edit in `base` takes the rotation twistEdit gives (in its
/// rotate order; translate and scale kept) and the pose is evaluated (kSweepMethods). Vertices closer to the axis than
/// 1 % of the farthest measured one at 0° are left out of the radius ratios. Fails when the node is not a
/// joint of the rig or steps is not 1..3600; returns what it has when `cancel` turns true (samples fewer than
/// steps + 1). `progress`, when given, is called after each angle with the count done. Allocates once per sweep.
Result<TwistSweep> sweepTwist(const Rig& rig, const RigRuntime& runtime, const ResolvedPose& base, int node, int steps = 36,
                              const DeformSettings& settings = {}, const std::atomic<bool>* cancel = nullptr,
                              const std::function<void(int)>& progress = {});

} // namespace rig
