// Tests of the built-in sample rigs (rig/samples.h): layout, weights, bind matrices, authored frames against the
// rebuilt reference, the sheet's analytic morph targets against finite differences, and the clips.
#include "testutil.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "rig/model/pose.h"
#include "rig/analysis/reference/reference.h"

using namespace rig;

namespace {

constexpr double kPi = 3.14159265358979323846;

glm::mat4 bindWorld(const Rig& r, int node)
{
    glm::mat4 m(1.0f);
    for (int n = node; n >= 0; n = r.skeleton.nodes[size_t(n)].parent)
        m = r.skeleton.nodes[size_t(n)].restMatrix * m;
    return m;
}

struct Frames {
    std::vector<glm::vec3> normals;
    std::vector<glm::vec4> tangents;
};

/// Rebuilt reference frames of `mesh` at `positions` (smoothing groups from the rest mesh, as the tool does).
Frames rebuilt(const Mesh& mesh, const std::vector<glm::vec3>& positions)
{
    Frames f;
    f.normals.resize(mesh.vertexCount());
    f.tangents.resize(mesh.vertexCount());
    ReferenceScratch scratch;
    rebuildMeshFrames(buildMeshTopology(mesh.positions, mesh.normals, mesh.indices), positions, mesh.uvs, mesh.indices,
                      f.normals, f.tangents, scratch);
    return f;
}

/// Linear blend skinning of positions (the test's own, independent of rig/skinning).
std::vector<glm::vec3> skinPositions(const Rig& r, const Mesh& mesh, const Pose& pose)
{
    auto resolved = resolvePose(r, pose);
    if (!resolved.ok())
        qFatal("resolvePose: %s", resolved.error().c_str());
    std::vector<glm::mat4> world;
    evaluateWorld(r, resolved.value(), world);
    std::vector<std::vector<glm::mat4>> palettes;
    evaluatePalettes(r, world, palettes);
    const std::vector<glm::mat4>& pal = palettes[size_t(mesh.skin)];
    std::vector<glm::vec3> out(mesh.vertexCount());
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
        glm::vec4 p(0.0f);
        for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i)
            p += mesh.influences[i].weight * (pal[mesh.influences[i].joint] * glm::vec4(mesh.positions[v], 1.0f));
        out[v] = glm::vec3(p);
    }
    return out;
}

float weightOf(const Mesh& mesh, size_t v, uint32_t joint)
{
    for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i)
        if (mesh.influences[i].joint == joint)
            return mesh.influences[i].weight;
    return 0.0f;
}

size_t influenceCount(const Mesh& mesh, size_t v) { return mesh.influenceOffsets[v + 1] - mesh.influenceOffsets[v]; }

// The sheet's morph surfaces S(x, z), positions only, written independently of rig/samples.cpp.
glm::dvec3 surfaceTowelTwist(double x, double z)
{
    const double a = 0.5 * kPi * x;
    return {x, -z * std::sin(a), z * std::cos(a)};
}
glm::dvec3 surfaceSwirl(double x, double z)
{
    const double b = 1.2 * std::exp(-(x * x + z * z) / 0.35);
    return {x * std::cos(b) + z * std::sin(b), 0.0, -x * std::sin(b) + z * std::cos(b)};
}
glm::dvec3 surfaceMiddleFold(double x, double z) { return {x, 0.5 * std::sqrt(x * x + 0.02) - 0.5 * std::sqrt(0.02), z}; }
glm::dvec3 surfaceRipples(double x, double z)
{
    return {x, 0.08 * std::cos(8.0 * std::sqrt(x * x + z * z)) - 0.08, z};
}

using Surface = glm::dvec3 (*)(double, double);
const std::array<std::pair<const char*, Surface>, 4> kSheetSurfaces = {{{"towel_twist", surfaceTowelTwist},
                                                                        {"swirl", surfaceSwirl},
                                                                        {"middle_fold", surfaceMiddleFold},
                                                                        {"ripples", surfaceRipples}}};

/// Angle of a quaternion that rotates about `axis` (signed, degrees).
double angleAbout(const glm::quat& q, const glm::vec3& axis)
{
    return 2.0 * std::atan2(double(glm::dot(glm::vec3(q.x, q.y, q.z), axis)), double(q.w)) * 180.0 / kPi;
}

} // namespace

class TestSamples : public QObject {
    Q_OBJECT

private:
    static void addNames()
    {
        QTest::addColumn<QString>("name");
        for (const std::string& n : sampleNames())
            QTest::newRow(n.c_str()) << QString::fromStdString(n);
    }

private slots:
    void names()
    {
        const std::vector<std::string> expected = {"sheet", "twist_tube", "ramp", "elbow", "lift_strip"};
        QCOMPARE(sampleNames(), expected);
    }

    void unknownNameListsValidNames()
    {
        auto r = makeSample("nope");
        QVERIFY(!r.ok());
        QVERIFY(r.error().find("nope") != std::string::npos);
        for (const std::string& n : sampleNames())
            QVERIFY2(r.error().find(n) != std::string::npos, r.error().c_str());
    }

    void invariants_data() { addNames(); }
    void invariants()
    {
        QFETCH(QString, name);
        const Rig r = testutil::sample(name.toUtf8().constData());
        QCOMPARE(r.source, "sample:" + name.toStdString());
        QCOMPARE(r.meshes.size(), size_t(1));
        QCOMPARE(r.skins.size(), size_t(1));
        QVERIFY(r.notes.empty());

        // Skeleton: parents first, rest matrix = rest TRS.
        for (size_t i = 0; i < r.skeleton.nodes.size(); ++i) {
            const Node& n = r.skeleton.nodes[i];
            QVERIFY(n.parent < int(i));
            QVERIFY(!n.restHasShear);
            QVERIFY(n.restMatrix == n.rest.matrix());
        }
        // inverseBind × bind world = identity (exactly, for these translation-only rests).
        const Skin& skin = r.skins[0];
        QCOMPARE(skin.inverseBind.size(), skin.joints.size());
        for (size_t j = 0; j < skin.joints.size(); ++j) {
            const glm::mat4 id = skin.inverseBind[j] * bindWorld(r, skin.joints[j]);
            for (int c = 0; c < 4; ++c)
                for (int k = 0; k < 4; ++k)
                    RS_COMPARE_NEAR(id[c][k], c == k ? 1.0 : 0.0, 1e-6);
        }

        const Mesh& m = r.meshes[0];
        const size_t n = m.vertexCount();
        QVERIFY(m.isSkinned());
        QVERIFY(!m.normalsGenerated && !m.tangentsGenerated);
        QCOMPARE(m.normals.size(), n);
        QCOMPARE(m.tangents.size(), n);
        QCOMPARE(m.uvs.size(), n);
        QCOMPARE(m.indices.size() % 3, size_t(0));
        for (uint32_t i : m.indices)
            QVERIFY(i < n);
        for (size_t v = 0; v < n; ++v) {
            RS_COMPARE_NEAR(glm::length(m.normals[v]), 1.0, 1e-6);
            RS_COMPARE_NEAR(glm::length(glm::vec3(m.tangents[v])), 1.0, 1e-6);
            RS_COMPARE_NEAR(glm::dot(m.normals[v], glm::vec3(m.tangents[v])), 0.0, 1e-6);
            QVERIFY(m.tangents[v].w == 1.0f || m.tangents[v].w == -1.0f);
        }
        // Every triangle has area and non-degenerate UVs.
        for (size_t t = 0; t < m.triangleCount(); ++t) {
            const uint32_t a = m.indices[3 * t], b = m.indices[3 * t + 1], c = m.indices[3 * t + 2];
            QVERIFY(glm::length(glm::cross(m.positions[b] - m.positions[a], m.positions[c] - m.positions[a])) > 1e-6f);
            const glm::vec2 d1 = m.uvs[b] - m.uvs[a], d2 = m.uvs[c] - m.uvs[a];
            QVERIFY(std::fabs(d1.x * d2.y - d2.x * d1.y) > 1e-8f);
        }

        // Clean raw influences: ≥ 1 per vertex, positive, valid joints, sum 1.
        QCOMPARE(m.influenceOffsets.size(), n + 1);
        QCOMPARE(m.influenceOffsets.front(), 0u);
        QCOMPARE(size_t(m.influenceOffsets.back()), m.influences.size());
        for (size_t v = 0; v < n; ++v) {
            QVERIFY(influenceCount(m, v) >= 1);
            double sum = 0.0;
            for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i) {
                QVERIFY(m.influences[i].joint < skin.joints.size());
                QVERIFY(m.influences[i].weight > 0.0f);
                sum += m.influences[i].weight;
            }
            RS_COMPARE_NEAR(sum, 1.0, 1e-6);
        }

        QCOMPARE(m.defaultMorphWeights.size(), m.morphTargets.size());
        for (const MorphTarget& t : m.morphTargets) {
            QCOMPARE(t.positionDeltas.size(), n);
            QCOMPARE(t.normalDeltas.size(), n);
            QCOMPARE(t.tangentDeltas.size(), n);
        }
        QVERIFY(!r.clips.empty());
        for (const Clip& c : r.clips) {
            auto ok = validateClip(c, r);
            QVERIFY2(ok.ok(), ok.error().c_str());
            QVERIFY(c.duration > 0.0f);
        }
    }

    /// The authored frames are what the rebuilt reference gives on the rest mesh (hard edges included: the ramp's
    /// split vertices carry their face normal, which is also what the reference gives them).
    void restFramesMatchRebuilt_data() { addNames(); }
    void restFramesMatchRebuilt()
    {
        QFETCH(QString, name);
        const Rig r = testutil::sample(name.toUtf8().constData());
        const Mesh& m = r.meshes[0];
        const Frames f = rebuilt(m, m.positions);
        double worstN = 0.0, worstT = 0.0;
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            worstN = std::max(worstN, angleDeg(m.normals[v], f.normals[v]));
            worstT = std::max(worstT, angleDeg(glm::vec3(m.tangents[v]), glm::vec3(f.tangents[v])));
            QCOMPARE(f.tangents[v].w, m.tangents[v].w);
        }
        QVERIFY2(worstN < 0.01, qPrintable(QString("normal %1°").arg(worstN)));
        QVERIFY2(worstT < 0.01, qPrintable(QString("tangent %1°").arg(worstT)));
    }

    void sheetLayout()
    {
        const Rig r = testutil::sample("sheet");
        const Mesh& m = r.meshes[0];
        QCOMPARE(m.vertexCount(), size_t(49 * 49));
        QCOMPARE(m.triangleCount(), size_t(48 * 48 * 2));
        QCOMPARE(r.jointCount(), size_t(5));
        QCOMPARE(r.skeleton.nodes.size(), size_t(5));
        for (size_t j = 0; j < 5; ++j) {
            QCOMPARE(r.skins[0].joints[j], int(j));
            QCOMPARE(r.skeleton.nodes[j].parent, int(j) - 1);
            const glm::vec3 t = r.skeleton.nodes[j].rest.translation;
            QVERIFY(t == (j == 0 ? glm::vec3(-1, 0, 0) : glm::vec3(0.5f, 0, 0)));
            RS_COMPARE_NEAR(bindWorld(r, int(j))[3].x, -1.0 + 0.5 * double(j), 0.0);
        }
        QCOMPARE(m.morphTargets.size(), size_t(4));
        for (size_t k = 0; k < 4; ++k)
            QCOMPARE(m.morphTargets[k].name, std::string(kSheetSurfaces[k].first));

        // Extent, plane, normal +y, tangent +x with handedness +1 everywhere; UV u = (x+1)/2, v = (1-z)/2.
        glm::vec3 lo(1e9f), hi(-1e9f);
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            const glm::vec3 p = m.positions[v];
            lo = glm::min(lo, p);
            hi = glm::max(hi, p);
            QCOMPARE(p.y, 0.0f);
            QVERIFY(m.normals[v] == glm::vec3(0, 1, 0));
            QVERIFY(m.tangents[v] == glm::vec4(1, 0, 0, 1));
            RS_COMPARE_NEAR(m.uvs[v].x, (p.x + 1.0) / 2.0, 1e-6);
            RS_COMPARE_NEAR(m.uvs[v].y, (1.0 - p.z) / 2.0, 1e-6);
        }
        QVERIFY(lo == glm::vec3(-1, 0, -1));
        QVERIFY(hi == glm::vec3(1, 0, 1));
        // Winding: every face normal is +y.
        for (size_t t = 0; t < m.triangleCount(); ++t) {
            const glm::vec3 a = m.positions[m.indices[3 * t]], b = m.positions[m.indices[3 * t + 1]],
                            c = m.positions[m.indices[3 * t + 2]];
            QVERIFY(glm::cross(b - a, c - a).y > 0.0f);
        }

        // Exactly 4 influences per vertex: the 4 largest of exp(-((x - x_j)/0.35)^2), normalised.
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            QCOMPARE(influenceCount(m, v), size_t(4));
            const double x = m.positions[v].x;
            std::array<std::pair<double, int>, 5> raw;
            for (int j = 0; j < 5; ++j) {
                const double d = (x - (-1.0 + 0.5 * j)) / 0.35;
                raw[size_t(j)] = {std::exp(-d * d), j};
            }
            std::stable_sort(raw.begin(), raw.end(), [](auto& a, auto& b) { return a.first > b.first; });
            const double sum = raw[0].first + raw[1].first + raw[2].first + raw[3].first;
            for (int i = 0; i < 4; ++i)
                RS_COMPARE_NEAR(weightOf(m, v, uint32_t(raw[size_t(i)].second)), raw[size_t(i)].first / sum, 1e-6);
            QCOMPARE(weightOf(m, v, uint32_t(raw[4].second)), 0.0f);
        }
        // Spot values: at x = -1 joint 0 dominates; at x = 0 joint 2 does and joint 4 (tied with joint 0) is dropped.
        QVERIFY(weightOf(m, 0, 0) > 0.88f && weightOf(m, 0, 0) < 0.89f); // 1 / (1 + e^-2.04 + e^-8.16 + ...) = 0.885
        const size_t centre = 24 * 49 + 24;
        QCOMPARE(m.positions[centre], glm::vec3(0.0f));
        QCOMPARE(m.influences[m.influenceOffsets[centre]].joint, 2u);
        RS_COMPARE_NEAR(weightOf(m, centre, 1), weightOf(m, centre, 3), 1e-7);
        QVERIFY(weightOf(m, centre, 0) > 0.0f);
        QCOMPARE(weightOf(m, centre, 4), 0.0f);
    }

    /// The analytic derivatives behind the normal and tangent deltas, checked against central finite differences of
    /// S (h = 1e-5, in double; truncation error ~h² |S'''| < 1e-8), and the position deltas against S itself.
    void sheetMorphDerivatives()
    {
        const Rig r = testutil::sample("sheet");
        const Mesh& m = r.meshes[0];
        const double h = 1e-5;
        for (size_t k = 0; k < 4; ++k) {
            const MorphTarget& target = m.morphTargets[k];
            const Surface S = kSheetSurfaces[k].second;
            double worstP = 0.0, worstN = 0.0, worstT = 0.0;
            for (size_t v = 0; v < m.vertexCount(); ++v) {
                const double x = m.positions[v].x, z = m.positions[v].z;
                const glm::dvec3 sx = (S(x + h, z) - S(x - h, z)) / (2.0 * h);
                const glm::dvec3 sz = (S(x, z + h) - S(x, z - h)) / (2.0 * h);
                const glm::dvec3 fdN = glm::normalize(glm::cross(sz, sx));
                const glm::dvec3 fdT = glm::normalize(sx);
                const glm::vec3 p = m.positions[v] + target.positionDeltas[v];
                worstP = std::max(worstP, glm::length(glm::dvec3(p) - S(x, z)));
                worstN = std::max(worstN, angleDeg(glm::vec3(fdN), m.normals[v] + target.normalDeltas[v]));
                worstT = std::max(worstT, angleDeg(glm::vec3(fdT), glm::vec3(m.tangents[v]) + target.tangentDeltas[v]));
            }
            qInfo("%s: |p - S| %.2e, normal vs FD %.2e°, tangent vs FD %.2e°", target.name.c_str(), worstP, worstN, worstT);
            QVERIFY2(worstP < 2e-6, target.name.c_str());
            QVERIFY2(worstN < 1e-3, target.name.c_str());
            QVERIFY2(worstT < 1e-3, target.name.c_str());
        }

        // Hand-checked values. towel_twist at the x = 1 edge (alpha = 90°), z = 0.5: p = (1, -0.5, 0),
        // S_x = (1, 0, -0.5·π/2), S_z = (0, -1, 0): n ∝ S_z × S_x = (π/4, 0, 1).
        const size_t edge = 36 * 49 + 48;
        QCOMPARE(m.positions[edge], glm::vec3(1.0f, 0.0f, 0.5f));
        const MorphTarget& twist = m.morphTargets[0];
        const glm::vec3 p = m.positions[edge] + twist.positionDeltas[edge];
        RS_COMPARE_NEAR(p.x, 1.0, 1e-6);
        RS_COMPARE_NEAR(p.y, -0.5, 1e-6);
        RS_COMPARE_NEAR(p.z, 0.0, 1e-6);
        QVERIFY(angleDeg(m.normals[edge] + twist.normalDeltas[edge], glm::vec3(kPi / 4.0, 0.0, 1.0)) < 1e-4);
        QVERIFY(angleDeg(glm::vec3(m.tangents[edge]) + twist.tangentDeltas[edge], glm::vec3(1.0, 0.0, -kPi / 4.0)) < 1e-4);
        // swirl is planar and area-preserving: its normal deltas are exactly zero, its tangent deltas are not.
        const MorphTarget& sw = m.morphTargets[1];
        float maxTangentDelta = 0.0f;
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            QVERIFY(sw.normalDeltas[v] == glm::vec3(0.0f));
            QCOMPARE(sw.positionDeltas[v].y, 0.0f);
            maxTangentDelta = std::max(maxTangentDelta, glm::length(sw.tangentDeltas[v]));
        }
        QVERIFY(maxTangentDelta > 0.5f);
        // ripples at r = 0: flat (the derivative limit), normal delta zero, position delta 0.
        const size_t centre = 24 * 49 + 24;
        QVERIFY(glm::length(m.morphTargets[3].normalDeltas[centre]) < 1e-7f);
        QVERIFY(glm::length(m.morphTargets[3].positionDeltas[centre]) < 1e-7f);
    }

    /// At weight 1, the morphed frame (rest + delta, normalised) against the frames rebuilt from the morphed triangles:
    /// the difference is the mesh's discretisation error (grid step h = 1/24), not an error of the deltas (those match
    /// finite differences to 1e-5°, above).
    /// - Interior vertices see a point-symmetric one-ring (diamond triangulation), so the area-weighted normal is a
    ///   second-order estimate: < 1° for every target.
    /// - Border vertices see a one-sided ring: first order, about (h/2)·|rate of turn of the frame across the border|.
    ///   towel_twist at x = ±1: (1/48)·(π/2) rad = 1.875°, which is what is measured; ripples: at most
    ///   (1/48)·curvature 5.12 = 6.1°, measured 4.98°.
    /// swirl stays planar, so its rebuilt normals are exact; its tangents turn (up to 1.2 rad) and carry the error.
    /// Bounds: the measured maxima (in the comments) plus ~10%.
    void sheetMorphDiscretisation()
    {
        const Rig r = testutil::sample("sheet");
        const Mesh& m = r.meshes[0];
        struct Bound {
            double normalAll, normalInterior, tangentAll, tangentInterior;
        };
        const std::array<Bound, 4> bounds = {{
            {1.90, 0.025, 1.85, 0.025}, // towel_twist: measured 1.8750, 0.0205, 1.6711, 0.0205
            {1e-4, 1e-4, 1.30, 0.56},   // swirl:       measured 0, 0, 1.1910, 0.5095
            {0.35, 0.35, 0.35, 0.35},   // middle_fold: measured 0.3208 (next to the fold line, interior) for all four
            {5.50, 0.87, 4.75, 0.87},   // ripples:     measured 4.9771, 0.7908, 4.3121, 0.7908
        }};
        for (size_t k = 0; k < 4; ++k) {
            const MorphTarget& target = m.morphTargets[k];
            std::vector<glm::vec3> morphed(m.vertexCount());
            for (size_t v = 0; v < m.vertexCount(); ++v)
                morphed[v] = m.positions[v] + target.positionDeltas[v];
            const Frames f = rebuilt(m, morphed);
            double worstN = 0.0, worstT = 0.0, worstNInterior = 0.0, worstTInterior = 0.0, sumN = 0.0;
            for (size_t v = 0; v < m.vertexCount(); ++v) {
                const glm::vec3 n = safeNormalize(m.normals[v] + target.normalDeltas[v]);
                const glm::vec3 t = safeNormalize(glm::vec3(m.tangents[v]) + target.tangentDeltas[v]);
                const double en = angleDeg(n, f.normals[v]);
                const double et = angleDeg(t, glm::vec3(f.tangents[v]));
                QCOMPARE(f.tangents[v].w, 1.0f);
                worstN = std::max(worstN, en);
                worstT = std::max(worstT, et);
                sumN += en;
                const size_t i = v % 49, j = v / 49;
                if (i > 0 && i < 48 && j > 0 && j < 48) {
                    worstNInterior = std::max(worstNInterior, en);
                    worstTInterior = std::max(worstTInterior, et);
                }
            }
            qInfo("%s at weight 1: normal max %.4f° (interior %.4f°, mean %.4f°), tangent max %.4f° (interior %.4f°)",
                  target.name.c_str(), worstN, worstNInterior, sumN / double(m.vertexCount()), worstT, worstTInterior);
            QVERIFY2(worstN < bounds[k].normalAll, target.name.c_str());
            QVERIFY2(worstNInterior < bounds[k].normalInterior, target.name.c_str());
            QVERIFY2(worstT < bounds[k].tangentAll, target.name.c_str());
            QVERIFY2(worstTInterior < bounds[k].tangentInterior, target.name.c_str());
        }
        // The towel twist's border error is the first-order term predicted above, not something else.
        const Frames f = rebuilt(m, [&] {
            std::vector<glm::vec3> p(m.vertexCount());
            for (size_t v = 0; v < p.size(); ++v)
                p[v] = m.positions[v] + m.morphTargets[0].positionDeltas[v];
            return p;
        }());
        double worstBorder = 0.0;
        for (size_t v = 0; v < m.vertexCount(); ++v)
            worstBorder = std::max(worstBorder, angleDeg(m.normals[v] + m.morphTargets[0].normalDeltas[v], f.normals[v]));
        RS_COMPARE_NEAR(worstBorder, 90.0 / 48.0, 0.01);
    }

    void sheetWaveClip()
    {
        const Rig r = testutil::sample("sheet");
        QCOMPARE(r.clips.size(), size_t(1));
        const Clip& c = r.clips[0];
        QCOMPARE(c.name, std::string("wave"));
        QCOMPARE(c.duration, 2.0f);
        QCOMPARE(c.joints.size(), size_t(4));
        for (size_t i = 0; i < c.joints.size(); ++i) {
            const JointChannel& ch = c.joints[i];
            QCOMPARE(ch.node, int(i + 1));
            QVERIFY(ch.translation.empty() && ch.scale.empty());
            QCOMPARE(ch.rotation.interpolation, Interpolation::CubicSpline);
            QCOMPARE(ch.rotation.times.size(), size_t(9));
            QCOMPARE(ch.rotation.values.size(), 3 * ch.rotation.times.size()); // in-tangent, value, out-tangent
            // theta_j(t) = 20° sin(pi t - (j-1) pi/2): at keys exactly, between keys to the spline's accuracy (a cubic
            // Hermite of the quaternion components, then normalised, keys 0.25 s apart: measured error < 0.019°).
            const double phase = double(i) * 0.5 * kPi;
            for (float t : {0.0f, 0.25f, 0.375f, 0.8f, 1.1f, 1.9f, 2.0f}) {
                const glm::quat q = sampleTrack(ch.rotation, t);
                const double expected = 20.0 * std::sin(kPi * t - phase);
                RS_COMPARE_NEAR(angleAbout(q, glm::vec3(0, 0, 1)), expected, 0.025);
                RS_COMPARE_NEAR(glm::length(glm::vec3(q.x, q.y, 0.0f)), 0.0, 1e-7);
            }
            // The key value sits in the middle of each triple.
            RS_COMPARE_NEAR(angleAbout(ch.rotation.values[1], glm::vec3(0, 0, 1)), 20.0 * std::sin(-phase), 1e-4);
        }
    }

    void twistTube()
    {
        const Rig r = testutil::sample("twist_tube");
        const Mesh& m = r.meshes[0];
        QCOMPARE(m.vertexCount(), size_t(41 * 33)); // 41 rings (x = 0, 0.05, ..., 2) × (32 + seam)
        QCOMPARE(m.triangleCount(), size_t(40 * 32 * 2));
        QCOMPARE(r.skeleton.nodes.size(), size_t(2));
        QCOMPARE(r.skeleton.nodes[0].name, std::string("root"));
        QCOMPARE(r.skeleton.nodes[1].name, std::string("twist"));
        QCOMPARE(r.skeleton.nodes[1].parent, 0);
        QVERIFY(r.skeleton.nodes[1].rest.translation == glm::vec3(1, 0, 0));

        size_t atOne = 0;
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            const glm::vec3 p = m.positions[v];
            RS_COMPARE_NEAR(std::hypot(p.y, p.z), 0.25, 1e-6);
            QVERIFY(p.x >= 0.0f && p.x <= 2.0f);
            RS_COMPARE_NEAR(m.uvs[v].y, p.x / 2.0, 1e-6);
            QVERIFY(angleDeg(m.normals[v], glm::vec3(0.0f, p.y, p.z)) < 1e-4);
            const double wt = std::clamp((double(p.x) - 0.5) / 1.0, 0.0, 1.0);
            RS_COMPARE_NEAR(weightOf(m, v, 1), wt, 1e-6);
            RS_COMPARE_NEAR(weightOf(m, v, 0), 1.0 - wt, 1e-6);
            QCOMPARE(influenceCount(m, v), size_t(wt == 0.0 || wt == 1.0 ? 1 : 2));
            if (p.x == 1.0f) {
                ++atOne;
                QCOMPARE(weightOf(m, v, 0), 0.5f);
                QCOMPARE(weightOf(m, v, 1), 0.5f);
            }
        }
        QCOMPARE(atOne, size_t(33)); // a ring exactly at x = 1

        // Seam: column 32 (u = 1) repeats column 0 (u = 0) bit for bit.
        for (size_t k = 0; k < 41; ++k) {
            const size_t a = k, b = 32 * 41 + k;
            QVERIFY(m.positions[a] == m.positions[b]);
            QVERIFY(m.normals[a] == m.normals[b]);
            QCOMPARE(m.uvs[a].x, 0.0f);
            QCOMPARE(m.uvs[b].x, 1.0f);
        }

        // Clip "twist": linear, 0 -> 180° about x over 2 s.
        QCOMPARE(r.clips.size(), size_t(1));
        const Clip& c = r.clips[0];
        QCOMPARE(c.name, std::string("twist"));
        QCOMPARE(c.duration, 2.0f);
        QCOMPARE(c.joints.size(), size_t(1));
        QCOMPARE(c.joints[0].node, 1);
        QCOMPARE(c.joints[0].rotation.interpolation, Interpolation::Linear);
        for (float t : {0.0f, 0.5f, 1.0f, 1.5f, 2.0f})
            RS_COMPARE_NEAR(angleAbout(sampleTrack(c.joints[0].rotation, t), glm::vec3(1, 0, 0)), 90.0 * t, 1e-3);

        // Candy wrapper: at 180°, linear blending collapses the 0.5/0.5 ring onto the axis.
        Pose pose;
        pose.clip = "twist";
        pose.time = 2.0;
        const std::vector<glm::vec3> skinned = skinPositions(r, m, pose);
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            if (m.positions[v].x != 1.0f)
                continue;
            RS_COMPARE_NEAR(skinned[v].x, 1.0, 1e-6);
            RS_COMPARE_NEAR(std::hypot(skinned[v].y, skinned[v].z), 0.0, 1e-6);
        }
    }

    void ramp()
    {
        const Rig r = testutil::sample("ramp");
        const Mesh& m = r.meshes[0];
        // slope, back, bottom: 9×9 vertices, 8×8×2 triangles each; two sides: 45 vertices, 64 triangles each.
        QCOMPARE(m.vertexCount(), size_t(3 * 81 + 2 * 45));
        QCOMPARE(m.triangleCount(), size_t(3 * 128 + 2 * 64));
        QCOMPARE(r.skeleton.nodes.size(), size_t(1));
        QCOMPARE(r.skeleton.nodes[0].name, std::string("root"));
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            QCOMPARE(influenceCount(m, v), size_t(1));
            QCOMPARE(m.influences[m.influenceOffsets[v]].weight, 1.0f);
        }

        // Flat shading: every normal is one of the five face normals; each face's vertices lie on its plane.
        const glm::vec3 slope = glm::normalize(glm::vec3(-1, 1, 0));
        size_t counts[5] = {};
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            const glm::vec3 p = m.positions[v], n = m.normals[v];
            QVERIFY(p.y <= p.x + 1e-7f && p.x >= 0.0f && p.x <= 1.0f && p.y >= 0.0f && std::fabs(p.z) <= 0.5f);
            if (angleDeg(n, slope) < 1e-4) {
                ++counts[0];
                QCOMPARE(p.y, p.x);
            } else if (n == glm::vec3(1, 0, 0)) {
                ++counts[1];
                QCOMPARE(p.x, 1.0f);
            } else if (n == glm::vec3(0, -1, 0)) {
                ++counts[2];
                QCOMPARE(p.y, 0.0f);
            } else if (n == glm::vec3(0, 0, 1)) {
                ++counts[3];
                QCOMPARE(p.z, 0.5f);
            } else if (n == glm::vec3(0, 0, -1)) {
                ++counts[4];
                QCOMPARE(p.z, -0.5f);
            } else {
                QFAIL("unexpected normal");
            }
        }
        QCOMPARE(counts[0], size_t(81));
        QCOMPARE(counts[1], size_t(81));
        QCOMPARE(counts[2], size_t(81));
        QCOMPARE(counts[3], size_t(45));
        QCOMPARE(counts[4], size_t(45));
        // Hard edges: the slope/bottom edge (x = 0) has two vertices per position with different normals.
        const std::vector<uint32_t> groups = buildMeshTopology(m.positions, m.normals, m.indices).group;
        size_t distinct = 0;
        for (size_t v = 0; v < groups.size(); ++v)
            distinct += groups[v] == v ? 1 : 0;
        QCOMPARE(distinct, m.vertexCount());

        // Stretch ×2 along x: the slope's true normal tilts atan(0.5) = 26.565° from +y; the linear A3 n tilts
        // 63.435°: error 36.870°.
        std::vector<glm::vec3> stretched = m.positions;
        for (glm::vec3& p : stretched)
            p.x *= 2.0f;
        const Frames f = rebuilt(m, stretched);
        const glm::mat3 a3 = glm::mat3(glm::scale(glm::mat4(1.0f), glm::vec3(2, 1, 1)));
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            if (angleDeg(m.normals[v], slope) > 1e-4)
                continue;
            RS_COMPARE_NEAR(angleDeg(f.normals[v], glm::vec3(0, 1, 0)), 26.565051, 1e-3);
            RS_COMPARE_NEAR(angleDeg(a3 * m.normals[v], f.normals[v]), 36.869898, 1e-3);
        }
        // The "stretch" clip does that over 1 s.
        QCOMPARE(r.clips[0].name, std::string("stretch"));
        QVERIFY(sampleTrack(r.clips[0].joints[0].scale, 1.0f) == glm::vec3(2, 1, 1));
    }

    void elbow()
    {
        const Rig r = testutil::sample("elbow");
        const Mesh& m = r.meshes[0];
        QCOMPARE(m.vertexCount(), size_t(41 * 25));
        QCOMPARE(m.triangleCount(), size_t(40 * 24 * 2));
        QCOMPARE(r.skeleton.nodes[0].name, std::string("upper"));
        QCOMPARE(r.skeleton.nodes[1].name, std::string("lower"));
        QCOMPARE(r.skeleton.nodes[1].parent, 0);
        QVERIFY(r.skeleton.nodes[1].rest.translation == glm::vec3(1, 0, 0));
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            const glm::vec3 p = m.positions[v];
            RS_COMPARE_NEAR(std::hypot(p.y, p.z), 0.2, 1e-6);
            const double t = std::clamp((double(p.x) - 0.8) / 0.4, 0.0, 1.0);
            const double wl = t * t * (3.0 - 2.0 * t);
            RS_COMPARE_NEAR(weightOf(m, v, 1), wl, 1e-6);
            RS_COMPARE_NEAR(weightOf(m, v, 0), 1.0 - wl, 1e-6);
            if (p.x <= 0.8f || p.x >= 1.2f)
                QCOMPARE(influenceCount(m, v), size_t(1));
            else
                QCOMPARE(influenceCount(m, v), size_t(2));
        }
        const Clip& c = r.clips[0];
        QCOMPARE(c.name, std::string("bend"));
        QCOMPARE(c.duration, 1.0f);
        QCOMPARE(c.joints[0].rotation.interpolation, Interpolation::Linear);
        RS_COMPARE_NEAR(angleAbout(sampleTrack(c.joints[0].rotation, 0.5f), glm::vec3(0, 0, 1)), 45.0, 1e-3);
        // At 90°, the tip ring (weight 1 on lower) is rigidly rotated about (1,0,0): (2, y, z) -> (1 - y, 1, z).
        Pose pose;
        pose.clip = "bend";
        pose.time = 1.0;
        const std::vector<glm::vec3> skinned = skinPositions(r, m, pose);
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            if (m.positions[v].x != 2.0f)
                continue;
            const glm::vec3 p = m.positions[v];
            RS_COMPARE_NEAR(skinned[v].x, 1.0 - p.y, 1e-6);
            RS_COMPARE_NEAR(skinned[v].y, 1.0, 1e-6);
            RS_COMPARE_NEAR(skinned[v].z, p.z, 1e-6);
        }
    }

    void liftStrip()
    {
        const Rig r = testutil::sample("lift_strip");
        const Mesh& m = r.meshes[0];
        QCOMPARE(m.vertexCount(), size_t(41 * 6));
        QCOMPARE(m.triangleCount(), size_t(40 * 5 * 2));
        QCOMPARE(r.skeleton.nodes.size(), size_t(2));
        QCOMPARE(r.skeleton.nodes[0].name, std::string("base"));
        QCOMPARE(r.skeleton.nodes[1].name, std::string("lift"));
        QCOMPARE(r.skeleton.nodes[0].parent, -1);
        QCOMPARE(r.skeleton.nodes[1].parent, -1); // two roots
        QVERIFY(r.skeleton.nodes[1].rest.translation == glm::vec3(2, 0, 0));
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            const glm::vec3 p = m.positions[v];
            QVERIFY(p.y == 0.0f && p.x >= 0.0f && p.x <= 2.0f && std::fabs(p.z) <= 0.25f);
            QVERIFY(m.tangents[v] == glm::vec4(1, 0, 0, 1));
            RS_COMPARE_NEAR(m.uvs[v].x, p.x / 2.0, 1e-6);
            RS_COMPARE_NEAR(m.uvs[v].y, (0.25 - p.z) / 0.5, 1e-6);
            RS_COMPARE_NEAR(weightOf(m, v, 1), p.x / 2.0, 1e-7); // linear along the whole strip
            RS_COMPARE_NEAR(weightOf(m, v, 0), 1.0 - p.x / 2.0, 1e-7);
        }
        const Clip& c = r.clips[0];
        QCOMPARE(c.name, std::string("lift"));
        const Track<glm::vec3>& tr = c.joints[0].translation;
        QCOMPARE(c.joints[0].node, 1);
        QCOMPARE(tr.interpolation, Interpolation::Step);
        QCOMPARE(tr.times, (std::vector<float>{0.0f, 1.0f, 2.0f}));
        QVERIFY(sampleTrack(tr, 0.9f) == glm::vec3(2, 0, 0));
        QVERIFY(sampleTrack(tr, 1.5f) == glm::vec3(2, 0.5f, 0));
        QVERIFY(sampleTrack(tr, 2.0f) == glm::vec3(2, 1, 0));

        // Lifted by 1 over the strip's length 2: the skinned strip is the plane y = x/2, whose rebuilt normal tilts
        // by atan(1/2) everywhere (what only the jacobian method follows).
        Pose pose;
        pose.clip = "lift";
        pose.time = 2.0;
        const std::vector<glm::vec3> skinned = skinPositions(r, m, pose);
        const Frames f = rebuilt(m, skinned);
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            RS_COMPARE_NEAR(skinned[v].y, m.positions[v].x / 2.0, 1e-6);
            RS_COMPARE_NEAR(angleDeg(f.normals[v], glm::vec3(-0.5f, 1.0f, 0.0f)), 0.0, 1e-3);
        }
    }

    void benchmarkRig()
    {
        const Rig r = makeBenchmarkRig(10000, 100, 4);
        const Mesh& m = r.meshes[0];
        QCOMPARE(r.source, std::string("sample:benchmark"));
        QCOMPARE(m.vertexCount(), size_t(10000));
        QCOMPARE(m.triangleCount(), size_t(99 * 99 * 2));
        QCOMPARE(r.jointCount(), size_t(100));
        QCOMPARE(m.influenceOffsets.size(), size_t(10001));
        QCOMPARE(m.influences.size(), size_t(40000));
        QCOMPARE(m.normals.size(), m.vertexCount());
        QCOMPARE(m.tangents.size(), m.vertexCount());
        QCOMPARE(m.uvs.size(), m.vertexCount());
        const Skin& skin = r.skins[0];
        for (size_t j = 0; j < skin.joints.size(); ++j) {
            const glm::mat4 id = skin.inverseBind[j] * bindWorld(r, skin.joints[j]);
            RS_COMPARE_NEAR(id[3].x, 0.0, 1e-5);
        }
        // Top 4 of the gaussian rule: the 4 joints nearest in x, distinct, largest first, summing to 1.
        const double spacing = 2.0 / 99.0;
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            QCOMPARE(influenceCount(m, v), size_t(4));
            double sum = 0.0;
            std::vector<double> dist;
            for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i) {
                const Influence& inf = m.influences[i];
                QVERIFY(inf.joint < 100 && inf.weight > 0.0f);
                if (i > m.influenceOffsets[v])
                    QVERIFY(inf.weight <= m.influences[i - 1].weight);
                sum += inf.weight;
                dist.push_back(std::fabs(m.positions[v].x - (-1.0 + spacing * inf.joint)));
            }
            RS_COMPARE_NEAR(sum, 1.0, 1e-6);
            // No joint outside the chosen ones is nearer than the farthest chosen one.
            const double far = *std::max_element(dist.begin(), dist.end());
            size_t nearer = 0;
            for (int j = 0; j < 100; ++j)
                nearer += std::fabs(m.positions[v].x - (-1.0 + spacing * j)) < far - 1e-9 ? 1 : 0;
            QVERIFY(nearer <= 3);
        }
        const Frames f = rebuilt(m, m.positions);
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            QVERIFY(angleDeg(f.normals[v], m.normals[v]) < 0.01);
            QVERIFY(angleDeg(glm::vec3(f.tangents[v]), glm::vec3(m.tangents[v])) < 0.01);
            QCOMPARE(f.tangents[v].w, m.tangents[v].w);
        }
        for (const Clip& c : r.clips)
            QVERIFY(validateClip(c, r).ok());

        // Knobs: influences clamp to 1..8 and to the joint count.
        QCOMPARE(makeBenchmarkRig(100, 3, 8).meshes[0].influences.size(), size_t(100 * 3));
        QCOMPARE(makeBenchmarkRig(100, 16, 8).meshes[0].influences.size(), size_t(100 * 8));
        QCOMPARE(makeBenchmarkRig(100, 16, 1).meshes[0].influences.size(), size_t(100));
    }

    void benchmarkRigMillion()
    {
        const auto t0 = std::chrono::steady_clock::now();
        const Rig r = makeBenchmarkRig(1000000, 64, 4);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        qInfo("makeBenchmarkRig(1M, 64, 4): %.3f s", s);
        QCOMPARE(r.vertexCount(), size_t(1000000));
        QCOMPARE(r.meshes[0].influences.size(), size_t(4000000));
        QVERIFY2(s < 5.0, qPrintable(QString("%1 s").arg(s)));
    }
};

QTEST_GUILESS_MAIN(TestSamples)
#include "test_samples.moc"
