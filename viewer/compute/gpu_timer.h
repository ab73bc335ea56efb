// GPU time of a stretch of recorded commands. Qt 6.4's QRhi has no timestamps for offscreen frames (they exist for
// swapchain frames only), so on Vulkan this writes its own timestamp queries into QRhi's command buffer through
// beginExternal()/endExternal(). Elsewhere (OpenGL) it is unavailable and callers fall back to wall time around a
// synchronous offscreen frame.
#pragma once

#include <memory>
#include <optional>

class QRhi;
class QRhiCommandBuffer;
class QVulkanInstance;

namespace viewer {

class GpuTimer {
public:
    /// `instance` is the QVulkanInstance the QRhi was created with (null for other backends).
    GpuTimer(QRhi* rhi, QVulkanInstance* instance);
    ~GpuTimer();
    GpuTimer(const GpuTimer&) = delete;
    GpuTimer& operator=(const GpuTimer&) = delete;

    bool isAvailable() const;
    /// Call outside any pass, inside the frame, around the commands to time.
    void begin(QRhiCommandBuffer* cb);
    void end(QRhiCommandBuffer* cb);
    /// After the frame completed (endOffscreenFrame): the time between begin() and end() in milliseconds.
    std::optional<double> milliseconds();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace viewer
