// Morph targets, applied in bind space before skinning.
#pragma once

#include <cstddef>
#include <span>

#include <glm/glm.hpp>

#include "rig/model/model.h"

namespace rig {

/// p = p0 + Σ_k w_k ΔP_k (and likewise the normal and tangent xyz when withNormalDeltas; tangent w is kept).
/// Targets whose weight is 0 are skipped. Outputs are not normalised (skinning normalises).
/// Every span holds vertexCount elements except tangents/outTangents, which may both be empty.
/// run(first, last) does vertices [first, last) only (disjoint ranges may run on different threads): per vertex the
/// same operations in the same order (the targets in order), so any split gives the bits of one whole run.
struct MorphJob {
    std::span<const glm::vec3> positions;
    std::span<const glm::vec3> normals;
    std::span<const glm::vec4> tangents;
    std::span<const MorphTarget> targets;
    std::span<const float> weights; ///< one per target
    bool withNormalDeltas = true;

    std::span<glm::vec3> outPositions;
    std::span<glm::vec3> outNormals;
    std::span<glm::vec4> outTangents;

    bool validate() const;
    void run() const { run(0, positions.size()); }
    void run(size_t first, size_t last) const;
};

} // namespace rig
