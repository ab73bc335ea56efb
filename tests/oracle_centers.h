// The centres of rotation of Le & Hodgins 2016 the slow, obvious way, in double: every vertex against every triangle,
// the similarity summed over every ordered joint pair. An oracle for rig::CenterOfRotationJob (which visits only the
// triangles of each joint pair) that shares none of its code.
#pragma once

#include <cmath>
#include <map>
#include <optional>
#include <vector>

#include <glm/glm.hpp>

namespace testoracle {

using WeightMap = std::map<int, double>; ///< joint → weight, weights > 0

/// s(w_p, w_v) = Σ_{j≠k} w_pj w_pk w_vj w_vk exp(−(w_pj w_vk − w_pk w_vj)² / σ²).
inline double similarity(const WeightMap& p, const WeightMap& v, double sigma)
{
    double s = 0.0;
    for (const auto& [j, wpj] : p)
        for (const auto& [k, wpk] : p) {
            if (j == k)
                continue;
            const auto vj = v.find(j), vk = v.find(k);
            if (vj == v.end() || vk == v.end())
                continue;
            const double d = wpj * vk->second - wpk * vj->second;
            s += wpj * wpk * vj->second * vk->second * std::exp(-d * d / (sigma * sigma));
        }
    return s;
}

/// The mesh's triangles (bind-pose area, centroid, the mean of their corners' weight maps), then any weight map's
/// centre: Σ_t s(w, w_t) a_t c_t / Σ_t s(w, w_t) a_t over every triangle, or nullopt where w has fewer than two
/// joints or no triangle is similar.
class CenterOracle {
public:
    CenterOracle(const std::vector<glm::dvec3>& positions, const std::vector<uint32_t>& indices,
                 const std::vector<WeightMap>& weights, double sigma)
        : m_sigma(sigma)
    {
        for (size_t t = 0; t + 2 < indices.size(); t += 3) {
            const glm::dvec3 a = positions[indices[t]], b = positions[indices[t + 1]], c = positions[indices[t + 2]];
            Tri tri;
            tri.area = 0.5 * glm::length(glm::cross(b - a, c - a));
            if (!(tri.area > 0.0))
                continue;
            tri.centroid = (a + b + c) / 3.0;
            for (int i = 0; i < 3; ++i)
                for (const auto& [j, w] : weights[indices[t + size_t(i)]])
                    tri.w[j] += w / 3.0;
            m_tris.push_back(std::move(tri));
        }
    }

    std::optional<glm::dvec3> center(const WeightMap& w) const
    {
        if (w.size() < 2)
            return std::nullopt;
        double sum = 0.0;
        glm::dvec3 acc(0.0);
        for (const Tri& t : m_tris) {
            const double s = similarity(w, t.w, m_sigma) * t.area;
            sum += s;
            acc += s * t.centroid;
        }
        if (!(sum > 0.0))
            return std::nullopt;
        return acc / sum;
    }

private:
    struct Tri {
        WeightMap w;
        double area = 0.0;
        glm::dvec3 centroid{0.0};
    };
    std::vector<Tri> m_tris;
    double m_sigma;
};

} // namespace testoracle
