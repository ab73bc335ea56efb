// What an engine's vertex format does to a rig's weights: an influence limit and a weight encoding, applied to the
// runtime stream and decoded back to the floats the engine's shader would blend with (seed 001, the glTF spec).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "rig/deform/influences.h"
#include "rig/model/result.h"

namespace rig {

/// How a vertex's weights are stored.
enum class WeightEncoding : uint8_t {
    Float,         ///< "float": 32-bit floats
    Unorm16,       ///< "unorm16": glTF's normalised unsigned short, the codes summing to exactly 65535
    Unorm8,        ///< "unorm8": glTF's normalised unsigned byte, the codes summing to exactly 255
    Packed111110,  ///< "11-11-10": three weights in 11, 11 and 10 bits of one word, the fourth reconstructed (K = 4)
};
std::string_view weightEncodingId(WeightEncoding e);
std::optional<WeightEncoding> weightEncodingFromId(std::string_view id);

/// The normalised-integer codes of K weights (each >= 0, summing to 1 as a runtime stream's do) for a maximum code
/// `max` (255 or 65535): each weight rounded to the nearest code (halves away from zero), then the residue max − Σ
/// added to the largest code (the first of equal largest), so that the codes sum to exactly `max`, as glTF requires.
/// codes.size() == weights.size(). No allocation.
void quantizeUnorm(std::span<const float> weights, uint32_t max, std::span<uint32_t> codes);

/// The 11/11/10 word of four weights (>= 0, summing to 1, largest first as the runtime stream sorts them): w0 and w1
/// rounded to the nearest 1/2048, w2 to the nearest 1/1024 (a weight of exactly 1 clamps to 2047/2048, the rest lands
/// on w3); where the three decoded would pass 1 (only when w3 < 1/1024) the code rounded up the most is lowered a step
/// until they do not, so that w3 >= 0. Packed as c0 | c1 << 11 | c2 << 22.
uint32_t pack111110(const float w[4]);
/// Decodes each code by placing it in the mantissa of a float in [1, 2) and subtracting 1 (exact, no division), and
/// w3 = 1 − w0 − w1 − w2 (exact: every term is a multiple of 2⁻¹¹): the four, added in order, are exactly 1.0f.
void unpack111110(uint32_t packed, float w[4]);

struct RuntimeFormat {
    int influences = 4;                          ///< K the engine keeps: 1, 2, 4 or 8
    WeightEncoding weights = WeightEncoding::Float;
    bool validate() const; ///< K in {1, 2, 4, 8}; 11-11-10 only with K = 4
    bool operator==(const RuntimeFormat&) const = default;
};

/// The stream an engine with format `f` skins with, decoded back to floats, in `in`'s layout (in.perVertex slots a
/// vertex, the kernels' K): each vertex keeps its f.influences largest slots (the stream's first: it is sorted largest
/// first, ties in authored order) rescaled to sum to 1 ("drop the smallest and renormalise"), then encoded and
/// decoded; dropped slots become (joint 0, weight 0). With 11-11-10 a vertex of fewer than four weights gets the
/// rounding residue on its fourth slot (joint 0 there), as an engine reconstructing w3 does. Fails when f does not
/// validate or asks for more influences than in.perVertex.
Result<InfluenceStream> applyRuntimeFormat(const InfluenceStream& in, const RuntimeFormat& f);

} // namespace rig
