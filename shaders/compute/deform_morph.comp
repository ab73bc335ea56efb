// Morph pass (bind space): p = p0 + Σ_k w_k ΔP_k, and likewise the normal and the tangent xyz when morphNormals is on
// (tangent w is kept). Targets whose weight is 0 are skipped. Mirrors rig::MorphJob. One invocation per vertex; the
// vertex passes dispatch over "padded groups": every mesh covers a whole number of 128-wide groups.
#version 440

layout(local_size_x = 128) in;

layout(std140, binding = 0) uniform Params {
    uint method;
    uint morphNormals;
    uint influencesPerVertex;
    uint vertexCount;
    uint triangleCount;
    uint meshCount;
    uint groupCount;
    uint groupsX;
    uint triangleGroupsX;
    uint triangleGroupCount;
    uint adjGroupBase;
    uint adjNormalOffsetBase;
    uint adjTangentOffsetBase;
    uint adjNormalListBase;
    uint adjTangentListBase;
    uint gradEntryBase;
} params;

// Per mesh 8 uints (vertexBegin, vertexCount, groupBegin, groupCount, morphBegin, morphCount, flags, paletteBegin),
// then one mesh index per padded group.
layout(std430, binding = 1) readonly buffer LayoutBuffer { uint layoutData[]; };
// [0, N) rest positions (w = 1), [N, 2N) rest normals, [2N, 3N) rest tangents (xyz, handedness w; 0 when none).
layout(std430, binding = 2) readonly buffer RestBuffer { vec4 rest[]; };
// Per global target: first delta of positions, normals, tangents (0xffffffff: the target has none).
layout(std430, binding = 3) readonly buffer TargetBuffer { uvec4 targets[]; };
layout(std430, binding = 4) readonly buffer WeightBuffer { float morphWeights[]; };
layout(std430, binding = 5) readonly buffer DeltaBuffer { vec4 deltas[]; };
// Same layout as RestBuffer.
layout(std430, binding = 6) writeonly buffer MorphedBuffer { vec4 morphed[]; };

const uint kNone = 0xffffffffu;

void main()
{
    const uint g = gl_WorkGroupID.y * params.groupsX + gl_WorkGroupID.x;
    if (g >= params.groupCount)
        return;
    const uint mb = layoutData[params.meshCount * 8u + g] * 8u;
    const uint local = (g - layoutData[mb + 2u]) * 128u + gl_LocalInvocationID.x;
    if (local >= layoutData[mb + 1u])
        return;
    const uint v = layoutData[mb] + local;
    const uint n = params.vertexCount;
    const bool hasTangents = (layoutData[mb + 6u] & 1u) != 0u;

    vec3 p = rest[v].xyz;
    vec3 nrm = rest[n + v].xyz;
    vec4 tan = rest[2u * n + v];
    const uint first = layoutData[mb + 4u];
    const uint last = first + layoutData[mb + 5u];
    for (uint k = first; k < last; ++k) {
        const float w = morphWeights[k];
        if (w == 0.0)
            continue;
        const uvec4 t = targets[k];
        p += w * deltas[t.x + local].xyz;
        if (params.morphNormals == 0u)
            continue;
        if (t.y != kNone)
            nrm += w * deltas[t.y + local].xyz;
        if (t.z != kNone && hasTangents)
            tan.xyz += w * deltas[t.z + local].xyz;
    }
    morphed[v] = vec4(p, 1.0);
    morphed[n + v] = vec4(nrm, 0.0);
    morphed[2u * n + v] = tan;
}
