// Every deformation method against analytic answers, on the built-in rigs and on hand-built ones.
#include "testutil.h"

#include <random>

#include "rig/deform.h"
#include "rig/joint_frames.h"
#include "rig/pose.h"
#include "rig/skinning.h"

using namespace rig;

namespace {

struct Run {
    Rig rig;
    RigRuntime runtime;
    Evaluation eval;
};

Run evaluatePose(Rig r, const Pose& pose, int k = 4, bool morphNormals = true)
{
    Run run;
    run.rig = std::move(r);
    run.runtime = buildRuntime(run.rig, k);
    auto resolved = resolvePose(run.rig, pose);
    if (!resolved)
        qFatal("pose: %s", resolved.error().c_str());
    DeformSettings s;
    s.morphNormals = morphNormals;
    evaluate(run.rig, run.runtime, resolved.value(), allMethods(), s, run.eval);
    return run;
}

const MethodFrames& frames(const Run& r, Method m, size_t mesh = 0) { return r.eval.meshes[mesh].methods[size_t(m)]; }

constexpr double kRad = 180.0 / 3.14159265358979323846;

} // namespace

class TestSkinning : public QObject {
    Q_OBJECT
private slots:
    void methodIdsRoundTrip();
    void rampStretchedTwiceAlongX_data();
    void rampStretchedTwiceAlongX();
    void mirroredJointCofactorKeepsWindingInverseTransposeFlips();
    void candyWrapper_data();
    void candyWrapper();
    void liftStripJacobianFollowsTiltMatrixMethodsDoNot();
    void liftStripWeightGradientIsExact();
    void morphThenSkinOrder();
    void morphNormalDeltasSwitch();
    void rebuiltMethodHasZeroError();
    void dualQuaternionReportsMirroredJoint();
    void polarDecomposition();
    void unboundVertexStaysAtBindPosition();
    void fastPathMatchesScalar();
    void eightInfluencesUseMoreWeights();
    void validateRejectsBadSizes();
};

void TestSkinning::methodIdsRoundTrip()
{
    const char* ids[] = {"positions-only", "linear", "blend-inverse-transpose", "inverse-transpose",
                         "cofactor", "dual-quaternion", "jacobian", "rebuilt"};
    QCOMPARE(int(allMethods().size()), 8);
    for (size_t i = 0; i < 8; ++i) {
        QCOMPARE(QString::fromLatin1(methodId(allMethods()[i]).data(), int(methodId(allMethods()[i]).size())),
                 QString::fromLatin1(ids[i]));
        QVERIFY(methodFromId(ids[i]) == allMethods()[i]);
    }
    QVERIFY(!methodFromId("lbs"));
}

void TestSkinning::rampStretchedTwiceAlongX_data()
{
    QTest::addColumn<int>("method");
    QTest::addColumn<double>("slopeError");
    // True slope normal tilts atan(0.5) = 26.565°; A3 n tilts atan(2) = 63.435°; rest stays at 45°.
    QTest::newRow("positions-only") << int(Method::PositionsOnly) << 45.0 - std::atan(0.5) * kRad;
    QTest::newRow("linear") << int(Method::Linear) << std::atan(2.0) * kRad - std::atan(0.5) * kRad;
    QTest::newRow("blend-inverse-transpose") << int(Method::BlendInverseTranspose) << 0.0;
    QTest::newRow("inverse-transpose") << int(Method::InverseTranspose) << 0.0;
    QTest::newRow("cofactor") << int(Method::Cofactor) << 0.0;
    QTest::newRow("dual-quaternion") << int(Method::DualQuaternion) << 0.0;
    QTest::newRow("jacobian") << int(Method::Jacobian) << 0.0;
    QTest::newRow("rebuilt") << int(Method::Rebuilt) << 0.0;
}

void TestSkinning::rampStretchedTwiceAlongX()
{
    QFETCH(int, method);
    QFETCH(double, slopeError);
    Pose pose;
    pose.joints["root"].scale = glm::vec3(2.0f, 1.0f, 1.0f);
    const Run r = evaluatePose(testutil::sample("ramp"), pose);
    const Mesh& mesh = r.rig.meshes[0];
    const MethodFrames& f = frames(r, Method(method));
    int slope = 0;
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
        const glm::vec3 n = mesh.normals[v];
        if (std::fabs(n.x + 0.70710678f) > 1e-4f || std::fabs(n.y - 0.70710678f) > 1e-4f)
            continue; // not on the slope
        ++slope;
        RS_COMPARE_NEAR(f.normalErrorDeg[v], slopeError, 0.01);
        // The reference itself is the analytic normal (-0.5, 1, 0)/|.|.
        const glm::vec3 ref = r.eval.meshes[0].linear.referenceNormals[v];
        RS_COMPARE_NEAR(angleDeg(ref, glm::vec3(-0.5f, 1.0f, 0.0f)), 0.0, 0.01);
    }
    QVERIFY(slope >= 81); // the 8x8-cell slope grid
    const MethodStats& st = r.eval.stats[size_t(method)];
    RS_COMPARE_NEAR(st.normal.max, slopeError, 0.01);
    // Tangents transform like edges: exact for every method that moves them with the matrix.
    if (Method(method) != Method::PositionsOnly)
        RS_COMPARE_NEAR(st.tangent.max, 0.0, 0.01);
}

void TestSkinning::mirroredJointCofactorKeepsWindingInverseTransposeFlips()
{
    Pose pose;
    pose.joints["root"].scale = glm::vec3(-1.0f, 1.0f, 1.0f);
    const Run r = evaluatePose(testutil::sample("ramp"), pose);
    // Mirroring flips the winding, so the rebuilt normal is cof(A) n = det(A) A^{-T} n. The cofactor agrees with it;
    // the inverse transpose (and here the plain 3x3) point the opposite way on every vertex.
    RS_COMPARE_NEAR(r.eval.stats[size_t(Method::Cofactor)].normal.max, 0.0, 0.01);
    const MethodFrames& it = frames(r, Method::InverseTranspose);
    for (float e : it.normalErrorDeg)
        RS_COMPARE_NEAR(e, 180.0, 0.01);
    // The joint is reported as mirrored and dual quaternions fall back to the linear blend on every vertex.
    QCOMPARE(int(r.eval.mirroredJoints.size()), 1);
    QCOMPARE(r.eval.stats[size_t(Method::DualQuaternion)].dqFallbackVertices, r.rig.meshes[0].vertexCount());
}

void TestSkinning::candyWrapper_data()
{
    QTest::addColumn<double>("theta");
    QTest::newRow("30") << 30.0;
    QTest::newRow("90") << 90.0;
    QTest::newRow("150") << 150.0;
    QTest::newRow("180") << 180.0;
}

void TestSkinning::candyWrapper()
{
    QFETCH(double, theta);
    Pose pose;
    pose.joints["twist"].rotateDeg = glm::vec3(float(theta), 0.0f, 0.0f);
    const Run r = evaluatePose(testutil::sample("twist_tube"), pose);
    const Mesh& mesh = r.rig.meshes[0];
    const float radius = glm::length(glm::vec2(mesh.positions[0].y, mesh.positions[0].z));
    const Surface& lbs = r.eval.meshes[0].linear;
    const Surface& dq = r.eval.meshes[0].dualQuaternion;
    int ring = 0;
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
        if (std::fabs(mesh.positions[v].x - 1.0f) > 1e-6f)
            continue; // only the ring weighted 0.5 / 0.5
        ++ring;
        const float lbsRadius = glm::length(glm::vec2(lbs.positions[v].y, lbs.positions[v].z));
        const float dqRadius = glm::length(glm::vec2(dq.positions[v].y, dq.positions[v].z));
        RS_COMPARE_NEAR(lbsRadius, radius * std::cos(theta / kRad / 2.0), 1e-5);
        RS_COMPARE_NEAR(dqRadius, radius, 1e-5);
        RS_COMPARE_NEAR(lbs.positions[v].x, 1.0, 1e-5);
        RS_COMPARE_NEAR(dq.positions[v].x, 1.0, 1e-5);
    }
    QVERIFY(ring >= 32);
    if (theta == 180.0) {
        // At 180° the blended 3x3 of the ring is diag(1, 0, 0): it crushes every radial normal to (float) noise.
        // Errors stay numbers in [0, 180] or undefined, never NaN; dual quaternions keep a defined normal there.
        const MeshEvaluation& me = r.eval.meshes[0];
        const MeshRuntime& mr = r.runtime.meshes[0];
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            const float e = frames(r, Method::Linear).normalErrorDeg[v];
            QVERIFY(e == kUndefinedError || (e >= 0.0f && e <= 180.0f));
            if (std::fabs(mesh.positions[v].x - 1.0f) > 1e-6f)
                continue;
            glm::mat3 a(0.0f);
            for (int i = 0; i < 4; ++i)
                a += mr.stream.weights[v * 4 + size_t(i)] * glm::mat3(me.palette[mr.stream.joints[v * 4 + size_t(i)]].matrix);
            QVERIFY(glm::length(a * mesh.normals[v]) < 1e-6f);
            QVERIFY(frames(r, Method::DualQuaternion).normalErrorDeg[v] >= 0.0f);
            RS_COMPARE_NEAR(frames(r, Method::DualQuaternion).normalErrorDeg[v], 0.0, 1.0);
        }
    }
}

void TestSkinning::liftStripJacobianFollowsTiltMatrixMethodsDoNot()
{
    const float h = 0.5f, length = 2.0f;
    Pose pose;
    pose.joints["lift"].translate = glm::vec3(0.0f, h, 0.0f);
    const Run r = evaluatePose(testutil::sample("lift_strip"), pose);
    const double tilt = std::atan(h / length) * kRad; // 14.036°
    const Mesh& mesh = r.rig.meshes[0];
    for (Method m : {Method::PositionsOnly, Method::Linear, Method::BlendInverseTranspose, Method::InverseTranspose,
                     Method::Cofactor, Method::DualQuaternion, Method::Jacobian, Method::Rebuilt}) {
        const MethodFrames& f = frames(r, m);
        const bool followsSurface = m == Method::Jacobian || m == Method::Rebuilt;
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            if (m != Method::DualQuaternion) // DQ bends the strip differently; its own reference is checked below
                RS_COMPARE_NEAR(angleDeg(r.eval.meshes[0].linear.referenceNormals[v], glm::vec3(0, 1, 0)), tilt, 1e-3);
            const double upright = angleDeg(f.normals[v], glm::vec3(0, 1, 0));
            if (followsSurface) {
                RS_COMPARE_NEAR(upright, tilt, 1e-3);
                RS_COMPARE_NEAR(f.normalErrorDeg[v], 0.0, 1e-3);
            } else {
                RS_COMPARE_NEAR(upright, 0.0, 1e-3);
            }
        }
    }
    RS_COMPARE_NEAR(r.eval.stats[size_t(Method::Linear)].normal.max, tilt, 1e-3);
    RS_COMPARE_NEAR(r.eval.stats[size_t(Method::Linear)].normal.mean, tilt, 1e-3);
    // Tangents: the jacobian stretches them along the slope too.
    RS_COMPARE_NEAR(r.eval.stats[size_t(Method::Jacobian)].tangent.max, 0.0, 1e-3);
    RS_COMPARE_NEAR(r.eval.stats[size_t(Method::Linear)].tangent.max, tilt, 1e-3);
}

void TestSkinning::liftStripWeightGradientIsExact()
{
    const Rig rg = testutil::sample("lift_strip");
    const RigRuntime rt = buildRuntime(rg, 4);
    const WeightGradients& g = rt.meshes[0].gradients;
    const int lift = rg.skeleton.find("lift");
    QVERIFY(lift >= 0);
    const Skin& skin = rg.skins[size_t(rg.meshes[0].skin)];
    const auto liftSlot = uint16_t(std::find(skin.joints.begin(), skin.joints.end(), lift) - skin.joints.begin());
    for (size_t v = 0; v < rg.meshes[0].vertexCount(); ++v) {
        bool found = false;
        glm::vec3 sum(0.0f);
        for (uint32_t i = g.offsets[v]; i < g.offsets[v + 1]; ++i) {
            sum += g.gradients[i];
            if (g.joints[i] == liftSlot) {
                found = true;
                RS_COMPARE_NEAR(g.gradients[i].x, 0.5, 1e-5);
                RS_COMPARE_NEAR(g.gradients[i].y, 0.0, 1e-6);
                RS_COMPARE_NEAR(g.gradients[i].z, 0.0, 1e-5);
            }
        }
        QVERIFY(found);
        // Normalised weights: the gradients of one vertex sum to zero.
        RS_COMPARE_NEAR(glm::length(sum), 0.0, 1e-5);
    }
}

void TestSkinning::morphThenSkinOrder()
{
    // Bend the sheet's middle joint and apply a morph: the pipeline must morph in bind space, then skin.
    Pose pose;
    const Rig sheet = testutil::sample("sheet");
    const std::string joint = sheet.skeleton.nodes[2].name;
    pose.joints[joint].rotateDeg = glm::vec3(0.0f, 0.0f, 40.0f);
    pose.morphs["towel_twist"] = 1.0f;
    const Run r = evaluatePose(sheet, pose);
    const Mesh& mesh = r.rig.meshes[0];
    const MeshEvaluation& me = r.eval.meshes[0];
    const MeshRuntime& mr = r.runtime.meshes[0];
    size_t target = 0;
    while (mesh.morphTargets[target].name != "towel_twist")
        ++target;
    double wrongOrderMax = 0.0;
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
        glm::mat4 a(0.0f);
        for (int i = 0; i < 4; ++i)
            a += mr.stream.weights[v * 4 + size_t(i)] * me.palette[mr.stream.joints[v * 4 + size_t(i)]].matrix;
        const glm::vec3 delta = mesh.morphTargets[target].positionDeltas[v];
        const glm::vec3 right = glm::vec3(a * glm::vec4(mesh.positions[v] + delta, 1.0f));
        const glm::vec3 wrong = glm::vec3(a * glm::vec4(mesh.positions[v], 1.0f)) + delta;
        QVERIFY(glm::length(me.linear.positions[v] - right) < 1e-5f);
        wrongOrderMax = std::max(wrongOrderMax, double(glm::length(me.linear.positions[v] - wrong)));
    }
    // Skinning first would move the deltas by the bones' rotation: clearly different here.
    QVERIFY2(wrongOrderMax > 0.05, qPrintable(QString::number(wrongOrderMax)));
}

void TestSkinning::morphNormalDeltasSwitch()
{
    Pose pose;
    pose.morphs["middle_fold"] = 1.0f;
    const Run with = evaluatePose(testutil::sample("sheet"), pose, 4, true);
    const Run without = evaluatePose(testutil::sample("sheet"), pose, 4, false);
    // Positions are the same either way; only the directions change.
    for (size_t v = 0; v < with.rig.meshes[0].vertexCount(); v += 97)
        QVERIFY(glm::length(with.eval.meshes[0].linear.positions[v] - without.eval.meshes[0].linear.positions[v]) < 1e-6f);
    const double errWith = with.eval.stats[size_t(Method::Linear)].normal.max;
    const double errWithout = without.eval.stats[size_t(Method::Linear)].normal.max;
    // Without deltas the normals stay flat while the fold rises steeply; with them they follow within discretisation.
    QVERIFY2(errWithout > 20.0, qPrintable(QString::number(errWithout)));
    QVERIFY2(errWith < 5.0, qPrintable(QString::number(errWith)));
}

void TestSkinning::rebuiltMethodHasZeroError()
{
    Pose pose;
    pose.joints["lower"].rotateDeg = glm::vec3(0, 0, 70);
    const Run r = evaluatePose(testutil::sample("elbow"), pose);
    QCOMPARE(r.eval.stats[size_t(Method::Rebuilt)].normal.max, 0.0);
    QCOMPARE(r.eval.stats[size_t(Method::Rebuilt)].tangent.max, 0.0);
    // And the bend makes real error for the cheap methods (the weight band).
    QVERIFY(r.eval.stats[size_t(Method::Linear)].normal.max > 5.0);
}

void TestSkinning::dualQuaternionReportsMirroredJoint()
{
    // A single mirrored joint in a two-joint rig: only the vertices it influences fall back.
    Pose pose;
    pose.joints["lower"].scale = glm::vec3(1.0f, -1.0f, 1.0f);
    const Run r = evaluatePose(testutil::sample("elbow"), pose);
    QCOMPARE(int(r.eval.mirroredJoints.size()), 1);
    QCOMPARE(r.rig.skeleton.nodes[size_t(r.eval.mirroredJoints[0])].name, std::string("lower"));
    const size_t fallback = r.eval.stats[size_t(Method::DualQuaternion)].dqFallbackVertices;
    QVERIFY(fallback > 0 && fallback < r.rig.meshes[0].vertexCount());
    const MethodFrames& dq = frames(r, Method::DualQuaternion);
    const MeshRuntime& mr = r.runtime.meshes[0];
    const int lowerNode = r.rig.skeleton.find("lower");
    const Skin& skin = r.rig.skins[0];
    const auto lowerSlot = uint16_t(std::find(skin.joints.begin(), skin.joints.end(), lowerNode) - skin.joints.begin());
    for (size_t v = 0; v < r.rig.meshes[0].vertexCount(); ++v) {
        bool influenced = false;
        for (int i = 0; i < 4; ++i)
            influenced |= mr.stream.joints[v * 4 + size_t(i)] == lowerSlot && mr.stream.weights[v * 4 + size_t(i)] > 0.0f;
        QCOMPARE(bool(dq.flags[v] & SkinFlagDqFallback), influenced);
    }
}

void TestSkinning::polarDecomposition()
{
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (int i = 0; i < 50; ++i) {
        const glm::quat q = glm::normalize(glm::quat(u(rng), u(rng), u(rng), u(rng)));
        glm::mat3 s(1.0f);
        s[0][0] = 1.5f + u(rng);
        s[1][1] = 1.5f + u(rng);
        s[2][2] = 1.5f + u(rng);
        s[0][1] = s[1][0] = 0.2f * u(rng);
        s[0][2] = s[2][0] = 0.2f * u(rng);
        const glm::mat3 r = glm::mat3_cast(q) * s;
        glm::mat3 qo, so;
        QVERIFY(polarDecompose(r, qo, so));
        const glm::mat3 back = qo * so;
        for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 3; ++k) {
                RS_COMPARE_NEAR(back[c][k], r[c][k], 1e-5);
                RS_COMPARE_NEAR(so[c][k], s[c][k], 1e-4);
                RS_COMPARE_NEAR(so[c][k], so[k][c], 1e-6);
            }
        RS_COMPARE_NEAR(glm::determinant(qo), 1.0, 1e-5);
    }
    glm::mat3 qo, so;
    QVERIFY(!polarDecompose(glm::mat3(glm::vec3(-1, 0, 0), glm::vec3(0, 1, 0), glm::vec3(0, 0, 1)), qo, so));
    QVERIFY(!polarDecompose(glm::mat3(0.0f), qo, so));
}

void TestSkinning::unboundVertexStaysAtBindPosition()
{
    Rig rg = testutil::sample("lift_strip");
    Mesh& mesh = rg.meshes[0];
    // Zero the weights of vertex 5 (raw data as a broken file would have it).
    for (uint32_t i = mesh.influenceOffsets[5]; i < mesh.influenceOffsets[6]; ++i)
        mesh.influences[i].weight = 0.0f;
    const glm::vec3 bind = mesh.positions[5];
    Pose pose;
    pose.joints["lift"].translate = glm::vec3(0, 1, 0);
    pose.joints["base"].translate = glm::vec3(0, 2, 0);
    const Run r = evaluatePose(rg, pose);
    QCOMPARE(r.runtime.meshes[0].stream.unboundVertices, size_t(1));
    QVERIFY(glm::length(r.eval.meshes[0].linear.positions[5] - bind) < 1e-6f);
    QVERIFY(glm::length(r.eval.meshes[0].linear.positions[6] - mesh.positions[6]) > 1.0f);
}

void TestSkinning::fastPathMatchesScalar()
{
    if (!linearFastPathAvailable())
        QSKIP("this CPU has no AVX2+FMA: only the scalar path exists");
    const Rig rg = makeBenchmarkRig(20000, 30, 4);
    const RigRuntime rt = buildRuntime(rg, 4);
    const Mesh& mesh = rg.meshes[0];
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-60.0f, 60.0f);
    Pose pose;
    for (const Node& n : rg.skeleton.nodes) {
        pose.joints[n.name].rotateDeg = glm::vec3(u(rng), u(rng), u(rng));
        pose.joints[n.name].scale = glm::vec3(1.0f + u(rng) / 200.0f, 1.0f, 1.0f - u(rng) / 300.0f);
    }
    auto resolved = resolvePose(rg, pose);
    QVERIFY(resolved.ok());
    std::vector<glm::mat4> world;
    evaluateWorld(rg, resolved.value(), world);
    std::vector<std::vector<glm::mat4>> pal;
    evaluatePalettes(rg, world, pal);
    std::vector<glm::mat4> m = pal[0];
    m.push_back(glm::mat4(1.0f));
    std::vector<JointFrame> fr(m.size());
    buildJointFrames(m, fr);
    const size_t n = mesh.vertexCount();
    std::vector<glm::vec3> p1(n), n1(n), p2(n), n2(n);
    std::vector<glm::vec4> t1(n), t2(n);
    SkinJob job;
    job.method = Method::Linear;
    job.palette = fr;
    job.joints = rt.meshes[0].stream.joints;
    job.weights = rt.meshes[0].stream.weights;
    job.positions = mesh.positions;
    job.normals = mesh.normals;
    job.tangents = mesh.tangents;
    job.outPositions = p1;
    job.outNormals = n1;
    job.outTangents = t1;
    QVERIFY(job.validate());
    job.run();
    job.outPositions = p2;
    job.outNormals = n2;
    job.outTangents = t2;
    runLinearScalar(job);
    for (size_t v = 0; v < n; ++v) {
        QVERIFY(glm::length(p1[v] - p2[v]) <= 1e-5f * std::max(1.0f, glm::length(p2[v])));
        QVERIFY(angleDeg(n1[v], n2[v]) < 0.01);
        QVERIFY(std::fabs(glm::length(n1[v]) - 1.0f) < 1e-5f);
        QVERIFY(angleDeg(glm::vec3(t1[v]), glm::vec3(t2[v])) < 0.01);
        QCOMPARE(t1[v].w, t2[v].w);
    }
}

void TestSkinning::eightInfluencesUseMoreWeights()
{
    const Rig rg = makeBenchmarkRig(4000, 20, 8);
    const RigRuntime r4 = buildRuntime(rg, 4);
    const RigRuntime r8 = buildRuntime(rg, 8);
    QVERIFY(r4.meshes[0].stream.truncatedVertices > 0);
    QCOMPARE(r8.meshes[0].stream.truncatedVertices, size_t(0));
    // The top 4 of 8 are renormalised: each runtime weight of K=4 is >= the same joint's weight in K=8.
    for (size_t v = 0; v < rg.meshes[0].vertexCount(); v += 13) {
        float s4 = 0, s8 = 0;
        for (int i = 0; i < 4; ++i)
            s4 += r4.meshes[0].stream.weights[v * 4 + size_t(i)];
        for (int i = 0; i < 8; ++i)
            s8 += r8.meshes[0].stream.weights[v * 8 + size_t(i)];
        RS_COMPARE_NEAR(s4, 1.0, 1e-5);
        RS_COMPARE_NEAR(s8, 1.0, 1e-5);
        QVERIFY(r4.meshes[0].stream.weights[v * 4] >= r8.meshes[0].stream.weights[v * 8]);
    }
}

void TestSkinning::validateRejectsBadSizes()
{
    std::vector<JointFrame> pal(2);
    std::vector<glm::vec3> p(3), n(3), op(3), on(2);
    std::vector<uint16_t> j(12);
    std::vector<float> w(12);
    SkinJob job;
    job.palette = pal;
    job.joints = j;
    job.weights = w;
    job.positions = p;
    job.normals = n;
    job.outPositions = op;
    job.outNormals = on;
    QVERIFY(!job.validate()); // outNormals too short
    std::vector<glm::vec3> on3(3);
    job.outNormals = on3;
    QVERIFY(job.validate());
    job.method = Method::Jacobian;
    QVERIFY(!job.validate()); // no gradients
    job.method = Method::Rebuilt;
    QVERIFY(!job.validate());
    job.method = Method::Linear;
    job.influencesPerVertex = 5;
    QVERIFY(!job.validate());
}

QTEST_GUILESS_MAIN(TestSkinning)
#include "test_skinning.moc"
