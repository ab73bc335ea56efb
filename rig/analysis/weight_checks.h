// The raw weight checks: what a vertex's authored influences are, with the Khronos glTF validator's float32 tolerance
// for "not normalised" and the way a runtime uses them for the counts. Always on the raw data, never the runtime
// stream. The audit's weight findings and the report's "weights" object both come from here.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "rig/model/model.h"

namespace rig {

/// The facts of one vertex's raw influences against a skin of `jointCount` joints.
struct VertexWeightFacts {
    uint32_t usable = 0;      ///< entries a runtime uses: finite, > 0, joint in range (a repeated joint counts each time)
    bool nonFinite = false;   ///< a NaN or infinite weight
    bool negative = false;    ///< a weight < 0
    bool outOfRange = false;  ///< a joint index >= jointCount
    bool duplicate = false;   ///< a joint listed twice with non-zero weights (the validator's JOINTS_INDEX_DUPLICATE)
    double sum = 0.0;         ///< sum of the finite in-range weights, in double
    /// Σw as the glTF validator forms it: the finite, non-zero weights of in-range joints added in float32 in the
    /// stored order, and its tolerance, 2e-7 per weight added. nonNormalized = |sum32 − 1| > tolerance. (The validator
    /// leaves repeated joints and negative weights out of its sum and reports them on their own; here they count, as a
    /// runtime multiplies them: a vertex that lists the same joint twice at full weight moves twice as far.)
    float sum32 = 0.0f;
    double tolerance = 0.0;
    bool nonNormalized = false;
};

/// The facts of `influences` (one vertex's raw entries) against a skin of `jointCount` joints. Allocates nothing.
VertexWeightFacts vertexWeightFacts(std::span<const Influence> influences, size_t jointCount);

/// Vertices that fail one check: global indices (meshes concatenated in file order), ascending.
struct WeightCheck {
    size_t count = 0;
    std::vector<uint32_t> vertices;
    void hit(uint32_t v)
    {
        ++count;
        vertices.push_back(v);
    }
};

/// The raw weight checks of a rig's skinned meshes (unskinned meshes take no part).
struct WeightChecks {
    WeightCheck nonNormalized;        ///< |Σw − 1| beyond the validator's float32 tolerance (VertexWeightFacts)
    WeightCheck over4;                ///< more than 4 usable influences
    WeightCheck over8;                ///< more than 8
    WeightCheck negativeOrNan;        ///< a negative, NaN or infinite weight
    WeightCheck duplicateJoints;      ///< a joint listed twice
    WeightCheck zeroWeightInfluences; ///< a joint index other than 0 with weight 0 (glTF files only: Mesh::zeroWeightJointVertices)
    WeightCheck noInfluence;          ///< no usable influence at all (stays at its bind position)
    size_t maxInfluences = 0;         ///< most usable influences on one vertex
    /// Per node: how many vertices it influences (a usable weight through any skin that names it).
    std::vector<uint32_t> nodeVertexCounts;
    /// Nodes that some skin names as a joint but that influence no vertex, in node order.
    std::vector<int> unusedJoints;
};

WeightChecks checkWeights(const Rig& rig);

} // namespace rig
