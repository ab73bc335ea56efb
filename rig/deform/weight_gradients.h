// Per-vertex weight gradients for the jacobian method, estimated on the rest mesh.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "rig/deform/skinning.h"

namespace rig {

/// On a triangle (p0,p1,p2) with area a and unit normal n̂, ∇w = (1/2a) Σ_i w_i (n̂ × e_i), e_i the edge opposite
/// vertex i, counter-clockwise. A vertex's gradient of joint j is the area-weighted mean over its triangles, for
/// every joint that has a non-zero weight at any vertex of those triangles. Zero-area triangles are skipped.
struct WeightGradients {
    std::vector<uint32_t> offsets; ///< vertexCount + 1
    std::vector<uint16_t> joints;
    std::vector<glm::vec3> gradients;

    WeightGradientsView view() const { return {offsets, joints, gradients}; }
};

/// positions: rest (bind-space) positions; joints/weights: the runtime stream with K per vertex.
WeightGradients buildWeightGradients(std::span<const glm::vec3> positions, std::span<const uint32_t> indices,
                                     std::span<const uint16_t> joints, std::span<const float> weights, int perVertex);

} // namespace rig
