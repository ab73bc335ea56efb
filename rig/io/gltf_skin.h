// Raw glTF 2.0 skinning attributes, read straight from the file (Qt-free, no exceptions past its API).
//
// Why: Assimp 5.2.4's glTF reader keeps only weights > 0 whose joint index is below the skin's joint count, and turns
// normalised integer weights into garbage; the audit must see what the file holds. This reader decodes, for every
// mesh primitive, the JOINTS_n / WEIGHTS_n pairs (every n) as authored: NaN, negative and out-of-range pairs included.
// Only weights equal to 0.0 (+0 or -0: no effect anywhere) are skipped, as the importer skips Assimp's padding
// entries, so clean data gives Assimp's counts.
//
// Input: a .gltf JSON document (buffers as base64 data: URIs, or external files resolved against baseDir) or a .glb
// container (chosen by the "glTF" magic, whatever the file is called). Accessors: byteOffset, bufferView byteStride,
// count and sparse substitution are honoured; joints UNSIGNED_BYTE / UNSIGNED_SHORT (UNSIGNED_INT tolerated), weights
// FLOAT or UNSIGNED_BYTE / UNSIGNED_SHORT (divided by 255 / 65535 when `normalized`, else taken as the integers they
// are). Every offset, length, stride and count is checked before a byte is read; sizes are computed without
// wrap-around; allocations are bounded by maxBytes.
//
// Errors: a file that cannot be read as a whole (not JSON, bad GLB container, no meshes array...) fails the call; a
// primitive whose own accessors are broken gets `error` set and the others are still decoded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

#include "rig/io/asset_root.h"
#include "rig/model/model.h"
#include "rig/model/result.h"

namespace rig {

struct GltfSkinOptions {
    /// Folder that relative buffer URIs are resolved against. Empty: external buffers cannot be resolved (reading
    /// from memory); primitives that need one get an error and `needsExternalBuffer`.
    std::string baseDir;
    /// Where external buffers may be read from (asset_root.h); null: baseDir itself. A buffer URI that is absolute,
    /// has a scheme other than data:, or resolves outside the root is refused: the primitive gets an error and, when
    /// `refused` is set, the first refusal is stored there.
    const AssetRoot* root = nullptr;
    RefusedReference* refused = nullptr;
    /// Most bytes the reader may hold: the input, loaded buffers, decoded positions and influences together.
    size_t maxBytes = size_t(1) << 31;
};

/// The raw skinning data of one mesh primitive, vertices in accessor order.
struct GltfPrimitiveSkin {
    int mesh = -1;      ///< glTF meshes[] index
    int primitive = -1; ///< index in that mesh's primitives[]
    /// The name Assimp 5.2 gives the aiMesh of this primitive: the mesh's name, or "meshes[i]" when it has none,
    /// with "-<primitive>" appended when the mesh has more than one primitive.
    std::string assimpName;
    uint32_t vertexCount = 0;        ///< POSITION count
    std::vector<glm::vec3> positions; ///< POSITION when it is FLOAT VEC3 (for matching), else empty
    int skinSets = 0;                 ///< JOINTS_n / WEIGHTS_n pairs read
    bool floatWeights = true;         ///< every WEIGHTS_n is FLOAT (Assimp 5.2.4 garbles the integer kinds)
    /// Raw influences, CSR as Mesh: (glTF skin-local joint index, weight), in authored order (set 0 components 0..3,
    /// then set 1, ...), weights == 0.0 skipped. Offsets have vertexCount + 1 entries when skinSets > 0.
    std::vector<uint32_t> influenceOffsets;
    std::vector<Influence> influences;
    /// Vertices with a component whose weight is 0 and whose joint index is not 0 (ascending).
    std::vector<uint32_t> zeroWeightJointVertices;
    std::string error;                ///< non-empty: this primitive could not be decoded (the fields above are empty)
    bool needsExternalBuffer = false; ///< the error is an external buffer that baseDir could not resolve
};

struct GltfSkinData {
    /// Per glTF skin: the name Assimp gives each joint's bone (node name, or "nodes[i]" when it has none).
    std::vector<std::vector<std::string>> skinJointNames;
    /// Per glTF skin: false when a joints entry is not a valid node index (no name mapping is possible).
    std::vector<bool> skinValid;
    /// Per glTF mesh: the distinct skins of the nodes that instance it, in node order.
    std::vector<std::vector<int>> meshSkins;
    /// Per glTF mesh, per primitive.
    std::vector<std::vector<GltfPrimitiveSkin>> meshes;
    /// (mesh, primitive) in the order Assimp 5.2.4 creates its aiMeshes: meshes in the order its lazy loader first
    /// reaches them (scene nodes depth-first, a node's children before its own mesh; then skin joints; then animation
    /// targets), each mesh's primitives in order. Meshes nothing reaches are absent, as in Assimp.
    std::vector<std::pair<int, int>> assimpOrder;
    /// (mesh, primitive) in file order (meshes[0].primitives[0], ...).
    std::vector<std::pair<int, int>> fileOrder;

    const GltfPrimitiveSkin* primitive(std::pair<int, int> at) const;
};

/// Reads the skinning data of a .gltf or .glb held in memory.
Result<GltfSkinData> readGltfSkins(const void* data, size_t size, const GltfSkinOptions& options = {});

/// Reads a .gltf or .glb file (through options.root when set, else its own folder as the root); relative buffer URIs
/// resolve next to it (options.baseDir is ignored).
Result<GltfSkinData> readGltfSkinsFile(const std::string& path, const GltfSkinOptions& options = {});

} // namespace rig
