// What dual quaternions do to the positions linear blending gives: per vertex the distance between the two, in scene
// units and as a fraction of the local limb radius — large where linear blending collapses a twisted band (the candy
// wrapper: at 180° the 0.5 / 0.5 ring's whole radius) and where dual quaternions bulge a bent joint.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

namespace rig {

struct Rig;
struct RigRuntime;
struct Evaluation;

/// The local limb radius of each vertex of a skinned mesh: the bind-space distance from the vertex to the bone of its
/// largest runtime weight — the segment from that joint's bind position to the nearest of its child joints' in the
/// same skin (to the joint itself where it has none). `joints` are the runtime stream's (K a vertex, slot 0 the
/// largest, palette indices); an index past the skin (the identity entry of an unbound vertex) gives 0. `bindPositions`
/// is the skin's joints' bind positions (the translation of each inverse bind matrix's inverse), `parents` each skin
/// joint's parent's skin index (-1: none in the skin).
void limbRadii(std::span<const glm::vec3> positions, std::span<const uint16_t> joints, int perVertex,
               std::span<const glm::vec3> bindPositions, std::span<const int> parents, std::span<float> out);

/// The skin joints' bind positions and parents within the skin, as limbRadii reads them.
void skinBones(const Rig& rig, int skin, std::vector<glm::vec3>& bindPositions, std::vector<int>& parents);

/// A limb radius below this fraction of the mesh's largest counts as none: the fraction is then undefined.
inline constexpr float kMinLimbRadiusFraction = 1e-3f;

struct DqDisplacement {
    std::vector<std::vector<float>> distance; ///< per mesh, per vertex: |dual-quaternion − linear| in scene units
    std::vector<std::vector<float>> fraction; ///< the same over the vertex's limb radius; -1 where undefined
    float maxDistance = 0.0f;
    float maxFraction = 0.0f;
    int worstMesh = -1;      ///< of the largest fraction (-1: none defined)
    size_t worstVertex = 0;
};

/// From an evaluation that holds both surfaces (Method::DualQuaternion evaluated) and the runtime's limb radii
/// (MeshRuntime::limbRadius). An evaluation without the dual-quaternion surface gives empty arrays.
DqDisplacement measureDqDisplacement(const Rig& rig, const RigRuntime& runtime, const Evaluation& eval);

} // namespace rig
