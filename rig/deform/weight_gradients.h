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

    /// The same terms by blocks of 16 vertices (block b: vertices 16 b .. 16 b + 15), for the SIMD kernels, which run
    /// a planned block's terms with one vertex per lane: J's columns gain (M_j p) ∇w_j[c] for every joint j of the
    /// block at once, in the lanes of the vertices that list it. A block's slotEntries are the distinct joints of its
    /// vertices' lists, in order of first appearance (vertex by vertex, each list in order) within the three runs of
    /// blockHalves; a slot is its joint and the vertices that list it (bit q: vertex 16 b + q), and its gradients in
    /// slotGradients: the x of those vertices in vertex order, then their y, then their z. A block whose slotEntries
    /// would cost more than its terms one by one (see kMaxSlotsPerBlock and the rule in planGradientBlocks) is marked
    /// kUnplanned: the kernels read its vertices' lists. slotGradients has kSlotGradientPadding floats after the last
    /// slot's (a kernel may load a whole register from a slot's last floats).
    static constexpr uint32_t kUnplanned = 1u << 31;
    static constexpr size_t kMaxSlotsPerBlock = 16;
    static constexpr size_t kSlotGradientPadding = 16;
    std::vector<uint32_t> blockSlots; ///< blocks + 1: the block's first slot, | kUnplanned (the end: blockSlots[b + 1])
    std::vector<uint32_t> blockData;  ///< blocks + 1: the block's first float in slotGradients
    std::vector<uint32_t> slotEntries;      ///< joint | vertex mask << 16
    std::vector<float> slotGradients;
    /// blocks: a planned block's slots come in three runs — those of vertices 0..7 only, those of both halves, those
    /// of vertices 8..15 only (each run in order of first appearance) — so that a kernel of eight lanes (AVX2) runs
    /// each half's slots as one range with no slot to skip. Bits 0..7: the first slot of both halves, 8..15: the first
    /// of the high half only (both counted from blockSlots[b]); 16..31: the float of the first slot of both halves
    /// (counted from blockData[b]). 0 for an unplanned block.
    std::vector<uint32_t> blockHalves;
    /// The skinning weights in the slots' lanes, for the kernels that blend A = Σ w R inside the slot loop instead of
    /// per vertex beforehand (the AVX-512 jacobian): slot s's weights of its vertices, in the order of its gradients'
    /// x run, start at float f / 3 where f is the slot's first gradient float (every slot has three floats a vertex
    /// there, one here); a vertex's weight of the slot's joint is the sum of its influences on that joint (0 where
    /// only its neighbours are). kSlotGradientPadding floats follow the last. blockFolded[b] is 1 when every joint
    /// with a non-zero weight at a vertex of planned block b has a slot holding that vertex (a joint whose gradient
    /// is zero there has no term, so a rigidly bound vertex usually has none): only then may the block be folded.
    /// Both empty when the plan was made without the weights.
    std::vector<float> slotWeights;
    std::vector<uint8_t> blockFolded;
    /// How many blocks are kUnplanned (the kernel choice reads it: jobKernel).
    size_t unplannedBlocks = 0;

    WeightGradientsView view() const
    {
        return {offsets, joints, gradients, blockSlots, blockData, slotEntries, slotGradients, blockHalves, slotWeights,
                blockFolded, unplannedBlocks};
    }
};

/// Fills the block plan of `g` from its lists (vertexCount = g.offsets.size() - 1); with the runtime weight stream
/// (`perVertex` joints and weights a vertex) also slotWeights and blockFolded, which stay empty without it.
void planGradientBlocks(WeightGradients& g, std::span<const uint16_t> joints = {}, std::span<const float> weights = {},
                        int perVertex = 0);

/// positions: rest (bind-space) positions; joints/weights: the runtime stream with K per vertex.
WeightGradients buildWeightGradients(std::span<const glm::vec3> positions, std::span<const uint32_t> indices,
                                     std::span<const uint16_t> joints, std::span<const float> weights, int perVertex);

} // namespace rig
