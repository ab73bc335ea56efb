// Loading rigs through Assimp 5.2 (see import.h for the contract).
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
#include "rig/io/import.h"


#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <new>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/version.h>

#include "rig/io/gltf_skin.h"
#include "rig/io/import_worker.h"
#include "rig/model/math.h"
#include "rig/analysis/reference.h"

namespace rig {

namespace {

// Only these two steps. Never add JoinIdenticalVertices, LimitBoneWeights, Gen(Smooth)Normals, CalcTangentSpace,
// or anything else that merges vertices or touches weights: they hide the problems this tool exists to show.
constexpr unsigned kPostProcess = aiProcess_Triangulate | aiProcess_ValidateDataStructure;

constexpr size_t kMaxNodes = size_t(1) << 24;   // far beyond any real rig; guards hostile counts
constexpr size_t kMaxDepth = 100000;            // hierarchy depth limit (we iterate, but consumers may not)
constexpr size_t kMaxJointsPerSkin = 65534;     // 16-bit joint indices with one value to spare
constexpr float kShearTolerance = 1e-5f;        // relative, TRS recomposition vs. the authored matrix
constexpr size_t kMaxMessage = 400;             // characters of a message taken from Assimp
constexpr size_t kMaxNotes = 1000;              // a hostile file must not produce millions of notes

using Severity = ImportNote::Severity;

// ---------------------------------------------------------------------------------------------------------------
// Small helpers

/// Makes a message safe for one line: each run of control characters (newlines, tabs) becomes one space, the ends
/// are trimmed, long messages are cut. Ordinary spaces are kept: Assimp quotes file content in its messages.
std::string oneLine(std::string_view text)
{
    std::string out;
    out.reserve(std::min(text.size(), kMaxMessage + 3));
    bool pendingSpace = false;
    for (char ch : text) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7f) {
            pendingSpace = true;
            continue;
        }
        if (pendingSpace && !out.empty() && out.back() != ' ')
            out.push_back(' ');
        pendingSpace = false;
        if (out.empty() && c == ' ')
            continue;
        out.push_back(ch);
        if (out.size() >= kMaxMessage) {
            out += "...";
            break;
        }
    }
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

std::string str(const aiString& s)
{
    // aiString::length is trusted only up to its buffer.
    const size_t n = std::min<size_t>(s.length, MAXLEN - 1);
    return std::string(s.data, strnlen(s.data, n));
}

glm::mat4 toGlm(const aiMatrix4x4& m)
{
    // aiMatrix4x4 is row-major (a1..a4 is the first row, a4 the x translation); glm takes columns.
    return glm::mat4(m.a1, m.b1, m.c1, m.d1,  // column 0
                     m.a2, m.b2, m.c2, m.d2,  // column 1
                     m.a3, m.b3, m.c3, m.d3,  // column 2
                     m.a4, m.b4, m.c4, m.d4); // column 3 (translation)
}

bool isFinite(const glm::mat4& m)
{
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r)
            if (!std::isfinite(m[c][r]))
                return false;
    return true;
}

bool isFinite(const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

glm::vec3 toGlm(const aiVector3D& v) { return glm::vec3(v.x, v.y, v.z); }

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

/// A unit vector perpendicular to a (a unit).
glm::vec3 anyPerpendicular(const glm::vec3& a)
{
    const glm::vec3 helper = std::fabs(a.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
    return safeNormalize(glm::cross(a, helper));
}

/// Decomposes an affine matrix into TRS. The rotation is always a finite unit quaternion (Gram-Schmidt of the
/// scaled-out columns with fallbacks for zero scales); a negative determinant goes into scale.x. `shear` is set when
/// the TRS does not reproduce the matrix within kShearTolerance (relative), when the bottom row is not (0,0,0,1), or
/// when the matrix is not finite.
Transform decompose(const glm::mat4& m, bool& shear)
{
    Transform t;
    t.translation = glm::vec3(m[3]);
    const glm::vec3 c[3] = {glm::vec3(m[0]), glm::vec3(m[1]), glm::vec3(m[2])};
    glm::vec3 s(glm::length(c[0]), glm::length(c[1]), glm::length(c[2]));
    if (glm::determinant(glm::mat3(m)) < 0.0f)
        s.x = -s.x;
    glm::vec3 r[3];
    for (int i = 0; i < 3; ++i)
        r[i] = (s[i] != 0.0f && std::isfinite(s[i])) ? c[i] / s[i] : glm::vec3(0.0f);

    glm::vec3 a = safeNormalize(r[0]);
    if (!isDefined(a))
        a = safeNormalize(glm::cross(r[1], r[2]));
    if (!isDefined(a))
        a = glm::vec3(1, 0, 0);
    glm::vec3 b = safeNormalize(r[1] - a * glm::dot(a, r[1]));
    if (!isDefined(b))
        b = safeNormalize(glm::cross(r[2], a));
    if (!isDefined(b))
        b = anyPerpendicular(a);
    const glm::vec3 cc = glm::cross(a, b);
    t.rotation = glm::normalize(glm::quat_cast(glm::mat3(a, b, cc)));
    t.scale = s;

    const glm::mat4 back = t.matrix();
    float maxDiff = 0.0f;
    float magnitude = 0.0f;
    for (int col = 0; col < 3; ++col) {
        magnitude = std::max(magnitude, std::fabs(s[col]));
        for (int row = 0; row < 3; ++row)
            maxDiff = std::max(maxDiff, std::fabs(back[col][row] - m[col][row]));
    }
    const bool affine = m[0][3] == 0.0f && m[1][3] == 0.0f && m[2][3] == 0.0f && m[3][3] == 1.0f;
    shear = !affine || !isFinite(m) || !(maxDiff <= kShearTolerance * magnitude);
    return t;
}

/// Where the raw glTF skinning attributes can be read from (the same bytes Assimp read).
struct RawGltfSource {
    enum class Kind : uint8_t { None, File, Memory };
    Kind kind = Kind::None;
    std::string path;           ///< Kind::File
    const void* data = nullptr; ///< Kind::Memory
    size_t size = 0;
};

std::string lowerCase(std::string s)
{
    for (char& c : s)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return s;
}

bool isGltfFormat(const std::string& extension)
{
    const std::string e = lowerCase(extension);
    return e == "gltf" || e == "glb";
}

// ---------------------------------------------------------------------------------------------------------------
// The conversion of one aiScene

class Converter {
public:
    Converter(const aiScene& scene, std::string displayName, const ImportOptions& options, const RawGltfSource& raw)
        : m_scene(scene), m_path(std::move(displayName)), m_options(options), m_rawSource(raw)
    {
    }

    Result<Rig> run()
    {
        m_rig.source = m_path;
        if (!m_scene.mRootNode)
            return failWith("the file has no node hierarchy");
        if (auto r = checkBudget(); !r.ok())
            return Error{r.error()};
        if (auto r = buildSkeleton(); !r.ok())
            return Error{r.error()};
        readRawSkins();
        if (auto r = buildMeshes(); !r.ok())
            return Error{r.error()};
        if (m_rawUsed)
            note(Severity::Info, "raw glTF skin weights read directly (Assimp drops invalid ones)");
        if (m_rawExternal)
            note(Severity::Info, "raw glTF skin weights not read: the file's buffers are external files, which cannot be "
                                 "resolved when reading from memory; Assimp's influences are kept (it drops invalid ones)");
        if (m_rig.meshes.empty())
            return failWith("no triangle meshes");
        if (auto r = buildClips(); !r.ok())
            return Error{r.error()};
        if (m_suppressedNotes)
            m_rig.notes.push_back({Severity::Warning, std::to_string(m_suppressedNotes) + " further notes were not recorded"});
        return std::move(m_rig);
    }

private:
    Error failWith(const std::string& reason) const { return fail(m_path + ": " + reason); }
    void note(Severity severity, std::string message)
    {
        if (m_rig.notes.size() < kMaxNotes)
            m_rig.notes.push_back({severity, std::move(message)});
        else
            ++m_suppressedNotes;
    }

    const aiMesh* meshAt(unsigned i) const
    {
        return (m_scene.mMeshes && i < m_scene.mNumMeshes) ? m_scene.mMeshes[i] : nullptr;
    }

    std::string meshLabel(unsigned aiIndex) const
    {
        const aiMesh* mesh = meshAt(aiIndex);
        std::string name = mesh ? str(mesh->mName) : std::string();
        return name.empty() ? "mesh" + std::to_string(aiIndex) : name;
    }

    // ---- memory budget -----------------------------------------------------------------------------------------

    /// Estimates what the rig will need from the declared counts, before anything is copied. Assimp has already
    /// allocated what the counts describe; this only refuses to multiply it further.
    Result<void> checkBudget()
    {
        ByteCount& bytes = m_bytes;
        for (unsigned i = 0; i < m_scene.mNumMeshes; ++i) {
            const aiMesh* mesh = meshAt(i);
            if (!mesh)
                continue;
            const uint64_t v = mesh->mNumVertices;
            const bool uv = mesh->mTextureCoords[0] != nullptr;
            const bool fileTangents = mesh->mTangents != nullptr;
            uint64_t perVertex = sizeof(glm::vec3) * 2; // positions, normals (read or generated)
            if (uv)
                perVertex += sizeof(glm::vec2);
            if (uv || fileTangents)
                perVertex += sizeof(glm::vec4);
            if (mesh->mNumBones > 0)
                perVertex += sizeof(uint32_t);
            if (!mesh->mNormals || (uv && !fileTangents))
                perVertex += sizeof(uint32_t) + 3 * sizeof(glm::vec3) + sizeof(glm::vec3) + sizeof(glm::vec4); // scratch
            bytes.add(v, perVertex);
            bytes.add(mesh->mNumFaces, 3 * sizeof(uint32_t));
            if (mesh->mBones)
                for (unsigned b = 0; b < mesh->mNumBones; ++b) {
                    bytes.add(sizeof(glm::mat4) + sizeof(int));
                    if (mesh->mBones[b])
                        bytes.add(mesh->mBones[b]->mNumWeights, sizeof(Influence));
                }
            if (mesh->mAnimMeshes)
                for (unsigned k = 0; k < mesh->mNumAnimMeshes; ++k) {
                    const aiAnimMesh* am = mesh->mAnimMeshes[k];
                    if (!am || am->mNumVertices != mesh->mNumVertices)
                        continue;
                    uint64_t perTarget = sizeof(glm::vec3);
                    if (am->mNormals)
                        perTarget += sizeof(glm::vec3);
                    if (am->mTangents)
                        perTarget += sizeof(glm::vec3);
                    bytes.add(v, perTarget);
                }
        }
        if (m_scene.mAnimations)
            for (unsigned a = 0; a < m_scene.mNumAnimations; ++a) {
                const aiAnimation* anim = m_scene.mAnimations[a];
                if (!anim)
                    continue;
                if (anim->mChannels)
                    for (unsigned c = 0; c < anim->mNumChannels; ++c)
                        if (const aiNodeAnim* ch = anim->mChannels[c]) {
                            bytes.add(ch->mNumPositionKeys, sizeof(float) + sizeof(glm::vec3));
                            bytes.add(ch->mNumRotationKeys, sizeof(float) + sizeof(glm::quat));
                            bytes.add(ch->mNumScalingKeys, sizeof(float) + sizeof(glm::vec3));
                        }
                if (anim->mMorphMeshChannels)
                    for (unsigned c = 0; c < anim->mNumMorphMeshChannels; ++c)
                        if (const aiMeshMorphAnim* ch = anim->mMorphMeshChannels[c]) {
                            bytes.add(ch->mNumKeys, sizeof(float));
                            if (ch->mKeys)
                                for (unsigned k = 0; k < ch->mNumKeys; ++k)
                                    bytes.add(ch->mKeys[k].mNumValuesAndWeights, sizeof(float));
                        }
            }
        return checkEstimate();
    }

    Result<void> checkEstimate() const
    {
        if (m_bytes.value <= m_options.memoryBudgetBytes)
            return {};
        constexpr uint64_t MiB = uint64_t(1) << 20;
        const uint64_t need = m_bytes.value / MiB + (m_bytes.value % MiB ? 1 : 0);
        const uint64_t budget = uint64_t(m_options.memoryBudgetBytes) / MiB;
        return failWith("needs " + std::to_string(need) + " MiB, over the " + std::to_string(budget) + " MiB budget");
    }


    // ---- skeleton ----------------------------------------------------------------------------------------------

    /// Every aiNode, depth-first, parents before children, without recursion.
    Result<void> buildSkeleton()
    {
        struct Pending {
            const aiNode* node;
            int parent;
            size_t depth;
        };
        std::vector<Pending> stack;
        stack.push_back({m_scene.mRootNode, -1, 0});
        std::unordered_map<const aiNode*, int> seen;
        m_meshNode.assign(m_scene.mNumMeshes, -1);
        std::vector<Node>& nodes = m_rig.skeleton.nodes;
        size_t badMeshRefs = 0;

        while (!stack.empty()) {
            const Pending p = stack.back();
            stack.pop_back();
            if (!p.node) {
                note(Severity::Error, "a node of the hierarchy is null; skipped");
                continue;
            }
            if (!seen.emplace(p.node, int(nodes.size())).second) {
                note(Severity::Error, "node '" + str(p.node->mName) +
                                          "' appears twice in the hierarchy (a cycle or a shared child); the repeat is skipped");
                continue;
            }
            if (p.depth > kMaxDepth)
                return failWith("node hierarchy deeper than " + std::to_string(kMaxDepth) + " levels");
            const size_t children = (p.node->mChildren ? p.node->mNumChildren : 0);
            if (nodes.size() + 1 + stack.size() + children > kMaxNodes)
                return failWith("more than " + std::to_string(kMaxNodes) + " nodes");

            const int index = int(nodes.size());
            Node node;
            node.name = str(p.node->mName);
            m_bytes.add(sizeof(Node) + sizeof(void*) * 4 + node.name.size()); // the node, its lookups, its name
            if ((index & 1023) == 0)
                if (auto r = checkEstimate(); !r.ok())
                    return r;
            node.parent = p.parent;
            node.restMatrix = toGlm(p.node->mTransformation);
            node.rest = decompose(node.restMatrix, node.restHasShear);
            if (!isFinite(node.restMatrix))
                note(Severity::Warning, "node '" + node.name + "': non-finite rest matrix (kept as authored)");
            nodes.push_back(std::move(node));
            m_aiNodes.push_back(p.node);

            if (p.node->mMeshes)
                for (unsigned i = 0; i < p.node->mNumMeshes; ++i) {
                    const unsigned m = p.node->mMeshes[i];
                    if (m >= m_scene.mNumMeshes) {
                        ++badMeshRefs;
                        continue;
                    }
                    if (m_meshNode[m] < 0)
                        m_meshNode[m] = index;
                }
            if (p.node->mNumChildren > 0 && !p.node->mChildren)
                note(Severity::Error, "node '" + nodes.back().name + "' declares children but has none");
            // Reverse push: the first child is visited first.
            for (size_t c = children; c-- > 0;)
                stack.push_back({p.node->mChildren[c], index, p.depth + 1});
        }
        if (badMeshRefs)
            note(Severity::Error, std::to_string(badMeshRefs) + " node mesh references are out of range; ignored");
        if (auto r = checkEstimate(); !r.ok())
            return r;

        // Name lookup (first node in depth-first order wins, like Skeleton::find); duplicates are ambiguous for
        // name-based bone and channel mapping.
        m_nodesByName.reserve(nodes.size());
        for (size_t i = 0; i < nodes.size(); ++i)
            m_nodesByName[nodes[i].name].push_back(int(i));
        for (unsigned m = 0; m < m_scene.mNumMeshes; ++m)
            if (const aiMesh* mesh = meshAt(m))
                m_meshesByName[str(mesh->mName)].push_back(m);
        return {};
    }

    int findNode(const std::string& name) const
    {
        auto it = m_nodesByName.find(name);
        return it == m_nodesByName.end() ? -1 : it->second.front();
    }

    void noteIfAmbiguous(const std::string& name, const std::string& what)
    {
        auto it = m_nodesByName.find(name);
        if (it == m_nodesByName.end() || it->second.size() < 2 || !m_reportedAmbiguous.insert(name).second)
            return;
        note(Severity::Warning, what + " '" + name + "' matches " + std::to_string(it->second.size()) +
                                    " nodes of that name; the first one (depth-first) is used");
    }

    // ---- meshes ------------------------------------------------------------------------------------------------

    Result<void> buildMeshes()
    {
        m_rigMeshOf.assign(m_scene.mNumMeshes, -1);
        m_targetOf.resize(m_scene.mNumMeshes);
        for (unsigned i = 0; i < m_scene.mNumMeshes; ++i) {
            const aiMesh* mesh = meshAt(i);
            if (!mesh) {
                note(Severity::Error, "mesh " + std::to_string(i) + " is null; skipped");
                continue;
            }
            if (auto r = buildMesh(i, *mesh); !r.ok())
                return r;
        }
        return {};
    }

    Result<void> buildMesh(unsigned aiIndex, const aiMesh& src)
    {
        const std::string label = meshLabel(aiIndex);
        const std::string who = "mesh '" + label + "'";
        const unsigned vertexCount = src.mNumVertices;
        if (vertexCount == 0 || !src.mVertices) {
            note(Severity::Warning, who + ": no vertices; skipped");
            return {};
        }

        // Faces first: a mesh without a single triangle face (points / lines only) is not a triangle mesh.
        size_t triangleFaces = 0, otherFaces = 0;
        if (src.mFaces)
            for (unsigned f = 0; f < src.mNumFaces; ++f)
                (src.mFaces[f].mNumIndices == 3 && src.mFaces[f].mIndices) ? ++triangleFaces : ++otherFaces;
        if (triangleFaces == 0) {
            note(Severity::Warning, who + ": no triangles (" + std::to_string(otherFaces) + " point/line faces); skipped");
            return {};
        }
        if (src.mNumBones > kMaxJointsPerSkin)
            return failWith(who + " has " + std::to_string(src.mNumBones) + " joints in one skin, over the limit of " +
                            std::to_string(kMaxJointsPerSkin));

        Mesh mesh;
        mesh.name = label;
        mesh.node = m_meshNode[aiIndex] >= 0 ? m_meshNode[aiIndex] : 0;

        // Positions (kept raw, non-finite ones reported).
        mesh.positions.resize(vertexCount);
        size_t badPositions = 0;
        unsigned firstBad = 0;
        for (unsigned v = 0; v < vertexCount; ++v) {
            mesh.positions[v] = toGlm(src.mVertices[v]);
            if (!isFinite(mesh.positions[v]) && badPositions++ == 0)
                firstBad = v;
        }
        if (badPositions)
            note(Severity::Error, who + ": " + std::to_string(badPositions) + " vertices have non-finite positions (first: vertex " +
                                      std::to_string(firstBad) + ")");

        // Triangles; other faces and out-of-range indices are skipped.
        mesh.indices.reserve(triangleFaces * 3);
        size_t badFaces = 0;
        for (unsigned f = 0; f < src.mNumFaces; ++f) {
            const aiFace& face = src.mFaces[f];
            if (face.mNumIndices != 3 || !face.mIndices)
                continue;
            if (face.mIndices[0] >= vertexCount || face.mIndices[1] >= vertexCount || face.mIndices[2] >= vertexCount) {
                ++badFaces;
                continue;
            }
            mesh.indices.insert(mesh.indices.end(), face.mIndices, face.mIndices + 3);
        }
        if (otherFaces)
            note(Severity::Warning, who + ": " + std::to_string(otherFaces) + " non-triangle (point/line) faces skipped");
        if (badFaces)
            note(Severity::Error, who + ": " + std::to_string(badFaces) + " triangles have vertex indices out of range; skipped");

        // UV0.
        if (src.mTextureCoords[0]) {
            mesh.uvs.resize(vertexCount);
            for (unsigned v = 0; v < vertexCount; ++v)
                mesh.uvs[v] = glm::vec2(src.mTextureCoords[0][v].x, src.mTextureCoords[0][v].y);
        }

        // Normals and tangents: from the file, else generated from the rest triangles (and flagged).
        const bool fileNormals = src.mNormals != nullptr;
        const bool fileTangents = src.mTangents != nullptr;
        if (fileNormals) {
            mesh.normals.resize(vertexCount);
            for (unsigned v = 0; v < vertexCount; ++v)
                mesh.normals[v] = toGlm(src.mNormals[v]);
        }
        const bool generateTangents = !fileTangents && !mesh.uvs.empty();
        if (!fileNormals || generateTangents) {
            std::vector<glm::vec3> normals(vertexCount);
            std::vector<glm::vec4> tangents(generateTangents ? vertexCount : 0);
            const std::vector<uint32_t> groups = buildSmoothingGroups(mesh.positions, {});
            RebuildScratch scratch;
            rebuildFrames(mesh.positions, mesh.uvs, mesh.indices, groups, normals, tangents, scratch);
            if (!fileNormals) {
                mesh.normals = std::move(normals);
                mesh.normalsGenerated = true;
                note(Severity::Info, who + ": no normals in the file, generated from the rest triangles");
            }
            if (generateTangents) {
                // Keep the generated tangents perpendicular to the normals the mesh actually uses.
                if (fileNormals)
                    for (unsigned v = 0; v < vertexCount; ++v) {
                        const glm::vec3 n = safeNormalize(mesh.normals[v]);
                        const glm::vec3 t(tangents[v]);
                        const glm::vec3 o = safeNormalize(t - n * glm::dot(n, t));
                        tangents[v] = isDefined(o) && isDefined(n) ? glm::vec4(o, tangents[v].w) : tangents[v];
                    }
                mesh.tangents = std::move(tangents);
                mesh.tangentsGenerated = true;
                note(Severity::Info, who + ": no tangents in the file, generated from the rest triangles and UV0");
            }
        }
        if (fileTangents) {
            mesh.tangents.resize(vertexCount);
            for (unsigned v = 0; v < vertexCount; ++v) {
                const glm::vec3 t = toGlm(src.mTangents[v]);
                float w = 1.0f;
                if (src.mBitangents) {
                    const float d = glm::dot(glm::cross(mesh.normals[v], t), toGlm(src.mBitangents[v]));
                    w = d < 0.0f ? -1.0f : 1.0f; // zero (or NaN) -> +1
                }
                mesh.tangents[v] = glm::vec4(t, w);
            }
            if (!src.mBitangents)
                note(Severity::Warning, who + ": tangents without bitangents in the file; handedness set to +1");
        } else if (mesh.uvs.empty()) {
            note(Severity::Info, who + ": no UV0: tangents undefined");
        }

        if (src.mNumBones > 0)
            if (auto r = buildSkin(aiIndex, src, who, mesh); !r.ok())
                return r;

        buildMorphTargets(aiIndex, src, who, mesh);

        m_rigMeshOf[aiIndex] = int(m_rig.meshes.size());
        m_rig.meshes.push_back(std::move(mesh));
        return {};
    }

    /// Skin (joints by bone name, inverse binds) and raw influences in CSR.
    Result<void> buildSkin(unsigned aiIndex, const aiMesh& src, const std::string& who, Mesh& mesh)
    {
        const unsigned vertexCount = src.mNumVertices;
        const unsigned boneCount = src.mBones ? src.mNumBones : 0;
        if (!src.mBones)
            note(Severity::Error, who + ": declares " + std::to_string(src.mNumBones) + " bones but has none");

        Skin skin;
        skin.name = mesh.name;
        skin.joints.resize(boneCount, -1);
        skin.inverseBind.resize(boneCount, glm::mat4(1.0f));
        for (unsigned b = 0; b < boneCount; ++b) {
            const aiBone* bone = src.mBones[b];
            if (!bone) {
                note(Severity::Error, who + ": bone " + std::to_string(b) + " is null; mapped to no node");
                continue;
            }
            const std::string name = str(bone->mName);
            skin.joints[b] = findNode(name);
            if (skin.joints[b] < 0)
                note(Severity::Error, who + ": bone '" + name + "' matches no node; its joint is mapped to -1 (identity)");
            else
                noteIfAmbiguous(name, who + ": bone");
            skin.inverseBind[b] = toGlm(bone->mOffsetMatrix);
            if (!isFinite(skin.inverseBind[b]))
                note(Severity::Warning, who + ": bone '" + name + "' has a non-finite inverse bind matrix (kept)");
        }

        // Count, then fill. Only Assimp's weight == 0 dummies are dropped; negative, NaN and > 1 weights stay.
        std::vector<uint32_t> counts(size_t(vertexCount) + 1, 0);
        size_t outOfRange = 0;
        std::string firstOutOfRangeBone;
        uint64_t total = 0;
        for (unsigned b = 0; b < boneCount; ++b) {
            const aiBone* bone = src.mBones[b];
            if (!bone || !bone->mWeights)
                continue;
            for (unsigned w = 0; w < bone->mNumWeights; ++w) {
                const aiVertexWeight& vw = bone->mWeights[w];
                if (vw.mVertexId >= vertexCount) {
                    if (outOfRange++ == 0)
                        firstOutOfRangeBone = str(bone->mName);
                    continue;
                }
                if (vw.mWeight == 0.0f)
                    continue;
                ++counts[vw.mVertexId];
                ++total;
            }
        }
        if (total > UINT32_MAX)
            return failWith(who + " has more than 2^32 influences");
        if (outOfRange)
            note(Severity::Warning, who + ": " + std::to_string(outOfRange) + " bone weights name vertices out of range (first in bone '" +
                                        firstOutOfRangeBone + "'); skipped");

        mesh.influenceOffsets.assign(size_t(vertexCount) + 1, 0);
        for (unsigned v = 0; v < vertexCount; ++v)
            mesh.influenceOffsets[v + 1] = mesh.influenceOffsets[v] + counts[v];
        mesh.influences.resize(total);
        std::vector<uint32_t> cursor(mesh.influenceOffsets.begin(), mesh.influenceOffsets.end() - 1);
        for (unsigned b = 0; b < boneCount; ++b) {
            const aiBone* bone = src.mBones[b];
            if (!bone || !bone->mWeights)
                continue;
            for (unsigned w = 0; w < bone->mNumWeights; ++w) {
                const aiVertexWeight& vw = bone->mWeights[w];
                if (vw.mVertexId >= vertexCount || vw.mWeight == 0.0f)
                    continue;
                mesh.influences[cursor[vw.mVertexId]++] = Influence{b, vw.mWeight};
            }
        }

        if (auto r = applyRawSkin(aiIndex, src, who, mesh); !r.ok())
            return r;
        mesh.skin = shareSkin(std::move(skin));
        return {};
    }

    // ---- raw glTF skinning (gltf_skin.h) -----------------------------------------------------------------------

    /// Reads the file's own JOINTS_n / WEIGHTS_n when it is glTF and Assimp gave at least one mesh bones.
    void readRawSkins()
    {
        if (m_rawSource.kind == RawGltfSource::Kind::None)
            return;
        bool skinned = false;
        for (unsigned i = 0; i < m_scene.mNumMeshes && !skinned; ++i)
            if (const aiMesh* mesh = meshAt(i))
                skinned = mesh->mNumBones > 0;
        if (!skinned)
            return;
        GltfSkinOptions options;
        options.maxBytes = m_options.memoryBudgetBytes;
        Result<GltfSkinData> r = m_rawSource.kind == RawGltfSource::Kind::File
                                     ? readGltfSkinsFile(m_rawSource.path, options)
                                     : readGltfSkins(m_rawSource.data, m_rawSource.size, options);
        if (!r.ok()) {
            note(Severity::Warning, "raw glTF skin weights could not be read (" + oneLine(r.error()) +
                                        "); Assimp's influences are kept (it drops invalid ones)");
            return;
        }
        m_rawSkins = std::move(r.value());
        for (const auto& prims : m_rawSkins->meshes)
            for (const GltfPrimitiveSkin& p : prims)
                m_rawByName[p.assimpName].push_back(&p);
    }

    /// Replaces Assimp's influences of aiMesh `aiIndex` (already in `mesh`, joint = bone index) by the raw ones of its
    /// glTF primitive, when one is found and verified; otherwise keeps them and says why.
    Result<void> applyRawSkin(unsigned aiIndex, const aiMesh& src, const std::string& who, Mesh& mesh)
    {
        if (!m_rawSkins)
            return {};
        const GltfSkinData& raw = *m_rawSkins;
        // Candidates, most likely first: Assimp's own order, file order, then every primitive with Assimp's name.
        std::vector<const GltfPrimitiveSkin*> candidates;
        auto add = [&candidates](const GltfPrimitiveSkin* p) {
            if (p && std::find(candidates.begin(), candidates.end(), p) == candidates.end())
                candidates.push_back(p);
        };
        if (aiIndex < raw.assimpOrder.size())
            add(raw.primitive(raw.assimpOrder[aiIndex]));
        if (aiIndex < raw.fileOrder.size())
            add(raw.primitive(raw.fileOrder[aiIndex]));
        if (auto it = m_rawByName.find(str(src.mName)); it != m_rawByName.end())
            for (const GltfPrimitiveSkin* p : it->second)
                add(p);

        std::string reason;
        bool reasonFromSameSize = false, external = false;
        for (const GltfPrimitiveSkin* p : candidates) {
            std::vector<uint32_t> remap;
            std::string why;
            if (verifyRawSkin(raw, *p, src, mesh, remap, why)) {
                if (p->skinSets == 0)
                    return {}; // no JOINTS/WEIGHTS in the file: Assimp's bones hold only padding, nothing to replace
                const uint64_t before = mesh.influences.size();
                mesh.influenceOffsets = p->influenceOffsets;
                mesh.influences = p->influences;
                for (Influence& in : mesh.influences)
                    if (in.joint < remap.size())
                        in.joint = remap[in.joint]; // beyond the skin: stays raw, so out of range in ours too
                if (mesh.influences.size() > before)
                    m_bytes.add(mesh.influences.size() - before, sizeof(Influence));
                m_rawUsed = true;
                return checkEstimate();
            }
            external = external || p->needsExternalBuffer;
            const bool sameSize = p->error.empty() && p->vertexCount == src.mNumVertices;
            if (reason.empty() || (sameSize && !reasonFromSameSize)) {
                reason = why;
                reasonFromSameSize = sameSize;
            }
        }
        if (external && !reasonFromSameSize) {
            m_rawExternal = true;
            return {};
        }
        note(Severity::Warning, "raw glTF weights could not be matched to " + who + " (" +
                                    (reason.empty() ? std::string("no glTF primitive corresponds to it") : oneLine(reason)) +
                                    "); Assimp's influences are kept (it drops invalid ones)");
        return {};
    }

    /// True when primitive `p` is the source of aiMesh `src`: same vertex count, same positions (bit for bit, when the
    /// file's are floats), Assimp's bones are the joints of one of the mesh's skins (by name; `remap` maps glTF joint
    /// index to bone index), and Assimp's influences (`assimp`, joint = bone) are exactly the raw ones Assimp keeps
    /// (weight > 0, joint < joint count), vertex by vertex. Assimp's integer weights are garbage: not compared.
    bool verifyRawSkin(const GltfSkinData& raw, const GltfPrimitiveSkin& p, const aiMesh& src, const Mesh& assimp,
                       std::vector<uint32_t>& remap, std::string& why) const
    {
        if (!p.error.empty()) {
            why = p.error;
            return false;
        }
        const std::string prim = "mesh " + std::to_string(p.mesh) + " primitive " + std::to_string(p.primitive);
        if (p.vertexCount != src.mNumVertices) {
            why = prim + " has " + std::to_string(p.vertexCount) + " vertices, the mesh " + std::to_string(src.mNumVertices);
            return false;
        }
        static_assert(sizeof(ai_real) == sizeof(float), "positions are compared bit for bit as floats");
        for (size_t v = 0; v < p.positions.size(); ++v) {
            const aiVector3D& a = src.mVertices[v];
            const glm::vec3& b = p.positions[v];
            if (std::bit_cast<uint32_t>(float(a.x)) != std::bit_cast<uint32_t>(b.x) ||
                std::bit_cast<uint32_t>(float(a.y)) != std::bit_cast<uint32_t>(b.y) ||
                std::bit_cast<uint32_t>(float(a.z)) != std::bit_cast<uint32_t>(b.z)) {
                why = prim + ": position of vertex " + std::to_string(v) + " differs from the mesh's";
                return false;
            }
        }
        if (p.skinSets == 0) {
            if (!assimp.influences.empty()) {
                why = prim + " has no JOINTS/WEIGHTS, the mesh has influences";
                return false;
            }
            return true;
        }
        const unsigned boneCount = src.mBones ? src.mNumBones : 0;
        std::vector<std::string> bones(boneCount);
        for (unsigned b = 0; b < boneCount; ++b)
            bones[b] = src.mBones[b] ? str(src.mBones[b]->mName) : std::string();
        const std::vector<int>& skins = raw.meshSkins.at(size_t(p.mesh));
        if (skins.empty()) {
            why = "no node instances glTF mesh " + std::to_string(p.mesh) + " with a skin";
            return false;
        }
        std::vector<std::pair<uint32_t, float>> expected, actual;
        for (int s : skins) {
            const std::string skin = "skin " + std::to_string(s);
            if (!raw.skinValid[size_t(s)]) {
                why = skin + " lists a joint that is not a node";
                continue;
            }
            const std::vector<std::string>& names = raw.skinJointNames[size_t(s)];
            if (names.size() != bones.size()) {
                why = skin + " has " + std::to_string(names.size()) + " joints, the mesh " + std::to_string(bones.size()) + " bones";
                continue;
            }
            // Joint j -> bone: identity when the names agree in order (Assimp 5.2.4), else by unique name.
            remap.resize(names.size());
            bool mapped = true;
            if (names == bones) {
                for (size_t j = 0; j < names.size(); ++j)
                    remap[j] = uint32_t(j);
            } else {
                std::unordered_map<std::string, uint32_t> boneIndex;
                for (size_t b = 0; b < bones.size() && mapped; ++b)
                    mapped = boneIndex.emplace(bones[b], uint32_t(b)).second;
                for (size_t j = 0; j < names.size() && mapped; ++j) {
                    auto it = boneIndex.find(names[j]);
                    mapped = it != boneIndex.end();
                    if (mapped)
                        remap[j] = it->second;
                }
                if (!mapped) {
                    why = skin + ": its joints do not match the mesh's bones by name";
                    continue;
                }
                std::vector<uint32_t> sorted = remap;
                std::sort(sorted.begin(), sorted.end());
                if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
                    why = skin + ": two joints map to one bone";
                    continue;
                }
            }
            if (!p.floatWeights)
                return true;
            bool same = true;
            for (uint32_t v = 0; v < p.vertexCount && same; ++v) {
                expected.clear();
                actual.clear();
                for (uint32_t i = p.influenceOffsets[v]; i < p.influenceOffsets[v + 1]; ++i) {
                    const Influence in = p.influences[i];
                    if (in.weight > 0.0f && in.joint < names.size())
                        expected.emplace_back(remap[in.joint], in.weight);
                }
                for (uint32_t i = assimp.influenceOffsets[v]; i < assimp.influenceOffsets[v + 1]; ++i)
                    actual.emplace_back(assimp.influences[i].joint, assimp.influences[i].weight);
                std::sort(expected.begin(), expected.end());
                std::sort(actual.begin(), actual.end());
                if (expected != actual) {
                    why = skin + ": influences of vertex " + std::to_string(v) + " differ from Assimp's";
                    same = false;
                }
            }
            if (same)
                return true;
        }
        return false;
    }

    /// Returns the index of an identical earlier skin (same joints, bit-identical matrices), or adds this one.
    int shareSkin(Skin skin)
    {
        uint64_t h = 1469598103934665603ull; // FNV-1a over the joints and matrix bits
        auto mix = [&h](const void* p, size_t n) {
            const unsigned char* b = static_cast<const unsigned char*>(p);
            for (size_t i = 0; i < n; ++i)
                h = (h ^ b[i]) * 1099511628211ull;
        };
        mix(skin.joints.data(), skin.joints.size() * sizeof(int));
        mix(skin.inverseBind.data(), skin.inverseBind.size() * sizeof(glm::mat4));
        std::vector<int>& bucket = m_skinsByHash[h];
        for (int candidate : bucket) {
            const Skin& other = m_rig.skins[size_t(candidate)];
            if (other.joints == skin.joints && other.inverseBind.size() == skin.inverseBind.size() &&
                std::memcmp(other.inverseBind.data(), skin.inverseBind.data(), skin.inverseBind.size() * sizeof(glm::mat4)) == 0)
                return candidate;
        }
        bucket.push_back(int(m_rig.skins.size()));
        m_rig.skins.push_back(std::move(skin));
        return bucket.back();
    }

    /// Morph targets as deltas (Assimp stores absolute attributes).
    void buildMorphTargets(unsigned aiIndex, const aiMesh& src, const std::string& who, Mesh& mesh)
    {
        std::vector<int>& targetOf = m_targetOf[aiIndex];
        if (!src.mAnimMeshes || src.mNumAnimMeshes == 0)
            return;
        targetOf.assign(src.mNumAnimMeshes, -1);
        const unsigned vertexCount = src.mNumVertices;
        const bool baseNormals = src.mNormals != nullptr;
        const bool baseTangents = src.mTangents != nullptr;
        for (unsigned k = 0; k < src.mNumAnimMeshes; ++k) {
            const aiAnimMesh* am = src.mAnimMeshes[k];
            std::string name = am ? str(am->mName) : std::string();
            if (name.empty())
                name = "target" + std::to_string(k);
            if (!am || am->mNumVertices != vertexCount) {
                note(Severity::Warning, who + ": morph target '" + name + "' has " + std::to_string(am ? am->mNumVertices : 0) +
                                            " vertices, the mesh " + std::to_string(vertexCount) + "; skipped");
                continue;
            }
            MorphTarget target;
            target.name = name;
            target.positionDeltas.resize(vertexCount, glm::vec3(0.0f));
            if (am->mVertices)
                for (unsigned v = 0; v < vertexCount; ++v)
                    target.positionDeltas[v] = toGlm(am->mVertices[v]) - mesh.positions[v];
            if (am->mNormals && baseNormals) {
                target.normalDeltas.resize(vertexCount);
                for (unsigned v = 0; v < vertexCount; ++v)
                    target.normalDeltas[v] = toGlm(am->mNormals[v]) - mesh.normals[v];
            } else if (am->mNormals) {
                note(Severity::Warning, who + ": morph target '" + name + "' has normals but the base mesh has none; ignored");
            }
            if (am->mTangents && baseTangents) {
                target.tangentDeltas.resize(vertexCount);
                for (unsigned v = 0; v < vertexCount; ++v)
                    target.tangentDeltas[v] = toGlm(am->mTangents[v]) - glm::vec3(mesh.tangents[v]);
            } else if (am->mTangents) {
                note(Severity::Warning, who + ": morph target '" + name + "' has tangents but the base mesh has none; ignored");
            }
            targetOf[k] = int(mesh.morphTargets.size());
            mesh.morphTargets.push_back(std::move(target));
            // Assimp 5.2 puts glTF mesh.weights (0 when absent) into mWeight.
            mesh.defaultMorphWeights.push_back(am->mWeight);
        }
    }

    // ---- animations --------------------------------------------------------------------------------------------

    Result<void> buildClips()
    {
        if (!m_scene.mAnimations)
            return {};
        for (unsigned a = 0; a < m_scene.mNumAnimations; ++a) {
            const aiAnimation* anim = m_scene.mAnimations[a];
            if (!anim) {
                note(Severity::Error, "animation " + std::to_string(a) + " is null; skipped");
                continue;
            }
            Clip clip;
            clip.name = str(anim->mName);
            if (clip.name.empty())
                clip.name = "clip" + std::to_string(a);
            const std::string who = "clip '" + clip.name + "'";
            double ticksPerSecond = anim->mTicksPerSecond;
            if (ticksPerSecond == 0.0) {
                ticksPerSecond = 25.0; // Assimp's convention for "not specified"
            } else if (!(ticksPerSecond > 0.0) || !std::isfinite(ticksPerSecond)) {
                note(Severity::Warning, who + ": invalid ticks per second (" + std::to_string(ticksPerSecond) + "); 25 used");
                ticksPerSecond = 25.0;
            }
            float duration = 0.0f;

            if (anim->mChannels)
                for (unsigned c = 0; c < anim->mNumChannels; ++c)
                    if (const aiNodeAnim* ch = anim->mChannels[c])
                        buildJointChannel(*ch, who, ticksPerSecond, clip, duration);
            if (anim->mMorphMeshChannels)
                for (unsigned c = 0; c < anim->mNumMorphMeshChannels; ++c)
                    if (const aiMeshMorphAnim* ch = anim->mMorphMeshChannels[c])
                        if (auto r = buildMorphChannels(*ch, who, ticksPerSecond, clip, duration); !r.ok())
                            return r;
            if (anim->mNumMeshChannels > 0)
                note(Severity::Info, who + ": " + std::to_string(anim->mNumMeshChannels) +
                                         " vertex-animation (mesh) channels are not supported; ignored");
            clip.duration = duration;
            m_rig.clips.push_back(std::move(clip));
        }
        return {};
    }

    /// Converts one key array; false (with a note) when its times are not sorted or not finite.
    template <typename Key, typename T, typename Convert>
    bool convertTrack(const Key* keys, unsigned count, double ticksPerSecond, Track<T>& track, const std::string& what,
                      float& duration, Convert convert)
    {
        if (!keys || count == 0)
            return true;
        track.interpolation = Interpolation::Linear; // Assimp 5.2 keys carry no interpolation mode
        track.times.resize(count);
        track.values.resize(count);
        for (unsigned k = 0; k < count; ++k) {
            track.times[k] = float(keys[k].mTime / ticksPerSecond);
            track.values[k] = convert(keys[k].mValue);
            if (!std::isfinite(track.times[k]) || (k > 0 && !(track.times[k] >= track.times[k - 1]))) {
                note(Severity::Warning, what + ": key times are not sorted (key " + std::to_string(k) + "); track skipped");
                track = Track<T>{};
                return false;
            }
        }
        duration = std::max(duration, track.times.back());
        return true;
    }

    void buildJointChannel(const aiNodeAnim& ch, const std::string& who, double ticksPerSecond, Clip& clip, float& duration)
    {
        const std::string name = str(ch.mNodeName);
        JointChannel channel;
        channel.node = findNode(name);
        if (channel.node < 0) {
            note(Severity::Warning, who + ": channel for unknown node '" + name + "'; skipped");
            return;
        }
        noteIfAmbiguous(name, who + ": channel");
        const std::string what = who + " node '" + name + "'";
        auto vec = [](const aiVector3D& v) { return toGlm(v); };
        auto quat = [](const aiQuaternion& q) { return glm::quat(q.w, q.x, q.y, q.z); }; // raw, not renormalised
        convertTrack(ch.mPositionKeys, ch.mNumPositionKeys, ticksPerSecond, channel.translation, what + " translation", duration, vec);
        convertTrack(ch.mRotationKeys, ch.mNumRotationKeys, ticksPerSecond, channel.rotation, what + " rotation", duration, quat);
        convertTrack(ch.mScalingKeys, ch.mNumScalingKeys, ticksPerSecond, channel.scale, what + " scale", duration, vec);
        if (channel.translation.empty() && channel.rotation.empty() && channel.scale.empty())
            return;
        clip.joints.push_back(std::move(channel));
    }

    /// The aiMesh indices a morph channel drives. Assimp 5.2 names the channel after the node holding the mesh(es);
    /// other exporters use the mesh name, and Assimp suffixes some names ("name*0"): try those in turn.
    std::vector<unsigned> morphChannelMeshes(const std::string& name)
    {
        std::vector<unsigned> out;
        auto add = [&out](unsigned m) { out.push_back(m); };
        auto fromNode = [&](const std::string& n) {
            // Every node of that name (names should be unique; if not, all of them), each of its mesh references.
            auto it = m_nodesByName.find(n);
            if (it == m_nodesByName.end())
                return;
            for (int i : it->second) {
                const aiNode* node = m_aiNodes[size_t(i)];
                if (node->mMeshes)
                    for (unsigned j = 0; j < node->mNumMeshes; ++j)
                        if (node->mMeshes[j] < m_scene.mNumMeshes)
                            add(node->mMeshes[j]);
            }
        };
        auto fromMeshName = [&](const std::string& n) {
            if (auto it = m_meshesByName.find(n); it != m_meshesByName.end())
                for (unsigned m : it->second)
                    add(m);
        };
        fromNode(name);
        if (out.empty())
            fromMeshName(name);
        if (out.empty())
            if (const size_t star = name.rfind('*'); star != std::string::npos && star > 0) {
                fromNode(name.substr(0, star));
                if (out.empty())
                    fromMeshName(name.substr(0, star));
            }
        std::sort(out.begin(), out.end()); // mesh order, each mesh once
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    }

    Result<void> buildMorphChannels(const aiMeshMorphAnim& ch, const std::string& who, double ticksPerSecond, Clip& clip,
                                    float& duration)
    {
        const std::string name = str(ch.mName);
        const std::string what = who + " morph channel '" + name + "'";
        if (!ch.mKeys || ch.mNumKeys == 0) {
            note(Severity::Warning, what + ": no keys; skipped");
            return {};
        }
        std::vector<float> times(ch.mNumKeys);
        for (unsigned k = 0; k < ch.mNumKeys; ++k) {
            times[k] = float(ch.mKeys[k].mTime / ticksPerSecond);
            if (!std::isfinite(times[k]) || (k > 0 && !(times[k] >= times[k - 1]))) {
                note(Severity::Warning, what + ": key times are not sorted (key " + std::to_string(k) + "); skipped");
                return {};
            }
        }
        const std::vector<unsigned> meshes = morphChannelMeshes(name);
        if (meshes.empty()) {
            note(Severity::Warning, what + ": no node or mesh of that name; skipped");
            return {};
        }
        size_t badValues = 0;
        bool any = false;
        for (unsigned m : meshes) {
            const int rigMesh = m_rigMeshOf[m];
            if (rigMesh < 0)
                continue;
            const std::vector<int>& targetOf = m_targetOf[m];
            const size_t targets = m_rig.meshes[size_t(rigMesh)].morphTargets.size();
            if (targets == 0)
                continue;
            // Dense weights for every mesh of the node: count them against the budget before allocating.
            m_bytes.add(uint64_t(times.size()) * targets, sizeof(float));
            m_bytes.add(uint64_t(times.size()), sizeof(float));
            if (auto r = checkEstimate(); !r.ok())
                return r;
            MorphChannel channel;
            channel.mesh = rigMesh;
            channel.interpolation = Interpolation::Linear;
            channel.times = times;
            channel.weights.assign(times.size() * targets, 0.0f);
            for (unsigned k = 0; k < ch.mNumKeys; ++k) {
                const aiMeshMorphKey& key = ch.mKeys[k];
                if (!key.mValues || !key.mWeights)
                    continue;
                for (unsigned q = 0; q < key.mNumValuesAndWeights; ++q) {
                    const unsigned animMesh = key.mValues[q];
                    const int target = animMesh < targetOf.size() ? targetOf[animMesh] : -1;
                    if (target < 0) {
                        ++badValues;
                        continue;
                    }
                    channel.weights[size_t(k) * targets + size_t(target)] = float(key.mWeights[q]);
                }
            }
            clip.morphs.push_back(std::move(channel));
            any = true;
        }
        if (!any) {
            note(Severity::Warning, what + ": its meshes have no morph targets; skipped");
            return {};
        }
        if (badValues)
            note(Severity::Warning, what + ": " + std::to_string(badValues) + " key values name missing or skipped targets; ignored");
        duration = std::max(duration, times.back());
        return {};
    }

    const aiScene& m_scene;
    std::string m_path;
    const ImportOptions& m_options;
    const RawGltfSource& m_rawSource;
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
};

/// Runs `read` (which returns the scene or null) and converts its result; no exception escapes.
template <typename Read>
Result<Rig> importWith(const std::string& displayName, const ImportOptions& options, const RawGltfSource& raw, Read read)
{
    // Out of memory: in the worker (addressSpaceLimited) that means the file needs more than the allocation cap, a
    // corrupted count in a text format can make a parser reserve tens of GiB before it fails; the precise check of
    // what the rig needs (the estimate in Converter) gives the usual "needs N MiB" message before that.
    auto outOfMemory = [&](const char* when) {
        if (options.addressSpaceLimited)
            return fail(displayName + ": " + allocationCapReason(options.memoryBudgetBytes));
        return fail(displayName + ": out of memory while " + when);
    };
    try {
        Assimp::Importer importer;
        // Keep every bone, also ones without weights (FBX clusters): the skin lists what the file lists.
        importer.SetPropertyBool(AI_CONFIG_IMPORT_REMOVE_EMPTY_BONES, false);
        const aiScene* scene = read(importer);
        if (!scene) {
            std::string reason = oneLine(importer.GetErrorString());
            if (reason == "std::bad_alloc") // Assimp catches its own allocation failures and reports what()
                return outOfMemory("reading the file");
            if (reason.empty())
                reason = "Assimp could not read the file";
            return fail(displayName + ": " + reason);
        }
        Converter converter(*scene, displayName, options, raw);
        return converter.run();
    } catch (const std::bad_alloc&) {
        return outOfMemory("importing");
    } catch (const std::exception& e) {
        const std::string reason = oneLine(e.what());
        return fail(displayName + ": " + (reason.empty() ? std::string("import failed") : reason));
    } catch (...) {
        return fail(displayName + ": import failed (unknown exception)");
    }
}

} // namespace

Result<Rig> importFile(const std::string& path, const ImportOptions& options)
{
    if (options.isolate) {
        WorkerJob job;
        job.displayName = path;
        job.path = path;
        return importInWorker(job, options);
    }
    try {
        std::error_code ec;
        const std::filesystem::file_status status = std::filesystem::status(path, ec);
        if (path.empty() || ec || !std::filesystem::exists(status))
            return fail(path + ": no such file");
        if (!std::filesystem::is_regular_file(status))
            return fail(path + ": not a regular file");
    } catch (...) {
        return fail(path + ": no such file");
    }
    RawGltfSource raw;
    try {
        std::string extension = std::filesystem::path(path).extension().string();
        if (!extension.empty())
            extension.erase(0, 1);
        if (isGltfFormat(extension)) {
            raw.kind = RawGltfSource::Kind::File;
            raw.path = path;
        }
    } catch (...) {
    }
    return importWith(path, options, raw, [&path](Assimp::Importer& importer) { return importer.ReadFile(path, kPostProcess); });
}

Result<Rig> importMemory(const void* data, size_t size, const std::string& formatHint, const std::string& displayName,
                         const ImportOptions& options)
{
    if (!data || size == 0)
        return fail(displayName + ": empty buffer");
    if (options.isolate) {
        WorkerJob job;
        job.displayName = displayName;
        job.data = data;
        job.size = size;
        job.formatHint = formatHint;
        return importInWorker(job, options);
    }
    std::string hint = formatHint;
    if (!hint.empty() && hint.front() == '.')
        hint.erase(0, 1);
    const bool hintOk = hint.size() <= 16 && std::all_of(hint.begin(), hint.end(), [](char c) {
                            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
                        });
    if (!hintOk)
        return fail(displayName + ": invalid format hint '" + oneLine(formatHint) + "'");
    RawGltfSource raw;
    if (isGltfFormat(hint)) {
        raw.kind = RawGltfSource::Kind::Memory;
        raw.data = data;
        raw.size = size;
    }
    return importWith(displayName, options, raw, [&](Assimp::Importer& importer) {
        return importer.ReadFileFromMemory(data, size, kPostProcess, hint.c_str());
    });
}

std::string assimpVersion()
{
    return std::to_string(aiGetVersionMajor()) + "." + std::to_string(aiGetVersionMinor()) + "." +
           std::to_string(aiGetVersionPatch());
}

} // namespace rig
