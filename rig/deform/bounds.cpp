#include "rig/deform/bounds.h"

#include <cassert>
#include <cmath>

#include "rig/deform/influences.h"
#include "rig/model/model.h"
#include "rig/model/pose.h"

namespace rig {

bool containsBounds(const Bounds& outer, const Bounds& inner, float tolerance)
{
    if (inner.empty())
        return true;
    if (outer.empty())
        return false;
    const glm::vec3 t(tolerance);
    return glm::all(glm::lessThanEqual(outer.min - t, inner.min)) && glm::all(glm::lessThanEqual(inner.max, outer.max + t));
}

Bounds pointBounds(std::span<const glm::vec3> points)
{
    Bounds b;
    for (const glm::vec3& p : points)
        if (std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z))
            b.add(p);
    return b;
}

Bounds transformBounds(const Bounds& box, const glm::mat4& m)
{
    if (box.empty())
        return box;
    const glm::vec3 c = (box.min + box.max) * 0.5f, e = (box.max - box.min) * 0.5f;
    const glm::mat3 a(m);
    const glm::vec3 centre = a * c + glm::vec3(m[3]);
    const glm::mat3 abs(glm::abs(a[0]), glm::abs(a[1]), glm::abs(a[2]));
    const glm::vec3 half = abs * e;
    Bounds out;
    out.min = centre - half;
    out.max = centre + half;
    return out;
}

std::vector<Bounds> buildJointBoxes(const Mesh& mesh, const InfluenceStream& stream)
{
    std::vector<Bounds> boxes(stream.paletteSize);
    const size_t n = mesh.vertexCount();
    const size_t k = size_t(stream.perVertex);
    assert(stream.joints.size() == n * k && stream.weights.size() == n * k);
    for (size_t v = 0; v < n; ++v) {
        const glm::vec3 p = mesh.positions[v];
        glm::vec3 lo = p, hi = p;
        for (const MorphTarget& t : mesh.morphTargets)
            if (v < t.positionDeltas.size()) {
                const glm::vec3 d = t.positionDeltas[v];
                lo += glm::min(d, glm::vec3(0.0f));
                hi += glm::max(d, glm::vec3(0.0f));
            }
        if (!(std::isfinite(lo.x + lo.y + lo.z) && std::isfinite(hi.x + hi.y + hi.z)))
            continue;
        for (size_t s = 0; s < k; ++s) {
            const size_t i = v * k + s;
            if (!(stream.weights[i] > 0.0f))
                continue;
            const size_t j = stream.joints[i];
            if (j < boxes.size()) {
                boxes[j].add(lo);
                boxes[j].add(hi);
            }
        }
    }
    return boxes;
}

Bounds perBoneBounds(const Rig& rig, std::span<const std::vector<Bounds>> jointBoxes, const std::vector<glm::mat4>& world,
                     const std::vector<std::vector<glm::mat4>>& skinPalettes)
{
    assert(jointBoxes.size() == rig.meshes.size());
    Bounds out;
    for (size_t m = 0; m < rig.meshes.size() && m < jointBoxes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        const std::vector<Bounds>& boxes = jointBoxes[m];
        if (mesh.isSkinned()) {
            const std::vector<glm::mat4>& palette = skinPalettes[size_t(mesh.skin)];
            for (size_t j = 0; j < boxes.size(); ++j)
                out.add(j < palette.size() ? transformBounds(boxes[j], palette[j]) : boxes[j]); // the last: identity
        } else if (!boxes.empty()) {
            const glm::mat4 node = mesh.node >= 0 && size_t(mesh.node) < world.size() ? world[size_t(mesh.node)] : glm::mat4(1.0f);
            out.add(transformBounds(boxes[0], node));
        }
    }
    return out;
}

Bounds perBoneBounds(const Rig& rig, std::span<const std::vector<Bounds>> jointBoxes, const std::vector<glm::mat4>& world)
{
    std::vector<std::vector<glm::mat4>> palettes;
    evaluatePalettes(rig, world, palettes);
    return perBoneBounds(rig, jointBoxes, world, palettes);
}

double volumeRatio(const Bounds& loose, const Bounds& tight)
{
    const double t = tight.volume();
    return t > 0.0 ? loose.volume() / t : 0.0;
}

double diagonalRatio(const Bounds& loose, const Bounds& tight)
{
    const double t = tight.diagonal();
    return t > 0.0 ? loose.diagonal() / t : 0.0;
}

} // namespace rig
