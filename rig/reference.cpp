#include "reference.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "math.h"

namespace rig {

namespace {

struct PositionKey {
    uint32_t x, y, z;
    bool operator==(const PositionKey&) const = default;
};

struct PositionHash {
    size_t operator()(const PositionKey& k) const
    {
        uint64_t h = k.x * 0x9E3779B97F4A7C15ull;
        h ^= (k.y + 0x7F4A7C15ull + (h << 6) + (h >> 2)) * 0xC2B2AE3D27D4EB4Full;
        h ^= (k.z + 0x165667B19E3779F9ull + (h << 6) + (h >> 2)) * 0x9E3779B97F4A7C15ull;
        return size_t(h ^ (h >> 31));
    }
};

PositionKey keyOf(const glm::vec3& p)
{
    // Bit-identical positions group together; +0 and -0 are the same place.
    PositionKey k;
    const float c[3] = {p.x == 0.0f ? 0.0f : p.x, p.y == 0.0f ? 0.0f : p.y, p.z == 0.0f ? 0.0f : p.z};
    std::memcpy(&k.x, &c[0], 4);
    std::memcpy(&k.y, &c[1], 4);
    std::memcpy(&k.z, &c[2], 4);
    return k;
}

} // namespace

std::vector<uint32_t> buildSmoothingGroups(std::span<const glm::vec3> positions, std::span<const glm::vec3> normals)
{
    assert(normals.empty() || normals.size() == positions.size());
    const size_t n = positions.size();
    std::vector<uint32_t> group(n);
    // For each distinct position, the representatives of the groups found there so far (usually one).
    std::unordered_map<PositionKey, std::vector<uint32_t>, PositionHash> seen;
    seen.reserve(n);
    const float cosLimit = std::cos(radians(kHardEdgeDegrees));
    for (size_t v = 0; v < n; ++v) {
        group[v] = uint32_t(v);
        std::vector<uint32_t>& reps = seen[keyOf(positions[v])];
        bool placed = false;
        for (uint32_t r : reps) {
            bool agree = true;
            if (!normals.empty()) {
                const glm::vec3 a = safeNormalize(normals[v]);
                const glm::vec3 b = safeNormalize(normals[r]);
                // Two undefined rest normals agree with each other, not with a defined one.
                const bool da = isDefined(a), db = isDefined(b);
                agree = (da == db) && (!da || glm::dot(a, b) >= cosLimit);
            }
            if (agree) {
                group[v] = r;
                placed = true;
                break;
            }
        }
        if (!placed)
            reps.push_back(uint32_t(v));
    }
    return group;
}

void rebuildFrames(std::span<const glm::vec3> positions, std::span<const glm::vec2> uvs, std::span<const uint32_t> indices,
                   std::span<const uint32_t> groups, std::span<glm::vec3> outNormals, std::span<glm::vec4> outTangents,
                   RebuildScratch& scratch)
{
    const size_t n = positions.size();
    assert(groups.size() == n && outNormals.size() == n);
    assert(outTangents.empty() || outTangents.size() == n);
    assert(uvs.empty() || uvs.size() == n);
    const bool wantTangents = !outTangents.empty() && !uvs.empty();

    scratch.normalSums.assign(n, glm::vec3(0.0f));
    if (wantTangents) {
        scratch.tangentSums.assign(n, glm::vec3(0.0f));
        scratch.bitangentSums.assign(n, glm::vec3(0.0f));
    }
    glm::vec3* nsum = scratch.normalSums.data();
    glm::vec3* tsum = scratch.tangentSums.data();
    glm::vec3* bsum = scratch.bitangentSums.data();

    const size_t triangles = indices.size() / 3;
    for (size_t t = 0; t < triangles; ++t) {
        const uint32_t i0 = indices[3 * t], i1 = indices[3 * t + 1], i2 = indices[3 * t + 2];
        assert(i0 < n && i1 < n && i2 < n);
        const glm::vec3 e1 = positions[i1] - positions[i0];
        const glm::vec3 e2 = positions[i2] - positions[i0];
        const glm::vec3 c = glm::cross(e1, e2);
        const float area2 = glm::dot(c, c);
        if (!(area2 > 0.0f) || !std::isfinite(area2))
            continue; // zero-area (or non-finite) triangles contribute nothing
        nsum[groups[i0]] += c;
        nsum[groups[i1]] += c;
        nsum[groups[i2]] += c;
        if (!wantTangents)
            continue;
        const glm::vec2 d1 = uvs[i1] - uvs[i0];
        const glm::vec2 d2 = uvs[i2] - uvs[i0];
        const float det = d1.x * d2.y - d2.x * d1.y;
        if (!(std::fabs(det) > kMinUvDet) || !std::isfinite(det))
            continue;
        const float w = std::sqrt(area2) / det;
        const glm::vec3 ft = (e1 * d2.y - e2 * d1.y) * w;
        const glm::vec3 fb = (e2 * d1.x - e1 * d2.x) * w;
        if (!std::isfinite(ft.x + ft.y + ft.z + fb.x + fb.y + fb.z))
            continue;
        tsum[i0] += ft;
        tsum[i1] += ft;
        tsum[i2] += ft;
        bsum[i0] += fb;
        bsum[i1] += fb;
        bsum[i2] += fb;
    }

    for (size_t v = 0; v < n; ++v) {
        const glm::vec3 nrm = safeNormalize(nsum[groups[v]]);
        outNormals[v] = nrm;
        if (outTangents.empty())
            continue;
        if (!wantTangents || !isDefined(nrm)) {
            outTangents[v] = glm::vec4(0.0f);
            continue;
        }
        const glm::vec3 tv = tsum[v];
        const glm::vec3 tan = safeNormalize(tv - nrm * glm::dot(nrm, tv));
        const float hand = glm::dot(glm::cross(nrm, tan), bsum[v]) < 0.0f ? -1.0f : 1.0f;
        outTangents[v] = isDefined(tan) ? glm::vec4(tan, hand) : glm::vec4(0.0f);
    }
}

} // namespace rig
