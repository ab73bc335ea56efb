// Named runtime formats: what a given engine keeps of a rig's weights (an influence limit, a weight encoding, an index
// width), each with the public source it is taken from, and the bytes its skinning pass reads per vertex.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "rig/deform/runtime_format.h"
#include "rig/deform/skinning.h"

namespace rig {

/// How a format stores a vertex's joint indices.
enum class IndexWidth : uint8_t {
    BySkeleton, ///< 8 bits each when the skeleton has <= 256 joints, 16 bits otherwise (glTF's two JOINTS_n types)
    Int32,      ///< 32 bits each (Unity's BoneWeight.boneIndex is an int)
};

struct EngineProfile {
    std::string_view id;     ///< stable: the report's `formats` key and `--profile` value
    std::string_view label;  ///< for menus
    RuntimeFormat format;
    IndexWidth indices = IndexWidth::BySkeleton;
    /// One weight is implied (Unity's OneBone: "only indices ... the weight will be set to 1"): no weight bytes.
    bool impliedSingleWeight = false;
    std::string_view facts;  ///< what the profile does, one sentence
    std::string_view source; ///< where that is written (a URL or the seed article)
};

/// The influence limit and encoding RigScope compares every profile against: float weights, 8 influences (the most
/// its runtime keeps; vertices with more are reported by the audit).
inline constexpr RuntimeFormat kReferenceFormat{8, WeightEncoding::Float};

/// Every profile, in menu order; ids are unique.
std::span<const EngineProfile> engineProfiles();
/// The profile with this id, or null.
const EngineProfile* findEngineProfile(std::string_view id);
/// The first profile whose format is `f` (and whose indices are RigScope's BySkeleton rule), or null: a format set by
/// hand shows under the profile that has it.
const EngineProfile* profileForFormat(const RuntimeFormat& f);
/// A format set by hand ("custom"): RigScope's index rule, no cited source.
EngineProfile customProfile(const RuntimeFormat& f);

/// What a vertex of a rig is read as: its attributes and the joints it can be skinned by.
struct VertexStreamShape {
    size_t jointCount = 0;    ///< the largest skeleton's joints (decides 8- or 16-bit indices)
    bool hasTangents = false;
    double gradientEntriesPerVertex = 0.0; ///< the jacobian's weight-gradient entries, averaged over the vertices
};

/// Bits per joint index the profile stores for a rig of this shape: 32 for IndexWidth::Int32, else 8 up to 256
/// joints and 16 above.
int indexBits(const EngineProfile& profile, const VertexStreamShape& shape);

/// Bytes the skinning pass of `method` reads for one vertex with `profile`'s stream (README "Runtime formats"):
/// the float attributes (position 12, normal 12, tangent 16 when present), the K weights and indices at the profile's
/// widths (fixed stride: every slot is read), and the palette entries gathered for the K slots as a 3×4 matrix (48)
/// plus what the method adds (the inverse transposes 36, a dual quaternion 32 and its stretch 36, a rotation 16 and
/// the vertex's centre 12, the jacobian's gradient entries 16 each).
double bytesPerVertex(const EngineProfile& profile, Method method, const VertexStreamShape& shape);

} // namespace rig
