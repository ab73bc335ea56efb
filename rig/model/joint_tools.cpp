#include "rig/model/joint_tools.h"

#include <algorithm>
#include <cmath>

#include "rig/model/math.h"

namespace rig {

namespace {

constexpr float kRadToDeg = 57.29577951308232f;

float nearestEquivalent(float deg, float nearDeg)
{
    return deg + 360.0f * std::round((nearDeg - deg) / 360.0f);
}

} // namespace

glm::vec3 eulerXYZFromMatrix(const glm::mat3& r, const glm::vec3& nearDeg)
{
    // R = Rz(c) Ry(b) Rx(a): row 2 is (-sin b, cos b sin a, cos b cos a); column 0 is (cos c cos b, sin c cos b, -sin b).
    // glm is column-major: r[col][row].
    const float s = std::clamp(-r[0][2], -1.0f, 1.0f);
    float a, b, c;
    if (std::fabs(s) < 0.9999995f) {
        b = std::asin(s);
        a = std::atan2(r[1][2], r[2][2]);
        c = std::atan2(r[0][1], r[0][0]);
    } else {
        // Gimbal lock: only a - c (or a + c) is determined; keep X and give the rest to Z.
        b = s > 0.0f ? 1.5707963267948966f : -1.5707963267948966f;
        a = radians(nearDeg.x);
        // With b = ±90°: r[1][0] = sin(a ∓ c)·(±1)... solve c from the first row of R Rx(-a).
        const glm::mat3 ra = r * glm::transpose(eulerXYZ(glm::vec3(nearDeg.x, 0.0f, 0.0f)));
        c = std::atan2(-ra[1][0], ra[1][1]);
    }
    return glm::vec3(nearestEquivalent(a * kRadToDeg, nearDeg.x), nearestEquivalent(b * kRadToDeg, nearDeg.y),
                     nearestEquivalent(c * kRadToDeg, nearDeg.z));
}

glm::vec3 eulerFromMatrix(const glm::mat3& r, RotateOrder order, const glm::vec3& nearDeg)
{
    // Relabel the axes so the order becomes xyz: P maps the order's first axis to X, its second to Y, its third to Z.
    // P R P^T is then an xyz rotation whose angles are the order's, negated where P is a reflection (an odd
    // permutation turns each rotation's sense).
    int axis[3];
    for (int step = 0; step < 3; ++step)
        axis[step] = rotateOrderAxis(order, step);
    glm::mat3 p(0.0f);
    for (int step = 0; step < 3; ++step)
        p[axis[step]][step] = 1.0f; // (P v)[step] = v[axis[step]]
    const float sigma = glm::determinant(p);
    glm::vec3 nearPermuted;
    for (int step = 0; step < 3; ++step)
        nearPermuted[step] = sigma * nearDeg[axis[step]];
    const glm::vec3 permuted = eulerXYZFromMatrix(p * r * glm::transpose(p), nearPermuted);
    glm::vec3 out;
    for (int step = 0; step < 3; ++step)
        out[axis[step]] = sigma * permuted[step];
    return out;
}

glm::mat3 axisAngle(const glm::vec3& axis, float degrees)
{
    const glm::vec3 k = glm::normalize(axis);
    const float t = radians(degrees), c = std::cos(t), s = std::sin(t);
    const glm::mat3 K(glm::vec3(0, k.z, -k.y), glm::vec3(-k.z, 0, k.x), glm::vec3(k.y, -k.x, 0)); // columns
    return glm::mat3(1.0f) + s * K + (1.0f - c) * (K * K);
}

glm::vec3 boneAxis(const Rig& rig, int node)
{
    const auto& nodes = rig.skeleton.nodes;
    if (node < 0 || size_t(node) >= nodes.size())
        return glm::vec3(1, 0, 0);
    for (size_t i = size_t(node) + 1; i < nodes.size(); ++i)
        if (nodes[i].parent == node) {
            const glm::vec3 d = safeNormalize(nodes[i].rest.translation);
            if (isDefined(d))
                return d;
        }
    // A leaf: continue the bone from the parent (the node's offset, brought into its own frame).
    const Transform& t = nodes[size_t(node)].rest;
    const glm::vec3 d = safeNormalize(glm::inverse(glm::mat3_cast(t.rotation)) * t.translation);
    return isDefined(d) ? d : glm::vec3(1, 0, 0);
}

int dominantAxis(const glm::vec3& dir)
{
    const glm::vec3 a = glm::abs(dir);
    return a.x >= a.y && a.x >= a.z ? 0 : a.y >= a.z ? 1 : 2;
}

namespace {

/// The Euler angles of `degrees` about unit `axis`: on that axis alone, as the artist set them, where the axis is a
/// local one (the rotation is then exactly that Euler rotation); decomposed otherwise.
glm::vec3 eulerOfAxisAngle(const glm::vec3& axis, float degrees, RotateOrder order)
{
    const int k = dominantAxis(axis);
    if (std::fabs(axis[k]) >= 1.0f - 1e-6f) {
        glm::vec3 deg(0.0f);
        deg[k] = axis[k] > 0.0f ? degrees : -degrees;
        return deg;
    }
    return eulerFromMatrix(axisAngle(axis, degrees), order, glm::vec3(0.0f));
}

} // namespace

JointEdit twistEdit(const glm::vec3& bone, float degrees, RotateOrder order)
{
    JointEdit e;
    e.rotateOrder = order;
    e.rotateDeg = eulerOfAxisAngle(glm::normalize(bone), degrees, order);
    return e;
}

JointEdit bendEdit(const glm::vec3& bone, float degrees, RotateOrder order)
{
    // The local axis least aligned with the bone, made perpendicular to it.
    const glm::vec3 b = glm::normalize(bone);
    const glm::vec3 a = glm::abs(b);
    glm::vec3 axis = a.z <= a.x && a.z <= a.y ? glm::vec3(0, 0, 1) : a.y <= a.x ? glm::vec3(0, 1, 0) : glm::vec3(1, 0, 0);
    axis = glm::normalize(axis - b * glm::dot(b, axis));
    JointEdit e;
    e.rotateOrder = order;
    e.rotateDeg = eulerOfAxisAngle(axis, degrees, order);
    return e;
}

JointEdit squashEdit(const glm::vec3& bone, float along, float across)
{
    JointEdit e;
    e.scale = glm::vec3(across);
    e.scale[dominantAxis(bone)] = along;
    return e;
}

} // namespace rig
