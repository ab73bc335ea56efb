#version 440
// Overlay lines drawn as screen-space quads (wide lines do not exist on every backend): 6 vertices per line.
// Sources (flags.x): 0 = vectors (origin + normalize(dir) * length), 1 = segments (origin, origin + dir),
// 3 = a marker square around origin[flags.z], 4 = bounding-box edges: origins holds (min, max) vec4 pairs per mesh,
// 12 lines per mesh (an empty mesh has min > max and draws nothing), 5 = a small marker square around
// origins[index] for every index of a vertex set packed four to a vec4 of dirs (uint bits), 6 = edges (the
// wireframe): line i runs from origins[a] to origins[b], the pair (a, b) packed two to a vec4 of dirs (uint bits).
// flags.w: the first line (segment sources: a sub-range of the segment buffer); for vectors (source 0) the stride:
// line i draws one vertex of [i * stride, (i + 1) * stride), picked by a hash of i (a thinned, non-aliasing subset).

layout(std140, binding = 0) uniform View {
    mat4 viewProj;
    vec4 eye;
    vec4 lightDir;
    vec4 params;
    vec4 viewport;   // x, y: size in pixels; z: line width px; w: line length (world)
    vec4 color;
    ivec4 flags;     // x: source, y: line count, z: marker vertex (vectors: the vertex count), w: first line / stride
} ubo;

layout(std430, binding = 1) readonly buffer Origins { vec4 origins[]; };
layout(std430, binding = 2) readonly buffer Directions { vec4 dirs[]; };

layout(location = 0) out vec4 vColor;

void main()
{
    int line = gl_VertexIndex / 6 + (ubo.flags.x == 1 ? ubo.flags.w : 0);
    int corner = gl_VertexIndex % 6;
    int source = ubo.flags.x;
    vColor = ubo.color;

    if (source == 3 || source == 5) {
        uint at = source == 3 ? uint(ubo.flags.z) : floatBitsToUint(dirs[line >> 2][line & 3]);
        vec4 c = ubo.viewProj * vec4(origins[at].xyz, 1.0);
        vec2 q[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(1, 1), vec2(-1, -1), vec2(1, 1), vec2(-1, 1));
        vec2 px = q[corner] * ubo.viewport.z * (source == 3 ? 2.5 : 1.5);
        gl_Position = c + vec4(px / ubo.viewport.xy * 2.0 * c.w, 0.0, 0.0);
        gl_Position.z -= 1e-4 * c.w;
        return;
    }

    vec3 a;
    vec3 d;
    if (source == 6) {
        vec4 pair = dirs[line >> 1];
        uint ia = floatBitsToUint((line & 1) == 0 ? pair.x : pair.z);
        uint ib = floatBitsToUint((line & 1) == 0 ? pair.y : pair.w);
        a = origins[ia].xyz;
        d = origins[ib].xyz - a;
        source = 1;
    } else if (source == 4) {
        int mesh = line / 12;
        int edge = line % 12;
        vec3 lo = origins[2 * mesh].xyz;
        vec3 hi = origins[2 * mesh + 1].xyz;
        if (any(greaterThan(lo, hi))) {
            gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
            return;
        }
        // Edges 0-3 run along x, 4-7 along y, 8-11 along z; the other two axes pick min or max by the edge's bits.
        int axis = edge / 4;
        int bits = edge % 4;
        vec3 start = lo;
        vec3 ext = hi - lo;
        if (axis == 0) { start.y = (bits & 1) != 0 ? hi.y : lo.y; start.z = (bits & 2) != 0 ? hi.z : lo.z; d = vec3(ext.x, 0.0, 0.0); }
        else if (axis == 1) { start.x = (bits & 1) != 0 ? hi.x : lo.x; start.z = (bits & 2) != 0 ? hi.z : lo.z; d = vec3(0.0, ext.y, 0.0); }
        else { start.x = (bits & 1) != 0 ? hi.x : lo.x; start.y = (bits & 2) != 0 ? hi.y : lo.y; d = vec3(0.0, 0.0, ext.z); }
        a = start;
        source = 1;
    } else {
        int at = line;
        if (source == 0 && ubo.flags.w > 1) {
            uint h = uint(line) * 2654435761u;
            h ^= h >> 16;
            at = min(line * ubo.flags.w + int(h % uint(ubo.flags.w)), ubo.flags.z - 1); // z: the vertex count
        }
        a = origins[at].xyz;
        d = dirs[at].xyz;
    }
    float len2 = dot(d, d);
    vec3 b;
    if (source == 1) {
        b = a + d;
    } else {
        if (!(len2 > 1e-12)) { // undefined direction: no line
            gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
            return;
        }
        b = a + d * inversesqrt(len2) * ubo.viewport.w;
    }
    vec4 ca = ubo.viewProj * vec4(a, 1.0);
    vec4 cb = ubo.viewProj * vec4(b, 1.0);
    if (ca.w <= 1e-6 || cb.w <= 1e-6) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        return;
    }
    vec2 sa = ca.xy / ca.w * ubo.viewport.xy * 0.5;
    vec2 sb = cb.xy / cb.w * ubo.viewport.xy * 0.5;
    vec2 along = sb - sa;
    float l = length(along);
    vec2 perp = l > 1e-4 ? vec2(-along.y, along.x) / l : vec2(1.0, 0.0);
    vec2 off = perp * ubo.viewport.z * 0.5 / (ubo.viewport.xy * 0.5);
    // corners: (a,-) (b,-) (b,+) (a,-) (b,+) (a,+)
    bool atB = corner == 1 || corner == 2 || corner == 4;
    float side = (corner == 2 || corner == 4 || corner == 5) ? 1.0 : -1.0;
    vec4 c = atB ? cb : ca;
    gl_Position = c + vec4(off * side * c.w, 0.0, 0.0);
    // Pull lines slightly towards the camera so they win over the surface they start on.
    gl_Position.z -= 2e-4 * c.w;
}
