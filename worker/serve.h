// The import worker's side of worker_protocol.h: the body of `rigscope-import` (main.cpp), shared with the test
// worker that injects faults (tests/io/fault_worker.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "rig/io/asset_root.h"
#include "rig/model/model.h"
#include "rig/model/result.h"

namespace rig::worker {

/// One request, as the command line gave it.
struct Request {
    std::string displayName;
    std::string path;          ///< --file
    std::string formatHint;    ///< --memory
    bool fromMemory = false;
    const void* data = nullptr; ///< --memory: the bytes of fd 4, mapped read-only
    size_t size = 0;
    size_t memoryBudget = 0;
    double timeoutSeconds = 0.0;
    std::string assetRoot;      ///< --asset-root (empty: the file's folder; none for --memory)
    RefusedReference* refused = nullptr; ///< set by serve(): where importRequest reports a refusal
};

/// The real import of a request (rig::importFile / importMemory in this process).
Result<Rig> importRequest(const Request& request);

/// Parses the command line, puts this process under its limits (address space: what is mapped now plus
/// importAllocationCap(budget), except in sanitizer builds, where the client sets the sanitizer's limits; processor
/// time: the timeout; no core files, no file writes), runs `import` and writes the reply to fd 3.
/// Returns the exit status for main().
int serve(int argc, char** argv, const std::function<Result<Rig>(const Request&)>& import = importRequest);

} // namespace rig::worker
