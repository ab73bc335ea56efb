// Runs an import in a child process, so that a crash, abort or hang inside the third-party importer (Assimp 5.2.4
// crashes on some valid glTF files and aborts on some damaged Collada ones) becomes an error message instead of taking
// the caller down. Linux/POSIX: fork + pipe; the rig comes back serialized (rig_serialize.h).
#pragma once

#include <functional>
#include <string>

#include "model.h"
#include "result.h"

namespace rig {

/// Calls `importInProcess` in a forked child and returns its result. A child killed by a signal gives
/// "<displayName>: the importer crashed on this file (<signal>)"; one still running after `timeoutSeconds` is killed
/// and gives "<displayName>: the importer did not finish within N s". If no child can be made, runs in-process.
Result<Rig> runIsolated(const std::string& displayName, double timeoutSeconds,
                        const std::function<Result<Rig>()>& importInProcess);

} // namespace rig
