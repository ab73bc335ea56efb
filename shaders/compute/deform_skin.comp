// Skin pass: one method (params.method = rig::Method id) for every vertex. Mirrors rig::SkinJob (skinning.cpp) formula
// for formula, including its edge cases: zero weights skipped, undefined directions are the zero vector (never NaN),
// the dual-quaternion (and center-of-rotation) fallback to the linear blend for mirrored/singular joints, the
// singular flags. Method::Rebuilt (8) skins positions (and the linear frames); the errors pass then copies the
// reference in.
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
    vec4 m0, m1, m2, m3;   // skin matrix M = jointWorld * inverseBind, columns
    vec4 it0, it1, it2;    // R^{-T} columns (zero when singular)
    vec4 s0, s1, s2;       // stretch S of the polar decomposition R = Q S, columns
    vec4 qr;               // dual quaternion real part (x, y, z, w)
    vec4 qd;               // dual part
    uvec4 flags;           // x: mirrored, y: singular
};

layout(std430, binding = 1) readonly buffer LayoutBuffer { uint layoutData[]; };
layout(std430, binding = 2) readonly buffer PaletteBuffer { Joint palette[]; };
// Per vertex K/4 blocks of (uvec4 global palette indices, uvec4 weight bits).
layout(std430, binding = 3) readonly buffer InfluenceBuffer { uvec4 influences[]; };
// [0, N] CSR offsets per vertex, then from gradEntryBase 4 uints per entry: gradient xyz (float bits), palette index;
// then (from gradEntryBase + 4 * gradData[N], the entry count) 4 uints per vertex: its centre of rotation xyz (float
// bits) and 0.
layout(std430, binding = 4) readonly buffer GradientBuffer { uint gradData[]; };
layout(std430, binding = 5) readonly buffer MorphedBuffer { vec4 morphed[]; };
layout(std430, binding = 6) writeonly buffer PositionBuffer { vec4 outPositions[]; };
layout(std430, binding = 7) writeonly buffer NormalBuffer { vec4 outNormals[]; };
layout(std430, binding = 8) writeonly buffer TangentBuffer { vec4 outTangents[]; };
layout(std430, binding = 9) writeonly buffer FlagBuffer { uint outFlags[]; };

const uint kFlagDqFallback = 1u;
const uint kFlagSingular = 2u;

bool isFiniteF(float x)
{
    return (floatBitsToUint(x) & 0x7f800000u) != 0x7f800000u;
}

// rig::safeNormalize: v / |v|, or 0 when |v|² < 1e-24 or not finite.
vec3 safeNormalize(vec3 v)
{
    const float len2 = dot(v, v);
    if (!isFiniteF(len2) || !(len2 >= 1e-24))
        return vec3(0.0);
    return v * (1.0 / sqrt(len2));
}

// Rows of cof(A) are r1×r2, r2×r0, r0×r1 for the rows r0, r1, r2 of A.
mat3 cofactor(mat3 a)
{
    const vec3 r0 = vec3(a[0][0], a[1][0], a[2][0]);
    const vec3 r1 = vec3(a[0][1], a[1][1], a[2][1]);
    const vec3 r2 = vec3(a[0][2], a[1][2], a[2][2]);
    const vec3 c0 = cross(r1, r2);
    const vec3 c1 = cross(r2, r0);
    const vec3 c2 = cross(r0, r1);
    return mat3(vec3(c0.x, c1.x, c2.x), vec3(c0.y, c1.y, c2.y), vec3(c0.z, c1.z, c2.z));
}

// |det| below 1e-6 of a same-norm uniform scale's determinant counts as singular (skinning.cpp singular3).
bool singular3(mat3 a, float det)
{
    const float f2 = dot(a[0], a[0]) + dot(a[1], a[1]) + dot(a[2], a[2]);
    const float s = f2 * (1.0 / 3.0);
    const float scale3 = s * sqrt(s);
    return !isFiniteF(det) || !(abs(det) > 1e-6 * scale3);
}

// Quaternions as vec4 (x, y, z, w); the glm product.
vec4 qmul(vec4 a, vec4 b)
{
    return vec4(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}

vec3 qrotate(vec4 q, vec3 v)
{
    const vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
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
    const uint n = params.vertexCount;
    const bool hasTangents = (layoutData[mb + 6u] & 1u) != 0u;
    const uint K = params.influencesPerVertex;
    const uint blocks = K / 4u;

    uint J[8];
    float W[8];
    for (uint b = 0u; b < 2u; ++b) {
        uvec4 jj = uvec4(0u);
        vec4 ww = vec4(0.0);
        if (b < blocks) {
            jj = influences[(v * blocks + b) * 2u];
            ww = uintBitsToFloat(influences[(v * blocks + b) * 2u + 1u]);
        }
        for (uint c = 0u; c < 4u; ++c) {
            J[4u * b + c] = jj[c];
            W[4u * b + c] = ww[c];
        }
    }

    // Blended affine matrix A = Σ w_j M_j (3x4).
    vec3 c0 = vec3(0.0), c1 = vec3(0.0), c2 = vec3(0.0), c3 = vec3(0.0);
    for (uint i = 0u; i < K; ++i) {
        const float w = W[i];
        if (w != 0.0) {
            const uint j = J[i];
            c0 += w * palette[j].m0.xyz;
            c1 += w * palette[j].m1.xyz;
            c2 += w * palette[j].m2.xyz;
            c3 += w * palette[j].m3.xyz;
        }
    }
    const vec3 p = morphed[v].xyz;
    const vec3 nIn = morphed[n + v].xyz;
    const vec4 tIn = morphed[2u * n + v];
    const mat3 a3 = mat3(c0, c1, c2);

    vec3 outP = c0 * p.x + c1 * p.y + c2 * p.z + c3;
    vec3 outN = vec3(0.0);
    vec3 tDir = vec3(0.0);
    bool tangentZero = false; // the dual-quaternion singular case writes (0, 0, 0, 0)
    uint flags = 0u;
    const uint method = params.method;

    if (method == 0u) { // positions-only
        outN = safeNormalize(nIn);
        tDir = tIn.xyz;
    } else if (method == 2u) { // blend-inverse-transpose
        mat3 nm = mat3(0.0);
        bool singular = false;
        for (uint i = 0u; i < K; ++i) {
            const float w = W[i];
            if (w != 0.0) {
                const uint j = J[i];
                nm += w * mat3(palette[j].it0.xyz, palette[j].it1.xyz, palette[j].it2.xyz);
                singular = singular || palette[j].flags.y != 0u;
            }
        }
        outN = singular ? vec3(0.0) : safeNormalize(nm * nIn);
        tDir = a3 * tIn.xyz;
        flags = singular ? kFlagSingular : 0u;
    } else if (method == 3u || method == 4u) { // inverse-transpose, cofactor
        const vec3 cn = cofactor(a3) * nIn;
        if (method == 3u) {
            // A^{-T} n = cof(A) n / det(A): the cofactor direction, flipped when det < 0.
            const float det = determinant(a3);
            if (singular3(a3, det)) {
                outN = vec3(0.0);
                flags = kFlagSingular;
            } else {
                outN = safeNormalize(det < 0.0 ? -cn : cn);
            }
        } else {
            outN = safeNormalize(cn);
        }
        tDir = a3 * tIn.xyz;
    } else if (method == 5u || method == 7u) {
        // dual-quaternion (two-phase: stretch blended linearly, rigid part by DQ); center-of-rotation (the blended
        // rotation about the vertex's centre c: Q S (p - c) + A c)
        const bool dq = method == 5u;
        bool fallback = false;
        for (uint i = 0u; i < K; ++i)
            if (W[i] != 0.0 && (palette[J[i]].flags.x != 0u || palette[J[i]].flags.y != 0u))
                fallback = true;
        if (fallback) {
            outN = safeNormalize(a3 * nIn);
            tDir = a3 * tIn.xyz;
            flags = kFlagDqFallback;
        } else {
            const vec4 pivot = palette[J[0]].qr; // slot 0 holds the largest weight
            vec4 real = vec4(0.0), dual = vec4(0.0);
            mat3 s = mat3(0.0);
            for (uint i = 0u; i < K; ++i) {
                const float w = W[i];
                if (w == 0.0)
                    continue;
                const uint j = J[i];
                const vec4 qr = palette[j].qr;
                const float sw = dot(qr, pivot) < 0.0 ? -w : w;
                real += sw * qr;
                if (dq)
                    dual += sw * palette[j].qd;
                s += w * mat3(palette[j].s0.xyz, palette[j].s1.xyz, palette[j].s2.xyz);
            }
            const float len = sqrt(dot(real, real));
            if (!isFiniteF(len) || !(len > 1e-12)) {
                outP = vec3(0.0);
                outN = vec3(0.0);
                tangentZero = true;
                flags = kFlagSingular;
            } else {
                real = real * (1.0 / len);
                if (dq) {
                    dual = dual * (1.0 / len);
                    const vec4 tq = qmul(dual, vec4(-real.xyz, real.w));
                    const vec3 translation = 2.0 * tq.xyz;
                    outP = qrotate(real, s * p) + translation;
                } else {
                    const uint at = params.gradEntryBase + 4u * gradData[n] + 4u * v;
                    const vec3 c = uintBitsToFloat(uvec3(gradData[at], gradData[at + 1u], gradData[at + 2u]));
                    outP = qrotate(real, s * (p - c)) + (c0 * c.x + c1 * c.y + c2 * c.z + c3);
                }
                outN = safeNormalize(qrotate(real, cofactor(s) * nIn));
                tDir = qrotate(real, s * tIn.xyz);
            }
        }
    } else if (method == 6u) { // jacobian: J = A3 + Σ_j (M_j p) ∇w_jᵀ
        mat3 jac = a3;
        const uint first = gradData[v], last = gradData[v + 1u];
        for (uint e = first; e < last; ++e) {
            const uint at = params.gradEntryBase + 4u * e;
            const vec3 grad = uintBitsToFloat(uvec3(gradData[at], gradData[at + 1u], gradData[at + 2u]));
            const uint j = gradData[at + 3u];
            const vec3 mp = palette[j].m0.xyz * p.x + palette[j].m1.xyz * p.y + palette[j].m2.xyz * p.z + palette[j].m3.xyz;
            jac[0] += mp * grad.x;
            jac[1] += mp * grad.y;
            jac[2] += mp * grad.z;
        }
        outN = safeNormalize(cofactor(jac) * nIn);
        tDir = jac * tIn.xyz;
    } else { // linear (1), and rebuilt (8) whose directions the errors pass replaces by the reference
        outN = safeNormalize(a3 * nIn);
        tDir = a3 * tIn.xyz;
    }

    outPositions[v] = vec4(outP, 1.0);
    outNormals[v] = vec4(outN, 0.0);
    outTangents[v] = (!hasTangents || tangentZero) ? vec4(0.0) : vec4(safeNormalize(tDir), tIn.w);
    outFlags[v] = flags;
}
