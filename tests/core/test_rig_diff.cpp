// Rig diff (rig/qa/rig_diff.h) on versions made by hand from the built-in rigs, with the changes known exactly, and
// `rigscope diff` end to end on two glTF files written here: exit status, JSON and the summary.
#include "testutil.h"
#include "gltf_files.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <algorithm>

#include "rig/qa/rig_diff.h"

using namespace rig;

namespace {

/// Replaces vertex v's raw influences of mesh 0 by `in` (rebuilding the CSR).
void setInfluences(Rig& r, size_t v, const std::vector<Influence>& in)
{
    Mesh& m = r.meshes[0];
    std::vector<Influence> out;
    std::vector<uint32_t> offsets{0};
    for (size_t i = 0; i < m.vertexCount(); ++i) {
        if (i == v)
            out.insert(out.end(), in.begin(), in.end());
        else
            out.insert(out.end(), m.influences.begin() + m.influenceOffsets[i], m.influences.begin() + m.influenceOffsets[i + 1]);
        offsets.push_back(uint32_t(out.size()));
    }
    m.influences = std::move(out);
    m.influenceOffsets = std::move(offsets);
}

const MethodErrorDiff& methodAt(const RigDiff& d, const std::string& pose, Method m)
{
    for (const PoseDiff& p : d.poses)
        if (p.name == pose)
            for (const MethodErrorDiff& x : p.methods)
                if (x.method == m)
                    return x;
    qFatal("no pose %s", pose.c_str());
}

testutil::RigscopeOutput diffCli(const QStringList& args)
{
    return testutil::runRigscope(QStringList{"diff"} + args);
}

} // namespace

class TestRigDiff : public QObject {
    Q_OBJECT
private slots:
    void aRigAgreesWithItself()
    {
        const Rig a = testutil::sample("elbow");
        auto d = diffRigs(a, a, {});
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().c_str());
        QCOMPARE(d.value().match, VertexMatch::Order);
        QCOMPARE(d.value().matched, a.vertexCount());
        QCOMPARE(d.value().weightChangedVertices, size_t(0));
        QCOMPARE(d.value().maxWeightChange, 0.0f);
        QCOMPARE(d.value().errorChanges, size_t(0));
        QVERIFY(!d.value().differs());
        // The rest pose and the elbow's clip "bend"; the bend's linear error is the same non-zero number in both.
        QCOMPARE(d.value().poses.size(), size_t(2));
        const MethodErrorDiff& lin = methodAt(d.value(), "clip:bend", Method::Linear);
        QVERIFY(lin.p95A > 1.0);
        QCOMPARE(lin.p95B, lin.p95A);
    }

    void oneEditedVertexIsTheOnlyChangeAndItsSizeIsExact()
    {
        // Vertex 100: A 0.5 / 0.5, B 0.25 / 0.75 between the elbow's two joints: a change of exactly 0.25 on each.
        // Vertex 200: A {j0: 1}, B {j0: 2}: the same once normalised, so no change.
        Rig a = testutil::sample("elbow"), b = a;
        setInfluences(a, 100, {{0, 0.5f}, {1, 0.5f}});
        setInfluences(b, 100, {{0, 0.25f}, {1, 0.75f}});
        setInfluences(a, 200, {{0, 1.0f}});
        setInfluences(b, 200, {{0, 2.0f}});
        auto d = diffWeights(a, b, {});
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().c_str());
        QCOMPARE(d.value().weightChangedVertices, size_t(1));
        QCOMPARE(d.value().maxWeightChange, 0.25f);
        QCOMPARE(d.value().maxWeightChangeVertex, int64_t(100));
        QCOMPARE(d.value().weightChange[100], 0.25f);
        QCOMPARE(d.value().weightChange[200], 0.0f);
        QCOMPARE(d.value().jointChanges.size(), size_t(2)); // both joints, one vertex each
        for (const JointWeightChange& j : d.value().jointChanges)
            QVERIFY(j.vertices == 1 && j.maxChange == 0.25f);
        QVERIFY(d.value().differs());
        // Under the threshold it is no change.
        RigDiffOptions loose;
        loose.weightThreshold = 0.3f;
        QVERIFY(!diffWeights(a, b, loose).value().differs());
    }

    void reorderedVerticesMatchByPositionAndNotByOrder()
    {
        // B is A with its vertices in reverse order (the triangles renumbered): the same rig. Position matching finds
        // every vertex and no change; order matching sees moved vertices and changed weights.
        const Rig a = testutil::sample("elbow");
        Rig b = a;
        Mesh& m = b.meshes[0];
        const size_t n = m.vertexCount();
        auto reversed = [n](auto& v) { std::reverse(v.begin(), v.end()); };
        reversed(m.positions);
        reversed(m.normals);
        reversed(m.tangents);
        reversed(m.uvs);
        for (uint32_t& i : m.indices)
            i = uint32_t(n - 1 - i);
        std::vector<Influence> in;
        std::vector<uint32_t> off{0};
        for (size_t v = n; v-- > 0;) {
            in.insert(in.end(), a.meshes[0].influences.begin() + a.meshes[0].influenceOffsets[v],
                      a.meshes[0].influences.begin() + a.meshes[0].influenceOffsets[v + 1]);
            off.push_back(uint32_t(in.size()));
        }
        m.influences = in;
        m.influenceOffsets = off;
        RigDiffOptions byPosition;
        byPosition.match = VertexMatch::Position;
        auto d = diffWeights(a, b, byPosition);
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().c_str());
        QCOMPARE(d.value().matched, n);
        QCOMPARE(d.value().unmatchedA, size_t(0));
        QCOMPARE(d.value().weightChangedVertices, size_t(0));
        QVERIFY(!d.value().differs());
        auto byOrder = diffWeights(a, b, {}); // auto: the counts agree, so order
        QCOMPARE(byOrder.value().match, VertexMatch::Order);
        QVERIFY(byOrder.value().movedVertices > n / 2);
        QVERIFY(byOrder.value().weightChangedVertices > 0);
    }

    void renamedJointIsRemovedAndAddedAndAMovedOneIsListed()
    {
        const Rig a = testutil::sample("elbow");
        Rig b = a;
        const int lower = b.skeleton.find("lower");
        QVERIFY(lower >= 0);
        b.skeleton.nodes[size_t(lower)].name = "forearm";
        auto d = diffWeights(a, b, {});
        QCOMPARE(d.value().jointsRemoved, std::vector<std::string>{"lower"});
        QCOMPARE(d.value().jointsAdded, std::vector<std::string>{"forearm"});
        QVERIFY(d.value().differs());
        // The weights follow the names: the lower arm's vertices lose "lower" and gain "forearm".
        QVERIFY(d.value().maxWeightChange == 1.0f);

        // A joint whose bind position moves by 0.5 along y (its inverse bind matrix says so).
        Rig c = a;
        const Skin& skin = c.skins[0];
        const auto it = std::find(skin.joints.begin(), skin.joints.end(), lower);
        QVERIFY(it != skin.joints.end());
        glm::mat4& ibm = c.skins[0].inverseBind[size_t(it - skin.joints.begin())];
        glm::mat4 bind = glm::inverse(ibm);
        bind[3] += glm::vec4(0.0f, 0.5f, 0.0f, 0.0f);
        ibm = glm::inverse(bind);
        auto moved = diffWeights(a, c, {});
        QCOMPARE(moved.value().jointsMoved.size(), size_t(1));
        QCOMPARE(moved.value().jointsMoved[0].name, std::string("lower"));
        RS_COMPARE_NEAR(moved.value().jointsMoved[0].bindMoved, 0.5, 1e-5);
    }

    void rigidWeightsRaiseTheBendsErrorChange()
    {
        // Every vertex of B follows one joint (the largest of A's weights, at 1): the elbow's blend is gone, so the
        // bend's linear error changes by more than a degree, and the report counts it.
        const Rig a = testutil::sample("elbow");
        Rig b = a;
        for (size_t v = 0; v < b.meshes[0].vertexCount(); ++v) {
            const Mesh& m = a.meshes[0];
            Influence best{0, 0.0f};
            for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i)
                if (m.influences[i].weight > best.weight)
                    best = m.influences[i];
            setInfluences(b, v, {{best.joint, 1.0f}});
        }
        auto d = diffRigs(a, b, {});
        QVERIFY2(d.ok(), d.ok() ? "" : d.error().c_str());
        const MethodErrorDiff& lin = methodAt(d.value(), "clip:bend", Method::Linear);
        QVERIFY2(std::fabs(lin.p95B - lin.p95A) > 1.0, qPrintable(QStringLiteral("%1 vs %2").arg(lin.p95A).arg(lin.p95B)));
        QVERIFY(d.value().errorChanges > 0);
        // At rest nothing is bent: no change there.
        const MethodErrorDiff& rest = methodAt(d.value(), "rest", Method::Linear);
        QCOMPARE(rest.p95A, rest.p95B);
    }

    void aPoseNamingAJointOneVersionLacksFailsNamingIt()
    {
        const Rig a = testutil::sample("elbow");
        Rig b = a;
        b.skeleton.nodes[size_t(b.skeleton.find("lower"))].name = "forearm";
        RigDiffOptions o;
        Pose p;
        p.joints["lower"].rotateDeg = {0.0f, 0.0f, 45.0f};
        o.poses.emplace_back("bend45.json", p);
        auto d = diffRigs(a, b, o);
        QVERIFY(!d.ok());
        QVERIFY2(d.error().find("bend45.json") != std::string::npos && d.error().find(" B") != std::string::npos &&
                     d.error().find("lower") != std::string::npos,
                 d.error().c_str());
        RigDiffOptions bad;
        bad.weightThreshold = -1.0f;
        QVERIFY(!diffWeights(a, a, bad).ok());
        RigDiffOptions order;
        order.match = VertexMatch::Order;
        QVERIFY(!diffWeights(a, testutil::sample("twist_tube"), order).ok());
    }

    void diffCommandExitsZeroOneTwoAndWritesTheJson()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto write = [&](const char* name, const testgltf::StripData& s) {
            const QString path = dir.filePath(QString::fromLatin1(name));
            QFile f(path);
            f.open(QIODevice::WriteOnly);
            f.write(testgltf::strip(s).gltf());
            return path;
        };
        const testgltf::StripData clean = testgltf::cleanStrip();
        testgltf::StripData edited = clean;
        // Vertex 1 (a root vertex): 0.6 root / 0.4 tip.
        edited.joints[4 * 1 + 1] = 1;
        edited.weights[4 * 1 + 0] = 0.6f;
        edited.weights[4 * 1 + 1] = 0.4f;
        const QString a = write("a.gltf", clean), a2 = write("a2.gltf", clean), b = write("b.gltf", edited);

        const auto same = diffCli({a, a2});
        QCOMPARE(same.exitCode, 0);
        QVERIFY2(same.out.contains("no difference beyond the thresholds"), same.out.constData());

        const auto changed = diffCli({a, b, "--json", "-"});
        QCOMPARE(changed.exitCode, 1);
        const QJsonObject r = QJsonDocument::fromJson(changed.out).object();
        QCOMPARE(r["rigscope_diff"].toInt(), 1);
        QCOMPARE(r["differs"].toBool(), true);
        QCOMPARE(r["match"].toString(), QStringLiteral("order"));
        QCOMPARE(r["vertices"]["matched"].toInt(), 8);
        const QJsonObject w = r["weights"].toObject();
        QCOMPARE(w["changed_vertices"].toInt(), 1);
        RS_COMPARE_NEAR(w["max_change"].toDouble(), 0.4, 1e-6);
        QCOMPARE(w["max_change_vertex"].toInt(), 1);
        QCOMPARE(w["joints"].toArray().size(), 2);
        QCOMPARE(r["errors"]["poses"].toArray().at(0)["pose"].toString(), QStringLiteral("rest"));
        QVERIFY(r["errors"]["poses"].toArray().at(0)["methods"].toObject().contains("center-of-rotation"));

        // Above the threshold it passes; an unreadable B exits 2 naming it.
        QCOMPARE(diffCli({a, b, "--weight-threshold", "0.5"}).exitCode, 0);
        const auto missing = diffCli({a, dir.filePath("absent.gltf")});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.contains("absent.gltf"), missing.err.constData());
        QCOMPARE(diffCli({a}).exitCode, 2);
        QCOMPARE(diffCli({a, b, "--match", "sideways"}).exitCode, 2);
    }
};

QTEST_MAIN(TestRigDiff)
#include "test_rig_diff.moc"
