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

void OrbitCamera::frame(const glm::vec3& lo, const glm::vec3& hi, float aspect, float margin)
{
    if (!(lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z) || !std::isfinite(lo.x + lo.y + lo.z + hi.x + hi.y + hi.z))
        return;
    target = 0.5f * (lo + hi);
    const float tanY = std::tan(fovYDeg * 0.5f * kDegToRad) * (1.0f - margin);
    const float tanX = tanY * std::max(aspect, 1e-3f);
    // In the camera's frame (right, up, back towards the eye), a corner at (x, y, z) from the target is inside the
    // frustum of an eye at distance d when |x| <= (d - z) tanX and |y| <= (d - z) tanY.
    const float y = yaw * kDegToRad, p = pitch * kDegToRad;
    const glm::vec3 back(std::cos(p) * std::sin(y), std::sin(p), std::cos(p) * std::cos(y));
    const glm::vec3 right = glm::normalize(glm::cross(glm::vec3(0, 1, 0), back));
    const glm::vec3 up = glm::cross(back, right);
    float d = 0.0f;
    for (int c = 0; c < 8; ++c) {
        const glm::vec3 corner((c & 1) ? hi.x : lo.x, (c & 2) ? hi.y : lo.y, (c & 4) ? hi.z : lo.z);
        const glm::vec3 o = corner - target;
        const float z = glm::dot(o, back);
        d = std::max({d, z + std::fabs(glm::dot(o, right)) / tanX, z + std::fabs(glm::dot(o, up)) / tanY});
    }
    const float radius = std::max(0.5f * glm::length(hi - lo), 1e-3f);
    distance = std::max(d, 1.5f * radius * 0.05f + 1e-3f); // never inside a flat box
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
