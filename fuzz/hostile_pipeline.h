// The whole headless path for one untrusted input, shared by the libFuzzer target (fuzz_import.cpp) and the replay
// test (tests/io/test_hostile.cpp): bytes → importMemory → buildRuntime → evaluate (every method, rest pose and one bent
// pose) → auditRig → writeReportJson, with the contracts of import.h and report.h checked on the way.
//
// Qt-free; no global state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "rig/analysis/audit.h"
#include "rig/deform/deform.h"
#include "rig/io/import.h"
#include "rig/model/model.h"
#include "rig/model/pose.h"
#include "rig/io/report.h"

namespace hostile {

/// Format hints a fuzz input can select with its first byte: kHints[byte % kHintCount]. The seed corpus prefixes each
/// file with the ASCII digit of its format ('0' = gltf, '1' = glb, ...; '0' is 48 and 48 % 6 == 0).
inline constexpr const char* kHints[] = {"gltf", "glb", "fbx", "dae", "x", "obj"};
inline constexpr size_t kHintCount = sizeof(kHints) / sizeof(kHints[0]);

/// The import limit used for untrusted inputs here (the default budget is 8 GiB: too much for a fuzzer's 2 GiB).
inline constexpr size_t kFuzzMemoryBudget = size_t(256) << 20;

struct Outcome {
    bool loaded = false;
    std::string error;        ///< importMemory's message when not loaded
    size_t vertices = 0;      ///< of the loaded rig
    size_t jsonBytes = 0;     ///< total report bytes written (both poses)
    std::string problem;      ///< empty when every contract held; else what broke (the fuzzer aborts on it)
};

/// Rigs up to this many vertices get the per-vertex arrays in their reports (checking megabytes of JSON per input
/// would slow the fuzzer down tenfold; the arrays go through the same number writer as the statistics).
inline constexpr size_t kPerVertexLimit = 1000;

/// Runs the whole path on `data` (first byte: format hint, rest: file bytes). `displayName` names the input in
/// messages.
/// `isolate`: import in a child process as the product does (crashes inside Assimp become error messages); the fuzzer
/// passes false so that it sees them.
Outcome run(const uint8_t* data, size_t size, const std::string& displayName, size_t perVertexLimit = kPerVertexLimit,
            bool isolate = true);

/// Same on an already split input (a real file with its extension as the hint).
Outcome runFile(const uint8_t* data, size_t size, const std::string& formatHint, const std::string& displayName,
                const rig::ImportOptions& options, size_t perVertexLimit = kPerVertexLimit);

/// Writes the report into a stream that keeps nothing and checks the text as it goes (jsonProblem's rules), so that
/// reports of any size can be checked. `problem` is empty when the text is valid.
struct ReportCheck {
    size_t bytes = 0;
    std::string problem;
};
ReportCheck checkReport(const rig::Rig& rig, const rig::RigRuntime& runtime, const rig::Pose& pose,
                        const rig::DeformSettings& settings, const rig::Evaluation& eval, const rig::Audit& audit,
                        const rig::ReportOptions& options);

/// The checks of run(), exposed for the tests.
/// Empty when `message` is one line "<displayName>: <reason>" with a non-empty reason.
std::string errorMessageProblem(const std::string& message, const std::string& displayName);
/// Empty when the rig satisfies the structural invariants the importer promises (indices, CSR, sizes, parents, ...).
std::string rigInvariantProblem(const rig::Rig& rig);
/// Empty when every evaluated method's frames are unit or zero (never NaN), its errors in [0, 180] or undefined, and
/// its statistics consistent and finite.
std::string evaluationProblem(const rig::Rig& rig, const rig::Evaluation& eval);
/// Empty when `json` is well-formed JSON text (RFC 8259 grammar) whose numbers are all finite: no NaN, inf, Infinity.
std::string jsonProblem(std::string_view json);

} // namespace hostile
