// The built-in procedural sample rigs.
//
// Every sample is generated in double precision and stored as float. All samples have UV0, unit normals and tangents
// (xyz + handedness w = sign(dot(n × t, ∂p/∂v))), all rest transforms are translation-only (so inverse bind matrices
// are exact negated translations), and all weights are clean (positive, summing to one, zero weights omitted).
//
// Grids are triangulated in a "diamond" pattern: the diagonal of cell (i, j) runs through the corner whose i + j is
// even. Every vertex then sees the same triangle area on either side in both grid directions, so the rebuilt
// (area-weighted) normals of the rest meshes reproduce the authored ones, open tube ends included. Triangle winding is
// chosen per triangle so that its face normal agrees with the authored normals (counter-clockwise seen from outside).
#include "rig/model/samples.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

namespace rig {

namespace {

constexpr double kPi = 3.14159265358979323846;

// ---------------------------------------------------------------------------------------------------------------------
// Geometry helpers

/// One authored surface point: position, normal (any length), UV, and the UV partial derivatives ∂p/∂u, ∂p/∂v used to
/// derive the tangent and its handedness.
struct SurfacePoint {
    glm::dvec3 p{0.0};
    glm::dvec3 n{0.0, 1.0, 0.0};
    glm::dvec2 uv{0.0};
    glm::dvec3 dpdu{1.0, 0.0, 0.0};
    glm::dvec3 dpdv{0.0, 0.0, 1.0};
};

/// lo + (hi - lo) * i / n, evaluated so that the end points are exact.
double lerpIndex(double lo, double hi, int i, int n)
{
    if (i == 0)
        return lo;
    if (i == n)
        return hi;
    return lo + (hi - lo) * double(i) / double(n);
}

/// Tangent (Gram–Schmidt of ∂p/∂u against n) and handedness sign(dot(n × t, ∂p/∂v)).
glm::vec4 authoredTangent(const glm::dvec3& n, const glm::dvec3& dpdu, const glm::dvec3& dpdv)
{
    const glm::dvec3 t = glm::normalize(dpdu - n * glm::dot(n, dpdu));
    const double w = glm::dot(glm::cross(n, t), dpdv) < 0.0 ? -1.0 : 1.0;
    return glm::vec4(glm::vec3(t), float(w));
}

uint32_t addVertex(Mesh& mesh, const SurfacePoint& s)
{
    const glm::dvec3 n = glm::normalize(s.n);
    mesh.positions.push_back(glm::vec3(s.p));
    mesh.normals.push_back(glm::vec3(n));
    mesh.uvs.push_back(glm::vec2(s.uv));
    mesh.tangents.push_back(authoredTangent(n, s.dpdu, s.dpdv));
    return uint32_t(mesh.positions.size() - 1);
}

/// Adds a triangle wound so that its face normal agrees with the authored normals of its corners.
void addTriangle(Mesh& mesh, uint32_t a, uint32_t b, uint32_t c)
{
    const glm::dvec3 pa(mesh.positions[a]), pb(mesh.positions[b]), pc(mesh.positions[c]);
    const glm::dvec3 face = glm::cross(pb - pa, pc - pa);
    const glm::dvec3 authored = glm::dvec3(mesh.normals[a]) + glm::dvec3(mesh.normals[b]) + glm::dvec3(mesh.normals[c]);
    if (glm::dot(face, authored) < 0.0)
        std::swap(b, c);
    mesh.indices.insert(mesh.indices.end(), {a, b, c});
}

/// Adds a cols × rows vertex grid (vertex (i, j) = base + j * cols + i) and its (cols-1) × (rows-1) cells, two
/// triangles each, diamond pattern. Returns the base index.
template <typename At>
uint32_t addGrid(Mesh& mesh, int cols, int rows, At&& at)
{
    const uint32_t base = uint32_t(mesh.positions.size());
    for (int j = 0; j < rows; ++j)
        for (int i = 0; i < cols; ++i)
            addVertex(mesh, at(i, j));
    auto id = [&](int i, int j) { return base + uint32_t(j * cols + i); };
    for (int j = 0; j + 1 < rows; ++j) {
        for (int i = 0; i + 1 < cols; ++i) {
            const uint32_t a = id(i, j), b = id(i + 1, j), c = id(i, j + 1), d = id(i + 1, j + 1);
            if ((i + j) % 2 == 0) {
                addTriangle(mesh, a, b, d);
                addTriangle(mesh, a, d, c);
            } else {
                addTriangle(mesh, a, b, c);
                addTriangle(mesh, b, d, c);
            }
        }
    }
    return base;
}

/// Adds a triangular grid of the triangle with corners at(0,0), at(n,0), at(n,n): vertices (i, j) with 0 <= j <= i <= n.
template <typename At>
void addTriangleGrid(Mesh& mesh, int n, At&& at)
{
    const uint32_t base = uint32_t(mesh.positions.size());
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= i; ++j)
            addVertex(mesh, at(i, j));
    auto id = [&](int i, int j) { return base + uint32_t(i * (i + 1) / 2 + j); };
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) {
            addTriangle(mesh, id(i, j), id(i + 1, j), id(i + 1, j + 1));
            if (j < i)
                addTriangle(mesh, id(i, j), id(i + 1, j + 1), id(i, j + 1));
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------------
// Skeleton, skin and influence helpers

int addNode(Rig& rig, std::string name, int parent, const glm::vec3& translation)
{
    Node node;
    node.name = std::move(name);
    node.parent = parent;
    node.rest.translation = translation;
    node.restMatrix = node.rest.matrix();
    rig.skeleton.nodes.push_back(std::move(node));
    return int(rig.skeleton.nodes.size() - 1);
}

/// A skin over `joints` (node indices). Every rest transform of the samples is a pure translation, so the bind world
/// matrix of a joint is a translation by the sum of its ancestors' translations and its inverse is exact.
int addSkin(Rig& rig, std::string name, const std::vector<int>& joints)
{
    Skin skin;
    skin.name = std::move(name);
    skin.joints = joints;
    for (int j : joints) {
        glm::dvec3 t(0.0);
        for (int n = j; n >= 0; n = rig.skeleton.nodes[size_t(n)].parent) {
            const Transform& rest = rig.skeleton.nodes[size_t(n)].rest;
            assert(rest.rotation == glm::quat(1, 0, 0, 0) && rest.scale == glm::vec3(1.0f));
            t += glm::dvec3(rest.translation);
        }
        glm::mat4 inverseBind(1.0f);
        inverseBind[3] = glm::vec4(glm::vec3(-t), 1.0f);
        skin.inverseBind.push_back(inverseBind);
    }
    rig.skins.push_back(std::move(skin));
    return int(rig.skins.size() - 1);
}

struct WeightedJoint {
    uint32_t joint;
    double weight;
};

/// Appends the influences of the next vertex: zero weights are skipped; the rest are stored largest first (ties by
/// joint index).
void pushInfluences(Mesh& mesh, std::initializer_list<WeightedJoint> list)
{
    if (mesh.influenceOffsets.empty())
        mesh.influenceOffsets.push_back(0);
    std::array<WeightedJoint, 8> tmp{};
    size_t n = 0;
    for (const WeightedJoint& wj : list)
        if (wj.weight > 0.0)
            tmp[n++] = wj;
    std::stable_sort(tmp.begin(), tmp.begin() + long(n),
                     [](const WeightedJoint& a, const WeightedJoint& b) { return a.weight > b.weight; });
    for (size_t i = 0; i < n; ++i)
        mesh.influences.push_back(Influence{tmp[i].joint, float(tmp[i].weight)});
    mesh.influenceOffsets.push_back(uint32_t(mesh.influences.size()));
}

/// The gaussian-falloff rule shared by `sheet` and the benchmark rigs: raw weight exp(-((x - x_j) / sigma)^2) for
/// joints at x_j = x0 + j * spacing, keep the k largest (ties: lower joint index), normalise to sum 1. Because the
/// weight falls off with distance, the k largest form a contiguous window around the nearest joint.
/// Writes k (joint, weight) pairs, largest first, into `out`; returns k (clamped to jointCount).
int gaussianTopK(double x, double x0, double spacing, int jointCount, double sigma, int k, Influence* out)
{
    assert(jointCount >= 1 && k >= 1 && k <= 8);
    k = std::min(k, jointCount);
    std::array<WeightedJoint, 8> w{};
    auto raw = [&](int j) {
        const double d = (x - (x0 + spacing * j)) / sigma;
        return std::exp(-d * d);
    };
    int nearest = jointCount > 1 ? int(std::lround((x - x0) / spacing)) : 0;
    nearest = std::clamp(nearest, 0, jointCount - 1);
    int lo = nearest, hi = nearest;
    // Widen the window greedily toward the larger neighbour (ties: lower index).
    while (hi - lo + 1 < k) {
        if (lo == 0) {
            ++hi;
        } else if (hi == jointCount - 1) {
            --lo;
        } else if (raw(lo - 1) >= raw(hi + 1)) {
            --lo;
        } else {
            ++hi;
        }
    }
    // The nearest joint by rounding can lose a tie against its neighbour; a window of the k largest is still
    // contiguous, so only the ends can need a swap.
    for (int guard = 0; guard < jointCount; ++guard) {
        if (lo > 0 && raw(lo - 1) >= raw(hi)) {
            --lo;
            --hi;
        } else if (hi < jointCount - 1 && raw(hi + 1) > raw(lo)) {
            ++lo;
            ++hi;
        } else {
            break;
        }
    }
    double sum = 0.0;
    for (int i = 0; i < k; ++i) {
        w[size_t(i)] = {uint32_t(lo + i), raw(lo + i)};
        sum += w[size_t(i)].weight;
    }
    std::stable_sort(w.begin(), w.begin() + k, [](const WeightedJoint& a, const WeightedJoint& b) { return a.weight > b.weight; });
    for (int i = 0; i < k; ++i)
        out[i] = Influence{w[size_t(i)].joint, float(w[size_t(i)].weight / sum)};
    return k;
}

glm::quat axisAngle(const glm::dvec3& axis, double radians)
{
    const glm::dvec3 a = glm::normalize(axis) * std::sin(0.5 * radians);
    glm::quat q;
    q.w = float(std::cos(0.5 * radians));
    q.x = float(a.x);
    q.y = float(a.y);
    q.z = float(a.z);
    return q;
}

Mesh newMesh(const std::string& name, int skin)
{
    Mesh mesh;
    mesh.name = name;
    mesh.skin = skin;
    return mesh;
}

// ---------------------------------------------------------------------------------------------------------------------
// sheet

constexpr int kSheetSide = 49;          // vertices per side
constexpr int kSheetJoints = 5;
constexpr double kSheetSigma = 0.35;

/// A morph target surface S(x, z) with its hand-derived partial derivatives.
struct SheetSurface {
    glm::dvec3 s, sx, sz;
};

// towel_twist: each point rotated about the x axis by alpha(x) = (pi/2) x.
//   S = (x, -z sin a, z cos a);  S_x = (1, -z a' cos a, -z a' sin a), a' = pi/2;  S_z = (0, -sin a, cos a).
SheetSurface towelTwist(double x, double z)
{
    const double da = 0.5 * kPi;
    const double a = da * x;
    const double c = std::cos(a), s = std::sin(a);
    return {{x, -z * s, z * c}, {1.0, -z * da * c, -z * da * s}, {0.0, -s, c}};
}

// swirl: each point rotated about the y axis by beta(r) = 1.2 exp(-r^2 / 0.35), r^2 = x^2 + z^2.
//   R(b) = [[cos b, 0, sin b], [0, 1, 0], [-sin b, 0, cos b]];  S = R(b) (x, 0, z).
//   S_x = R(b) e_x + b_x R'(b) (x, 0, z),  S_z = R(b) e_z + b_z R'(b) (x, 0, z),
//   R'(b) (x, 0, z) = (-x sin b + z cos b, 0, -x cos b - z sin b),  b_x = -2x/0.35 b,  b_z = -2z/0.35 b.
// A rotation by an angle that depends on r only preserves area: the normal stays +y exactly.
SheetSurface swirl(double x, double z)
{
    constexpr double k = 0.35;
    const double b = 1.2 * std::exp(-(x * x + z * z) / k);
    const double bx = -2.0 * x / k * b, bz = -2.0 * z / k * b;
    const double c = std::cos(b), s = std::sin(b);
    const glm::dvec3 dr(-x * s + z * c, 0.0, -x * c - z * s);
    return {{x * c + z * s, 0.0, -x * s + z * c}, glm::dvec3(c, 0.0, -s) + bx * dr, glm::dvec3(s, 0.0, c) + bz * dr};
}

// middle_fold: a smooth V along x = 0: y = 0.5 sqrt(x^2 + 0.02) - 0.5 sqrt(0.02).
//   S_x = (1, 0.5 x / sqrt(x^2 + 0.02), 0),  S_z = (0, 0, 1).
SheetSurface middleFold(double x, double z)
{
    constexpr double e = 0.02;
    const double q = std::sqrt(x * x + e);
    return {{x, 0.5 * q - 0.5 * std::sqrt(e), z}, {1.0, 0.5 * x / q, 0.0}, {0.0, 0.0, 1.0}};
}

// ripples: y = 0.08 cos(8 r) - 0.08.  y_x = -0.64 x sin(8r)/r,  y_z = -0.64 z sin(8r)/r, with sin(8r)/r -> 8 at r = 0
// (series 8 (1 - (8r)^2/6 + (8r)^4/120) below r = 1e-4).
SheetSurface ripples(double x, double z)
{
    const double r = std::sqrt(x * x + z * z);
    const double kr = 8.0 * r;
    const double sinc = r < 1e-4 ? 8.0 * (1.0 - kr * kr / 6.0 + kr * kr * kr * kr / 120.0) : std::sin(kr) / r;
    const double yx = -0.64 * x * sinc, yz = -0.64 * z * sinc;
    return {{x, 0.08 * std::cos(kr) - 0.08, z}, {1.0, yx, 0.0}, {0.0, yz, 1.0}};
}

MorphTarget sheetTarget(const char* name, SheetSurface (*surface)(double, double))
{
    MorphTarget target;
    target.name = name;
    const size_t n = size_t(kSheetSide) * kSheetSide;
    target.positionDeltas.reserve(n);
    target.normalDeltas.reserve(n);
    target.tangentDeltas.reserve(n);
    for (int j = 0; j < kSheetSide; ++j) {
        for (int i = 0; i < kSheetSide; ++i) {
            const double x = lerpIndex(-1.0, 1.0, i, kSheetSide - 1);
            const double z = lerpIndex(-1.0, 1.0, j, kSheetSide - 1);
            const SheetSurface s = surface(x, z);
            const glm::dvec3 n = glm::normalize(glm::cross(s.sz, s.sx));
            const glm::dvec3 t = glm::normalize(s.sx);
            target.positionDeltas.push_back(glm::vec3(s.s - glm::dvec3(x, 0.0, z)));
            target.normalDeltas.push_back(glm::vec3(n - glm::dvec3(0.0, 1.0, 0.0)));
            target.tangentDeltas.push_back(glm::vec3(t - glm::dvec3(1.0, 0.0, 0.0)));
        }
    }
    return target;
}

Rig makeSheet()
{
    Rig rig;
    rig.source = "sample:sheet";
    std::vector<int> joints;
    for (int j = 0; j < kSheetJoints; ++j)
        joints.push_back(addNode(rig, "bone" + std::to_string(j), j == 0 ? -1 : joints.back(),
                                 j == 0 ? glm::vec3(-1.0f, 0.0f, 0.0f) : glm::vec3(0.5f, 0.0f, 0.0f)));
    const int skin = addSkin(rig, "sheet", joints);

    Mesh mesh = newMesh("sheet", skin);
    addGrid(mesh, kSheetSide, kSheetSide, [](int i, int j) {
        SurfacePoint s;
        const double x = lerpIndex(-1.0, 1.0, i, kSheetSide - 1);
        const double z = lerpIndex(-1.0, 1.0, j, kSheetSide - 1);
        s.p = {x, 0.0, z};
        s.n = {0.0, 1.0, 0.0};
        s.uv = {(x + 1.0) / 2.0, (1.0 - z) / 2.0};
        s.dpdu = {2.0, 0.0, 0.0};  // x = 2u - 1
        s.dpdv = {0.0, 0.0, -2.0}; // z = 1 - 2v
        return s;
    });

    mesh.influenceOffsets.reserve(mesh.positions.size() + 1);
    mesh.influenceOffsets.push_back(0);
    for (int j = 0; j < kSheetSide; ++j) {
        for (int i = 0; i < kSheetSide; ++i) {
            Influence inf[8];
            const int k = gaussianTopK(lerpIndex(-1.0, 1.0, i, kSheetSide - 1), -1.0, 0.5, kSheetJoints, kSheetSigma, 4, inf);
            mesh.influences.insert(mesh.influences.end(), inf, inf + k);
            mesh.influenceOffsets.push_back(uint32_t(mesh.influences.size()));
        }
    }

    mesh.morphTargets.push_back(sheetTarget("towel_twist", towelTwist));
    mesh.morphTargets.push_back(sheetTarget("swirl", swirl));
    mesh.morphTargets.push_back(sheetTarget("middle_fold", middleFold));
    mesh.morphTargets.push_back(sheetTarget("ripples", ripples));
    mesh.defaultMorphWeights.assign(mesh.morphTargets.size(), 0.0f);
    rig.meshes.push_back(std::move(mesh));

    // "wave": cubic spline, a travelling wave of bends about z through bone1..bone4:
    // theta_j(t) = 20° sin(pi t - (j - 1) pi / 2), keys every 0.25 s over 2 s, tangents from the exact derivative
    // dq/dt = theta'/2 (-sin(theta/2), axis cos(theta/2)) (per second, as glTF stores them).
    Clip wave;
    wave.name = "wave";
    wave.duration = 2.0f;
    const double amplitude = 20.0 * kPi / 180.0, omega = kPi;
    for (int j = 1; j < kSheetJoints; ++j) {
        JointChannel ch;
        ch.node = joints[size_t(j)];
        ch.rotation.interpolation = Interpolation::CubicSpline;
        const double phase = (j - 1) * 0.5 * kPi;
        for (int key = 0; key <= 8; ++key) {
            const double t = 0.25 * key;
            const double theta = amplitude * std::sin(omega * t - phase);
            const double dtheta = amplitude * omega * std::cos(omega * t - phase);
            glm::quat d;
            d.w = float(-0.5 * dtheta * std::sin(0.5 * theta));
            d.x = 0.0f;
            d.y = 0.0f;
            d.z = float(0.5 * dtheta * std::cos(0.5 * theta));
            ch.rotation.times.push_back(float(t));
            ch.rotation.values.push_back(d);                                     // in-tangent
            ch.rotation.values.push_back(axisAngle({0.0, 0.0, 1.0}, theta));     // value
            ch.rotation.values.push_back(d);                                     // out-tangent
        }
        wave.joints.push_back(std::move(ch));
    }
    rig.clips.push_back(std::move(wave));
    return rig;
}

// ---------------------------------------------------------------------------------------------------------------------
// Tubes (twist_tube, elbow): along +x from 0 to 2, rings every 0.05 (ring k at x = k / 20), `segments` around plus a
// duplicated seam column (u = 1) with the same positions and normals as u = 0.
// Position (x, r cos phi, r sin phi), normal (0, cos phi, sin phi), u = phi / 2pi, v = x / 2.

constexpr int kTubeRings = 41;

template <typename Weights>
Mesh makeTube(const std::string& name, int skin, double radius, int segments, Weights&& weightsOfRing)
{
    Mesh mesh = newMesh(name, skin);
    addGrid(mesh, kTubeRings, segments + 1, [&](int k, int s) {
        const int around = s % segments; // the seam column repeats column 0 bit for bit
        const double phi = 2.0 * kPi * around / segments;
        const double c = std::cos(phi), sn = std::sin(phi);
        SurfacePoint p;
        const double x = k / 20.0;
        p.p = {x, radius * c, radius * sn};
        p.n = {0.0, c, sn};
        p.uv = {double(s) / segments, x / 2.0};
        p.dpdu = 2.0 * kPi * radius * glm::dvec3(0.0, -sn, c);
        p.dpdv = {2.0, 0.0, 0.0};
        return p;
    });
    mesh.influenceOffsets.reserve(mesh.positions.size() + 1);
    for (int s = 0; s <= segments; ++s)
        for (int k = 0; k < kTubeRings; ++k) {
            const auto [w0, w1] = weightsOfRing(k);
            pushInfluences(mesh, {{0u, w0}, {1u, w1}});
        }
    return mesh;
}

Rig makeTwistTube()
{
    Rig rig;
    rig.source = "sample:twist_tube";
    const int root = addNode(rig, "root", -1, glm::vec3(0.0f));
    const int twist = addNode(rig, "twist", root, glm::vec3(1.0f, 0.0f, 0.0f));
    const int skin = addSkin(rig, "twist_tube", {root, twist});
    // w_twist = clamp((x - 0.5) / 1.0, 0, 1) = clamp((k - 10) / 20, 0, 1): exact 0.5 / 0.5 at x = 1 (k = 20).
    rig.meshes.push_back(makeTube("twist_tube", skin, 0.25, 32, [](int k) {
        const double wt = std::clamp((k - 10) / 20.0, 0.0, 1.0);
        return std::pair<double, double>(1.0 - wt, wt);
    }));

    Clip clip;
    clip.name = "twist";
    clip.duration = 2.0f;
    JointChannel ch;
    ch.node = twist;
    ch.rotation.interpolation = Interpolation::Linear;
    for (int key = 0; key <= 2; ++key) {
        ch.rotation.times.push_back(float(key));
        ch.rotation.values.push_back(axisAngle({1.0, 0.0, 0.0}, 0.5 * kPi * key));
    }
    clip.joints.push_back(std::move(ch));
    rig.clips.push_back(std::move(clip));
    return rig;
}

Rig makeElbow()
{
    Rig rig;
    rig.source = "sample:elbow";
    const int upper = addNode(rig, "upper", -1, glm::vec3(0.0f));
    const int lower = addNode(rig, "lower", upper, glm::vec3(1.0f, 0.0f, 0.0f));
    const int skin = addSkin(rig, "elbow", {upper, lower});
    // w_lower = smoothstep(0.8, 1.2, x), t = (x - 0.8) / 0.4 = (k - 16) / 8 exactly.
    rig.meshes.push_back(makeTube("elbow", skin, 0.2, 24, [](int k) {
        const double t = std::clamp((k - 16) / 8.0, 0.0, 1.0);
        const double wl = t * t * (3.0 - 2.0 * t);
        return std::pair<double, double>(1.0 - wl, wl);
    }));

    Clip clip;
    clip.name = "bend";
    clip.duration = 1.0f;
    JointChannel ch;
    ch.node = lower;
    ch.rotation.interpolation = Interpolation::Linear;
    ch.rotation.times = {0.0f, 1.0f};
    ch.rotation.values = {axisAngle({0.0, 0.0, 1.0}, 0.0), axisAngle({0.0, 0.0, 1.0}, 0.5 * kPi)};
    clip.joints.push_back(std::move(ch));
    rig.clips.push_back(std::move(clip));
    return rig;
}

// ---------------------------------------------------------------------------------------------------------------------
// ramp: a wedge solid, every face with its own vertices and face normal (hard edges).

Rig makeRamp()
{
    Rig rig;
    rig.source = "sample:ramp";
    const int root = addNode(rig, "root", -1, glm::vec3(0.0f));
    const int skin = addSkin(rig, "ramp", {root});
    Mesh mesh = newMesh("ramp", skin);
    constexpr int n = 8;
    auto at = [](int i) { return lerpIndex(0.0, 1.0, i, n); };     // 0..1
    auto atZ = [](int i) { return lerpIndex(-0.5, 0.5, i, n); };   // -0.5..0.5

    // Slope y = x, outward normal (-1, 1, 0)/sqrt2; u = x, v = 0.5 - z.
    addGrid(mesh, n + 1, n + 1, [&](int i, int j) {
        SurfacePoint s;
        s.p = {at(i), at(i), atZ(j)};
        s.n = {-1.0, 1.0, 0.0};
        s.uv = {at(i), 0.5 - atZ(j)};
        s.dpdu = {1.0, 1.0, 0.0};
        s.dpdv = {0.0, 0.0, -1.0};
        return s;
    });
    // Back face x = 1, normal +x; u = z + 0.5, v = y.
    addGrid(mesh, n + 1, n + 1, [&](int i, int j) {
        SurfacePoint s;
        s.p = {1.0, at(j), atZ(i)};
        s.n = {1.0, 0.0, 0.0};
        s.uv = {atZ(i) + 0.5, at(j)};
        s.dpdu = {0.0, 0.0, 1.0};
        s.dpdv = {0.0, 1.0, 0.0};
        return s;
    });
    // Bottom y = 0, normal -y; u = x, v = z + 0.5.
    addGrid(mesh, n + 1, n + 1, [&](int i, int j) {
        SurfacePoint s;
        s.p = {at(i), 0.0, atZ(j)};
        s.n = {0.0, -1.0, 0.0};
        s.uv = {at(i), atZ(j) + 0.5};
        s.dpdu = {1.0, 0.0, 0.0};
        s.dpdv = {0.0, 0.0, 1.0};
        return s;
    });
    // Side faces z = ±0.5: the triangle (0,0), (1,0), (1,1) in (x, y); u = x (z = +0.5) or 1 - x (z = -0.5), v = y.
    for (const double side : {0.5, -0.5}) {
        addTriangleGrid(mesh, n, [&](int i, int j) {
            SurfacePoint s;
            s.p = {at(i), at(j), side};
            s.n = {0.0, 0.0, side};
            s.uv = {side > 0.0 ? at(i) : 1.0 - at(i), at(j)};
            s.dpdu = {side > 0.0 ? 1.0 : -1.0, 0.0, 0.0};
            s.dpdv = {0.0, 1.0, 0.0};
            return s;
        });
    }
    for (size_t v = 0; v < mesh.positions.size(); ++v)
        pushInfluences(mesh, {{0u, 1.0}});
    rig.meshes.push_back(std::move(mesh));

    // "stretch": root scales x from 1 to 2 over 1 s (the slope normal should tilt from 45° to 26.565°).
    Clip clip;
    clip.name = "stretch";
    clip.duration = 1.0f;
    JointChannel ch;
    ch.node = root;
    ch.scale.interpolation = Interpolation::Linear;
    ch.scale.times = {0.0f, 1.0f};
    ch.scale.values = {glm::vec3(1.0f), glm::vec3(2.0f, 1.0f, 1.0f)};
    clip.joints.push_back(std::move(ch));
    rig.clips.push_back(std::move(clip));
    return rig;
}

// ---------------------------------------------------------------------------------------------------------------------
// lift_strip: two root joints, weights linear along the whole strip.

Rig makeLiftStrip()
{
    Rig rig;
    rig.source = "sample:lift_strip";
    const int base = addNode(rig, "base", -1, glm::vec3(0.0f));
    const int lift = addNode(rig, "lift", -1, glm::vec3(2.0f, 0.0f, 0.0f));
    const int skin = addSkin(rig, "lift_strip", {base, lift});
    Mesh mesh = newMesh("lift_strip", skin);
    constexpr int cols = 41, rows = 6;
    addGrid(mesh, cols, rows, [](int i, int j) {
        SurfacePoint s;
        const double x = lerpIndex(0.0, 2.0, i, cols - 1);
        const double z = lerpIndex(-0.25, 0.25, j, rows - 1);
        s.p = {x, 0.0, z};
        s.n = {0.0, 1.0, 0.0};
        s.uv = {x / 2.0, (0.25 - z) / 0.5};
        s.dpdu = {2.0, 0.0, 0.0};
        s.dpdv = {0.0, 0.0, -0.5};
        return s;
    });
    // w_lift = x / 2 = i / 40.
    for (int j = 0; j < rows; ++j)
        for (int i = 0; i < cols; ++i) {
            const double wl = i / 40.0;
            pushInfluences(mesh, {{0u, 1.0 - wl}, {1u, wl}});
        }
    rig.meshes.push_back(std::move(mesh));

    Clip clip;
    clip.name = "lift";
    clip.duration = 2.0f;
    JointChannel ch;
    ch.node = lift;
    ch.translation.interpolation = Interpolation::Step;
    ch.translation.times = {0.0f, 1.0f, 2.0f};
    ch.translation.values = {glm::vec3(2.0f, 0.0f, 0.0f), glm::vec3(2.0f, 0.5f, 0.0f), glm::vec3(2.0f, 1.0f, 0.0f)};
    clip.joints.push_back(std::move(ch));
    rig.clips.push_back(std::move(clip));
    return rig;
}

} // namespace

const std::vector<std::string>& sampleNames()
{
    static const std::vector<std::string> names = {"sheet", "twist_tube", "ramp", "elbow", "lift_strip"};
    return names;
}

SampleLesson sampleLesson(const std::string& name)
{
    SampleLesson l;
    if (name == "sheet") {
        // Morph targets: one with analytic normal deltas, one without, and the chain bent a little.
        l.pose.morphs = {{"towel_twist", 0.8f}, {"ripples", 0.6f}};
        l.pose.joints["bone2"].rotateDeg = glm::vec3(0.0f, 0.0f, 25.0f);
        l.joint = "bone2";
    } else if (name == "twist_tube") {
        l.pose.joints["twist"].rotateDeg = glm::vec3(150.0f, 0.0f, 0.0f); // the candy wrapper, nearly collapsed
        l.joint = "twist";
    } else if (name == "ramp") {
        l.pose.joints["root"].scale = glm::vec3(2.0f, 1.0f, 1.0f); // linear 36.87° off, inverse-transpose exact
        l.joint = "root";
    } else if (name == "elbow") {
        l.pose.joints["lower"].rotateDeg = glm::vec3(0.0f, 0.0f, 60.0f); // error in the weight band (past ~70° the inside folds over)
        l.joint = "lower";
    } else if (name == "lift_strip") {
        l.pose.joints["lift"].translate = glm::vec3(0.0f, 0.6f, 0.0f); // the surface tilts; only jacobian follows
        l.joint = "lift";
    }
    return l;
}

Result<Rig> makeSample(const std::string& name)
{
    if (name == "sheet")
        return makeSheet();
    if (name == "twist_tube")
        return makeTwistTube();
    if (name == "ramp")
        return makeRamp();
    if (name == "elbow")
        return makeElbow();
    if (name == "lift_strip")
        return makeLiftStrip();
    std::string valid;
    for (const std::string& n : sampleNames())
        valid += (valid.empty() ? "" : ", ") + n;
    return fail("unknown sample '" + name + "' (valid names: " + valid + ")");
}

Rig makeBenchmarkRig(size_t vertexCount, int jointCount, int influences)
{
    const int joints = std::max(1, jointCount);
    const int k = std::min(std::clamp(influences, 1, 8), joints);
    const size_t side = std::max<size_t>(2, size_t(std::llround(std::sqrt(double(vertexCount)))));
    const size_t n = side * side;

    Rig rig;
    rig.source = "sample:benchmark";
    // Joints in a chain along x over [-1, 1] (a single joint sits at x = -1); spacing 2 / (J - 1).
    const double spacing = joints > 1 ? 2.0 / double(joints - 1) : 2.0;
    std::vector<int> nodes(static_cast<size_t>(joints));
    for (int j = 0; j < joints; ++j)
        nodes[size_t(j)] = addNode(rig, "bone" + std::to_string(j), j == 0 ? -1 : nodes[size_t(j - 1)],
                                   j == 0 ? glm::vec3(-1.0f, 0.0f, 0.0f) : glm::vec3(float(spacing), 0.0f, 0.0f));
    // Rest world x of joint j is the float sum of the chain; inverse binds from addSkin's double sum of the same floats.
    const int skin = addSkin(rig, "benchmark", nodes);

    Mesh mesh = newMesh("benchmark", skin);
    mesh.positions.resize(n);
    mesh.normals.assign(n, glm::vec3(0.0f, 1.0f, 0.0f));
    mesh.tangents.assign(n, glm::vec4(1.0f, 0.0f, 0.0f, 1.0f));
    mesh.uvs.resize(n);
    std::vector<float> coord(side);
    for (size_t i = 0; i < side; ++i)
        coord[i] = float(lerpIndex(-1.0, 1.0, int(i), int(side - 1)));
    for (size_t j = 0; j < side; ++j) {
        const float z = coord[j];
        for (size_t i = 0; i < side; ++i) {
            const float x = coord[i];
            mesh.positions[j * side + i] = glm::vec3(x, 0.0f, z);
            mesh.uvs[j * side + i] = glm::vec2((x + 1.0f) * 0.5f, (1.0f - z) * 0.5f);
        }
    }
    // Same winding as the sheet's (counter-clockwise seen from +y), one diagonal direction (speed over symmetry).
    const size_t cells = (side - 1) * (side - 1);
    mesh.indices.resize(cells * 6);
    uint32_t* idx = mesh.indices.data();
    for (size_t j = 0; j + 1 < side; ++j) {
        for (size_t i = 0; i + 1 < side; ++i) {
            const uint32_t a = uint32_t(j * side + i), b = a + 1, c = a + uint32_t(side), d = c + 1;
            // e1 = c - a (+z), e2 = b - a (+x): (+z) × (+x) = +y.
            *idx++ = a;
            *idx++ = c;
            *idx++ = b;
            *idx++ = b;
            *idx++ = c;
            *idx++ = d;
        }
    }
    // Influences: per column (they depend on x only), then copied into the CSR arrays directly.
    const double sigma = 0.7 * spacing; // the sheet's 0.35 at its 0.5 spacing
    std::vector<Influence> column(side * size_t(k));
    for (size_t i = 0; i < side; ++i)
        gaussianTopK(double(coord[i]), -1.0, spacing, joints, sigma, k, &column[i * size_t(k)]);
    mesh.influenceOffsets.resize(n + 1);
    mesh.influences.resize(n * size_t(k));
    for (size_t v = 0; v <= n; ++v)
        mesh.influenceOffsets[v] = uint32_t(v * size_t(k));
    Influence* out = mesh.influences.data();
    for (size_t j = 0; j < side; ++j)
        out = std::copy(column.begin(), column.end(), out);
    rig.meshes.push_back(std::move(mesh));

    // "bend": every non-root joint rotates about z from 0 to 90° / (J - 1) over 1 s (the chain bends by 90° in all).
    Clip clip;
    clip.name = "bend";
    clip.duration = 1.0f;
    for (int j = 1; j < joints; ++j) {
        JointChannel ch;
        ch.node = nodes[size_t(j)];
        ch.rotation.interpolation = Interpolation::Linear;
        ch.rotation.times = {0.0f, 1.0f};
        ch.rotation.values = {axisAngle({0.0, 0.0, 1.0}, 0.0), axisAngle({0.0, 0.0, 1.0}, 0.5 * kPi / (joints - 1))};
        clip.joints.push_back(std::move(ch));
    }
    rig.clips.push_back(std::move(clip));
    return rig;
}

} // namespace rig
