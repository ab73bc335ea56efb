#include "camera.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace viewer {

namespace {
constexpr float kDegToRad = 0.017453292519943295f;
}

void OrbitCamera::orbit(float dx, float dy)
{
    yaw -= dx * 0.4f;
    pitch = std::clamp(pitch + dy * 0.4f, -89.0f, 89.0f);
}

void OrbitCamera::pan(float dx, float dy, float viewportHeight)
{
    // One pixel moves the target by the size of a pixel at the target's depth.
    const float worldPerPixel = 2.0f * distance * std::tan(fovYDeg * 0.5f * kDegToRad) / std::max(1.0f, viewportHeight);
    const glm::mat4 v = view();
    const glm::vec3 right(v[0][0], v[1][0], v[2][0]);
    const glm::vec3 up(v[0][1], v[1][1], v[2][1]);
    target += (-dx * right + dy * up) * worldPerPixel;
}

void OrbitCamera::dolly(float amount)
{
    distance = std::clamp(distance * std::exp(-amount), 1e-4f, 1e7f);
}

void OrbitCamera::frame(const glm::vec3& lo, const glm::vec3& hi)
{
    if (!(lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z) || !std::isfinite(lo.x + lo.y + lo.z + hi.x + hi.y + hi.z))
        return;
    target = 0.5f * (lo + hi);
    const float radius = std::max(0.5f * glm::length(hi - lo), 1e-3f);
    distance = radius / std::sin(fovYDeg * 0.5f * kDegToRad) * 1.05f;
}

glm::vec3 OrbitCamera::eye() const
{
    const float y = yaw * kDegToRad, p = pitch * kDegToRad;
    const glm::vec3 dir(std::cos(p) * std::sin(y), std::sin(p), std::cos(p) * std::cos(y));
    return target + dir * distance;
}

glm::mat4 OrbitCamera::view() const
{
    return glm::lookAt(eye(), target, glm::vec3(0, 1, 0));
}

float OrbitCamera::nearPlane() const { return std::max(distance * 0.01f, 1e-5f); }
float OrbitCamera::farPlane() const { return distance * 100.0f; }

glm::mat4 OrbitCamera::projection(float aspect) const
{
    return glm::perspectiveRH_ZO(fovYDeg * kDegToRad, std::max(aspect, 1e-3f), nearPlane(), farPlane());
}

void OrbitCamera::ray(float x, float y, float w, float h, glm::vec3& origin, glm::vec3& dir) const
{
    const float ndcX = 2.0f * x / std::max(w, 1.0f) - 1.0f;
    const float ndcY = 1.0f - 2.0f * y / std::max(h, 1.0f);
    const float t = std::tan(fovYDeg * 0.5f * kDegToRad);
    const float aspect = w / std::max(h, 1.0f);
    const glm::mat4 inv = glm::inverse(view());
    origin = eye();
    const glm::vec3 local(ndcX * t * aspect, ndcY * t, -1.0f);
    dir = glm::normalize(glm::vec3(inv * glm::vec4(local, 0.0f)));
}

} // namespace viewer
