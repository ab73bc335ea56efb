// Internals of the Assimp import (rig/io/import.h): the helpers and the Converter that turns one aiScene into a Rig,
// split by job over converter*.cpp. Nothing outside rig/io/assimp/ includes this.
//
// What this stage guarantees, whatever the input:
// - no exception escapes, no recursion over the file's hierarchy, every failure is one line "<path>: <reason>";
// - nothing is repaired: weights stay raw (only Assimp's weight == 0 dummy entries are dropped), matrices stay as
//   authored, problems become Rig::notes;
// - the post-processing is limited to Triangulate + ValidateDataStructure: no vertex joining (it breaks morphs), no
//   weight limiting (it renormalises), no normal/tangent generation by Assimp (we generate and flag them ourselves).
//
// Assimp 5.2.4 behaviour this code relies on (measured on the assets in shared/assets):
// - bones carry names, not node pointers (mNode/mArmature need PopulateArmatureData): joints map to nodes by name;
// - a glTF joint with no weights still becomes a bone with one dummy (vertex 0, weight 0) entry;
// - morph targets (mAnimMeshes) hold ABSOLUTE positions/normals/tangents; mWeight holds glTF mesh.weights;
// - morph animation channels are named after the node that holds the mesh (all of its primitives/meshes);
// - key times are ticks: glTF uses 1000 ticks per second, a 0 rate means Assimp's default of 25.
// - aiMeshes of a glTF file come in the order its lazy loader first reaches each mesh (scene nodes depth-first, a
//   node's children before its own mesh, then skin joints, then animation targets; unreached meshes are dropped), one
//   per primitive, vertices in accessor order; bones are the skin's joints in skin order, named after their nodes;
// - its glTF reader keeps only weights > 0 whose joint index is < the skin's joint count, and turns normalised
//   UNSIGNED_BYTE / UNSIGNED_SHORT weights into garbage (their bits reinterpreted as floats).
// So for .gltf / .glb the influences are read from the file itself (gltf_skin.h) and replace Assimp's for every mesh
// whose primitive is found and verified: same vertex count and positions, bones = the skin's joints by name, and
// Assimp's influences = the raw ones minus exactly what Assimp drops. Otherwise Assimp's stay, with a note.
// Limits we cannot see past: Assimp's .x reader drops weights <= 0 and NaN before we get the scene; and a corrupt
// file can make an Assimp reader allocate gigabytes before it fails (a process memory limit is the only guard).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <assimp/scene.h>

#include "rig/io/gltf_skin.h"
#include "rig/io/import.h"
#include "rig/model/model.h"
#include "rig/model/result.h"
#include "rig/model/structure.h"

namespace rig::assimp_import {

constexpr size_t kMaxNodes = size_t(1) << 24;   // far beyond any real rig; guards hostile counts
constexpr size_t kMaxDepth = 100000;            // hierarchy depth limit (we iterate, but consumers may not)
constexpr size_t kMaxMessage = 400;             // characters of a message taken from Assimp
constexpr size_t kMaxNotes = 1000;              // a hostile file must not produce millions of notes
constexpr size_t kMaxEncodedImageBytes = size_t(256) << 20; // one texture file's bytes

using Severity = ImportNote::Severity;

/// Makes a message safe for one line: each run of control characters (newlines, tabs) becomes one space, the ends
/// are trimmed, long messages are cut. Ordinary spaces are kept: Assimp quotes file content in its messages.
std::string oneLine(std::string_view text);
/// An aiString as std::string (its length is trusted only up to its buffer).
std::string str(const aiString& s);
/// aiMatrix4x4 is row-major (a1..a4 is the first row, a4 the x translation); glm takes columns.
glm::mat4 toGlm(const aiMatrix4x4& m);
inline glm::vec3 toGlm(const aiVector3D& v) { return glm::vec3(v.x, v.y, v.z); }
bool isFinite(const glm::mat4& m);
inline bool isFinite(const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
/// ASCII letters in lower case (file extensions, format hints).
std::string lowerCase(std::string s);
/// "gltf" or "glb", in any case.
bool isGltfFormat(const std::string& extension);
/// Formats whose Assimp 5.2 reader stores V as 1 - V (glTF and X: their UV origin is the top left).
bool assimpFlipsV(const std::string& extension);

/// Bytes as a saturating counter: a file's declared counts may be absurd, their products must not wrap.
struct ByteCount {
    uint64_t value = 0;
    void add(uint64_t bytes) { value = (value > UINT64_MAX - bytes) ? UINT64_MAX : value + bytes; }
    void add(uint64_t count, uint64_t size)
    {
        uint64_t product = 0;
        if (__builtin_mul_overflow(count, size, &product))
            product = UINT64_MAX;
        add(product);
    }
};

/// Where the raw glTF skinning attributes can be read from (the same bytes Assimp read).
struct RawGltfSource {
    enum class Kind : uint8_t { None, File, Memory };
    Kind kind = Kind::None;
    std::string path;           ///< Kind::File
    const void* data = nullptr; ///< Kind::Memory
    size_t size = 0;
    const AssetRoot* root = nullptr;    ///< where its external buffers may be read from
    RefusedReference* refused = nullptr; ///< receives the first reference refused
};

/// The conversion of one aiScene: run() once.
class Converter {
public:
    /// `assimpFlippedV`: the format's reader turned V into 1 - V (Assimp does for glTF and X, whose UV origin is the
    /// top left): the conversion undoes it, so that UVs, and with them the handedness of rebuilt tangents, are in the
    /// file's own convention.
    Converter(const aiScene& scene, std::string displayName, const ImportOptions& options, const RawGltfSource& raw,
              bool assimpFlippedV);

    /// Where external images may be read from (the asset root, and the model's folder that relative paths start
    /// from); without it (from memory) external images are not read, with a note.
    void setAssetAccess(const AssetRoot* root, std::string modelFolder)
    {
        m_root = root;
        m_modelFolder = std::move(modelFolder);
    }

    Result<Rig> run();

private:
    void note(Severity severity, std::string message);

    const aiMesh* meshAt(unsigned i) const;

    std::string meshLabel(unsigned aiIndex) const;

    // ---- memory budget -----------------------------------------------------------------------------------------
    /// Estimates what the rig will need from the declared counts, before anything is copied. Assimp has already
    /// allocated what the counts describe; this only refuses to multiply it further.
    Result<void> checkBudget();

    Result<void> checkEstimate() const;

    // ---- skeleton (converter_skeleton.cpp)
    /// Every aiNode, depth-first, parents before children, without recursion.
    Result<void> buildSkeleton();

    int findNode(const std::string& name) const;

    void noteIfAmbiguous(const std::string& name, const std::string& what);

    // ---- meshes (converter_meshes.cpp)
    Result<void> buildMeshes();

    Result<void> buildMesh(unsigned aiIndex, const aiMesh& src);

    /// Skin (joints by bone name, inverse binds) and raw influences in CSR.
    Result<void> buildSkin(unsigned aiIndex, const aiMesh& src, const std::string& who, Mesh& mesh);

    // ---- raw glTF skinning (gltf_skin.h) (converter_gltf_skin.cpp)
    /// Reads the file's own JOINTS_n / WEIGHTS_n when it is glTF and Assimp gave at least one mesh bones.
    void readRawSkins();

    /// Replaces Assimp's influences of aiMesh `aiIndex` (already in `mesh`, joint = bone index) by the raw ones of its
    /// glTF primitive, when one is found and verified; otherwise keeps them and says why.
    Result<void> applyRawSkin(unsigned aiIndex, const aiMesh& src, const std::string& who, Mesh& mesh);

    /// True when primitive `p` is the source of aiMesh `src`: same vertex count, same positions (bit for bit, when the
    /// file's are floats), Assimp's bones are the joints of one of the mesh's skins (by name; `remap` maps glTF joint
    /// index to bone index), and Assimp's influences (`assimp`, joint = bone) are exactly the raw ones Assimp keeps
    /// (weight > 0, joint < joint count), vertex by vertex. Assimp's integer weights are garbage: not compared.
    bool verifyRawSkin(const GltfSkinData& raw, const GltfPrimitiveSkin& p, const aiMesh& src, const Mesh& assimp,
                       std::vector<uint32_t>& remap, std::string& why) const;

    /// Returns the index of an identical earlier skin (same joints, bit-identical matrices), or adds this one.
    int shareSkin(Skin skin);

    // ---- materials (converter_materials.cpp)
    /// The mesh's base colour factor and base colour texture (Mesh::baseColor, baseColorImage).
    void readMaterial(unsigned materialIndex, Mesh& mesh);

    /// The Rig::images index of the material's base colour texture (its encoded bytes, or an embedded texture's
    /// texels), read once per distinct source; -1 (with a note saying why) when there is none to show.
    int materialImage(const aiMaterial& mat, unsigned materialIndex);

    /// Morph targets as deltas (Assimp stores absolute attributes).
    void buildMorphTargets(unsigned aiIndex, const aiMesh& src, const std::string& who, Mesh& mesh);

    // ---- animations (converter_clips.cpp)
    Result<void> buildClips();

    /// Converts one key array; false (with a note) when its times are not sorted or not finite.
    template <typename Key, typename T, typename Convert>
    bool convertTrack(const Key* keys, unsigned count, double ticksPerSecond, Track<T>& track, const std::string& what,
                      float& duration, Convert convert);

    void buildJointChannel(const aiNodeAnim& ch, const std::string& who, double ticksPerSecond, Clip& clip, float& duration);

    /// The aiMesh indices a morph channel drives. Assimp 5.2 names the channel after the node holding the mesh(es);
    /// other exporters use the mesh name, and Assimp suffixes some names ("name*0"): try those in turn.
    std::vector<unsigned> morphChannelMeshes(const std::string& name);

    Result<void> buildMorphChannels(const aiMeshMorphAnim& ch, const std::string& who, double ticksPerSecond, Clip& clip,
                                    float& duration);

    // ---- state --------------------------------------------------------------------------------------------------
    Error failWith(const std::string& reason) const { return fail(m_path + ": " + reason); }
    const aiScene& m_scene;
    std::string m_path;
    const ImportOptions& m_options;
    const RawGltfSource& m_rawSource;
    bool m_assimpFlippedV = false;
    std::optional<GltfSkinData> m_rawSkins; ///< the file's own skinning data, when read
    std::unordered_map<std::string, std::vector<const GltfPrimitiveSkin*>> m_rawByName; ///< by Assimp's aiMesh name
    bool m_rawUsed = false;                 ///< some mesh's influences came from m_rawSkins
    bool m_rawExternal = false;             ///< some mesh needed an external buffer that memory import cannot reach
    Rig m_rig;
    std::vector<const aiNode*> m_aiNodes;          ///< per skeleton node: its aiNode
    std::vector<int> m_meshNode;                    ///< per aiMesh: first node referencing it, -1 if none
    std::vector<int> m_rigMeshOf;                   ///< per aiMesh: index in Rig::meshes, -1 if skipped
    std::vector<std::vector<int>> m_targetOf;       ///< per aiMesh, per anim mesh: index in morphTargets, -1 if skipped
    std::unordered_map<std::string, std::vector<int>> m_nodesByName;       ///< depth-first order
    std::unordered_map<std::string, std::vector<unsigned>> m_meshesByName; ///< aiMesh indices
    std::unordered_set<std::string> m_reportedAmbiguous;
    ByteCount m_bytes;                              ///< the memory estimate
    size_t m_suppressedNotes = 0;
    std::unordered_map<uint64_t, std::vector<int>> m_skinsByHash;
    const AssetRoot* m_root = nullptr;              ///< external images (setAssetAccess)
    std::string m_modelFolder;
    std::unordered_map<unsigned, int> m_materialImage; ///< material index -> Rig::images index or -1
    std::unordered_map<std::string, int> m_imageByKey; ///< "*N" (embedded) or the file's reference -> image
};

} // namespace rig::assimp_import
