// The whole CPU pipeline for one pose: pose → joint matrices → morph → skin with each method → rebuilt reference →
// angular errors → statistics. Built in two stages, as ozz does: buildRuntime() derives the compact read-only data of a
// rig once; evaluate() runs per pose and reuses the Evaluation's buffers.
#pragma once

#include <array>
#include <atomic>
#include <span>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

#include "rig/deform/bounds.h"
#include "rig/deform/influences.h"
#include "rig/deform/joint_frames.h"
#include "rig/deform/runtime_format.h"
#include "rig/analysis/baseline.h"
#include "rig/analysis/carried.h"
#include "rig/analysis/metrics.h"
#include "rig/model/model.h"
#include "rig/model/pose.h"
#include "rig/analysis/reference/reference.h"
#include "rig/deform/skinning.h"
#include "rig/deform/weight_gradients.h"

namespace rig {

/// Derived, read-only data of one mesh.
struct MeshRuntime {
    InfluenceStream stream;
    WeightGradients gradients;
    /// The triangles' UV differences (referenceUvDifferences; empty without UVs), read by every reference rebuild.
    AlignedVector<glm::vec4> uvDifferences;
    /// Each vertex's carrier edge at the bind pose (carried.h), for the skinning error where the UV tangent is undefined.
    CarryEdges carryEdges;
    /// Each vertex's centre of rotation for Method::CenterOfRotation (centers_of_rotation.h), from the bind positions
    /// and `stream`; centerDefined[v] is 0 where the vertex has no centre (its own position is used).
    std::vector<glm::vec3> centers;
    std::vector<uint8_t> centerDefined;
    /// Each vertex's local limb radius (analysis/diagnosis/dq_displacement.h: limbRadii), from the bind positions and
    /// `stream`; 0 for unskinned meshes and unbound vertices.
    std::vector<float> limbRadius;
};

struct RigRuntime {
    int influencesPerVertex = 4; ///< the kernels' slots per vertex: 4, or 8 when format.influences is 8
    RuntimeFormat format;        ///< what the streams hold (runtime_format.h): the influences kept and their encoding
    std::vector<MeshRuntime> meshes;
    ReferenceTopology reference;     ///< smoothing groups and adjacency over all meshes (reference.h)
    std::vector<BindReference> bind; ///< per mesh: the reference rebuilt at the bind pose
    Baseline baseline;               ///< the authored directions against `bind` (baseline.h)
    /// Per mesh, each palette entry's bind-space box of the vertices it influences, widened by the morph deltas
    /// (bounds.h: buildJointBoxes, from the mesh's stream): what perBoneBounds() transforms.
    std::vector<std::vector<Bounds>> jointBoxes;
};

/// What a long buildRuntime reports and obeys (the centres of rotation are its one step that is more than linear in
/// the vertex count): `centersDone` grows to the rig's vertex count as their precompute goes; once `cancel` turns
/// true the build returns early with the centres incomplete (the caller that set it drops the result).
struct RuntimeBuildControl {
    const std::atomic<bool>* cancel = nullptr;
    std::atomic<size_t>* centersDone = nullptr;
};

/// Builds the runtime data for an engine's format (runtime_format.h: `format` must validate): the streams keep
/// format.influences per vertex in 4 slots (8 when it is 8), encoded and decoded as the format does, and everything
/// derived from the weights (gradients, centres of rotation, limb radii) is derived from those; then asks for huge
/// pages under the large arrays that every evaluation streams through, the rig's own included (adviseHugePages).
RigRuntime buildRuntime(const Rig& rig, const RuntimeFormat& format, const RuntimeBuildControl& control = {});
/// Float weights, K = 4 or 8 influences per vertex.
RigRuntime buildRuntime(const Rig& rig, int influencesPerVertex, const RuntimeBuildControl& control = {});

/// Asks the kernel to back the large per-vertex arrays of `rig`'s meshes (bind attributes, indices) and of `rt`
/// (influence streams, weight gradients, reference topology) with 2 MB pages (platform/huge_pages.h): a hint that
/// changes no value. buildRuntime does it; call it again after replacing the rig's arrays in place.
void adviseHugePages(const Rig& rig, const RigRuntime& rt);

struct DeformSettings {
    bool morphNormals = true; ///< add morph targets' normal/tangent deltas (off: positions only)
    unsigned threads = 0;     ///< 0 = all cores
};

/// Final positions and their rebuilt reference frames.
struct Surface {
    std::vector<glm::vec3> positions;
    std::vector<glm::vec3> referenceNormals;
    std::vector<glm::vec4> referenceTangents; ///< empty when the mesh has no tangents
    /// The reference carried from the bind pose (carried.h): R · authored, zero where undefined.
    std::vector<glm::vec3> carriedNormals;
    std::vector<glm::vec3> carriedTangents;   ///< empty when the mesh has no tangents
};

/// One method's directions and their error against the reference of its own positions.
struct MethodFrames {
    std::vector<glm::vec3> normals;
    std::vector<glm::vec4> tangents;
    std::vector<float> normalErrorDeg;  ///< kUndefinedError where undefined
    std::vector<float> tangentErrorDeg; ///< kUndefinedError where undefined (or no tangents)
    /// Against the reference carried from the bind pose (carried.h): what skinning gets wrong, authoring aside.
    std::vector<float> skinningNormalErrorDeg;
    std::vector<float> skinningTangentErrorDeg;
    std::vector<uint8_t> flags;         ///< SkinFlag
};

struct MeshEvaluation {
    std::vector<glm::vec3> morphedPositions;
    std::vector<glm::vec3> morphedNormals;
    std::vector<glm::vec4> morphedTangents;
    std::vector<JointFrame> palette;
    std::vector<glm::mat4> paletteMatrices; ///< scratch: the matrices palette is built from
    Surface linear;           ///< linear-blend positions (every method but those with ownPositions())
    Surface dualQuaternion;   ///< filled when Method::DualQuaternion is evaluated
    Surface centerOfRotation; ///< filled when Method::CenterOfRotation is evaluated
    std::array<MethodFrames, kMethodCount> methods;

    const Surface& surfaceOf(Method m) const
    {
        return m == Method::DualQuaternion ? dualQuaternion : m == Method::CenterOfRotation ? centerOfRotation : linear;
    }
    Surface& surfaceOf(Method m) { return const_cast<Surface&>(std::as_const(*this).surfaceOf(m)); }

};

struct MethodStats {
    ErrorStats normal;
    ErrorStats tangent;
    ErrorStats skinningNormal;  ///< against the reference carried from the bind pose
    ErrorStats skinningTangent;
    /// Vertices whose tangent handedness (w) disagrees with the reference's at this pose (both defined).
    size_t handednessMismatches = 0;
    size_t dqFallbackVertices = 0;
    size_t singularVertices = 0;
};

struct Evaluation {
    std::vector<Method> methods;
    std::vector<glm::mat4> world;   ///< per node
    std::vector<uint8_t> atBind;    ///< per node: a joint exactly at its bind pose (evaluateWorld)
    std::vector<MeshEvaluation> meshes;
    std::array<MethodStats, kMethodCount> stats;
    std::vector<int> mirroredJoints; ///< node indices whose skin matrix has det < 0 in this pose
    std::vector<int> singularJoints; ///< node indices whose skin matrix is singular in this pose

    bool has(Method m) const;

    // Scratch reused by evaluate().
    std::vector<std::vector<glm::mat4>> skinPalettes;
    std::vector<float> statsScratch;
    std::vector<float> statsSorted;
    ReferenceScratch referenceScratch;
};

/// Evaluates `methods` (Rebuilt included or not; the reference is always computed) for the pose.
/// `out` keeps its buffers: repeated calls with the same rig allocate nothing proportional to the vertex count.
void evaluate(const Rig& rig, const RigRuntime& runtime, const ResolvedPose& pose, std::span<const Method> methods,
              const DeformSettings& settings, Evaluation& out);

/// Adds the joints of mesh `mesh` (of `rig`) whose frames in `palette` (the mesh's palette, in its skin's joint order)
/// are mirrored or singular to out.mirroredJoints / out.singularJoints, as node indices, each once. evaluate() and the
/// GPU evaluation both collect them with it; an unskinned mesh adds none.
void collectFlaggedJoints(const Rig& rig, size_t mesh, std::span<const JointFrame> palette, Evaluation& out);

/// The box of the positions method m draws in `eval` (its surface: linear for every method but rig::ownPositions()),
/// over every mesh; non-finite positions left out.
Bounds surfaceBounds(const Evaluation& eval, Method m);
/// The per-bone box of `eval`'s pose (bounds.h), with the evaluation's skin palettes where it holds them.
Bounds perBoneBounds(const Rig& rig, const RigRuntime& runtime, const Evaluation& eval);

/// Fills out.stats from the per-vertex errors and flags of out.methods over all meshes (evaluate() calls it; so does
/// the GPU readback, so that both report the same statistics the same way).
void computeStatistics(Evaluation& out);

} // namespace rig
