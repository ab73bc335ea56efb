#include "rig/deform/morph.h"

#include <algorithm>
#include <cassert>

namespace rig {

bool MorphJob::validate() const
{
    const size_t n = positions.size();
    if (normals.size() != n || outPositions.size() != n || outNormals.size() != n)
        return false;
    if (tangents.size() != outTangents.size() || (!tangents.empty() && tangents.size() != n))
        return false;
    if (weights.size() != targets.size())
        return false;
    for (const MorphTarget& t : targets) {
        if (t.positionDeltas.size() != n)
            return false;
        if (!t.normalDeltas.empty() && t.normalDeltas.size() != n)
            return false;
        if (!t.tangentDeltas.empty() && t.tangentDeltas.size() != n)
            return false;
    }
    return true;
}

void MorphJob::run(size_t first, size_t last) const
{
    assert(first <= last && last <= positions.size());
    auto range = [first, last](auto span) { return span.subspan(first, last - first); };
    std::ranges::copy(range(positions), range(outPositions).begin());
    std::ranges::copy(range(normals), range(outNormals).begin());
    if (!tangents.empty())
        std::ranges::copy(range(tangents), range(outTangents).begin());
    for (size_t k = 0; k < targets.size(); ++k) {
        const float w = weights[k];
        if (w == 0.0f)
            continue;
        const MorphTarget& t = targets[k];
        const glm::vec3* dp = t.positionDeltas.data();
        glm::vec3* op = outPositions.data();
        for (size_t v = first; v < last; ++v)
            op[v] += w * dp[v];
        if (!withNormalDeltas)
            continue;
        if (!t.normalDeltas.empty()) {
            const glm::vec3* dn = t.normalDeltas.data();
            glm::vec3* on = outNormals.data();
            for (size_t v = first; v < last; ++v)
                on[v] += w * dn[v];
        }
        if (!t.tangentDeltas.empty() && !outTangents.empty()) {
            const glm::vec3* dt = t.tangentDeltas.data();
            glm::vec4* ot = outTangents.data();
            for (size_t v = first; v < last; ++v)
                ot[v] += glm::vec4(w * dt[v], 0.0f);
        }
    }
}

} // namespace rig
