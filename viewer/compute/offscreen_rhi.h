// A QRhi without a window, for compute and readback: Vulkan (QVulkanInstance; lavapipe works) or OpenGL (a
// QOffscreenSurface with a 4.3 core context, falling back to the default format). Owns the instance / surface and
// destroys the QRhi first (the QRhi needs them until it is gone). Needs a QGuiApplication, and a platform plugin that
// can create what the backend needs (under X11: QT_QPA_PLATFORM=xcb with a display, e.g. xvfb-run; the `offscreen`
// plugin supports neither Vulkan nor a default GL context).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

class QRhi;
class QVulkanInstance;
class QOffscreenSurface;

namespace viewer {

enum class GpuBackend { Vulkan, OpenGL };

/// "vulkan" or "opengl".
const char* backendId(GpuBackend backend);
std::optional<GpuBackend> backendFromId(std::string_view id);

class OffscreenRhi {
public:
    /// Creates the QRhi, or returns null and a one-line reason in `error`. Fails too when the backend has no compute
    /// shaders. `profiling` sets QRhi::EnableProfiling.
    static std::unique_ptr<OffscreenRhi> create(GpuBackend backend, std::string* error, bool profiling = false);
    ~OffscreenRhi();
    OffscreenRhi(const OffscreenRhi&) = delete;
    OffscreenRhi& operator=(const OffscreenRhi&) = delete;

    QRhi* rhi() const { return m_rhi.get(); }
    GpuBackend backend() const { return m_backend; }
    /// The device as the driver names it, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
    std::string deviceName() const;
    QVulkanInstance* vulkanInstance() const { return m_vulkan.get(); }

private:
    OffscreenRhi() = default;
    GpuBackend m_backend = GpuBackend::Vulkan;
    // Declared before the QRhi so that they are destroyed after it (the destructor also resets the QRhi first).
    std::unique_ptr<QVulkanInstance> m_vulkan;
    std::unique_ptr<QOffscreenSurface> m_surface;
    std::unique_ptr<QRhi> m_rhi;
};

} // namespace viewer
