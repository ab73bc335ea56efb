#include "rig/deform/engine_profiles.h"

#include <array>

namespace rig {

namespace {

constexpr std::string_view kGltfSkin = "https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html#skinned-mesh-attributes";
constexpr std::string_view kUnitySkinWeights = "https://docs.unity3d.com/ScriptReference/SkinWeights.html, "
                                               "https://docs.unity3d.com/ScriptReference/BoneWeight.html";
constexpr std::string_view kUnrealLegacy =
    "https://dev.epicgames.com/documentation/en-us/unreal-engine/API/Runtime/Engine/TLegacySkinWeightInfo";

constexpr std::array kProfiles{
    EngineProfile{"float32", "Float ×4", {4, WeightEncoding::Float}, IndexWidth::BySkeleton, false,
                  "4 influences (one JOINTS_0/WEIGHTS_0 set), 32-bit float weights", kGltfSkin},
    EngineProfile{"unorm16", "glTF unorm16 ×4", {4, WeightEncoding::Unorm16}, IndexWidth::BySkeleton, false,
                  "4 influences, weights as normalised unsigned shorts whose codes sum to exactly 65535", kGltfSkin},
    EngineProfile{"unorm8", "glTF unorm8 ×4", {4, WeightEncoding::Unorm8}, IndexWidth::BySkeleton, false,
                  "4 influences, weights as normalised unsigned bytes whose codes sum to exactly 255", kGltfSkin},
    EngineProfile{"unorm11_11_10", "11/11/10 ×4", {4, WeightEncoding::Packed111110}, IndexWidth::BySkeleton,
                  false,
                  "4 influences, three weights in 11, 11 and 10 bits of one word and the fourth reconstructed so that "
                  "the four sum to exactly 1; 8-bit indices up to 256 joints; 3×4 bone matrices, cofactor normals",
                  "seed 001: a production compute skinning pass (bytes per vertex 564 to 220)"},
    EngineProfile{"threejs", "three.js", {4, WeightEncoding::Float}, IndexWidth::BySkeleton, false,
                  "4 influences (skinIndex/skinWeight are vec4); normals by the blended bone matrix (the `linear` "
                  "method)",
                  "https://github.com/mrdoob/three.js/blob/dev/src/renderers/shaders/ShaderChunk/skinning_vertex.glsl.js, "
                  "skinnormal_vertex.glsl.js"},
    EngineProfile{"unity-1", "Unity: 1 bone", {1, WeightEncoding::Float}, IndexWidth::Int32, true,
                  "SkinWeights.OneBone: one bone per vertex; the buffer holds only its index, the weight is 1",
                  kUnitySkinWeights},
    EngineProfile{"unity-2", "Unity: 2 bones", {2, WeightEncoding::Float}, IndexWidth::Int32, false,
                  "SkinWeights.TwoBones: two int indices and two float weights per vertex", kUnitySkinWeights},
    EngineProfile{"unity-4", "Unity: 4 bones", {4, WeightEncoding::Float}, IndexWidth::Int32, false,
                  "SkinWeights.FourBones: one BoneWeight per vertex (four int indices, four float weights)",
                  kUnitySkinWeights},
    EngineProfile{"unreal-4", "Unreal: 4 influences, 8-bit", {4, WeightEncoding::Unorm8}, IndexWidth::BySkeleton, false,
                  "TLegacySkinWeightInfo without extra influences: 4 influences, uint8 weights, 8- or 16-bit bone "
                  "indices",
                  kUnrealLegacy},
    EngineProfile{"unreal-8", "Unreal: 8 influences, 8-bit", {8, WeightEncoding::Unorm8}, IndexWidth::BySkeleton, false,
                  "TLegacySkinWeightInfo with extra bone influences: 8 influences, uint8 weights", kUnrealLegacy},
    EngineProfile{"unreal-8-16bit", "Unreal: 8 influences, 16-bit", {8, WeightEncoding::Unorm16},
                  IndexWidth::BySkeleton, false,
                  "8 influences with 16-bit bone weights (FSkinWeightVertexBuffer::SetUse16BitBoneWeight, UE 5.0)",
                  "https://dev.epicgames.com/documentation/unreal-engine/API/Runtime/Engine/Rendering/"
                  "FSkinWeightVertexBuffer/SetUse16BitBoneWeight?application_version=5.0"},
    EngineProfile{"reference", "Reference (float ×8)", kReferenceFormat, IndexWidth::BySkeleton, false,
                  "8 influences, float weights: the most RigScope keeps, what every profile is compared against",
                  "RigScope"},
};

double weightBytes(const EngineProfile& p)
{
    if (p.impliedSingleWeight)
        return 0.0;
    const double k = p.format.influences;
    switch (p.format.weights) {
    case WeightEncoding::Float:
        return 4.0 * k;
    case WeightEncoding::Unorm16:
        return 2.0 * k;
    case WeightEncoding::Unorm8:
        return 1.0 * k;
    case WeightEncoding::Packed111110:
        return 4.0;
    }
    return 4.0 * k;
}

} // namespace

std::span<const EngineProfile> engineProfiles()
{
    return kProfiles;
}

const EngineProfile* findEngineProfile(std::string_view id)
{
    for (const EngineProfile& p : kProfiles)
        if (p.id == id)
            return &p;
    return nullptr;
}

const EngineProfile* profileForFormat(const RuntimeFormat& f)
{
    for (const EngineProfile& p : kProfiles)
        if (p.format.influences == f.influences && p.format.weights == f.weights && p.indices == IndexWidth::BySkeleton)
            return &p;
    return nullptr;
}

EngineProfile customProfile(const RuntimeFormat& f)
{
    return EngineProfile{"custom", "Custom", f, IndexWidth::BySkeleton, false, "set by hand", "RigScope"};
}

int indexBits(const EngineProfile& profile, const VertexStreamShape& shape)
{
    return profile.indices == IndexWidth::Int32 ? 32 : shape.jointCount <= 256 ? 8 : 16;
}

double bytesPerVertex(const EngineProfile& profile, Method method, const VertexStreamShape& shape)
{
    const double k = profile.format.influences;
    double bytes = 12.0 + (method == Method::PositionsOnly ? 0.0 : 12.0 + (shape.hasTangents ? 16.0 : 0.0));
    const double indexBytes = indexBits(profile, shape) / 8.0;
    bytes += k * indexBytes + weightBytes(profile);
    double perInfluence = 48.0; // the 3×4 skin matrix
    switch (method) {
    case Method::BlendInverseTranspose:
        perInfluence += 36.0;
        break;
    case Method::DualQuaternion:
        perInfluence = 32.0 + 36.0;
        break;
    case Method::CenterOfRotation:
        perInfluence += 16.0;
        bytes += 12.0;
        break;
    case Method::Jacobian:
        bytes += 16.0 * shape.gradientEntriesPerVertex;
        break;
    default:
        break;
    }
    return bytes + k * perInfluence;
}

} // namespace rig
