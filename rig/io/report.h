// The `rigscope report` JSON (schema in the README). Qt-free; streams to any std::ostream.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "rig/analysis/audit.h"
#include "rig/deform/deform.h"
#include "rig/model/model.h"
#include "rig/model/pose.h"

namespace rig {

struct ClipScan;
struct FormatComparison;

struct ReportOptions {
    bool perVertex = false;
    const ClipScan* scan = nullptr; ///< written as "scan" when given (rigscope report --scan)
    std::string device = "cpu"; ///< "cpu" or "gpu"
    std::string backend;        ///< GPU backend name when device is "gpu"
    std::string profile = "custom"; ///< the engine profile `runtime` was built with (engine_profiles.h), or "custom"
    /// Written as "formats" when given: each profile against the float reference (format_difference.h).
    const std::vector<FormatComparison>* formats = nullptr;
};

/// Writes the report. Non-finite numbers and undefined directions are written as null, never NaN.
void writeReportJson(std::ostream& out, const Rig& rig, const RigRuntime& runtime, const Pose& pose,
                     const DeformSettings& settings, const Evaluation& eval, const Audit& audit,
                     const ReportOptions& options);

} // namespace rig
