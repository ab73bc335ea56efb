#include "rig/deform/weight_gradients.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace rig {

namespace {

float weightOf(const uint16_t* joints, const float* weights, size_t k, uint16_t joint)
{
    for (size_t i = 0; i < k; ++i)
        if (joints[i] == joint && weights[i] != 0.0f)
            return weights[i];
    return 0.0f;
}

} // namespace

WeightGradients buildWeightGradients(std::span<const glm::vec3> positions, std::span<const uint32_t> indices,
                                     std::span<const uint16_t> joints, std::span<const float> weights, int perVertex)
{
    const size_t n = positions.size();
    const size_t k = size_t(perVertex);
    assert(joints.size() == n * k && weights.size() == n * k);
    const size_t triangles = indices.size() / 3;

    // Vertex -> triangles adjacency (CSR).
    std::vector<uint32_t> adjOffsets(n + 1, 0);
    for (size_t i = 0; i < triangles * 3; ++i)
        ++adjOffsets[indices[i] + 1];
    for (size_t v = 0; v < n; ++v)
        adjOffsets[v + 1] += adjOffsets[v];
    std::vector<uint32_t> adj(adjOffsets[n]);
    {
        std::vector<uint32_t> fill(adjOffsets.begin(), adjOffsets.end() - 1);
        for (size_t t = 0; t < triangles; ++t)
            for (int c = 0; c < 3; ++c)
                adj[fill[indices[3 * t + size_t(c)]]++] = uint32_t(t);
    }

    // Per-triangle area (doubled) and the three (n̂ × e_i) / 2a vectors, i.e. the gradients of the hat functions.
    struct TriangleBasis {
        glm::vec3 g[3];
        float area = 0.0f;
    };
    std::vector<TriangleBasis> basis(triangles);
    for (size_t t = 0; t < triangles; ++t) {
        const glm::vec3& p0 = positions[indices[3 * t]];
        const glm::vec3& p1 = positions[indices[3 * t + 1]];
        const glm::vec3& p2 = positions[indices[3 * t + 2]];
        const glm::vec3 c = glm::cross(p1 - p0, p2 - p0);
        const float twoA = glm::length(c);
        if (!(twoA > 0.0f) || !std::isfinite(twoA))
            continue; // degenerate: contributes nothing
        const glm::vec3 nh = c / twoA;
        basis[t].area = 0.5f * twoA;
        basis[t].g[0] = glm::cross(nh, p2 - p1) / twoA;
        basis[t].g[1] = glm::cross(nh, p0 - p2) / twoA;
        basis[t].g[2] = glm::cross(nh, p1 - p0) / twoA;
    }

    WeightGradients out;
    out.offsets.assign(n + 1, 0);
    out.joints.reserve(n * k);
    out.gradients.reserve(n * k);
    std::vector<uint16_t> localJoints;
    std::vector<glm::vec3> localSums;
    for (size_t v = 0; v < n; ++v) {
        localJoints.clear();
        localSums.clear();
        float areaSum = 0.0f;
        for (uint32_t a = adjOffsets[v]; a < adjOffsets[v + 1]; ++a) {
            const uint32_t t = adj[a];
            const TriangleBasis& b = basis[t];
            if (b.area == 0.0f)
                continue;
            areaSum += b.area;
            const uint32_t tv[3] = {indices[3 * t], indices[3 * t + 1], indices[3 * t + 2]};
            // Every joint with a weight at any corner of this triangle.
            for (int c = 0; c < 3; ++c) {
                for (size_t i = 0; i < k; ++i) {
                    const uint16_t jnt = joints[tv[c] * k + i];
                    if (weights[tv[c] * k + i] == 0.0f)
                        continue;
                    if (std::find(localJoints.begin(), localJoints.end(), jnt) != localJoints.end())
                        continue;
                    localJoints.push_back(jnt);
                    localSums.push_back(glm::vec3(0.0f));
                }
            }
            for (size_t q = 0; q < localJoints.size(); ++q) {
                glm::vec3 g(0.0f);
                for (int c = 0; c < 3; ++c)
                    g += weightOf(&joints[tv[c] * k], &weights[tv[c] * k], k, localJoints[q]) * b.g[c];
                localSums[q] += b.area * g;
            }
        }
        if (areaSum > 0.0f) {
            for (size_t q = 0; q < localJoints.size(); ++q) {
                const glm::vec3 g = localSums[q] / areaSum;
                if (g == glm::vec3(0.0f) || !std::isfinite(g.x + g.y + g.z))
                    continue;
                out.joints.push_back(localJoints[q]);
                out.gradients.push_back(g);
            }
        }
        out.offsets[v + 1] = uint32_t(out.joints.size());
    }
    planGradientBlocks(out, joints, weights, perVertex);
    return out;
}

void planGradientBlocks(WeightGradients& g, std::span<const uint16_t> joints, std::span<const float> weights, int perVertex)
{
    const size_t k = size_t(std::max(perVertex, 0));
    const bool withWeights = k > 0 && !weights.empty();
    constexpr size_t kBlock = 16;
    static_assert(WeightGradients::kMaxSlotsPerBlock < 256); // blockHalves' slot counts are 8 bits
    const size_t n = g.offsets.empty() ? 0 : g.offsets.size() - 1;
    const size_t blocks = (n + kBlock - 1) / kBlock;
    g.blockSlots.assign(blocks + 1, 0);
    g.blockData.assign(blocks + 1, 0);
    g.blockHalves.assign(blocks, 0);
    g.slotEntries.clear();
    g.slotGradients.clear();
    g.slotWeights.clear();
    g.blockFolded.assign(withWeights ? blocks : 0, 0);
    g.unplannedBlocks = 0;
    g.slotEntries.reserve(blocks * 8);
    g.slotGradients.reserve(3 * g.joints.size() + WeightGradients::kSlotGradientPadding);
    // term[s][q]: the entry of vertex q's list for slot s (valid where bit q of mask[s] is set).
    uint16_t joint[WeightGradients::kMaxSlotsPerBlock];
    uint16_t mask[WeightGradients::kMaxSlotsPerBlock];
    uint32_t term[WeightGradients::kMaxSlotsPerBlock][kBlock];
    size_t used = 0;
    // The block's slot holding joint j, or `used` where none does.
    auto slotOf = [&](uint16_t j) {
        size_t s = 0;
        while (s < used && joint[s] != j)
            ++s;
        return s;
    };
    for (size_t b = 0; b < blocks; ++b) {
        const size_t v0 = b * kBlock, v1 = std::min(n, v0 + kBlock);
        used = 0;
        bool planned = true;
        for (size_t v = v0; v < v1 && planned; ++v) {
            const uint16_t bit = uint16_t(1u << (v - v0));
            for (uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
                const size_t s = slotOf(g.joints[e]);
                if (s == used) {
                    if (used == WeightGradients::kMaxSlotsPerBlock) {
                        planned = false;
                        break;
                    }
                    joint[used] = g.joints[e];
                    mask[used] = 0;
                    ++used;
                }
                if (mask[s] & bit) { // a joint listed twice by one vertex: one lane cannot hold both terms
                    planned = false;
                    break;
                }
                mask[s] = uint16_t(mask[s] | bit);
                term[s][v - v0] = e;
            }
        }
        // A slot costs about three of the per-vertex path's terms (12 broadcasts and 18 FMAs for 16 lanes, against
        // three FMAs and a few loads a term), and the block's fixed costs differ by about 16 terms' worth in the
        // slots' favour (the per-vertex path transposes three summed matrices a group).
        const size_t terms = g.offsets[v1] - g.offsets[v0];
        planned = planned && 3 * used <= terms + 16;
        if (planned) {
            // The low half's slots, both halves', the high half's (blockHalves), each in order of first appearance.
            const size_t firstSlot = g.slotEntries.size(), firstFloat = g.slotGradients.size();
            auto runOf = [&](size_t s) { return (mask[s] & 0xFF00u) == 0 ? 0 : (mask[s] & 0x00FFu) == 0 ? 2 : 1; };
            for (int run = 0; run < 3; ++run) {
                if (run == 1)
                    g.blockHalves[b] = uint32_t(g.slotEntries.size() - firstSlot) |
                                       uint32_t(g.slotGradients.size() - firstFloat) << 16;
                if (run == 2)
                    g.blockHalves[b] |= uint32_t(g.slotEntries.size() - firstSlot) << 8;
                for (size_t s = 0; s < used; ++s) {
                    if (runOf(s) != run)
                        continue;
                    g.slotEntries.push_back(uint32_t(joint[s]) | uint32_t(mask[s]) << 16);
                    for (int c = 0; c < 3; ++c)
                        for (size_t q = 0; q < kBlock; ++q)
                            if (mask[s] >> q & 1u)
                                g.slotGradients.push_back(g.gradients[term[s][q]][c]);
                    if (withWeights)
                        for (size_t q = 0; q < kBlock; ++q)
                            if (mask[s] >> q & 1u) {
                                const size_t v = v0 + q;
                                float w = 0.0f;
                                for (size_t i = 0; i < k; ++i)
                                    if (joints[k * v + i] == joint[s])
                                        w += weights[k * v + i];
                                g.slotWeights.push_back(w);
                            }
                }
            }
            if (withWeights) {
                // Folded only when the slots hold every weighted joint of every vertex.
                bool covered = true;
                for (size_t v = v0; v < v1 && covered; ++v)
                    for (size_t i = 0; i < k && covered; ++i) {
                        if (weights[k * v + i] == 0.0f)
                            continue;
                        const size_t s = slotOf(joints[k * v + i]);
                        covered = s < used && (mask[s] >> (v - v0) & 1u);
                    }
                g.blockFolded[b] = covered ? 1 : 0;
            }
        }
        g.blockSlots[b] |= planned ? 0u : WeightGradients::kUnplanned;
        g.unplannedBlocks += planned ? 0 : 1;
        g.blockSlots[b + 1] = uint32_t(g.slotEntries.size());
        g.blockData[b + 1] = uint32_t(g.slotGradients.size());
    }
    g.slotGradients.resize(g.slotGradients.size() + WeightGradients::kSlotGradientPadding, 0.0f);
    if (withWeights)
        g.slotWeights.resize(g.slotWeights.size() + WeightGradients::kSlotGradientPadding, 0.0f);
}

} // namespace rig
