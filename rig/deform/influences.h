// The runtime influence stream: derived from a mesh's raw influences, never written back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rig/model/model.h"

namespace rig {

/// The K largest valid influences of every vertex, normalised to sum to one — exactly 1.0f when added in slot order, as
/// the skinning kernels blend — K = 4 or 8.
///
/// A raw influence is valid when its weight is finite and > 0 and its joint is < jointCount. Ties keep authored
/// order. Unused slots hold (joint 0, weight 0). A vertex with no valid influence ("unbound") gets one influence on
/// the extra palette entry `jointCount` (the identity: it stays at its bind position) — the audit reports it.
/// An unskinned mesh gets one influence on palette entry 0 (its node's world matrix) for every vertex.
struct InfluenceStream {
    int perVertex = 4;             ///< K
    uint32_t paletteSize = 0;      ///< entries the palette must hold: jointCount + 1 (the identity) for skinned meshes, 1 otherwise
    std::vector<uint16_t> joints;  ///< vertexCount * K
    std::vector<float> weights;    ///< vertexCount * K
    size_t unboundVertices = 0;    ///< vertices with no valid influence
    size_t truncatedVertices = 0;  ///< vertices that had more than K valid influences
};

/// Makes count weights (> 0, largest first, summing to about 1) add to exactly 1.0f in slot order — the order every
/// skinning kernel blends in — by giving the last the rounding residue (or, where that would not stay positive,
/// moving the first by ulps).
void sumToOneInSlotOrder(float* w, size_t count);

/// Builds the stream for `mesh`, whose skin has `jointCount` joints (ignored for unskinned meshes).
/// perVertex must be 4 or 8; jointCount must be < 65535.
InfluenceStream buildInfluenceStream(const Mesh& mesh, size_t jointCount, int perVertex);

} // namespace rig
