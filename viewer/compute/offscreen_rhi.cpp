#include "offscreen_rhi.h"

#include <QGuiApplication>
#include <QOffscreenSurface>
#include <QSurfaceFormat>
#include <QVulkanInstance>
#include <QtGui/private/qrhi_p.h>
#include <QtGui/private/qrhigles2_p.h>
#include <QtGui/private/qrhivulkan_p.h>


namespace viewer {

namespace {

// Collects Qt's warnings while a backend is being created, so that a failure becomes one line with its cause
// instead of scattered log output.
class WarningCollector {
public:
    WarningCollector()
    {
        s_active = this;
        m_previous = qInstallMessageHandler(&WarningCollector::handler);
    }
    ~WarningCollector()
    {
        qInstallMessageHandler(m_previous);
        s_active = nullptr;
    }
    std::string first() const { return m_first; }

private:
    static void handler(QtMsgType type, const QMessageLogContext& ctx, const QString& msg)
    {
        WarningCollector* self = s_active;
        if (!self)
            return;
        if (type == QtDebugMsg || type == QtInfoMsg)
            return;
        if (type == QtFatalMsg && self->m_previous) {
            self->m_previous(type, ctx, msg);
            return;
        }
        if (self->m_first.empty())
            self->m_first = msg.simplified().toStdString();
    }
    static inline WarningCollector* s_active = nullptr;
    QtMessageHandler m_previous = nullptr;
    std::string m_first;
};

std::string withCause(const std::string& message, const WarningCollector& warnings)
{
    const std::string cause = warnings.first();
    return cause.empty() ? message : message + " (" + cause + ")";
}

} // namespace

const char* backendId(GpuBackend backend)
{
    return backend == GpuBackend::Vulkan ? "vulkan" : "opengl";
}

std::optional<GpuBackend> backendFromId(std::string_view id)
{
    if (id == "vulkan")
        return GpuBackend::Vulkan;
    if (id == "opengl" || id == "gl")
        return GpuBackend::OpenGL;
    return std::nullopt;
}

std::unique_ptr<OffscreenRhi> OffscreenRhi::create(GpuBackend backend, std::string* error, bool profiling)
{
    auto fail = [error](const std::string& message) -> std::unique_ptr<OffscreenRhi> {
        if (error)
            *error = message;
        return nullptr;
    };
    if (!qGuiApp)
        return fail("the GPU path needs a QGuiApplication");
    const std::string platform = QGuiApplication::platformName().toStdString();
    const QRhi::Flags flags = profiling ? QRhi::EnableProfiling : QRhi::Flags();

    std::unique_ptr<OffscreenRhi> self(new OffscreenRhi);
    self->m_backend = backend;
    WarningCollector warnings;
    if (backend == GpuBackend::Vulkan) {
        self->m_vulkan = std::make_unique<QVulkanInstance>();
        if (!self->m_vulkan->create())
            return fail(withCause("Vulkan is not available on the '" + platform + "' platform (no Vulkan instance)",
                                  warnings));
        QRhiVulkanInitParams params;
        params.inst = self->m_vulkan.get();
        self->m_rhi.reset(QRhi::create(QRhi::Vulkan, &params, flags));
        if (!self->m_rhi)
            return fail(withCause("no usable Vulkan device", warnings));
    } else {
        // A 4.3 core context works with xcb and with the offscreen plugin; if refused, try the default format
        // (compatibility profile, 4.5 on llvmpipe).
        QSurfaceFormat core = QSurfaceFormat::defaultFormat();
        core.setVersion(4, 3);
        core.setProfile(QSurfaceFormat::CoreProfile);
        for (const QSurfaceFormat& format : {core, QSurfaceFormat::defaultFormat()}) {
            self->m_rhi.reset();
            self->m_surface.reset(QRhiGles2InitParams::newFallbackSurface(format));
            QRhiGles2InitParams params;
            params.format = format;
            params.fallbackSurface = self->m_surface.get();
            self->m_rhi.reset(QRhi::create(QRhi::OpenGLES2, &params, flags));
            if (self->m_rhi && self->m_rhi->isFeatureSupported(QRhi::Compute))
                break;
        }
        if (!self->m_rhi)
            return fail(withCause("OpenGL is not available on the '" + platform + "' platform (no context)", warnings));
    }
    if (!self->m_rhi->isFeatureSupported(QRhi::Compute))
        return fail(std::string("the ") + self->m_rhi->backendName() +
                    " backend has no compute shaders (needs Vulkan, OpenGL 4.3+ or OpenGL ES 3.1)");
    return self;
}

OffscreenRhi::~OffscreenRhi()
{
    m_rhi.reset(); // before the instance / surface it was created with
    m_surface.reset();
    m_vulkan.reset();
}

std::string OffscreenRhi::deviceName() const
{
    return m_rhi ? m_rhi->driverInfo().deviceName.toStdString() : std::string();
}

} // namespace viewer
