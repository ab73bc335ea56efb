#include "app/cli/cli.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QStringList>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include "app/cli/gpu_cli.h"
#include "rig/io/pose_file.h"
#include "rig/analysis/audit.h"
#include "rig/analysis/diagnosis/blend_scale.h"
#include "rig/analysis/diagnosis/clip_scan.h"
#include "rig/analysis/format_difference.h"
#include "rig/deform/engine_profiles.h"
#include "rig/deform/deform.h"
#include "rig/io/import.h"
#include "rig/platform/parallel.h"
#include "rig/analysis/reference/reference.h"
#include "rig/io/report.h"
#include "rig/model/samples.h"
#include "rig/platform/cpu_features.h"
#include "rig/platform/huge_pages.h"
#include "viewer/compute/gpu_deformer.h"
#include "viewer/compute/gpu_evaluate.h"
#include "viewer/compute/offscreen_rhi.h"

namespace app {

namespace {

int failWith(const std::string& message)
{
    std::fprintf(stderr, "rigscope: %s\n", message.c_str());
    return 2;
}

QStringList argList(int argc, char** argv)
{
    QStringList args;
    args << QString::fromLocal8Bit(argv[0]);
    for (int i = 2; i < argc; ++i) // skip the subcommand
        args << QString::fromLocal8Bit(argv[i]);
    return args;
}

std::string profileList()
{
    std::string ids;
    for (const rig::EngineProfile& e : rig::engineProfiles())
        ids += (ids.empty() ? "" : ", ") + std::string(e.id);
    return ids;
}

/// --formats: "all", "none" or comma-separated profile ids (each once).
rig::Result<std::vector<const rig::EngineProfile*>> parseProfiles(const QString& list)
{
    std::vector<const rig::EngineProfile*> out;
    if (list == QLatin1String("none"))
        return out;
    if (list == QLatin1String("all")) {
        for (const rig::EngineProfile& e : rig::engineProfiles())
            if (e.id != "reference")
                out.push_back(&e);
        return out;
    }
    for (const QString& id : list.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const rig::EngineProfile* e = rig::findEngineProfile(id.trimmed().toStdString());
        if (!e)
            return rig::fail("no profile '" + id.trimmed().toStdString() + "' (" + profileList() + ", or all, none)");
        if (std::find(out.begin(), out.end(), e) == out.end())
            out.push_back(e);
    }
    if (out.empty())
        return rig::fail("no profile given (all, none, or ids)");
    return out;
}

rig::Result<std::vector<rig::Method>> parseMethods(const QString& list)
{
    std::vector<rig::Method> out;
    if (list.isEmpty() || list == QLatin1String("all"))
        return rig::allMethods();
    for (const QString& id : list.split(',', Qt::SkipEmptyParts)) {
        auto m = rig::methodFromId(id.trimmed().toStdString());
        if (!m) {
            std::string valid;
            for (rig::Method x : rig::allMethods())
                valid += (valid.empty() ? "" : ", ") + std::string(rig::methodId(x));
            return rig::fail("unknown method '" + id.toStdString() + "' (valid: " + valid + ")");
        }
        if (std::find(out.begin(), out.end(), *m) == out.end())
            out.push_back(*m);
    }
    return out;
}

void printSummary(std::ostream& os, const rig::Rig& rig, const rig::RigRuntime& runtime, const rig::Evaluation& eval,
                  const rig::Audit& audit)
{
    char line[256];
    os << rig.source << ": " << rig.vertexCount() << " vertices, " << rig.triangleCount() << " triangles, "
       << rig.jointCount() << " joints, " << rig.morphTargetCount() << " morph targets\n\n";
    std::snprintf(line, sizeof line, "%-24s %9s %9s %9s   %9s %9s %9s\n", "method", "N max°", "N mean°", "N p95°",
                  "T max°", "T mean°", "T p95°");
    os << line;
    auto cell = [](char* buf, size_t size, const rig::ErrorStats& s, double v) {
        if (s.defined == 0)
            std::snprintf(buf, size, "%9s", "-");
        else
            std::snprintf(buf, size, "%9.3f", v);
    };
    for (rig::Method m : eval.methods) {
        const rig::MethodStats& st = eval.stats[size_t(m)];
        char c[6][16];
        cell(c[0], 16, st.normal, st.normal.max);
        cell(c[1], 16, st.normal, st.normal.mean);
        cell(c[2], 16, st.normal, st.normal.p95);
        cell(c[3], 16, st.tangent, st.tangent.max);
        cell(c[4], 16, st.tangent, st.tangent.mean);
        cell(c[5], 16, st.tangent, st.tangent.p95);
        std::snprintf(line, sizeof line, "%-24s %s %s %s   %s %s %s\n", std::string(rig::methodId(m)).c_str(), c[0],
                      c[1], c[2], c[3], c[4], c[5]);
        os << line;
    }
    // The candy-wrapper scale loss of linear blending (README, report schema).
    const rig::CandyWrapper cw = rig::measureCandyWrapper(rig, runtime, eval);
    if (cw.worstMesh >= 0) {
        auto name = [&](int n) { return n >= 0 ? rig.skeleton.nodes[size_t(n)].name : std::string(); };
        std::snprintf(line, sizeof line, "\ncandy wrapper (linear blend): min scale %.3f at mesh %d vertex %zu", cw.minScale,
                      cw.worstMesh, cw.worstVertex);
        os << line;
        if (cw.worstNodeA >= 0 && cw.worstNodeB >= 0)
            os << " (" << name(cw.worstNodeA) << " / " << name(cw.worstNodeB) << ")";
        os << "; " << cw.below09 << " vertices below 0.9, " << cw.below07 << " below 0.7\n";
    }
    // The exact box beside the per-bone box an engine would cull with (README, report schema "bounds").
    const rig::Bounds exact = rig::surfaceBounds(eval, rig::Method::Linear);
    const rig::Bounds perBone = rig::perBoneBounds(rig, runtime, eval);
    if (!exact.empty()) {
        const glm::vec3 e = exact.size(), b = perBone.size();
        std::snprintf(line, sizeof line, "\nbounds: exact %.4g x %.4g x %.4g, per-bone %.4g x %.4g x %.4g", e.x, e.y, e.z,
                      b.x, b.y, b.z);
        os << line;
        const double v = rig::volumeRatio(perBone, exact);
        if (v > 0.0)
            std::snprintf(line, sizeof line, " (%.2fx the volume)\n", v);
        else
            std::snprintf(line, sizeof line, " (%.2fx the diagonal)\n", rig::diagonalRatio(perBone, exact));
        os << line;
    }
    if (!audit.findings.empty()) {
        os << "\naudit:\n";
        for (const rig::AuditFinding& f : audit.findings)
            os << "  " << rig::severityName(f.severity) << " [" << f.code << "] " << f.message << "\n";
    }
}

void printScan(std::ostream& os, const rig::Rig& rig, const rig::ClipScan& scan)
{
    char line[256];
    os << "\nscan of clip '" << rig.clips[size_t(scan.clip)].name << "': " << scan.times.size() << " frames";
    if (scan.step > 0.0f)
        os << " every " << scan.step << " s";
    os << (scan.cancelled ? " (cancelled)" : "") << "\n";
    for (const rig::ClipScanMethod& m : scan.methods) {
        if (m.worstErrorDeg < 0.0f)
            std::snprintf(line, sizeof line, "  %-24s no defined error\n", std::string(rig::methodId(m.method)).c_str());
        else
            std::snprintf(line, sizeof line, "  %-24s worst normal error %8.3f° at %.4f s (mesh %zu vertex %zu)\n",
                          std::string(rig::methodId(m.method)).c_str(), m.worstErrorDeg, m.time, m.mesh, m.vertex);
        os << line;
    }
    if (scan.minScaleMesh >= 0) {
        std::snprintf(line, sizeof line, "  linear blending keeps least: scale %.3f at %.4f s (mesh %d vertex %zu)",
                      scan.minScale, scan.minScaleTime, scan.minScaleMesh, scan.minScaleVertex);
        os << line;
        if (scan.minScaleNodeA >= 0 && scan.minScaleNodeB >= 0)
            os << " between " << rig.skeleton.nodes[size_t(scan.minScaleNodeA)].name << " and "
               << rig.skeleton.nodes[size_t(scan.minScaleNodeB)].name;
        os << "\n";
    }
    if (!scan.exactUnion.empty()) {
        std::snprintf(line, sizeof line,
                      "  animated bounds: one box for the whole clip is %.2fx a frame's volume on average, a frame's "
                      "per-bone box %.2fx\n",
                      scan.meanUnionVolumeRatio, scan.meanPerBoneVolumeRatio);
        os << line;
    }
}

void printFormats(std::ostream& os, const std::vector<rig::FormatComparison>& formats)
{
    os << "\nruntime formats against float x8 (every method; bytes per vertex for linear):\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-16s %3s %-8s %10s %12s %12s %10s\n", "profile", "K", "weights", "bytes/vert",
                  "max pos err", "max nrm err", "changed");
    os << line;
    for (const rig::FormatComparison& f : formats) {
        std::snprintf(line, sizeof line, "  %-16s %3d %-8s %10.0f %12.3g %11.3g° %10zu\n", f.profile.c_str(),
                      f.format.influences, std::string(rig::weightEncodingId(f.format.weights)).c_str(), f.linearBytesPerVertex,
                      double(f.maxPositionError), double(f.maxNormalErrorDeg), f.verticesChanged);
        os << line;
    }
}

} // namespace

/// The options of rigscope report, shared by the parser and the help text.
struct ReportCli {
    QCommandLineOption sample{QStringLiteral("sample"), QStringLiteral("Use a built-in rig instead of a file."),
        QStringLiteral("NAME")};
    QCommandLineOption pose{QStringLiteral("pose"), QStringLiteral("Pose file (JSON)."), QStringLiteral("FILE")};
    QCommandLineOption methods{QStringLiteral("methods"), QStringLiteral("Comma-separated method ids (default: all)."),
        QStringLiteral("IDS")};
    QCommandLineOption perVertex{QStringLiteral("per-vertex"), QStringLiteral("Include per-vertex arrays.")};
    QCommandLineOption json{QStringLiteral("json"), QStringLiteral("Write JSON to FILE, or - for stdout."),
        QStringLiteral("FILE")};
    QCommandLineOption influences{QStringLiteral("influences"),
        QStringLiteral("Runtime influences per vertex: 4 (default) or 8."),
        QStringLiteral("K"), QStringLiteral("4")};
    QCommandLineOption profile{QStringLiteral("profile"),
        QStringLiteral("Skin with an engine's runtime format (README \"Runtime formats\"): float32, unorm8, "
        "unorm16, unorm11_11_10, threejs, unity-1, unity-2, unity-4, unreal-4, unreal-8, unreal-8-16bit, reference. "
        "Instead of --influences."),
        QStringLiteral("NAME")};
    QCommandLineOption formats{QStringLiteral("formats"),
        QStringLiteral("Profiles compared with the float reference in the report (JSON: \"formats\"): all "
        "(default), none, or comma-separated ids."),
        QStringLiteral("IDS"), QStringLiteral("all")};
    QCommandLineOption noMorphNormals{QStringLiteral("no-morph-normals"),
        QStringLiteral("Morph positions only (ignore normal/tangent deltas).")};
    QCommandLineOption device{QStringLiteral("device"),
        QStringLiteral("cpu (default) or gpu (compute shaders; needs a display, e.g. "
        "xvfb-run)."),
        QStringLiteral("DEVICE"), QStringLiteral("cpu")};
    QCommandLineOption backend{QStringLiteral("backend"),
        QStringLiteral("GPU backend with --device gpu: vulkan (default) or opengl."),
        QStringLiteral("API"), QStringLiteral("vulkan")};
    QCommandLineOption assetRoot{QStringLiteral("asset-root"),
        QStringLiteral("The folder external references (buffers, textures, .mtl files) may be read from (default: the "
        "file's folder)."),
        QStringLiteral("DIR")};
    QCommandLineOption clip{QStringLiteral("clip"),
        QStringLiteral("Clip (name or index) to pose from, over the pose file's."), QStringLiteral("CLIP")};
    QCommandLineOption scan{QStringLiteral("scan"),
        QStringLiteral("Scan every frame of the clip: per method the frame of the largest normal error, and the frame "
        "where linear blending loses the most (JSON: \"scan\").")};
    QCommandLineOption step{QStringLiteral("step"),
        QStringLiteral("With --scan: frames every S seconds (default: the clip's own key times)."), QStringLiteral("S")};

    void addTo(QCommandLineParser& p) const
    {
        p.setApplicationDescription(QStringLiteral("Measure every skinning method's normal and tangent error against the "
                                                   "rebuilt reference, without a display."));
        p.addHelpOption();
        p.addPositionalArgument(QStringLiteral("file"), QStringLiteral("Model file (glTF, GLB, FBX, Collada, X, ...)."),
                                QStringLiteral("<file | --sample NAME>"));
        p.addOptions({sample, pose, methods, perVertex, json, influences, profile, formats, noMorphNormals, device, backend,
                      assetRoot, clip, scan, step});
    }
};

std::string reportHelp()
{
    QCommandLineParser p;
    ReportCli().addTo(p);
    return p.helpText().replace(QLatin1String("<executable_name>"), QLatin1String("rigscope report")).toStdString();
}

int runReport(int argc, char** argv)
{
    QCommandLineParser p;
    const ReportCli cli;
    cli.addTo(p);
    const auto& [sample, pose, methods, perVertex, json, influences, profile, formats, noMorphNormals, device, backend,
                 assetRoot, clip, scan, step] = cli;
    if (!p.parse(argList(argc, argv)))
        return failWith(p.errorText().toStdString());
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(reportHelp().c_str(), stdout);
        return 0;
    }

    const QStringList files = p.positionalArguments();
    if (files.size() > 1 || (files.isEmpty() == !p.isSet(sample)))
        return failWith("report needs exactly one model file or --sample NAME");
    const QString deviceName = p.value(device);
    if (deviceName != QLatin1String("cpu") && deviceName != QLatin1String("gpu"))
        return failWith("--device must be cpu or gpu, not '" + deviceName.toStdString() + "'");
    const bool onGpu = deviceName == QLatin1String("gpu");
    if (p.isSet(backend) && !onGpu)
        return failWith("--backend needs --device gpu");
    if (onGpu && !viewer::backendFromId(p.value(backend).toStdString()))
        return failWith("--backend must be vulkan or opengl, not '" + p.value(backend).toStdString() + "'");
    bool kOk = false;
    const int k = p.value(influences).toInt(&kOk);
    if (!kOk || (k != 4 && k != 8))
        return failWith("--influences must be 4 or 8");
    rig::RuntimeFormat runtimeFormat{k, rig::WeightEncoding::Float};
    std::string profileId = k == 4 ? "float32" : "reference";
    if (p.isSet(profile)) {
        if (p.isSet(influences))
            return failWith("--profile sets the influences: leave out --influences");
        const rig::EngineProfile* chosen = rig::findEngineProfile(p.value(profile).toStdString());
        if (!chosen)
            return failWith("--profile: no profile '" + p.value(profile).toStdString() + "' (" + profileList() + ")");
        runtimeFormat = chosen->format;
        profileId = std::string(chosen->id);
    }
    auto formatProfiles = parseProfiles(p.value(formats));
    if (!formatProfiles)
        return failWith("--formats: " + formatProfiles.error());
    auto methodList = parseMethods(p.value(methods));
    if (!methodList)
        return failWith(methodList.error());

    // The GPU session (a QGuiApplication and an offscreen QRhi) exists only for --device gpu; opened before the
    // rig is loaded so that a missing display or backend fails fast.
    std::unique_ptr<GpuSession> gpu;
    if (onGpu) {
        auto opened = GpuSession::open(p.value(backend).toStdString(), argv[0]);
        if (!opened)
            return failWith(opened.error());
        gpu = std::move(opened.value());
    }

    if (p.isSet(assetRoot) && p.isSet(sample))
        return failWith("--asset-root goes with a file, not --sample");
    rig::ImportOptions importOptions;
    importOptions.assetRoot = p.value(assetRoot).toStdString();
    rig::Result<rig::Rig> loaded = rig::fail("no rig");
    if (p.isSet(sample) && p.value(sample).startsWith(QLatin1String("benchmark:"))) {
        // A generated rig of N vertices, 100 joints, 4 influences, as the app's --sample benchmark:N.
        bool ok = false;
        const qulonglong n = p.value(sample).mid(10).toULongLong(&ok);
        if (!ok || n < 100 || n > 20'000'000)
            return failWith("--sample benchmark:N needs 100 <= N <= 20000000");
        loaded = rig::makeBenchmarkRig(size_t(n), 100, 4);
    } else {
        loaded = p.isSet(sample) ? rig::makeSample(p.value(sample).toStdString())
                                 : rig::importFile(files.front().toStdString(), importOptions);
    }
    if (!loaded)
        return failWith(loaded.error());
    const rig::Rig& rigData = loaded.value();

    rig::Pose poseData;
    if (p.isSet(pose)) {
        auto pr = rig::readPoseFile(p.value(pose).toStdString());
        if (!pr)
            return failWith(pr.error());
        poseData = std::move(pr.value());
    }
    if (p.isSet(clip))
        poseData.clip = p.value(clip).toStdString();
    if (p.isSet(step) && !p.isSet(scan))
        return failWith("--step goes with --scan");
    float stepSeconds = 0.0f;
    if (p.isSet(step)) {
        bool ok = false;
        stepSeconds = p.value(step).toFloat(&ok);
        if (!ok || !(stepSeconds > 0.0f) || !std::isfinite(stepSeconds))
            return failWith("--step must be a number of seconds above 0, not '" + p.value(step).toStdString() + "'");
    }
    if (p.isSet(scan) && poseData.clip.empty())
        return failWith("--scan needs a clip (--clip NAME, or a pose file that names one)");
    if (p.isSet(scan) && onGpu)
        return failWith("--scan runs on the CPU (leave out --device gpu)");
    auto resolved = rig::resolvePose(rigData, poseData);
    if (!resolved)
        return failWith((p.isSet(pose) ? p.value(pose).toStdString() + ": " : std::string()) + resolved.error());

    rig::DeformSettings settings;
    settings.morphNormals = !p.isSet(noMorphNormals);
    const rig::RigRuntime runtime = rig::buildRuntime(rigData, runtimeFormat);
    rig::Evaluation eval;
    rig::ReportOptions options;
    options.perVertex = p.isSet(perVertex);
    options.profile = profileId;
    // Every profile against the float reference, on the CPU whatever the device (the GPU parity tests hold the GPU
    // to the same numbers).
    const std::vector<rig::FormatComparison> comparisons =
        rig::compareFormats(rigData, resolved.value(), methodList.value(), settings, formatProfiles.value());
    if (!formatProfiles.value().empty())
        options.formats = &comparisons;
    if (gpu) {
        // Every method on the GPU, read back into the same Evaluation the CPU fills.
        viewer::GpuDeformer deformer(gpu->rhi());
        std::string error;
        if (!deformer.setRig(rigData, runtime, &error) ||
            !viewer::evaluateOnGpu(deformer, resolved.value(), methodList.value(), settings, eval, nullptr, &error))
            return failWith("--device gpu: " + error);
        options.device = "gpu";
        options.backend = gpu->backendId();
    } else {
        rig::evaluate(rigData, runtime, resolved.value(), methodList.value(), settings, eval);
    }
    const rig::Audit audit = rig::auditRig(rigData, runtime.bind);
    rig::ClipScan scanResult;
    if (p.isSet(scan)) {
        auto scanned = rig::scanClip(rigData, runtime, resolved.value(), resolved.value().clip, methodList.value(), stepSeconds,
                                     settings);
        if (!scanned)
            return failWith(scanned.error());
        scanResult = std::move(scanned.value());
        options.scan = &scanResult;
    }

    if (!p.isSet(json)) {
        printSummary(std::cout, rigData, runtime, eval, audit);
        if (options.scan)
            printScan(std::cout, rigData, *options.scan);
        if (options.formats)
            printFormats(std::cout, *options.formats);
        if (gpu)
            std::cout << "\ndevice: gpu (" << gpu->description() << ")\n";
        return 0;
    }
    const QString target = p.value(json);
    if (target == QLatin1String("-")) {
        std::ios::sync_with_stdio(false);
        rig::writeReportJson(std::cout, rigData, runtime, poseData, settings, eval, audit, options);
        std::cout.flush();
        return std::cout.good() ? 0 : failWith("writing the report to stdout failed");
    }
    std::ofstream out(target.toStdString(), std::ios::binary);
    if (!out)
        return failWith(target.toStdString() + ": cannot be written");
    rig::writeReportJson(out, rigData, runtime, poseData, settings, eval, audit, options);
    out.close();
    if (!out)
        return failWith(target.toStdString() + ": writing failed");
    return 0;
}

namespace {

// Calls fn repeatedly for at least `seconds` (and at least 3 times); returns the best time of one call in seconds.
template <typename Fn>
double bestTime(double seconds, Fn&& fn)
{
    using clock = std::chrono::steady_clock;
    double best = 1e30;
    const auto start = clock::now();
    int runs = 0;
    while (runs < 3 || std::chrono::duration<double>(clock::now() - start).count() < seconds) {
        const auto t0 = clock::now();
        fn();
        best = std::min(best, std::chrono::duration<double>(clock::now() - t0).count());
        ++runs;
    }
    return best;
}

} // namespace

/// The options of rigscope bench, shared by the parser and the help text.
struct BenchCli {
    QCommandLineOption vertices{QStringLiteral("vertices"), QStringLiteral("Vertex count (default 1000000)."),
        QStringLiteral("N"), QStringLiteral("1000000")};
    QCommandLineOption joints{QStringLiteral("joints"), QStringLiteral("Joint count (default 100)."),
        QStringLiteral("J"), QStringLiteral("100")};
    QCommandLineOption seconds{QStringLiteral("seconds"), QStringLiteral("Time per measurement (default 1)."),
        QStringLiteral("S"), QStringLiteral("1")};
    QCommandLineOption methods{QStringLiteral("methods"), QStringLiteral("Comma-separated method ids (default: all)."),
        QStringLiteral("IDS")};
    QCommandLineOption threadsOpt{QStringLiteral("threads"),
        QStringLiteral("Threads of the second column (default: all hardware threads)."),
        QStringLiteral("T")};
    QCommandLineOption device{QStringLiteral("device"),
        QStringLiteral("cpu (default) or gpu: GPU time per change of the compute passes, "
        "against vertex count (10k, 100k, 1M unless --vertices is given)."),
        QStringLiteral("DEVICE"), QStringLiteral("cpu")};
    QCommandLineOption backend{QStringLiteral("backend"),
        QStringLiteral("GPU backend with --device gpu: vulkan (default) or opengl."),
        QStringLiteral("API"), QStringLiteral("vulkan")};

    void addTo(QCommandLineParser& p) const
    {
        p.setApplicationDescription(QStringLiteral("CPU skinning throughput on a generated rig: vertices per second of every "
                                                   "method on one thread and on all, best of many short runs."));
        p.addHelpOption();
        p.addOptions({vertices, joints, seconds, methods, threadsOpt, device, backend});
    }
};

std::string benchHelp()
{
    QCommandLineParser p;
    BenchCli().addTo(p);
    return p.helpText().replace(QLatin1String("<executable_name>"), QLatin1String("rigscope bench")).toStdString();
}

int runBench(int argc, char** argv)
{
    QCommandLineParser p;
    const BenchCli cli;
    cli.addTo(p);
    const auto& [vertices, joints, seconds, methods, threadsOpt, device, backend] = cli;
    if (!p.parse(argList(argc, argv)))
        return failWith(p.errorText().toStdString());
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(benchHelp().c_str(), stdout);
        return 0;
    }
    const size_t n = p.value(vertices).toULongLong();
    const int j = p.value(joints).toInt();
    const double secs = p.value(seconds).toDouble();
    if (n < 1000 || n > 50'000'000 || j < 2 || j > 60000 || !(secs > 0.0))
        return failWith("bench: --vertices 1000..50000000, --joints 2..60000, --seconds > 0");
    unsigned cores = rig::defaultThreadCount();
    if (p.isSet(threadsOpt)) {
        bool ok = false;
        const unsigned t = p.value(threadsOpt).toUInt(&ok);
        if (!ok || t < 1 || t > 256)
            return failWith("bench: --threads 1..256");
        cores = t;
    }
    auto methodList = parseMethods(p.value(methods));
    if (!methodList)
        return failWith(methodList.error());
    const QString deviceName = p.value(device);
    if (deviceName != QLatin1String("cpu") && deviceName != QLatin1String("gpu"))
        return failWith("--device must be cpu or gpu, not '" + deviceName.toStdString() + "'");
    if (p.isSet(backend) && deviceName != QLatin1String("gpu"))
        return failWith("--backend needs --device gpu");
    if (p.isSet(threadsOpt) && deviceName == QLatin1String("gpu"))
        return failWith("--threads needs --device cpu");
    if (deviceName == QLatin1String("gpu"))
        return runGpuBench(p.value(backend).toStdString(), argv[0], p.isSet(vertices) ? n : 0, j, secs,
                           methodList.value());

    const rig::Rig rigData = rig::makeBenchmarkRig(n, j, 4);
    const rig::Mesh& mesh = rigData.meshes.front();
    const rig::RigRuntime rt = rig::buildRuntime(rigData, 4);
    const rig::MeshRuntime& mr = rt.meshes.front();
    const size_t nv = mesh.vertexCount();

    // A posed palette: every joint bent a little about z.
    rig::Pose pose;
    for (size_t i = 0; i < rigData.skeleton.nodes.size(); ++i)
        pose.joints[rigData.skeleton.nodes[i].name].rotateDeg = glm::vec3(0.0f, 0.0f, 1.5f);
    auto resolved = rig::resolvePose(rigData, pose);
    if (!resolved)
        return failWith(resolved.error());
    std::vector<glm::mat4> world;
    rig::evaluateWorld(rigData, resolved.value(), world);
    std::vector<std::vector<glm::mat4>> palettes;
    rig::evaluatePalettes(rigData, world, palettes);
    std::vector<glm::mat4> matrices = palettes.front();
    matrices.push_back(glm::mat4(1.0f));
    std::vector<rig::JointFrame> frames(matrices.size());
    rig::buildJointFrames(matrices, frames);

    // On huge pages, as evaluate's outputs are (buildRuntime advised the rig's and the runtime's arrays).
    std::vector<glm::vec3> outP, outN;
    std::vector<glm::vec4> outT;
    rig::resizeOnHugePages(outP, nv);
    rig::resizeOnHugePages(outN, nv);
    rig::resizeOnHugePages(outT, nv);
    rig::SkinJob job;
    job.palette = frames;
    job.influencesPerVertex = 4;
    job.joints = mr.stream.joints;
    job.weights = mr.stream.weights;
    job.gradients = mr.gradients.view();
    job.centers = mr.centers;
    job.positions = mesh.positions;
    job.normals = mesh.normals;
    job.tangents = mesh.tangents;
    job.outPositions = outP;
    job.outNormals = outN;
    job.outTangents = outT;

    auto loadAverage = [] {
        std::ifstream f("/proc/loadavg");
        double a = 0.0, b = 0.0, c = 0.0;
        char buf[64];
        if (f >> a >> b >> c)
            std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", a, b, c);
        else
            std::snprintf(buf, sizeof buf, "unknown");
        return std::string(buf);
    };
    // The kernel run() takes for this rig's linear job (on CPUs that run AVX-512 at half width it depends on the size).
    const rig::LinearKernel kernel = [&] {
        rig::SkinJob linear = job;
        linear.method = rig::Method::Linear;
        return rig::jobKernel(linear);
    }();
    std::printf("CPU: %s\n", rig::cpuDescription().c_str());
    std::printf("Generated rig: %zu vertices, %zu triangles, %d joints, 4 influences per vertex, normals and tangents; "
                "%u hardware threads; linear kernel: %s; best of repeated runs over %.2g s each; load average "
                "before: %s\n\n",
                nv, mesh.indices.size() / 3, j, rig::defaultThreadCount(),
                std::string(rig::linearKernelName(kernel)).c_str(), secs, loadAverage().c_str());
    std::printf("| method | 1 thread (M vertices/s) | %u threads (M vertices/s) |\n|---|---:|---:|\n", cores);
    std::fflush(stdout);
    auto rate = [nv](double t) { return double(nv) / t / 1e6; };
    auto skinRates = [&](const std::function<void(const rig::SkinJob&)>& runPart) {
        const double t1 = bestTime(secs, [&] { runPart(job); });
        const double tn = bestTime(secs, [&] {
            rig::parallelFor(nv, 16384, cores, [&](size_t b, size_t e) {
                rig::SkinJob part = job;
                part.first = b;
                part.last = e;
                runPart(part);
            });
        });
        return std::pair(rate(t1), rate(tn));
    };
    // Positions alone (the rest normals and tangents are the inputs): what ozz's positions-only job does.
    auto positionsAloneRates = [&](const std::function<void(const rig::SkinJob&)>& runPart) {
        const std::span<glm::vec3> normals = job.outNormals;
        const std::span<glm::vec4> tangents = job.outTangents;
        job.outNormals = {};
        job.outTangents = {};
        const auto rates = skinRates(runPart);
        job.outNormals = normals;
        job.outTangents = tangents;
        return rates;
    };
    // The job as positionsAloneRates runs it: no normal or tangent outputs.
    auto positionsAloneJob = [](rig::SkinJob j) {
        j.outNormals = {};
        j.outTangents = {};
        return j;
    };
    auto row = [](const std::string& name, std::pair<double, double> r) {
        std::printf("| %s | %.1f | %.1f |\n", name.c_str(), r.first, r.second);
        std::fflush(stdout);
    };
    for (rig::Method m : methodList.value()) {
        if (m == rig::Method::Rebuilt) {
            // From the linear-skinned positions, whatever ran before (zeros would make every triangle degenerate).
            job.method = rig::Method::Linear;
            job.run();
            std::vector<glm::vec3> skinned;
            rig::resizeOnHugePages(skinned, nv);
            std::copy(outP.begin(), outP.end(), skinned.begin());
            std::vector<rig::ReferenceKernel> kernels{rig::bestReferenceKernel()};
            if (kernels.front() == rig::ReferenceKernel::Avx512)
                kernels.push_back(rig::ReferenceKernel::Avx2); // what AVX2-only machines run
            if (kernels.front() != rig::ReferenceKernel::Scalar)
                kernels.push_back(rig::ReferenceKernel::Scalar);
            for (rig::ReferenceKernel k : kernels) {
                rig::ReferenceScratch scratch;
                scratch.kernel = k;
                auto rebuildRate = [&](unsigned threads) {
                    const rig::ScopedThreadLimit limit(threads);
                    return rate(bestTime(secs, [&] {
                        // As evaluate rebuilds (with the runtime's UV differences).
                        const rig::ReferenceMeshIO io{skinned, mesh.uvs, mesh.indices, outN, outT, rt.meshes[0].uvDifferences};
                        rig::rebuildReference(rt.reference, std::span(&io, 1), scratch);
                    }));
                };
                const double r1 = rebuildRate(1);
                row(std::string("rebuilt (reference rebuild, ") + rig::referenceKernelName(k) + ")", {r1, rebuildRate(cores)});
            }
            continue;
        }
        job.method = m;
        const std::string name(rig::methodId(m));
        if (m == rig::Method::PositionsOnly)
            row(name + " (" + std::string(rig::linearKernelName(rig::jobKernel(positionsAloneJob(job)))) + ", positions alone)",
                positionsAloneRates([](const rig::SkinJob& part) { part.run(); }));
        row(name + " (" + rig::methodKernelName(m, rig::jobKernel(job)) + ")",
            skinRates([](const rig::SkinJob& part) { part.run(); }));
    }
    // The other linear kernels this CPU has, for comparison.
    if (std::find(methodList.value().begin(), methodList.value().end(), rig::Method::Linear) != methodList.value().end()) {
        job.method = rig::Method::Linear;
        for (rig::LinearKernel k : {rig::LinearKernel::Avx512, rig::LinearKernel::Avx2, rig::LinearKernel::Scalar}) {
            if (k == kernel || !rig::linearKernelAvailable(k))
                continue;
            row("linear (" + std::string(rig::linearKernelName(k)) + ")",
                skinRates([k](const rig::SkinJob& part) { rig::runLinearKernel(part, k); }));
        }
    }
    // The other methods' AVX2 kernels where AVX-512 ran (their build over AVX-512VL's registers: an AVX2-only machine
    // runs the plain build, as under RIGSCOPE_ISA=avx2), and their scalar path.
    for (rig::Method m : methodList.value()) {
        if (m == rig::Method::Linear || m == rig::Method::Rebuilt || rig::methodKernel(m) != rig::LinearKernel::Avx512)
            continue;
        job.method = m;
        const std::string avx2 = rig::methodKernelName(m, rig::LinearKernel::Avx2);
        const auto runAvx2 = [](const rig::SkinJob& part) { rig::runMethodKernel(part, rig::LinearKernel::Avx2); };
        if (m == rig::Method::PositionsOnly) {
            // The positions-alone kernel run() did not pick (AVX2 on AVX-512 machines, AVX-512 where it runs at half
            // width and run() picks AVX2); with the frames copied run() runs AVX2 already (its row above).
            const rig::LinearKernel other = rig::jobKernel(positionsAloneJob(job)) == rig::LinearKernel::Avx2
                                                ? rig::LinearKernel::Avx512
                                                : rig::LinearKernel::Avx2;
            row(std::string(rig::methodId(m)) + " (" + std::string(rig::linearKernelName(other)) + ", positions alone)",
                positionsAloneRates([other](const rig::SkinJob& part) { rig::runMethodKernel(part, other); }));
        }
        if (rig::jobKernel(job) != rig::LinearKernel::Avx2) {
            row(std::string(rig::methodId(m)) + " (" + avx2 + ")", skinRates(runAvx2));
        } else if (m != rig::Method::PositionsOnly) {
            // run() picked the AVX2 kernel over this method's AVX-512 one (half-width AVX-512): the AVX-512 row.
            row(std::string(rig::methodId(m)) + " (" + std::string(rig::linearKernelName(rig::LinearKernel::Avx512)) + ")",
                skinRates([](const rig::SkinJob& part) { rig::runMethodKernel(part, rig::LinearKernel::Avx512); }));
        }
    }
    for (rig::Method m : methodList.value()) {
        if (m == rig::Method::Linear || m == rig::Method::Rebuilt || rig::methodKernel(m) == rig::LinearKernel::Scalar)
            continue;
        job.method = m;
        row(std::string(rig::methodId(m)) + " (scalar)",
            skinRates([](const rig::SkinJob& part) { rig::runMethodKernel(part, rig::LinearKernel::Scalar); }));
    }
    // The whole evaluation the panels wait for: every method, both references (linear-blend and dual-quaternion
    // positions), the carried reference, the errors and the statistics.
    {
        rig::Evaluation eval;
        auto evalMs = [&](unsigned threads) {
            rig::DeformSettings ds;
            ds.threads = threads;
            return 1e3 * bestTime(secs, [&] { rig::evaluate(rigData, rt, resolved.value(), rig::allMethods(), ds, eval); });
        };
        const double e1 = evalMs(1);
        const double en = evalMs(cores);
        std::printf("\nevaluate (all %d methods, references, errors, statistics) of %zu vertices: %.2f ms on 1 thread, "
                    "%.2f ms on %u threads\n",
                    rig::kMethodCount, nv, e1, en, cores);
    }
    std::printf("\nload average after: %s\n", loadAverage().c_str());
    return 0;
}

} // namespace app
