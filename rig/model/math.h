// Small vector/matrix helpers shared by the deformation code. Header-only, no allocation.
#pragma once

#include <cmath>
#include <cstdint>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

namespace rig {

/// Squared-length threshold below which a direction is "zero" (undefined), matching the shaders.
inline constexpr float kZeroLength2 = 1e-24f;

/// Returns v / |v|, or the zero vector when |v|² < kZeroLength2 or v is not finite. Never NaN.
inline glm::vec3 safeNormalize(const glm::vec3& v)
{
    const float len2 = glm::dot(v, v);
    if (!(len2 >= kZeroLength2) || !std::isfinite(len2))
        return glm::vec3(0.0f);
    return v * (1.0f / std::sqrt(len2));
}

/// True when v is a usable unit direction (the zero vector marks "undefined").
inline bool isDefined(const glm::vec3& v)
{
    const float len2 = glm::dot(v, v);
    return len2 > 0.25f && std::isfinite(len2);
}

/// Cofactor matrix of a 3x3: cof(A) = det(A) * A^{-T}. Its columns... (glm is column-major):
/// for rows r0, r1, r2 of A, the rows of cof(A) are r1×r2, r2×r0, r0×r1.
/// cof(A)(a × b) = (A a) × (A b) for every A, singular or mirrored.
inline glm::mat3 cofactor(const glm::mat3& a)
{
    const glm::vec3 r0(a[0][0], a[1][0], a[2][0]);
    const glm::vec3 r1(a[0][1], a[1][1], a[2][1]);
    const glm::vec3 r2(a[0][2], a[1][2], a[2][2]);
    const glm::vec3 c0 = glm::cross(r1, r2);
    const glm::vec3 c1 = glm::cross(r2, r0);
    const glm::vec3 c2 = glm::cross(r0, r1);
    // c0, c1, c2 are rows of the result; glm stores columns.
    return glm::mat3(glm::vec3(c0.x, c1.x, c2.x), glm::vec3(c0.y, c1.y, c2.y), glm::vec3(c0.z, c1.z, c2.z));
}

/// Angle in degrees between two directions, by atan2(|a×b|, a·b) (accurate near 0°).
/// Inputs need not be unit length; returns NaN-free 0..180 for non-zero inputs.
inline double angleDeg(const glm::vec3& a, const glm::vec3& b)
{
    const glm::dvec3 da(a), db(b);
    const double s = glm::length(glm::cross(da, db));
    const double c = glm::dot(da, db);
    return std::atan2(s, c) * (180.0 / 3.14159265358979323846);
}

inline float radians(float deg) { return deg * 0.017453292519943295f; }

} // namespace rig
