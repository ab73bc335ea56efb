// Skinning error against the reference carried from the bind pose, which separates what skinning gets wrong from what
// authoring already differs by (custom or weighted normals, other smoothing).
//
// Definition (README "The reference"): per vertex, let F_b be an orthonormal frame (t, n × t, n) of the surface at the
// bind pose and F_p the same frame at the current pose, n the rebuilt normal. R = F_p F_bᵀ is the rotation that takes
// one to the other; R · (authored direction) is what a perfect deformation of the authored direction would give. The
// skinning error is the angle between the method's direction and R · authored.
// t is the rebuilt UV tangent where it is defined at both poses. Elsewhere (no UVs, degenerate UVs) it is the vertex's
// carrier edge (buildCarryEdges: an incident edge chosen at the bind pose) projected onto the normal's plane, at the
// bind pose and now: under any rigid motion (or uniform scale) of the vertex's neighbourhood the edge turns with the
// surface, twist about the normal included, so R is that motion's rotation and the error of an exact method is 0. The
// minimal rotation from the bind to the posed normal is the last resort (no usable edge): it drops the twist about the
// normal, so applied to an authored direction that is not the rebuilt normal it is wrong by that twist.
// At the bind pose R is the identity, so every skinning method's skinning error is 0 whatever the authoring; where
// the authored directions equal the rebuilt ones (the analytic rigs), it equals the plain error.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

namespace rig {

/// Per vertex of one mesh, the edge whose direction in the surface carries its frame where the UV tangent is undefined.
struct CarryEdges {
    static constexpr uint32_t kNone = 0xFFFFFFFFu;
    std::vector<uint32_t> partner;        ///< the edge's far end (a vertex of the same mesh), kNone where none
    std::vector<glm::vec3> bindTangents;  ///< carrierTangent at the bind pose; zero with kNone
};

/// Chooses each vertex's carrier edge over `indices` (triangles, every index below positions.size()) at the bind pose:
/// the first incident edge, in index order (each triangle's next corner, then its previous one), at least 30° off the
/// bind normal; failing that the one furthest from it, if any leaves the normal's line at all. kNone where the bind
/// normal (bindNormals: the reference rebuilt at the bind pose) is undefined or every incident edge is degenerate.
CarryEdges buildCarryEdges(std::span<const glm::vec3> positions, std::span<const uint32_t> indices,
                           std::span<const glm::vec3> bindNormals);

/// The unit direction of the edge from `from` to `to` projected onto the plane of unit normal n; zero where the edge
/// is degenerate, not finite, or within about 0.06° of n (its projection under 1e-3 of its length).
glm::vec3 carrierTangent(const glm::vec3& from, const glm::vec3& to, const glm::vec3& n);

/// The carried reference of one surface: per vertex R · safeNormalize(authored), the zero vector where R is undefined
/// (either rebuilt normal undefined). The skinning error of a method is then its angle to these (angularErrors), so
/// that the rotations are built once per surface, not once per method. All spans of one mesh's vertex count; the
/// tangent spans are empty when the mesh has none (outTangents then stays empty).
struct CarryJob {
    std::span<const glm::vec3> authoredNormals; ///< the file's bind-space normals (before morphing)
    std::span<const glm::vec4> authoredTangents;
    std::span<const glm::vec3> bindNormals;     ///< the reference rebuilt at the bind pose
    std::span<const glm::vec4> bindTangents;
    std::span<const glm::vec3> posedNormals;    ///< the reference rebuilt at the current pose (these positions)
    std::span<const glm::vec4> posedTangents;
    /// The carrier edges of the mesh (buildCarryEdges), and the positions the posed reference was rebuilt from. Empty:
    /// no edge frames (the minimal rotation where the UV frames are undefined).
    std::span<const uint32_t> edgePartners;
    std::span<const glm::vec3> bindEdgeTangents;
    std::span<const glm::vec3> posedPositions;
    std::span<glm::vec3> outNormals;
    std::span<glm::vec3> outTangents;           ///< empty: no tangents carried

    void run(size_t first, size_t last) const;
};

} // namespace rig
