// The client side of the import worker (worker_protocol.h): starts `rigscope-import` for one file, waits for its reply
// within a time limit (or until cancelled) and turns every way it can fail into one line naming the file.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

#include "rig/model/model.h"
#include "rig/model/result.h"

namespace rig {

struct ImportOptions;

/// What to import: a file by path, or bytes in memory with a format hint ("glb", "dae", ...).
struct WorkerJob {
    std::string displayName;   ///< names the file in every message
    std::string path;          ///< a file (when data is null)
    const void* data = nullptr; ///< or bytes in memory
    size_t size = 0;
    std::string formatHint;    ///< with data
};

/// Runs `job` in a new worker process under `options` (memory budget, timeout, cancel flag, worker path) and returns
/// the rig it read, or one line "<displayName>: <reason>":
/// - the worker crashed (a signal, or a sanitizer report in sanitizer builds): "the importer crashed on this file (…)";
/// - it ran past options.timeoutSeconds: "the importer did not finish within N s" (the worker is killed);
/// - it needed more memory than its limit: "reading it allocates more than N MiB (…); refused";
/// - *options.cancel turned true: "cancelled" (the worker is killed within about 50 ms);
/// - no worker could be started, or its reply is malformed: says so.
/// The rig that comes back is checked (rig::checkStructure) before it is returned. Thread-safe.
Result<Rig> importInWorker(const WorkerJob& job, const ImportOptions& options);

/// The worker executable importInWorker would start with these options: options.workerPath when set, else
/// $RIGSCOPE_IMPORT_WORKER when set, else `rigscope-import` in the folder of the running executable. Empty when none
/// of these is an executable file.
std::string findImportWorker(const ImportOptions& options);

/// The most one import may allocate in the worker (its address-space limit beyond what it has mapped at start):
/// twice the memory budget plus 256 MiB, as reading a file takes more than the rig it produces.
size_t importAllocationCap(size_t memoryBudgetBytes);

/// The reason given when an import needs more than importAllocationCap(memoryBudgetBytes):
/// "reading it allocates more than N MiB (twice the memory budget plus headroom); refused".
std::string allocationCapReason(size_t memoryBudgetBytes);

} // namespace rig
