#include "rig/deform/runtime_format.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

namespace rig {

namespace {

/// code / 2^bits, exactly: the code in the top `bits` bits of the mantissa of 1.0f, minus 1.
float decodeMantissa(uint32_t code, int bits)
{
    const uint32_t one = 0x3f800000u;
    const uint32_t u = one | (code << (23 - bits));
    float f;
    std::memcpy(&f, &u, 4);
    return f - 1.0f;
}

} // namespace

std::string_view weightEncodingId(WeightEncoding e)
{
    switch (e) {
    case WeightEncoding::Float:
        return "float";
    case WeightEncoding::Unorm16:
        return "unorm16";
    case WeightEncoding::Unorm8:
        return "unorm8";
    case WeightEncoding::Packed111110:
        return "11-11-10";
    }
    return "?";
}

std::optional<WeightEncoding> weightEncodingFromId(std::string_view id)
{
    for (WeightEncoding e : {WeightEncoding::Float, WeightEncoding::Unorm16, WeightEncoding::Unorm8, WeightEncoding::Packed111110})
        if (weightEncodingId(e) == id)
            return e;
    return std::nullopt;
}

void quantizeUnorm(std::span<const float> weights, uint32_t max, std::span<uint32_t> codes)
{
    assert(codes.size() == weights.size());
    int64_t sum = 0;
    size_t largest = 0;
    for (size_t i = 0; i < weights.size(); ++i) {
        const float w = std::isfinite(weights[i]) ? std::clamp(weights[i], 0.0f, 1.0f) : 0.0f;
        codes[i] = uint32_t(std::lround(double(w) * double(max)));
        sum += codes[i];
        if (codes[i] > codes[largest])
            largest = i;
    }
    if (weights.empty())
        return;
    // The residue to the largest; it cannot make it negative (the others sum to at most max there).
    const int64_t fixed = int64_t(codes[largest]) + (int64_t(max) - sum);
    codes[largest] = uint32_t(std::clamp<int64_t>(fixed, 0, max));
}

uint32_t pack111110(const float w[4])
{
    constexpr int kBits[3] = {11, 11, 10};
    uint32_t c[3];
    double error[3];
    for (int i = 0; i < 3; ++i) {
        const double steps = double(1u << kBits[i]);
        const double x = std::isfinite(w[i]) ? std::clamp(double(w[i]), 0.0, 1.0) : 0.0;
        c[i] = std::min(uint32_t(std::lround(x * steps)), (1u << kBits[i]) - 1u); // 1 clamps to the largest code
        error[i] = double(c[i]) / steps - x;
    }
    // In units of 2^-11: the three decoded must not pass 1 (then w3 would be negative).
    auto total = [&] { return c[0] + c[1] + 2u * c[2]; };
    while (total() > 2048u) {
        int up = -1;
        for (int i = 0; i < 3; ++i)
            if (c[i] > 0 && (up < 0 || error[i] > error[up]))
                up = i;
        --c[up];
        error[up] -= 1.0 / double(1u << kBits[up]);
    }
    return c[0] | (c[1] << 11) | (c[2] << 22);
}

void unpack111110(uint32_t packed, float w[4])
{
    w[0] = decodeMantissa(packed & 0x7ffu, 11);
    w[1] = decodeMantissa((packed >> 11) & 0x7ffu, 11);
    w[2] = decodeMantissa((packed >> 22) & 0x3ffu, 10);
    w[3] = 1.0f - w[0] - w[1] - w[2];
}

bool RuntimeFormat::validate() const
{
    if (influences != 1 && influences != 2 && influences != 4 && influences != 8)
        return false;
    return weights != WeightEncoding::Packed111110 || influences == 4;
}

Result<InfluenceStream> applyRuntimeFormat(const InfluenceStream& in, const RuntimeFormat& f)
{
    if (!f.validate())
        return fail("runtime format: " + std::to_string(f.influences) + " influences with " +
                    std::string(weightEncodingId(f.weights)) + " weights (K is 1, 2, 4 or 8; 11-11-10 holds exactly 4)");
    const size_t k = size_t(in.perVertex);
    if (size_t(f.influences) > k)
        return fail("runtime format: " + std::to_string(f.influences) + " influences from a stream of " + std::to_string(k));
    InfluenceStream out = in;
    const size_t n = k > 0 ? in.weights.size() / k : 0;
    const size_t keep = size_t(f.influences);
    if (keep < k) { // a vertex now loses influences where its slot `keep` was weighted
        out.truncatedVertices = 0;
        for (size_t v = 0; v < n; ++v)
            out.truncatedVertices += in.weights[v * k + keep] > 0.0f ? 1 : 0;
    }
    float w[8];
    uint32_t codes[8];
    for (size_t v = 0; v < n; ++v) {
        uint16_t* j = &out.joints[v * k];
        float* x = &out.weights[v * k];
        // Keep the first `keep` slots (the largest), rescaled to sum to 1.
        double sum = 0.0;
        for (size_t i = 0; i < keep; ++i)
            sum += double(x[i]);
        if (!(sum > 0.0))
            continue; // nothing weighted (not produced by buildInfluenceStream): left as it is
        for (size_t i = 0; i < k; ++i)
            w[i] = i < keep ? float(double(x[i]) / sum) : 0.0f;
        switch (f.weights) {
        case WeightEncoding::Float: {
            size_t used = 0; // the leading non-zero slots
            while (used < keep && w[used] > 0.0f)
                ++used;
            sumToOneInSlotOrder(w, used); // as the stream's own weights
            break;
        }
        case WeightEncoding::Unorm16:
        case WeightEncoding::Unorm8: {
            const uint32_t max = f.weights == WeightEncoding::Unorm8 ? 255u : 65535u;
            quantizeUnorm(std::span<const float>(w, keep), max, std::span<uint32_t>(codes, keep));
            for (size_t i = 0; i < keep; ++i)
                w[i] = float(double(codes[i]) / double(max));
            break;
        }
        case WeightEncoding::Packed111110: {
            float four[4] = {w[0], w[1], w[2], w[3]}; // keep == 4
            unpack111110(pack111110(four), four);
            for (size_t i = 0; i < 4; ++i)
                w[i] = four[i];
            break;
        }
        }
        for (size_t i = 0; i < k; ++i) {
            x[i] = i < keep ? w[i] : 0.0f;
            if (x[i] == 0.0f)
                j[i] = 0; // the stream's rule for unused slots
        }
    }
    return out;
}

} // namespace rig
