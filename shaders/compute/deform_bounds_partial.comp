// Bounds, first pass: every (padded) workgroup covers vertices of one mesh only, reduces their min/max in shared
// memory and stores one partial box to its own slot. No atomics.
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
layout(std430, binding = 2) readonly buffer PositionBuffer { vec4 positions[]; };
// Per padded group: (min.xyz, 0), (max.xyz, 0).
layout(std430, binding = 3) writeonly buffer PartialBuffer { vec4 partials[]; };

shared vec3 sharedMin[128];
shared vec3 sharedMax[128];

void main()
{
    const uint g = gl_WorkGroupID.y * params.groupsX + gl_WorkGroupID.x;
    if (g >= params.groupCount)
        return; // uniform for the whole group
    const uint lid = gl_LocalInvocationID.x;
    const uint mb = layoutData[params.meshCount * 8u + g] * 8u;
    const uint local = (g - layoutData[mb + 2u]) * 128u + lid;
    vec3 lo = vec3(3.402823e38), hi = vec3(-3.402823e38);
    if (local < layoutData[mb + 1u]) {
        lo = positions[layoutData[mb] + local].xyz;
        hi = lo;
    }
    sharedMin[lid] = lo;
    sharedMax[lid] = hi;
    memoryBarrierShared();
    barrier();
    for (uint stride = 64u; stride > 0u; stride >>= 1u) {
        if (lid < stride) {
            sharedMin[lid] = min(sharedMin[lid], sharedMin[lid + stride]);
            sharedMax[lid] = max(sharedMax[lid], sharedMax[lid + stride]);
        }
        memoryBarrierShared();
        barrier();
    }
    if (lid == 0u) {
        partials[2u * g] = vec4(sharedMin[0], 0.0);
        partials[2u * g + 1u] = vec4(sharedMax[0], 0.0);
    }
}
