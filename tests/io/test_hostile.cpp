// Hostile input: the hand-made broken-rig corpus (tests/data/broken, written by make_broken.py) with the exact outcome
// of each file, and the replay of every input the fuzzer ever broke (tests/data/fuzz-regressions) through the fuzzer's
// own path (fuzz/hostile_pipeline.h).
//
// For every file: no crash, and either a clean one-line error "<path>: <reason>", or a rig whose audit has exactly the
// expected findings and whose report JSON is valid, has no NaN/inf text, and writes every undefined value as null.
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>

#include <sstream>
#include <string>
#include <vector>

#include <glm/gtc/matrix_transform.hpp>

#include "fuzz/hostile_pipeline.h"
#include "rig/io/json/json_write.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include "rig/analysis/audit.h"
#include "rig/deform/deform.h"
#include "rig/io/import.h"
#include "rig/model/pose.h"
#include "rig/io/report.h"
#include "rig/deform/skinning.h"

namespace {

QString brokenDir() { return QStringLiteral(RIGSCOPE_TEST_DATA_DIR "/broken"); }

/// The files of tests/data/broken, each with one row in brokenCorpus_data (make_broken.py writes exactly these).
const QStringList& brokenFiles()
{
    static const QStringList files = {
        "all_zero_weights.gltf", "empty_mesh.gltf",     "huge_count.gltf",          "huge_weights.gltf",
        "identical_uvs.gltf",    "joint_out_of_range.gltf", "mirrored_joint.gltf",  "missing_child.gltf",
        "nan_weights.gltf",      "negative_weights.gltf", "node_cycle.gltf",        "not_a_model.gltf",
        "singular_inverse_bind.gltf", "skin_without_inverse_binds.gltf", "tiny_weights.gltf", "truncated_buffer.gltf",
        "vertex_without_influence.gltf", "zero_area_triangles.gltf",
    };
    return files;
}

QString regressionDir() { return QStringLiteral(RIGSCOPE_TEST_DATA_DIR "/fuzz-regressions"); }

QByteArray readAll(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return f.readAll();
}

/// "code:count:e0,e1,...;code:count:..." for every finding except the importer's notes (code "import"), in audit order.
QString findingsOf(const rig::Audit& audit)
{
    QStringList out;
    for (const rig::AuditFinding& f : audit.findings) {
        if (f.code == "import")
            continue;
        QStringList examples;
        for (uint32_t e : f.examples)
            examples << QString::number(e);
        out << QStringLiteral("%1:%2:%3").arg(QString::fromStdString(f.code)).arg(f.count).arg(examples.join(','));
    }
    return out.join(';');
}

/// The value at a dotted path ("methods.linear.singular_vertices"; array elements by index) as compact JSON text.
QString jsonAt(const QJsonValue& root, const QString& path)
{
    QJsonValue v = root;
    for (const QString& part : path.split('.')) {
        bool isIndex = false;
        const int index = part.toInt(&isIndex);
        if (isIndex && v.isArray())
            v = v.toArray().at(index);
        else if (v.isObject() && v.toObject().contains(part))
            v = v.toObject().value(part);
        else
            return QStringLiteral("<missing>");
    }
    if (v.isObject())
        return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    if (v.isArray())
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    // A scalar: wrap it to serialise, then unwrap.
    const QString wrapped = QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact));
    return wrapped.mid(1, wrapped.size() - 2);
}

/// Null checks that hold for every report: a statistic with no defined vertex is null, and every per-vertex error
/// array has exactly as many nulls as the statistic's undefined count.
QString undefinedIsNullProblem(const QJsonObject& report)
{
    const QJsonObject methods = report["methods"].toObject();
    const QJsonObject perVertex = report["per_vertex"].toObject();
    for (auto it = methods.begin(); it != methods.end(); ++it) {
        for (const char* which : {"normal_error_deg", "tangent_error_deg"}) {
            const QJsonObject stats = it.value().toObject()[which].toObject();
            const int defined = stats["defined"].toInt(-1), undefined = stats["undefined"].toInt(-1);
            if (defined == 0)
                for (const char* key : {"max", "mean", "p95"})
                    if (!stats[key].isNull())
                        return QStringLiteral("%1.%2.%3 is not null with no defined vertex").arg(it.key(), which, key);
            const QJsonArray errors = perVertex[it.key()].toObject()[which].toArray();
            int nulls = 0;
            for (const QJsonValue e : errors)
                nulls += e.isNull() ? 1 : 0;
            if (nulls != undefined || errors.size() != defined + undefined)
                return QStringLiteral("%1 %2: %3 nulls of %4 values, statistic says %5 undefined of %6")
                    .arg(it.key(), which)
                    .arg(nulls)
                    .arg(errors.size())
                    .arg(undefined)
                    .arg(defined + undefined);
        }
    }
    return {};
}

/// Writes the rest-pose report of `rig` (all methods, per-vertex arrays) and returns it.
std::string restReport(const rig::Rig& rig)
{
    const rig::RigRuntime rt = rig::buildRuntime(rig, 4);
    const rig::Pose pose;
    auto resolved = rig::resolvePose(rig, pose);
    if (!resolved.ok())
        qFatal("rest pose: %s", resolved.error().c_str());
    rig::DeformSettings settings;
    settings.threads = 1;
    rig::Evaluation eval;
    rig::evaluate(rig, rt, resolved.value(), rig::allMethods(), settings, eval);
    std::ostringstream out;
    rig::ReportOptions options;
    options.perVertex = true;
    rig::writeReportJson(out, rig, rt, pose, settings, eval, rig::auditRig(rig), options);
    return out.str();
}

/// A hand-made skinned grid (16 x 16 vertices, two joints) whose rest normals and tangents are poisoned on a pattern of
/// vertices: NaN, infinite, overflowing (|v|² = inf), too short (|v|² < 1e-24) and zero. Every method must give unit or
/// zero (undefined) frames for them, on every kernel, never NaN.
rig::Rig poisonedFramesRig()
{
    rig::Rig r;
    r.source = "hand-made:poisoned-frames";
    rig::Node root;
    root.name = "root";
    rig::Node tip;
    tip.name = "tip";
    tip.parent = 0;
    tip.rest.translation = glm::vec3(1.0f, 0.0f, 0.0f);
    tip.restMatrix = tip.rest.matrix();
    r.skeleton.nodes = {root, tip};
    rig::Skin skin;
    skin.name = "skin";
    skin.joints = {0, 1};
    skin.inverseBind = {glm::mat4(1.0f), glm::inverse(tip.restMatrix)};
    r.skins.push_back(skin);

    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const glm::vec3 badNormals[] = {{nan, 1, 0}, {inf, 0, 0}, {3e38f, 3e38f, 0}, {1e-30f, 0, 0}, {0, 0, 0}, {-inf, nan, 1}};
    const glm::vec4 badTangents[] = {{nan, 0, 0, 1}, {0, inf, 0, -1}, {2e38f, 0, 2e38f, 1}, {0, 0, 0, 1}};
    rig::Mesh mesh;
    mesh.name = "grid";
    mesh.node = 0;
    mesh.skin = 0;
    const uint32_t side = 16;
    mesh.influenceOffsets.push_back(0);
    for (uint32_t j = 0; j < side; ++j)
        for (uint32_t i = 0; i < side; ++i) {
            const uint32_t v = j * side + i;
            const float x = 2.0f * float(i) / float(side - 1);
            mesh.positions.emplace_back(x, float(j) / float(side - 1), 0.0f);
            mesh.normals.push_back(v % 7 < 6 && v % 3 == 0 ? badNormals[v % 6] : glm::vec3(0, 0, 1));
            mesh.tangents.push_back(v % 5 == 1 ? badTangents[v % 4] : glm::vec4(1, 0, 0, 1));
            mesh.uvs.emplace_back(x / 2.0f, float(j) / float(side - 1));
            const float w = std::clamp(x - 0.5f, 0.0f, 1.0f);
            mesh.influences.push_back({0, 1.0f - w});
            mesh.influences.push_back({1, w});
            mesh.influenceOffsets.push_back(uint32_t(mesh.influences.size()));
        }
    for (uint32_t j = 0; j + 1 < side; ++j)
        for (uint32_t i = 0; i + 1 < side; ++i) {
            const uint32_t a = j * side + i, b = a + 1, c = a + side, d = c + 1;
            mesh.indices.insert(mesh.indices.end(), {a, b, d, a, d, c});
        }
    r.meshes.push_back(std::move(mesh));
    return r;
}

long peakRssMiB()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024; // ru_maxrss is in KiB on Linux
}

} // namespace

class TestHostile : public QObject {
    Q_OBJECT

private slots:
    void brokenCorpus_data()
    {
        QTest::addColumn<QString>("file");
        // Exactly one of: `error` (the reason after "<path>: "), or `findings` (findingsOf: the complete list).
        QTest::addColumn<QString>("error");
        QTest::addColumn<QString>("findings");
        // Extra facts of the rest-pose report: "path=compact JSON" pairs separated by " | ".
        QTest::addColumn<QString>("report");

        QStringList rows;
        auto row = [&rows](const char* file) -> QTestData& {
            rows << QString::fromLatin1(file);
            return QTest::newRow(qPrintable(QString::fromLatin1(file).chopped(5))) << QString::fromLatin1(file);
        };

        // Loads; its findings are exactly these. (Assimp 5.2.4 drops NaN, negative and out-of-range glTF weights: the
        // importer reads JOINTS_n/WEIGHTS_n itself, so the audit sees them.)
        row("nan_weights.gltf") << "" << "non-finite-weight:2:1,6" << "audit.errors=1";
        row("negative_weights.gltf") << "" << "negative-weight:3:1,2,5" << "audit.errors=1";
        // Half of each vertex's weight names joint 9 of 2: ignored by the runtime, so what is left sums to 0.5.
        row("joint_out_of_range.gltf") << "" << "joint-out-of-range:2:3,7;weights-not-normalised:2:3,7" << "audit.errors=1";
        row("all_zero_weights.gltf") << "" << "unweighted-vertex:8:0,1,2,3,4,5,6,7" << "audit.errors=1";
        row("vertex_without_influence.gltf") << "" << "unweighted-vertex:1:4" << "";
        // A denormal weight (1.4e-45) is valid: the runtime normalises it to exactly 1 (it used to become infinite).
        row("tiny_weights.gltf") << "" << "weights-not-normalised:1:2" << "methods.linear.normal_error_deg.max=0";
        // Four weights of 3e38 on two joints (each listed twice): their float sum overflows; the runtime still
        // normalises them (it used to treat the vertex as unbound).
        row("huge_weights.gltf") << "" << "duplicate-influence:1:5;weights-not-normalised:1:5"
                                 << "methods.linear.normal_error_deg.defined=8";
        row("zero_area_triangles.gltf") << "" << "zero-area-triangle:2:4,5" << "triangles=6";
        // Every triangle has degenerate UVs: the generated tangents, the reference tangents and so every tangent
        // error are undefined (null); the normals are fine.
        row("identical_uvs.gltf") << "" << "degenerate-uv-triangle:6:0,1,2,3,4,5"
                                  << "meshes.0.tangents=\"generated\" | methods.linear.tangent_error_deg.defined=0 | "
                                     "methods.linear.tangent_error_deg.max=null | methods.cofactor.tangent_error_deg.p95=null | "
                                     "methods.linear.normal_error_deg.defined=8 | per_vertex.linear.tangents.0=null";
        // The tip's skin matrix is singular: inverse-transpose has no normal on the tip's 4 vertices (x = 2, 3), dual
        // quaternions fall back to linear blending there.
        row("singular_inverse_bind.gltf")
            << "" << "singular-bind-matrix:1:1"
            << "singular_joints=[\"tip\"] | mirrored_joints=[] | methods.inverse-transpose.singular_vertices=4 | "
               "methods.inverse-transpose.normal_error_deg.undefined=4 | "
               "per_vertex.inverse-transpose.normal_error_deg.2=null | methods.dual-quaternion.linear_fallback_vertices=4";
        // The mirrored bind and the mirrored rest pose cancel: the rest-pose skin matrices are identities.
        row("mirrored_joint.gltf") << "" << "mirrored-bind-matrix:1:1"
                                   << "mirrored_joints=[] | singular_joints=[] | "
                                      "methods.dual-quaternion.linear_fallback_vertices=0 | methods.linear.normal_error_deg.max=0";

        // Valid glTF (inverseBindMatrices is optional: identities), but Assimp 5.2.4 dereferences the missing accessor
        // (SEGV in its glTF2 importer): the isolated import turns that into this message. (Supplying identity inverse
        // binds before Assimp sees the file would let it load.)
        row("skin_without_inverse_binds.gltf") << "the importer crashed on this file (Segmentation fault, signal 11)" << ""
                                               << "";

        // Fails cleanly, with Assimp's reason.
        row("node_cycle.gltf") << "GLTF: Object at index 1 in array \"nodes\" has recursive reference to itself" << ""
                               << "";
        row("missing_child.gltf") << "GLTF: Array index 7 is out of bounds (3) for \"nodes\"" << "" << "";
        // (Assimp names the two lengths the other way round: 644 bytes of data, 776 declared.)
        row("truncated_buffer.gltf") << "GLTF: buffer \"buffers[0]\", expected 644 bytes, but found 776" << "" << "";
        row("not_a_model.gltf") << "No suitable reader found for the file format of file \"%PATH%\"." << "" << "";
        row("empty_mesh.gltf") << "GLTF2: data is null when extracting data from accessors[0]" << "" << "";
        // 2^31 declared vertices over a 96-byte view: refused before anything that size is allocated.
        row("huge_count.gltf") << "GLTF: Accessor with offset/length (0/8589934592) is out of range." << "" << "";

        rows.sort();
        if (rows != brokenFiles())
            qFatal("brokenFiles() and the rows of brokenCorpus_data disagree");
    }

    void brokenCorpus()
    {
        QFETCH(QString, file);
        QFETCH(QString, error);
        QFETCH(QString, findings);
        QFETCH(QString, report);
        const std::string path = (brokenDir() + '/' + file).toStdString();

        // The import runs in the worker process: a file that crashes Assimp cannot take this test down.
        const long rssBefore = peakRssMiB();
        const rig::Result<rig::Rig> imported = rig::importFile(path);
        // No input may make the import balloon (huge_count declares 2^31 vertices).
        QVERIFY2(peakRssMiB() - rssBefore < 256, qPrintable(QStringLiteral("peak RSS grew by %1 MiB").arg(peakRssMiB() - rssBefore)));

        // The whole fuzz path (both poses, K = 4 and 8, every method, both reports checked) on the same bytes.
        const QByteArray bytes = readAll(QString::fromStdString(path));
        const hostile::Outcome outcome = hostile::runFile(reinterpret_cast<const uint8_t*>(bytes.constData()),
                                                          size_t(bytes.size()), "gltf", path, rig::ImportOptions{});
        QVERIFY2(outcome.problem.empty(), outcome.problem.c_str());
        QCOMPARE(outcome.loaded, imported.ok());

        if (!error.isEmpty()) {
            QVERIFY2(!imported.ok(), "expected a clean failure, the file loaded");
            QCOMPARE(QString::fromStdString(imported.error()), QString::fromStdString(path) + ": " + error.replace("%PATH%", QString::fromStdString(path)));
            QVERIFY(hostile::errorMessageProblem(imported.error(), path).empty());
            // importMemory (the fuzz path, same bytes, same display name) should give the same message; Assimp's
            // memory reader names its own stand-in file in some messages instead ("$$$___magic___$$$.gltf").
            if (outcome.error.find("$$$___magic___$$$") != std::string::npos)
                QEXPECT_FAIL("", "importMemory: Assimp's messages name its stand-in file \"$$$___magic___$$$.<hint>\"", Continue);
            QVERIFY2(outcome.error == imported.error(),
                     qPrintable(QStringLiteral("importMemory says \"%1\", importFile says \"%2\"")
                                    .arg(QString::fromStdString(outcome.error), QString::fromStdString(imported.error()))));
            return;
        }
        QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().c_str());
        const rig::Rig& rig = imported.value();
        QVERIFY2(hostile::rigInvariantProblem(rig).empty(), hostile::rigInvariantProblem(rig).c_str());
        QCOMPARE(rig.vertexCount(), size_t(8));

        const rig::Audit audit = rig::auditRig(rig);
        const QString actual = findingsOf(audit);
        QCOMPARE(actual, findings);

        const std::string text = restReport(rig);
        QVERIFY2(hostile::jsonProblem(text).empty(), hostile::jsonProblem(text).c_str());
        QJsonParseError parseError{};
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &parseError);
        QVERIFY2(parseError.error == QJsonParseError::NoError, qPrintable(parseError.errorString()));
        const QJsonObject json = doc.object();
        QCOMPARE(json["source"].toString(), QString::fromStdString(path));
        QVERIFY2(undefinedIsNullProblem(json).isEmpty(), qPrintable(undefinedIsNullProblem(json)));
        for (const QString& fact : report.split(" | ", Qt::SkipEmptyParts)) {
            const qsizetype eq = fact.indexOf('=');
            QCOMPARE(jsonAt(json, fact.left(eq).trimmed()), fact.mid(eq + 1).trimmed());
        }
    }

    /// The generator's outputs are committed: they must be what make_broken.py writes today.
    void corpusMatchesGenerator()
    {
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (python.isEmpty())
            QSKIP("python3 not found");
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString script = tmp.filePath(QStringLiteral("make_broken.py"));
        QVERIFY(QFile::copy(brokenDir() + QStringLiteral("/make_broken.py"), script));
        QProcess p;
        p.start(python, {script});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QStringList made = QDir(tmp.path()).entryList({QStringLiteral("*.gltf")}, QDir::Files, QDir::Name);
        QCOMPARE(made, QDir(brokenDir()).entryList({QStringLiteral("*.gltf")}, QDir::Files, QDir::Name));
        QCOMPARE(made, brokenFiles());
        for (const QString& name : made)
            QVERIFY2(readAll(tmp.filePath(name)) == readAll(brokenDir() + '/' + name), qPrintable(name + " differs from make_broken.py's output"));
    }

    /// Every input that ever broke the fuzzer, through the fuzzer's own path.
    void fuzzRegressions_data()
    {
        QTest::addColumn<QString>("file");
        QStringList files = QDir(regressionDir()).entryList(QDir::Files | QDir::Hidden, QDir::Name);
        files.removeAll(QStringLiteral("README.md"));
        for (const QString& f : files)
            QTest::newRow(qPrintable(f)) << regressionDir() + '/' + f;
        if (files.isEmpty())
            QTest::newRow("none") << QString();
    }

    void fuzzRegressions()
    {
        QFETCH(QString, file);
        if (file.isEmpty())
            QSKIP("no regression inputs yet");
        const QByteArray bytes = readAll(file);
        const std::string name = QFileInfo(file).fileName().toStdString();
        // These inputs once crashed the fuzzer (some inside Assimp, which the worker process contains).
        const std::string result = [&]() -> std::string {
            const long rssBefore = peakRssMiB();
            const hostile::Outcome o = hostile::run(reinterpret_cast<const uint8_t*>(bytes.constData()), size_t(bytes.size()), name);
            if (!o.problem.empty())
                return "contract broken: " + o.problem;
            if (peakRssMiB() - rssBefore >= 512)
                return "peak RSS grew by " + std::to_string(peakRssMiB() - rssBefore) + " MiB";
            if (o.loaded && (o.vertices == 0 || o.jsonBytes == 0))
                return "loaded, but no vertices or no report";
            return o.loaded ? "loaded" : "error: " + o.error;
        }();
        qInfo("%s: %s", name.c_str(), result.c_str());
        QVERIFY2(result == "loaded" || result.rfind("error: " + name + ": ", 0) == 0, result.c_str());
#if defined(__SANITIZE_ADDRESS__)
        // The heap over-reads inside Assimp's glTF2 importer (../shared/fuzz-found): in a sanitizer build the worker's
        // AddressSanitizer catches each one and the import fails cleanly, naming the file. (In a release build the
        // over-read goes unseen inside the worker, which can read nothing but the file: it loads or fails cleanly.)
        if (name.rfind("assimp-heap-overread-", 0) == 0)
            QVERIFY2(result.find("the importer crashed on this file (heap-buffer-overflow, found by AddressSanitizer)") != std::string::npos,
                     result.c_str());
#endif
    }

    /// Small files that crashed the process inside Assimp 5.2.4 through importFile (the same bytes reach it through
    /// importMemory: see tests/data/fuzz-regressions). Each must load or fail cleanly (the worker contains the crash).
    void filesThatCrashedAssimp_data()
    {
        QTest::addColumn<QStringList>("files"); // name, content, name, content, ...; the first one is opened
        QTest::addColumn<QString>("loaded");    // "loaded N" when it must load with N vertices, empty when a clean error is fine
        // An OBJ material library that sets a texture before any `newmtl`: the MTL reader writes through a null
        // material (SEGV). RigScope needs no materials (hiding .mtl files from Assimp would let the triangle load).
        QTest::newRow("obj-mtl-texture-before-newmtl")
            << QStringList{"textured.obj", "mtllib textured.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "textured.mtl",
                           "map_Kd texture.png\n"}
            << "";
        // A Collada <polylist> whose count disagrees with its (absent) <vcount>: Debian's Assimp is built with its
        // ai_assert checks on, and a failed one calls abort().
        QTest::newRow("dae-polylist-count-assert")
            << QStringList{"polylist.dae", "<COLLADA><library_geometries><geometry><mesh><polylist count=\"6\"></polylist>"
                                           "</mesh></geometry></library_geometries></COLLADA>"}
            << "";
    }

    void filesThatCrashedAssimp()
    {
        QFETCH(QStringList, files);
        QFETCH(QString, loaded);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        for (qsizetype i = 0; i + 1 < files.size(); i += 2) {
            QFile f(tmp.filePath(files[i]));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(files[i + 1].toUtf8());
        }
        const std::string path = tmp.filePath(files[0]).toStdString();
        const std::string result = [&]() -> std::string {
            const rig::Result<rig::Rig> r = rig::importFile(path);
            if (!r.ok())
                return "error: " + r.error();
            if (const std::string p = hostile::rigInvariantProblem(r.value()); !p.empty())
                return "broken rig: " + p;
            return "loaded " + std::to_string(r->vertexCount());
        }();
        if (!loaded.isEmpty())
            QCOMPARE(QString::fromStdString(result), loaded);
        else
            QVERIFY2(result.rfind("loaded ", 0) == 0 ||
                         (result.rfind("error: " + path + ": ", 0) == 0 && hostile::errorMessageProblem(result.substr(7), path).empty()),
                     result.c_str());
    }

    /// NaN, infinite, overflowing and too-short rest frames: undefined (zero) on every kernel of every method, in both
    /// poses and with 4 and 8 influences; the reports stay free of NaN.
    void poisonedFramesStayUndefined()
    {
        const rig::Rig rig = poisonedFramesRig();
        QVERIFY2(hostile::rigInvariantProblem(rig).empty(), hostile::rigInvariantProblem(rig).c_str());
        const rig::Audit audit = rig::auditRig(rig);
        QVERIFY(audit.find("non-finite-normal") && audit.find("zero-normal"));
        for (int k : {4, 8}) {
            const rig::RigRuntime rt = rig::buildRuntime(rig, k);
            for (bool bent : {false, true}) {
                rig::Pose pose;
                if (bent)
                    pose.joints["tip"].rotateDeg = glm::vec3(10.0f, 20.0f, 45.0f), pose.joints["tip"].scale = glm::vec3(1, 2, 0.5f);
                auto resolved = rig::resolvePose(rig, pose);
                QVERIFY(resolved.ok());
                rig::DeformSettings settings;
                rig::Evaluation eval;
                rig::evaluate(rig, rt, resolved.value(), rig::allMethods(), settings, eval);
                const std::string p = hostile::evaluationProblem(rig, eval);
                QVERIFY2(p.empty(), qPrintable(QStringLiteral("K=%1 %2: %3").arg(k).arg(bent ? "bent" : "rest", QString::fromStdString(p))));
                rig::ReportOptions options;
                options.perVertex = true;
                const hostile::ReportCheck report = hostile::checkReport(rig, rt, pose, settings, eval, audit, options);
                QVERIFY2(report.problem.empty(), report.problem.c_str());
            }
        }

        // Every linear kernel this CPU has, directly (SkinJob::run uses only the best one).
        const rig::Mesh& mesh = rig.meshes[0];
        const rig::RigRuntime rt = rig::buildRuntime(rig, 4);
        const glm::mat4 bend = glm::rotate(glm::mat4(1.0f), 0.7f, glm::vec3(0, 0, 1));
        std::vector<glm::mat4> matrices = {glm::mat4(1.0f), bend, glm::mat4(1.0f)};
        std::vector<rig::JointFrame> palette(matrices.size());
        rig::buildJointFrames(matrices, palette);
        for (rig::LinearKernel kernel : {rig::LinearKernel::Scalar, rig::LinearKernel::Avx2, rig::LinearKernel::Avx512}) {
            if (!rig::linearKernelAvailable(kernel))
                continue;
            const size_t n = mesh.vertexCount();
            std::vector<glm::vec3> outP(n), outN(n);
            std::vector<glm::vec4> outT(n);
            rig::SkinJob job;
            job.method = rig::Method::Linear;
            job.palette = palette;
            job.influencesPerVertex = 4;
            job.joints = rt.meshes[0].stream.joints;
            job.weights = rt.meshes[0].stream.weights;
            job.positions = mesh.positions;
            job.normals = mesh.normals;
            job.tangents = mesh.tangents;
            job.outPositions = outP;
            job.outNormals = outN;
            job.outTangents = outT;
            QVERIFY(job.validate());
            rig::runLinearKernel(job, kernel);
            for (size_t v = 0; v < n; ++v)
                for (const glm::vec3& d : {outN[v], glm::vec3(outT[v])}) {
                    const float l2 = glm::dot(d, d);
                    QVERIFY2(std::isfinite(l2) && (l2 == 0.0f || std::fabs(l2 - 1.0f) < 1e-3f),
                             qPrintable(QStringLiteral("%1 kernel, vertex %2: (%3, %4, %5)")
                                            .arg(QString::fromLatin1(rig::linearKernelName(kernel).data()))
                                            .arg(v)
                                            .arg(d.x)
                                            .arg(d.y)
                                            .arg(d.z)));
                }
        }
    }

    /// Names in a file are bytes, not necessarily UTF-8: the report must stay valid JSON (U+FFFD for bad bytes).
    void reportStringsAreValidUtf8_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<QByteArray>("expected"); // the JSON string literal written
        const QByteArray fffd("\xef\xbf\xbd"); // U+FFFD
        QTest::newRow("ascii") << QByteArray("root") << QByteArray("\"root\"");
        QTest::newRow("valid 2, 3, 4 bytes") << QByteArray("\xc3\xa9\xe2\x82\xac\xf0\x9f\xa6\xb4") << QByteArray("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\xa6\xb4\"");
        QTest::newRow("lone continuation") << QByteArray("a\x80" "b") << "\"a" + fffd + "b\"";
        QTest::newRow("latin-1 byte") << QByteArray("caf\xe9") << "\"caf" + fffd + "\"";
        QTest::newRow("cut sequence") << QByteArray("x\xe2\x82") << "\"x" + fffd + fffd + "\"";
        QTest::newRow("overlong") << QByteArray("\xc0\xaf") << "\"" + fffd + fffd + "\"";
        QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << "\"" + fffd + fffd + fffd + "\"";
        QTest::newRow("above U+10FFFF") << QByteArray("\xf4\x90\x80\x80") << "\"" + fffd + fffd + fffd + fffd + "\"";
        QTest::newRow("0xff and controls") << QByteArray("\xff\x01\"\\") << "\"" + fffd + "\\u0001\\\"\\\\\"";
    }

    void reportStringsAreValidUtf8()
    {
        QFETCH(QByteArray, name);
        QFETCH(QByteArray, expected);
        // Through the report's own string writer (RapidJSON's, after rig::json::writeText makes the bytes UTF-8).
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
        rig::json::writeText(w, std::string_view(name.constData(), size_t(name.size())));
        const std::string written(buffer.GetString(), buffer.GetSize());
        QCOMPARE(QByteArray::fromStdString(written), expected);
        const std::string doc = "{\"name\":" + written + "}";
        QVERIFY2(hostile::jsonProblem(doc).empty(), hostile::jsonProblem(doc).c_str());
    }

    /// The checker itself: it must catch what it is there to catch.
    void jsonCheckerCatchesNonFinite()
    {
        QVERIFY(hostile::jsonProblem(R"({"a":[1,-2.5e-3,null,true,false,"x\u00e9\n"],"b":{}})").empty());
        QVERIFY(hostile::jsonProblem("{\"name\":\"caf\xc3\xa9 nan inf\"}").empty()); // words inside strings are fine
        for (const char* bad : {R"({"a":nan})", R"({"a":-nan})", R"({"a":NaN})", R"({"a":inf})", R"({"a":-inf})",
                                R"({"a":Infinity})", R"({"a":1e999})", R"({"a":01})", R"({"a":1.})", R"({"a":[1,]})",
                                R"({"a":1)", R"({"a" 1})", "{\"a\":\"\x01\"}", "{\"a\":\"\xff\"}", "{\"a\":\"\xc3\"}", ""})
            QVERIFY2(!hostile::jsonProblem(bad).empty(), bad);
    }
};

QTEST_GUILESS_MAIN(TestHostile)
#include "test_hostile.moc"
