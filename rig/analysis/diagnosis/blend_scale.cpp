#include "rig/analysis/diagnosis/blend_scale.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>

#include "rig/deform/deform.h"
#include "rig/platform/parallel.h"

namespace rig {

void extremeSingularValues(const glm::dmat3& a, double& smallest, double& largest)
{
    // The eigenvalues of the symmetric b = aᵀa (Smith's closed form): λ = q + 2p cos(φ + 2πk/3), the smallest at k = 1.
    const glm::dmat3 b = glm::transpose(a) * a;
    const double off = b[1][0] * b[1][0] + b[2][0] * b[2][0] + b[2][1] * b[2][1];
    const double q = (b[0][0] + b[1][1] + b[2][2]) / 3.0;
    smallest = largest = 0.0;
    if (!(q > 0.0) || !std::isfinite(q))
        return;
    if (off <= 1e-30 * q * q) { // diagonal
        smallest = std::sqrt(std::max(0.0, std::min({b[0][0], b[1][1], b[2][2]})));
        largest = std::sqrt(std::max({b[0][0], b[1][1], b[2][2]}));
        return;
    }
    const double d0 = b[0][0] - q, d1 = b[1][1] - q, d2 = b[2][2] - q;
    const double p = std::sqrt((d0 * d0 + d1 * d1 + d2 * d2 + 2.0 * off) / 6.0);
    glm::dmat3 c = b;
    for (int i = 0; i < 3; ++i)
        c[i][i] -= q;
    const double r = std::clamp(glm::determinant(c) / (2.0 * p * p * p), -1.0, 1.0);
    const double phi = std::acos(r) / 3.0;
    const double low = q + 2.0 * p * std::cos(phi + 2.0 * 3.14159265358979323846 / 3.0);
    const double high = q + 2.0 * p * std::cos(phi);
    const double middle = 3.0 * q - high - low;
    largest = std::sqrt(std::max(0.0, high));
    // Where a is nearly singular the closed form's smallest eigenvalue is a difference of large terms; det(b) / (the
    // product of the two others) gives it to full relative precision.
    if (middle > 0.0 && high > 0.0 && low < 1e-4 * high)
        smallest = std::fabs(glm::determinant(a)) / std::sqrt(middle * high);
    else
        smallest = std::sqrt(std::max(0.0, low));
}

double smallestSingularValue(const glm::dmat3& a)
{
    double smallest = 0.0, largest = 0.0;
    extremeSingularValues(a, smallest, largest);
    return smallest;
}

bool BlendScaleJob::validate() const
{
    if (perVertex != 4 && perVertex != 8)
        return false;
    const size_t n = outScale.size();
    if (outVolume.size() != n || joints.size() != n * size_t(perVertex) || weights.size() != joints.size() ||
        (!outIsotropy.empty() && outIsotropy.size() != n))
        return false;
    for (uint16_t j : joints)
        if (j >= palette.size())
            return false;
    return true;
}

void BlendScaleJob::run(size_t first, size_t last) const
{
    assert(validate());
    last = std::min(last, outScale.size());
    const size_t k = size_t(perVertex);
    for (size_t v = first; v < last; ++v) {
        // Dual quaternions blend the stretches S of R = Q S and turn the result rigidly; a vertex with a mirrored or
        // singular joint falls back to linear blending, as the method does.
        bool stretch = dualQuaternion;
        for (size_t i = 0; i < k && stretch; ++i) {
            const JointFrame& f = palette[joints[v * k + i]];
            stretch = weights[v * k + i] == 0.0f || (!f.mirrored && !f.singular);
        }
        glm::dmat3 a(0.0);
        double s = 0.0;
        for (size_t i = 0; i < k; ++i) {
            const double w = weights[v * k + i];
            if (w == 0.0)
                continue;
            const JointFrame& f = palette[joints[v * k + i]];
            const glm::dmat3 r(glm::mat3(f.matrix));
            a += w * (stretch ? glm::dmat3(f.stretch) : r);
            s += w * std::cbrt(std::fabs(glm::determinant(r)));
        }
        if (!(s > 0.0) || !std::isfinite(s) || !std::isfinite(glm::determinant(a))) {
            outScale[v] = kUndefinedScale;
            outVolume[v] = 0.0f;
            if (!outIsotropy.empty())
                outIsotropy[v] = kUndefinedScale;
            continue;
        }
        double smallest = 0.0, largest = 0.0;
        extremeSingularValues(a, smallest, largest);
        outScale[v] = float(smallest / s);
        outVolume[v] = float(glm::determinant(a) / (s * s * s));
        if (!outIsotropy.empty())
            outIsotropy[v] = largest > 0.0 ? float(smallest / largest) : kUndefinedScale;
    }
}


void twoLargestWeights(const InfluenceStream& stream, size_t v, size_t& first, size_t& second)
{
    const size_t k = size_t(stream.perVertex);
    first = second = k;
    for (size_t i = 0; i < k; ++i) {
        const float w = stream.weights[v * k + i];
        if (!(w > 0.0f))
            continue;
        if (first == k || w > stream.weights[v * k + first]) {
            second = first;
            first = i;
        } else if (second == k || w > stream.weights[v * k + second]) {
            second = i;
        }
    }
}

CandyWrapper measureCandyWrapper(const Rig& rig, const RigRuntime& runtime, const Evaluation& eval, unsigned threads)
{
    assert(runtime.meshes.size() == rig.meshes.size() && eval.meshes.size() == rig.meshes.size());
    CandyWrapper out;
    out.scale.resize(rig.meshes.size());
    out.volume.resize(rig.meshes.size());
    out.isotropy.resize(rig.meshes.size());
    std::map<std::pair<int, int>, uint32_t> bandIndex; // joint pair -> index into `bands`
    std::vector<BlendBand> bands;
    size_t total = 0;
    for (const Mesh& mesh : rig.meshes)
        total += mesh.vertexCount();
    std::vector<uint32_t> bandOf(total, UINT32_MAX); // global vertex -> its band, or none
    size_t meshBase = 0;
    // Each node's depth in the hierarchy (parents come before their children), once, not per vertex.
    std::vector<int> depth(rig.skeleton.nodes.size(), 0);
    for (size_t n = 0; n < depth.size(); ++n)
        depth[n] = rig.skeleton.nodes[n].parent >= 0 ? depth[size_t(rig.skeleton.nodes[n].parent)] + 1 : 0;
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        const InfluenceStream& stream = runtime.meshes[m].stream;
        const size_t n = mesh.vertexCount(), k = size_t(stream.perVertex);
        out.scale[m].assign(n, kUndefinedScale);
        out.volume[m].assign(n, 0.0f);
        BlendScaleJob job;
        job.perVertex = stream.perVertex;
        job.joints = stream.joints;
        job.weights = stream.weights;
        job.palette = eval.meshes[m].palette;
        out.isotropy[m].assign(n, kUndefinedScale);
        job.outScale = out.scale[m];
        job.outVolume = out.volume[m];
        job.outIsotropy = out.isotropy[m];
        if (!job.validate())
            continue; // the evaluation is of another rig: every vertex stays undefined
        parallelFor(n, 4096, threads, [&job](size_t b, size_t e) { job.run(b, e); });

        const Skin* skin = mesh.isSkinned() ? &rig.skins[size_t(mesh.skin)] : nullptr;
        auto nodeOf = [&](uint16_t j) { return skin && j < skin->joints.size() ? skin->joints[j] : -1; };
        for (size_t v = 0; v < n; ++v) {
            const float s = out.scale[m][v];
            if (s < 0.0f) {
                ++out.undefined;
                continue;
            }
            out.below09 += s < 0.9f ? 1 : 0;
            out.below07 += s < 0.7f ? 1 : 0;
            // The two largest weights (ties: the earlier slot).
            size_t first = k, second = k;
            twoLargestWeights(stream, v, first, second);
            int a = -1, b = -1;
            if (second != k) {
                a = nodeOf(stream.joints[v * k + first]);
                b = nodeOf(stream.joints[v * k + second]);
                if (a >= 0 && b >= 0 && (depth[size_t(a)] > depth[size_t(b)] || (depth[size_t(a)] == depth[size_t(b)] && a > b)))
                    std::swap(a, b);
            }
            if (out.worstMesh < 0 || s < out.minScale) {
                out.minScale = s;
                out.worstMesh = int(m);
                out.worstVertex = v;
                out.worstNodeA = a;
                out.worstNodeB = b;
            }
            if (a < 0 || b < 0)
                continue;
            auto [it, added] = bandIndex.try_emplace({a, b}, uint32_t(bands.size()));
            if (added)
                bands.emplace_back();
            bandOf[meshBase + v] = it->second;
            BlendBand& band = bands[it->second];
            if (band.vertices == 0 || s < band.worstScale) {
                band.worstScale = s;
                band.worstMesh = m;
                band.worstVertex = v;
            }
            band.nodeA = a;
            band.nodeB = b;
            ++band.vertices;
            band.below09 += s < 0.9f ? 1 : 0;
            band.below07 += s < 0.7f ? 1 : 0;
        }
        meshBase += n;
    }
    if (out.worstMesh < 0)
        out.minScale = 1.0f;
    // Worst scale first, ties by node indices (the map's order).
    std::vector<uint32_t> order;
    for (const auto& [key, index] : bandIndex)
        order.push_back(index);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t x, uint32_t y) { return bands[x].worstScale < bands[y].worstScale; });
    std::vector<uint32_t> rank(bands.size());
    for (size_t r = 0; r < order.size(); ++r) {
        rank[order[r]] = uint32_t(r);
        out.bands.push_back(std::move(bands[order[r]]));
        out.bands.back().vertexList.reserve(out.bands.back().vertices);
    }
    for (size_t v = 0; v < total; ++v)
        if (bandOf[v] != UINT32_MAX)
            out.bands[rank[bandOf[v]]].vertexList.push_back(uint32_t(v));
    return out;
}

} // namespace rig
