// Errors pass (rig/metrics.h): the angle in degrees between the method's direction and the reference,
// atan2(|a × b|, a · b); -1 (undefined, never NaN) when either is not a unit direction or the mesh has no tangents.
// For Method::Rebuilt (7) the method's directions ARE the reference: they are copied into the output buffers first.
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
layout(std430, binding = 2) buffer NormalBuffer { vec4 normals[]; };
layout(std430, binding = 3) buffer TangentBuffer { vec4 tangents[]; };
layout(std430, binding = 4) readonly buffer ReferenceNormalBuffer { vec4 referenceNormals[]; };
layout(std430, binding = 5) readonly buffer ReferenceTangentBuffer { vec4 referenceTangents[]; };
// (normal error, tangent error) in degrees per vertex.
layout(std430, binding = 6) writeonly buffer ErrorBuffer { vec2 errors[]; };

bool isFiniteF(float x)
{
    return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u;
}

bool isDefined(vec3 v)
{
    const float len2 = dot(v, v);
    return isFiniteF(len2) && len2 > 0.25;
}

float angleDeg(vec3 a, vec3 b)
{
    if (!isDefined(a) || !isDefined(b))
        return -1.0;
    return degrees(atan(length(cross(a, b)), dot(a, b)));
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
    const bool hasTangents = (layoutData[mb + 6u] & 1u) != 0u;

    const vec4 rn = referenceNormals[v];
    const vec4 rt = referenceTangents[v];
    vec4 n = normals[v];
    vec4 t = tangents[v];
    if (params.method == 7u) {
        n = rn;
        t = rt;
        normals[v] = n;
        tangents[v] = t;
    }
    const float en = angleDeg(n.xyz, rn.xyz);
    const float et = hasTangents ? angleDeg(t.xyz, rt.xyz) : -1.0;
    errors[v] = vec2(en, et);
}
