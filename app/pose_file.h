// Reading pose files (JSON, schema in the README) into rig::Pose.
#pragma once

#include <QString>

#include "rig/model/pose.h"
#include "rig/model/result.h"

namespace app {

/// Parses pose JSON text. Errors name `displayName` and the offending key.
rig::Result<rig::Pose> parsePose(const QByteArray& json, const QString& displayName);

/// Reads and parses a pose file; errors read "<path>: <reason>".
rig::Result<rig::Pose> readPoseFile(const QString& path);

} // namespace app
