// Pose files (JSON, schema in the README: base, joints, morphs, clip, time): reading them into rig::Pose and writing a
// rig::Pose back, so that what the app saves, `--pose` and `report --pose` read.
#pragma once

#include <string>
#include <string_view>

#include "rig/model/pose.h"
#include "rig/model/result.h"

namespace rig {

/// Parses pose JSON text. Errors read "<displayName>: <reason>", naming the offending key.
Result<Pose> parsePose(std::string_view json, const std::string& displayName);

/// Reads and parses a pose file; errors read "<path>: <reason>".
Result<Pose> readPoseFile(const std::string& path);

/// The pose as pose-file JSON (pretty-printed, keys in a stable order, identity edits and empty parts left out),
/// which parsePose reads back to an equal pose (floats are written to round-trip exactly).
std::string writePoseJson(const Pose& pose);

/// Writes writePoseJson(pose) to `path` (through a temporary file beside it, renamed over it: a failed write leaves any
/// old file whole). Errors read "<path>: <reason>".
Result<void> writePoseFile(const std::string& path, const Pose& pose);

} // namespace rig
