#include "rig/analysis/carried.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "rig/analysis/metrics.h"
#include "rig/model/math.h"

namespace rig {

namespace {

/// A unit vector perpendicular to unit a.
glm::vec3 perpendicular(const glm::vec3& a)
{
    const glm::vec3 helper = std::fabs(a.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
    return glm::normalize(glm::cross(a, helper));
}

/// The minimal rotation taking unit a to unit b (Rodrigues).
glm::mat3 minimalRotation(const glm::vec3& a, const glm::vec3& b)
{
    const glm::vec3 axis = glm::cross(a, b);
    const float s = glm::length(axis), c = glm::dot(a, b);
    if (s < 1e-7f) {
        if (c > 0.0f)
            return glm::mat3(1.0f);
        // Opposite: 180° about any axis perpendicular to a.
        const glm::vec3 k = perpendicular(a);
        return 2.0f * glm::outerProduct(k, k) - glm::mat3(1.0f);
    }
    const glm::vec3 k = axis / s;
    const glm::mat3 K(glm::vec3(0, k.z, -k.y), glm::vec3(-k.z, 0, k.x), glm::vec3(k.y, -k.x, 0)); // columns
    return glm::mat3(1.0f) + s * K + (1.0f - c) * (K * K);
}

} // namespace

bool carryRotation(const glm::vec3& bindNormal, const glm::vec3& bindTangent, const glm::vec3& posedNormal,
                   const glm::vec3& posedTangent, glm::mat3& out)
{
    if (!isDefined(bindNormal) || !isDefined(posedNormal))
        return false;
    // The same frame (the bind pose itself): exactly the identity, not F Fᵀ rounded.
    if (bindNormal == posedNormal && bindTangent == posedTangent) {
        out = glm::mat3(1.0f);
        return true;
    }
    if (isDefined(bindTangent) && isDefined(posedTangent)) {
        const glm::mat3 fb(bindTangent, glm::cross(bindNormal, bindTangent), bindNormal);
        const glm::mat3 fp(posedTangent, glm::cross(posedNormal, posedTangent), posedNormal);
        out = fp * glm::transpose(fb);
    } else {
        out = minimalRotation(bindNormal, posedNormal);
    }
    return true;
}

void CarryJob::run(size_t first, size_t last) const
{
    const size_t n = authoredNormals.size();
    assert(bindNormals.size() == n && posedNormals.size() == n && outNormals.size() == n);
    const bool tangents = !outTangents.empty();
    assert(!tangents || (authoredTangents.size() == n && bindTangents.size() == n && posedTangents.size() == n));
    last = std::min(last, n);
    for (size_t v = first; v < last; ++v) {
        const glm::vec3 bt = bindTangents.empty() ? glm::vec3(0.0f) : glm::vec3(bindTangents[v]);
        const glm::vec3 pt = posedTangents.empty() ? glm::vec3(0.0f) : glm::vec3(posedTangents[v]);
        glm::mat3 r;
        if (!carryRotation(bindNormals[v], bt, posedNormals[v], pt, r)) {
            outNormals[v] = glm::vec3(0.0f);
            if (tangents)
                outTangents[v] = glm::vec3(0.0f);
            continue;
        }
        outNormals[v] = r * safeNormalize(authoredNormals[v]);
        if (tangents)
            outTangents[v] = r * safeNormalize(glm::vec3(authoredTangents[v]));
    }
}

} // namespace rig
