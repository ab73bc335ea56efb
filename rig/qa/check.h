// `rigscope check`: a rig's findings and measurements held to rules, for pipelines. Every finding has a stable code —
// the Khronos glTF-Validator's where one exists (ACCESSOR_WEIGHTS_NON_NORMALIZED, ...), RigScope's own (RIGSCOPE_...)
// otherwise — a severity the rules can override or ignore per code, and the rule (a JUnit test case) it belongs to.
// The README lists the codes, the rules and their defaults.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rig/deform/skinning.h"
#include "rig/model/model.h"
#include "rig/model/result.h"

namespace rig {

/// Ordered: a finding fails the check at Error (at Warning too with --strict). Ignore drops it.
enum class CheckSeverity : uint8_t { Ignore, Info, Warning, Error };
std::string_view checkSeverityName(CheckSeverity s); ///< "ignore", "info", "warning", "error"

struct CheckRules {
    int influences = 4;          ///< K of the runtime the measurements use (4 or 8)
    size_t maxInfluences = 4;    ///< RIGSCOPE_MAX_INFLUENCES: vertices with more usable influences than this
    Method method = Method::Linear; ///< the method whose skinning error is held to maxSkinningErrorDeg
    /// RIGSCOPE_SKINNING_ERROR: the method's p95 skinning normal error (against the reference carried from the bind
    /// pose, so authoring is left out) at the rest pose or any clip frame above this many degrees.
    double maxSkinningErrorDeg = 20.0;
    /// RIGSCOPE_CANDY_WRAPPER: linear blending's smallest scale (the candy wrapper) at the rest pose or any clip
    /// frame below this.
    double minBlendScale = 0.5;
    /// RIGSCOPE_AUTHORING_BASELINE: the authored normals' p95 against the reference rebuilt at the bind pose above
    /// this many degrees.
    double maxBaselineDeg = 30.0;
    float clipStep = 0.0f;       ///< seconds between clip frames; 0: each clip's own key times
    size_t maxClipFrames = 600;  ///< a clip with more frames is sampled evenly at this many
    std::map<std::string, CheckSeverity, std::less<>> severity; ///< per code: overrides the default
};

/// Reads a rules file's text (the README's format); unknown keys, bad values and unknown codes are errors naming
/// `name` and the key.
Result<CheckRules> parseCheckRules(std::string_view text, const std::string& name);

/// The rules, each one JUnit test case per file, in order: read, weights, influences, skeleton, geometry, tangents,
/// baseline, skinning-error, candy-wrapper.
const std::vector<std::string_view>& checkRuleIds();

/// A code the check emits: its rule and default severity. Empty rule for an unknown code.
struct CheckCodeInfo {
    std::string_view code;
    std::string_view rule;
    CheckSeverity severity = CheckSeverity::Warning;
};
const std::vector<CheckCodeInfo>& checkCodes();

struct CheckFinding {
    std::string code;
    std::string rule;
    CheckSeverity severity = CheckSeverity::Warning;
    size_t count = 0;    ///< vertices, triangles or joints affected; 1 for a measurement
    std::string message; ///< one line
};

/// One pose the measurements were made at: the rest pose, or one clip's worst frame for each measure.
struct CheckPose {
    std::string name;               ///< "rest" or the clip's name
    size_t frames = 1;              ///< frames evaluated (1 for the rest pose)
    double skinningErrorP95 = 0.0;  ///< the method's, at its worst frame (degrees)
    double skinningErrorMax = 0.0;
    float skinningErrorTime = 0.0f; ///< that frame's time
    float minBlendScale = 1.0f;     ///< linear blending's smallest scale at its worst frame
    float minBlendScaleTime = 0.0f;
};

struct CheckResult {
    std::string file;
    bool readable = false;
    std::string error; ///< why not, when not readable
    size_t vertices = 0, triangles = 0, joints = 0, clips = 0;
    double baselineP95 = 0.0;
    std::vector<CheckPose> poses;
    std::vector<CheckFinding> findings; ///< severity Ignore removed

    /// The most severe finding (Ignore when none); an unreadable file counts as Error.
    CheckSeverity worst() const;
};

/// Checks `rig` (read from `file`) against `rules`: the audit, the raw weight checks, the influence limit, the
/// authoring baseline, the method's skinning error and linear blending's scale at the rest pose and over every clip.
/// `cancel` stops it between frames (the result then holds what was measured).
CheckResult checkRig(const Rig& rig, const std::string& file, const CheckRules& rules,
                     const std::atomic<bool>* cancel = nullptr);

/// An unreadable file's result (exit status 2; a failed "read" test case).
CheckResult unreadableFile(const std::string& file, const std::string& error);

/// 0 when no result has an error (nor, with `strict`, a warning); 2 when a file could not be read; else 1.
int checkExitStatus(std::span<const CheckResult> results, bool strict);

/// JSON: every file's measurements and findings (README schema).
void writeCheckJson(std::ostream& out, std::span<const CheckResult> results, const CheckRules& rules, bool strict);
/// JUnit XML: one test suite per file, one test case per rule; a case fails on an Error finding (or a Warning with
/// `strict`), lists its findings otherwise in system-out.
void writeCheckJUnit(std::ostream& out, std::span<const CheckResult> results, bool strict);

} // namespace rig
