// Box selection of vertices (Shift+drag in the viewport): every vertex whose projection falls in a screen rectangle,
// either through the mesh or only those not hidden behind a triangle. Plain GLM over the CPU evaluation, no Qt, no GPU;
// the evaluator runs it on its thread (it loops over the vertices and triangles).
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "manipulator.h"
#include "rig/deform/deform.h"
#include "rig/model/model.h"

namespace viewer {

struct BoxSelectQuery {
    ScreenProjector view;  ///< the view the box was drawn in
    glm::vec2 corner0{0.0f}, corner1{0.0f}; ///< opposite corners of the box, window pixels (either order)
    /// True: every vertex in the box, hidden or not (Maya's default, Blender's X-ray). False: only the vertices that
    /// no triangle of the rig hides (within a tolerance of 0.5 % of their depth, so a vertex is never hidden by the
    /// triangles it belongs to).
    bool throughMesh = false;
};

/// Global indices (meshes concatenated), ascending, of the vertices of `method`'s surface in `eval` (of `rig`) inside the
/// box. Vertices with non-finite positions and those behind the camera are never selected. Visibility is decided on a
/// depth buffer of the box's pixels (at most 1024 × 1024 samples: a larger box is sampled more coarsely), rasterised
/// from every triangle whose corners are all in front of the camera.
std::vector<uint32_t> selectInBox(const rig::Rig& rig, const rig::Evaluation& eval, rig::Method method,
                                  const BoxSelectQuery& query);

/// A selection (ascending global indices) with a box's vertices (ascending) added, or taken out when `remove`.
std::vector<uint32_t> combineSelection(const std::vector<uint32_t>& current, const std::vector<uint32_t>& box, bool remove);

} // namespace viewer
