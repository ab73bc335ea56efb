// Errors pass (rig/analysis/metrics.h, carried.h): the angle in degrees between the method's direction and the
// reference, atan2(|a × b|, a · b); -1 (undefined, never NaN) when either is not a unit direction or the mesh has no
// tangents. Also against the reference carried from the bind pose: R · authored, R = F_p F_bᵀ (frames (t, n × t, n) of
// the rebuilt reference at the bind pose and now; t the UV tangent, else the carrier edge projected onto the normal's
// plane), the minimal rotation between the rebuilt normals when neither frame is defined, the identity when both
// frames are the same.
// For Method::Rebuilt (8) the method's directions ARE the reference: they are copied into the output buffers first.
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
// (normal error, tangent error, skinning normal error, skinning tangent error) in degrees per vertex.
layout(std430, binding = 6) writeonly buffer ErrorBuffer { vec4 errors[]; };
// The reference at the bind pose: [0, N) normals, [N, 2N) tangents (zero when undefined or none); [2N, 3N) the carrier
// edges (rig/analysis/carried.h): xyz the bind tangent, w the far end's global vertex index as bits (0xFFFFFFFF: none).
layout(std430, binding = 7) readonly buffer BindReferenceBuffer { vec4 bindReference[]; };
// The authored (rest) attributes: [0, N) positions, [N, 2N) normals, [2N, 3N) tangents.
layout(std430, binding = 8) readonly buffer RestBuffer { vec4 rest[]; };
// This method's final positions, from which the reference was rebuilt.
layout(std430, binding = 9) readonly buffer PositionBuffer { vec4 positions[]; };

bool isFiniteF(float x)
{
    return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u;
}

bool isDefined(vec3 v)
{
    const float len2 = dot(v, v);
    return isFiniteF(len2) && len2 > 0.25;
}

vec3 safeNormalize(vec3 v)
{
    const float len2 = dot(v, v);
    if (!isFiniteF(len2) || !(len2 >= 1e-24))
        return vec3(0.0);
    return v * (1.0 / sqrt(len2));
}

vec3 perpendicular(vec3 a)
{
    const vec3 helper = abs(a.x) < 0.9 ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 1.0, 0.0);
    return normalize(cross(a, helper));
}

mat3 minimalRotation(vec3 a, vec3 b)
{
    const vec3 axis = cross(a, b);
    const float s = length(axis);
    const float c = dot(a, b);
    if (s < 1e-7) {
        if (c > 0.0)
            return mat3(1.0);
        const vec3 k = perpendicular(a);
        return 2.0 * outerProduct(k, k) - mat3(1.0);
    }
    const vec3 k = axis / s;
    const mat3 K = mat3(vec3(0.0, k.z, -k.y), vec3(-k.z, 0.0, k.x), vec3(k.y, -k.x, 0.0));
    return mat3(1.0) + s * K + (1.0 - c) * (K * K);
}

// rig::carrierTangent: the edge projected onto the plane of unit n, unit; zero where degenerate or along n.
vec3 carrierTangent(vec3 from, vec3 to, vec3 n)
{
    const vec3 e = to - from;
    const float len2 = dot(e, e);
    if (!isFiniteF(len2) || !(len2 >= 1e-24))
        return vec3(0.0);
    const vec3 p = e - dot(e, n) * n;
    const float p2 = dot(p, p);
    if (!(p2 >= 1e-6 * len2))
        return vec3(0.0);
    return safeNormalize(p);
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
    if (params.method == 8u) {
        n = rn;
        t = rt;
        normals[v] = n;
        tangents[v] = t;
    }
    const float en = angleDeg(n.xyz, rn.xyz);
    const float et = hasTangents ? angleDeg(t.xyz, rt.xyz) : -1.0;

    // The reference carried from the bind pose.
    const uint N = params.vertexCount;
    const vec3 nb = bindReference[v].xyz;
    vec3 tb = bindReference[N + v].xyz;
    const vec3 np = rn.xyz;
    vec3 tp = rt.xyz;
    float esn = -1.0, est = -1.0;
    if (isDefined(nb) && isDefined(np)) {
        if (!isDefined(tb) || !isDefined(tp)) { // no UV frame: the carrier edge's
            const vec4 edge = bindReference[2u * N + v];
            const uint q = floatBitsToUint(edge.w);
            tb = vec3(0.0);
            tp = vec3(0.0);
            if (q != 0xFFFFFFFFu) {
                tb = edge.xyz;
                tp = carrierTangent(positions[v].xyz, positions[q].xyz, np);
            }
        }
        mat3 r;
        if (nb == np && tb == tp)
            r = mat3(1.0);
        else if (isDefined(tb) && isDefined(tp))
            r = mat3(tp, cross(np, tp), np) * transpose(mat3(tb, cross(nb, tb), nb));
        else
            r = minimalRotation(nb, np);
        esn = angleDeg(n.xyz, r * safeNormalize(rest[N + v].xyz));
        if (hasTangents)
            est = angleDeg(t.xyz, r * safeNormalize(rest[2u * N + v].xyz));
    }
    errors[v] = vec4(en, et, esn, est);
}
