#include "rig/analysis/diagnosis/weight_bands.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <unordered_map>

namespace rig {

namespace {

/// Every vertex's usable raw weights, normalised, as (node, weight) runs: those of global vertex v are
/// [begin[v], begin[v + 1]). A joint listed twice is summed.
struct NormalisedWeights {
    std::vector<uint32_t> begin{0};
    std::vector<int> nodes;
    std::vector<float> weights;
    std::vector<glm::vec3> positions; ///< bind positions, global
    std::vector<uint32_t> meshBegin;  ///< global index of each mesh's first vertex

    std::pair<const int*, const float*> of(size_t v, size_t& n) const
    {
        n = begin[v + 1] - begin[v];
        return {nodes.data() + begin[v], weights.data() + begin[v]};
    }
    float weightOf(size_t v, int node) const
    {
        for (uint32_t i = begin[v]; i < begin[v + 1]; ++i)
            if (nodes[i] == node)
                return weights[i];
        return 0.0f;
    }
};

NormalisedWeights normalisedWeights(const Rig& rig)
{
    NormalisedWeights w;
    for (const Mesh& mesh : rig.meshes) {
        w.meshBegin.push_back(uint32_t(w.positions.size()));
        const Skin* skin = mesh.isSkinned() ? &rig.skins[size_t(mesh.skin)] : nullptr;
        const bool csr = skin && mesh.influenceOffsets.size() == mesh.vertexCount() + 1;
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            w.positions.push_back(mesh.positions[v]);
            const size_t start = w.nodes.size();
            double sum = 0.0;
            if (csr) {
                const uint32_t e = std::min<uint32_t>(mesh.influenceOffsets[v + 1], uint32_t(mesh.influences.size()));
                for (uint32_t i = mesh.influenceOffsets[v]; i < e; ++i) {
                    const Influence in = mesh.influences[i];
                    if (!(in.weight > 0.0f) || !std::isfinite(in.weight) || in.joint >= skin->joints.size())
                        continue;
                    const int node = skin->joints[in.joint];
                    auto it = std::find(w.nodes.begin() + ptrdiff_t(start), w.nodes.end(), node);
                    if (it != w.nodes.end()) {
                        w.weights[size_t(it - w.nodes.begin())] += in.weight;
                    } else {
                        w.nodes.push_back(node);
                        w.weights.push_back(in.weight);
                    }
                    sum += in.weight;
                }
            }
            if (!(sum > 0.0) || !std::isfinite(sum)) {
                w.nodes.resize(start);
                w.weights.resize(start);
            }
            for (size_t i = start; i < w.weights.size(); ++i)
                w.weights[i] = float(w.weights[i] / sum);
            w.begin.push_back(uint32_t(w.nodes.size()));
        }
    }
    return w;
}

/// Counts by ordered joint pair with the vertices involved, then the sorted list (most first, then by nodes).
struct PairTally {
    struct Entry {
        size_t count = 0;
        std::vector<uint32_t> vertices;
    };
    std::map<std::pair<int, int>, Entry> entries;
    void add(int a, int b, std::initializer_list<uint32_t> vertices)
    {
        Entry& e = entries[{std::min(a, b), std::max(a, b)}];
        ++e.count;
        e.vertices.insert(e.vertices.end(), vertices.begin(), vertices.end());
    }
    std::vector<JointPairCount> list()
    {
        std::vector<JointPairCount> out;
        for (auto& [k, e] : entries) {
            std::sort(e.vertices.begin(), e.vertices.end());
            e.vertices.erase(std::unique(e.vertices.begin(), e.vertices.end()), e.vertices.end());
            out.push_back({k.first, k.second, e.count, std::move(e.vertices)});
        }
        std::stable_sort(out.begin(), out.end(), [](const JointPairCount& x, const JointPairCount& y) { return x.count > y.count; });
        return out;
    }
};

bool isSeparator(char c)
{
    return c == '_' || c == '.' || c == '-' || c == ' ' || c == ':';
}

void hardBoundaries(const Rig& rig, const NormalisedWeights& w, const WeightBandSettings& s, WeightBands& out)
{
    PairTally pairs;
    std::vector<uint32_t> ends;
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        if (!mesh.isSkinned())
            continue;
        edges.clear();
        for (size_t t = 0; t + 3 <= mesh.indices.size(); t += 3)
            for (int c = 0; c < 3; ++c) {
                const uint32_t a = mesh.indices[t + size_t(c)], b = mesh.indices[t + size_t((c + 1) % 3)];
                if (a != b && a < mesh.vertexCount() && b < mesh.vertexCount())
                    edges.emplace_back(std::min(a, b), std::max(a, b));
            }
        std::sort(edges.begin(), edges.end());
        edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
        const uint32_t base = w.meshBegin[m];
        for (const auto& [la, lb] : edges) {
            const uint32_t a = base + la, b = base + lb;
            if (w.begin[a] == w.begin[a + 1] || w.begin[b] == w.begin[b + 1])
                continue; // an end without weights
            // The change of every joint of either end, b minus a.
            float gain = 0.0f, loss = 0.0f;
            int gainer = -1, loser = -1;
            auto consider = [&](int node) {
                const float d = w.weightOf(b, node) - w.weightOf(a, node);
                if (d > gain) {
                    gain = d;
                    gainer = node;
                }
                if (-d > loss) {
                    loss = -d;
                    loser = node;
                }
            };
            for (uint32_t i = w.begin[a]; i < w.begin[a + 1]; ++i)
                consider(w.nodes[i]);
            for (uint32_t i = w.begin[b]; i < w.begin[b + 1]; ++i)
                consider(w.nodes[i]);
            const float delta = std::max(gain, loss);
            out.maxDelta = std::max(out.maxDelta, delta);
            if (delta < s.hardBoundaryDelta || gainer < 0 || loser < 0)
                continue;
            ++out.hardBoundaryEdges;
            pairs.add(loser, gainer, {a, b});
            ends.push_back(a);
            ends.push_back(b);
            out.hardBoundaryEdgeList.push_back(a);
            out.hardBoundaryEdgeList.push_back(b);
        }
    }
    std::sort(ends.begin(), ends.end());
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    out.hardBoundaryVertices = std::move(ends);
    out.hardBoundaryPairs = pairs.list();
}

void nonAdjacent(const Rig& rig, const NormalisedWeights& w, const WeightBandSettings& s, WeightBands& out)
{
    const std::vector<Node>& nodes = rig.skeleton.nodes;
    std::vector<int> depth(nodes.size(), 0);
    for (size_t n = 0; n < nodes.size(); ++n) // parents come before their children
        depth[n] = nodes[n].parent >= 0 ? depth[size_t(nodes[n].parent)] + 1 : 0;
    std::unordered_map<uint64_t, int> cache;
    auto distance = [&](int a, int b) {
        const uint64_t key = uint64_t(uint32_t(std::min(a, b))) << 32 | uint32_t(std::max(a, b));
        if (auto it = cache.find(key); it != cache.end())
            return it->second;
        int x = a, y = b, d = 0;
        while (x != y) {
            if (x < 0 || y < 0) {
                d = 1 << 20; // different trees
                break;
            }
            if (depth[size_t(x)] >= depth[size_t(y)])
                x = nodes[size_t(x)].parent;
            else
                y = nodes[size_t(y)].parent;
            ++d;
        }
        cache.emplace(key, d);
        return d;
    };
    PairTally pairs;
    for (size_t v = 0; v + 1 < w.begin.size(); ++v) {
        int worstA = -1, worstB = -1, worst = s.adjacentDistance;
        for (uint32_t i = w.begin[v]; i < w.begin[v + 1]; ++i)
            for (uint32_t k = i + 1; k < w.begin[v + 1]; ++k) {
                if (w.weights[i] < s.minInfluence || w.weights[k] < s.minInfluence)
                    continue;
                const int d = distance(w.nodes[i], w.nodes[k]);
                if (d > worst) {
                    worst = d;
                    worstA = w.nodes[i];
                    worstB = w.nodes[k];
                }
            }
        if (worstA < 0)
            continue;
        ++out.nonAdjacentVertices;
        out.nonAdjacentList.push_back(uint32_t(v));
        pairs.add(worstA, worstB, {uint32_t(v)});
    }
    out.nonAdjacentPairs = pairs.list();
}

void symmetry(const Rig& rig, const NormalisedWeights& w, const WeightBandSettings& s, WeightBands& out)
{
    // Joints paired by name, and where each joint is at the bind pose (the inverse of its first inverse bind).
    const std::vector<Node>& nodes = rig.skeleton.nodes;
    std::vector<int> mirrorOf(nodes.size(), -1);
    // Names without a trailing "_<digits>" (exporters number joints: Fox's b_LeftUpperArm_09 and b_RightUpperArm_06),
    // where that base is unique.
    auto base = [](const std::string& n) {
        size_t e = n.size();
        while (e > 0 && n[e - 1] >= '0' && n[e - 1] <= '9')
            --e;
        return e < n.size() && e > 0 && n[e - 1] == '_' ? n.substr(0, e - 1) : n;
    };
    std::unordered_map<std::string, int> byBase;
    for (size_t n = 0; n < nodes.size(); ++n) {
        auto [it, added] = byBase.emplace(base(nodes[n].name), int(n));
        if (!added)
            it->second = -1; // not unique
    }
    for (size_t n = 0; n < nodes.size(); ++n) {
        const std::string other = mirroredJointName(nodes[n].name);
        int m = other.empty() ? -1 : rig.skeleton.find(other);
        if (m < 0 && !other.empty()) {
            auto it = byBase.find(base(other));
            m = it == byBase.end() ? -1 : it->second;
        }
        if (m >= 0 && m != int(n)) {
            mirrorOf[n] = m;
            if (int(n) < m)
                out.mirroredJoints.emplace_back(int(n), m);
        }
    }
    std::vector<glm::vec3> bindAt(nodes.size(), glm::vec3(NAN));
    for (const Skin& skin : rig.skins)
        for (size_t j = 0; j < skin.joints.size() && j < skin.inverseBind.size(); ++j)
            if (skin.joints[j] >= 0 && size_t(skin.joints[j]) < nodes.size() && std::isnan(bindAt[size_t(skin.joints[j])].x))
                bindAt[size_t(skin.joints[j])] = glm::vec3(glm::inverse(skin.inverseBind[j])[3]);
    glm::dvec3 spread(0.0);
    for (const auto& [a, b] : out.mirroredJoints)
        if (std::isfinite(bindAt[size_t(a)].x) && std::isfinite(bindAt[size_t(b)].x))
            spread += glm::abs(glm::dvec3(bindAt[size_t(a)] - bindAt[size_t(b)]));
    if (!(spread.x + spread.y + spread.z > 0.0))
        return; // no mirrored pair of joints placed apart: no plane to mirror across
    out.mirrorAxis = spread.x >= spread.y && spread.x >= spread.z ? 0 : spread.y >= spread.z ? 1 : 2;
    const int axis = out.mirrorAxis;
    double mid = 0.0;
    int placed = 0;
    for (const auto& [a, b] : out.mirroredJoints)
        if (std::isfinite(bindAt[size_t(a)].x) && std::isfinite(bindAt[size_t(b)].x)) {
            mid += 0.5 * (double(bindAt[size_t(a)][axis]) + double(bindAt[size_t(b)][axis]));
            ++placed;
        }
    out.mirrorOffset = float(mid / placed);

    // The weighted vertices in a hash grid of cells as wide as the partner tolerance.
    glm::vec3 lo(INFINITY), hi(-INFINITY);
    for (size_t v = 0; v < w.positions.size(); ++v)
        if (w.begin[v] != w.begin[v + 1] && std::isfinite(w.positions[v].x + w.positions[v].y + w.positions[v].z)) {
            lo = glm::min(lo, w.positions[v]);
            hi = glm::max(hi, w.positions[v]);
        }
    if (!(lo.x <= hi.x))
        return;
    const float tolerance = std::max(s.mirrorDistance * glm::length(hi - lo), 1e-12f);
    auto cellOf = [&](const glm::vec3& p) {
        const glm::dvec3 c = glm::floor(glm::dvec3(p - lo) / double(tolerance));
        return glm::i64vec3(c);
    };
    auto keyOf = [](const glm::i64vec3& c) {
        return uint64_t(c.x & 0x1FFFFF) | uint64_t(c.y & 0x1FFFFF) << 21 | uint64_t(c.z & 0x1FFFFF) << 42;
    };
    std::unordered_map<uint64_t, std::vector<uint32_t>> grid;
    for (size_t v = 0; v < w.positions.size(); ++v)
        if (w.begin[v] != w.begin[v + 1] && std::isfinite(w.positions[v].x + w.positions[v].y + w.positions[v].z))
            grid[keyOf(cellOf(w.positions[v]))].push_back(uint32_t(v));

    PairTally pairs;
    for (size_t v = 0; v < w.positions.size(); ++v) {
        if (w.begin[v] == w.begin[v + 1] || !std::isfinite(w.positions[v].x + w.positions[v].y + w.positions[v].z))
            continue;
        glm::vec3 m = w.positions[v];
        m[axis] = 2.0f * out.mirrorOffset - m[axis];
        const glm::i64vec3 c = cellOf(m);
        int partner = -1;
        float best = tolerance;
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    auto it = grid.find(keyOf(c + glm::i64vec3(dx, dy, dz)));
                    if (it == grid.end())
                        continue;
                    for (uint32_t u : it->second) {
                        const float d = glm::length(w.positions[u] - m);
                        if (d <= best) {
                            best = d;
                            partner = int(u);
                        }
                    }
                }
        if (partner < 0) {
            ++out.unmatchedVertices;
            continue;
        }
        // Joint j of v against its mirror on the partner, over both vertices' joints.
        float worst = 0.0f;
        int worstJoint = -1;
        auto mirrorNode = [&](int n) { return mirrorOf[size_t(n)] >= 0 ? mirrorOf[size_t(n)] : n; };
        for (uint32_t i = w.begin[v]; i < w.begin[v + 1]; ++i) {
            const float d = std::fabs(w.weights[i] - w.weightOf(size_t(partner), mirrorNode(w.nodes[i])));
            if (d > worst) {
                worst = d;
                worstJoint = w.nodes[i];
            }
        }
        for (uint32_t i = w.begin[size_t(partner)]; i < w.begin[size_t(partner) + 1]; ++i) {
            const int mine = mirrorNode(w.nodes[i]);
            const float d = std::fabs(w.weights[i] - w.weightOf(v, mine));
            if (d > worst) {
                worst = d;
                worstJoint = mine;
            }
        }
        out.maxAsymmetry = std::max(out.maxAsymmetry, worst);
        if (worst <= s.symmetryTolerance || worstJoint < 0)
            continue;
        ++out.asymmetricVertices;
        out.asymmetricList.push_back(uint32_t(v));
        pairs.add(worstJoint, mirrorNode(worstJoint), {uint32_t(v)});
    }
    out.asymmetricPairs = pairs.list();
}

} // namespace

std::string mirroredJointName(std::string_view name)
{
    // Longest markers first, so that "Left" is not read as "L" + "eft".
    static const std::pair<std::string_view, std::string_view> markers[] = {
        {"Left", "Right"}, {"Right", "Left"}, {"LEFT", "RIGHT"}, {"RIGHT", "LEFT"}, {"left", "right"},
        {"right", "left"}, {"L", "R"}, {"R", "L"}, {"l", "r"}, {"r", "l"}};
    auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
    auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    for (const auto& [from, to] : markers) {
        for (size_t at = name.find(from); at != std::string_view::npos; at = name.find(from, at + 1)) {
            const size_t end = at + from.size();
            const bool atStart = at == 0 || isSeparator(name[at - 1]);
            const bool atEnd = end == name.size() || isSeparator(name[end]);
            bool ok;
            if (from.size() == 1) // "L", "r": a word of its own ("arm_L", "L_arm", "Bip01 L Thigh"), or an upper-case
                                  // letter ending a camel-case name ("UpperArmL", "Thumb2R")
                ok = (atStart && atEnd) ||
                     (upper(from[0]) && end == name.size() && at > 0 && (lower(name[at - 1]) || digit(name[at - 1])));
            else if (upper(from[0]) && lower(from[1])) // "Left": also inside camel case ("b_LeftUpperArm", "upperLeft")
                ok = (atStart || lower(name[at - 1]) || digit(name[at - 1])) && (atEnd || upper(name[end]) || digit(name[end]));
            else // "left", "LEFT": a word, or before an upper-case or a digit ("leftArm", "LEFT_ARM")
                ok = atStart && (atEnd || upper(name[end]) || digit(name[end]));
            if (ok) {
                std::string out(name);
                out.replace(at, from.size(), to);
                return out;
            }
        }
    }
    return {};
}

WeightBands diagnoseWeightBands(const Rig& rig, const WeightBandSettings& settings)
{
    WeightBands out;
    const NormalisedWeights w = normalisedWeights(rig);
    hardBoundaries(rig, w, settings, out);
    nonAdjacent(rig, w, settings, out);
    symmetry(rig, w, settings, out);
    return out;
}

} // namespace rig
