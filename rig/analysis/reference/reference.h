// The `rebuilt` reference: normals and UV tangents rebuilt from final triangles.
//
// Definition (documented in the README):
// - face normal c = (p1 - p0) × (p2 - p0) (its length is twice the area, so summing c is area weighting);
// - a vertex's normal is the normalised sum of c over the triangles of its smoothing group. A smoothing group is a
//   connected set of vertices at bit-identical bind positions (in one space: the bind space shared by every skinned
//   mesh, or the node space of an unskinned mesh) whose rest normals agree within kHardEdgeDegrees, over ALL meshes of
//   the rig: vertices split by UV seams or by material (glTF primitives, Assimp meshes) share one; authored hard edges
//   (split vertices with different rest normals) stay hard. Membership is transitive (union-find over every agreeing
//   pair, so it does not depend on vertex order); the representative is the group's smallest global index;
// - the face UV tangent T = (e1·dv2 - e2·dv1)/det and bitangent B = (e2·du1 - e1·du2)/det are summed per vertex
//   (not welded) weighted by |c|; faces with |det| <= kMinUvDet contribute nothing to tangents;
// - T is made perpendicular to the normal (Gram-Schmidt); handedness w = sign(dot(n × t, B)), +1 when that is 0;
// - zero-area triangles contribute nothing; a vertex left with a zero sum is undefined: its output is the zero vector.
// UVs are in the file's own convention (the importer undoes Assimp's V flip of glTF and X), so the handedness agrees
// with the file's authored tangents on a correct file.
//
// The computation is a face pass (per triangle) and a gather (per vertex, over precomputed adjacency lists in increasing
// triangle order): every output is independent of the thread count, and the GPU (shaders/compute/deform_faces.comp,
// deform_reference.comp) adds the same terms in the same order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "rig/platform/aligned_vector.h"
#include "rig/model/model.h"

namespace rig {

inline constexpr float kHardEdgeDegrees = 1.0f;
inline constexpr float kMinUvDet = 1e-12f;
/// Vertices sharing one position beyond this many are welded by identical rest normals only (no angle test), so that a
/// hostile file cannot make the pairwise test quadratic. Real rigs have a handful per position.
inline constexpr size_t kMaxPairwiseWeld = 256;

/// The reference's topology over all meshes of a rig, in global numbering: vertex v of mesh m is vertexBegin[m] + v,
/// its triangle t is triangleBegin[m] + t (meshes in file order). Built once per rig; read by the CPU gather and
/// uploaded as is by the GPU deformer.
struct ReferenceTopology {
    std::vector<uint32_t> vertexBegin;   ///< per mesh, then the total
    std::vector<uint32_t> triangleBegin; ///< per mesh, then the total
    std::vector<uint32_t> group;         ///< per vertex: its smoothing group's representative
    /// CSR, per vertex (non-empty for representatives only): every triangle of the group's members, increasing, with
    /// multiplicity (a triangle that touches two members is listed twice, as it adds its normal twice).
    std::vector<uint32_t> groupTriangleOffsets; ///< vertices + 1
    std::vector<uint32_t> groupTriangles;
    /// CSR, per vertex: its own triangles, increasing, with multiplicity.
    std::vector<uint32_t> vertexTriangleOffsets; ///< vertices + 1
    std::vector<uint32_t> vertexTriangles;
    /// Groups that span more than one mesh (material seams), for reports.
    size_t crossMeshGroups = 0;

    /// How rebuildReference runs on the CPU: vertices in chunks (never across meshes), each with the range of
    /// triangles its gather reads, and tasks of consecutive chunks. A task computes the face terms of its chunks'
    /// triangles into a window of `windowTriangles` rows of its own (recomputing the few its neighbour task also
    /// needs) and gathers each chunk from it while they are in cache, instead of writing every triangle's terms to
    /// memory and reading them back. windowTriangles is 0 when the file's vertex and triangle orders are too
    /// unrelated for a window: the face pass then runs over all triangles first, then the gather (same results).
    struct Schedule {
        std::vector<uint32_t> chunkBegin; ///< per chunk, global first vertex; then the total
        std::vector<uint32_t> chunkMesh;
        std::vector<uint32_t> needBegin, needEnd; ///< per chunk: the triangles its gather reads (empty: none)
        std::vector<uint32_t> taskBegin; ///< per task, its first chunk; then the chunk count
        /// The gather's lists of the vertices alone in their smoothing group (most: their group's list is their own),
        /// as the window rows of their triangles (t & (windowTriangles - 1)) times four, in 16 bits, so that the gather
        /// reads one short list of ready row offsets instead of the group, two offset pairs and 32-bit indices. Per
        /// vertex (+1): where its list starts in compactTriangles; the top bit set for a vertex in a group of several
        /// (its lists are the CSR ones above).
        std::vector<uint32_t> compactBegin;
        std::vector<uint16_t> compactTriangles;
        uint32_t windowTriangles = 0;    ///< a power of two, or 0
    } schedule;

    size_t vertexCount() const { return group.size(); }
    size_t triangleCount() const { return triangleBegin.empty() ? 0 : triangleBegin.back(); }
};

/// The reference rebuilt at the bind pose (the authored positions, not morphed) of one mesh: the authoring baseline, the
/// handedness audit and the frame the skinning error is carried from (carried.h).
struct BindReference {
    std::vector<glm::vec3> normals;
    std::vector<glm::vec4> tangents; ///< empty when the mesh has no tangents
};

/// Builds the topology of every mesh of `rig` (positions, rest normals and indices as authored).
ReferenceTopology buildReferenceTopology(const Rig& rig);

/// The topology of one mesh alone; `normals` may be empty: then position alone groups (the importer's generation of
/// missing normals).
ReferenceTopology buildMeshTopology(std::span<const glm::vec3> positions, std::span<const glm::vec3> normals,
                                    std::span<const uint32_t> indices);

/// The topology of one mesh with smoothing groups given (groups[v]: the representative of v's group), for tools and tests
/// that need groups the weld would not make.
ReferenceTopology meshTopologyWithGroups(std::span<const uint32_t> indices, std::vector<uint32_t> groups);

/// The face pass and gather kernels: AVX-512 where the processor has it, else AVX2, else scalar; all bit-identical.
enum class ReferenceKernel : uint8_t { Scalar, Avx2, Avx512 };
/// The best this processor runs (chosen once).
ReferenceKernel bestReferenceKernel();
const char* referenceKernelName(ReferenceKernel k);

/// Per-triangle results of the face pass (global triangle numbering) for the two passes run one after the other
/// (rebuildFaces, gatherFrames; rebuildReference on a topology without a window), caller-owned so that repeated
/// rebuilds allocate nothing once sized; and the kernel every rebuild with it uses (benchmarks set Scalar to compare).
/// (A windowed rebuild writes its terms into a window per thread instead, allocated once per thread and size.)
struct ReferenceScratch {
    /// Rows of four floats per triangle: c (its face normal, twice its area long), and its UV tangent and bitangent
    /// times |c| (zero when the face has no usable UVs); w is a copy of z, which the gather's adds carry along and
    /// ignore (the AVX2 face pass makes such rows with fewer shuffles than rows with w = 0). A triangle's normal and
    /// tangent rows side by side in facePairs (two rows a triangle), so that the SIMD gathers add both with one
    /// 256-bit load; its bitangent row in faceBitangents. Aligned arrays: the gather's loads never straddle a cache
    /// line.
    AlignedVector<glm::vec4> facePairs, faceBitangents;
    ReferenceKernel kernel = bestReferenceKernel();
};

/// One mesh's part of a rebuild: its final positions, UV0 (or empty) and triangle list; its outputs (outTangents
/// empty: no tangents; they need UVs: without, they are undefined, zero); and, optionally, its triangles' UV
/// differences (referenceUvDifferences of the same uvs and indices; empty: the face pass takes them from uvs).
struct ReferenceMeshIO {
    std::span<const glm::vec3> positions;
    std::span<const glm::vec2> uvs;
    std::span<const uint32_t> indices;
    std::span<glm::vec3> outNormals;
    std::span<glm::vec4> outTangents;
    std::span<const glm::vec4> uvDifferences;
};

/// The UV differences of a mesh's triangles, one row each: (uv[i1] - uv[i0], uv[i2] - uv[i0]) as x y, z w, for
/// triangles i0 i1 i2 of `indices` (every index below uvs.size()). They depend on nothing a pose changes, so a rig's
/// are computed once (MeshRuntime::uvDifferences) and every rebuild's SIMD face pass reads one 16-byte row a triangle
/// instead of three UVs by index and their differences: the same values (the same subtractions), so the same bits.
/// Sized to the triangle count; aligned rows.
void referenceUvDifferences(std::span<const glm::vec2> uvs, std::span<const uint32_t> indices,
                            AlignedVector<glm::vec4>& out);

/// The reference of every mesh of `topology` (one ReferenceMeshIO per mesh, in order), on parallelFor's threads:
/// by the topology's schedule where it has one, else rebuildFaces of every mesh then gatherFrames of every mesh.
/// Both give the same bits, whatever the thread count.
void rebuildReference(const ReferenceTopology& topology, std::span<const ReferenceMeshIO> meshes,
                      ReferenceScratch& scratch);

/// Face pass of mesh `mesh`: positions are its final positions, uvs its UV0 (or empty), indices its triangle list,
/// uvDifferences referenceUvDifferences(uvs, indices) or empty. Sizes the scratch to the topology's triangle count.
void rebuildFaces(const ReferenceTopology& topology, size_t mesh, std::span<const glm::vec3> positions,
                  std::span<const glm::vec2> uvs, std::span<const uint32_t> indices, ReferenceScratch& scratch,
                  std::span<const glm::vec4> uvDifferences = {});

/// Gather of mesh `mesh`, once rebuildFaces ran for every mesh (a group may take triangles of several meshes).
/// outNormals holds the mesh's vertex count; outTangents too, or is empty (no tangents). Tangents need UVs: with
/// hasUvs false they are undefined (zero).
void gatherFrames(const ReferenceTopology& topology, size_t mesh, bool hasUvs, const ReferenceScratch& scratch,
                  std::span<glm::vec3> outNormals, std::span<glm::vec4> outTangents);

/// The bind references of every mesh of `rig` (its topology from buildReferenceTopology).
std::vector<BindReference> rebuildBindReference(const Rig& rig, const ReferenceTopology& topology);

/// rebuildFaces + gatherFrames for a topology of one mesh (buildMeshTopology): the importer's generation of missing
/// normals and tangents, tools and tests.
void rebuildMeshFrames(const ReferenceTopology& topology, std::span<const glm::vec3> positions,
                       std::span<const glm::vec2> uvs, std::span<const uint32_t> indices, std::span<glm::vec3> outNormals,
                       std::span<glm::vec4> outTangents, ReferenceScratch& scratch);

} // namespace rig
