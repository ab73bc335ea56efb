// Orientation aids the viewport draws as lines: the ground grid, the axes gizmo in a corner of each view, and the
// wireframe's edge list. Plain GLM, no Qt, no GPU; the viewport uploads what these describe.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "manipulator.h"
#include "rig/model/model.h"

namespace viewer {

/// A ground grid on the plane y = lo.y (the rig's lowest point; Y is up), centred under the box and covering its
/// footprint with a margin: square cells of a "nice" size (1, 2 or 5 × 10^k scene units) chosen so that at most 24
/// cells span the grid's side. Lines along x first, then along z. `centreLines` are the indices of the two lines through
/// the grid's centre (the one along x first), drawn brighter. Empty when the box is empty or not finite.
struct GroundGrid {
    std::vector<Segment> lines;
    float cell = 0.0f;      ///< cell size, scene units
    glm::vec3 centre{0.0f}; ///< on the plane
    int centreLines[2] = {-1, -1};
};
GroundGrid groundGrid(const glm::vec3& lo, const glm::vec3& hi);

/// The axes gizmo: the world X, Y and Z axes as seen by a camera whose view matrix is `view`, drawn in a square
/// sub-view in gizmo space, where (0, 0) is the sub-view's centre and ±1 its edges (x right, y up). One run of segments
/// per axis, X first: `first[k]` is the axis from the centre (length 0.7), followed by the strokes of its letter beside
/// the tip ("X" 2, "Y" 3, "Z" 3); `count[k]` counts the run. An axis pointing at or away from the viewer shrinks to its
/// projection, as in Maya.
struct AxesGizmo {
    std::vector<Segment> segments; ///< z = 0
    int first[3] = {0, 0, 0};
    int count[3] = {0, 0, 0};
};
AxesGizmo axesGizmo(const glm::mat4& view);

/// The unique edges of the rig's triangles as pairs of global vertex indices (meshes concatenated), each pair
/// (smaller, larger), sorted; triangles with an index out of range are skipped. Loops over every triangle: run it off the GUI thread.
std::vector<uint32_t> uniqueEdges(const rig::Rig& rig);

/// The 12 edges of the box [lo, hi] as segments (origin, direction): 4 along x, then 4 along y, then 4 along z.
std::vector<Segment> boxEdges(const glm::vec3& lo, const glm::vec3& hi);

} // namespace viewer
