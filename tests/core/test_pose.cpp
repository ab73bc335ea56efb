// Posing: Euler order, edit composition, clip sampling (step, linear, cubic) and the pose file.
#include "testutil.h"

#include "rig/io/pose_file.h"
#include "rig/model/joint_tools.h"
#include "rig/model/pose.h"

using namespace rig;

namespace {

Rig twoNodeRig()
{
    Rig r;
    Node a;
    a.name = "a";
    a.rest.rotation = glm::angleAxis(glm::radians(90.0f), glm::vec3(0, 0, 1));
    a.rest.translation = glm::vec3(1, 2, 3);
    a.restMatrix = a.rest.matrix();
    Node b;
    b.name = "b";
    b.parent = 0;
    b.rest.translation = glm::vec3(2, 0, 0);
    b.restMatrix = b.rest.matrix();
    r.skeleton.nodes = {a, b};
    return r;
}

void compareVec(const glm::vec3& a, const glm::vec3& b, float tol = 1e-5f)
{
    for (int i = 0; i < 3; ++i)
        RS_COMPARE_NEAR(a[i], b[i], tol);
}

/// The angles recovered from the matrix the angles make.
glm::vec3 eulerFromMatrixOrSelf(const glm::vec3& angles, const glm::vec3& nearDeg)
{
    return eulerXYZFromMatrix(eulerXYZ(angles), nearDeg);
}

} // namespace

class TestPose : public QObject {
    Q_OBJECT
private slots:
    void eulerOrderIsXThenYThenZ();
    void editsComposeInLocalFrame();
    void unknownNamesFail();
    void stepLinearCubic();
    void clipThenEdits();
    void morphWeightsFromClipAndPose();
    void poseFileParses();
    void poseFileErrors_data();
    void poseFileErrors();
    void writtenPoseReadsBackEqual();
    void eulerFromMatrixRecoversAnglesNearTheHint();
    void eulerFromMatrixAtGimbalLockKeepsX();
    void axisAngleTurnsRightHanded();
    void boneAxisPointsToChildElseAwayFromParent();
    void lessonEditsActAboutTheBone();
    void eachRotateOrderIsTheProductItNames_data();
    void eachRotateOrderIsTheProductItNames();
    void eulerFromMatrixInvertsEveryOrder();
    void rotateOrderAppliesInTheEvaluatedPose();
    void anOrderAloneLeavesTheJointAtItsBindPose();
    void rotateOrderRoundTripsThroughThePoseFile();
    void lessonEditsKeepTheirAnglesInAnyOrder();
};

void TestPose::eulerOrderIsXThenYThenZ()
{
    // X by 90° sends y to z; then Y by 90° sends z to x. So (90, 90, 0) maps y to x.
    compareVec(eulerXYZ({90, 0, 0}) * glm::vec3(0, 1, 0), {0, 0, 1});
    compareVec(eulerXYZ({90, 90, 0}) * glm::vec3(0, 1, 0), {1, 0, 0});
    // Z last: (0, 90, 90) maps z to x (by Y) then x to y (by Z).
    compareVec(eulerXYZ({0, 90, 90}) * glm::vec3(0, 0, 1), {0, 1, 0});
}

void TestPose::editsComposeInLocalFrame()
{
    const Rig r = twoNodeRig();
    Pose pose;
    pose.joints["a"].rotateDeg = {90, 0, 0};     // after the rest rotation: about a's own x axis
    pose.joints["a"].translate = {0, 0, 1};      // added to the local translation
    pose.joints["b"].scale = {2, 3, 4};          // multiplies the local scale
    auto resolved = resolvePose(r, pose);
    QVERIFY(resolved.ok());
    std::vector<glm::mat4> world;
    evaluateWorld(r, resolved.value(), world);
    // a: R = Rz90 * Rx90, t = (1,2,4). Local y of a -> Rx90 -> z -> Rz90 keeps z.
    compareVec(glm::mat3(world[0]) * glm::vec3(0, 1, 0), {0, 0, 1});
    compareVec(glm::vec3(world[0][3]), {1, 2, 4});
    // b's origin: a's transform applied to (2,0,0): Rx90 keeps x, Rz90 sends x to y.
    compareVec(glm::vec3(world[1][3]), glm::vec3(1, 2, 4) + glm::vec3(0, 2, 0));
    // b's x axis carries its scale 2.
    RS_COMPARE_NEAR(glm::length(glm::vec3(world[1][0])), 2.0, 1e-5);
    RS_COMPARE_NEAR(glm::length(glm::vec3(world[1][2])), 4.0, 1e-5);
}

void TestPose::unknownNamesFail()
{
    const Rig r = twoNodeRig();
    Pose p;
    p.joints["elbow_l"];
    auto a = resolvePose(r, p);
    QVERIFY(!a.ok());
    QVERIFY(a.error().find("elbow_l") != std::string::npos);
    Pose m;
    m.morphs["smile"] = 1.0f;
    auto b = resolvePose(r, m);
    QVERIFY(!b.ok() && b.error().find("smile") != std::string::npos);
    Pose c;
    c.clip = "walk";
    auto cc = resolvePose(r, c);
    QVERIFY(!cc.ok() && cc.error().find("walk") != std::string::npos);
}

void TestPose::stepLinearCubic()
{
    Track<glm::vec3> t;
    t.times = {0.0f, 1.0f, 3.0f};
    t.values = {{0, 0, 0}, {1, 0, 0}, {1, 4, 0}};
    t.interpolation = Interpolation::Linear;
    compareVec(sampleTrack(t, 0.25f), {0.25f, 0, 0});
    compareVec(sampleTrack(t, 2.0f), {1, 2, 0});
    compareVec(sampleTrack(t, -1.0f), {0, 0, 0}); // clamped
    compareVec(sampleTrack(t, 9.0f), {1, 4, 0});
    t.interpolation = Interpolation::Step;
    compareVec(sampleTrack(t, 0.99f), {0, 0, 0});
    compareVec(sampleTrack(t, 1.0f), {1, 0, 0});
    compareVec(sampleTrack(t, 2.9f), {1, 0, 0});
    // Cubic spline, glTF layout (in, value, out) per key. Hermite at s = 0.5 over span 2:
    // h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125 → 0.5*v0 + 0.125*2*out0 + 0.5*v1 - 0.125*2*in1.
    Track<glm::vec3> c;
    c.interpolation = Interpolation::CubicSpline;
    c.times = {0.0f, 2.0f};
    c.values = {{9, 9, 9}, {0, 0, 0}, {1, 0, 0}, {0, 3, 0}, {2, 0, 0}, {9, 9, 9}};
    compareVec(sampleTrack(c, 1.0f), {0.5f * 0 + 0.25f * 1 + 0.5f * 2 - 0.25f * 0, -0.25f * 3, 0});
    compareVec(sampleTrack(c, 2.0f), {2, 0, 0});
}

void TestPose::clipThenEdits()
{
    const Rig r = testutil::sample("lift_strip");
    Pose pose;
    pose.clip = "lift";
    pose.time = 1.5; // step: the key at t=1 (0.5 up) holds until t=2
    pose.joints["lift"].translate = {0, 0.25f, 0};
    auto resolved = resolvePose(r, pose);
    QVERIFY2(resolved.ok(), resolved.ok() ? "" : resolved.error().c_str());
    std::vector<glm::mat4> world;
    evaluateWorld(r, resolved.value(), world);
    const int lift = r.skeleton.find("lift");
    RS_COMPARE_NEAR(world[size_t(lift)][3].y, 0.75, 1e-6);
    pose.clip = "0"; // by index
    QVERIFY(resolvePose(r, pose).ok());
}

void TestPose::morphWeightsFromClipAndPose()
{
    Rig r = testutil::sample("sheet");
    Clip clip;
    clip.name = "blink";
    MorphChannel ch;
    ch.mesh = 0;
    ch.times = {0.0f, 1.0f};
    const size_t targets = r.meshes[0].morphTargets.size();
    ch.weights.assign(2 * targets, 0.0f);
    ch.weights[targets + 1] = 1.0f; // target 1 goes 0 -> 1
    clip.morphs.push_back(ch);
    r.clips.push_back(clip);
    Pose pose;
    pose.clip = "blink";
    pose.time = 0.25;
    pose.morphs[r.meshes[0].morphTargets[0].name] = 0.7f;
    auto resolved = resolvePose(r, pose);
    QVERIFY(resolved.ok());
    RS_COMPARE_NEAR(resolved->morphWeights[0][1], 0.25, 1e-6);
    RS_COMPARE_NEAR(resolved->morphWeights[0][0], 0.7, 1e-6); // the pose file wins over the clip
    // A malformed channel is refused, not read out of bounds.
    r.clips.back().morphs[0].weights.pop_back();
    QVERIFY(!resolvePose(r, pose).ok());
}

void TestPose::poseFileParses()
{
    const QByteArray json = R"({"joints": {"lift": {"rotate": [10, 20, 30], "translate": [0, 1, 0], "scale": [1, 2, 1]}},
                                "morphs": {"swirl": 0.5}, "clip": 2, "time": 1.25})";
    auto p = rig::parsePose(json.toStdString(), "pose.json");
    QVERIFY(p.ok());
    const JointEdit& e = p->joints.at("lift");
    QCOMPARE(e.rotateDeg, glm::vec3(10, 20, 30));
    QCOMPARE(e.translate, glm::vec3(0, 1, 0));
    QCOMPARE(e.scale, glm::vec3(1, 2, 1));
    QCOMPARE(p->morphs.at("swirl"), 0.5f);
    QCOMPARE(p->clip, std::string("2"));
    QCOMPARE(p->time, 1.25);
}

void TestPose::poseFileErrors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("not json") << QByteArray("{\"joints\": ") << "not valid JSON";
    QTest::newRow("array") << QByteArray("[]") << "top level";
    QTest::newRow("unknown key") << QByteArray(R"({"jionts": {}})") << "jionts";
    QTest::newRow("short vector") << QByteArray(R"({"joints": {"a": {"rotate": [1, 2]}}})") << "joints.a.rotate";
    QTest::newRow("string number") << QByteArray(R"({"joints": {"a": {"scale": [1, "2", 1]}}})") << "joints.a.scale";
    QTest::newRow("bad joint key") << QByteArray(R"({"joints": {"a": {"rotation": [1, 2, 3]}}})") << "rotation";
    QTest::newRow("morph not number") << QByteArray(R"({"morphs": {"smile": "max"}})") << "morphs.smile";
    QTest::newRow("negative clip") << QByteArray(R"({"clip": -1})") << "clip";
    QTest::newRow("unknown rotate order") << QByteArray(R"({"joints": {"a": {"rotate_order": "xxy"}}})")
                                          << "joints.a.rotate_order";
    QTest::newRow("rotate order number") << QByteArray(R"({"joints": {"a": {"rotate_order": 2}}})")
                                         << "joints.a.rotate_order";
    QTest::newRow("time string") << QByteArray(R"({"time": "now"})") << "time";
}

void TestPose::poseFileErrors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, mentions);
    auto p = rig::parsePose(json.toStdString(), "bad.json");
    QVERIFY(!p.ok());
    const QString msg = QString::fromStdString(p.error());
    QVERIFY2(msg.startsWith(QLatin1String("bad.json: ")), qPrintable(msg));
    QVERIFY2(msg.contains(mentions), qPrintable(msg));
    QVERIFY(!msg.contains('\n'));
}

void TestPose::writtenPoseReadsBackEqual()
{
    // Every kind of value, including floats with no short decimal form, a clip by name, and a name with a quote.
    Pose pose;
    pose.joints["lift"].rotateDeg = glm::vec3(0.1f, -33.333333f, 1e-7f);
    pose.joints["lift"].translate = glm::vec3(0.0f, 0.25f, -3.0f);
    pose.joints["a \"quoted\" joint"].scale = glm::vec3(1.0f, 2.5f, 0.3f);
    pose.joints["untouched"] = JointEdit{}; // identity: left out of the file
    pose.morphs["swirl"] = 0.7f;
    pose.morphs["towel_twist"] = -1.0f;
    pose.clip = "wave";
    pose.time = 1.0 / 3.0;
    const std::string text = writePoseJson(pose);
    QVERIFY2(text.find("untouched") == std::string::npos, text.c_str());
    auto back = parsePose(text, "saved.json");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().c_str());
    QCOMPARE(back->joints.size(), size_t(2));
    QCOMPARE(back->joints.at("lift").rotateDeg, pose.joints["lift"].rotateDeg); // bit-exact floats
    QCOMPARE(back->joints.at("lift").translate, pose.joints["lift"].translate);
    QCOMPARE(back->joints.at("lift").scale, glm::vec3(1.0f));
    QCOMPARE(back->joints.at("a \"quoted\" joint").scale, glm::vec3(1.0f, 2.5f, 0.3f));
    QCOMPARE(back->morphs, pose.morphs);
    QCOMPARE(back->clip, std::string("wave"));
    QCOMPARE(back->time, 1.0 / 3.0);
    // The rest pose is an empty object.
    QCOMPARE(writePoseJson(Pose{}), std::string("{}\n"));
}

QTEST_GUILESS_MAIN(TestPose)
void TestPose::eulerFromMatrixRecoversAnglesNearTheHint()
{
    const glm::vec3 angles(30.0f, -40.0f, 125.0f);
    compareVec(eulerFromMatrixOrSelf(angles, glm::vec3(0.0f)), angles, 1e-3f);
    // The same rotation, asked near (360, 0, 0): X comes back as 390 rather than 30 (a drag past a full turn).
    compareVec(eulerFromMatrixOrSelf(angles, glm::vec3(360.0f, 0.0f, 0.0f)), angles + glm::vec3(360, 0, 0), 1e-3f);
    // Near -180 on Z the equivalent -235 is chosen.
    compareVec(eulerFromMatrixOrSelf(angles, glm::vec3(0.0f, 0.0f, -180.0f)), angles - glm::vec3(0, 0, 360), 1e-3f);
}

void TestPose::eulerFromMatrixAtGimbalLockKeepsX()
{
    // Y = +90: only X - Z is determined (X·Z combine). Asked near X = 20, X stays 20 and Z makes up the rest.
    for (float y : {90.0f, -90.0f}) {
        const glm::mat3 r = eulerXYZ(glm::vec3(50.0f, y, 10.0f));
        const glm::vec3 e = eulerXYZFromMatrix(r, glm::vec3(20.0f, y, 0.0f));
        RS_COMPARE_NEAR(e.x, 20.0f, 1e-3f);
        RS_COMPARE_NEAR(e.y, y, 1e-2f);
        const glm::mat3 back = eulerXYZ(e);
        for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 3; ++k)
                RS_COMPARE_NEAR(back[c][k], r[c][k], 1e-4f);
    }
}

void TestPose::axisAngleTurnsRightHanded()
{
    compareVec(axisAngle(glm::vec3(0, 0, 1), 90.0f) * glm::vec3(1, 0, 0), glm::vec3(0, 1, 0));
    compareVec(axisAngle(glm::vec3(1, 0, 0), 90.0f) * glm::vec3(0, 1, 0), glm::vec3(0, 0, 1));
    // An unnormalised axis is normalised; the axis itself is fixed.
    compareVec(axisAngle(glm::vec3(0, 2, 0), 37.0f) * glm::vec3(0, 1, 0), glm::vec3(0, 1, 0));
    compareVec(axisAngle(glm::vec3(1, 1, 0), 180.0f) * glm::vec3(1, 0, 0), glm::vec3(0, 1, 0));
}

void TestPose::boneAxisPointsToChildElseAwayFromParent()
{
    Rig r = twoNodeRig();
    // a's child b sits at (2, 0, 0) in a's frame.
    compareVec(boneAxis(r, 0), glm::vec3(1, 0, 0));
    // b is a leaf at (2, 0, 0) from a with no rotation of its own: the bone continues along +X.
    compareVec(boneAxis(r, 1), glm::vec3(1, 0, 0));
    // A leaf rotated 90° about Z: its offset (2,0,0) seen in its own frame is (0,-2,0).
    r.skeleton.nodes[1].rest.rotation = glm::angleAxis(glm::radians(90.0f), glm::vec3(0, 0, 1));
    compareVec(boneAxis(r, 1), glm::vec3(0, -1, 0));
    QCOMPARE(dominantAxis(glm::vec3(0.1f, -0.9f, 0.3f)), 1);
    QCOMPARE(dominantAxis(glm::vec3(0.1f, 0.2f, -0.3f)), 2);
    // Out of range: +X rather than a crash.
    compareVec(boneAxis(r, 7), glm::vec3(1, 0, 0));
}

void TestPose::lessonEditsActAboutTheBone()
{
    const glm::vec3 bone = glm::normalize(glm::vec3(0, 1, 0));
    // Twist 180 about Y: the bone is fixed and x flips.
    const JointEdit tw = twistEdit(bone, 180.0f);
    compareVec(eulerXYZ(tw.rotateDeg) * bone, bone);
    compareVec(eulerXYZ(tw.rotateDeg) * glm::vec3(1, 0, 0), glm::vec3(-1, 0, 0), 1e-4f);
    // Bend 90: the bone turns a right angle (about an axis perpendicular to it).
    const JointEdit bd = bendEdit(bone, 90.0f);
    RS_COMPARE_NEAR(glm::dot(eulerXYZ(bd.rotateDeg) * bone, bone), 0.0f, 1e-5f);
    // About a local axis the angles read as they were set: the twist on Y alone, the bend on Z alone; a bone along -X
    // twists by -θ about X. Off the axes they are decomposed, and still the same rotation.
    QCOMPARE(tw.rotateDeg, glm::vec3(0.0f, 180.0f, 0.0f));
    QCOMPARE(bd.rotateDeg, glm::vec3(0.0f, 0.0f, 90.0f));
    QCOMPARE(twistEdit(glm::vec3(-1, 0, 0), 90.0f).rotateDeg, glm::vec3(-90.0f, 0.0f, 0.0f));
    QCOMPARE(twistEdit(glm::vec3(0, 0, 1), 135.0f).rotateDeg, glm::vec3(0.0f, 0.0f, 135.0f));
    const glm::vec3 slanted = glm::normalize(glm::vec3(1, 1, 0));
    const JointEdit ts = twistEdit(slanted, 120.0f);
    compareVec(eulerXYZ(ts.rotateDeg) * slanted, slanted, 1e-5f);
    compareVec(eulerXYZ(ts.rotateDeg) * glm::vec3(0, 0, 1), axisAngle(slanted, 120.0f) * glm::vec3(0, 0, 1), 1e-5f);
    // Squash: the bone's axis (Y) gets `along`, the others `across`.
    const JointEdit sq = squashEdit(bone, 0.5f, 1.5f);
    compareVec(sq.scale, glm::vec3(1.5f, 0.5f, 1.5f));
    QVERIFY(sq.rotateDeg == glm::vec3(0.0f));
}

namespace {

/// The rotation about one axis by degrees, written out (columns), independent of eulerRotation.
glm::mat3 about(int axis, float degrees)
{
    const float t = glm::radians(degrees), c = std::cos(t), s = std::sin(t);
    glm::mat3 m(1.0f);
    const int i = (axis + 1) % 3, j = (axis + 2) % 3;
    m[i][i] = c, m[j][j] = c, m[i][j] = s, m[j][i] = -s; // right-handed: i turns towards j
    return m;
}

void compareMat(const glm::mat3& a, const glm::mat3& b, float tol = 1e-5f)
{
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            RS_COMPARE_NEAR(a[c][r], b[c][r], tol);
}

} // namespace

void TestPose::eachRotateOrderIsTheProductItNames_data()
{
    // Maya's names: the first letter rotates first, so it is the rightmost factor for column vectors.
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("first");
    QTest::addColumn<int>("second");
    QTest::addColumn<int>("third");
    QTest::newRow("xyz: Rz Ry Rx") << "xyz" << 0 << 1 << 2;
    QTest::newRow("yzx: Rx Rz Ry") << "yzx" << 1 << 2 << 0;
    QTest::newRow("zxy: Ry Rx Rz") << "zxy" << 2 << 0 << 1;
    QTest::newRow("xzy: Ry Rz Rx") << "xzy" << 0 << 2 << 1;
    QTest::newRow("yxz: Rz Rx Ry") << "yxz" << 1 << 0 << 2;
    QTest::newRow("zyx: Rx Ry Rz") << "zyx" << 2 << 1 << 0;
}

void TestPose::eachRotateOrderIsTheProductItNames()
{
    QFETCH(QString, name);
    QFETCH(int, first);
    QFETCH(int, second);
    QFETCH(int, third);
    RotateOrder order{};
    QVERIFY(parseRotateOrder(name.toStdString(), order));
    QCOMPARE(QString::fromLatin1(rotateOrderName(order)), name);
    QVERIFY(parseRotateOrder(name.toUpper().toStdString(), order));
    const glm::vec3 deg(31.0f, -57.0f, 112.0f);
    const glm::mat3 expected = about(third, deg[third]) * about(second, deg[second]) * about(first, deg[first]);
    compareMat(eulerRotation(deg, order), expected);
    // The six orders give six different rotations of these angles (the order matters).
    for (int o = 0; o < kRotateOrderCount; ++o)
        if (RotateOrder(o) != order) {
            const glm::mat3 other = eulerRotation(deg, RotateOrder(o));
            float diff = 0.0f;
            for (int c = 0; c < 3; ++c)
                diff = std::max(diff, glm::length(other[c] - expected[c]));
            QVERIFY2(diff > 0.1f, rotateOrderName(RotateOrder(o)));
        }
}

void TestPose::eulerFromMatrixInvertsEveryOrder()
{
    for (int o = 0; o < kRotateOrderCount; ++o) {
        const RotateOrder order = RotateOrder(o);
        const char* name = rotateOrderName(order);
        // Away from gimbal lock the angles come back exactly, and near a hint a full turn away they keep the turn.
        const glm::vec3 deg(25.0f, -40.0f, 70.0f);
        const glm::mat3 r = eulerRotation(deg, order);
        const glm::vec3 back = eulerFromMatrix(r, order, glm::vec3(0.0f));
        for (int i = 0; i < 3; ++i)
            QVERIFY2(std::fabs(back[i] - deg[i]) < 1e-3f, name);
        const int firstAxis = rotateOrderAxis(order, 0);
        glm::vec3 turned = deg;
        turned[firstAxis] += 360.0f;
        const glm::vec3 nearTurn = eulerFromMatrix(r, order, turned);
        for (int i = 0; i < 3; ++i)
            QVERIFY2(std::fabs(nearTurn[i] - turned[i]) < 1e-3f, name);
        // At gimbal lock (the middle axis at 90°) the first axis keeps the hint's angle and the rotation is the same.
        glm::vec3 locked(50.0f, 50.0f, 50.0f);
        locked[rotateOrderAxis(order, 1)] = 90.0f;
        glm::vec3 hint = locked;
        hint[firstAxis] = 20.0f;
        const glm::vec3 e = eulerFromMatrix(eulerRotation(locked, order), order, hint);
        QVERIFY2(std::fabs(e[firstAxis] - 20.0f) < 1e-3f, name);
        compareMat(eulerRotation(e, order), eulerRotation(locked, order), 1e-4f);
    }
}

void TestPose::rotateOrderAppliesInTheEvaluatedPose()
{
    // Node a's local rotation with an edit is rest * R(order). With (90, 90, 0) in yxz, Y turns first and sends z to x,
    // then X leaves x; in xyz, X turns first and sends z to -y, then Y leaves -y.
    const Rig r = twoNodeRig();
    Pose pose;
    pose.joints["a"].rotateDeg = {90, 90, 0};
    pose.joints["a"].rotateOrder = RotateOrder::YXZ;
    auto resolved = resolvePose(r, pose);
    QVERIFY(resolved.ok());
    std::vector<glm::mat4> world;
    evaluateWorld(r, resolved.value(), world);
    const glm::mat3 rest = glm::mat3_cast(r.skeleton.nodes[0].rest.rotation);
    compareVec(glm::mat3(world[0]) * glm::vec3(0, 0, 1), rest * glm::vec3(1, 0, 0));
    pose.joints["a"].rotateOrder = RotateOrder::XYZ;
    resolved = resolvePose(r, pose);
    evaluateWorld(r, resolved.value(), world);
    compareVec(glm::mat3(world[0]) * glm::vec3(0, 0, 1), rest * glm::vec3(0, -1, 0));
}

void TestPose::anOrderAloneLeavesTheJointAtItsBindPose()
{
    // Bind base: a joint whose edit only sets the order has no edit to apply, so it stays exactly at its bind pose
    // (skin matrices exactly the identity) and its world matrix is the one without the edit, bit for bit.
    Rig r = twoNodeRig();
    Skin skin;
    skin.joints = {0, 1};
    skin.inverseBind = {glm::inverse(r.skeleton.nodes[0].restMatrix),
                        glm::inverse(r.skeleton.nodes[0].restMatrix * r.skeleton.nodes[1].restMatrix)};
    r.skins = {skin};
    Pose plain;
    plain.base = PoseBase::Bind;
    Pose ordered = plain;
    ordered.joints["a"].rotateOrder = RotateOrder::ZYX;
    QVERIFY(!ordered.joints["a"].isIdentity());
    QVERIFY(!ordered.joints["a"].changesTransform());
    std::vector<glm::mat4> worldPlain, worldOrdered;
    std::vector<uint8_t> atBindPlain, atBindOrdered;
    evaluateWorld(r, resolvePose(r, plain).value(), worldPlain, &atBindPlain);
    evaluateWorld(r, resolvePose(r, ordered).value(), worldOrdered, &atBindOrdered);
    QCOMPARE(atBindOrdered, atBindPlain);
    QCOMPARE(atBindOrdered, std::vector<uint8_t>({1, 1}));
    for (size_t i = 0; i < worldPlain.size(); ++i)
        QVERIFY(worldOrdered[i] == worldPlain[i]);
}

void TestPose::rotateOrderRoundTripsThroughThePoseFile()
{
    Pose pose;
    pose.joints["lift"].rotateDeg = glm::vec3(10.0f, 20.0f, 30.0f);
    pose.joints["lift"].rotateOrder = RotateOrder::ZXY;
    pose.joints["order only"].rotateOrder = RotateOrder::YZX; // no angles yet: the order is still the joint's
    pose.joints["plain"].rotateDeg = glm::vec3(5.0f, 0.0f, 0.0f);
    const std::string text = writePoseJson(pose);
    QVERIFY2(text.find("\"rotate_order\": \"zxy\"") != std::string::npos, text.c_str());
    auto back = parsePose(text, "saved.json");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().c_str());
    QCOMPARE(back->joints.size(), size_t(3));
    QVERIFY(back->joints.at("lift").rotateOrder == RotateOrder::ZXY);
    QCOMPARE(back->joints.at("lift").rotateDeg, glm::vec3(10.0f, 20.0f, 30.0f));
    QVERIFY(back->joints.at("order only").rotateOrder == RotateOrder::YZX);
    // Absent: xyz, and xyz is not written, so every earlier pose file reads (and writes) as before.
    QVERIFY(back->joints.at("plain").rotateOrder == RotateOrder::XYZ);
    QCOMPARE(writePoseJson(back.value()), text);
    auto old = parsePose(R"({"joints": {"a": {"rotate": [1, 2, 3]}}})", "old.json");
    QVERIFY(old.ok());
    QVERIFY(old->joints.at("a").rotateOrder == RotateOrder::XYZ);
    QVERIFY(writePoseJson(old.value()).find("rotate_order") == std::string::npos);
}

void TestPose::lessonEditsKeepTheirAnglesInAnyOrder()
{
    // On a local axis the preset's angle stays on that axis in every order; off the axes the decomposition is in the
    // joint's order and still the rotation about the bone.
    const glm::vec3 slanted = glm::normalize(glm::vec3(1, 1, 0));
    for (int o = 0; o < kRotateOrderCount; ++o) {
        const RotateOrder order = RotateOrder(o);
        const JointEdit tw = twistEdit(glm::vec3(0, 1, 0), 180.0f, order);
        QVERIFY(tw.rotateOrder == order);
        QCOMPARE(tw.rotateDeg, glm::vec3(0.0f, 180.0f, 0.0f));
        const JointEdit ts = twistEdit(slanted, 120.0f, order);
        compareMat(eulerRotation(ts.rotateDeg, order), axisAngle(slanted, 120.0f), 1e-5f);
    }
}

#include "test_pose.moc"
