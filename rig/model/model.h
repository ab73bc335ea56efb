// The editable rig model: what a file (or a built-in sample) holds, exactly as authored.
//
// Nothing here is "fixed up": weights are raw (any count per vertex, not renormalised, possibly negative or NaN),
// bind matrices are whatever the file says. Derived runtime data (normalised top-K influences, palettes, weight
// gradients) is built from this by the builders in influences.h / palette.h and never written back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

namespace rig {

/// Local translation / rotation / scale of a node.
struct Transform {
    glm::vec3 translation{0.0f};
    glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f}; // w, x, y, z
    glm::vec3 scale{1.0f};

    glm::mat4 matrix() const;
};

/// Relative tolerance of decomposeTransform's check that TRS reproduces the matrix.
inline constexpr float kTrsShearTolerance = 1e-5f;

/// Decomposes an affine matrix into TRS. The rotation is always a finite unit quaternion (Gram-Schmidt of the
/// scaled-out columns with fallbacks for zero scales); a negative determinant goes into scale.x. `shear` is set when
/// the TRS does not reproduce the matrix within kTrsShearTolerance (relative), when the bottom row is not (0,0,0,1), or
/// when the matrix is not finite.
Transform decomposeTransform(const glm::mat4& m, bool& shear);

/// A node of the scene hierarchy. Joints are nodes that a skin references.
struct Node {
    std::string name;
    int parent = -1;          ///< index into Skeleton::nodes, always < own index, -1 for a root
    Transform rest;           ///< rest local TRS (decomposed from restMatrix)
    glm::mat4 restMatrix{1.0f}; ///< rest local matrix as authored (used when the node is not posed)
    bool restHasShear = false; ///< restMatrix is not exactly representable as TRS
};

/// Every node of the file, parents before children.
struct Skeleton {
    std::vector<Node> nodes;

    /// Returns the node index with this name, or -1.
    int find(const std::string& name) const;
};

/// A skin: which nodes drive a mesh, with their inverse bind matrices (glTF's skin, Assimp's bone list).
struct Skin {
    std::string name;
    std::vector<int> joints;              ///< node indices
    std::vector<glm::mat4> inverseBind;   ///< one per joint
};

/// One authored influence of a vertex: a skin-local joint index and its raw weight.
struct Influence {
    uint32_t joint = 0;
    float weight = 0.0f;
};

/// Morph target deltas in bind space. normalDeltas / tangentDeltas are empty when the file has none.
struct MorphTarget {
    std::string name;
    std::vector<glm::vec3> positionDeltas;
    std::vector<glm::vec3> normalDeltas;
    std::vector<glm::vec3> tangentDeltas;
};

/// A triangle mesh with its skinning data, in bind space.
struct Mesh {
    std::string name;
    int node = -1; ///< node the mesh hangs from (used to place an unskinned mesh; ignored for skinned ones)
    int skin = -1; ///< index into Rig::skins, or -1 for an unskinned (rigid) mesh

    std::vector<glm::vec3> positions;
    std::vector<glm::vec3> normals;
    std::vector<glm::vec4> tangents; ///< xyz + handedness w (±1); empty when there are no UVs to build them from
    std::vector<glm::vec2> uvs;      ///< UV0, empty if absent
    std::vector<uint32_t> indices;   ///< triangle list

    /// Raw influences, CSR: those of vertex v are influences[influenceOffsets[v] .. influenceOffsets[v+1]).
    /// influenceOffsets has vertexCount()+1 entries when the mesh is skinned, and is empty otherwise.
    std::vector<uint32_t> influenceOffsets;
    std::vector<Influence> influences;
    /// Vertices whose file pairs a joint index other than 0 with a weight of exactly 0 (glTF validator's
    /// ACCESSOR_JOINTS_USED_ZERO_WEIGHT), ascending. Known for glTF files only: Assimp drops zero-weight entries of
    /// other formats before we see them.
    std::vector<uint32_t> zeroWeightJointVertices;

    std::vector<MorphTarget> morphTargets;
    std::vector<float> defaultMorphWeights; ///< one per target (glTF mesh.weights), zeros when absent

    /// The material's base colour factor (glTF baseColorFactor, else the diffuse colour), linear RGBA; w < 0: the
    /// file gives none. A material with a base colour texture but no factor gets glTF's default factor (1, 1, 1, 1).
    glm::vec4 baseColor{1.0f, 1.0f, 1.0f, -1.0f};
    /// The material's base colour texture, sampled with UV0: an index into Rig::images, or -1 for none.
    int baseColorImage = -1;

    /// UV (0, 0) is the image's top-left corner, its first row (glTF, X); otherwise its bottom-left (FBX, Collada, OBJ).
    bool uvOriginTopLeft = false;
    bool normalsGenerated = false;  ///< the file had no normals: they were built from the rest triangles
    bool tangentsGenerated = false; ///< the file had no tangents: they were built from the rest triangles and UV0

    size_t vertexCount() const { return positions.size(); }
    size_t triangleCount() const { return indices.size() / 3; }
    bool hasTangents() const { return !tangents.empty(); }
    bool isSkinned() const { return skin >= 0; }
};

enum class Interpolation : uint8_t { Step, Linear, CubicSpline };

/// A keyed channel. For CubicSpline, values holds (in-tangent, value, out-tangent) per key, as glTF stores it.
template <typename T>
struct Track {
    Interpolation interpolation = Interpolation::Linear;
    std::vector<float> times;
    std::vector<T> values;
    bool empty() const { return times.empty(); }
};

struct JointChannel {
    int node = -1;
    Track<glm::vec3> translation;
    Track<glm::quat> rotation;
    Track<glm::vec3> scale;
};

/// Morph weight animation of one mesh: each key holds weightsPerKey values (one per target).
struct MorphChannel {
    int mesh = -1;
    Interpolation interpolation = Interpolation::Linear;
    std::vector<float> times;
    std::vector<float> weights; ///< times.size() * targets (x3 for CubicSpline)
};

struct Clip {
    std::string name;
    float duration = 0.0f; ///< seconds
    std::vector<JointChannel> joints;
    std::vector<MorphChannel> morphs;
};

/// Something wrong with the file that the import noticed and kept (never silently repaired).
struct ImportNote {
    enum class Severity : uint8_t { Info, Warning, Error };
    Severity severity = Severity::Info;
    std::string message;
};

/// An image a material uses (its base colour texture), one per distinct source in the file.
/// The import keeps the file's encoded bytes (PNG, JPEG, ...) in `encoded`; the import worker decodes them in its
/// sandbox (worker/decode_image.h) into `rgba` and clears `encoded`, so that what reaches the application is pixels
/// whose size it can check, never bytes for a decoder. An image that could not be read or decoded keeps its name,
/// no pixels, and a note says why (the lit view then shows the base colour factor alone).
struct Image {
    std::string name;          ///< where it comes from: the file's path as the material gives it, or "embedded image N"
    std::string formatHint;    ///< "png", "jpg", ... (the embedded image's hint or the file's extension)
    std::vector<uint8_t> encoded; ///< the file's bytes, until decoded
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> rgba; ///< width * height * 4 bytes, 8-bit sRGB RGBA (straight alpha), top row first
    bool decoded() const { return width > 0 && height > 0 && rgba.size() == size_t(width) * height * 4; }
};

struct Rig {
    std::string source; ///< file path or "sample:NAME"
    Skeleton skeleton;
    std::vector<Skin> skins;
    std::vector<Mesh> meshes;
    std::vector<Clip> clips;
    std::vector<Image> images; ///< the materials' base colour textures (Mesh::baseColorImage)
    std::vector<ImportNote> notes;

    size_t vertexCount() const;
    size_t triangleCount() const;
    /// Number of distinct nodes referenced as joints by any skin.
    size_t jointCount() const;
    size_t morphTargetCount() const;
    /// Index of the clip named `name`, or parsed as a decimal index; -1 if none.
    int findClip(const std::string& nameOrIndex) const;
};

} // namespace rig
