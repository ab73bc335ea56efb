#include "rig/deform/centers_of_rotation.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "rig/platform/parallel.h"

namespace rig {

namespace {

/// A vertex's or a triangle's weights: distinct joints in increasing order with their summed weights, each > 0.
struct SparseWeights {
    uint16_t joint[24];
    float weight[24];
    int count = 0;
    void add(uint16_t j, float w)
    {
        if (!(w > 0.0f))
            return;
        int i = 0;
        while (i < count && joint[i] < j)
            ++i;
        if (i < count && joint[i] == j) {
            weight[i] += w;
            return;
        }
        for (int k = count; k > i; --k) {
            joint[k] = joint[k - 1];
            weight[k] = weight[k - 1];
        }
        joint[i] = j;
        weight[i] = w;
        ++count;
    }
    uint64_t hash() const
    {
        uint64_t h = 0x9e3779b97f4a7c15ull ^ uint64_t(count);
        for (int i = 0; i < count; ++i) {
            uint32_t bits;
            std::memcpy(&bits, &weight[i], 4);
            h = (h ^ (uint64_t(joint[i]) << 32 | bits)) * 0xff51afd7ed558ccdull;
            h ^= h >> 29;
        }
        return h;
    }
};

bool sameWeights(const uint16_t* ja, const float* wa, int na, const SparseWeights& b)
{
    if (na != b.count)
        return false;
    for (int i = 0; i < na; ++i)
        if (ja[i] != b.joint[i] || std::memcmp(&wa[i], &b.weight[i], 4) != 0)
            return false;
    return true;
}

/// Distinct weight vectors, each stored once (joints and weights pooled), found by an open-addressing hash.
class WeightSet {
public:
    explicit WeightSet(size_t expected)
    {
        size_t cap = 64;
        while (cap < 2 * expected)
            cap *= 2;
        m_slots.assign(cap, UINT32_MAX);
    }
    /// The index of `w` in the set, added when new (`added` then true).
    uint32_t find(const SparseWeights& w, bool& added)
    {
        if (2 * (m_begin.size() + 1) > m_slots.size())
            grow();
        const uint64_t h = w.hash();
        size_t at = size_t(h) & (m_slots.size() - 1);
        while (m_slots[at] != UINT32_MAX) {
            const uint32_t id = m_slots[at];
            if (m_hashes[id] == h && sameWeights(&m_joints[m_begin[id]], &m_weights[m_begin[id]], count(id), w)) {
                added = false;
                return id;
            }
            at = (at + 1) & (m_slots.size() - 1);
        }
        const uint32_t id = uint32_t(m_begin.size());
        m_slots[at] = id;
        m_hashes.push_back(h);
        m_begin.push_back(uint32_t(m_joints.size()));
        m_joints.insert(m_joints.end(), w.joint, w.joint + w.count);
        m_weights.insert(m_weights.end(), w.weight, w.weight + w.count);
        added = true;
        return id;
    }
    size_t size() const { return m_begin.size(); }
    int count(uint32_t id) const
    {
        const size_t end = id + 1 < m_begin.size() ? m_begin[id + 1] : m_joints.size();
        return int(end - m_begin[id]);
    }
    const uint16_t* joints(uint32_t id) const { return &m_joints[m_begin[id]]; }
    const float* weights(uint32_t id) const { return &m_weights[m_begin[id]]; }

private:
    void grow()
    {
        std::vector<uint32_t> slots(2 * m_slots.size(), UINT32_MAX);
        for (uint32_t id = 0; id < m_begin.size(); ++id) {
            size_t at = size_t(m_hashes[id]) & (slots.size() - 1);
            while (slots[at] != UINT32_MAX)
                at = (at + 1) & (slots.size() - 1);
            slots[at] = id;
        }
        m_slots = std::move(slots);
    }
    std::vector<uint32_t> m_slots;
    std::vector<uint64_t> m_hashes;
    std::vector<uint32_t> m_begin;
    std::vector<uint16_t> m_joints;
    std::vector<float> m_weights;
};

/// Triangles (or a cell of them) in the list of one joint pair (a, b), a < b: their weights of a and b, their mass
/// Σ a_t · w_ta · w_tb, and their mass-weighted centroid.
struct PairEntry {
    float wa, wb, mass;
    float cx, cy, cz;
};

uint32_t pairKey(uint16_t a, uint16_t b)
{
    return (uint32_t(a) << 16) | b; // a < b
}

} // namespace

bool CenterOfRotationJob::validate() const
{
    const size_t n = positions.size();
    const size_t k = size_t(influencesPerVertex);
    if (influencesPerVertex < 1 || influencesPerVertex > 8)
        return false;
    if (joints.size() != n * k || weights.size() != n * k || outCenters.size() != n)
        return false;
    if (!outDefined.empty() && outDefined.size() != n)
        return false;
    if (indices.size() % 3 != 0)
        return false;
    return std::isfinite(sigma) && sigma > 0.0f;
}

bool CenterOfRotationJob::run() const
{
    const size_t n = positions.size();
    const size_t k = size_t(influencesPerVertex);
    auto vertexWeights = [&](size_t v, SparseWeights& s) {
        for (size_t i = 0; i < k; ++i)
            s.add(joints[v * k + i], weights[v * k + i]);
    };
    auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };

    // 1. Triangles by their weight vector (the mean of their corners'): area and area-weighted centroid summed over
    //    the triangles that share one. A rig whose weights repeat (along a limb's rings, a generated sheet) has far
    //    fewer vectors than triangles; the sum below is the same either way.
    WeightSet triangleWeights(indices.size() / 3);
    std::vector<double> groupArea;
    std::vector<glm::dvec3> groupMoment;
    for (size_t t = 0; t + 2 < indices.size(); t += 3) {
        const uint32_t i0 = indices[t], i1 = indices[t + 1], i2 = indices[t + 2];
        if (i0 >= n || i1 >= n || i2 >= n)
            continue;
        const glm::vec3 p0 = positions[i0], p1 = positions[i1], p2 = positions[i2];
        const float area = 0.5f * glm::length(glm::cross(p1 - p0, p2 - p0));
        if (!(area > 0.0f) || !std::isfinite(area))
            continue;
        const glm::vec3 c = (p0 + p1 + p2) * (1.0f / 3.0f);
        SparseWeights s;
        vertexWeights(i0, s);
        vertexWeights(i1, s);
        vertexWeights(i2, s);
        if (s.count < 2)
            continue; // no pair: no similarity with anything
        for (int i = 0; i < s.count; ++i)
            s.weight[i] *= 1.0f / 3.0f;
        bool added = false;
        const uint32_t g = triangleWeights.find(s, added);
        if (added) {
            groupArea.push_back(0.0);
            groupMoment.push_back(glm::dvec3(0.0));
        }
        groupArea[g] += double(area);
        groupMoment[g] += double(area) * glm::dvec3(c);
    }
    if (cancelled())
        return false;

    // 2. Every group into the list of each joint pair it weights, sorted by pair.
    struct Keyed {
        uint32_t key;
        PairEntry e;
    };
    std::vector<Keyed> keyed;
    for (uint32_t g = 0; g < triangleWeights.size(); ++g) {
        const uint16_t* j = triangleWeights.joints(g);
        const float* w = triangleWeights.weights(g);
        const int count = triangleWeights.count(g);
        const glm::dvec3 c = groupMoment[g] / groupArea[g];
        for (int a = 0; a < count; ++a)
            for (int b = a + 1; b < count; ++b)
                keyed.push_back({pairKey(j[a], j[b]),
                                 {w[a], w[b], float(groupArea[g] * double(w[a]) * double(w[b])), float(c.x), float(c.y),
                                  float(c.z)}});
    }
    std::sort(keyed.begin(), keyed.end(), [](const Keyed& x, const Keyed& y) { return x.key < y.key; });
    std::vector<uint32_t> keys;                  // distinct, ascending
    std::vector<std::pair<size_t, size_t>> lists; // per key: [begin, end) in entries
    std::vector<PairEntry> entries;
    entries.reserve(keyed.size());
    for (size_t i = 0; i < keyed.size();) {
        size_t e = i;
        while (e < keyed.size() && keyed[e].key == keyed[i].key)
            ++e;
        const size_t begin = entries.size();
        if (e - i <= exactEntries) {
            for (size_t x = i; x < e; ++x)
                entries.push_back(keyed[x].e);
        } else {
            // A long list: its entries merged by cell of (w_a, w_b) on a kCenterOfRotationCells² grid, each cell's
            // weights and centroid the mass-weighted means of its entries'.
            constexpr float cells = float(kCenterOfRotationCells);
            auto cellOf = [&](const PairEntry& x) {
                const uint32_t qa = std::min(uint32_t(x.wa * cells), kCenterOfRotationCells - 1);
                const uint32_t qb = std::min(uint32_t(x.wb * cells), kCenterOfRotationCells - 1);
                return qa * kCenterOfRotationCells + qb;
            };
            std::sort(keyed.begin() + ptrdiff_t(i), keyed.begin() + ptrdiff_t(e),
                      [&](const Keyed& x, const Keyed& y) { return cellOf(x.e) < cellOf(y.e); });
            for (size_t x = i; x < e;) {
                const uint32_t cell = cellOf(keyed[x].e);
                double m = 0.0, wa = 0.0, wb = 0.0;
                glm::dvec3 c(0.0);
                for (; x < e && cellOf(keyed[x].e) == cell; ++x) {
                    const PairEntry& y = keyed[x].e;
                    m += y.mass;
                    wa += double(y.mass) * y.wa;
                    wb += double(y.mass) * y.wb;
                    c += double(y.mass) * glm::dvec3(y.cx, y.cy, y.cz);
                }
                if (m > 0.0)
                    entries.push_back({float(wa / m), float(wb / m), float(m), float(c.x / m), float(c.y / m),
                                       float(c.z / m)});
            }
        }
        keys.push_back(keyed[i].key);
        lists.emplace_back(begin, entries.size());
        i = e;
    }
    keyed = {};
    if (cancelled())
        return false;

    // 3. Vertices by their weight vector: one centre per distinct vector (it depends on nothing else).
    WeightSet vertexSet(n);
    std::vector<uint32_t> vertexGroup(n);
    for (size_t v = 0; v < n; ++v) {
        SparseWeights s;
        vertexWeights(v, s);
        bool added = false;
        vertexGroup[v] = vertexSet.find(s, added);
    }
    std::vector<glm::vec3> groupCenter(vertexSet.size());
    std::vector<uint8_t> groupDefined(vertexSet.size());

    // 4. Per distinct vector: the similarity-weighted mean of the centroids over its joint pairs' lists.
    const float inverseSigma2 = 1.0f / (sigma * sigma);
    std::atomic<bool> stopped{false};
    parallelFor(vertexSet.size(), 64, threads, [&](size_t first, size_t last) {
        if (stopped.load(std::memory_order_relaxed) || cancelled()) {
            stopped = true;
            return;
        }
        for (size_t g = first; g < last; ++g) {
            const uint16_t* j = vertexSet.joints(uint32_t(g));
            const float* w = vertexSet.weights(uint32_t(g));
            const int count = vertexSet.count(uint32_t(g));
            double sum = 0.0, cx = 0.0, cy = 0.0, cz = 0.0;
            for (int a = 0; a < count; ++a)
                for (int b = a + 1; b < count; ++b) {
                    const uint32_t key = pairKey(j[a], j[b]);
                    const auto it = std::lower_bound(keys.begin(), keys.end(), key);
                    if (it == keys.end() || *it != key)
                        continue;
                    const auto [begin, end] = lists[size_t(it - keys.begin())];
                    const float pa = w[a], pb = w[b];
                    double lsum = 0.0, lx = 0.0, ly = 0.0, lz = 0.0;
                    for (size_t e = begin; e < end; ++e) {
                        const PairEntry& t = entries[e];
                        const float d = pa * t.wb - pb * t.wa;
                        const double m = double(t.mass) * double(std::exp(-d * d * inverseSigma2));
                        lsum += m;
                        lx += m * t.cx;
                        ly += m * t.cy;
                        lz += m * t.cz;
                    }
                    // Both orders (j, k) and (k, j) of the pair: a factor 2 that the quotient cancels.
                    const double f = double(pa) * double(pb);
                    sum += f * lsum;
                    cx += f * lx;
                    cy += f * ly;
                    cz += f * lz;
                }
            const glm::vec3 c(float(cx / sum), float(cy / sum), float(cz / sum));
            const bool defined = sum > 0.0 && std::isfinite(c.x + c.y + c.z);
            groupDefined[g] = defined ? 1 : 0;
            groupCenter[g] = c;
        }
    });
    if (stopped.load())
        return false;
    for (size_t v = 0; v < n; ++v) {
        const uint32_t g = vertexGroup[v];
        outCenters[v] = groupDefined[g] ? groupCenter[g] : positions[v];
        if (!outDefined.empty())
            outDefined[v] = groupDefined[g];
    }
    if (verticesDone)
        verticesDone->fetch_add(n, std::memory_order_relaxed);
    return true;
}

} // namespace rig
