#include "rig/deform/influences.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace rig {

InfluenceStream buildInfluenceStream(const Mesh& mesh, size_t jointCount, int perVertex)
{
    assert(perVertex == 4 || perVertex == 8);
    assert(jointCount < 65535);
    InfluenceStream s;
    s.perVertex = perVertex;
    const size_t n = mesh.vertexCount();
    const size_t k = size_t(perVertex);
    s.joints.assign(n * k, 0);
    s.weights.assign(n * k, 0.0f);

    if (!mesh.isSkinned() || mesh.influenceOffsets.size() != n + 1) {
        s.paletteSize = 1;
        for (size_t v = 0; v < n; ++v)
            s.weights[v * k] = 1.0f;
        return s;
    }

    s.paletteSize = uint32_t(jointCount + 1);
    const uint16_t identity = uint16_t(jointCount);
    Influence best[8];
    for (size_t v = 0; v < n; ++v) {
        const uint32_t b = mesh.influenceOffsets[v], e = mesh.influenceOffsets[v + 1];
        // Keep the K largest valid influences by insertion into a small sorted array (stable for ties).
        size_t count = 0, valid = 0;
        for (uint32_t i = b; i < e && i < mesh.influences.size(); ++i) {
            const Influence in = mesh.influences[i];
            if (!(in.weight > 0.0f) || !std::isfinite(in.weight) || in.joint >= jointCount)
                continue;
            ++valid;
            size_t pos = count;
            while (pos > 0 && best[pos - 1].weight < in.weight)
                --pos;
            if (pos >= k)
                continue;
            const size_t end = std::min(count, k - 1);
            for (size_t j = end; j > pos; --j)
                best[j] = best[j - 1];
            best[pos] = in;
            count = std::min(count + 1, k);
        }
        if (valid > k)
            ++s.truncatedVertices;
        // In double: a float sum of valid weights can overflow (4 x 3e38) and the float reciprocal of a denormal sum
        // is infinite (1 / 1.4e-45); either made runtime weights infinite or dropped a valid vertex.
        double sum = 0.0;
        for (size_t j = 0; j < count; ++j)
            sum += double(best[j].weight);
        if (count == 0 || !(sum > 0.0) || !std::isfinite(sum)) {
            ++s.unboundVertices;
            s.joints[v * k] = identity;
            s.weights[v * k] = 1.0f;
            continue;
        }
        float* w = &s.weights[v * k];
        for (size_t j = 0; j < count; ++j) {
            s.joints[v * k + j] = uint16_t(best[j].joint);
            w[j] = float(double(best[j].weight) / sum);
        }
        // Exactly 1 added in slot order: then identity skin matrices (the bind pose) give back every authored
        // position bit for bit.
        sumToOneInSlotOrder(w, count);
    }
    return s;
}

void sumToOneInSlotOrder(float* w, size_t count)
{
    // The last (smallest) slot takes 1 - (sum of the others), which is exact (Sterbenz: that sum is in [0.5, 2]);
    // when that would not be positive (a last weight below the rounding error), the largest weight moves by single
    // ulps instead.
    if (count < 2)
        return;
    float head = 0.0f;
    for (size_t j = 0; j + 1 < count; ++j)
        head += w[j];
    const float last = 1.0f - head;
    if (last > 0.0f) {
        w[count - 1] = last;
        return;
    }
    for (int step = 0; step < 64; ++step) {
        float total = 0.0f;
        for (size_t j = 0; j < count; ++j)
            total += w[j];
        if (total == 1.0f)
            break;
        w[0] = std::nextafter(w[0], total > 1.0f ? 0.0f : 2.0f);
    }
}

} // namespace rig
