// Bounding boxes of a skinned rig: the exact box of the final positions, and the conservative box an engine computes
// without touching a vertex — each bone's bind-space box of the vertices it influences, transformed by the bone's
// skinning matrix, and their union.
//
// Why the union bounds linear blending: a linear-blend position is Σ wᵢ Mᵢ p with wᵢ ≥ 0 and Σ wᵢ = 1, a convex
// combination of the points Mᵢ p; each Mᵢ p lies in Mᵢ(box of joint i) because p lies in the box of every joint that
// influences it, so the blend lies in the convex hull of those boxes, inside their union's box. The transformed box
// is the exact box of the affine image (centre M·c, half extent |A|·e with |A| the entry-wise absolute value of the
// 3×3): a shear is bounded correctly, where the longest column times the extent is not an upper bound.
// Morph targets move vertices before skinning: each vertex's box is widened by its targets' deltas at weights
// in [0, 1] (p + Σ min(0, d), p + Σ max(0, d)), so the union holds for every morph weight in [0, 1].
// It does not hold for dual-quaternion or center-of-rotation positions (not convex combinations of Mᵢ p), nor for
// weights that do not sum to one or morph weights outside [0, 1]: containsBounds() says whether it did.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

#include <glm/glm.hpp>

namespace rig {

struct Rig;
struct InfluenceStream;
struct Mesh;

/// An axis-aligned box; empty (min > max) until a point is added.
struct Bounds {
    glm::vec3 min{std::numeric_limits<float>::infinity()};
    glm::vec3 max{-std::numeric_limits<float>::infinity()};

    bool empty() const { return !(min.x <= max.x && min.y <= max.y && min.z <= max.z); }
    void add(const glm::vec3& p)
    {
        min = glm::min(min, p);
        max = glm::max(max, p);
    }
    void add(const Bounds& b)
    {
        if (!b.empty())
            min = glm::min(min, b.min), max = glm::max(max, b.max);
    }
    glm::vec3 size() const { return empty() ? glm::vec3(0.0f) : max - min; }
    /// 0 for an empty or flat box.
    double volume() const
    {
        const glm::vec3 s = size();
        return double(s.x) * double(s.y) * double(s.z);
    }
    double diagonal() const { return empty() ? 0.0 : double(glm::length(max - min)); }
};

/// True when `outer`, grown by `tolerance` on every side, contains `inner` (an empty inner is contained in anything).
/// The per-bone box and a kernel's blend round differently: compare with a tolerance of about 1e-5 of the diagonal.
bool containsBounds(const Bounds& outer, const Bounds& inner, float tolerance = 0.0f);

/// The box of the finite points of `points` (non-finite ones are left out: an undefined position has no place).
Bounds pointBounds(std::span<const glm::vec3> points);

/// The exact box of the image of `box` under the affine part of `m` (a 3×4: the projective row is ignored).
Bounds transformBounds(const Bounds& box, const glm::mat4& m);

/// Each palette entry's bind-space box (the header's rule): per vertex, the box of its position widened by its morph
/// targets' deltas, added to the box of every entry the stream gives it with a weight above 0 (an unbound vertex's
/// entry is the identity's, the last). O(vertices × (K + morph targets)). Entries no vertex uses stay empty.
std::vector<Bounds> buildJointBoxes(const Mesh& mesh, const InfluenceStream& stream);

/// The per-bone box of the whole rig in a pose: the union over meshes of each entry's box transformed by that mesh's
/// palette matrix (skin matrices then the identity for skinned meshes, the node's world matrix for a rigid one), from
/// `world` (evaluateWorld) — O(joints), nothing per vertex. `jointBoxes` holds one buildJointBoxes result per mesh.
Bounds perBoneBounds(const Rig& rig, std::span<const std::vector<Bounds>> jointBoxes,
                     const std::vector<glm::mat4>& world);

/// The same, with the skin palettes already built (evaluatePalettes) — no allocation.
Bounds perBoneBounds(const Rig& rig, std::span<const std::vector<Bounds>> jointBoxes,
                     const std::vector<glm::mat4>& world, const std::vector<std::vector<glm::mat4>>& skinPalettes);

/// How much larger `loose` is than `tight`: the volume ratio, or 0 where the tight box is flat or empty (the diagonal
/// ratio is then the measure that stays defined).
double volumeRatio(const Bounds& loose, const Bounds& tight);
double diagonalRatio(const Bounds& loose, const Bounds& tight);

} // namespace rig
