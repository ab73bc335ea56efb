#version 440
// Lit shading (plain, normal-mapped bumps, UV checker) or an angular-error heatmap (green 0°, red >= max).

layout(location = 0) in vec3 vWorld;
layout(location = 1) in vec3 vNormal;
layout(location = 2) in vec4 vTangent;
layout(location = 3) in vec2 vUv;
layout(location = 4) in vec4 vError;
layout(location = 6) in float vHandedness;
layout(location = 5) in float vSelected;
layout(location = 7) in float vScalar;
layout(location = 8) in vec4 vBaseColor;
layout(location = 9) in vec2 vTexUv;

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

// The mesh's base colour texture (sRGB: sampled as linear), white for a mesh without one.
layout(binding = 8) uniform sampler2D baseColorTexture;

vec3 linearToSrgb(vec3 c)
{
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

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

// The weight ramp: 0 dark blue, 0.25 cyan, 0.5 green, 0.75 yellow, 1 red (a weight painter's colours).
vec3 weightRamp(float w)
{
    float t = clamp(w, 0.0, 1.0) * 4.0;
    vec3 c0 = vec3(0.05, 0.08, 0.35), c1 = vec3(0.1, 0.65, 0.9), c2 = vec3(0.15, 0.8, 0.25), c3 = vec3(0.95, 0.85, 0.1),
         c4 = vec3(0.9, 0.12, 0.1);
    return t < 1.0 ? mix(c0, c1, t) : t < 2.0 ? mix(c1, c2, t - 1.0) : t < 3.0 ? mix(c2, c3, t - 2.0) : mix(c3, c4, t - 3.0);
}

// Influence counts: 0 black, 1..4 blue to yellow, 5..8 orange to red, more than 8 magenta.
vec3 countColor(float c)
{
    if (c < 0.5) return vec3(0.08, 0.08, 0.08);
    if (c < 1.5) return vec3(0.15, 0.3, 0.85);
    if (c < 2.5) return vec3(0.1, 0.7, 0.85);
    if (c < 3.5) return vec3(0.15, 0.75, 0.25);
    if (c < 4.5) return vec3(0.92, 0.85, 0.15);
    if (c < 8.5) return mix(vec3(0.95, 0.55, 0.1), vec3(0.85, 0.1, 0.1), (c - 5.0) / 3.0);
    return vec3(0.95, 0.2, 0.9);
}

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

    // 11: the candy-wrapper scale of linear blending: green at 1, yellow at 0.85, red at 0.7 and below; undefined
    // violet. Lightly lit so that the shape reads.
    if (mode == 11) {
        vec3 c = vScalar < 0.0 ? vec3(0.55, 0.25, 0.6) : heat(max(1.0 - vScalar, 0.0), 0.3); // rounding may give 1 + ε
        float lit = undefinedNormal ? 1.0 : 0.6 + 0.4 * abs(dot(n, normalize(ubo.lightDir.xyz)));
        fragColor = vec4(mix(c * lit, vec3(1.0), vSelected), 1.0);
        return;
    }

    // 12: how far dual quaternions move the vertex from linear blending, over its limb radius: heat from 0 to 0.5 and
    // beyond; undefined (no limb radius) violet. Lightly lit.
    if (mode == 12) {
        vec3 c = vScalar < 0.0 ? vec3(0.55, 0.25, 0.6) : heat(vScalar, 0.5);
        float lit = undefinedNormal ? 1.0 : 0.6 + 0.4 * abs(dot(n, normalize(ubo.lightDir.xyz)));
        fragColor = vec4(mix(c * lit, vec3(1.0), vSelected), 1.0);
        return;
    }

    // 13, 14: the runtime format's difference from the float reference: the position's distance (heat from 0 to
    // params.x, scene units) and the normal's angle (heat from 0 to params.x degrees; undefined violet). Lightly lit.
    // 15: the rig comparison's weight change (heat from 0 to params.x; no partner violet), the same way.
    if (mode == 13 || mode == 14 || mode == 15) {
        vec3 c = vScalar < 0.0 ? vec3(0.55, 0.25, 0.6) : heat(vScalar, ubo.params.x);
        float lit = undefinedNormal ? 1.0 : 0.6 + 0.4 * abs(dot(n, normalize(ubo.lightDir.xyz)));
        fragColor = vec4(mix(c * lit, vec3(1.0), vSelected), 1.0);
        return;
    }

    // 7, 8: the selected joint's raw weight (continuous; banded at 0, 0.25, 0.5, 0.75, 1); 9: usable influence count;
    // 10: |Σw − 1| (green 0, red at 0.1 and above). Lightly lit so that the shape reads.
    if (mode >= 7 && mode <= 10) {
        // Derivatives before any branch on the vertex's values (they are only defined in uniform control flow).
        float px = max(fwidth(clamp(vScalar, 0.0, 1.0) * 4.0), 1e-5);
        vec3 c;
        float w = vScalar;
        if (w == -1.0)
            c = vec3(0.45, 0.45, 0.48); // no joint selected
        else if (w == -2.0)
            c = vec3(0.55, 0.25, 0.6); // NaN / infinite weight: violet, as undefined errors
        else if (mode == 7)
            c = weightRamp(w);
        else if (mode == 8) {
            // Flat bands [0, .25) [.25, .5) [.5, .75) [.75, 1), dark iso-lines at 0.25, 0.5, 0.75; exactly 0 dark grey,
            // 1 (within float precision) full red.
            float sc = clamp(w, 0.0, 1.0) * 4.0;
            c = weightRamp((min(floor(sc), 3.0) + 0.5) / 4.0);
            if (w <= 0.0)
                c = vec3(0.12, 0.12, 0.16);
            else if (w >= 0.9999)
                c = weightRamp(1.0);
            float level = floor(sc + 0.5);
            float line = 1.0 - smoothstep(0.5 * px, 1.5 * px, abs(sc - level));
            if (level >= 1.0 && level <= 3.0)
                c = mix(c, vec3(0.02), 0.85 * line);
        } else if (mode == 9)
            c = countColor(w);
        else
            c = w < 1e-6 ? vec3(0.1, 0.75, 0.2) : heat(w, 0.1);
        float lit = undefinedNormal ? 1.0 : 0.6 + 0.4 * abs(dot(n, normalize(ubo.lightDir.xyz)));
        fragColor = vec4(mix(c * lit, vec3(1.0), vSelected), 1.0);
        return;
    }

    // Plain: the file's base colour (factor x texture, linear; lit in linear and written as sRGB), else a neutral grey.
    // The texture is sampled before any branch (its mip level needs derivatives in uniform control flow).
    vec3 texel = texture(baseColorTexture, vTexUv).rgb;
    bool fileColour = vBaseColor.a > 0.0 && material == 0;
    vec3 albedo = fileColour ? vBaseColor.rgb * texel : vec3(0.72, 0.72, 0.74);
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
    if (fileColour)
        c = linearToSrgb(c);
    fragColor = vec4(mix(c, vec3(1.0, 0.9, 0.2), vSelected), 1.0);
}
