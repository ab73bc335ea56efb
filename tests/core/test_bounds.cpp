// Bounds (rig/deform/bounds.h): the exact box of an affine image (a shear bounded where the longest column is not),
// the per-bone box of the ramp turned 45° computed by hand, the sheet's morph targets inside the widened joint boxes,
// and CesiumMan's clip: every frame's per-bone box holds its positions, and the scan's unions are the frames' unions.
#include "testutil.h"

#include <cmath>

#include "rig/analysis/diagnosis/clip_scan.h"
#include "rig/deform/bounds.h"
#include "rig/deform/deform.h"
#include "rig/io/import.h"

using namespace rig;

namespace {

Bounds box(glm::vec3 lo, glm::vec3 hi)
{
    Bounds b;
    b.add(lo);
    b.add(hi);
    return b;
}

// The oracle: min/max over the positions, by hand.
Bounds linearBox(const Evaluation& e)
{
    glm::vec3 lo(1e30f), hi(-1e30f);
    for (const MeshEvaluation& me : e.meshes)
        for (const glm::vec3& p : me.linear.positions)
            for (int a = 0; a < 3; ++a)
                lo[a] = std::min(lo[a], p[a]), hi[a] = std::max(hi[a], p[a]);
    return box(lo, hi);
}

ResolvedPose resolved(const Rig& r, const Pose& p)
{
    auto rp = resolvePose(r, p);
    if (!rp)
        qFatal("%s", rp.error().c_str());
    return rp.value();
}

bool near(glm::vec3 a, glm::vec3 b, float tol)
{
    return glm::all(glm::lessThanEqual(glm::abs(a - b), glm::vec3(tol)));
}

QByteArray text(const Bounds& b)
{
    return QStringLiteral("[%1 %2 %3]..[%4 %5 %6]")
        .arg(b.min.x).arg(b.min.y).arg(b.min.z).arg(b.max.x).arg(b.max.y).arg(b.max.z)
        .toUtf8();
}

} // namespace

class TestBounds : public QObject {
    Q_OBJECT
private slots:
    void transformedBoxIsTheBoxOfTheEightCornersUnderShear()
    {
        // x' = x + y + z over the unit cube [-1, 1]³: x' reaches ±3. The longest column has length √2, so a box grown
        // by the longest column (√2 per axis) would stop at ±√2 · 1 and miss the corners.
        glm::mat4 shear(1.0f);
        shear[1][0] = 1.0f; // column y adds to x
        shear[2][0] = 1.0f; // column z adds to x
        shear[3] = glm::vec4(0.5f, -2.0f, 1.0f, 1.0f);
        const Bounds b = transformBounds(box(glm::vec3(-1.0f), glm::vec3(1.0f)), shear);
        QVERIFY2(near(b.min, {0.5f - 3.0f, -3.0f, 0.0f}, 1e-6f), text(b));
        QVERIFY2(near(b.max, {0.5f + 3.0f, -1.0f, 2.0f}, 1e-6f), text(b));
        const float longestColumn = std::sqrt(2.0f);
        QVERIFY(longestColumn * 1.0f < 3.0f - 1.0f); // the naive bound would be short by more than one unit

        // Any matrix: the box of its eight transformed corners.
        glm::mat4 m(glm::vec4(0.3f, -1.2f, 0.5f, 0.0f), glm::vec4(2.0f, 0.1f, -0.7f, 0.0f),
                    glm::vec4(-0.4f, 0.9f, 1.5f, 0.0f), glm::vec4(3.0f, 4.0f, -5.0f, 1.0f));
        const Bounds in = box({-0.5f, 1.0f, 2.0f}, {1.5f, 1.25f, 4.0f});
        Bounds corners;
        for (int c = 0; c < 8; ++c)
            corners.add(glm::vec3(m * glm::vec4(c & 1 ? in.max.x : in.min.x, c & 2 ? in.max.y : in.min.y,
                                                c & 4 ? in.max.z : in.min.z, 1.0f)));
        const Bounds out = transformBounds(in, m);
        QVERIFY2(near(out.min, corners.min, 1e-5f) && near(out.max, corners.max, 1e-5f), text(out) + " vs " + text(corners));
        QVERIFY(transformBounds(Bounds{}, m).empty());
    }

    void rampTurned45DegreesHasTwiceTheVolumeInItsPerBoneBox()
    {
        // The ramp's wedge fills half of its bind box [0,1] × [0,1] × [-0.5,0.5] in (x, y). Turned 45° about z, its
        // corners (1,0) and (1,1) go to (√½, √½) and (0, √2): the exact box is [0, √½] × [0, √2]; the per-bone box
        // also holds the empty corner (0,1) → (-√½, √½): [-√½, √½] × [0, √2], twice the volume.
        const Rig r = testutil::sample("ramp");
        const RigRuntime rt = buildRuntime(r, 4);
        QCOMPARE(rt.jointBoxes.size(), size_t(1));
        QCOMPARE(rt.jointBoxes[0].size(), size_t(2)); // root, and the identity no vertex uses
        QVERIFY(near(rt.jointBoxes[0][0].min, {0.0f, 0.0f, -0.5f}, 1e-6f) && near(rt.jointBoxes[0][0].max, {1.0f, 1.0f, 0.5f}, 1e-6f));
        QVERIFY(rt.jointBoxes[0][1].empty());

        Pose p;
        p.joints["root"].rotateDeg = {0.0f, 0.0f, 45.0f};
        Evaluation e;
        const Method linear[] = {Method::Linear};
        evaluate(r, rt, resolved(r, p), linear, {}, e);
        const float h = std::sqrt(0.5f);
        const Bounds exact = linearBox(e);
        QVERIFY2(near(exact.min, {0.0f, 0.0f, -0.5f}, 1e-5f) && near(exact.max, {h, 2.0f * h, 0.5f}, 1e-5f), text(exact));
        const Bounds perBone = perBoneBounds(r, rt.jointBoxes, e.world);
        QVERIFY2(near(perBone.min, {-h, 0.0f, -0.5f}, 1e-5f) && near(perBone.max, {h, 2.0f * h, 0.5f}, 1e-5f), text(perBone));
        QVERIFY(std::fabs(volumeRatio(perBone, exact) - 2.0) < 1e-4);
        QVERIFY(containsBounds(perBone, exact, 1e-6f));
        QVERIFY(!containsBounds(exact, perBone, 1e-6f));
    }

    void sheetMorphTargetsStayInsideTheWidenedJointBoxes()
    {
        // The sheet's morph targets move vertices off the plane before skinning: without widening the joint boxes by
        // the deltas, the flat bind boxes would not hold any of them.
        const Rig r = testutil::sample("sheet");
        const RigRuntime rt = buildRuntime(r, 4);
        const Method linear[] = {Method::Linear};
        QVERIFY(!r.meshes[0].morphTargets.empty());
        Bounds bindOnly;
        for (const glm::vec3& p : r.meshes[0].positions)
            bindOnly.add(p);
        for (size_t t = 0; t <= r.meshes[0].morphTargets.size(); ++t) {
            Pose p;
            for (size_t i = 0; i < r.meshes[0].morphTargets.size(); ++i)
                if (i == t || t == r.meshes[0].morphTargets.size()) // one target alone, then all of them
                    p.morphs[r.meshes[0].morphTargets[i].name] = 1.0f;
            Evaluation e;
            evaluate(r, rt, resolved(r, p), linear, {}, e);
            const Bounds exact = linearBox(e);
            const Bounds perBone = perBoneBounds(r, rt.jointBoxes, e.world, e.skinPalettes);
            QVERIFY2(containsBounds(perBone, exact, 1e-5f * float(exact.diagonal())), text(perBone) + " vs " + text(exact));
            QVERIFY2(!containsBounds(bindOnly, exact, 1e-4f), "the target moves the sheet out of its bind box");
        }
    }

    void cesiumManClipFramesStayInsideTheirPerBoneBoxesAndTheScanUnitesThem()
    {
        REQUIRE_ASSETS();
        auto loaded = importFile(testutil::assetPath("CesiumMan/cesium_man.gltf"));
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().c_str());
        const Rig& r = loaded.value();
        QVERIFY(!r.clips.empty());
        const RigRuntime rt = buildRuntime(r, 4);
        ResolvedPose base = resolved(r, Pose{});
        base.clip = 0;
        const Method linear[] = {Method::Linear};
        const float step = 0.25f;
        auto scanned = scanClip(r, rt, base, 0, linear, step);
        QVERIFY2(scanned.ok(), scanned.ok() ? "" : scanned.error().c_str());
        const ClipScan& scan = scanned.value();
        QVERIFY(scan.times.size() >= 5);

        Bounds exactUnion, perBoneUnion;
        double looseness = 0.0;
        Evaluation e;
        for (float t : scan.times) {
            ResolvedPose p = base;
            p.time = t;
            evaluate(r, rt, p, linear, {}, e);
            const Bounds exact = linearBox(e);
            const Bounds perBone = perBoneBounds(r, rt.jointBoxes, e.world, e.skinPalettes);
            QVERIFY2(containsBounds(perBone, exact, 1e-5f * float(exact.diagonal())),
                     qPrintable(QStringLiteral("t = %1: ").arg(t) + text(perBone) + " vs " + text(exact)));
            // CesiumMan's weights are spread: a joint's box covers more than its share, so the per-bone box is looser.
            QVERIFY(volumeRatio(perBone, exact) > 1.01);
            exactUnion.add(exact);
            perBoneUnion.add(perBone);
            looseness += volumeRatio(perBone, exact);
        }
        QCOMPARE(scan.exactUnion.min, exactUnion.min);
        QCOMPARE(scan.exactUnion.max, exactUnion.max);
        QCOMPARE(scan.perBoneUnion.min, perBoneUnion.min);
        QCOMPARE(scan.perBoneUnion.max, perBoneUnion.max);
        QVERIFY(std::fabs(scan.meanPerBoneVolumeRatio - looseness / double(scan.times.size())) < 1e-9 * looseness);
        // The walk moves: one box for the whole clip is larger than the box of a frame.
        QVERIFY2(scan.meanUnionVolumeRatio > 1.05, qPrintable(QString::number(scan.meanUnionVolumeRatio)));
    }
};

QTEST_MAIN(TestBounds)
#include "test_bounds.moc"
