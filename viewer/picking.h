// Vertex picking against the CPU evaluation (the same positions the GPU draws, computed by the rig core).
#pragma once

#include <glm/glm.hpp>

#include "rig/deform/deform.h"

namespace viewer {

/// Returns the global index (meshes concatenated) of the vertex nearest to the ray in angle, within `maxAngleRad`
/// as seen from the ray origin; among vertices within the tolerance the one closest to the eye wins when their
/// angles are similar. -1 if none. Non-finite positions are skipped.
int pickVertex(const rig::Evaluation& eval, rig::Method method, const glm::vec3& origin, const glm::vec3& dir,
               float maxAngleRad);

} // namespace viewer
