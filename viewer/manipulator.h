// Screen-space math of the viewport's handles: the rotate manipulator's three rings on the selected joint, and bone
// picking. Plain GLM, no Qt, no GPU: the viewport draws what these describe and feeds them the mouse.
#pragma once

#include <array>
#include <vector>

#include <glm/glm.hpp>

namespace viewer {

/// World → window pixels (top-left origin) for one view.
struct ScreenProjector {
    glm::mat4 viewProj{1.0f}; ///< projection × view (no clip-space correction: plain GL/Vulkan-agnostic NDC, y up)
    glm::vec2 origin{0.0f};   ///< the view's top-left corner in window pixels
    glm::vec2 size{1.0f};     ///< the view's size in pixels

    /// False when the point is behind the camera.
    bool project(const glm::vec3& world, glm::vec2& pixel) const;
};

/// A line segment in the world: a, a + d.
struct Segment {
    glm::vec3 a{0.0f};
    glm::vec3 d{0.0f};
};

inline constexpr int kRingSegments = 64;

/// The rotate manipulator of a joint: three rings (X, Y, Z of the joint's frame) about `center` of world `radius`.
struct RotateRings {
    glm::vec3 center{0.0f};
    std::array<glm::vec3, 3> axes{glm::vec3(1, 0, 0), glm::vec3(0, 1, 0), glm::vec3(0, 0, 1)}; ///< unit, world
    float radius = 1.0f;

    /// kRingSegments segments per axis, X ring first.
    std::vector<Segment> segments() const;
};

/// The rings' axes from a joint's world matrix: its columns, normalised (a zero column falls back to the world axis).
std::array<glm::vec3, 3> frameAxes(const glm::mat4& world);

/// The ring under `mouse` within `tolerancePx`, nearest first: 0, 1, 2 or -1. Only the half of each ring facing the
/// camera is pickable (`eye`), as in Maya: the back half is hidden behind the front.
int pickRing(const RotateRings& rings, const ScreenProjector& view, const glm::vec3& eye, glm::vec2 mouse,
             float tolerancePx);

/// Degrees turned about ring `axis` by a drag from `from` to `to` (window pixels): the angle swept around the ring's
/// centre on screen, signed so that the ring follows the mouse (counter-clockwise on screen is a positive, right-handed
/// turn about an axis pointing at the viewer).
float dragDegrees(const RotateRings& rings, int axis, const ScreenProjector& view, const glm::vec3& eye, glm::vec2 from,
                  glm::vec2 to);

/// Index of the segment nearest to `mouse` on screen within `tolerancePx`, or -1.
int pickSegment(const std::vector<Segment>& segments, const ScreenProjector& view, glm::vec2 mouse, float tolerancePx);

} // namespace viewer
