// Format difference: per vertex, how far the method's position under the runtime format is from its position under
// the float reference (the same skin pass run with the reference's influences: GpuDeformer's comparison), and the
// angle between their normals. Mirrors rig::formatDifferences (rig/analysis/format_difference.h). Rebuilt's normals
// are the reference rebuilt from the format's positions, which the comparison does not rebuild: undefined there.
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
layout(std430, binding = 3) readonly buffer NormalBuffer { vec4 normals[]; };
layout(std430, binding = 4) readonly buffer ReferencePositionBuffer { vec4 referencePositions[]; };
layout(std430, binding = 5) readonly buffer ReferenceNormalBuffer { vec4 referenceNormals[]; };
// (distance in scene units, normal angle in degrees or -1 where undefined, 0, 0)
layout(std430, binding = 6) writeonly buffer DifferenceBuffer { vec4 differences[]; };

const uint kMethodRebuilt = 8u;

bool isFiniteF(float x)
{
    return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u;
}

// rig::angularErrors: defined when both |v|² > 0.25 and finite.
bool defined(vec3 v)
{
    const float l2 = dot(v, v);
    return isFiniteF(l2) && l2 > 0.25;
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
    const float d = length(positions[v].xyz - referencePositions[v].xyz);
    const vec3 a = normals[v].xyz, b = referenceNormals[v].xyz;
    float angle = -1.0;
    if (params.method != kMethodRebuilt && defined(a) && defined(b))
        angle = degrees(atan(length(cross(a, b)), dot(a, b)));
    differences[v] = vec4(isFiniteF(d) ? d : 0.0, angle, 0.0, 0.0);
}
