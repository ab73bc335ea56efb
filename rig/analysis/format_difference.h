// What an engine's runtime format does to a posed rig: each method's positions and normals under the format against
// the same method under the float reference (engine_profiles.h: kReferenceFormat), and which vertices' influences
// the format changes at all.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "rig/deform/deform.h"
#include "rig/deform/engine_profiles.h"

namespace rig {

/// Per vertex: outDistance[v] = |positions[v] − refPositions[v]| (scene units) and outNormalDeg[v] = the angle between
/// normals[v] and refNormals[v] (metrics.h: angularErrors; kUndefinedError where either is undefined). All spans hold
/// the same count. Allocates nothing.
void formatDifferences(std::span<const glm::vec3> refPositions, std::span<const glm::vec3> refNormals,
                       std::span<const glm::vec3> positions, std::span<const glm::vec3> normals,
                       std::span<float> outDistance, std::span<float> outNormalDeg);

/// The vertices whose influences differ between two streams of one mesh (built from it by buildRuntime with two
/// formats): a vertex differs when its weighted (joint, weight) pairs are not the same set with the same float
/// weights. The streams may have different slot counts.
size_t changedInfluenceVertices(const InfluenceStream& reference, const InfluenceStream& formatted);

/// The shape of a rig's vertex stream for bytesPerVertex: its largest skin, whether any mesh has tangents, and the
/// jacobian's gradient entries per vertex (from `runtime`).
VertexStreamShape vertexStreamShape(const Rig& rig, const RigRuntime& runtime);

struct FormatMethodDifference {
    Method method = Method::Linear;
    float maxPositionError = 0.0f;  ///< scene units
    float maxNormalErrorDeg = 0.0f; ///< over the vertices whose normals are defined under both
    size_t worstPositionVertex = 0; ///< global index (meshes concatenated)
    double bytesPerVertex = 0.0;    ///< engine_profiles.h: bytesPerVertex
};

struct FormatComparison {
    std::string profile; ///< EngineProfile::id
    RuntimeFormat format;
    size_t verticesChanged = 0; ///< changedInfluenceVertices over every mesh
    int indexBits = 8;          ///< engine_profiles.h: indexBits
    double linearBytesPerVertex = 0.0; ///< bytesPerVertex for Method::Linear, whether or not `methods` holds it
    std::vector<FormatMethodDifference> methods; ///< in the evaluations' method order
    float maxPositionError = 0.0f;  ///< over `methods`
    float maxNormalErrorDeg = 0.0f;
};

/// Compares `eval` (under `runtime`, built with `profile`'s format) with `referenceEval` (the same pose, settings and
/// methods under `reference`, built with kReferenceFormat). Both evaluations hold the same methods; Rebuilt, whose
/// directions are the reference of its positions, is compared like the others. Allocates per mesh.
FormatComparison compareFormat(const Rig& rig, const RigRuntime& reference, const Evaluation& referenceEval,
                               const EngineProfile& profile, const RigRuntime& runtime, const Evaluation& eval);

/// compareFormat for each of `profiles` at one pose: builds the reference runtime and each profile's, and evaluates
/// `methods` under each (seconds on a large rig: every build precomputes its centres of rotation).
std::vector<FormatComparison> compareFormats(const Rig& rig, const ResolvedPose& pose, std::span<const Method> methods,
                                             const DeformSettings& settings,
                                             std::span<const EngineProfile* const> profiles);

} // namespace rig
