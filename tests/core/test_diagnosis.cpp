// The diagnosis of what a pose does to the rig's shape: the candy-wrapper scale loss of linear blending
// (rig/analysis/diagnosis/blend_scale.h), on analytic matrices and the built-in tubes, whose weights are exact.
#include "testutil.h"

#include <cmath>
#include <functional>
#include <set>

#include <glm/gtc/matrix_transform.hpp>

#include "rig/analysis/diagnosis/blend_scale.h"
#include "rig/analysis/diagnosis/causes.h"
#include "rig/analysis/diagnosis/clip_scan.h"
#include "rig/analysis/diagnosis/dq_displacement.h"
#include "rig/analysis/diagnosis/twist_sweep.h"
#include "rig/analysis/diagnosis/weight_bands.h"
#include "rig/io/import.h"
#include "rig/deform/deform.h"
#include "rig/model/pose.h"

using namespace rig;

namespace {

constexpr double kPi = 3.14159265358979323846;

Evaluation evaluateAt(const Rig& rig, const RigRuntime& rt, const Pose& pose)
{
    auto resolved = resolvePose(rig, pose);
    if (!resolved)
        qFatal("pose: %s", resolved.error().c_str());
    Evaluation e;
    const std::vector<Method> linear = {Method::Linear};
    evaluate(rig, rt, resolved.value(), linear, DeformSettings{}, e);
    return e;
}

glm::dmat3 rotation(double degrees, glm::dvec3 axis)
{
    return glm::dmat3(glm::rotate(glm::dmat4(1.0), degrees * kPi / 180.0, glm::normalize(axis)));
}

/// The twist tube's twist weight of ring k (samples.cpp: clamp((k - 10) / 20, 0, 1)) and the analytic scale of a
/// vertex that blends a rigid joint with one turned θ about any axis: |(1 - w) + w e^{iθ}| (1 along the axis).
double tubeWeight(int k)
{
    return std::clamp((k - 10) / 20.0, 0.0, 1.0);
}
double blendScale(double w, double thetaDeg)
{
    const double c = std::cos(thetaDeg * kPi / 180.0);
    return std::min(1.0, std::sqrt((1 - w) * (1 - w) + w * w + 2 * w * (1 - w) * c));
}

/// A node's name, or "" for -1.
std::string nodeNameOr(const Rig& rig, int node)
{
    return node >= 0 ? rig.skeleton.nodes[size_t(node)].name : std::string();
}

/// A strip of `cols` × 3 vertices along x in [-1, 1] (two triangles a cell) skinned to the nodes `nodes` (one skin)
/// with weights[v] as (skin joint, weight) lists.
Rig stripRig(const std::vector<std::pair<std::string, std::pair<int, glm::vec3>>>& nodes, int cols,
             const std::function<std::vector<Influence>(int col, int row, glm::vec3 p)>& weightsAt)
{
    Rig rig;
    rig.source = "test:strip";
    Skin skin;
    skin.name = "strip";
    for (const auto& [name, parentAndAt] : nodes) {
        Node n;
        n.name = name;
        n.parent = parentAndAt.first;
        glm::vec3 world = parentAndAt.second;
        n.rest.translation = n.parent >= 0 ? world - glm::vec3(glm::inverse(skin.inverseBind[size_t(n.parent)])[3]) : world;
        n.restMatrix = n.rest.matrix();
        rig.skeleton.nodes.push_back(n);
        skin.joints.push_back(int(rig.skeleton.nodes.size() - 1));
        glm::mat4 ib(1.0f);
        ib[3] = glm::vec4(-world, 1.0f);
        skin.inverseBind.push_back(ib);
    }
    rig.skins.push_back(skin);
    Mesh mesh;
    mesh.name = "strip";
    mesh.skin = 0;
    mesh.influenceOffsets.push_back(0);
    for (int row = 0; row < 3; ++row)
        for (int col = 0; col < cols; ++col) {
            const glm::vec3 p(-1.0f + 2.0f * float(col) / float(cols - 1), 0.2f * float(row), 0.0f);
            mesh.positions.push_back(p);
            mesh.normals.push_back(glm::vec3(0.0f, 0.0f, 1.0f));
            for (const Influence& in : weightsAt(col, row, p))
                mesh.influences.push_back(in);
            mesh.influenceOffsets.push_back(uint32_t(mesh.influences.size()));
        }
    for (int row = 0; row + 1 < 3; ++row)
        for (int col = 0; col + 1 < cols; ++col) {
            const uint32_t a = uint32_t(row * cols + col), b = a + 1, c = a + uint32_t(cols), d = c + 1;
            mesh.indices.insert(mesh.indices.end(), {a, b, d, a, d, c});
        }
    rig.meshes.push_back(std::move(mesh));
    return rig;
}

} // namespace

class TestDiagnosis : public QObject {
    Q_OBJECT
private slots:
    void smallestSingularValueOfKnownMatrices();
    void twistTubeLosesCosHalfTheTwistAtItsEvenBlend_data();
    void twistTubeLosesCosHalfTheTwistAtItsEvenBlend();
    void uniformlyScaledJointsAreNoLoss();
    void oneJointVerticesAndRigidPosesLoseNothing();
    void invalidJobsAreRefused();
    void mirroredJointNamesFollowTheCommonConventions();
    void hardBoundaryIsFoundWhereTheWeightFlips();
    void smoothBandHasNoHardBoundary();
    void strayInfluenceFromAnotherLimbIsFound();
    void asymmetricWeightsAcrossMirroredJointsAreFound();
    void realRigsSymmetry();
    void errorCausesNameEachSamplesLesson();
    void tiltedAuthoringIsTheBaselineNotSkinning();
    void morphsWithoutNormalDeltasAreNamed();
    void twistSweepOfTheTubeIsCosHalfTheAngleForLinearAndOneForDualQuaternions();
    void twistSweepOfASquashedJointBlendsItsStretch();
    void twistSweepRefusesABadNodeOrStepCountAndStopsOnCancel();
    void dqDisplacementOfATwistedRingIsOneMinusCosHalfTheAngleOfItsRadius();
    void clipScanFindsTheFrameOfTheLeastScale();
    void clipScanRefusesABadClipOrStep();
};

void TestDiagnosis::smallestSingularValueOfKnownMatrices()
{
    // U diag(σ) Vᵀ with rotations U, V: the smallest σ whatever the order, and 0 for rank-deficient ones.
    const glm::dmat3 u = rotation(37.0, {1, 2, 3}), v = rotation(-71.0, {-2, 0.5, 1});
    const double cases[][3] = {{3.0, 2.0, 0.5}, {0.25, 4.0, 1.0}, {1.0, 1.0, 1.0}, {2.0, 1e-5, 1.0}, {1.0, 1.0, 1e-9},
                               {5.0, 0.0, 1.0}};
    for (const auto& s : cases) {
        const glm::dmat3 d(glm::dvec3(s[0], 0, 0), glm::dvec3(0, s[1], 0), glm::dvec3(0, 0, s[2]));
        const double expected = std::min({s[0], s[1], s[2]});
        const double got = smallestSingularValue(u * d * glm::transpose(v));
        QVERIFY2(std::fabs(got - expected) <= 1e-9 * std::max(1.0, expected) + 1e-12,
                 qPrintable(QStringLiteral("(%1, %2, %3): %4").arg(s[0]).arg(s[1]).arg(s[2]).arg(got, 0, 'g', 17)));
    }
    QCOMPARE(smallestSingularValue(glm::dmat3(0.0)), 0.0);
    // 0.5 (I + R(θ)): cos(θ/2), the candy wrapper's own matrix.
    for (double theta : {30.0, 90.0, 150.0, 179.0, 180.0})
        RS_COMPARE_NEAR(smallestSingularValue(0.5 * (glm::dmat3(1.0) + rotation(theta, {1, 0, 0}))),
                        std::cos(theta * kPi / 360.0), 1e-12);
}

void TestDiagnosis::twistTubeLosesCosHalfTheTwistAtItsEvenBlend_data()
{
    QTest::addColumn<double>("time");
    QTest::addColumn<double>("theta");
    QTest::newRow("45°") << 0.5 << 45.0;
    QTest::newRow("90°") << 1.0 << 90.0;
    QTest::newRow("180°") << 2.0 << 180.0;
}

void TestDiagnosis::twistTubeLosesCosHalfTheTwistAtItsEvenBlend()
{
    // The twist clip turns "twist" about the bone axis: the ring at x = 1 is 0.5/0.5 and shrinks to cos(θ/2) across
    // the axis, its volume to cos²(θ/2); every ring to the analytic blend of its weight.
    QFETCH(double, time);
    QFETCH(double, theta);
    const Rig rig = testutil::sample("twist_tube");
    const RigRuntime rt = buildRuntime(rig, 4);
    Pose pose;
    pose.clip = "twist";
    pose.time = time;
    const Evaluation e = evaluateAt(rig, rt, pose);
    const CandyWrapper cw = measureCandyWrapper(rig, rt, e);
    const double half = std::cos(theta * kPi / 360.0);
    RS_COMPARE_NEAR(cw.minScale, half, 1e-6);
    QCOMPARE(cw.worstMesh, 0);
    QCOMPARE(cw.worstVertex % 41, size_t(20)); // ring k = 20 (vertex s · 41 + k)
    QCOMPARE(nodeNameOr(rig, cw.worstNodeA), std::string("root"));
    QCOMPARE(nodeNameOr(rig, cw.worstNodeB), std::string("twist"));
    RS_COMPARE_NEAR(cw.volume[0][cw.worstVertex], half * half, 1e-6);
    // Counts from the analytic scale of each ring (33 vertices a ring: 32 around and the seam column).
    size_t below09 = 0, below07 = 0, blended = 0;
    double worstOff = 0.0;
    for (size_t v = 0; v < rig.meshes[0].vertexCount(); ++v) {
        const int k = int(v % 41);
        const double w = tubeWeight(k), expected = blendScale(w, theta);
        worstOff = std::max(worstOff, std::fabs(cw.scale[0][v] - expected));
        below09 += expected < 0.9 ? 1 : 0;
        below07 += expected < 0.7 ? 1 : 0;
        blended += w > 0.0 && w < 1.0 ? 1 : 0;
    }
    QVERIFY2(worstOff <= 1e-5, qPrintable(QString::number(worstOff)));
    QCOMPARE(cw.below09, below09);
    QCOMPARE(cw.below07, below07);
    QCOMPARE(cw.undefined, size_t(0));
    QCOMPARE(below09 > 0, theta >= 90.0); // cos 22.5° = 0.92: nothing below 0.9 at 45°
    // One band: root and twist, all the blended vertices.
    QCOMPARE(cw.bands.size(), size_t(1));
    QCOMPARE(cw.bands[0].vertices, blended);
    QCOMPARE(cw.bands[0].below09, below09);
    RS_COMPARE_NEAR(cw.bands[0].worstScale, half, 1e-6);
    // Its vertex list: exactly the blended vertices, ascending (one mesh: global = local).
    std::vector<uint32_t> expectedList;
    for (size_t v = 0; v < rig.meshes[0].vertexCount(); ++v)
        if (tubeWeight(int(v % 41)) > 0.0 && tubeWeight(int(v % 41)) < 1.0)
            expectedList.push_back(uint32_t(v));
    QCOMPARE(cw.bands[0].vertexList, expectedList);
}

void TestDiagnosis::uniformlyScaledJointsAreNoLoss()
{
    // Both tube joints scaled ×0.01 (a centimetre rig's bones) and not turned: the blend is the same uniform scale,
    // which is no loss; turned 90°, the even ring loses cos 45° as the unscaled tube does.
    const Rig rig = testutil::sample("twist_tube");
    const RigRuntime rt = buildRuntime(rig, 4);
    Pose pose;
    pose.joints["root"].scale = glm::vec3(0.01f);
    CandyWrapper cw = measureCandyWrapper(rig, rt, evaluateAt(rig, rt, pose));
    RS_COMPARE_NEAR(cw.minScale, 1.0, 1e-5);
    QCOMPARE(cw.below09, size_t(0));
    pose.joints["twist"].rotateDeg = glm::vec3(90.0f, 0.0f, 0.0f);
    cw = measureCandyWrapper(rig, rt, evaluateAt(rig, rt, pose));
    RS_COMPARE_NEAR(cw.minScale, std::cos(kPi / 4.0), 1e-5);
}

void TestDiagnosis::oneJointVerticesAndRigidPosesLoseNothing()
{
    // The elbow at rest: every vertex's joints agree, scale 1 everywhere; a one-joint rig (the ramp) under any
    // rotation keeps scale 1 and has no band.
    {
        const Rig rig = testutil::sample("elbow");
        const RigRuntime rt = buildRuntime(rig, 4);
        const CandyWrapper cw = measureCandyWrapper(rig, rt, evaluateAt(rig, rt, Pose{}));
        RS_COMPARE_NEAR(cw.minScale, 1.0, 1e-6);
        QVERIFY(!cw.bands.empty());
        QCOMPARE(cw.bands[0].below09, size_t(0));
    }
    {
        const Rig rig = testutil::sample("ramp");
        const RigRuntime rt = buildRuntime(rig, 4);
        Pose pose;
        pose.joints["root"].rotateDeg = glm::vec3(30.0f, 60.0f, 10.0f);
        const CandyWrapper cw = measureCandyWrapper(rig, rt, evaluateAt(rig, rt, pose));
        RS_COMPARE_NEAR(cw.minScale, 1.0, 1e-6);
        QVERIFY(cw.bands.empty());
        QCOMPARE(cw.worstNodeB, -1);
        QCOMPARE(nodeNameOr(rig, cw.worstNodeA), std::string()); // one joint: no pair
    }
}

void TestDiagnosis::invalidJobsAreRefused()
{
    std::vector<JointFrame> palette(2);
    std::vector<uint16_t> joints = {0, 1, 0, 0};
    std::vector<float> weights = {0.5f, 0.5f, 0.0f, 0.0f};
    std::vector<float> scale(1), volume(1);
    BlendScaleJob job{4, joints, weights, palette, scale, volume};
    QVERIFY(job.validate());
    job.run(0, 1);
    RS_COMPARE_NEAR(scale[0], 1.0, 1e-7);
    BlendScaleJob k3 = job;
    k3.perVertex = 3;
    QVERIFY(!k3.validate());
    BlendScaleJob outOfPalette = job;
    std::vector<uint16_t> bad = {0, 2, 0, 0};
    outOfPalette.joints = bad;
    QVERIFY(!outOfPalette.validate());
    BlendScaleJob shortOutput = job;
    shortOutput.outVolume = {};
    QVERIFY(!shortOutput.validate());
    // A broken (non-finite) joint: undefined, never NaN.
    palette[1].matrix[0][0] = NAN;
    job.run(0, 1);
    QCOMPARE(scale[0], kUndefinedScale);
    QCOMPARE(volume[0], 0.0f);
}

void TestDiagnosis::mirroredJointNamesFollowTheCommonConventions()
{
    const std::pair<const char*, const char*> cases[] = {
        {"b_LeftUpperArm_09", "b_RightUpperArm_09"}, {"mixamorig:LeftHand", "mixamorig:RightHand"},
        {"arm_L", "arm_R"}, {"L_arm", "R_arm"}, {"thigh.l", "thigh.r"}, {"Bip01 L Thigh", "Bip01 R Thigh"},
        {"leftArm", "rightArm"}, {"LEFT_ARM", "RIGHT_ARM"}, {"clavicle_r", "clavicle_l"}, {"UpperArmL", "UpperArmR"},
        {"Thumb2R", "Thumb2L"}, {"upperLeft", "upperRight"},
        {"Leg", ""}, {"Cleft", ""}, {"Root", ""}, {"spine", ""}, {"HEAD", ""}, {"Hips", ""}, {"", ""}};
    for (const auto& [in, out] : cases)
        QVERIFY2(mirroredJointName(in) == out, qPrintable(QStringLiteral("%1 -> '%2'").arg(in).arg(QString::fromStdString(mirroredJointName(in)))));
}

void TestDiagnosis::hardBoundaryIsFoundWhereTheWeightFlips()
{
    // 11 columns; "a" weighs the columns left of x = 0.1 fully, "b" the rest: every edge from column 5 to column 6
    // is a hard boundary (counted here from the triangles themselves), nothing else.
    const Rig rig = stripRig({{"a", {-1, glm::vec3(0.0f)}}, {"b", {0, glm::vec3(0.1f, 0.0f, 0.0f)}}}, 11,
                             [](int col, int, glm::vec3) { return std::vector<Influence>{{col <= 5 ? 0u : 1u, 1.0f}}; });
    std::set<std::pair<uint32_t, uint32_t>> crossing;
    const Mesh& mesh = rig.meshes[0];
    for (size_t t = 0; t < mesh.indices.size(); t += 3)
        for (int c = 0; c < 3; ++c) {
            const uint32_t a = mesh.indices[t + size_t(c)], b = mesh.indices[t + size_t((c + 1) % 3)];
            if ((a % 11 <= 5) != (b % 11 <= 5))
                crossing.insert({std::min(a, b), std::max(a, b)});
        }
    const WeightBands wb = diagnoseWeightBands(rig);
    QCOMPARE(wb.hardBoundaryEdges, crossing.size());
    QCOMPARE(wb.maxDelta, 1.0f);
    QCOMPARE(wb.hardBoundaryPairs.size(), size_t(1));
    QCOMPARE(wb.hardBoundaryPairs[0].nodeA, 0);
    QCOMPARE(wb.hardBoundaryPairs[0].nodeB, 1);
    QCOMPARE(wb.hardBoundaryPairs[0].count, crossing.size());
    for (uint32_t v : wb.hardBoundaryVertices)
        QVERIFY(v % 11 == 5 || v % 11 == 6);
    QCOMPARE(wb.hardBoundaryVertices.size(), size_t(6)); // columns 5 and 6 of three rows
    QCOMPARE(wb.hardBoundaryPairs[0].vertices, wb.hardBoundaryVertices); // the one pair's ends are all of them
    // The edges themselves, for the viewport's red overlay: exactly the crossing ones, each once.
    QCOMPARE(wb.hardBoundaryEdgeList.size(), 2 * crossing.size());
    std::set<std::pair<uint32_t, uint32_t>> listed;
    for (size_t i = 0; i + 1 < wb.hardBoundaryEdgeList.size(); i += 2)
        listed.insert({wb.hardBoundaryEdgeList[i], wb.hardBoundaryEdgeList[i + 1]});
    QCOMPARE(listed, crossing);
    QCOMPARE(wb.nonAdjacentVertices, size_t(0));
}

void TestDiagnosis::smoothBandHasNoHardBoundary()
{
    // The elbow's band is a smoothstep over eight rings: at most 0.19 of weight moves across one edge.
    const WeightBands wb = diagnoseWeightBands(testutil::sample("elbow"));
    QCOMPARE(wb.hardBoundaryEdges, size_t(0));
    QVERIFY2(wb.maxDelta > 0.1f && wb.maxDelta < 0.2f, qPrintable(QString::number(wb.maxDelta)));
    QCOMPARE(wb.nonAdjacentVertices, size_t(0)); // upper and lower: parent and child
    QCOMPARE(wb.mirrorAxis, -1);                   // no left / right joints
}

void TestDiagnosis::strayInfluenceFromAnotherLimbIsFound()
{
    // A chain a → b → c → d and a second root e: vertex 7 takes 0.3 of d while it sits on a (3 bones apart), vertex 9
    // 0.2 of e (another tree); vertex 12 0.005 of d (a smoothing trace, below minInfluence).
    const Rig rig = stripRig({{"a", {-1, glm::vec3(0.0f)}}, {"b", {0, glm::vec3(0.2f, 0, 0)}}, {"c", {1, glm::vec3(0.4f, 0, 0)}},
                              {"d", {2, glm::vec3(0.6f, 0, 0)}}, {"e", {-1, glm::vec3(0.0f, 2.0f, 0.0f)}}},
                             11, [](int col, int row, glm::vec3) {
                                 const int v = row * 11 + col;
                                 if (v == 7)
                                     return std::vector<Influence>{{0u, 0.7f}, {3u, 0.3f}};
                                 if (v == 9)
                                     return std::vector<Influence>{{0u, 0.8f}, {4u, 0.2f}};
                                 if (v == 12)
                                     return std::vector<Influence>{{0u, 0.995f}, {3u, 0.005f}};
                                 return std::vector<Influence>{{0u, 0.5f}, {1u, 0.5f}};
                             });
    const WeightBands wb = diagnoseWeightBands(rig);
    QCOMPARE(wb.nonAdjacentVertices, size_t(2));
    QCOMPARE(wb.nonAdjacentList, (std::vector<uint32_t>{7, 9}));
    QCOMPARE(wb.nonAdjacentPairs.size(), size_t(2));
    // Each pair lists its own vertex: together 7 and 9, once each.
    QCOMPARE(wb.nonAdjacentPairs[0].vertices.size() + wb.nonAdjacentPairs[1].vertices.size(), size_t(2));
    QVERIFY(wb.nonAdjacentPairs[0].vertices != wb.nonAdjacentPairs[1].vertices);
    // Two joints apart is adjacent by default; at distance 1 only, every a/b vertex is still fine, vertex 7 too far.
    WeightBandSettings strict;
    strict.adjacentDistance = 3;
    QCOMPARE(diagnoseWeightBands(rig, strict).nonAdjacentVertices, size_t(1)); // only e's, from another tree
}

void TestDiagnosis::asymmetricWeightsAcrossMirroredJointsAreFound()
{
    // hips at the origin, leg_L at +x, leg_R at -x; weights mirror exactly (leg_L = clamp(x, 0, 1)), then vertex
    // (col 8, row 1) (x = +0.6) takes 0.15 less of leg_L than its mirror takes of leg_R.
    auto weights = [](bool perturb) {
        return [perturb](int col, int row, glm::vec3 p) {
            const float side = std::min(std::fabs(p.x), 1.0f);
            float w = side;
            if (perturb && col == 8 && row == 1)
                w -= 0.15f;
            const uint32_t leg = p.x > 0.0f ? 1u : 2u;
            std::vector<Influence> out;
            if (w > 0.0f)
                out.push_back({leg, w});
            if (w < 1.0f)
                out.push_back({0u, 1.0f - w});
            return out;
        };
    };
    const std::vector<std::pair<std::string, std::pair<int, glm::vec3>>> nodes = {
        {"hips", {-1, glm::vec3(0.0f)}}, {"leg_L", {0, glm::vec3(0.5f, 0.0f, 0.0f)}}, {"leg_R", {0, glm::vec3(-0.5f, 0.0f, 0.0f)}}};
    const WeightBands same = diagnoseWeightBands(stripRig(nodes, 11, weights(false)));
    QCOMPARE(same.mirrorAxis, 0);
    RS_COMPARE_NEAR(same.mirrorOffset, 0.0, 1e-6);
    QCOMPARE(same.mirroredJoints.size(), size_t(1));
    QCOMPARE(same.asymmetricVertices, size_t(0));
    QCOMPARE(same.unmatchedVertices, size_t(0));
    QVERIFY(same.maxAsymmetry < 1e-6f);
    const WeightBands off = diagnoseWeightBands(stripRig(nodes, 11, weights(true)));
    QCOMPARE(off.asymmetricVertices, size_t(2)); // the vertex and its mirror, each against the other
    QCOMPARE(off.asymmetricList, (std::vector<uint32_t>{11 + 2, 11 + 8}));
    RS_COMPARE_NEAR(off.maxAsymmetry, 0.15, 1e-5);
    QCOMPARE(off.asymmetricPairs.size(), size_t(1));
    QCOMPARE(off.asymmetricPairs[0].nodeA, 1);
    QCOMPARE(off.asymmetricPairs[0].nodeB, 2);
    QCOMPARE(off.asymmetricPairs[0].vertices, off.asymmetricList);
}

void TestDiagnosis::realRigsSymmetry()
{
    // Fox names its sides b_Left… / b_Right… with different trailing numbers; RobotExpressive …L / …R. Both are
    // mirrored across x. Fox's weights mirror within 0.001; RobotExpressive's fingers do not.
    for (const char* file : {"Fox/Fox.glb", "RobotExpressive/RobotExpressive.glb"}) {
        const std::string path = testutil::assetPath(file);
        if (!QFileInfo::exists(QString::fromStdString(path)))
            QSKIP(qPrintable(QStringLiteral("%1 is absent (../shared/assets)").arg(QString::fromStdString(path))));
        const auto r = importFile(path);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
        const WeightBands wb = diagnoseWeightBands(r.value());
        QCOMPARE(wb.mirrorAxis, 0);
        QVERIFY2(std::fabs(wb.mirrorOffset) < 0.01f, qPrintable(QString::number(wb.mirrorOffset)));
        if (std::string(file).find("Fox") != std::string::npos) {
            QCOMPARE(wb.mirroredJoints.size(), size_t(7));
            QCOMPARE(wb.asymmetricVertices, size_t(0));
            QVERIFY(wb.maxAsymmetry < 0.001f);
        } else {
            QVERIFY(wb.mirroredJoints.size() >= 20);
            QVERIFY(wb.asymmetricVertices > 0);
            for (const JointPairCount& p : wb.asymmetricPairs)
                QCOMPARE(mirroredJointName(r->skeleton.nodes[size_t(p.nodeA)].name), r->skeleton.nodes[size_t(p.nodeB)].name);
        }
    }
}

namespace {

ErrorCauses causesAt(const Rig& rig, const Pose& pose, Method m, DeformSettings settings = {})
{
    const RigRuntime rt = buildRuntime(rig, 4);
    auto resolved = resolvePose(rig, pose);
    if (!resolved)
        qFatal("pose: %s", resolved.error().c_str());
    Evaluation e;
    evaluate(rig, rt, resolved.value(), allMethods(), settings, e);
    return classifyErrorCauses(rig, rt, e, measureCandyWrapper(rig, rt, e), m, settings);
}

size_t flagged(const ErrorCauses& c)
{
    size_t n = 0;
    for (int i = 1; i < kErrorCauseCount; ++i)
        n += c.counts[size_t(i)];
    return n;
}

Pose clipAt(const char* clip, double time)
{
    Pose p;
    p.clip = clip;
    p.time = time;
    return p;
}

} // namespace

void TestDiagnosis::errorCausesNameEachSamplesLesson()
{
    // The ramp stretched ×2 on one joint: every wrong vertex of linear is non-rigid, and the cofactor has none.
    const Rig ramp = testutil::sample("ramp");
    const ErrorCauses stretched = causesAt(ramp, clipAt("stretch", 1.0), Method::Linear);
    QVERIFY(flagged(stretched) > 0);
    QCOMPARE(stretched.counts[size_t(ErrorCause::NonRigid)], flagged(stretched));
    QCOMPARE(flagged(causesAt(ramp, clipAt("stretch", 1.0), Method::Cofactor)), size_t(0));
    // The lift strip: rigid joints, weights that change across the triangles: the weight gradient, which the jacobian
    // removes.
    const Rig strip = testutil::sample("lift_strip");
    const ErrorCauses lifted = causesAt(strip, clipAt("lift", 2.0), Method::Linear);
    QVERIFY(lifted.counts[size_t(ErrorCause::WeightGradient)] > flagged(lifted) / 2);
    QCOMPARE(lifted.counts[size_t(ErrorCause::NonRigid)], size_t(0));
    QCOMPARE(lifted.counts[size_t(ErrorCause::Collapse)], size_t(0));
    QCOMPARE(flagged(causesAt(strip, clipAt("lift", 2.0), Method::Jacobian)), size_t(0));
    // The tube twisted 180°: collapse above all, the rings at w = 0.35 and 0.65 (k = 17, 23: scale 0.3) among them (the
    // even ring itself collapses onto the axis: no normal, no error); dual quaternions have no wrong vertex.
    const Rig tube = testutil::sample("twist_tube");
    const ErrorCauses twisted = causesAt(tube, clipAt("twist", 2.0), Method::Linear);
    for (int c = 1; c < kErrorCauseCount; ++c)
        QVERIFY(twisted.counts[size_t(ErrorCause::Collapse)] >= twisted.counts[size_t(c)]);
    for (size_t v = 0; v < tube.meshes[0].vertexCount(); ++v)
        if (v % 41 == 17 || v % 41 == 23)
            QCOMPARE(twisted.perVertex[0][v], ErrorCause::Collapse);
    QCOMPARE(flagged(causesAt(tube, clipAt("twist", 2.0), Method::DualQuaternion)), size_t(0));
    // Squashed across as well, dual quaternions go wrong there too, but not by linear blending's collapse: the same
    // vertices lose scale under linear blending, and their dual-quaternion error has another cause.
    Pose squashed = clipAt("twist", 1.7);
    squashed.joints["twist"].scale = glm::vec3(1.0f, 1.8f, 0.5f);
    const ErrorCauses linearSquashed = causesAt(tube, squashed, Method::Linear);
    const ErrorCauses dqSquashed = causesAt(tube, squashed, Method::DualQuaternion);
    QVERIFY(linearSquashed.counts[size_t(ErrorCause::Collapse)] > 0);
    QVERIFY2(flagged(dqSquashed) > 0, "the squash gives dual quaternions wrong vertices");
    QCOMPARE(dqSquashed.counts[size_t(ErrorCause::Collapse)], size_t(0));
    QCOMPARE(std::string(errorCauseId(ErrorCause::WeightGradient)), std::string("weight_gradient"));
}

void TestDiagnosis::tiltedAuthoringIsTheBaselineNotSkinning()
{
    // Custom normals 10° off the triangles, turned rigidly: 10° of error everywhere, none of it skinning's.
    Pose pose;
    pose.joints["root"].rotateDeg = glm::vec3(30.0f, 60.0f, 10.0f);
    for (testutil::PropUvs uvs : {testutil::PropUvs::Kept, testutil::PropUvs::None}) {
        const Rig prop = testutil::tiltedProp(uvs);
        const ErrorCauses c = causesAt(prop, pose, Method::Linear);
        QCOMPARE(c.counts[size_t(ErrorCause::AuthoringBaseline)], prop.meshes[0].vertexCount());
        QCOMPARE(flagged(c), prop.meshes[0].vertexCount());
    }
}

void TestDiagnosis::morphsWithoutNormalDeltasAreNamed()
{
    // The sheet's towel twist at full weight: with its normal deltas there is no morph cause; with them switched off,
    // the vertices it moves and leaves wrong are morph_without_deltas.
    const Rig sheet = testutil::sample("sheet");
    Pose pose;
    pose.morphs["towel_twist"] = 1.0f;
    DeformSettings with, without;
    without.morphNormals = false;
    const ErrorCauses on = causesAt(sheet, pose, Method::Linear, with);
    const ErrorCauses off = causesAt(sheet, pose, Method::Linear, without);
    QCOMPARE(on.counts[size_t(ErrorCause::MorphWithoutDeltas)], size_t(0));
    QVERIFY(off.counts[size_t(ErrorCause::MorphWithoutDeltas)] > 0);
    QVERIFY(flagged(off) > flagged(on));
}

void TestDiagnosis::twistSweepOfTheTubeIsCosHalfTheAngleForLinearAndOneForDualQuaternions()
{
    // The tube's "twist" joint turned about its bone (x) from 0° to 180° in 5° steps: its band (19 rings of 33 that
    // blend root and twist) is worst at the 0.5 / 0.5 ring, cos(θ / 2) under linear blending; dual quaternions keep
    // every cross-section whole.
    const Rig rig = testutil::sample("twist_tube");
    const RigRuntime rt = buildRuntime(rig, 4);
    auto base = resolvePose(rig, Pose{});
    QVERIFY(base.ok());
    const auto sweep = sweepTwist(rig, rt, base.value(), rig.skeleton.find("twist"), 36);
    QVERIFY2(sweep.ok(), sweep.ok() ? "" : sweep.error().c_str());
    QCOMPARE(sweep.value().vertices, size_t(19 * 33));
    QCOMPARE(sweep.value().samples.size(), size_t(37));
    for (const TwistSweepSample& s : sweep.value().samples) {
        const double expected = std::cos(double(s.angleDeg) * kPi / 360.0);
        QVERIFY2(std::fabs(s.linear - expected) < 2e-5, qPrintable(QStringLiteral("%1°: %2 vs %3").arg(s.angleDeg).arg(s.linear).arg(expected)));
        QVERIFY2(std::fabs(s.dualQuaternion - 1.0) < 2e-5, qPrintable(QStringLiteral("%1°: %2").arg(s.angleDeg).arg(s.dualQuaternion)));
        // The positions: linear blending pulls a ring weighted w towards the axis to |1 − w + w e^{iθ}| of its
        // radius, sqrt(1 − 4 w (1 − w) sin²(θ/2)): the 0.5 / 0.5 ring to cos(θ/2), the band's outermost rings
        // (w = 0.05 and 0.95) the least; dual quaternions and centres of rotation keep every ring's radius.
        const double sin2 = std::pow(std::sin(double(s.angleDeg) * kPi / 360.0), 2.0);
        RS_COMPARE_NEAR(s.radiusMin[0], expected, 2e-5);
        RS_COMPARE_NEAR(s.radiusMax[0], std::sqrt(1.0 - 4.0 * 0.05 * 0.95 * sin2), 2e-5);
        for (size_t k : {size_t(1), size_t(2)}) {
            QVERIFY2(std::fabs(s.radiusMin[k] - 1.0) < 1e-4 && std::fabs(s.radiusMax[k] - 1.0) < 1e-4,
                     qPrintable(QStringLiteral("%1 at %2°: radius %3 to %4").arg(QLatin1String(methodId(kSweepMethods[k]).data()))
                                    .arg(s.angleDeg).arg(s.radiusMin[k]).arg(s.radiusMax[k])));
        }
    }
    QCOMPARE(sweep.value().samples.back().angleDeg, 180.0f);
    // The root joint's sweep measures the same band (root is one of its two joints) and turns the whole tube rigidly:
    // nothing is lost.
    const auto root = sweepTwist(rig, rt, base.value(), rig.skeleton.find("root"), 4);
    QVERIFY(root.ok());
    QCOMPARE(root.value().vertices, size_t(19 * 33));
    for (const TwistSweepSample& s : root.value().samples)
        QVERIFY2(std::fabs(s.linear - 1.0) < 2e-5, qPrintable(QString::number(s.linear)));
}

void TestDiagnosis::twistSweepOfASquashedJointBlendsItsStretch()
{
    // "twist" squashed to (1, 0.5, 0.5) in the base pose (kept through the sweep). Dual quaternions blend the two
    // stretches: a vertex weighted w keeps (1 − w + 0.5 w) / (1 − w + w ∛0.25) across, whatever the angle (the squash
    // is round about the bone, so it turns with it); worst at w = 0.95. Linear blending at 0° is the same.
    const Rig rig = testutil::sample("twist_tube");
    const RigRuntime rt = buildRuntime(rig, 4);
    Pose p;
    p.joints["twist"].scale = glm::vec3(1.0f, 0.5f, 0.5f);
    auto base = resolvePose(rig, p);
    QVERIFY(base.ok());
    double expected = 1.0;
    for (int k = 11; k <= 29; ++k) {
        const double w = (k - 10) / 20.0;
        expected = std::min(expected, (1.0 - w + 0.5 * w) / (1.0 - w + w * std::cbrt(0.25)));
    }
    RS_COMPARE_NEAR(expected, 0.525 / (0.05 + 0.95 * std::cbrt(0.25)), 1e-12); // w = 0.95
    const auto sweep = sweepTwist(rig, rt, base.value(), rig.skeleton.find("twist"), 12);
    QVERIFY(sweep.ok());
    for (const TwistSweepSample& s : sweep.value().samples)
        QVERIFY2(std::fabs(s.dualQuaternion - expected) < 2e-5, qPrintable(QStringLiteral("%1°: %2 vs %3").arg(s.angleDeg).arg(s.dualQuaternion).arg(expected)));
    RS_COMPARE_NEAR(sweep.value().samples.front().linear, expected, 2e-5);
    QVERIFY(sweep.value().samples.back().linear < 0.1f);
}

void TestDiagnosis::twistSweepRefusesABadNodeOrStepCountAndStopsOnCancel()
{
    const Rig rig = testutil::sample("twist_tube");
    const RigRuntime rt = buildRuntime(rig, 4);
    const ResolvedPose base = resolvePose(rig, Pose{}).value();
    QVERIFY(!sweepTwist(rig, rt, base, -1).ok());
    QVERIFY(!sweepTwist(rig, rt, base, int(rig.skeleton.nodes.size())).ok());
    QVERIFY(!sweepTwist(rig, rt, base, 1, 0).ok());
    QVERIFY(!sweepTwist(rig, rt, base, 1, 3601).ok());
    // Cancelled after the third angle: three samples, the progress called once per angle.
    std::atomic<bool> cancel{false};
    int calls = 0;
    const auto stopped = sweepTwist(rig, rt, base, 1, 36, {}, &cancel, [&](int done) {
        ++calls;
        if (done == 3)
            cancel = true;
    });
    QVERIFY(stopped.ok());
    QCOMPARE(stopped.value().samples.size(), size_t(3));
    QCOMPARE(calls, 3);
}

void TestDiagnosis::clipScanFindsTheFrameOfTheLeastScale()
{
    // A clip turning "twist" from 0° to 120° about the bone in one second (slerp between keys at 0 and 1 s): scanned
    // every 0.1 s, linear blending keeps least at 1 s, cos 60° = 0.5 at the even ring, between root and twist. Scanned at
    // the clip's own keys: two frames.
    Rig rig = testutil::sample("twist_tube");
    Clip clip;
    clip.name = "turn";
    clip.duration = 1.0f;
    JointChannel ch;
    ch.node = rig.skeleton.find("twist");
    ch.rotation.times = {0.0f, 1.0f};
    ch.rotation.values = {glm::quat(1, 0, 0, 0), glm::angleAxis(glm::radians(120.0f), glm::vec3(1, 0, 0))};
    clip.joints.push_back(ch);
    rig.clips.push_back(clip);
    const int turn = int(rig.clips.size()) - 1;
    const RigRuntime rt = buildRuntime(rig, 4);
    const ResolvedPose base = resolvePose(rig, Pose{}).value();
    const Method methods[] = {Method::Linear, Method::DualQuaternion};
    size_t frames = 0;
    const auto scan = scanClip(rig, rt, base, turn, methods, 0.1f, {}, nullptr, [&](size_t done) { frames = done; });
    QVERIFY2(scan.ok(), scan.ok() ? "" : scan.error().c_str());
    const ClipScan& s = scan.value();
    QCOMPARE(s.times.size(), size_t(11));
    QCOMPARE(frames, size_t(11));
    QCOMPARE(s.times.back(), 1.0f);
    RS_COMPARE_NEAR(s.minScale, 0.5, 1e-5);
    QCOMPARE(s.minScaleTime, 1.0f);
    QCOMPARE(s.minScaleVertex % 41, size_t(20));
    QCOMPARE(nodeNameOr(rig, s.minScaleNodeA), std::string("root"));
    QCOMPARE(nodeNameOr(rig, s.minScaleNodeB), std::string("twist"));
    QCOMPARE(s.methods.size(), size_t(2));
    QCOMPARE(s.methods[0].time, 1.0f); // linear's error grows with the turn
    QVERIFY(s.methods[0].worstErrorDeg > s.methods[1].worstErrorDeg);
    QVERIFY(!s.cancelled);
    QCOMPARE(scanTimes(rig.clips[size_t(turn)], 0.0f), (std::vector<float>{0.0f, 1.0f}));
    // Cancelled before the first frame: nothing scanned, and it says so.
    std::atomic<bool> cancel{true};
    const auto none = scanClip(rig, rt, base, turn, methods, 0.1f, {}, &cancel);
    QVERIFY(none.ok());
    QVERIFY(none.value().cancelled);
    QVERIFY(none.value().times.empty());
}

void TestDiagnosis::clipScanRefusesABadClipOrStep()
{
    const Rig rig = testutil::sample("twist_tube");
    const RigRuntime rt = buildRuntime(rig, 4);
    const ResolvedPose base = resolvePose(rig, Pose{}).value();
    const Method linear[] = {Method::Linear};
    QVERIFY(!scanClip(rig, rt, base, -1, linear).ok());
    QVERIFY(!scanClip(rig, rt, base, int(rig.clips.size()), linear).ok());
    QVERIFY(!scanClip(rig, rt, base, 0, linear, -0.5f).ok());
    QVERIFY(!scanClip(rig, rt, base, 0, linear, std::nanf("")).ok());
    const auto tooMany = scanClip(rig, rt, base, 0, linear, 1e-6f); // 2 s in 2,000,000 frames
    QVERIFY(!tooMany.ok());
    QVERIFY2(tooMany.error().find("100,000") != std::string::npos, tooMany.error().c_str());
}

QTEST_GUILESS_MAIN(TestDiagnosis)
void TestDiagnosis::dqDisplacementOfATwistedRingIsOneMinusCosHalfTheAngleOfItsRadius()
{
    // The twist tube's 0.5 / 0.5 ring (x = 1, radius 0.25, its limb radius: the bone root -> twist ends there).
    // Linear blending puts it at cos(θ/2) of its radius in the half-way direction, dual quaternions at its radius in
    // the same direction: (1 − cos(θ/2)) · 0.25 apart. The rings off the band move as one joint: 0.
    const Rig rig = testutil::sample("twist_tube");
    const RigRuntime rt = buildRuntime(rig, 4);
    const Mesh& mesh = rig.meshes[0];
    for (float deg : {90.0f, 150.0f, 180.0f}) {
        Pose p;
        p.joints["twist"].rotateDeg = glm::vec3(deg, 0.0f, 0.0f);
        auto resolved = resolvePose(rig, p);
        QVERIFY(resolved.ok());
        Evaluation eval;
        evaluate(rig, rt, resolved.value(), allMethods(), {}, eval);
        const DqDisplacement d = measureDqDisplacement(rig, rt, eval);
        QCOMPARE(d.distance.size(), size_t(1));
        const double expected = 1.0 - std::cos(double(deg) * kPi / 360.0);
        size_t ring = 0;
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            if (std::fabs(mesh.positions[v].x - 1.0f) < 1e-6f) {
                ++ring;
                RS_COMPARE_NEAR(rt.meshes[0].limbRadius[v], 0.25, 1e-6);
                RS_COMPARE_NEAR(d.distance[0][v], 0.25 * expected, 2e-5);
                RS_COMPARE_NEAR(d.fraction[0][v], expected, 1e-4);
            } else if (mesh.positions[v].x < 0.5f || mesh.positions[v].x > 1.5f) {
                QVERIFY2(d.distance[0][v] < 1e-5f, qPrintable(QString::number(d.distance[0][v])));
            }
        }
        QCOMPARE(ring, size_t(33));
        RS_COMPARE_NEAR(d.maxFraction, expected, 1e-4); // the band's worst is the half-way ring
        QVERIFY(d.worstMesh == 0 && std::fabs(mesh.positions[d.worstVertex].x - 1.0f) < 1e-6f);
    }
    // Without the dual-quaternion surface there is nothing to measure.
    Evaluation linearOnly;
    const Method linear[] = {Method::Linear};
    evaluate(rig, rt, resolvePose(rig, Pose{}).value(), linear, {}, linearOnly);
    QVERIFY(measureDqDisplacement(rig, rt, linearOnly).distance.empty());
}

#include "test_diagnosis.moc"
