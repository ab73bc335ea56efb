#include "picking.h"

#include <cmath>
#include <limits>

namespace viewer {

namespace {

// Calls fn(globalIndex, tanOffRay, distanceAlongRay) for every finite vertex in front of the eye within the cone.
template <typename Fn>
void forEachCandidate(const rig::Evaluation& eval, rig::Method method, const glm::vec3& origin, const glm::vec3& dir,
                      float tanMax, Fn&& fn)
{
    size_t base = 0;
    for (const rig::MeshEvaluation& me : eval.meshes) {
        const std::vector<glm::vec3>& pos = me.surfaceOf(method).positions;
        for (size_t v = 0; v < pos.size(); ++v) {
            const glm::vec3 d = pos[v] - origin;
            const float along = glm::dot(d, dir);
            if (!(along > 0.0f) || !std::isfinite(along))
                continue;
            const float off = glm::length(d - along * dir) / along;
            if (off <= tanMax)
                fn(int(base + v), off, along);
        }
        base += pos.size();
    }
}

} // namespace

int pickVertex(const rig::Evaluation& eval, rig::Method method, const glm::vec3& origin, const glm::vec3& dir,
               float maxAngleRad)
{
    const float tanMax = std::tan(maxAngleRad);
    // Pass 1: the smallest angle off the ray. Pass 2: among vertices within a quarter of the tolerance of it, the
    // nearest to the eye (so a click picks the front surface, not a vertex behind it).
    float minOff = std::numeric_limits<float>::infinity();
    forEachCandidate(eval, method, origin, dir, tanMax, [&](int, float off, float) { minOff = std::min(minOff, off); });
    if (!std::isfinite(minOff))
        return -1;
    int best = -1;
    float bestAlong = std::numeric_limits<float>::infinity();
    const float band = minOff + 0.25f * tanMax;
    forEachCandidate(eval, method, origin, dir, tanMax, [&](int index, float off, float along) {
        if (off <= band && along < bestAlong) {
            bestAlong = along;
            best = index;
        }
    });
    return best;
}

} // namespace viewer
