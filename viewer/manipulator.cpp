#include "manipulator.h"

#include <cmath>
#include <limits>

namespace viewer {

namespace {

constexpr float kTwoPi = 6.283185307179586f;

float distanceToSegment(glm::vec2 p, glm::vec2 a, glm::vec2 b)
{
    const glm::vec2 ab = b - a;
    const float len2 = glm::dot(ab, ab);
    const float t = len2 > 0.0f ? glm::clamp(glm::dot(p - a, ab) / len2, 0.0f, 1.0f) : 0.0f;
    return glm::length(p - (a + t * ab));
}

/// A unit vector perpendicular to `n`.
glm::vec3 perpendicular(const glm::vec3& n)
{
    const glm::vec3 helper = std::fabs(n.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
    return glm::normalize(glm::cross(n, helper));
}

} // namespace

bool ScreenProjector::project(const glm::vec3& world, glm::vec2& pixel) const
{
    const glm::vec4 c = viewProj * glm::vec4(world, 1.0f);
    if (!(c.w > 1e-6f))
        return false;
    const glm::vec2 ndc(c.x / c.w, c.y / c.w);
    pixel = origin + glm::vec2((ndc.x * 0.5f + 0.5f) * size.x, (0.5f - ndc.y * 0.5f) * size.y);
    return std::isfinite(pixel.x) && std::isfinite(pixel.y);
}

std::vector<Segment> RotateRings::segments() const
{
    std::vector<Segment> out;
    out.reserve(3 * kRingSegments);
    for (int k = 0; k < 3; ++k) {
        const glm::vec3 u = perpendicular(axes[size_t(k)]);
        const glm::vec3 v = glm::cross(axes[size_t(k)], u);
        for (int i = 0; i < kRingSegments; ++i) {
            const float t0 = kTwoPi * float(i) / kRingSegments, t1 = kTwoPi * float(i + 1) / kRingSegments;
            const glm::vec3 a = center + radius * (std::cos(t0) * u + std::sin(t0) * v);
            const glm::vec3 b = center + radius * (std::cos(t1) * u + std::sin(t1) * v);
            out.push_back({a, b - a});
        }
    }
    return out;
}

std::array<glm::vec3, 3> frameAxes(const glm::mat4& world)
{
    std::array<glm::vec3, 3> axes;
    for (int k = 0; k < 3; ++k) {
        const glm::vec3 c(world[k]);
        const float len = glm::length(c);
        glm::vec3 fallback(0.0f);
        fallback[k] = 1.0f;
        axes[size_t(k)] = len > 1e-12f && std::isfinite(len) ? c / len : fallback;
    }
    return axes;
}

int pickRing(const RotateRings& rings, const ScreenProjector& view, const glm::vec3& eye, glm::vec2 mouse, float tolerancePx)
{
    const std::vector<Segment> segs = rings.segments();
    const glm::vec3 toEye = eye - rings.center;
    int best = -1;
    float bestDistance = tolerancePx;
    for (size_t i = 0; i < segs.size(); ++i) {
        const glm::vec3 mid = segs[i].a + 0.5f * segs[i].d;
        // The front half (towards the camera); a ring seen edge-on is all front.
        if (glm::dot(mid - rings.center, toEye) < -0.05f * rings.radius * glm::length(toEye))
            continue;
        glm::vec2 a, b;
        if (!view.project(segs[i].a, a) || !view.project(segs[i].a + segs[i].d, b))
            continue;
        const float d = distanceToSegment(mouse, a, b);
        if (d <= bestDistance) {
            bestDistance = d;
            best = int(i) / kRingSegments;
        }
    }
    return best;
}

float dragDegrees(const RotateRings& rings, int axis, const ScreenProjector& view, const glm::vec3& eye, glm::vec2 from,
                  glm::vec2 to)
{
    glm::vec2 c;
    if (axis < 0 || axis > 2 || !view.project(rings.center, c))
        return 0.0f;
    // Screen y points down: flip it for the usual counter-clockwise-positive angle.
    const glm::vec2 a(from.x - c.x, c.y - from.y), b(to.x - c.x, c.y - to.y);
    if (glm::dot(a, a) < 1.0f || glm::dot(b, b) < 1.0f)
        return 0.0f;
    const float swept = std::atan2(a.x * b.y - a.y * b.x, glm::dot(a, b)) * 57.29577951308232f;
    const float facing = glm::dot(rings.axes[size_t(axis)], eye - rings.center);
    return facing >= 0.0f ? swept : -swept;
}

int pickSegment(const std::vector<Segment>& segments, const ScreenProjector& view, glm::vec2 mouse, float tolerancePx)
{
    int best = -1;
    float bestDistance = tolerancePx;
    for (size_t i = 0; i < segments.size(); ++i) {
        glm::vec2 a, b;
        if (!view.project(segments[i].a, a) || !view.project(segments[i].a + segments[i].d, b))
            continue;
        const float d = distanceToSegment(mouse, a, b);
        if (d <= bestDistance) {
            bestDistance = d;
            best = int(i);
        }
    }
    return best;
}

} // namespace viewer
