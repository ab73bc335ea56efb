#version 440
// Lit shading (plain, normal-mapped bumps, UV checker) or an angular-error heatmap (green 0°, red >= max).

layout(location = 0) in vec3 vWorld;
layout(location = 1) in vec3 vNormal;
layout(location = 2) in vec4 vTangent;
layout(location = 3) in vec2 vUv;
layout(location = 4) in vec4 vError;
layout(location = 6) in float vHandedness;
layout(location = 5) in float vSelected;

layout(location = 0) out vec4 fragColor;

layout(std140, binding = 0) uniform View {
    mat4 viewProj;
    vec4 eye;
    vec4 lightDir;
    vec4 params;
    vec4 viewport;
    vec4 color;
    ivec4 flags;
} ubo;

vec3 heat(float e, float maxDeg)
{
    if (e < 0.0)
        return vec3(0.55, 0.25, 0.6); // undefined: violet, never NaN
    float t = clamp(e / max(maxDeg, 1e-3), 0.0, 1.0);
    // green -> yellow -> red
    return t < 0.5 ? mix(vec3(0.1, 0.75, 0.2), vec3(0.95, 0.85, 0.1), t * 2.0)
                   : mix(vec3(0.95, 0.85, 0.1), vec3(0.9, 0.12, 0.1), (t - 0.5) * 2.0);
}

float safeLen(vec3 v) { return sqrt(max(dot(v, v), 0.0)); }

void main()
{
    int mode = int(ubo.params.y);
    int material = int(ubo.params.z);
    vec3 n = vNormal;
    float nl = safeLen(n);
    bool undefinedNormal = !(nl > 1e-6);
    n = undefinedNormal ? vec3(0.0, 0.0, 0.0) : n / nl;
    vec3 viewDir = normalize(ubo.eye.xyz - vWorld);
    // Two-sided: light the side facing the camera.
    if (!undefinedNormal && dot(n, viewDir) < 0.0)
        n = -n;

    // 1, 2: normal / tangent error; 5, 6: the same against the reference carried from the bind pose.
    if (mode == 1 || mode == 2 || mode == 5 || mode == 6) {
        float e = mode == 1 ? vError.x : mode == 2 ? vError.y : mode == 5 ? vError.z : vError.w;
        vec3 c = heat(e, ubo.params.x);
        fragColor = vec4(mix(c, vec3(1.0), vSelected), 1.0);
        return;
    }
    // 4: tangent handedness against the reference: red where they disagree, green where they agree.
    if (mode == 4) {
        vec3 c = vHandedness < -0.5 ? vec3(0.55, 0.25, 0.6) : vHandedness > 0.5 ? vec3(0.9, 0.12, 0.1) : vec3(0.1, 0.75, 0.2);
        fragColor = vec4(mix(c, vec3(1.0), vSelected), 1.0);
        return;
    }

    vec3 albedo = vec3(0.72, 0.72, 0.74);
    vec3 shadeN = n;
    if (material == 2) {
        vec2 cell = floor(vUv * 8.0);
        float checker = mod(cell.x + cell.y, 2.0);
        albedo = mix(vec3(0.25, 0.27, 0.32), vec3(0.85, 0.85, 0.82), checker);
    } else if (material == 1 && !undefinedNormal) {
        // Procedural height h = 0.5 sin(2π 6u) sin(2π 6v): its tangent-space normal, put into the world with the
        // method's tangent frame. A wrong tangent turns the bumps' lighting.
        const float k = 6.0 * 6.28318530718;
        float dhu = 0.5 * k * cos(k * vUv.x) * sin(k * vUv.y);
        float dhv = 0.5 * k * sin(k * vUv.x) * cos(k * vUv.y);
        vec3 ts = normalize(vec3(-dhu * 0.05, -dhv * 0.05, 1.0));
        vec3 t = vTangent.xyz - n * dot(n, vTangent.xyz);
        float tl = safeLen(t);
        if (tl > 1e-6) {
            t /= tl;
            vec3 b = cross(n, t) * (vTangent.w < 0.0 ? -1.0 : 1.0);
            shadeN = normalize(t * ts.x + b * ts.y + n * ts.z);
        }
        albedo = vec3(0.78, 0.66, 0.52);
    }
    if (undefinedNormal) {
        fragColor = vec4(0.55, 0.25, 0.6, 1.0);
        return;
    }
    vec3 l = normalize(ubo.lightDir.xyz);
    float diffuse = max(dot(shadeN, l), 0.0);
    vec3 h = normalize(l + viewDir);
    float spec = pow(max(dot(shadeN, h), 0.0), 48.0) * 0.35;
    vec3 c = albedo * (0.18 + 0.82 * diffuse) + vec3(spec);
    // Fill light from below/behind so silhouettes read.
    c += albedo * 0.12 * max(dot(shadeN, -l), 0.0);
    fragColor = vec4(mix(c, vec3(1.0, 0.9, 0.2), vSelected), 1.0);
}
