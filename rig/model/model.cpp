#include "rig/model/model.h"

#include <algorithm>
#include <cmath>
#include <charconv>

#include <glm/gtc/matrix_transform.hpp>

#include "rig/model/math.h"

namespace rig {

namespace {

bool isFiniteMatrix(const glm::mat4& m)
{
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r)
            if (!std::isfinite(m[c][r]))
                return false;
    return true;
}

/// A unit vector perpendicular to a (a unit).
glm::vec3 anyPerpendicular(const glm::vec3& a)
{
    const glm::vec3 helper = std::fabs(a.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
    return safeNormalize(glm::cross(a, helper));
}

} // namespace

/// (see model.h)
/// Decomposes an affine matrix into TRS. The rotation is always a finite unit quaternion (Gram-Schmidt of the
/// scaled-out columns with fallbacks for zero scales); a negative determinant goes into scale.x. `shear` is set when
/// the TRS does not reproduce the matrix within kTrsShearTolerance (relative), when the bottom row is not (0,0,0,1), or
/// when the matrix is not finite.
Transform decomposeTransform(const glm::mat4& m, bool& shear)
{
    Transform t;
    t.translation = glm::vec3(m[3]);
    const glm::vec3 c[3] = {glm::vec3(m[0]), glm::vec3(m[1]), glm::vec3(m[2])};
    glm::vec3 s(glm::length(c[0]), glm::length(c[1]), glm::length(c[2]));
    if (glm::determinant(glm::mat3(m)) < 0.0f)
        s.x = -s.x;
    glm::vec3 r[3];
    for (int i = 0; i < 3; ++i)
        r[i] = (s[i] != 0.0f && std::isfinite(s[i])) ? c[i] / s[i] : glm::vec3(0.0f);

    glm::vec3 a = safeNormalize(r[0]);
    if (!isDefined(a))
        a = safeNormalize(glm::cross(r[1], r[2]));
    if (!isDefined(a))
        a = glm::vec3(1, 0, 0);
    glm::vec3 b = safeNormalize(r[1] - a * glm::dot(a, r[1]));
    if (!isDefined(b))
        b = safeNormalize(glm::cross(r[2], a));
    if (!isDefined(b))
        b = anyPerpendicular(a);
    const glm::vec3 cc = glm::cross(a, b);
    t.rotation = glm::normalize(glm::quat_cast(glm::mat3(a, b, cc)));
    t.scale = s;

    const glm::mat4 back = t.matrix();
    float maxDiff = 0.0f;
    float magnitude = 0.0f;
    for (int col = 0; col < 3; ++col) {
        magnitude = std::max(magnitude, std::fabs(s[col]));
        for (int row = 0; row < 3; ++row)
            maxDiff = std::max(maxDiff, std::fabs(back[col][row] - m[col][row]));
    }
    const bool affine = m[0][3] == 0.0f && m[1][3] == 0.0f && m[2][3] == 0.0f && m[3][3] == 1.0f;
    shear = !affine || !isFiniteMatrix(m) || !(maxDiff <= kTrsShearTolerance * magnitude);
    return t;
}


glm::mat4 Transform::matrix() const
{
    const glm::mat3 r = glm::mat3_cast(rotation);
    glm::mat4 m(1.0f);
    m[0] = glm::vec4(r[0] * scale.x, 0.0f);
    m[1] = glm::vec4(r[1] * scale.y, 0.0f);
    m[2] = glm::vec4(r[2] * scale.z, 0.0f);
    m[3] = glm::vec4(translation, 1.0f);
    return m;
}

int Skeleton::find(const std::string& name) const
{
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].name == name)
            return int(i);
    return -1;
}

size_t Rig::vertexCount() const
{
    size_t n = 0;
    for (const Mesh& m : meshes)
        n += m.vertexCount();
    return n;
}

size_t Rig::triangleCount() const
{
    size_t n = 0;
    for (const Mesh& m : meshes)
        n += m.triangleCount();
    return n;
}

size_t Rig::jointCount() const
{
    std::vector<char> used(skeleton.nodes.size(), 0);
    for (const Skin& s : skins)
        for (int j : s.joints)
            if (j >= 0 && size_t(j) < used.size())
                used[size_t(j)] = 1;
    return size_t(std::count(used.begin(), used.end(), 1));
}

size_t Rig::morphTargetCount() const
{
    size_t n = 0;
    for (const Mesh& m : meshes)
        n += m.morphTargets.size();
    return n;
}

int Rig::findClip(const std::string& nameOrIndex) const
{
    for (size_t i = 0; i < clips.size(); ++i)
        if (clips[i].name == nameOrIndex)
            return int(i);
    int index = -1;
    const char* b = nameOrIndex.data();
    const char* e = b + nameOrIndex.size();
    auto [p, ec] = std::from_chars(b, e, index);
    if (ec == std::errc() && p == e && index >= 0 && size_t(index) < clips.size())
        return index;
    return -1;
}

} // namespace rig
