// Face pass of the rebuilt reference (rig/reference.h): per triangle the face normal c = (p1 - p0) × (p2 - p0)
// (length = 2·area, so summing c is area weighting) and the UV tangent/bitangent T = (e1·dv2 - e2·dv1)·|c|/det,
// B = (e2·du1 - e1·du2)·|c|/det. Zero-area (or non-finite) triangles, and for T/B faces with |det| <= 1e-12 or without
// UVs, store zero vectors: the vertex gather then adds exact zeros, which equals skipping them.
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
// Global vertex indices of the corners, and the mesh index.
layout(std430, binding = 2) readonly buffer TriangleBuffer { uvec4 triangles[]; };
layout(std430, binding = 3) readonly buffer PositionBuffer { vec4 positions[]; };
layout(std430, binding = 4) readonly buffer UvBuffer { vec2 uvs[]; };
// [0, T) face normals c, [T, 2T) face tangents, [2T, 3T) face bitangents.
layout(std430, binding = 5) writeonly buffer FaceBuffer { vec4 faces[]; };

bool isFiniteF(float x)
{
    return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u;
}

void main()
{
    const uint t = (gl_WorkGroupID.y * params.triangleGroupsX + gl_WorkGroupID.x) * 128u + gl_LocalInvocationID.x;
    const uint tc = params.triangleCount;
    if (t >= tc)
        return;
    const uvec4 tri = triangles[t];
    const vec3 p0 = positions[tri.x].xyz;
    const vec3 e1 = positions[tri.y].xyz - p0;
    const vec3 e2 = positions[tri.z].xyz - p0;
    const vec3 c = cross(e1, e2);
    const float area2 = dot(c, c);
    if (!isFiniteF(area2) || !(area2 > 0.0)) {
        faces[t] = vec4(0.0);
        faces[tc + t] = vec4(0.0);
        faces[2u * tc + t] = vec4(0.0);
        return;
    }
    faces[t] = vec4(c, 0.0);
    vec3 ft = vec3(0.0), fb = vec3(0.0);
    if ((layoutData[tri.w * 8u + 6u] & 2u) != 0u) {
        const vec2 uv0 = uvs[tri.x];
        const vec2 d1 = uvs[tri.y] - uv0;
        const vec2 d2 = uvs[tri.z] - uv0;
        const float det = d1.x * d2.y - d2.x * d1.y;
        if (isFiniteF(det) && abs(det) > 1e-12) {
            const float w = sqrt(area2) / det;
            ft = (e1 * d2.y - e2 * d1.y) * w;
            fb = (e2 * d1.x - e1 * d2.x) * w;
            if (!isFiniteF(ft.x + ft.y + ft.z + fb.x + fb.y + fb.z)) {
                ft = vec3(0.0);
                fb = vec3(0.0);
            }
        }
    }
    faces[tc + t] = vec4(ft, 0.0);
    faces[2u * tc + t] = vec4(fb, 0.0);
}
