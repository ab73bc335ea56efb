// Loading rigs through Assimp. Every failure is a one-line message naming the file and the reason; no exception
// escapes and no input crashes the process.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "rig/io/asset_root.h"
#include "rig/model/model.h"
#include "rig/model/result.h"

namespace rig {

struct ImportOptions {
    /// Refuse files whose decoded rig would need more than this many bytes (vertices, influences, morph deltas). While
    /// reading, the import worker as a whole (the third-party parser included) may allocate at most twice this plus
    /// 256 MiB (importAllocationCap in import_worker.h): its address space is limited to that.
    size_t memoryBudgetBytes = size_t(4) << 30;
    /// Import in the worker process `rigscope-import` (import_worker.h), so that a crash, an abort, a hang or a
    /// runaway allocation inside Assimp becomes an error message. Off: import in this process (the fuzzer, which must
    /// see the crashes, and the worker itself).
    bool isolate = true;
    /// With isolate: a worker still importing after this many seconds is killed and the import fails.
    double timeoutSeconds = 600.0;
    /// With isolate: when set and it turns true, the worker is killed and the import fails with "<name>: cancelled".
    /// Must outlive the call.
    const std::atomic<bool>* cancel = nullptr;
    /// With isolate: the worker executable; empty = findImportWorker's search (import_worker.h).
    std::string workerPath;
    /// The folder external references may be read from (asset_root.h). Empty: the model file's folder; for
    /// importMemory, none (every external reference is refused). The model file itself must lie in it.
    std::string assetRoot;
    /// When set, receives the reference an import was refused for (the app asks the user whether to widen the root).
    /// Must outlive the call.
    RefusedReference* refused = nullptr;
    /// Set by the worker: this process runs under an address-space limit, so running out of memory means the file
    /// needs more than the allocation cap, and the message says so.
    bool addressSpaceLimited = false;
};

/// Reads a model file (glTF/GLB, FBX, Collada, X, and whatever else Assimp reads).
/// Triangulates; never joins vertices, limits or renormalises weights. Bones map to nodes by name.
/// Missing normals (and tangents, when UV0 exists) are generated from the rest triangles and flagged on the mesh,
/// with a note. Problems that do not prevent loading are added to Rig::notes.
/// Every file is opened through the asset root: a reference outside it fails the import with
/// "<path>: refers to '<reference>' (<resolved>), outside the asset root <root> ..." (and fills options.refused).
/// On failure the message reads "<path>: <reason>".
Result<Rig> importFile(const std::string& path, const ImportOptions& options = {});

/// Same, from memory. `formatHint` is a file extension without the dot ("gltf", "glb", "fbx", ...); `displayName`
/// is used in messages.
Result<Rig> importMemory(const void* data, size_t size, const std::string& formatHint, const std::string& displayName,
                         const ImportOptions& options = {});

/// Whether a file name ends in an extension of the rig formats `rigscope check` looks for in folders (case-insensitive;
/// rigFileExtensions lists them). Any file Assimp reads can still be named directly.
bool isRigFileName(const std::string& path);
std::string rigFileExtensions(); ///< "gltf, glb, fbx, ..."

/// Assimp's version as "major.minor.patch".
std::string assimpVersion();

} // namespace rig
