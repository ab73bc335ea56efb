// libFuzzer target: bytes → rig::importMemory → buildRuntime → evaluate (every method, rest and bent pose) → auditRig
// → writeReportJson, through the same code as tests/io/test_hostile.cpp (hostile_pipeline.h).
//
// Input layout: byte 0 picks the format hint (hostile::kHints[byte % 6]: gltf, glb, fbx, dae, x, obj), the rest is
// the file. Relative references inside an input (a glTF buffer "x.bin") resolve against the working folder: fuzz/run.sh
// starts the fuzzer in an empty one. Any broken contract (an unclean error message, a broken rig invariant, NaN text in the report, a runtime
// weight out of range, ...) aborts, so libFuzzer saves the input as a crash. How to run it: README "Fuzzing".
#include <cstdio>
#include <cstdlib>

#include "hostile_pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    // In-process: the fuzzer must see crashes (the product imports in its worker process; see rig/io/worker/import_worker.h).
    const hostile::Outcome outcome = hostile::run(data, size, "fuzz-input", hostile::kPerVertexLimit, false);
    if (!outcome.problem.empty()) {
        std::fprintf(stderr, "\n*** rigscope contract broken: %s\n", outcome.problem.c_str());
        std::fflush(stderr);
        std::abort();
    }
    return 0;
}
