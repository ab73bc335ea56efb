// Bounds, second pass: one workgroup per mesh reduces that mesh's partial boxes. An empty mesh gets min > max
// (+3.4e38 / -3.4e38) and w = 0 in its min entry; otherwise w = 1.
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
layout(std430, binding = 2) readonly buffer PartialBuffer { vec4 partials[]; };
// Per mesh: (min.xyz, 1 if the mesh has vertices), (max.xyz, 0).
layout(std430, binding = 3) writeonly buffer BoundsBuffer { vec4 bounds[]; };

shared vec3 sharedMin[128];
shared vec3 sharedMax[128];

void main()
{
    const uint m = gl_WorkGroupID.x;
    if (m >= params.meshCount)
        return; // uniform for the whole group
    const uint lid = gl_LocalInvocationID.x;
    const uint first = layoutData[m * 8u + 2u];
    const uint last = first + layoutData[m * 8u + 3u];
    vec3 lo = vec3(3.402823e38), hi = vec3(-3.402823e38);
    for (uint i = first + lid; i < last; i += 128u) {
        lo = min(lo, partials[2u * i].xyz);
        hi = max(hi, partials[2u * i + 1u].xyz);
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
        bounds[2u * m] = vec4(sharedMin[0], layoutData[m * 8u + 1u] > 0u ? 1.0 : 0.0);
        bounds[2u * m + 1u] = vec4(sharedMax[0], 0.0);
    }
}
