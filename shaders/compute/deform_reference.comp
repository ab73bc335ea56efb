// Reference pass (rig/reference.h), a gather without atomics: a vertex's normal is the normalised sum of the face
// normals of its SMOOTHING GROUP's triangles, its tangent the sum of the face tangents of its own triangles,
// Gram-Schmidt against the normal, handedness sign(dot(n × t, B)) (+1 when 0). The adjacency lists hold the triangles
// in increasing order (with multiplicity), so the sums are added in the same order as the CPU's scatter.
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

layout(std430, binding = 1) readonly buffer LayoutBuffer { uint layoutData[]; };
layout(std430, binding = 2) readonly buffer FaceBuffer { vec4 faces[]; };
// From adjGroupBase: the smoothing-group representative of every vertex (global index); from adjNormalOffsetBase:
// N + 1 CSR offsets of the group triangle lists (non-empty for representatives only); from adjTangentOffsetBase:
// N + 1 offsets of every vertex's own triangles; the lists from adjNormalListBase and adjTangentListBase.
layout(std430, binding = 3) readonly buffer AdjacencyBuffer { uint adjacency[]; };
layout(std430, binding = 4) writeonly buffer ReferenceNormalBuffer { vec4 referenceNormals[]; };
layout(std430, binding = 5) writeonly buffer ReferenceTangentBuffer { vec4 referenceTangents[]; };

bool isFiniteF(float x)
{
    return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u;
}

vec3 safeNormalize(vec3 v)
{
    const float len2 = dot(v, v);
    if (!isFiniteF(len2) || !(len2 >= 1e-24))
        return vec3(0.0);
    return v * (1.0 / sqrt(len2));
}

bool isDefined(vec3 v)
{
    const float len2 = dot(v, v);
    return isFiniteF(len2) && len2 > 0.25;
}

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
    const uint meshFlags = layoutData[mb + 6u];
    const uint tc = params.triangleCount;

    const uint rep = adjacency[params.adjGroupBase + v];
    const uint nFirst = adjacency[params.adjNormalOffsetBase + rep];
    const uint nLast = adjacency[params.adjNormalOffsetBase + rep + 1u];
    vec3 nsum = vec3(0.0);
    for (uint i = nFirst; i < nLast; ++i)
        nsum += faces[adjacency[params.adjNormalListBase + i]].xyz;
    const vec3 nrm = safeNormalize(nsum);
    referenceNormals[v] = vec4(nrm, 0.0);

    // bit 0: the mesh has tangents, bit 1: it has UV0.
    if ((meshFlags & 3u) != 3u || !isDefined(nrm)) {
        referenceTangents[v] = vec4(0.0);
        return;
    }
    const uint tFirst = adjacency[params.adjTangentOffsetBase + v];
    const uint tLast = adjacency[params.adjTangentOffsetBase + v + 1u];
    vec3 tsum = vec3(0.0), bsum = vec3(0.0);
    for (uint i = tFirst; i < tLast; ++i) {
        const uint t = adjacency[params.adjTangentListBase + i];
        tsum += faces[tc + t].xyz;
        bsum += faces[2u * tc + t].xyz;
    }
    const vec3 tan = safeNormalize(tsum - nrm * dot(nrm, tsum));
    const float hand = dot(cross(nrm, tan), bsum) < 0.0 ? -1.0 : 1.0;
    referenceTangents[v] = isDefined(tan) ? vec4(tan, hand) : vec4(0.0);
}
