// The diagnosis of what a pose does to the rig's shape: the candy-wrapper scale loss of linear blending
// (rig/analysis/diagnosis/blend_scale.h), on analytic matrices and the built-in tubes, whose weights are exact.
#include "testutil.h"

#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

#include "rig/analysis/diagnosis/blend_scale.h"
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

QTEST_GUILESS_MAIN(TestDiagnosis)
#include "test_diagnosis.moc"
