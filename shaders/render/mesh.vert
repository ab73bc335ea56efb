#version 440
// Draws the skinned mesh from the GPU deformer's storage buffers, indexed by gl_VertexIndex.

layout(location = 0) in vec2 inUv;
layout(location = 1) in vec4 inBaseColor; // the mesh's base colour factor; alpha 0: none
layout(location = 2) in vec2 inTexUv;     // UV0 with the image's first row at v = 0 (the base colour texture)

layout(std140, binding = 0) uniform View {
    mat4 viewProj;
    vec4 eye;         // xyz
    vec4 lightDir;    // xyz, towards the light
    vec4 params;      // x: heatmap max (deg), y: mode, z: material, w: selected vertex (-1 none)
    vec4 viewport;    // x, y: size in pixels; z: line width px; w: line length (world)
    vec4 color;       // overlay colour
    ivec4 flags;      // x: line source, y: vertex count, z: marker vertex, w: selected joint (node, -1 none)
} ubo;

layout(std430, binding = 1) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 2) readonly buffer Normals { vec4 normals[]; };
layout(std430, binding = 3) readonly buffer Tangents { vec4 tangents[]; };
layout(std430, binding = 4) readonly buffer RefNormals { vec4 refNormals[]; };
layout(std430, binding = 5) readonly buffer RefTangents { vec4 refTangents[]; };
layout(std430, binding = 6) readonly buffer Errors { vec4 errors[]; };
// The raw influences (GpuDeformer::rawInfluencesBuffer): [0..N] CSR offsets, then (node, weight bits) per entry.
layout(std430, binding = 7) readonly buffer Raw { uint raw[]; };
// The candy-wrapper measure of linear blending and the dual-quaternion displacement (GpuDeformer::blendScaleBuffer):
// (scale, volume, distance, fraction of the limb radius), scale and fraction -1 where undefined.
layout(std430, binding = 9) readonly buffer BlendScale { vec4 blendScale[]; };
// The runtime format's difference from the float reference (GpuDeformer::formatDifferenceBuffer): (distance, normal
// angle in degrees or -1, 0, 0).
layout(std430, binding = 10) readonly buffer FormatDifference { vec4 formatDifference[]; };
// One value per vertex from the CPU (Viewport::setVertexValues): the rig comparison's weight change, -1 unmatched.
layout(std430, binding = 11) readonly buffer VertexValues { float vertexValues[]; };

layout(location = 0) out vec3 vWorld;
layout(location = 1) out vec3 vNormal;
layout(location = 2) out vec4 vTangent;
layout(location = 3) out vec2 vUv;
layout(location = 4) out vec4 vError;
layout(location = 6) out float vHandedness;
layout(location = 5) out float vSelected;
layout(location = 7) out float vScalar;
layout(location = 8) out vec4 vBaseColor;
layout(location = 9) out vec2 vTexUv;

// The weight views' scalar of vertex v (modes 7..10); negative values are codes the fragment shader colours:
// -1 no joint selected, -2 a NaN or infinite weight in the sum.
float weightScalar(int v, int mode)
{
    uint n = uint(ubo.flags.y);
    uint b = raw[v], e = raw[v + 1];
    uint node = uint(ubo.flags.w);
    if ((mode == 7 || mode == 8) && ubo.flags.w < 0)
        return -1.0;
    float sum = 0.0;
    float count = 0.0;
    bool bad = false;
    for (uint i = b; i < e; ++i) {
        uint j = raw[n + 1u + 2u * i];
        float w = uintBitsToFloat(raw[n + 2u + 2u * i]);
        bool finiteW = !(isnan(w) || isinf(w));
        if (j == 0xffffffffu)
            continue;
        if (mode == 7 || mode == 8) {
            if (j == node) {
                bad = bad || !finiteW;
                sum += finiteW ? w : 0.0;
            }
        } else {
            bad = bad || !finiteW;
            if (finiteW) {
                sum += w;
                count += w > 0.0 ? 1.0 : 0.0;
            }
        }
    }
    if (mode == 9)
        return count;
    if (bad)
        return -2.0;
    return mode == 10 ? abs(sum - 1.0) : sum;
}

void main()
{
    int v = gl_VertexIndex;
    int mode = int(ubo.params.y);
    vec3 p = positions[v].xyz;
    // mode 3 = lit with the rebuilt reference's frame; every other mode shows the method's own frame.
    bool reference = mode == 3;
    vNormal = reference ? refNormals[v].xyz : normals[v].xyz;
    vTangent = reference ? refTangents[v] : tangents[v];
    vWorld = p;
    vUv = inUv;
    vBaseColor = inBaseColor;
    vTexUv = inTexUv;
    vError = errors[v];
    // Tangent handedness of the method against the reference: 1 disagree, 0 agree, -1 undefined.
    const vec4 mt = tangents[v], rt = refTangents[v];
    vHandedness = (dot(mt.xyz, mt.xyz) > 0.25 && dot(rt.xyz, rt.xyz) > 0.25) ? ((mt.w < 0.0) != (rt.w < 0.0) ? 1.0 : 0.0) : -1.0;
    vSelected = (float(v) == ubo.params.w) ? 1.0 : 0.0;
    vScalar = mode == 11   ? blendScale[v].x
              : mode == 12 ? blendScale[v].w
              : mode == 13 ? formatDifference[v].x
              : mode == 14 ? formatDifference[v].y
              : mode == 15 ? vertexValues[v]
              : mode >= 7  ? weightScalar(v, mode)
                           : 0.0;
    gl_Position = ubo.viewProj * vec4(p, 1.0);
}
