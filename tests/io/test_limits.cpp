// Limits and long sessions: the import memory budget, a 5M-vertex rig through the whole CPU pipeline within the
// machine's memory, and repeated loads and evaluations that must not grow the process.
//
// Peak memory is the process's peak resident set (getrusage ru_maxrss), so each of these runs in its own executable.
#include "testutil.h"
#include "gltf_files.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>

#include <sys/resource.h>

#include <cstring>
#include <string>
#include <vector>

#include "fuzz/hostile_pipeline.h"
#include "rig/analysis/audit.h"
#include "rig/deform/deform.h"
#include "rig/io/import.h"
#include "rig/model/pose.h"
#include "rig/io/report.h"

namespace {

constexpr size_t MiB = size_t(1) << 20;

// Under AddressSanitizer freed memory sits in its quarantine (up to 256 MiB) and the resident set grows without a
// leak: there LeakSanitizer (at exit) checks for leaks instead of the RSS.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

double peakRssMiB()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_maxrss) / 1024.0; // KiB on Linux
}

/// The resident set now (VmRSS), for growth that stays below an earlier peak.
double currentRssMiB()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return 0.0;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0; // "VmRSS:   1234 kB"
    return 0.0;
}

/// A GLB holding one flat grid of side x side vertices (POSITION, NORMAL, TEXCOORD_0, 32-bit indices), unskinned.
QByteArray gridGlb(uint32_t side)
{
    const uint32_t n = side * side;
    std::vector<float> pos, nrm, uv;
    std::vector<uint32_t> idx;
    pos.reserve(3 * n), nrm.reserve(3 * n), uv.reserve(2 * n);
    for (uint32_t j = 0; j < side; ++j)
        for (uint32_t i = 0; i < side; ++i) {
            pos.insert(pos.end(), {float(i), 0.0f, float(j)});
            nrm.insert(nrm.end(), {0.0f, 1.0f, 0.0f});
            uv.insert(uv.end(), {float(i) / float(side - 1), float(j) / float(side - 1)});
        }
    for (uint32_t j = 0; j + 1 < side; ++j)
        for (uint32_t i = 0; i + 1 < side; ++i) {
            const uint32_t a = j * side + i, b = a + 1, c = a + side, d = c + 1;
            idx.insert(idx.end(), {a, c, b, b, c, d});
        }
    testgltf::Builder g;
    const int p = g.floats(pos, "VEC3", true), nr = g.floats(nrm, "VEC3"), t = g.floats(uv, "VEC2"), i = g.u32(idx, "SCALAR");
    const QJsonObject primitive{{"attributes", QJsonObject{{"POSITION", p}, {"NORMAL", nr}, {"TEXCOORD_0", t}}},
                                {"indices", i}};
    g.root["scene"] = 0;
    g.root["scenes"] = QJsonArray{QJsonObject{{"nodes", QJsonArray{0}}}};
    g.root["nodes"] = QJsonArray{QJsonObject{{"name", "grid"}, {"mesh", 0}}};
    g.root["meshes"] = QJsonArray{QJsonObject{{"name", "grid"}, {"primitives", QJsonArray{primitive}}}};
    return g.glb();
}

rig::Result<rig::Rig> importBytes(const QByteArray& bytes, const char* hint, const std::string& name, size_t budget)
{
    rig::ImportOptions options;
    options.memoryBudgetBytes = budget;
    return rig::importMemory(bytes.constData(), size_t(bytes.size()), hint, name, options);
}

} // namespace

class TestLimits : public QObject {
    Q_OBJECT

private slots:
    /// A file whose decoded rig needs more than the budget is refused before it is converted, with the numbers.
    void memoryBudget()
    {
        const uint32_t side = 400; // 160,000 vertices, 318,402 triangles
        const QByteArray glb = gridGlb(side);
        const size_t n = size_t(side) * side;
        const auto atLeast = [&] { // what the rig must hold at the least: positions, normals, UVs, tangents, indices
            const size_t bytes = n * (12 + 12 + 8 + 16) + size_t(side - 1) * (side - 1) * 6 * 4;
            return (bytes + MiB - 1) / MiB;
        }();

        auto r = importBytes(glb, "glb", "grid.glb", 1 * MiB);
        QVERIFY(!r.ok());
        const QRegularExpression form(QStringLiteral("^grid\\.glb: needs (\\d+) MiB, over the 1 MiB budget$"));
        const QRegularExpressionMatch m = form.match(QString::fromStdString(r.error()));
        QVERIFY2(m.hasMatch(), r.error().c_str());
        const size_t need = m.captured(1).toULongLong();
        QVERIFY2(need >= atLeast && need < 4 * atLeast, qPrintable(QStringLiteral("needs %1 MiB, expected %2..%3").arg(need).arg(atLeast).arg(4 * atLeast)));

        // One MiB short of the need: still refused, naming both numbers; at the need: loads.
        r = importBytes(glb, "glb", "grid.glb", (need - 1) * MiB);
        QVERIFY(!r.ok());
        QCOMPARE(r.error(), "grid.glb: needs " + std::to_string(need) + " MiB, over the " + std::to_string(need - 1) + " MiB budget");
        r = importBytes(glb, "glb", "grid.glb", need * MiB);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
        QCOMPARE(r->vertexCount(), n);
        QCOMPARE(r->triangleCount(), size_t(side - 1) * (side - 1) * 2);
        QVERIFY(r->meshes.at(0).tangentsGenerated);
    }

    /// A long session: the same rig evaluated for 400 poses along its clip, and a real file loaded and dropped 60
    /// times. The resident set must stay flat: a leak of a few bytes per vertex per call would raise it by megabytes.
    /// (Runs before fiveMillionVertices; measures the current RSS, not the peak.)
    void longSessionDoesNotGrow()
    {
        REQUIRE_ASSETS();
        const rig::Rig sheet = testutil::sample("sheet");
        const rig::RigRuntime rt = rig::buildRuntime(sheet, 4);
        rig::Evaluation eval;
        rig::DeformSettings settings;
        settings.threads = 1;
        const rig::Audit audit = rig::auditRig(sheet);
        auto evaluateAt = [&](int i) {
            rig::Pose pose;
            pose.clip = "wave";
            pose.time = 0.01 * i;
            pose.morphs["swirl"] = float(i % 10) / 10.0f;
            auto resolved = rig::resolvePose(sheet, pose);
            QVERIFY2(resolved.ok(), resolved.ok() ? "" : resolved.error().c_str());
            rig::evaluate(sheet, rt, resolved.value(), rig::allMethods(), settings, eval);
            const hostile::ReportCheck r = hostile::checkReport(sheet, rt, pose, settings, eval, audit, rig::ReportOptions{});
            QVERIFY2(r.problem.empty(), r.problem.c_str());
        };
        for (int i = 0; i < 20; ++i)
            evaluateAt(i);
        const double warm = currentRssMiB();
        for (int i = 20; i < 400; ++i)
            evaluateAt(i);
        const double afterPoses = currentRssMiB();
        qInfo("400 evaluations of 'sheet': RSS %.1f MiB after 20, %.1f after 400", warm, afterPoses);
        if (!kAddressSanitizer)
            QVERIFY2(afterPoses - warm < 4.0, qPrintable(QStringLiteral("RSS grew by %1 MiB").arg(afterPoses - warm)));

        const std::string path = testutil::assetPath("CesiumMan/cesium_man.gltf");
        for (int i = 0; i < 5; ++i)
            QVERIFY(rig::importFile(path).ok());
        const double loadedWarm = currentRssMiB();
        for (int i = 0; i < 55; ++i) {
            const auto r = rig::importFile(path);
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
            QCOMPARE(r->vertexCount(), size_t(3273));
        }
        const double loadedAfter = currentRssMiB();
        qInfo("60 loads of CesiumMan: RSS %.1f MiB after 5, %.1f after 60", loadedWarm, loadedAfter);
        if (!kAddressSanitizer)
            QVERIFY2(loadedAfter - loadedWarm < 16.0, qPrintable(QStringLiteral("RSS grew by %1 MiB").arg(loadedAfter - loadedWarm)));
    }

    /// An import after parallelFor's pool started in this process: the worker (a new process, not a fork of this one)
    /// generates the normals of a big mesh and finishes at once. (A forked child once waited for the parent's pool
    /// threads, which do not exist after fork, until the import timed out.)
    void workerImportAfterThePoolStarted()
    {
        // Start the pool: an evaluation of a mesh above the parallel grain (16384 vertices) on every core.
        const rig::Rig big = rig::makeBenchmarkRig(100'000, 10, 4);
        const rig::RigRuntime rt = rig::buildRuntime(big, 4);
        auto resolved = rig::resolvePose(big, rig::Pose{});
        QVERIFY(resolved.ok());
        rig::Evaluation eval;
        rig::evaluate(big, rt, resolved.value(), rig::allMethods(), rig::DeformSettings{}, eval);

        // A 150 x 150 OBJ grid without normals: the importer generates them (in parallel, were it allowed).
        QByteArray obj;
        const int side = 150;
        for (int j = 0; j < side; ++j)
            for (int i = 0; i < side; ++i)
                obj += "v " + QByteArray::number(i) + " 0 " + QByteArray::number(j) + "\n";
        for (int j = 0; j + 1 < side; ++j)
            for (int i = 0; i + 1 < side; ++i) {
                const int a = j * side + i + 1, b = a + 1, c = a + side, d = c + 1;
                obj += "f " + QByteArray::number(a) + " " + QByteArray::number(c) + " " + QByteArray::number(b) + "\nf " +
                       QByteArray::number(b) + " " + QByteArray::number(c) + " " + QByteArray::number(d) + "\n";
            }
        rig::ImportOptions options;
        options.isolate = true;
        options.timeoutSeconds = 60;
        QElapsedTimer t;
        t.start();
        const auto r = rig::importMemory(obj.constData(), size_t(obj.size()), "obj", "grid.obj", options);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
        QCOMPARE(r->triangleCount(), size_t(2 * (side - 1) * (side - 1))); // OBJ faces get vertices of their own
        QVERIFY(r->meshes.at(0).normalsGenerated);
        QVERIFY2(t.elapsed() < 30'000, qPrintable(QStringLiteral("took %1 ms").arg(t.elapsed())));
    }

    /// rig::makeBenchmarkRig(5'000'000, 100, 4) through buildRuntime, evaluate (every method, a bent pose, all
    /// cores), the audit and the report, within 12 GiB of peak resident memory (the machine has 24).
    void fiveMillionVertices()
    {
        QElapsedTimer total;
        total.start();
        QElapsedTimer t;
        t.start();
        const rig::Rig rig = rig::makeBenchmarkRig(5'000'000, 100, 4);
        const qint64 makeMs = t.restart();
        QVERIFY(rig.vertexCount() >= 4'990'000 && rig.vertexCount() <= 5'010'000);
        QCOMPARE(rig.jointCount(), size_t(100));
        const double afterRig = peakRssMiB();

        const rig::RigRuntime rt = rig::buildRuntime(rig, 4);
        const qint64 runtimeMs = t.restart();
        const double afterRuntime = peakRssMiB();

        rig::Pose pose;
        for (const rig::Node& node : rig.skeleton.nodes)
            pose.joints[node.name].rotateDeg = glm::vec3(0.0f, 0.0f, 1.5f);
        auto resolved = rig::resolvePose(rig, pose);
        QVERIFY2(resolved.ok(), resolved.ok() ? "" : resolved.error().c_str());
        rig::DeformSettings settings;
        rig::Evaluation eval;
        t.restart();
        rig::evaluate(rig, rt, resolved.value(), rig::allMethods(), settings, eval);
        const qint64 evaluateMs = t.restart();
        const double afterEvaluate = peakRssMiB();

        const rig::Audit audit = rig::auditRig(rig);
        const qint64 auditMs = t.restart();
        const hostile::ReportCheck report = hostile::checkReport(rig, rt, pose, settings, eval, audit, rig::ReportOptions{});
        const qint64 reportMs = t.restart();
        const double peak = peakRssMiB();

        qInfo("5M-vertex rig (%zu vertices, %zu triangles): make %lld ms, runtime %lld ms, evaluate (8 methods) %lld ms, "
              "audit %lld ms, report %lld ms (%zu bytes); total %lld ms",
              rig.vertexCount(), rig.triangleCount(), makeMs, runtimeMs, evaluateMs, auditMs, reportMs, report.bytes,
              total.elapsed());
        qInfo("peak RSS: %.0f MiB after the rig, %.0f after the runtime, %.0f after evaluate, %.0f at the end",
              afterRig, afterRuntime, afterEvaluate, peak);

        QVERIFY2(report.problem.empty(), report.problem.c_str());
        QCOMPARE(audit.count(rig::AuditFinding::Severity::Error), size_t(0));
        for (rig::Method m : rig::allMethods()) {
            const rig::MethodStats& st = eval.stats[size_t(m)];
            QCOMPARE(st.normal.defined + st.normal.undefined, rig.vertexCount());
            QVERIFY(std::isfinite(st.normal.max) && st.normal.max <= 180.0);
        }
        QVERIFY2(peak < 12.0 * 1024.0, qPrintable(QStringLiteral("peak RSS %1 MiB, over 12 GiB").arg(peak)));
    }

};

QTEST_GUILESS_MAIN(TestLimits)
#include "test_limits.moc"
