// Weight-band diagnosis on the raw, authored weights at the bind pose: hard boundaries where a joint's weight flips
// within one edge, influences from joints far apart in the hierarchy (the stray vertex between two limbs), and
// left/right asymmetry between mirrored joints. Each weight is the vertex's usable raw weight (finite, > 0, joint in
// range) divided by their sum, as a runtime normalises them; a vertex with none takes no part.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rig/model/model.h"

namespace rig {

struct WeightBandSettings {
    /// An edge is a hard boundary when some joint's weight changes by at least this much across it: at 0.5 half the
    /// vertex's weight moves from one joint to another within one edge, where a painted band takes several rings.
    float hardBoundaryDelta = 0.5f;
    /// Joints this many bones apart or closer in the hierarchy count as adjacent (1: parent and child; 2: siblings
    /// and grandparents too). An influence pair further apart is reported.
    int adjacentDistance = 2;
    /// Weights below this take no part in the adjacency check (a trace left by a smoothing brush is not an influence).
    float minInfluence = 0.01f;
    /// Mirrored vertices whose weights differ by more than this (on some joint and its mirror) are asymmetric.
    float symmetryTolerance = 0.05f;
    /// How far from the exact mirrored position a partner vertex may be, as a fraction of the rig's bind-pose
    /// bounding-box diagonal.
    float mirrorDistance = 1e-3f;
};

/// Vertices or edges found by one check, grouped by the two joints involved (node indices, a < b).
struct JointPairCount {
    int nodeA = -1, nodeB = -1;
    size_t count = 0;
    std::vector<uint32_t> vertices; ///< global indices of the vertices found (an edge's two ends), ascending, each once
};

struct WeightBands {
    /// Edges (each once per mesh) across which a joint's weight changes by ≥ hardBoundaryDelta; pairs: the joint that
    /// loses the most across the edge and the one that gains the most. maxDelta: the largest change over all edges.
    size_t hardBoundaryEdges = 0;
    float maxDelta = 0.0f;
    std::vector<JointPairCount> hardBoundaryPairs;
    std::vector<uint32_t> hardBoundaryVertices; ///< global indices of the edges' ends, ascending, each once
    std::vector<uint32_t> hardBoundaryEdgeList; ///< the edges themselves, global vertex pairs (a < b), two per edge
    /// Vertices with two influences (≥ minInfluence) more than adjacentDistance bones apart; pairs: the two joints.
    size_t nonAdjacentVertices = 0;
    std::vector<JointPairCount> nonAdjacentPairs;
    std::vector<uint32_t> nonAdjacentList;
    /// Mirror symmetry: the joints paired by name (mirroredJointName) and the plane between them (the principal axis
    /// along which the pairs' bind positions differ; `mirrorAxis` 0, 1, 2 for x, y, z, -1 when no pair was found),
    /// and the vertices whose mirrored partner's weights differ by more than symmetryTolerance; pairs: the joint and its
    /// mirror (the left / right one first as named). unmatchedVertices: vertices with no partner within mirrorDistance.
    int mirrorAxis = -1;
    float mirrorOffset = 0.0f;
    std::vector<std::pair<int, int>> mirroredJoints;
    size_t asymmetricVertices = 0;
    size_t unmatchedVertices = 0;
    float maxAsymmetry = 0.0f;
    std::vector<JointPairCount> asymmetricPairs;
    std::vector<uint32_t> asymmetricList;
};

/// The other side's name of a joint named with a left/right marker, or "" when it has none: "Left"/"Right" (also in
/// camel case: "b_LeftUpperArm"), "left"/"right", "LEFT"/"RIGHT", or "L"/"R", "l"/"r" as a word of its own (at either
/// end or between '_', '.', '-', ' ' or ':': "arm_L", "thigh.l", "Bip01 L Thigh") or an upper-case "L"/"R" ending a
/// camel-case name ("UpperArmL"). The symmetry check also pairs names that differ only in a trailing "_<digits>".
std::string mirroredJointName(std::string_view name);

/// The three checks over the rig's skinned meshes (Qt-free; allocates per rig, not per pose).
WeightBands diagnoseWeightBands(const Rig& rig, const WeightBandSettings& settings = {});

} // namespace rig
