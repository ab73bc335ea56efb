// The center-of-rotation method (Le & Hodgins 2016): its precomputed centres against an all-pairs oracle and the
// symmetry of the twist tube, and its skinning against what it must do — keep a twisted limb's radius, move a rigid
// rig rigidly, fall back to the linear blend where a joint is mirrored. One test per invalid setup of its jobs.
#include "testutil.h"
#include "oracle_centers.h"

#include <atomic>

#include "rig/deform/centers_of_rotation.h"
#include "rig/deform/deform.h"
#include "rig/deform/joint_frames.h"
#include "rig/deform/skinning.h"
#include "rig/io/import.h"
#include "rig/model/pose.h"

#include <glm/gtc/matrix_transform.hpp>

using namespace rig;

namespace {

Evaluation evaluateTwist(const Rig& rig, const RigRuntime& rt, float degrees)
{
    Pose pose;
    pose.joints["twist"].rotateDeg = glm::vec3(degrees, 0.0f, 0.0f);
    auto resolved = resolvePose(rig, pose);
    if (!resolved)
        qFatal("pose: %s", resolved.error().c_str());
    Evaluation e;
    evaluate(rig, rt, resolved.value(), allMethods(), DeformSettings{}, e);
    return e;
}

/// The runtime weights of vertex v as a map (joint → weight > 0), for the oracle.
testoracle::WeightMap weightMap(const InfluenceStream& s, size_t v)
{
    testoracle::WeightMap w;
    const size_t k = size_t(s.perVertex);
    for (size_t i = 0; i < k; ++i)
        if (s.weights[v * k + i] > 0.0f)
            w[s.joints[v * k + i]] += double(s.weights[v * k + i]);
    return w;
}

/// A job over `mesh` of `rig` with the palette `palette` (every matrix given), reading `rt`'s stream and centres.
struct PaletteJob {
    std::vector<JointFrame> frames;
    std::vector<glm::vec3> positions, normals;
    std::vector<uint8_t> flags;
    SkinJob job;
    PaletteJob(const Rig& rig, const RigRuntime& rt, Method m, const std::vector<glm::mat4>& palette)
    {
        const Mesh& mesh = rig.meshes[0];
        const MeshRuntime& mr = rt.meshes[0];
        frames.resize(palette.size());
        buildJointFrames(palette, frames);
        const size_t n = mesh.vertexCount();
        positions.resize(n);
        normals.resize(n);
        flags.resize(n);
        job.method = m;
        job.palette = frames;
        job.influencesPerVertex = mr.stream.perVertex;
        job.joints = mr.stream.joints;
        job.weights = mr.stream.weights;
        job.gradients = mr.gradients.view();
        job.centers = mr.centers;
        job.positions = mesh.positions;
        job.normals = mesh.normals;
        job.outPositions = positions;
        job.outNormals = normals;
        job.outFlags = flags;
    }
};

Rig importOrFail(const std::string& path)
{
    ImportOptions o;
    o.isolate = false;
    auto r = importFile(path, o);
    if (!r)
        qFatal("%s: %s", path.c_str(), r.error().c_str());
    return std::move(r.value());
}

CenterOfRotationJob validJob(const std::vector<glm::vec3>& p, const std::vector<uint32_t>& idx,
                             const std::vector<uint16_t>& j, const std::vector<float>& w, std::vector<glm::vec3>& out)
{
    CenterOfRotationJob job;
    job.positions = p;
    job.indices = idx;
    job.influencesPerVertex = 4;
    job.joints = j;
    job.weights = w;
    job.outCenters = out;
    return job;
}

} // namespace

class TestCenterOfRotation : public QObject {
    Q_OBJECT
private slots:
    void twistTubeCentresLieOnTheBoneAxisAndTheHalfWeightRingAtTheBandMiddle()
    {
        const Rig rig = testutil::sample("twist_tube");
        const RigRuntime rt = buildRuntime(rig, 4);
        const Mesh& mesh = rig.meshes[0];
        const MeshRuntime& mr = rt.meshes[0];
        QCOMPARE(mr.centers.size(), mesh.vertexCount());
        size_t blended = 0, middle = 0;
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            const bool twoJoints = weightMap(mr.stream, v).size() == 2;
            QCOMPARE(bool(mr.centerDefined[v]), twoJoints);
            if (!twoJoints) {
                QCOMPARE(mr.centers[v], mesh.positions[v]); // no centre: the vertex's own position
                continue;
            }
            ++blended;
            // The ring is symmetric about the axis: every centre is on it.
            QVERIFY2(std::fabs(mr.centers[v].y) < 1e-5f && std::fabs(mr.centers[v].z) < 1e-5f,
                     qPrintable(QStringLiteral("v%1 centre (%2, %3, %4) off the axis").arg(v).arg(mr.centers[v].x)
                                    .arg(mr.centers[v].y).arg(mr.centers[v].z)));
            // The band (x from 0.5 to 1.5) is symmetric about x = 1 with the weights swapped: the 0.5 / 0.5 ring's
            // centre is its middle.
            if (std::fabs(mesh.positions[v].x - 1.0f) < 1e-6f) {
                ++middle;
                QVERIFY2(std::fabs(mr.centers[v].x - 1.0f) < 1e-5f, qPrintable(QString::number(mr.centers[v].x)));
            }
            // A vertex's centre stays within the band, towards the joint that weighs it most.
            QVERIFY(mr.centers[v].x > 0.5f && mr.centers[v].x < 1.5f);
        }
        QCOMPARE(middle, size_t(33)); // 32 around and the seam column
        QVERIFY(blended > 500);
    }

    void centresEqualTheAllPairsSumOnARealRig()
    {
        REQUIRE_ASSETS();
        const Rig rig = importOrFail(testutil::assetPath("CesiumMan/cesium_man.gltf"));
        const RigRuntime rt = buildRuntime(rig, 4);
        const Mesh& mesh = rig.meshes[0];
        const MeshRuntime& mr = rt.meshes[0];
        std::vector<glm::dvec3> p(mesh.positions.begin(), mesh.positions.end());
        std::vector<testoracle::WeightMap> w(mesh.vertexCount());
        for (size_t v = 0; v < w.size(); ++v)
            w[v] = weightMap(mr.stream, v);
        const testoracle::CenterOracle oracle(p, mesh.indices, w, kCenterOfRotationSigma);
        double extent = 0.0;
        for (const glm::dvec3& x : p)
            extent = std::max({extent, std::fabs(x.x), std::fabs(x.y), std::fabs(x.z)});
        // The oracle is O(vertices x triangles): every 8th vertex against every triangle.
        size_t checked = 0;
        for (size_t v = 0; v < mesh.vertexCount(); v += 8) {
            const std::optional<glm::dvec3> c = oracle.center(w[v]);
            QCOMPARE(bool(mr.centerDefined[v]), c.has_value());
            if (!c)
                continue;
            const double d = glm::length(glm::dvec3(mr.centers[v]) - *c);
            QVERIFY2(d < 1e-5 * extent, qPrintable(QStringLiteral("v%1 centre off by %2 (extent %3)").arg(v).arg(d).arg(extent)));
            ++checked;
        }
        QVERIFY2(checked > 100, qPrintable(QString::number(checked)));
    }

    void centresByCellsStayCloseToTheExactSumOnARealRig()
    {
        // Every list summed by cells (none is long enough on CesiumMan to be by default): the centres move by a small
        // fraction of the model's size.
        REQUIRE_ASSETS();
        const Rig rig = importOrFail(testutil::assetPath("CesiumMan/cesium_man.gltf"));
        const RigRuntime rt = buildRuntime(rig, 4);
        const Mesh& mesh = rig.meshes[0];
        const MeshRuntime& mr = rt.meshes[0];
        std::vector<glm::vec3> cells(mesh.vertexCount());
        std::vector<uint8_t> defined(mesh.vertexCount());
        CenterOfRotationJob job = validJob(mesh.positions, mesh.indices, mr.stream.joints, mr.stream.weights, cells);
        job.outDefined = defined;
        job.exactEntries = 0;
        QVERIFY(job.run());
        float extent = 0.0f;
        for (const glm::vec3& p : mesh.positions)
            extent = std::max({extent, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
        double worst = 0.0, sum = 0.0;
        size_t count = 0;
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            QCOMPARE(defined[v], mr.centerDefined[v]);
            if (!defined[v])
                continue;
            const double d = glm::length(cells[v] - mr.centers[v]) / extent;
            worst = std::max(worst, d);
            sum += d;
            ++count;
        }
        QVERIFY(count > 1000);
        QVERIFY2(worst < 1e-3 && sum / double(count) < 1e-4,
                 qPrintable(QStringLiteral("by cells: worst %1, mean %2 of the extent").arg(worst).arg(sum / double(count))));
        qInfo("CesiumMan centres by cells: worst %.2e, mean %.2e of the extent", worst, sum / double(count));
    }

    void twistKeepsTheLimbRadiusWhereLinearBlendingCollapsesIt_data()
    {
        QTest::addColumn<float>("degrees");
        QTest::newRow("90") << 90.0f;
        QTest::newRow("150") << 150.0f;
        QTest::newRow("180") << 180.0f;
    }
    void twistKeepsTheLimbRadiusWhereLinearBlendingCollapsesIt()
    {
        QFETCH(float, degrees);
        const Rig rig = testutil::sample("twist_tube");
        const RigRuntime rt = buildRuntime(rig, 4);
        const Evaluation e = evaluateTwist(rig, rt, degrees);
        const Mesh& mesh = rig.meshes[0];
        const double half = 0.5 * double(degrees) * 3.14159265358979323846 / 180.0;
        size_t ring = 0;
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            if (std::fabs(mesh.positions[v].x - 1.0f) > 1e-6f)
                continue; // the 0.5 / 0.5 ring
            ++ring;
            const glm::vec3 rest = mesh.positions[v];
            const glm::vec3 cor = e.meshes[0].centerOfRotation.positions[v];
            const glm::vec3 lin = e.meshes[0].linear.positions[v];
            // Turned by half the twist about the bone, on its own radius, in its own plane.
            QVERIFY2(std::fabs(glm::length(glm::vec2(cor.y, cor.z)) - 0.25f) < 2e-5f, qPrintable(QString::number(glm::length(glm::vec2(cor.y, cor.z)))));
            QVERIFY(std::fabs(cor.x - 1.0f) < 2e-5f);
            // At 180° the two joints' rotations are a quarter of the sphere apart either way: the blend turns by a
            // quarter turn, in the direction the twist joint's quaternion sign gives.
            const double sense = degrees == 180.0f && (cor.y * rest.z - cor.z * rest.y) > 0.0f ? -1.0 : 1.0;
            const double expectedY = double(rest.y) * std::cos(half) - sense * double(rest.z) * std::sin(half);
            const double expectedZ = sense * double(rest.y) * std::sin(half) + double(rest.z) * std::cos(half);
            QVERIFY2(std::fabs(cor.y - expectedY) < 2e-5 && std::fabs(cor.z - expectedZ) < 2e-5,
                     qPrintable(QStringLiteral("v%1 (%2, %3) not (%4, %5)").arg(v).arg(cor.y).arg(cor.z).arg(expectedY).arg(expectedZ)));
            // Linear blending shrinks the same ring to cos(θ/2) of its radius.
            QVERIFY(std::fabs(glm::length(glm::vec2(lin.y, lin.z)) - 0.25 * std::cos(half)) < 2e-5);
            // Its normal: the rest one turned the same way (the blended rotation).
            const glm::vec3 n = e.meshes[0].methods[size_t(Method::CenterOfRotation)].normals[v];
            QVERIFY(std::fabs(n.y - float(expectedY / 0.25)) < 1e-4f && std::fabs(n.z - float(expectedZ / 0.25)) < 1e-4f);
        }
        QCOMPARE(ring, size_t(33));
        // Off the band the method is the linear blend: one joint, one rigid motion.
        for (size_t v = 0; v < mesh.vertexCount(); ++v)
            if (mesh.positions[v].x < 0.45f || mesh.positions[v].x > 1.55f)
                QVERIFY(glm::length(e.meshes[0].centerOfRotation.positions[v] - e.meshes[0].linear.positions[v]) < 1e-5f);
        // The method's error is measured against the reference of its own positions.
        QVERIFY(e.stats[size_t(Method::CenterOfRotation)].normal.defined > 0);
    }

    void rigidMotionOfEveryJointMovesARealRigRigidly()
    {
        REQUIRE_ASSETS();
        const Rig rig = importOrFail(testutil::assetPath("Fox/Fox.glb"));
        const RigRuntime rt = buildRuntime(rig, 4);
        const glm::mat4 m = glm::translate(glm::mat4(1.0f), glm::vec3(3.0f, -40.0f, 12.5f)) *
                            glm::rotate(glm::mat4(1.0f), glm::radians(70.0f), glm::normalize(glm::vec3(1, 2, 3)));
        const std::vector<glm::mat4> palette(rt.meshes[0].stream.paletteSize, m);
        PaletteJob pj(rig, rt, Method::CenterOfRotation, palette);
        QVERIFY(pj.job.validate());
        pj.job.run();
        const Mesh& mesh = rig.meshes[0];
        float extent = 0.0f;
        for (const glm::vec3& p : mesh.positions)
            extent = std::max({extent, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
        size_t blended = 0;
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            blended += rt.meshes[0].centerDefined[v];
            const glm::vec3 want = glm::vec3(m * glm::vec4(mesh.positions[v], 1.0f));
            QVERIFY2(glm::length(pj.positions[v] - want) < 2e-6f * (extent + 40.0f),
                     qPrintable(QStringLiteral("v%1 off by %2").arg(v).arg(glm::length(pj.positions[v] - want))));
            const glm::vec3 n = safeNormalize(glm::mat3(m) * mesh.normals[v]);
            QVERIFY(glm::length(pj.normals[v] - n) < 1e-5f);
            QCOMPARE(pj.flags[v], uint8_t(SkinFlagNone));
        }
        QVERIFY2(blended > 500, "the rig's blended vertices are the ones whose centre matters");
    }

    void mirroredJointFallsBackToTheLinearBlend()
    {
        const Rig rig = testutil::sample("twist_tube");
        const RigRuntime rt = buildRuntime(rig, 4);
        std::vector<glm::mat4> palette(rt.meshes[0].stream.paletteSize, glm::mat4(1.0f));
        palette[1] = glm::scale(glm::mat4(1.0f), glm::vec3(-1.0f, 1.0f, 1.0f)); // the twist joint, mirrored
        PaletteJob cor(rig, rt, Method::CenterOfRotation, palette);
        PaletteJob lin(rig, rt, Method::Linear, palette);
        cor.job.run();
        lin.job.run();
        size_t fallback = 0;
        for (size_t v = 0; v < cor.positions.size(); ++v) {
            const bool touched = weightMap(rt.meshes[0].stream, v).count(1) != 0;
            QCOMPARE(cor.flags[v], uint8_t(touched ? SkinFlagDqFallback : SkinFlagNone));
            fallback += touched;
            if (touched)
                QCOMPARE(cor.positions[v], lin.positions[v]);
        }
        QVERIFY(fallback > 0);
    }

    void skinJobWithoutCentresIsInvalid()
    {
        const Rig rig = testutil::sample("twist_tube");
        const RigRuntime rt = buildRuntime(rig, 4);
        PaletteJob pj(rig, rt, Method::CenterOfRotation, std::vector<glm::mat4>(rt.meshes[0].stream.paletteSize, glm::mat4(1.0f)));
        QVERIFY(pj.job.validate());
        pj.job.centers = {};
        QVERIFY(!pj.job.validate());
        pj.job.centers = std::span(rt.meshes[0].centers).first(rt.meshes[0].centers.size() - 1);
        QVERIFY(!pj.job.validate());
        pj.job.method = Method::Linear; // the other methods do not read them
        QVERIFY(pj.job.validate());
    }

    void centreJobRejectsEachInvalidSetup_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("weights shorter than the vertices") << 0;
        QTest::newRow("joints shorter than the vertices") << 1;
        QTest::newRow("outputs shorter than the vertices") << 2;
        QTest::newRow("defined flags of another size") << 3;
        QTest::newRow("a partial triangle") << 4;
        QTest::newRow("sigma zero") << 5;
        QTest::newRow("sigma not finite") << 6;
        QTest::newRow("no influences per vertex") << 7;
    }
    void centreJobRejectsEachInvalidSetup()
    {
        QFETCH(int, which);
        const std::vector<glm::vec3> p = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
        std::vector<uint32_t> idx = {0, 1, 2};
        const std::vector<uint16_t> j(12, 0);
        const std::vector<float> w = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
        std::vector<glm::vec3> out(3);
        std::vector<uint8_t> defined(2);
        CenterOfRotationJob job = validJob(p, idx, j, w, out);
        QVERIFY(job.validate());
        switch (which) {
        case 0: job.weights = std::span(w).first(11); break;
        case 1: job.joints = std::span(j).first(8); break;
        case 2: job.outCenters = std::span(out).first(2); break;
        case 3: job.outDefined = defined; break;
        case 4: idx.push_back(1); job.indices = idx; break;
        case 5: job.sigma = 0.0f; break;
        case 6: job.sigma = std::numeric_limits<float>::infinity(); break;
        case 7: job.influencesPerVertex = 0; break;
        }
        QVERIFY(!job.validate());
    }

    void centreJobStopsWhenCancelledAndCountsItsProgress()
    {
        const Rig rig = testutil::sample("twist_tube");
        const Mesh& mesh = rig.meshes[0];
        const RigRuntime rt = buildRuntime(rig, 4);
        std::vector<glm::vec3> out(mesh.vertexCount());
        CenterOfRotationJob job = validJob(mesh.positions, mesh.indices, rt.meshes[0].stream.joints,
                                           rt.meshes[0].stream.weights, out);
        std::atomic<size_t> done{0};
        std::atomic<bool> cancel{false};
        job.verticesDone = &done;
        job.cancel = &cancel;
        QVERIFY(job.run());
        QCOMPARE(done.load(), mesh.vertexCount());
        for (size_t v = 0; v < out.size(); ++v)
            QCOMPARE(out[v], rt.meshes[0].centers[v]); // the same job buildRuntime ran
        cancel = true;
        done = 0;
        QVERIFY(!job.run());
        QCOMPARE(done.load(), size_t(0));
    }

    void triangleWithAnIndexOutOfRangeIsSkipped()
    {
        // Two triangles blending joints 0 and 1; a third names vertex 9 of 4: skipped, never read.
        const std::vector<glm::vec3> p = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
        const std::vector<uint32_t> idx = {0, 1, 2, 1, 3, 2, 0, 9, 2};
        std::vector<uint16_t> j(16, 0);
        std::vector<float> w(16, 0.0f);
        for (size_t v = 0; v < 4; ++v) {
            j[4 * v] = 0, j[4 * v + 1] = 1;
            w[4 * v] = 0.5f, w[4 * v + 1] = 0.5f;
        }
        std::vector<glm::vec3> out(4);
        CenterOfRotationJob job = validJob(p, idx, j, w, out);
        QVERIFY(job.run());
        // Equal weights everywhere: the similarity is the same for both triangles, of equal area: the square's middle.
        for (const glm::vec3& c : out)
            QVERIFY(glm::length(c - glm::vec3(0.5f, 0.5f, 0.0f)) < 1e-6f);
    }
};

QTEST_MAIN(TestCenterOfRotation)
#include "test_center_of_rotation.moc"
