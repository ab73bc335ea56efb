// Optimized centres of rotation (Le & Hodgins, "Real-time Skeletal Skinning with Optimized Centers of Rotation",
// SIGGRAPH 2016): the per-vertex data of Method::CenterOfRotation, precomputed once per mesh and influence setting
// from the bind pose and the runtime weights.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

#include <glm/glm.hpp>

namespace rig {

/// The σ of the weight similarity, as the paper uses it.
inline constexpr float kCenterOfRotationSigma = 0.1f;
/// A joint pair's list of triangles longer than this is summed by cells (below); shorter, triangle by triangle.
inline constexpr size_t kCenterOfRotationExactEntries = 4096;
/// The cells of a long list: its triangles merged by their two weights on a kCenterOfRotationCells² grid of
/// [0, 1]², each cell's weights and centroid the mass-weighted means of its triangles'. A cell spans 1/256 of a
/// weight: its similarity factor moves by under 0.8 σ⁻¹ / 256 ≈ 3 % across it, and its mean cancels the first order.
inline constexpr uint32_t kCenterOfRotationCells = 256;

/// Computes each vertex's centre of rotation p*:
///
///     p*_i = Σ_t s(w_i, w_t) a_t c_t / Σ_t s(w_i, w_t) a_t
///
/// over the mesh's triangles t (bind-pose area a_t, centroid c_t, weights w_t = the mean of its three vertices'
/// weight vectors), with the similarity of two weight vectors
///
///     s(w_p, w_v) = Σ_{j≠k} w_pj w_pk w_vj w_vk exp(−(w_pj w_vk − w_pk w_vj)² / σ²).
///
/// Only joint pairs that both vectors weight contribute, so each vertex visits only the triangles that weight two of
/// its own joints, from a list per joint pair built once; a list longer than kCenterOfRotationExactEntries is summed
/// by cells of similar weights (the approximation below), so a vertex's cost is bounded whatever the rig's bands. A
/// centre depends on the vertex only through its weight vector: vertices that share one share the sum, computed once.
/// A vertex with fewer than two non-zero weights, or whose sum is zero, gets its own bind position (any centre gives
/// the same rigid motion there; this one makes the method's position the linear blend's where no centre is
/// defined), and outDefined 0.
///
/// A stateless job: validate(), then run(). Inputs: a mesh's bind positions and triangle list and its runtime
/// influence stream (K slots a vertex, every weight >= 0, unused slots weight 0).
struct CenterOfRotationJob {
    std::span<const glm::vec3> positions;
    std::span<const uint32_t> indices;   ///< triangle list; a triangle with an index >= positions.size() is skipped
    int influencesPerVertex = 4;         ///< K
    std::span<const uint16_t> joints;    ///< positions.size() * K
    std::span<const float> weights;      ///< positions.size() * K
    float sigma = kCenterOfRotationSigma;
    size_t exactEntries = kCenterOfRotationExactEntries; ///< lists longer than this are summed by cells

    std::span<glm::vec3> outCenters;     ///< positions.size()
    std::span<uint8_t> outDefined;       ///< optional: 1 where the sum defined a centre

    const std::atomic<bool>* cancel = nullptr; ///< optional: when it turns true, run() stops and returns false
    std::atomic<size_t>* verticesDone = nullptr; ///< optional: gains positions.size() when the centres are written
    unsigned threads = 0;                ///< 0 = all cores

    bool validate() const;
    /// False when cancelled (the outputs are then incomplete).
    bool run() const;
};

} // namespace rig
