// The built-in procedural sample rigs: no files needed, analytic ground truth.
#pragma once

#include <string>
#include <vector>

#include "rig/model/model.h"
#include "rig/model/pose.h"
#include "rig/model/result.h"

namespace rig {

/// Names of the built-in rigs, in menu order: sheet, twist_tube, ramp, elbow, lift_strip.
const std::vector<std::string>& sampleNames();

/// Builds a sample by name; fails with a message listing the valid names.
Result<Rig> makeSample(const std::string& name);

/// The lesson of a sample (README's "what it shows"): the pose it opens in and the joint its presets act on.
struct SampleLesson {
    Pose pose;
    std::string joint; ///< empty when the lesson is no joint's (the sheet's morph targets)
};
/// The lesson of sample `name`; an empty pose and joint for an unknown name.
SampleLesson sampleLesson(const std::string& name);

/// Sample rigs with a size knob, for benchmarks and stress tests: a sheet-like grid of about `vertexCount` vertices
/// driven by `jointCount` joints in a chain with `influences` (1..8) influences per vertex.
Rig makeBenchmarkRig(size_t vertexCount, int jointCount, int influences);

} // namespace rig
