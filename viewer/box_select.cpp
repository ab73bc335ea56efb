#include "box_select.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace viewer {

namespace {

constexpr float kDepthTolerance = 1.005f; // a vertex is hidden only behind a surface 0.5 % nearer than itself
constexpr double kMaxSamples = 1024.0 * 1024.0;
constexpr float kEdge = 1e-5f; // barycentric slack on triangle edges

struct Projected {
    glm::vec2 px{0.0f};
    float invW = 0.0f; // 1 / clip w: affine across the screen under a perspective projection; 0 = not projectable
};

Projected projectPoint(const ScreenProjector& view, const glm::vec3& p)
{
    Projected out;
    if (!std::isfinite(p.x + p.y + p.z))
        return out;
    const glm::vec4 c = view.viewProj * glm::vec4(p, 1.0f);
    if (!(c.w > 1e-6f))
        return out;
    const glm::vec2 ndc(c.x / c.w, c.y / c.w);
    out.px = view.origin + glm::vec2((ndc.x * 0.5f + 0.5f) * view.size.x, (0.5f - ndc.y * 0.5f) * view.size.y);
    if (std::isfinite(out.px.x) && std::isfinite(out.px.y))
        out.invW = 1.0f / c.w;
    return out;
}

/// The nearest surface (largest 1/w) over a grid of samples covering the box, `scale` pixels apart.
struct DepthGrid {
    glm::vec2 origin{0.0f};
    float scale = 1.0f;
    int w = 0, h = 0;
    std::vector<float> invW; // 0: no surface

    void rasterize(const Projected& a, const Projected& b, const Projected& c)
    {
        if (a.invW <= 0.0f || b.invW <= 0.0f || c.invW <= 0.0f)
            return; // a corner behind the camera: the triangle hides nothing here (conservative)
        // Into sample space: sample (i, j) sits at origin + (i + 0.5, j + 0.5) * scale.
        const glm::vec2 p0 = (a.px - origin) / scale, p1 = (b.px - origin) / scale, p2 = (c.px - origin) / scale;
        const float area = (p1.x - p0.x) * (p2.y - p0.y) - (p1.y - p0.y) * (p2.x - p0.x);
        if (!(std::fabs(area) > 1e-12f))
            return; // edge-on or degenerate: covers nothing
        const float lo_x = std::min({p0.x, p1.x, p2.x}), hi_x = std::max({p0.x, p1.x, p2.x});
        const float lo_y = std::min({p0.y, p1.y, p2.y}), hi_y = std::max({p0.y, p1.y, p2.y});
        const int i0 = std::max(0, int(std::ceil(lo_x - 0.5f))), i1 = std::min(w - 1, int(std::floor(hi_x - 0.5f)));
        const int j0 = std::max(0, int(std::ceil(lo_y - 0.5f))), j1 = std::min(h - 1, int(std::floor(hi_y - 0.5f)));
        const float inv = 1.0f / area;
        for (int j = j0; j <= j1; ++j) {
            const float y = float(j) + 0.5f;
            for (int i = i0; i <= i1; ++i) {
                const float x = float(i) + 0.5f;
                // Barycentric weights of the sample; inside (either winding) when none is below -kEdge: a sample on
                // an edge shared by two triangles belongs to both rather than (by rounding) to neither.
                const float w0 = ((p1.x - x) * (p2.y - y) - (p1.y - y) * (p2.x - x)) * inv;
                const float w1 = ((p2.x - x) * (p0.y - y) - (p2.y - y) * (p0.x - x)) * inv;
                const float w2 = 1.0f - w0 - w1;
                if (w0 < -kEdge || w1 < -kEdge || w2 < -kEdge)
                    continue;
                const float d = w0 * a.invW + w1 * b.invW + w2 * c.invW;
                float& cell = invW[size_t(j) * size_t(w) + size_t(i)];
                cell = std::max(cell, d);
            }
        }
    }

    /// True when no surface of the grid around the point (its sample and the eight beside it) is clearly nearer.
    /// The farthest of those nine is the one compared: a vertex sits on its own triangles, whose depth at a sample
    /// half a pixel away may be a little nearer than the vertex on a slanted surface.
    bool visible(const Projected& p) const
    {
        const int ci = int(std::floor((p.px.x - origin.x) / scale)), cj = int(std::floor((p.px.y - origin.y) / scale));
        float farthest = std::numeric_limits<float>::infinity(); // as 1/w: the smallest
        for (int j = std::max(cj - 1, 0); j <= std::min(cj + 1, h - 1); ++j)
            for (int i = std::max(ci - 1, 0); i <= std::min(ci + 1, w - 1); ++i)
                farthest = std::min(farthest, invW[size_t(j) * size_t(w) + size_t(i)]);
        if (!std::isfinite(farthest))
            return true;
        return p.invW * kDepthTolerance >= farthest;
    }
};

} // namespace

std::vector<uint32_t> selectInBox(const rig::Rig& rig, const rig::Evaluation& eval, rig::Method method,
                                  const BoxSelectQuery& q)
{
    std::vector<uint32_t> out;
    const glm::vec2 lo = glm::min(q.corner0, q.corner1), hi = glm::max(q.corner0, q.corner1);
    if (!(hi.x > lo.x) || !(hi.y > lo.y) || !std::isfinite(lo.x + lo.y + hi.x + hi.y))
        return out;
    const size_t meshes = std::min(rig.meshes.size(), eval.meshes.size());

    DepthGrid grid;
    if (!q.throughMesh) {
        const double samples = double(hi.x - lo.x) * double(hi.y - lo.y);
        grid.scale = samples > kMaxSamples ? float(std::sqrt(samples / kMaxSamples)) : 1.0f;
        grid.origin = lo;
        grid.w = std::max(1, int(std::ceil((hi.x - lo.x) / grid.scale)));
        grid.h = std::max(1, int(std::ceil((hi.y - lo.y) / grid.scale)));
        grid.invW.assign(size_t(grid.w) * size_t(grid.h), 0.0f);
        for (size_t m = 0; m < meshes; ++m) {
            const std::vector<glm::vec3>& pos = eval.meshes[m].surfaceOf(method).positions;
            const std::vector<uint32_t>& idx = rig.meshes[m].indices;
            for (size_t t = 0; t + 2 < idx.size(); t += 3) {
                if (idx[t] >= pos.size() || idx[t + 1] >= pos.size() || idx[t + 2] >= pos.size())
                    continue;
                grid.rasterize(projectPoint(q.view, pos[idx[t]]), projectPoint(q.view, pos[idx[t + 1]]),
                               projectPoint(q.view, pos[idx[t + 2]]));
            }
        }
    }

    size_t base = 0;
    for (size_t m = 0; m < eval.meshes.size(); ++m) {
        const std::vector<glm::vec3>& pos = eval.meshes[m].surfaceOf(method).positions;
        for (size_t v = 0; v < pos.size(); ++v) {
            const Projected p = projectPoint(q.view, pos[v]);
            if (p.invW <= 0.0f || p.px.x < lo.x || p.px.x > hi.x || p.px.y < lo.y || p.px.y > hi.y)
                continue;
            if (q.throughMesh || grid.visible(p))
                out.push_back(uint32_t(base + v));
        }
        base += pos.size();
    }
    return out;
}

std::vector<uint32_t> combineSelection(const std::vector<uint32_t>& current, const std::vector<uint32_t>& box, bool remove)
{
    std::vector<uint32_t> out;
    out.reserve(remove ? current.size() : current.size() + box.size());
    if (remove)
        std::set_difference(current.begin(), current.end(), box.begin(), box.end(), std::back_inserter(out));
    else
        std::set_union(current.begin(), current.end(), box.begin(), box.end(), std::back_inserter(out));
    return out;
}

} // namespace viewer
