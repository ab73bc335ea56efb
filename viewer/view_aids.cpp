#include "view_aids.h"

#include <algorithm>
#include <cmath>

namespace viewer {

namespace {

/// The smallest of 1, 2, 5 × 10^k at or above x (> 0).
float niceStep(float x)
{
    const float p = std::pow(10.0f, std::floor(std::log10(x)));
    for (float m : {1.0f, 2.0f, 5.0f, 10.0f})
        if (m * p >= x * (1.0f - 1e-6f))
            return m * p;
    return 10.0f * p;
}

} // namespace

GroundGrid groundGrid(const glm::vec3& lo, const glm::vec3& hi)
{
    GroundGrid g;
    if (!(lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z) || !std::isfinite(lo.x + lo.y + lo.z + hi.x + hi.y + hi.z))
        return g;
    constexpr int kMaxCells = 24;
    // The footprint with a margin of half its size on each side (at least a tenth of the box's diagonal).
    const float footprint = std::max({hi.x - lo.x, hi.z - lo.z, 0.1f * glm::length(hi - lo), 1e-6f});
    const float side = 2.0f * footprint;
    g.cell = niceStep(side / float(kMaxCells));
    const int half = std::max(1, int(std::ceil(0.5f * side / g.cell)));
    // Centred on a grid point under the box's centre, so the lines sit at whole multiples of the cell.
    g.centre = glm::vec3(std::round(0.5f * (lo.x + hi.x) / g.cell) * g.cell, lo.y, std::round(0.5f * (lo.z + hi.z) / g.cell) * g.cell);
    const float extent = float(half) * g.cell;
    for (int i = -half; i <= half; ++i) { // along x, at z = centre.z + i * cell
        if (i == 0)
            g.centreLines[0] = int(g.lines.size());
        g.lines.push_back({g.centre + glm::vec3(-extent, 0.0f, float(i) * g.cell), glm::vec3(2.0f * extent, 0.0f, 0.0f)});
    }
    for (int i = -half; i <= half; ++i) { // along z
        if (i == 0)
            g.centreLines[1] = int(g.lines.size());
        g.lines.push_back({g.centre + glm::vec3(float(i) * g.cell, 0.0f, -extent), glm::vec3(0.0f, 0.0f, 2.0f * extent)});
    }
    return g;
}

AxesGizmo axesGizmo(const glm::mat4& view)
{
    AxesGizmo gz;
    constexpr float kAxis = 0.7f, kLetter = 0.11f, kGap = 0.16f;
    for (int k = 0; k < 3; ++k) {
        // The world axis in camera space: the view matrix's rotation applied to it (x right, y up on screen).
        const glm::vec3 c = glm::mat3(view) * glm::vec3(k == 0, k == 1, k == 2);
        const glm::vec2 tip = glm::vec2(c.x, c.y) * kAxis;
        gz.first[k] = int(gz.segments.size());
        gz.segments.push_back({glm::vec3(0.0f), glm::vec3(tip, 0.0f)});
        // The letter beside the tip, further out along the axis (to the upper right of the centre if it is a dot).
        const float len = glm::length(tip);
        const glm::vec2 out = len > 1e-3f ? tip / len : glm::vec2(0.7071f, 0.7071f);
        const glm::vec2 centre = tip + out * kGap;
        auto stroke = [&](glm::vec2 a, glm::vec2 b) {
            gz.segments.push_back({glm::vec3(centre + a * kLetter, 0.0f), glm::vec3((b - a) * kLetter, 0.0f)});
        };
        if (k == 0) { // X
            stroke({-0.6f, -1.0f}, {0.6f, 1.0f});
            stroke({-0.6f, 1.0f}, {0.6f, -1.0f});
        } else if (k == 1) { // Y
            stroke({-0.6f, 1.0f}, {0.0f, 0.0f});
            stroke({0.6f, 1.0f}, {0.0f, 0.0f});
            stroke({0.0f, 0.0f}, {0.0f, -1.0f});
        } else { // Z
            stroke({-0.6f, 1.0f}, {0.6f, 1.0f});
            stroke({0.6f, 1.0f}, {-0.6f, -1.0f});
            stroke({-0.6f, -1.0f}, {0.6f, -1.0f});
        }
        gz.count[k] = int(gz.segments.size()) - gz.first[k];
    }
    return gz;
}

std::vector<uint32_t> uniqueEdges(const rig::Rig& rig)
{
    std::vector<uint64_t> keys;
    size_t triangles = 0;
    for (const rig::Mesh& m : rig.meshes)
        triangles += m.indices.size() / 3;
    keys.reserve(3 * triangles);
    uint64_t base = 0;
    for (const rig::Mesh& m : rig.meshes) {
        const size_t n = m.vertexCount();
        for (size_t t = 0; t + 2 < m.indices.size(); t += 3) {
            const uint32_t v[3] = {m.indices[t], m.indices[t + 1], m.indices[t + 2]};
            if (v[0] >= n || v[1] >= n || v[2] >= n)
                continue;
            for (int e = 0; e < 3; ++e) {
                const uint64_t a = base + v[e], b = base + v[(e + 1) % 3];
                if (a != b)
                    keys.push_back(std::min(a, b) << 32 | std::max(a, b));
            }
        }
        base += n;
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    std::vector<uint32_t> out;
    out.reserve(2 * keys.size());
    for (uint64_t k : keys) {
        out.push_back(uint32_t(k >> 32));
        out.push_back(uint32_t(k & 0xffffffffu));
    }
    return out;
}

std::vector<Segment> boxEdges(const glm::vec3& lo, const glm::vec3& hi)
{
    std::vector<Segment> out;
    out.reserve(12);
    const glm::vec3 d = hi - lo;
    for (int axis = 0; axis < 3; ++axis) {
        const int a = (axis + 1) % 3, b = (axis + 2) % 3;
        for (int corner = 0; corner < 4; ++corner) {
            glm::vec3 origin = lo;
            if (corner & 1)
                origin[a] = hi[a];
            if (corner & 2)
                origin[b] = hi[b];
            glm::vec3 dir(0.0f);
            dir[axis] = d[axis];
            out.push_back({origin, dir});
        }
    }
    return out;
}

} // namespace viewer
