// Blend-scale pass (rig/analysis/diagnosis/blend_scale.h): per vertex, how much linear blending shrinks its
// neighbourhood in this pose, the candy-wrapper measure. A = Σ w_i R_i (the upper 3×3 of the skin matrices, the
// runtime's top-K weights), s = Σ w_i |det R_i|^(1/3); out = (σ_min(A) / s, det(A) / s³, 0, 0), or (-1, 0, 0, 0)
// where s is 0 or not finite. σ_min = |det A| / (σ_mid σ_max), σ_mid and σ_max from the eigenvalues of AᵀA in closed
// form: the product keeps its precision where A is nearly singular. Independent of the method: run once per pose.
// out.z, out.w: how far dual quaternions move the vertex from linear blending's position (dual_displacement.h): the
// distance in scene units and that over the vertex's limb radius (-1 where it has none); 0 where a joint of the
// vertex is mirrored or singular (dual quaternions fall back to the linear blend there).
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

struct Joint {
    vec4 m0, m1, m2, m3;
    vec4 it0, it1, it2;
    vec4 s0, s1, s2;
    vec4 qr;
    vec4 qd;
    uvec4 flags;
};

layout(std430, binding = 1) readonly buffer LayoutBuffer { uint layoutData[]; };
layout(std430, binding = 2) readonly buffer PaletteBuffer { Joint palette[]; };
layout(std430, binding = 3) readonly buffer InfluenceBuffer { uvec4 influences[]; };
layout(std430, binding = 4) writeonly buffer BlendScaleBuffer { vec4 outScale[]; };
layout(std430, binding = 5) readonly buffer MorphedBuffer { vec4 morphed[]; };
// deform_skin.comp's: after the gradient entries, 4 uints a vertex: its centre of rotation and its limb radius.
layout(std430, binding = 6) readonly buffer GradientBuffer { uint gradData[]; };

bool isFiniteF(float x)
{
    return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u;
}

vec4 qmul(vec4 a, vec4 b)
{
    return vec4(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}

vec3 qrotate(vec4 q, vec3 v)
{
    const vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

// |dual-quaternion − linear| of vertex v at bind-space position p, as deform_skin.comp skins both (0 on the fallback).
float dqDisplacement(uint v, vec3 p, uint blocks)
{
    vec3 c0 = vec3(0.0), c1 = vec3(0.0), c2 = vec3(0.0), c3 = vec3(0.0);
    vec4 real = vec4(0.0), dual = vec4(0.0);
    mat3 s = mat3(0.0);
    vec4 pivot = vec4(0.0);
    bool fallback = false;
    for (uint b = 0u; b < blocks; ++b) {
        const uvec4 jj = influences[(v * blocks + b) * 2u];
        const vec4 ww = uintBitsToFloat(influences[(v * blocks + b) * 2u + 1u]);
        if (b == 0u)
            pivot = palette[jj[0]].qr; // slot 0 holds the largest weight
        for (uint c = 0u; c < 4u; ++c) {
            const float w = ww[c];
            if (w == 0.0)
                continue;
            const uint j = jj[c];
            fallback = fallback || palette[j].flags.x != 0u || palette[j].flags.y != 0u;
            c0 += w * palette[j].m0.xyz;
            c1 += w * palette[j].m1.xyz;
            c2 += w * palette[j].m2.xyz;
            c3 += w * palette[j].m3.xyz;
            const vec4 qr = palette[j].qr;
            const float sw = dot(qr, pivot) < 0.0 ? -w : w;
            real += sw * qr;
            dual += sw * palette[j].qd;
            s += w * mat3(palette[j].s0.xyz, palette[j].s1.xyz, palette[j].s2.xyz);
        }
    }
    const float len = sqrt(dot(real, real));
    if (fallback || !isFiniteF(len) || !(len > 1e-12))
        return 0.0;
    real = real * (1.0 / len);
    dual = dual * (1.0 / len);
    const vec3 translation = 2.0 * qmul(dual, vec4(-real.xyz, real.w)).xyz;
    const vec3 dq = qrotate(real, s * p) + translation;
    const vec3 lin = c0 * p.x + c1 * p.y + c2 * p.z + c3;
    const float d = length(dq - lin);
    return isFiniteF(d) ? d : 0.0;
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
    const uint blocks = params.influencesPerVertex / 4u;

    const float displacement = dqDisplacement(v, morphed[v].xyz, blocks);
    const float radius = uintBitsToFloat(gradData[params.gradEntryBase + 4u * gradData[params.vertexCount] + 4u * v + 3u]);
    const float fraction = radius > 0.0 ? displacement / radius : -1.0;

    mat3 a = mat3(0.0);
    float s = 0.0;
    for (uint b = 0u; b < blocks; ++b) {
        const uvec4 jj = influences[(v * blocks + b) * 2u];
        const vec4 ww = uintBitsToFloat(influences[(v * blocks + b) * 2u + 1u]);
        for (uint c = 0u; c < 4u; ++c) {
            const float w = ww[c];
            if (w == 0.0)
                continue;
            const mat3 r = mat3(palette[jj[c]].m0.xyz, palette[jj[c]].m1.xyz, palette[jj[c]].m2.xyz);
            a += w * r;
            s += w * pow(abs(determinant(r)), 1.0 / 3.0);
        }
    }
    const float det = determinant(a);
    if (!(s > 0.0) || !isFiniteF(s) || !isFiniteF(det)) {
        outScale[v] = vec4(-1.0, 0.0, displacement, fraction);
        return;
    }
    // Eigenvalues of the symmetric b = aᵀa: q + 2p cos(φ + 2πk/3).
    const mat3 bm = transpose(a) * a;
    const float off = bm[1][0] * bm[1][0] + bm[2][0] * bm[2][0] + bm[2][1] * bm[2][1];
    const float q = (bm[0][0] + bm[1][1] + bm[2][2]) / 3.0;
    float largest, middle;
    if (off <= 1e-14 * q * q) {
        const vec3 d = vec3(bm[0][0], bm[1][1], bm[2][2]);
        largest = max(d.x, max(d.y, d.z));
        middle = d.x + d.y + d.z - largest - min(d.x, min(d.y, d.z));
    } else {
        const vec3 d = vec3(bm[0][0], bm[1][1], bm[2][2]) - vec3(q);
        const float p = sqrt((dot(d, d) + 2.0 * off) / 6.0);
        mat3 c = bm;
        c[0][0] -= q;
        c[1][1] -= q;
        c[2][2] -= q;
        const float r = clamp(determinant(c) / (2.0 * p * p * p), -1.0, 1.0);
        const float phi = acos(r) / 3.0;
        largest = q + 2.0 * p * cos(phi);
        const float smallest = q + 2.0 * p * cos(phi + 2.0943951023931953);
        middle = 3.0 * q - largest - smallest;
    }
    const float sigmaMin = middle > 0.0 && largest > 0.0 ? abs(det) / sqrt(middle * largest) : 0.0;
    outScale[v] = vec4(min(sigmaMin, sqrt(max(middle, 0.0))) / s, det / (s * s * s), displacement, fraction);
}
