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

std::string lowerCase(std::string s)
{
    for (char& c : s)
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
    return s;
}

bool isGltfFormat(const std::string& extension)
{
    const std::string e = lowerCase(extension);
    return e == "gltf" || e == "glb";
}

bool assimpFlipsV(const std::string& extension)
{
    return isGltfFormat(extension) || lowerCase(extension) == "x";
}

} // namespace rig::assimp_import
