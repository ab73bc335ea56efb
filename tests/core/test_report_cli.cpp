// `rigscope report` end to end: the real binary, its JSON, its exit status and its messages.
#include "testutil.h"

#include <array>
#include <cmath>

#include "rig/io/import.h"
#include "rig/model/pose.h"
#include "rig/platform/cpu_features.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <cpuid.h>
#include <cstring>

namespace {

using testutil::runRigscope;
using Output = testutil::RigscopeOutput;

QJsonObject parse(const Output& o)
{
    QJsonParseError pe;
    const QJsonDocument d = QJsonDocument::fromJson(o.out, &pe);
    if (pe.error != QJsonParseError::NoError)
        qFatal("report is not JSON: %s", qPrintable(pe.errorString()));
    return d.object();
}

QString writeFile(const QTemporaryDir& dir, const char* name, const QByteArray& text)
{
    const QString path = dir.filePath(QString::fromLatin1(name));
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(text);
    return path;
}

// True when the JSON text has a NaN / infinity number token (JSON has none; a C++ stream would print them).
bool hasNonFiniteToken(const QByteArray& json)
{
    static const QRegularExpression re(QStringLiteral(R"([:,\[]\s*[-+]?(nan|NaN|inf|Inf|infinity|Infinity)\b)"));
    return re.match(QString::fromUtf8(json)).hasMatch();
}

double stat(const QJsonObject& report, const char* method, const char* which, const char* key)
{
    return report[QLatin1String("methods")][QLatin1String(method)][QLatin1String(which)][QLatin1String(key)].toDouble(-1.0);
}

} // namespace

class TestReportCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void rampStretchSummaryNumbers();
    void perVertexArrays();
    void undefinedValuesAreNull();
    void humanSummaryWithoutJson();
    void methodsSelection();
    void formatsCompareEveryProfileWithTheFloatReference();
    void profileSkinsWithTheEngineFormat();
    void boundsOfTheTurnedRampAndOfTheFlatSheet();
    void badInputsExitTwoWithOneLine_data();
    void badInputsExitTwoWithOneLine();
    void realAssetAuditSeesRawWeights();
    void candyWrapperOfTheTwistTubeTurned162Degrees();
    void scanOfTheTwistClipFindsItsHalfTurn();
    void skinnedMeshIgnoresNodeTransform();
    void helpAndVersionNeedNoDisplay_data();
    void helpAndVersionNeedNoDisplay();
    void processorNameIsLscpusWithTheCpuidBrandWhereTheyDiffer();
    void benchFirstNamesThisProcessorAsLscpuDoesAndCpuidWhereItDiffers();
    void isaCapLeavesOnlyTheKernelsItAllows_data();
    void isaCapLeavesOnlyTheKernelsItAllows();

private:
    QTemporaryDir m_dir;
};

void TestReportCli::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(QStringLiteral(RIGSCOPE_BINARY)), RIGSCOPE_BINARY);
}

void TestReportCli::rampStretchSummaryNumbers()
{
    const QString pose = writeFile(m_dir, "stretch.json", R"({"joints": {"root": {"scale": [2, 1, 1]}}})");
    const Output o = runRigscope({"report", "--sample", "ramp", "--pose", pose, "--json", "-"});
    QCOMPARE(o.exitCode, 0);
    const QJsonObject r = parse(o);
    QCOMPARE(r["rigscope_report"].toInt(), 1);
    QVERIFY(r["vertices"].toInt() > 0);
    QVERIFY(r["triangles"].toInt() > 0);
    QCOMPARE(r["joints"].toInt(), 1);
    QCOMPARE(r["morph_targets"].toInt(), 0);
    RS_COMPARE_NEAR(stat(r, "linear", "normal_error_deg", "max"), 36.8699, 0.01);
    RS_COMPARE_NEAR(stat(r, "inverse-transpose", "normal_error_deg", "max"), 0.0, 0.01);
    RS_COMPARE_NEAR(stat(r, "cofactor", "normal_error_deg", "max"), 0.0, 0.01);
    RS_COMPARE_NEAR(stat(r, "rebuilt", "normal_error_deg", "mean"), 0.0, 1e-9);
    QCOMPARE(r["methods"].toObject().size(), 9);
    QVERIFY(!hasNonFiniteToken(o.out));
}

void TestReportCli::perVertexArrays()
{
    const QString pose = writeFile(m_dir, "twist.json", R"({"joints": {"twist": {"rotate": [180, 0, 0]}}})");
    const Output o = runRigscope({"report", "--sample", "twist_tube", "--pose", pose, "--methods",
                                  "linear,dual-quaternion", "--per-vertex", "--json", "-"});
    QCOMPARE(o.exitCode, 0);
    QVERIFY(!hasNonFiniteToken(o.out));
    const QJsonObject r = parse(o);
    const int n = r["vertices"].toInt();
    const QJsonObject pv = r["per_vertex"].toObject();
    QCOMPARE(pv.keys(), QStringList({"dual-quaternion", "linear"}));
    for (const QString& m : pv.keys()) {
        const QJsonObject a = pv[m].toObject();
        QCOMPARE(a["positions"].toArray().size(), 3 * n);
        QCOMPARE(a["normals"].toArray().size(), 3 * n);
        QCOMPARE(a["tangents"].toArray().size(), 4 * n);
        QCOMPARE(a["reference_normals"].toArray().size(), 3 * n);
        QCOMPARE(a["reference_tangents"].toArray().size(), 4 * n);
        QCOMPARE(a["normal_error_deg"].toArray().size(), n);
        QCOMPARE(a["tangent_error_deg"].toArray().size(), n);
    }
    // At 180° the linear ring at x = 1 collapses onto the axis; dual quaternions keep its radius.
    const QJsonArray lin = pv["linear"]["positions"].toArray();
    const QJsonArray dq = pv["dual-quaternion"]["positions"].toArray();
    int ring = 0;
    for (int v = 0; v < n; ++v) {
        if (std::fabs(lin[3 * v].toDouble() - 1.0) > 1e-5)
            continue;
        ++ring;
        RS_COMPARE_NEAR(std::hypot(lin[3 * v + 1].toDouble(), lin[3 * v + 2].toDouble()), 0.0, 1e-4);
        RS_COMPARE_NEAR(std::hypot(dq[3 * v + 1].toDouble(), dq[3 * v + 2].toDouble()), 0.25, 1e-4);
    }
    QVERIFY(ring >= 32);
}

void TestReportCli::undefinedValuesAreNull()
{
    // Scaling x and y to zero flattens the ramp onto the z axis: every triangle has zero area, so every reference
    // direction is undefined and the inverse transpose is singular. All of it must come out as null.
    const QString pose = writeFile(m_dir, "flat.json", R"({"joints": {"root": {"scale": [0, 0, 1]}}})");
    const Output o = runRigscope({"report", "--sample", "ramp", "--pose", pose, "--per-vertex", "--json", "-"});
    QCOMPARE(o.exitCode, 0);
    QVERIFY(!hasNonFiniteToken(o.out));
    const QJsonObject r = parse(o);
    const int n = r["vertices"].toInt();
    const QJsonObject lin = r["methods"]["linear"]["normal_error_deg"].toObject();
    QVERIFY(lin["max"].isNull() && lin["mean"].isNull() && lin["p95"].isNull());
    QCOMPARE(lin["undefined"].toInt(), n);
    QCOMPARE(r["methods"]["inverse-transpose"]["singular_vertices"].toInt(), n);
    for (const QJsonValue& v : r["per_vertex"]["inverse-transpose"]["normals"].toArray())
        QVERIFY(v.isNull());
    for (const QJsonValue& v : r["per_vertex"]["rebuilt"]["reference_tangents"].toArray())
        QVERIFY(v.isNull());
    for (const QJsonValue& v : r["per_vertex"]["linear"]["positions"].toArray())
        QVERIFY(v.isDouble());
}

void TestReportCli::humanSummaryWithoutJson()
{
    const Output o = runRigscope({"report", "--sample", "lift_strip"});
    QCOMPARE(o.exitCode, 0);
    QVERIFY(o.out.contains("jacobian"));
    QVERIFY(o.out.contains("sample:lift_strip"));
}

void TestReportCli::methodsSelection()
{
    const Output o = runRigscope({"report", "--sample", "elbow", "--methods", "cofactor", "--json", "-"});
    QCOMPARE(o.exitCode, 0);
    QCOMPARE(parse(o)["methods"].toObject().keys(), QStringList({"cofactor"}));
}

void TestReportCli::formatsCompareEveryProfileWithTheFloatReference()
{
    // The lift strip with its lift joint raised 0.6: one bone per vertex moves the 0.5/0.5 tie 0.3 (README "Runtime
    // formats"); two bones hold the strip exactly.
    const QString pose = writeFile(m_dir, "lift.json", R"({"joints": {"lift": {"translate": [0, 0.6, 0]}}})");
    const Output o = runRigscope({"report", "--sample", "lift_strip", "--pose", pose, "--methods", "linear", "--json", "-"});
    QCOMPARE(o.exitCode, 0);
    const QJsonObject report = parse(o);
    QCOMPARE(report["profile"].toString(), QStringLiteral("float32"));
    const QJsonObject formats = report["formats"].toObject();
    QCOMPARE(formats["reference"].toObject()["influences"].toInt(), 8);
    for (const char* id : {"float32", "unorm8", "unorm16", "unorm11_11_10", "threejs", "unity-1", "unity-2", "unity-4",
                           "unreal-4", "unreal-8", "unreal-8-16bit"})
        QVERIFY2(formats.contains(QLatin1String(id)), id);
    const QJsonObject one = formats["unity-1"].toObject();
    QVERIFY(std::fabs(one["max_position_error"].toDouble() - 0.3) < 1e-5);
    QCOMPARE(one["vertices_changed"].toInt(), 39 * 6);
    QCOMPARE(one["index_bits"].toInt(), 32);
    QCOMPARE(one["bytes_per_vertex"].toDouble(), 12.0 + 12.0 + 16.0 + 4.0 + 48.0);
    QCOMPARE(formats["unity-2"].toObject()["max_position_error"].toDouble(), 0.0);
    QCOMPARE(formats["unity-2"].toObject()["vertices_changed"].toInt(), 0);
    const int vertices = report["vertices"].toInt();
    // 11/11/10 keeps a weight exactly when it is a multiple of 1/2048 and below one: i / 40 for i = 5, 10, … 35 (seven
    // of the 41 columns, six rows); a weight of one becomes 2047/2048 with the rest on a fourth slot.
    QCOMPARE(formats["unorm11_11_10"].toObject()["vertices_changed"].toInt(), vertices - 7 * 6);
    QCOMPARE(formats["unorm11_11_10"].toObject()["bytes_per_vertex"].toDouble(), 40.0 + 4.0 + 4.0 + 192.0);
    const QJsonObject linear = one["methods"].toObject()["linear"].toObject();
    QVERIFY(std::fabs(linear["max_position_error"].toDouble() - 0.3) < 1e-5);
    QCOMPARE(linear["worst_vertex"].toObject()["mesh"].toInt(), 0);

    const Output none = runRigscope({"report", "--sample", "lift_strip", "--formats", "none", "--json", "-"});
    QCOMPARE(none.exitCode, 0);
    QVERIFY(!parse(none).contains("formats"));
    const Output some = runRigscope({"report", "--sample", "lift_strip", "--formats", "unorm8,unity-2", "--json", "-"});
    QCOMPARE(some.exitCode, 0);
    QCOMPARE(parse(some)["formats"].toObject().keys(), QStringList({"reference", "unity-2", "unorm8"}));
}

void TestReportCli::profileSkinsWithTheEngineFormat()
{
    // --profile builds the runtime with the profile's format, and the report says which; it excludes --influences.
    const QString pose = writeFile(m_dir, "lift1.json", R"({"joints": {"lift": {"translate": [0, 0.6, 0]}}})");
    const Output o = runRigscope({"report", "--sample", "lift_strip", "--pose", pose, "--profile", "unity-1",
                                  "--formats", "none", "--json", "-"});
    QCOMPARE(o.exitCode, 0);
    const QJsonObject report = parse(o);
    QCOMPARE(report["profile"].toString(), QStringLiteral("unity-1"));
    QCOMPARE(report["influences_per_vertex"].toInt(), 1);
    QCOMPARE(report["weight_encoding"].toString(), QStringLiteral("float"));
    const Output both = runRigscope({"report", "--sample", "lift_strip", "--profile", "unity-1", "--influences", "8"});
    QCOMPARE(both.exitCode, 2);
    QVERIFY(both.err.contains("--influences"));
    const Output bad = runRigscope({"report", "--sample", "lift_strip", "--profile", "ps2"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("ps2") && bad.err.contains("unorm11_11_10"));
}

void TestReportCli::boundsOfTheTurnedRampAndOfTheFlatSheet()
{
    // The ramp turned 45° about z (test_bounds computes it by hand): exact [0, √½] × [0, √2] × [-½, ½], the per-bone box
    // reaches x = -√½ as well, twice the volume; the summary says so.
    const QString pose = writeFile(m_dir, "turn45.json", R"({"joints": {"root": {"rotate": [0, 0, 45]}}})");
    const Output o = runRigscope({"report", "--sample", "ramp", "--pose", pose, "--formats", "none", "--json", "-"});
    QCOMPARE(o.exitCode, 0);
    const QJsonObject b = parse(o)["bounds"].toObject();
    const double h = std::sqrt(0.5);
    auto check = [&](const char* key, std::array<double, 3> lo, std::array<double, 3> hi) {
        const QJsonObject box = b[QLatin1String(key)].toObject();
        for (int a = 0; a < 3; ++a) {
            RS_COMPARE_NEAR(box["min"].toArray()[a].toDouble(), lo[size_t(a)], 1e-5);
            RS_COMPARE_NEAR(box["max"].toArray()[a].toDouble(), hi[size_t(a)], 1e-5);
        }
    };
    check("exact", {0.0, 0.0, -0.5}, {h, 2.0 * h, 0.5});
    check("per_bone", {-h, 0.0, -0.5}, {h, 2.0 * h, 0.5});
    RS_COMPARE_NEAR(b["volume_ratio"].toDouble(), 2.0, 1e-4);
    RS_COMPARE_NEAR(b["diagonal_ratio"].toDouble(), std::sqrt(2.0 + 2.0 + 1.0) / std::sqrt(0.5 + 2.0 + 1.0), 1e-4);
    QCOMPARE(b["per_bone_contains_exact"].toBool(), true);
    const Output text = runRigscope({"report", "--sample", "ramp", "--pose", pose, "--formats", "none"});
    QVERIFY2(text.out.contains("per-bone 1.414 x 1.414 x 1 (2.00x the volume)"), text.out.constData());

    // The sheet at rest is flat: no volume to compare, the diagonal ratio stays defined.
    const Output flat = runRigscope({"report", "--sample", "sheet", "--formats", "none", "--json", "-"});
    QCOMPARE(flat.exitCode, 0);
    QVERIFY(!hasNonFiniteToken(flat.out));
    const QJsonObject fb = parse(flat)["bounds"].toObject();
    QVERIFY(fb["volume_ratio"].isNull());
    QVERIFY(fb["diagonal_ratio"].toDouble() >= 1.0);
    QCOMPARE(fb["per_bone_contains_exact"].toBool(), true);
}

void TestReportCli::badInputsExitTwoWithOneLine_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("missing file") << QStringList{"report", "/nonexistent/rig.gltf"} << "/nonexistent/rig.gltf";
    QTest::newRow("bad sample") << QStringList{"report", "--sample", "octopus"} << "octopus";
    QTest::newRow("bad method") << QStringList{"report", "--sample", "ramp", "--methods", "lbs"} << "lbs";
    QTest::newRow("bad influences") << QStringList{"report", "--sample", "ramp", "--influences", "5"} << "influences";
    QTest::newRow("bad formats") << QStringList{"report", "--sample", "ramp", "--formats", "unorm9"} << "unorm9";
    QTest::newRow("no input") << QStringList{"report"} << "--sample";
    QTest::newRow("missing pose") << QStringList{"report", "--sample", "ramp", "--pose", "/nonexistent/p.json"} << "/nonexistent/p.json";
    QTest::newRow("unknown joint") << QStringList{"report", "--sample", "ramp", "--pose", "UNKNOWN_JOINT_POSE"} << "shoulder";
    QTest::newRow("not a model") << QStringList{"report", "NOT_A_MODEL"} << "garbage.gltf";
    QTest::newRow("step without scan") << QStringList{"report", "--sample", "twist_tube", "--clip", "twist", "--step", "0.5"} << "--scan";
    QTest::newRow("scan without clip") << QStringList{"report", "--sample", "twist_tube", "--scan"} << "--clip";
    QTest::newRow("bad step") << QStringList{"report", "--sample", "twist_tube", "--clip", "twist", "--scan", "--step", "-1"} << "-1";
    QTest::newRow("unknown clip") << QStringList{"report", "--sample", "twist_tube", "--clip", "dance", "--scan"} << "dance";
    QTest::newRow("broken asset") << QStringList{"report", QString::fromStdString(testutil::assetPath("Collada_library_animation_clips/library_animation_clips.dae"))}
                                  << "library_animation_clips.dae";
}

void TestReportCli::badInputsExitTwoWithOneLine()
{
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    for (QString& a : args) {
        if (a == QLatin1String("UNKNOWN_JOINT_POSE"))
            a = writeFile(m_dir, "unknown.json", R"({"joints": {"shoulder": {"rotate": [0, 0, 10]}}})");
        if (a == QLatin1String("NOT_A_MODEL"))
            a = writeFile(m_dir, "garbage.gltf", "this is not a model at all \x01\x02\x03");
    }
    const Output o = runRigscope(args);
    QCOMPARE(o.exitCode, 2);
    const QString err = QString::fromUtf8(o.err).trimmed();
    QVERIFY2(err.contains(mentions), qPrintable(err));
    QCOMPARE(err.count('\n'), 0);
    QVERIFY(o.out.isEmpty());
}

void TestReportCli::realAssetAuditSeesRawWeights()
{
    REQUIRE_ASSETS();
    const QString cesium = QString::fromStdString(testutil::assetPath("CesiumMan/cesium_man.gltf"));
    const Output o = runRigscope({"report", cesium, "--json", "-"});
    QCOMPARE(o.exitCode, 0);
    const QJsonObject r = parse(o);
    QCOMPARE(r["joints"].toInt(), 19);
    bool found = false;
    for (const QJsonValue& f : r["audit"]["findings"].toArray())
        if (f["code"].toString() == QLatin1String("weights-not-normalised")) {
            found = true;
            QCOMPARE(f["count"].toInt(), 210);
        }
    QVERIFY(found);
    QVERIFY(!hasNonFiniteToken(o.out));
}

void TestReportCli::scanOfTheTwistClipFindsItsHalfTurn()
{
    // The tube's clip turns "twist" 0°, 90°, 180° at its keys 0, 1, 2 s. Scanned at its keys, and every 0.25 s: linear
    // blending's worst frame is the last (the even ring collapses onto the axis, scale 0, between root and twist), and
    // so is its worst normal error; dual quaternions' worst error is far below linear blending's.
    for (const QStringList extra : {QStringList{}, QStringList{"--step", "0.25"}}) {
        const Output o = runRigscope(QStringList{"report", "--sample", "twist_tube", "--clip", "twist", "--scan", "--methods",
                                                 "linear,dual-quaternion", "--json", "-"} + extra);
        QCOMPARE(o.exitCode, 0);
        const QJsonObject scan = parse(o)["scan"].toObject();
        QCOMPARE(scan["clip"].toString(), QStringLiteral("twist"));
        QCOMPARE(scan["frames"].toInt(), extra.isEmpty() ? 3 : 9);
        QCOMPARE(scan["step"].isNull(), extra.isEmpty());
        QCOMPARE(scan["cancelled"].toBool(), false);
        const QJsonObject minScale = scan["min_scale"].toObject();
        QVERIFY2(std::fabs(minScale["scale"].toDouble()) < 1e-5, qPrintable(QString::number(minScale["scale"].toDouble())));
        QCOMPARE(minScale["time"].toDouble(), 2.0);
        QCOMPARE(minScale["joints"].toArray(), QJsonArray({"root", "twist"}));
        QCOMPARE(minScale["vertex"].toObject()["vertex"].toInt() % 41, 20); // ring k = 20
        const QJsonObject linear = scan["methods"].toObject()["linear"].toObject();
        const QJsonObject dq = scan["methods"].toObject()["dual-quaternion"].toObject();
        QCOMPARE(linear["time"].toDouble(), 2.0);
        QVERIFY(linear["worst_normal_error_deg"].toDouble() > 10.0 * dq["worst_normal_error_deg"].toDouble());
        // The animated bounds: every frame's per-bone box holds its frame, so their union holds the frames' union.
        const QJsonObject bounds = scan["bounds"].toObject();
        const QJsonObject exactUnion = bounds["exact_union"].toObject(), perBoneUnion = bounds["per_bone_union"].toObject();
        for (int a = 0; a < 3; ++a) {
            QVERIFY(perBoneUnion["min"].toArray()[a].toDouble() <= exactUnion["min"].toArray()[a].toDouble() + 1e-6);
            QVERIFY(perBoneUnion["max"].toArray()[a].toDouble() >= exactUnion["max"].toArray()[a].toDouble() - 1e-6);
        }
        QVERIFY(bounds["mean_union_volume_ratio"].toDouble() >= 1.0);
        QVERIFY(bounds["mean_per_bone_volume_ratio"].toDouble() >= 1.0 - 1e-5);
    }
    // The text summary names the frame too.
    const Output text = runRigscope({"report", "--sample", "twist_tube", "--clip", "twist", "--scan"});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("linear blending keeps least: scale 0.000 at 2.0000 s"), text.out.constData());
}

void TestReportCli::candyWrapperOfTheTwistTubeTurned162Degrees()
{
    // "twist" turned 162° about its bone: every ring's scale is |(1 - w) + w e^{iθ}| for its twist weight
    // w = clamp((k - 10) / 20, 0, 1), cos 81° at the even ring (k = 20), and its volume the square of that. (162°: no
    // ring within 0.002 of the 0.9 and 0.7 thresholds, which float rounding would decide.)
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString pose = dir.filePath(QStringLiteral("turn.json"));
    QFile f(pose);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"joints": {"twist": {"rotate": [162, 0, 0]}}})");
    f.close();
    const Output o = runRigscope({"report", "--sample", "twist_tube", "--pose", pose, "--methods", "linear",
                                  "--per-vertex", "--json", "-"});
    QCOMPARE(o.exitCode, 0);
    QVERIFY(!hasNonFiniteToken(o.out));
    const QJsonObject cw = parse(o)[QLatin1String("candy_wrapper")].toObject();
    const double c = std::cos(162.0 * 3.14159265358979323846 / 180.0);
    auto scaleOf = [c](double w) { return std::min(1.0, std::sqrt((1 - w) * (1 - w) + w * w + 2 * w * (1 - w) * c)); };
    RS_COMPARE_NEAR(cw["min_scale"].toDouble(), std::cos(81.0 * 3.14159265358979323846 / 180.0), 1e-5);
    QCOMPARE(cw["worst_joint"].toString(), QStringLiteral("twist"));
    QCOMPARE(cw["worst_joints"].toArray(), (QJsonArray{QStringLiteral("root"), QStringLiteral("twist")}));
    QCOMPARE(cw["worst_vertex"]["mesh"].toInt(), 0);
    QCOMPARE(cw["worst_vertex"]["vertex"].toInt() % 41, 20);
    int below09 = 0, below07 = 0, blended = 0;
    for (int k = 0; k < 41; ++k) {
        const double w = std::clamp((k - 10) / 20.0, 0.0, 1.0);
        below09 += scaleOf(w) < 0.9 ? 33 : 0; // 33 vertices a ring
        below07 += scaleOf(w) < 0.7 ? 33 : 0;
        blended += w > 0.0 && w < 1.0 ? 33 : 0;
    }
    QCOMPARE(cw["below_0_9"].toInt(), below09);
    QCOMPARE(cw["below_0_7"].toInt(), below07);
    const QJsonArray bands = cw["bands"].toArray();
    QCOMPARE(bands.size(), 1);
    QCOMPARE(bands[0]["vertices"].toInt(), blended);
    QCOMPARE(bands[0]["below_0_7"].toInt(), below07);
    // The causes of linear's wrong vertices: every key, and the twist's collapse among them.
    const QJsonObject causes = parse(o)[QLatin1String("methods")].toObject()[QLatin1String("linear")].toObject()[QLatin1String("causes")].toObject();
    QCOMPARE(causes["threshold_deg"].toDouble(), 5.0);
    QCOMPARE(causes["counts"].toObject().keys(),
             (QStringList{"authoring_baseline", "collapse", "morph_without_deltas", "non_rigid", "other", "weight_gradient"}));
    QVERIFY(causes["counts"].toObject()["collapse"].toInt() > 0);
    QCOMPARE(causes["counts"].toObject()["morph_without_deltas"].toInt(), 0);
    const QJsonArray scale = cw["scale"].toArray(), volume = cw["volume"].toArray();
    QCOMPARE(scale.size(), 41 * 33);
    QCOMPARE(volume.size(), 41 * 33);
    for (int v = 0; v < scale.size(); ++v) {
        const double s = scaleOf(std::clamp((v % 41 - 10) / 20.0, 0.0, 1.0));
        QVERIFY2(std::fabs(scale[v].toDouble() - s) <= 1e-5, qPrintable(QString::number(v)));
        // det = 1 · s²: the volume shrinks with the square of the cross-section.
        QVERIFY2(std::fabs(volume[v].toDouble() - s * s) <= 1e-5, qPrintable(QString::number(v)));
    }
}

void TestReportCli::skinnedMeshIgnoresNodeTransform()
{
    REQUIRE_ASSETS();
    // quad_skin's mesh node ("Plane") carries a x100 scale. glTF says a skinned mesh ignores its node's transform:
    // positions are Σ w (joint world × inverse bind) v. Compute that independently from the imported rig and compare
    // with the report; applying the node's matrix on top would be 100 times off.
    const std::string file = testutil::assetPath("assimp_simple_skin/quad_skin.glb");
    const Output o = runRigscope({"report", QString::fromStdString(file), "--methods", "linear", "--per-vertex",
                                  "--influences", "8", "--json", "-"});
    QCOMPARE(o.exitCode, 0);
    const QJsonArray pos = parse(o)[QLatin1String("per_vertex")][QLatin1String("linear")][QLatin1String("positions")].toArray();
    auto imported = rig::importFile(file);
    QVERIFY(imported.ok());
    const rig::Rig& rg = imported.value();
    std::vector<glm::mat4> world;
    rig::evaluateWorld(rg, rig::resolvePose(rg, rig::Pose{}).value(), world);
    int base = 0;
    double maxDiff = 0.0, nodeScale = 0.0;
    for (const rig::Mesh& mesh : rg.meshes) {
        QVERIFY(mesh.isSkinned());
        const rig::Skin& skin = rg.skins[size_t(mesh.skin)];
        nodeScale = std::max(nodeScale, double(glm::length(glm::vec3(world[size_t(mesh.node)][0]))));
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            glm::vec3 expected(0.0f);
            float sum = 0.0f;
            for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i)
                sum += mesh.influences[i].weight;
            for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i) {
                const rig::Influence in = mesh.influences[i];
                const glm::mat4 m = world[size_t(skin.joints[in.joint])] * skin.inverseBind[in.joint];
                expected += in.weight / sum * glm::vec3(m * glm::vec4(mesh.positions[v], 1.0f));
            }
            for (int c = 0; c < 3; ++c)
                maxDiff = std::max(maxDiff, std::fabs(pos[base + int(3 * v) + c].toDouble() - expected[c]));
        }
        base += int(3 * mesh.vertexCount());
    }
    QCOMPARE(pos.size(), base);
    QVERIFY2(nodeScale > 50.0, qPrintable(QString::number(nodeScale))); // the node transform is really there
    QVERIFY2(maxDiff < 1e-4, qPrintable(QString::number(maxDiff)));
}

void TestReportCli::helpAndVersionNeedNoDisplay_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("firstLine");
    QTest::newRow("--help") << QStringList{"--help"} << "Usage: rigscope [options] [file]";
    QTest::newRow("-h") << QStringList{"-h"} << "Usage: rigscope [options] [file]";
    QTest::newRow("help") << QStringList{"help"} << "Usage: rigscope [options] [file]";
    QTest::newRow("--version") << QStringList{"--version"} << "rigscope " RIGSCOPE_VERSION " (Qt ";
    QTest::newRow("help report") << QStringList{"help", "report"} << "Usage: rigscope report [options] <file | --sample NAME>";
    QTest::newRow("report --help") << QStringList{"report", "--help"} << "Usage: rigscope report [options] <file | --sample NAME>";
    QTest::newRow("help bench") << QStringList{"help", "bench"} << "Usage: rigscope bench [options]";
    QTest::newRow("bench --help") << QStringList{"bench", "--help"} << "Usage: rigscope bench [options]";
}

void TestReportCli::helpAndVersionNeedNoDisplay()
{
    // No display and the X11 platform forced: anything that opened a window system connection would fail.
    QFETCH(QStringList, args);
    QFETCH(QString, firstLine);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));
    const Output o = runRigscope(args, &env);
    QCOMPARE(o.exitCode, 0);
    QVERIFY2(o.err.isEmpty(), o.err.constData());
    const QString text = QString::fromUtf8(o.out);
    QVERIFY2(text.startsWith(firstLine), qPrintable(text));
    QVERIFY2(!text.contains(QLatin1String("<executable_name>")), qPrintable(text));
    if (args.contains(QLatin1String("report")))
        for (const char* option : {"--sample", "--pose", "--methods", "--per-vertex", "--json", "--influences", "--device"})
            QVERIFY2(text.contains(QLatin1String(option)), option);
    // An unknown command is an error naming it.
    const Output bad = runRigscope({"help", "frobnicate"}, &env);
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("no command 'frobnicate'"));
}

void TestReportCli::processorNameIsLscpusWithTheCpuidBrandWhereTheyDiffer()
{
    // The rule on made-up readings, whatever this machine is: the kernel's name (what lscpu shows) first, the cpuid
    // brand string beside it only where both are known and differ.
    QCOMPARE(rig::processorName("AMD EPYC", "AMD EPYC", 25, 17), std::string("AMD EPYC (family 25, model 17)"));
    QCOMPARE(rig::processorName("AMD EPYC", "Oxide Virtual Turin-like Processor", 26, 2),
             std::string("AMD EPYC (family 26, model 2; cpuid brand string \"Oxide Virtual Turin-like Processor\")"));
    QCOMPARE(rig::processorName("", "Intel(R) Xeon(R) Platinum 8480+", 6, 143),
             std::string("Intel(R) Xeon(R) Platinum 8480+ (family 6, model 143)"));
    QCOMPARE(rig::processorName("AMD Ryzen 9 7950X 16-Core Processor", "", 25, 97),
             std::string("AMD Ryzen 9 7950X 16-Core Processor (family 25, model 97)"));
    QCOMPARE(rig::processorName("", "", 6, 85), std::string("unknown processor (family 6, model 85)"));
}

namespace {

/// The cpuid brand string read here, apart from rig/platform (trimmed of spaces); empty where there is none.
std::string cpuidBrandOfThisMachine()
{
    unsigned r[4] = {};
    if (!__get_cpuid(0x80000000u, &r[0], &r[1], &r[2], &r[3]) || r[0] < 0x80000004u)
        return {};
    char text[49] = {};
    for (unsigned leaf = 0; leaf < 3; ++leaf) {
        __get_cpuid(0x80000002u + leaf, &r[0], &r[1], &r[2], &r[3]);
        std::memcpy(text + 16 * leaf, r, 16);
    }
    std::string s = text;
    s.erase(0, s.find_first_not_of(' '));
    s.erase(s.find_last_not_of(' ') + 1);
    return s;
}

} // namespace

void TestReportCli::benchFirstNamesThisProcessorAsLscpuDoesAndCpuidWhereItDiffers()
{
    // The line benchmarks are quoted with, against the kernel's own reading of the first processor (/proc/cpuinfo)
    // and this test's own cpuid reading: the kernel's name, family and model, and the cpuid brand string exactly
    // where it differs from that name (a virtual machine may give the two different names).
    const std::optional<testutil::ProcCpu> cpu = testutil::readProcCpu();
    if (!cpu)
        QSKIP("no /proc/cpuinfo: the kernel's reading of the processor, this test's oracle, is absent");
    const std::string &family = cpu->family, &model = cpu->model;
    QVERIFY(!family.empty() && !model.empty());
    std::string name = cpu->name;
    name.erase(name.find_last_not_of(" \t") + 1);
    const std::string brand = cpuidBrandOfThisMachine();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("RIGSCOPE_ISA")); // the processor's own instruction sets, whatever the caller's shell caps
    const Output o = runRigscope({"bench", "--vertices", "2000", "--seconds", "0.01", "--methods", "linear"}, &env);
    QCOMPARE(o.exitCode, 0);
    const std::string first = o.out.left(o.out.indexOf('\n')).toStdString();
    const std::string shown = name.empty() ? (brand.empty() ? "unknown processor" : brand) : name;
    std::string expected = "CPU: " + shown + " (family " + family + ", model " + model;
    if (!name.empty() && !brand.empty() && brand != name)
        expected += "; cpuid brand string \"" + brand + "\"";
    expected += "): ";
    QVERIFY2(first.rfind(expected, 0) == 0, (first + "\nexpected to start with: " + expected).c_str());
    // The instruction sets, as the kernel lists them: the line names exactly one of the four levels.
    const std::string isa = first.substr(expected.size());
    const bool avx2Fma = cpu->has("avx2") && cpu->has("fma");
    const char* level = cpu->avx512() && avx2Fma ? "AVX-512 F/DQ/BW/VL, AVX2, FMA"
                        : avx2Fma               ? "AVX2, FMA (no AVX-512)"
                        : cpu->has("avx2")      ? "AVX2 (no FMA)"
                                                : "baseline x86-64 (no AVX2)";
    QVERIFY2(isa == level, (isa + " vs " + level).c_str());
}

void TestReportCli::isaCapLeavesOnlyTheKernelsItAllows_data()
{
    QTest::addColumn<QString>("isa");
    QTest::addColumn<QString>("says");
    QTest::newRow("avx2") << "avx2" << "capped at AVX2 by RIGSCOPE_ISA=avx2";
    QTest::newRow("baseline") << "baseline" << "capped at baseline x86-64 by RIGSCOPE_ISA=baseline";
    QTest::newRow("unknown value") << "sse9" << "RIGSCOPE_ISA='sse9' ignored (avx512, avx2 or baseline)";
}

void TestReportCli::isaCapLeavesOnlyTheKernelsItAllows()
{
    // RIGSCOPE_ISA caps every run-time choice of a SIMD path (what an AVX2-only or a baseline machine runs, measured on
    // this one): the bench names the cap and runs no row above it, skinning and reference rebuild alike.
    QFETCH(QString, isa);
    QFETCH(QString, says);
    const std::optional<testutil::ProcCpu> cpu = testutil::readProcCpu();
    if (!cpu)
        QSKIP("no /proc/cpuinfo");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("RIGSCOPE_ISA"), isa);
    const Output o = runRigscope({"bench", "--vertices", "2000", "--seconds", "0.01", "--threads", "1", "--methods",
                                  "linear,cofactor,rebuilt"},
                                 &env);
    QCOMPARE(o.exitCode, 0);
    const QString text = QString::fromUtf8(o.out);
    const QString first = text.left(text.indexOf(QLatin1Char('\n')));
    QVERIFY2(first.endsWith(says), qPrintable(first));
    QStringList rows;
    for (const QString& line : text.split(QLatin1Char('\n')))
        if (line.startsWith(QLatin1String("| linear")) || line.startsWith(QLatin1String("| cofactor")) ||
            line.startsWith(QLatin1String("| rebuilt")))
            rows << line;
    QVERIFY2(rows.size() >= 3, qPrintable(text));
    const bool avx2 = cpu->has("avx2") && cpu->has("fma");
    if (isa == QLatin1String("avx2")) {
        QVERIFY2(!first.contains(QLatin1String("AVX-512 F/DQ/BW/VL")), qPrintable(first));
        for (const QString& row : rows)
            QVERIFY2(!row.contains(QLatin1String("AVX-512")), qPrintable(row));
        QVERIFY2(text.contains(avx2 ? QLatin1String("linear kernel: AVX2+FMA") : QLatin1String("linear kernel: scalar")),
                 qPrintable(text));
        if (avx2)
            QVERIFY2(text.contains(QLatin1String("| rebuilt (reference rebuild, AVX2) |")), qPrintable(text));
    } else if (isa == QLatin1String("baseline")) {
        QVERIFY2(first.contains(QLatin1String("baseline x86-64 (no AVX2)")), qPrintable(first));
        QVERIFY2(text.contains(QLatin1String("linear kernel: scalar")), qPrintable(text));
        for (const QString& row : rows)
            QVERIFY2(row.contains(QLatin1String("scalar")) && !row.contains(QLatin1String("AVX")), qPrintable(row));
    } else {
        // Ignored: the CPU's own set, as without the variable.
        QCOMPARE(first.contains(QLatin1String("AVX-512 F/DQ/BW/VL")), cpu->avx512());
        QCOMPARE(text.contains(QLatin1String("| rebuilt (reference rebuild, AVX-512) |")), cpu->avx512());
    }
}

QTEST_GUILESS_MAIN(TestReportCli)
#include "test_report_cli.moc"
