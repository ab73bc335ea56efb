#include "rig/io/assimp/converter.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <glm/gtc/quaternion.hpp>

#include "rig/model/math.h"

namespace rig::assimp_import {

/// Makes a message safe for one line: each run of control characters (newlines, tabs) becomes one space, the ends
/// are trimmed, long messages are cut. Ordinary spaces are kept: Assimp quotes file content in its messages.
std::string oneLine(std::string_view text)
{
    std::string out;
    out.reserve(std::min(text.size(), kMaxMessage + 3));
    bool pendingSpace = false;
    for (char ch : text) {
        const unsigned char c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c == 0x7f) {
            pendingSpace = true;
            continue;
        }
        if (pendingSpace && !out.empty() && out.back() != ' ')
            out.push_back(' ');
        pendingSpace = false;
        if (out.empty() && c == ' ')
            continue;
        out.push_back(ch);
        if (out.size() >= kMaxMessage) {
            out += "...";
            break;
        }
    }
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

std::string str(const aiString& s)
{
    // aiString::length is trusted only up to its buffer.
    const size_t n = std::min<size_t>(s.length, MAXLEN - 1);
    return std::string(s.data, strnlen(s.data, n));
}

glm::mat4 toGlm(const aiMatrix4x4& m)
{
    // aiMatrix4x4 is row-major (a1..a4 is the first row, a4 the x translation); glm takes columns.
    return glm::mat4(m.a1, m.b1, m.c1, m.d1,  // column 0
                     m.a2, m.b2, m.c2, m.d2,  // column 1
                     m.a3, m.b3, m.c3, m.d3,  // column 2
                     m.a4, m.b4, m.c4, m.d4); // column 3 (translation)
}

bool isFinite(const glm::mat4& m)
{
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r)
            if (!std::isfinite(m[c][r]))
                return false;
    return true;
}

namespace {

/// A unit vector perpendicular to a (a unit).
glm::vec3 anyPerpendicular(const glm::vec3& a)
{
    const glm::vec3 helper = std::fabs(a.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
    return safeNormalize(glm::cross(a, helper));
}

} // namespace

/// Decomposes an affine matrix into TRS. The rotation is always a finite unit quaternion (Gram-Schmidt of the
/// scaled-out columns with fallbacks for zero scales); a negative determinant goes into scale.x. `shear` is set when
/// the TRS does not reproduce the matrix within kShearTolerance (relative), when the bottom row is not (0,0,0,1), or
/// when the matrix is not finite.
Transform decompose(const glm::mat4& m, bool& shear)
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
    shear = !affine || !isFinite(m) || !(maxDiff <= kShearTolerance * magnitude);
    return t;
}

namespace {

std::string lowerCase(std::string s)
{
    for (char& c : s)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return s;
}

} // namespace

bool isGltfFormat(const std::string& extension)
{
    const std::string e = lowerCase(extension);
    return e == "gltf" || e == "glb";
}

} // namespace rig::assimp_import
