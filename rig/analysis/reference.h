// The `rebuilt` reference: normals and UV tangents rebuilt from final triangles.
//
// Definition (documented in the README):
// - face normal c = (p1 - p0) × (p2 - p0) (its length is twice the area, so summing c is area weighting);
// - a vertex's normal is the normalised sum of c over the triangles of its smoothing group. A smoothing group is the set
//   of vertices at bit-identical bind positions whose rest normals agree within kHardEdgeDegrees: vertices split only by
//   UV seams share one; authored hard edges (split vertices with different rest normals) stay hard;
// - the face UV tangent T = (e1·dv2 - e2·dv1)/det and bitangent B = (e2·du1 - e1·du2)/det are summed per vertex
//   (not welded) weighted by |c|; faces with |det| <= kMinUvDet contribute nothing to tangents;
// - T is made perpendicular to the normal (Gram-Schmidt); handedness w = sign(dot(n × t, B)), +1 when that is 0;
// - zero-area triangles contribute nothing; a vertex left with a zero sum is undefined: its output is the zero vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

namespace rig {

inline constexpr float kHardEdgeDegrees = 1.0f;
inline constexpr float kMinUvDet = 1e-12f;

/// Returns, for every vertex, the index of the first vertex of its smoothing group (a vertex is its own
/// representative when it shares its group with nobody). `normals` may be empty: then position alone groups.
/// positions and (if non-empty) normals must hold the same count.
std::vector<uint32_t> buildSmoothingGroups(std::span<const glm::vec3> positions, std::span<const glm::vec3> normals);

/// Caller-owned scratch for rebuildFrames, so that repeated calls allocate nothing once sized.
struct RebuildScratch {
    std::vector<glm::vec3> normalSums;
    std::vector<glm::vec3> tangentSums;
    std::vector<glm::vec3> bitangentSums;
};

/// Rebuilds the reference frames of one mesh.
/// positions: final positions (vertexCount); uvs: UV0 (vertexCount) or empty; indices: triangle list whose every
/// index is < vertexCount; groups: from buildSmoothingGroups (vertexCount).
/// outNormals must hold vertexCount elements; outTangents vertexCount elements, or be empty (then no tangents).
/// With no UVs, every tangent is undefined (zero).
void rebuildFrames(std::span<const glm::vec3> positions, std::span<const glm::vec2> uvs, std::span<const uint32_t> indices,
                   std::span<const uint32_t> groups, std::span<glm::vec3> outNormals, std::span<glm::vec4> outTangents,
                   RebuildScratch& scratch);

} // namespace rig
