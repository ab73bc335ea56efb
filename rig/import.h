// Loading rigs through Assimp. Every failure is a one-line message naming the file and the reason; no exception
// escapes and no input crashes the process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "model.h"
#include "result.h"

namespace rig {

struct ImportOptions {
    /// Refuse files whose decoded rig would need more than this many bytes (vertices, influences, morph deltas). While
    /// reading, the import as a whole (the third-party parser included) may allocate at most twice this plus 256 MiB.
    size_t memoryBudgetBytes = size_t(4) << 30;
    /// Import in a child process (import_isolated.h), so that a crash or abort inside Assimp becomes an error message.
    /// The fuzzer turns this off to see the crashes.
    bool isolate = true;
    /// With isolate: a child still importing after this many seconds is killed and the import fails.
    double timeoutSeconds = 600.0;
};

/// Reads a model file (glTF/GLB, FBX, Collada, X, and whatever else Assimp reads).
/// Triangulates; never joins vertices, limits or renormalises weights. Bones map to nodes by name.
/// Missing normals (and tangents, when UV0 exists) are generated from the rest triangles and flagged on the mesh,
/// with a note. Problems that do not prevent loading are added to Rig::notes.
/// On failure the message reads "<path>: <reason>".
Result<Rig> importFile(const std::string& path, const ImportOptions& options = {});

/// Same, from memory. `formatHint` is a file extension without the dot ("gltf", "glb", "fbx", ...); `displayName`
/// is used in messages.
Result<Rig> importMemory(const void* data, size_t size, const std::string& formatHint, const std::string& displayName,
                         const ImportOptions& options = {});

/// Assimp's version as "major.minor.patch".
std::string assimpVersion();

} // namespace rig
