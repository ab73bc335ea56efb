// The GPU side of the headless subcommands: `rigscope report --device gpu` and `rigscope bench --device gpu`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rig/model/result.h"
#include "rig/deform/skinning.h"

class QGuiApplication;
class QRhi;

namespace viewer {
class OffscreenRhi;
}

namespace app {

/// A QGuiApplication (created only for the GPU path) and an offscreen QRhi. The QRhi is destroyed before the
/// application. Fails with one line, without aborting, when there is no display or the backend is unusable.
class GpuSession {
public:
    /// backendId: "vulkan" or "opengl". argv0 names the program for Qt.
    static rig::Result<std::unique_ptr<GpuSession>> open(const std::string& backendId, const char* argv0,
                                                         bool profiling = false);
    ~GpuSession();

    QRhi* rhi() const;
    viewer::OffscreenRhi* offscreen() const { return m_offscreen.get(); }
    const std::string& backendId() const { return m_backendId; }
    /// "Vulkan: llvmpipe (LLVM 15.0.6, 256 bits)".
    std::string description() const;

private:
    GpuSession() = default;
    int m_argc = 1;
    char* m_argv[2] = {nullptr, nullptr};
    std::string m_argv0;
    std::string m_backendId;
    std::unique_ptr<QGuiApplication> m_app;         // declared first: destroyed last
    std::unique_ptr<viewer::OffscreenRhi> m_offscreen;
};

/// `rigscope bench --device gpu`: GPU time per change against vertex count, as a Markdown table on stdout.
/// vertexCount 0 sweeps 10k, 100k and 1M vertices. Returns the exit status.
int runGpuBench(const std::string& backendId, const char* argv0, size_t vertexCount, int joints, double seconds,
                const std::vector<rig::Method>& methods);

} // namespace app
