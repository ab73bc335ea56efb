// An orbit camera: orbit, pan, dolly and frame, Maya-style. Plain math (GLM), no Qt.
#pragma once

#include <glm/glm.hpp>

namespace viewer {

class OrbitCamera {
public:
    /// Yaw/pitch in degrees around the target; distance along the view axis.
    float yaw = 30.0f;
    float pitch = 20.0f;
    float distance = 3.0f;
    glm::vec3 target{0.0f};
    float fovYDeg = 40.0f;

    /// Drag by pixels: orbit (left), pan (middle), dolly (right), as in Maya with Alt.
    void orbit(float dxPixels, float dyPixels);
    void pan(float dxPixels, float dyPixels, float viewportHeightPixels);
    void dolly(float amount); ///< > 0 moves closer; scaled by distance
    /// Looks at the box's centre from the current direction, as close as keeps all eight corners inside the view of
    /// this aspect (width / height) with `margin` of the half-extent spare (0.08: the box fills 92%).
    void frame(const glm::vec3& boxMin, const glm::vec3& boxMax, float aspect = 1.0f, float margin = 0.08f);

    glm::vec3 eye() const;
    glm::mat4 view() const;
    /// Right-handed, depth 0..1 (Vulkan/D3D convention); callers apply QRhi::clipSpaceCorrMatrix().
    glm::mat4 projection(float aspect) const;
    float nearPlane() const;
    float farPlane() const;

    /// World-space ray through a pixel (origin, unit direction); x, y in pixels from the top-left.
    void ray(float x, float y, float width, float height, glm::vec3& origin, glm::vec3& dir) const;
};

} // namespace viewer
