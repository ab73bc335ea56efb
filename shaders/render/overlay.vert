#version 440
// A full-screen triangle that composites the 2D overlay (labels, legend) painted by the CPU.
layout(std140, binding = 0) uniform Overlay {
    vec4 params; // x: 1 if NDC y points up (OpenGL), else 0
} ubo;
layout(location = 0) out vec2 vUv;
void main()
{
    vec2 p = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2)) * 2.0 - 1.0;
    vUv = vec2(p.x * 0.5 + 0.5, ubo.params.x > 0.5 ? 0.5 - p.y * 0.5 : 0.5 + p.y * 0.5);
    gl_Position = vec4(p, 0.0, 1.0);
}
