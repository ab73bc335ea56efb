// Candy-wrapper diagnosis: how much linear blending shrinks each vertex's neighbourhood in the current pose.
//
// Per vertex, A = Σ w_i R_i is the blend of the upper 3×3 of its joints' skin matrices (the runtime's top-K weights,
// the linear method's own blend) and s = Σ w_i |det R_i|^(1/3) the blend of those joints' own uniform scales (1 for
// rigid joints, 0.01 for a centimetre rig's scaled bones).
//   scale  = σ_min(A) / s: 1 where the joints agree or the vertex follows one joint; cos(θ/2) for a 0.5/0.5 vertex
//            between two rigid joints turned θ apart about any axis; 0 at the 180° candy wrapper.
//   volume = det(A) / s³: the volume ratio of linear blending (negative: the neighbourhood is turned inside out).
// Both are kUndefinedScale / 0 where s is 0 or not finite (a singular or broken joint).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "rig/deform/joint_frames.h"

namespace rig {

struct Rig;
struct RigRuntime;
struct Evaluation;
struct InfluenceStream;

inline constexpr float kUndefinedScale = -1.0f;

/// The smallest singular value of a, in double precision (the eigenvalues of aᵀa in closed form); ≥ 0.
double smallestSingularValue(const glm::dmat3& a);
/// The smallest and largest singular values of a (0 for a zero or non-finite matrix).
void extremeSingularValues(const glm::dmat3& a, double& smallest, double& largest);

/// Fills outScale[v] and outVolume[v] for v in [first, last) (the definitions above). joints and weights: K per
/// vertex (InfluenceStream), indices into palette. All spans of one mesh; no allocation.
struct BlendScaleJob {
    int perVertex = 4;
    std::span<const uint16_t> joints;
    std::span<const float> weights;
    std::span<const JointFrame> palette;
    std::span<float> outScale;
    std::span<float> outVolume;
    /// Optional (empty: not written): σ_min(A) / σ_max(A), 1 for a rotation or a uniform scale, below where the blend
    /// scales or shears unevenly; kUndefinedScale where undefined.
    std::span<float> outIsotropy;
    /// The same measures of dual-quaternion skinning's 3×3 instead: the rigid part of the blended dual quaternion
    /// times A = Σ w_i S_i, the blend of the joints' stretches (R_i = Q_i S_i); σ_min(Q A) = σ_min(A). 1 for rigid
    /// joints however they turn; linear blending's A where a joint of the vertex is mirrored or singular.
    bool dualQuaternion = false;

    bool validate() const;
    void run(size_t first, size_t last) const;
};

/// The slots of vertex v's two largest weights in `stream` (both above 0; ties: the earlier slot); a slot with none is
/// left at stream.perVertex. The band a vertex belongs to, for every diagnosis that names one.
void twoLargestWeights(const InfluenceStream& stream, size_t v, size_t& first, size_t& second);

/// The joints a band blends: the two largest weights of each vertex.
struct BlendBand {
    int nodeA = -1, nodeB = -1;   ///< node indices; nodeB is the one further from the root (the one that turns)
    size_t vertices = 0;          ///< vertices whose two largest weights are on these joints, both > 0
    float worstScale = 1.0f;
    size_t worstMesh = 0, worstVertex = 0;
    size_t below09 = 0, below07 = 0; ///< vertices of the band whose scale is below 0.9 / 0.7
    std::vector<uint32_t> vertexList; ///< the band's vertices, global (meshes concatenated), ascending
};

/// The whole rig's candy-wrapper state in one pose.
struct CandyWrapper {
    std::vector<std::vector<float>> scale, volume; ///< per mesh, per vertex
    std::vector<std::vector<float>> isotropy;      ///< per mesh, per vertex: BlendScaleJob::outIsotropy
    float minScale = 1.0f;                       ///< over every defined vertex (1 for a rig with no blend)
    int worstMesh = -1;                          ///< -1: no vertex with a defined scale
    size_t worstVertex = 0;
    int worstNodeA = -1, worstNodeB = -1;        ///< the worst vertex's two largest-weight joints (-1: one joint)
    size_t below09 = 0, below07 = 0;
    size_t undefined = 0;
    std::vector<BlendBand> bands;                ///< worst scale first, then by node indices
};

/// Measures `eval` (its palettes) of `rig` with `runtime`'s influence streams. Parallel over vertices.
CandyWrapper measureCandyWrapper(const Rig& rig, const RigRuntime& runtime, const Evaluation& eval, unsigned threads = 0);

} // namespace rig
