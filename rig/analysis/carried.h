// Skinning error against the reference carried from the bind pose, which separates what skinning gets wrong from what
// authoring already differs by (custom or weighted normals, other smoothing).
//
// Definition (README "The reference"): per vertex, let F_b be the orthonormal frame (t, n × t, n) of the reference
// rebuilt at the bind pose and F_p the same frame of the reference rebuilt at the current pose. R = F_p F_bᵀ is the
// rotation that takes one to the other; R · (authored direction) is what a perfect deformation of the authored
// direction would give. When either rebuilt tangent is undefined (no UVs, degenerate UVs), R is the minimal rotation
// from the bind to the posed rebuilt normal (180° about an axis perpendicular to it when they are opposite). The
// skinning error is the angle between the method's direction and R · authored.
// At the bind pose R is the identity, so every skinning method's skinning error is 0 whatever the authoring; where
// the authored directions equal the rebuilt ones (the analytic rigs), it equals the plain error.
#pragma once

#include <span>

#include <glm/glm.hpp>

namespace rig {

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
    std::span<glm::vec3> outNormals;
    std::span<glm::vec3> outTangents;           ///< empty: no tangents carried

    void run(size_t first, size_t last) const;
};

} // namespace rig
