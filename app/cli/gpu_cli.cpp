#include "app/cli/gpu_cli.h"

#include <QFileInfo>
#include <QGuiApplication>
#include <QtGui/private/qrhi_p.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "rig/deform/deform.h"
#include "rig/model/pose.h"
#include "rig/model/samples.h"
#include "viewer/compute/gpu_deformer.h"
#include "viewer/compute/gpu_timer.h"
#include "viewer/compute/offscreen_rhi.h"

namespace app {

namespace {

/// Why a QGuiApplication cannot start here, or an empty string. Qt aborts the process when its platform plugin
/// cannot connect to a display, so the obvious cases are caught before it is created.
std::string displayProblem()
{
    const QString platform = qEnvironmentVariable("QT_QPA_PLATFORM");
    const bool wayland = platform.startsWith(QLatin1String("wayland")) ||
                         (platform.isEmpty() && !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"));
    const bool x11 = platform.startsWith(QLatin1String("xcb")) || (platform.isEmpty() && !wayland);
    if (wayland && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        return "no display: WAYLAND_DISPLAY is not set (--device gpu needs a display server)";
    if (!x11)
        return {};
    const QString display = qEnvironmentVariable("DISPLAY");
    if (display.isEmpty())
        return "no display: DISPLAY is not set (--device gpu needs an X server; run it under "
               "xvfb-run -a -s '-screen 0 1280x800x24')";
    // A local display ":N" or ":N.S" listens on /tmp/.X11-unix/XN.
    if (display.startsWith(QLatin1Char(':'))) {
        const QString number = display.mid(1).section(QLatin1Char('.'), 0, 0);
        bool ok = false;
        number.toInt(&ok);
        if (ok && !QFileInfo::exists(QStringLiteral("/tmp/.X11-unix/X") + number))
            return "no display: no X server at DISPLAY=" + display.toStdString() +
                   " (run under xvfb-run -a -s '-screen 0 1280x800x24')";
    }
    return {};
}

} // namespace

rig::Result<std::unique_ptr<GpuSession>> GpuSession::open(const std::string& backendId, const char* argv0,
                                                           bool profiling)
{
    const auto backend = viewer::backendFromId(backendId);
    if (!backend)
        return rig::fail("--backend must be vulkan or opengl, not '" + backendId + "'");
    if (const std::string problem = displayProblem(); !problem.empty())
        return rig::fail(problem);
    std::unique_ptr<GpuSession> s(new GpuSession);
    s->m_backendId = viewer::backendId(*backend);
    s->m_argv0 = argv0 ? argv0 : "rigscope";
    s->m_argv[0] = s->m_argv0.data();
    s->m_app = std::make_unique<QGuiApplication>(s->m_argc, s->m_argv);
    std::string error;
    s->m_offscreen = viewer::OffscreenRhi::create(*backend, &error, profiling);
    if (!s->m_offscreen)
        return rig::fail("--device gpu: " + error);
    return s;
}

GpuSession::~GpuSession()
{
    m_offscreen.reset(); // the QRhi (and its instance / surface) before the application
    m_app.reset();
}

QRhi* GpuSession::rhi() const
{
    return m_offscreen ? m_offscreen->rhi() : nullptr;
}

std::string GpuSession::description() const
{
    if (!m_offscreen)
        return {};
    return std::string(m_offscreen->rhi()->backendName()) + ": " + m_offscreen->deviceName();
}

int runGpuBench(const std::string& backendId, const char* argv0, size_t vertexCount, int joints, double seconds,
                const std::vector<rig::Method>& methods)
{
    auto session = GpuSession::open(backendId, argv0);
    if (!session) {
        std::fprintf(stderr, "rigscope: %s\n", session.error().c_str());
        return 2;
    }
    GpuSession& gpu = *session.value();
    QRhi* rhi = gpu.rhi();

    std::vector<size_t> sizes;
    if (vertexCount > 0)
        sizes.push_back(vertexCount);
    else
        sizes = {10'000, 100'000, 1'000'000};

    std::unique_ptr<viewer::GpuTimer> timer;
    std::printf("GPU: %s; %d joints, 4 influences per vertex.\n", gpu.description().c_str(), joints);
    std::fflush(stdout);

    using clock = std::chrono::steady_clock;
    bool printedHeader = false;
    for (size_t requested : sizes) {
        const rig::Rig rigData = rig::makeBenchmarkRig(requested, joints, 4);
        const rig::RigRuntime runtime = rig::buildRuntime(rigData, 4);
        viewer::GpuDeformer deformer(rhi);
        std::string error;
        if (!deformer.setRig(rigData, runtime, &error)) {
            std::fprintf(stderr, "rigscope: bench: %s\n", error.c_str());
            return 2;
        }
        // Two poses to alternate between, so that every change really changes the palette.
        rig::Pose poses[2];
        for (size_t i = 0; i < rigData.skeleton.nodes.size(); ++i) {
            poses[0].joints[rigData.skeleton.nodes[i].name].rotateDeg = glm::vec3(0.0f, 0.0f, 1.5f);
            poses[1].joints[rigData.skeleton.nodes[i].name].rotateDeg = glm::vec3(0.0f, 0.0f, 2.5f);
        }
        rig::ResolvedPose resolved[2];
        for (int i = 0; i < 2; ++i) {
            auto r = rig::resolvePose(rigData, poses[i]);
            if (!r) {
                std::fprintf(stderr, "rigscope: bench: %s\n", r.error().c_str());
                return 2;
            }
            resolved[i] = std::move(r.value());
        }
        if (!timer)
            timer = std::make_unique<viewer::GpuTimer>(rhi, gpu.offscreen()->vulkanInstance());

        // One synchronous offscreen frame: uploads first, then the passes alone, timed by GPU timestamps when the
        // backend has them (Vulkan), and always by the wall time of the frame (endOffscreenFrame waits for the GPU:
        // that includes submission and the wait).
        struct Timing {
            double gpu = -1.0, wall = -1.0;
        };
        bool timestamps = false;
        auto frame = [&]() -> Timing {
            QRhiCommandBuffer* cb = nullptr;
            if (rhi->beginOffscreenFrame(&cb) != QRhi::FrameOpSuccess)
                return {};
            deformer.recordUploads(cb);
            const auto t0 = clock::now();
            timer->begin(cb);
            deformer.record(cb);
            timer->end(cb);
            rhi->endOffscreenFrame();
            Timing t;
            t.wall = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
            if (auto ms = timer->milliseconds()) {
                timestamps = true;
                t.gpu = *ms;
            }
            return t;
        };
        // Best (smallest) times of `change(); frame()` over at least `seconds` and 5 runs.
        auto measure = [&](auto&& change) {
            Timing best{1e30, 1e30};
            int runs = 0;
            const auto start = clock::now();
            while (runs < 5 || std::chrono::duration<double>(clock::now() - start).count() < seconds) {
                change(runs);
                const Timing t = frame();
                if (t.wall < 0.0)
                    return Timing{};
                best.gpu = std::min(best.gpu, t.gpu);
                best.wall = std::min(best.wall, t.wall);
                ++runs;
            }
            if (!timestamps)
                best.gpu = -1.0;
            return best;
        };
        auto cell = [](double ms) {
            char buf[32];
            if (ms < 0.0)
                std::snprintf(buf, sizeof buf, "-");
            else
                std::snprintf(buf, sizeof buf, "%.3f", ms);
            return std::string(buf);
        };

        // Warm up: the first frame uploads the static data and runs every pass.
        deformer.setPose(resolved[0]);
        frame();
        frame();
        if (!printedHeader) {
            std::printf("Per change, best of >= 5 runs: GPU = %s; wall = the whole synchronous offscreen frame "
                        "(submit + wait).\n\n",
                        timestamps ? "Vulkan timestamps around the compute passes" : "not available on this backend");
            std::printf("| vertices | triangles | method | pose change GPU (ms) | pose change wall (ms) | M vertices/s |"
                        " method switch GPU (ms) | method switch wall (ms) |\n"
                        "|---:|---:|---|---:|---:|---:|---:|---:|\n");
            printedHeader = true;
        }
        for (rig::Method m : methods) {
            deformer.setMethod(m);
            frame();
            // Pose change: palette upload + skin + faces + reference + bounds + errors.
            const Timing pose = measure([&](int run) { deformer.setPose(resolved[run & 1]); });
            // Method switch to this method from another one: skin + errors (plus the reference when the positions
            // change, i.e. to or from dual-quaternion).
            const rig::Method other = m == rig::Method::Cofactor ? rig::Method::Linear : rig::Method::Cofactor;
            const Timing sw = measure([&](int) {
                deformer.setMethod(other);
                frame();
                deformer.setMethod(m);
            });
            const double rateMs = pose.gpu >= 0.0 ? pose.gpu : pose.wall;
            std::printf("| %zu | %zu | %s | %s | %s | %.1f | %s | %s |\n", deformer.vertexCount(),
                        deformer.triangleCount(), std::string(rig::methodId(m)).c_str(), cell(pose.gpu).c_str(),
                        cell(pose.wall).c_str(), double(deformer.vertexCount()) / (rateMs * 1e3), cell(sw.gpu).c_str(),
                        cell(sw.wall).c_str());
            std::fflush(stdout);
        }
    }
    return 0;
}

} // namespace app
