// The raw weight checks (rig/analysis/weight_checks.h) and the report's "weights" object: analytic vertices with exact
// sums, and real files against an oracle that decodes JOINTS_n / WEIGHTS_n itself (Qt's JSON, not the importer's
// reader) and applies the Khronos glTF validator's float32 rule.
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include "rig/analysis/audit.h"
#include "rig/analysis/weight_checks.h"
#include "rig/io/import.h"

using namespace rig;

namespace {

VertexWeightFacts facts(std::initializer_list<Influence> in, size_t joints = 4)
{
    const std::vector<Influence> v(in);
    return vertexWeightFacts(v, joints);
}

/// The oracle: a glTF's skinning attributes decoded with Qt's JSON, per primitive in file order.
struct OracleVertex {
    std::vector<std::pair<uint32_t, float>> entries; ///< every component of every set, zeros included
};

QByteArray accessorBytes(const QJsonObject& root, const QList<QByteArray>& buffers, int index, int& componentType,
                         int& count, int& stride)
{
    const QJsonObject acc = root["accessors"].toArray()[index].toObject();
    const QJsonObject view = root["bufferViews"].toArray()[acc["bufferView"].toInt()].toObject();
    componentType = acc["componentType"].toInt();
    count = acc["count"].toInt();
    const int size = componentType == 5126 ? 4 : componentType == 5123 ? 2 : 1;
    stride = view["byteStride"].toInt(4 * size);
    const QByteArray& buffer = buffers.at(view["buffer"].toInt());
    return buffer.mid(view["byteOffset"].toInt() + acc["byteOffset"].toInt());
}

double component(const QByteArray& bytes, int componentType, bool normalized, int element, int stride, int c)
{
    const char* p = bytes.constData() + qsizetype(element) * stride;
    switch (componentType) {
    case 5126: {
        float f;
        memcpy(&f, p + 4 * c, 4);
        return f;
    }
    case 5123: {
        uint16_t u;
        memcpy(&u, p + 2 * c, 2);
        return normalized ? u / 65535.0 : u;
    }
    default: {
        const uint8_t u = uint8_t(p[c]);
        return normalized ? u / 255.0 : u;
    }
    }
}

std::vector<OracleVertex> oracleVertices(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open %s", qPrintable(path));
    const QByteArray file = f.readAll();
    QByteArray json;
    QList<QByteArray> buffers;
    if (file.startsWith("glTF")) {
        // GLB: header, JSON chunk, BIN chunk.
        uint32_t jsonLength;
        memcpy(&jsonLength, file.constData() + 12, 4);
        json = file.mid(20, jsonLength);
        buffers << file.mid(20 + jsonLength + 8);
    } else {
        json = file;
    }
    const QJsonObject root = QJsonDocument::fromJson(json).object();
    if (!file.startsWith("glTF"))
        for (const QJsonValue b : root["buffers"].toArray()) {
            const QString uri = b.toObject()["uri"].toString();
            if (uri.startsWith(QLatin1String("data:"))) {
                buffers << QByteArray::fromBase64(uri.mid(uri.indexOf(',') + 1).toLatin1());
            } else {
                QFile bin(QFileInfo(path).dir().filePath(uri));
                if (!bin.open(QIODevice::ReadOnly))
                    qFatal("cannot open %s", qPrintable(bin.fileName()));
                buffers << bin.readAll();
            }
        }
    std::vector<OracleVertex> out;
    for (const QJsonValue m : root["meshes"].toArray())
        for (const QJsonValue pv : m.toObject()["primitives"].toArray()) {
            const QJsonObject attrs = pv.toObject()["attributes"].toObject();
            const size_t first = out.size();
            for (int set = 0; attrs.contains(QStringLiteral("JOINTS_%1").arg(set)); ++set) {
                int jt, jn, js, wt, wn, ws;
                const QByteArray jb = accessorBytes(root, buffers, attrs[QStringLiteral("JOINTS_%1").arg(set)].toInt(), jt, jn, js);
                const int wi = attrs[QStringLiteral("WEIGHTS_%1").arg(set)].toInt();
                const QByteArray wb = accessorBytes(root, buffers, wi, wt, wn, ws);
                const bool normalized = root["accessors"].toArray()[wi].toObject()["normalized"].toBool();
                if (set == 0)
                    out.resize(first + size_t(jn));
                for (int v = 0; v < jn; ++v)
                    for (int c = 0; c < 4; ++c)
                        out[first + size_t(v)].entries.emplace_back(uint32_t(component(jb, jt, false, v, js, c)),
                                                                   float(component(wb, wt, normalized, v, ws, c)));
            }
        }
    return out;
}

struct OracleCounts {
    size_t nonNormalized = 0, over4 = 0, over8 = 0, zeroWeightJoint = 0, maxInfluences = 0;
    std::vector<uint32_t> nonNormalizedVertices;
};

/// Σw as the validator forms it (float32, in stored order) over the non-zero weights, tolerance 2e-7 per weight.
OracleCounts oracleCounts(const std::vector<OracleVertex>& vertices)
{
    OracleCounts c;
    for (size_t v = 0; v < vertices.size(); ++v) {
        float sum = 0.0f;
        double tolerance = 0.0;
        size_t nonZero = 0;
        bool zeroJoint = false;
        for (const auto& [joint, weight] : vertices[v].entries) {
            if (weight == 0.0f) {
                zeroJoint = zeroJoint || joint != 0;
                continue;
            }
            sum = float(double(sum) + double(weight));
            tolerance += 2e-7;
            ++nonZero;
        }
        if (std::fabs(double(sum) - 1.0) > tolerance) {
            ++c.nonNormalized;
            c.nonNormalizedVertices.push_back(uint32_t(v));
        }
        c.over4 += nonZero > 4;
        c.over8 += nonZero > 8;
        c.zeroWeightJoint += zeroJoint;
        c.maxInfluences = std::max(c.maxInfluences, nonZero);
    }
    return c;
}

} // namespace

class TestWeights : public QObject {
    Q_OBJECT
private slots:
    void exactSumIsNormalized();
    void sumWithinFloat32ToleranceIsNormalized();
    void sumOffByAMillionthIsNotNormalized();
    void negativeWeightCountsInTheSumAndIsFlagged();
    void repeatedJointIsDuplicateAndCountsTwice();
    void outOfRangeJointIsSkipped();
    void nanWeightIsFlaggedAndLeftOutOfTheSum();
    void checksUseGlobalVertexIndicesAndFindUnusedJoints();
    void realFilesMatchTheOracle_data();
    void realFilesMatchTheOracle();
    void cesiumManHas210VerticesOffOne();
    void quadSkinHasTenInfluences();
    void reportWritesTheWeightsObject();
};

void TestWeights::exactSumIsNormalized()
{
    const VertexWeightFacts f = facts({{0, 0.5f}, {1, 0.25f}, {2, 0.25f}});
    QCOMPARE(f.sum32, 1.0f);
    QCOMPARE(f.usable, 3u);
    QVERIFY(!f.nonNormalized);
    RS_COMPARE_NEAR(f.tolerance, 6e-7, 1e-12);
}

void TestWeights::sumWithinFloat32ToleranceIsNormalized()
{
    // 0.5 + 0.4999999 = 0.99999988 in float32: 1.2e-7 off, within 2 × 2e-7.
    const VertexWeightFacts f = facts({{0, 0.5f}, {1, 0.4999999f}});
    QVERIFY(f.sum32 < 1.0f);
    QVERIFY(!f.nonNormalized);
}

void TestWeights::sumOffByAMillionthIsNotNormalized()
{
    // 1e-6 is beyond 2 × 2e-7: the validator flags it, so do we (the old 1e-3 tolerance did not).
    const VertexWeightFacts f = facts({{0, 1.0f}, {1, 1e-6f}});
    QVERIFY(f.nonNormalized);
    const VertexWeightFacts g = facts({{0, 0.7f}, {1, 0.2f}});
    QVERIFY(g.nonNormalized);
    RS_COMPARE_NEAR(g.sum, 0.9, 1e-6);
}

void TestWeights::negativeWeightCountsInTheSumAndIsFlagged()
{
    const VertexWeightFacts f = facts({{0, 1.25f}, {1, -0.25f}});
    QVERIFY(f.negative);
    QVERIFY(!f.nonNormalized); // Σw is 1: the runtime's blend is affine
    QCOMPARE(f.usable, 1u);
}

void TestWeights::repeatedJointIsDuplicateAndCountsTwice()
{
    const VertexWeightFacts f = facts({{2, 0.5f}, {2, 0.5f}, {1, 0.0f}});
    QVERIFY(f.duplicate);
    QCOMPARE(f.sum32, 1.0f);
    QCOMPARE(f.usable, 2u);
    // A zero weight does not make a repeat.
    QVERIFY(!facts({{2, 0.0f}, {2, 1.0f}}).duplicate);
}

void TestWeights::outOfRangeJointIsSkipped()
{
    const VertexWeightFacts f = facts({{0, 0.5f}, {9, 0.5f}}, 4);
    QVERIFY(f.outOfRange);
    QCOMPARE(f.usable, 1u);
    QCOMPARE(f.sum32, 0.5f);
    QVERIFY(f.nonNormalized);
}

void TestWeights::nanWeightIsFlaggedAndLeftOutOfTheSum()
{
    const VertexWeightFacts f = facts({{0, std::numeric_limits<float>::quiet_NaN()}, {1, 1.0f}});
    QVERIFY(f.nonFinite);
    QCOMPARE(f.sum32, 1.0f);
    QVERIFY(!f.nonNormalized);
    QCOMPARE(f.usable, 1u);
}

void TestWeights::checksUseGlobalVertexIndicesAndFindUnusedJoints()
{
    // Two meshes: an unskinned one of 3 vertices (no part in the checks), then a skinned one of 4.
    Rig r;
    r.skeleton.nodes.resize(4);
    for (int i = 0; i < 4; ++i)
        r.skeleton.nodes[size_t(i)].name = "n" + std::to_string(i);
    Skin s;
    s.joints = {1, 2, 3};
    s.inverseBind.assign(3, glm::mat4(1.0f));
    r.skins = {s};
    Mesh rigid;
    rigid.positions.assign(3, glm::vec3(0.0f));
    Mesh skinned;
    skinned.skin = 0;
    skinned.positions.assign(4, glm::vec3(0.0f));
    // v0: fine on joint 0 (node 1); v1: 0.7 + 0.2; v2: nothing; v3: 5 influences on joints 0 and 1 (node 1, 2).
    skinned.influenceOffsets = {0, 1, 3, 3, 8};
    skinned.influences = {{0, 1.0f}, {0, 0.7f}, {1, 0.2f}, {0, 0.2f}, {1, 0.2f}, {0, 0.2f}, {1, 0.2f}, {0, 0.2f}};
    skinned.zeroWeightJointVertices = {1};
    r.meshes = {rigid, skinned};
    const WeightChecks c = checkWeights(r);
    QCOMPARE(c.nonNormalized.vertices, (std::vector<uint32_t>{4, 5})); // v1 (0.9) and v2 (0)
    QCOMPARE(c.noInfluence.vertices, (std::vector<uint32_t>{5}));
    QCOMPARE(c.over4.vertices, (std::vector<uint32_t>{6}));
    QCOMPARE(c.over8.count, size_t(0));
    QCOMPARE(c.duplicateJoints.vertices, (std::vector<uint32_t>{6}));
    QCOMPARE(c.zeroWeightInfluences.vertices, (std::vector<uint32_t>{4}));
    QCOMPARE(c.maxInfluences, size_t(5));
    // Node 1 weighs v0, v1, v3 (once each); node 2 weighs v1, v3; node 3 nothing; node 0 is no joint.
    QCOMPARE(c.nodeVertexCounts, (std::vector<uint32_t>{0, 3, 2, 0}));
    QCOMPARE(c.unusedJoints, (std::vector<int>{3}));
}

void TestWeights::realFilesMatchTheOracle_data()
{
    QTest::addColumn<QString>("file");
    for (const char* f : {"CesiumMan/cesium_man.gltf", "SimpleSkin/SimpleSkin.gltf",
                          "SimpleSkin_multi_joint_set/SimpleSkin-multi-joint-set.gltf", "assimp_simple_skin/quad_skin.glb",
                          "RiggedSimple/rigged_simple.gltf", "RiggedFigure/RiggedFigure.gltf", "Fox/Fox.glb"})
        QTest::newRow(f) << QString::fromLatin1(f);
}

void TestWeights::realFilesMatchTheOracle()
{
    REQUIRE_ASSETS();
    QFETCH(QString, file);
    const std::string path = testutil::assetPath(file.toUtf8().constData());
    auto r = importFile(path);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
    QCOMPARE(r->meshes.size(), size_t(1)); // one primitive: the oracle's vertex order is the rig's
    const OracleCounts o = oracleCounts(oracleVertices(QString::fromStdString(path)));
    const WeightChecks c = checkWeights(r.value());
    QCOMPARE(c.nonNormalized.count, o.nonNormalized);
    QCOMPARE(c.nonNormalized.vertices, o.nonNormalizedVertices);
    QCOMPARE(c.over4.count, o.over4);
    QCOMPARE(c.over8.count, o.over8);
    QCOMPARE(c.zeroWeightInfluences.count, o.zeroWeightJoint);
    QCOMPARE(c.maxInfluences, o.maxInfluences);
    // The audit's finding agrees (it leaves unweighted vertices to its own finding; these files have none).
    const Audit a = auditRig(r.value());
    const AuditFinding* f = a.find("weights-not-normalised");
    QCOMPARE(f ? f->count : size_t(0), o.nonNormalized);
}

void TestWeights::cesiumManHas210VerticesOffOne()
{
    REQUIRE_ASSETS();
    auto r = importFile(testutil::assetPath("CesiumMan/cesium_man.gltf"));
    QVERIFY(r.ok());
    const WeightChecks c = checkWeights(r.value());
    QCOMPARE(c.nonNormalized.count, size_t(210)); // INVENTORY.md: 210/3273, min 0.185
    double minSum = 2.0;
    const Mesh& m = r->meshes[0];
    for (uint32_t v : c.nonNormalized.vertices)
        minSum = std::min(minSum, vertexWeightFacts({m.influences.data() + m.influenceOffsets[v],
                                                     m.influenceOffsets[v + 1] - m.influenceOffsets[v]},
                                                    r->skins[0].joints.size())
                                      .sum);
    RS_COMPARE_NEAR(minSum, 0.185, 0.001);
    QCOMPARE(c.noInfluence.count, size_t(0));
    QVERIFY(c.unusedJoints.empty());
}

void TestWeights::quadSkinHasTenInfluences()
{
    REQUIRE_ASSETS();
    auto r = importFile(testutil::assetPath("assimp_simple_skin/quad_skin.glb"));
    QVERIFY(r.ok());
    const WeightChecks c = checkWeights(r.value());
    QCOMPARE(c.maxInfluences, size_t(10));
    QVERIFY(c.over8.count >= 1);
    const Audit a = auditRig(r.value());
    QCOMPARE(a.meshes.at(0).maxInfluences, size_t(10));
}

void TestWeights::reportWritesTheWeightsObject()
{
    REQUIRE_ASSETS();
    QProcess p;
    p.start(QStringLiteral(RIGSCOPE_BINARY),
            {QStringLiteral("report"), QStringLiteral("--json"), QStringLiteral("-"), QStringLiteral("--per-vertex"),
             QString::fromStdString(testutil::assetPath("SimpleSkin/SimpleSkin.gltf"))});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    const QJsonObject w = QJsonDocument::fromJson(p.readAllStandardOutput()).object()["weights"].toObject();
    const OracleCounts o = oracleCounts(oracleVertices(QString::fromStdString(testutil::assetPath("SimpleSkin/SimpleSkin.gltf"))));
    for (const char* key : {"non_normalized", "over_4", "over_8", "negative_or_nan", "duplicate_joints",
                            "zero_weight_influences", "no_influence"}) {
        QVERIFY2(w[key].isObject(), key);
        QVERIFY2(w[key].toObject()["vertices"].isArray(), key);
        QCOMPARE(w[key].toObject()["count"].toInt(), w[key].toObject()["vertices"].toArray().size());
    }
    QCOMPARE(size_t(w["zero_weight_influences"].toObject()["count"].toInt()), o.zeroWeightJoint);
    QVERIFY(o.zeroWeightJoint > 0); // SimpleSkin pads with joint 1 at weight 0 on some vertices
    QCOMPARE(w["max_influences"].toInt(), 2);
    QVERIFY(w["unused_joints"].isArray());
}

QTEST_GUILESS_MAIN(TestWeights)
#include "test_weights.moc"
