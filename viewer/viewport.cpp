#include "viewport.h"

#include <QElapsedTimer>
#include <QFile>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QOffscreenSurface>
#include <QPlatformSurfaceEvent>
#include <QVulkanInstance>
#include <QWheelEvent>

#include <QtGui/private/qrhi_p.h>
#include <QtGui/private/qrhigles2_p.h>
#include <QtGui/private/qrhivulkan_p.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "compute/gpu_deformer.h"
#include "legend.h"
#include "view_aids.h"

namespace viewer {

namespace {

// Must match the View block of shaders/render/mesh.vert and shaders/render/lines.vert (std140).
struct ViewBlock {
    float viewProj[16];
    float eye[4];
    float lightDir[4];
    float params[4];   // heatmap max, mode, material, selected vertex
    float viewport[4]; // size px, line width px, line length
    float color[4];
    qint32 flags[4];   // line source, count, marker vertex
};
static_assert(sizeof(ViewBlock) == 16 * 4 + 5 * 16 + 16);

// The mesh shader's modes (shaders/render/mesh.frag).
enum MeshMode {
    ModeLit = 0,
    ModeNormalError = 1,
    ModeTangentError = 2,
    ModeReference = 3,
    ModeHandedness = 4,
    ModeSkinningNormalError = 5,
    ModeSkinningTangentError = 6,
    ModeJointWeight = 7,
    ModeJointWeightBands = 8,
    ModeInfluenceCount = 9,
    ModeWeightSum = 10,
    ModeBlendScale = 11,
    ModeDqDisplacement = 12,
    ModeFormatPosition = 13,
    ModeFormatNormal = 14,
    ModeWeightChange = 15,
};
enum LineSource { SourceVectors = 0, SourceSegments = 1, SourceMarker = 3, SourceBounds = 4, SourceSetMarkers = 5, SourceEdges = 6 };

// The rotate rings' size on screen (radius in logical pixels) and how near a click must be to pick a ring or a bone.
constexpr float kRingRadiusPx = 70.0f;
constexpr float kPickTolerancePx = 7.0f;
// Most direction lines (normals, tangents) drawn per set: beyond it the lines are a carpet, not information.
constexpr int kMaxVectorLines = 30000;
// The view aids' room at the end of the segment buffer: the ground grid (groundGrid makes at most 2 × 25 lines), the
// axes gizmo (3 axes, 8 letter strokes) and the selection box being drawn (4 sides).
constexpr int kGridCapacity = 64;
constexpr int kGizmoCapacity = 16;
constexpr int kBoxSegments = 4;
// The per-bone bounding box (rig/deform/bounds.h): the 12 edges of one box, after the selection box.
constexpr int kPerBoneBoxSegments = 12;
constexpr int kAidSegments = kGridCapacity + kGizmoCapacity + kBoxSegments + kPerBoneBoxSegments;
// The axes gizmo's square in the lower right corner of each view (the label is top left, a legend bottom left),
// logical pixels.
constexpr int kGizmoPx = 84;
constexpr int kGizmoMargin = 6; // device pixels from the view's edges: the letters stay whole

QShader loadShader(const QString& name)
{
    QFile f(QStringLiteral(":/rigscope/shaders/") + name + QStringLiteral(".qsb"));
    return f.open(QIODevice::ReadOnly) ? QShader::fromSerialized(f.readAll()) : QShader();
}

// One draw's uniform slot inside the dynamic-offset uniform buffer.
constexpr int kMaxSlots = 128;

} // namespace

struct Viewport::Resources {
    std::unique_ptr<QRhi> rhi;
    std::unique_ptr<QRhiSwapChain> swapChain;
    std::unique_ptr<QRhiRenderBuffer> depth;
    std::unique_ptr<QRhiRenderPassDescriptor> renderPass;
    std::unique_ptr<GpuDeformer> deformer;

    std::unique_ptr<QRhiBuffer> ubo; // kMaxSlots aligned ViewBlocks, dynamic offsets
    quint32 uboStride = 0;
    std::unique_ptr<QRhiBuffer> uvs;     // vec2 per vertex (vertex input)
    std::unique_ptr<QRhiBuffer> indices; // uint32 triangle list (global vertex indices)
    // Segments: [0, boneSegments) every bone; then the selected joint's bones (highlight); then the rotate rings; from
    // aidBase (the end, kAidSegments): the ground grid, the axes gizmo, the selection box.
    std::unique_ptr<QRhiBuffer> segOrigins;
    std::unique_ptr<QRhiBuffer> segDirs;
    int segCapacity = 0;
    int boneSegments = 0;
    int highlightSegments = 0;
    int ringBase = 0;
    int ringSegments = 0;
    int aidBase = 0;
    int gridSegments = 0;
    int gridCentre[2] = {-1, -1};
    AxesGizmo gizmo; // this frame's
    int boxSegments = 0;
    int perBoneBoxSegments = 0;
    // The wireframe: the pack's unique edges (pairs of global vertex indices, two to a vec4).
    std::unique_ptr<QRhiBuffer> edges;
    std::unique_ptr<QRhiShaderResourceBindings> edgesSrb;
    int edgeCount = 0;
    // The hard weight boundaries' edges, the same layout.
    std::unique_ptr<QRhiBuffer> hardEdges;
    std::unique_ptr<QRhiShaderResourceBindings> hardEdgesSrb;
    int hardEdgeCount = 0;
    // The selection set's vertex indices, four to a vec4 (uint bits), read by the lines shader's marker source.
    std::unique_ptr<QRhiBuffer> setIndices;
    std::unique_ptr<QRhiShaderResourceBindings> setSrb;
    int setCount = 0;
    int boundsSegments = 0;
    // One float per vertex (Viewport::setVertexValues), read by the weight-change heatmap.
    std::unique_ptr<QRhiBuffer> vertexValues;
    int indexCount = 0;
    int vertexCount = 0;

    std::unique_ptr<QRhiShaderResourceBindings> meshSrb; // binds whiteTexture
    // Base colour textures: one per decoded rig image (indexed as Rig::images; null where an image has no pixels),
    // sRGB with mipmaps; a 1 x 1 white one for meshes without. One mesh bindings set per texture; the mesh is drawn
    // as runs of consecutive meshes that share a texture.
    std::vector<std::unique_ptr<QRhiTexture>> textures;
    std::vector<std::unique_ptr<QRhiShaderResourceBindings>> textureSrbs;
    std::unique_ptr<QRhiTexture> whiteTexture;
    std::unique_ptr<QRhiSampler> textureSampler;
    uint64_t texturesGeneration = 0; // Viewport::m_rigGeneration they were made for (0: none)
    struct MeshRun {
        quint32 firstIndex = 0, indexCount = 0;
        int texture = -1; // index into textures, -1: white
    };
    std::vector<MeshRun> meshRuns;
    std::unique_ptr<QRhiShaderResourceBindings> normalLinesSrb, tangentLinesSrb, refNormalLinesSrb, refTangentLinesSrb;
    std::unique_ptr<QRhiShaderResourceBindings> segLinesSrb, boundsSrb, markerSrb;
    std::unique_ptr<QRhiGraphicsPipeline> meshPipeline;
    std::unique_ptr<QRhiGraphicsPipeline> linePipeline;
    std::unique_ptr<QRhiGraphicsPipeline> xrayLinePipeline; // bones and the picked-vertex marker show through the mesh
    QRhiRenderPassDescriptor* pipelineRp = nullptr; // the descriptor the pipelines were built for
    bool bindingsStale = true;
    QElapsedTimer frameTimer;

    // 2D overlay: labels and the heatmap legend, painted with QPainter into a window-sized texture when they change.
    std::unique_ptr<QRhiTexture> overlayTex;
    std::unique_ptr<QRhiSampler> overlaySampler;
    std::unique_ptr<QRhiBuffer> overlayUbo;
    std::unique_ptr<QRhiShaderResourceBindings> overlaySrb;
    std::unique_ptr<QRhiGraphicsPipeline> overlayPipeline;
    QString overlayKey; // what the texture shows; repainted when this changes
};

Viewport::Viewport(Api preferred) : m_api(preferred), m_res(std::make_unique<Resources>())
{
    if (m_api == Api::Vulkan) {
        m_vulkan = std::make_unique<QVulkanInstance>();
        m_vulkan->setExtensions(QRhiVulkanInitParams::preferredInstanceExtensions());
        if (!m_vulkan->create()) {
            qWarning("rigscope: no Vulkan instance (%d); falling back to OpenGL", int(m_vulkan->errorCode()));
            m_vulkan.reset();
            m_api = Api::OpenGL;
        } else {
            // An instance is not a device: probe one (without a window) before the window commits to a Vulkan surface,
            // and fall back to OpenGL when none can be created or it has no compute shaders.
            QRhiVulkanInitParams params;
            params.inst = m_vulkan.get();
            std::unique_ptr<QRhi> probe(QRhi::create(QRhi::Vulkan, &params));
            const bool usable = probe && probe->isFeatureSupported(QRhi::Compute);
            if (!usable) {
                qWarning("rigscope: %s; falling back to OpenGL",
                         probe ? "the Vulkan device has no compute shaders" : "no Vulkan device could be created");
                probe.reset();
                m_vulkan.reset();
                m_api = Api::OpenGL;
            }
        }
    }
    if (m_api == Api::Vulkan) {
        setSurfaceType(QSurface::VulkanSurface);
        setVulkanInstance(m_vulkan.get());
    } else {
        setSurfaceType(QSurface::OpenGLSurface);
        QSurfaceFormat fmt = QSurfaceFormat::defaultFormat();
        fmt.setVersion(4, 3); // compute shaders
        fmt.setProfile(QSurfaceFormat::CoreProfile);
        fmt.setDepthBufferSize(24);
        setFormat(fmt);
    }
    resetCamera();
}

Viewport::~Viewport()
{
    releaseResources();
}

void Viewport::releaseResources()
{
    if (m_res && m_res->rhi)
        m_res->rhi->finish();
    // Everything made from the QRhi goes before it; the QRhi goes before the instance / fallback surface.
    auto rhi = std::move(m_res->rhi);
    m_res = std::make_unique<Resources>();
    rhi.reset();
    m_fallbackSurface.reset();
}

QString Viewport::backendName() const
{
    if (!m_res->rhi)
        return m_api == Api::Vulkan ? QStringLiteral("Vulkan (not started)") : QStringLiteral("OpenGL (not started)");
    return QStringLiteral("%1 on %2").arg(QString::fromLatin1(m_res->rhi->backendName()),
                                          QString::fromLatin1(m_res->rhi->driverInfo().deviceName));
}

bool Viewport::isReady() const { return m_res->rhi && m_res->swapChain; }

void Viewport::setRig(std::shared_ptr<const rig::Rig> rig, std::shared_ptr<const rig::RigRuntime> runtime,
                      std::shared_ptr<const GpuRigPack> pack)
{
    m_rig = std::move(rig);
    m_runtime = std::move(runtime);
    m_pack = std::move(pack);
    ++m_rigGeneration;
    m_selected = -1;
    m_selectedJoint = -1;
    m_selectionSet.reset();
    m_selectionSetDirty = true;
    m_rigDirty = m_poseDirty = m_settingsDirty = true;
    requestRender();
}

void Viewport::setPose(const rig::ResolvedPose& pose)
{
    m_pose = pose;
    m_poseDirty = true;
    requestRender();
}

void Viewport::setSettings(const ViewSettings& s)
{
    if (s == m_settings)
        return;
    m_settings = s;
    m_settingsDirty = true;
    requestRender();
}

void Viewport::setSelectedVertex(int v)
{
    if (v == m_selected)
        return;
    m_selected = v;
    requestRender();
}

void Viewport::setSelectedJoint(int node)
{
    if (node == m_selectedJoint)
        return;
    m_selectedJoint = node;
    m_poseDirty = true; // the highlight segments are rebuilt with the bones
    requestRender();
}

void Viewport::setSelectionSet(std::shared_ptr<const std::vector<uint32_t>> vertices)
{
    m_selectionSet = std::move(vertices);
    m_selectionSetDirty = true;
    requestRender();
}

void Viewport::setVertexValues(std::shared_ptr<const std::vector<float>> values)
{
    m_vertexValues = std::move(values);
    m_vertexValuesDirty = true;
    requestRender();
}

void Viewport::setFrameBounds(const glm::vec3& lo, const glm::vec3& hi)
{
    m_boundsMin = lo;
    m_boundsMax = hi;
}

void Viewport::setGround(const glm::vec3& lo, const glm::vec3& hi)
{
    m_groundMin = lo;
    m_groundMax = hi;
    m_groundDirty = true;
    requestRender();
}

void Viewport::resetCamera()
{
    m_camera = OrbitCamera{};
    m_camera.frame(m_boundsMin, m_boundsMax, viewAspect());
    requestRender();
}

void Viewport::frameAll()
{
    m_camera.frame(m_boundsMin, m_boundsMax, viewAspect());
    requestRender();
}

void Viewport::frameBox(const glm::vec3& lo, const glm::vec3& hi)
{
    m_camera.frame(lo, hi, viewAspect());
    requestRender();
}


void Viewport::requestRender()
{
    if (isExposed())
        requestUpdate();
}

void Viewport::exposeEvent(QExposeEvent*)
{
    if (isExposed() && !m_res->rhi && !m_initFailed)
        init();
    if (isExposed() && m_res->swapChain) {
        if (m_res->swapChain->currentPixelSize() != m_res->swapChain->surfacePixelSize())
            resizeSwapChain();
        render();
    }
}

bool Viewport::event(QEvent* e)
{
    switch (e->type()) {
    case QEvent::UpdateRequest:
        if (isExposed() && m_res->swapChain)
            render();
        return true;
    case QEvent::PlatformSurface:
        // The native window is about to go: release the swapchain while its surface exists.
        if (static_cast<QPlatformSurfaceEvent*>(e)->surfaceEventType() == QPlatformSurfaceEvent::SurfaceAboutToBeDestroyed)
            releaseResources();
        break;
    default:
        break;
    }
    return QWindow::event(e);
}

void Viewport::init()
{
    Resources& r = *m_res;
    QRhi::Flags flags;
    if (m_api == Api::Vulkan) {
        QRhiVulkanInitParams params;
        params.inst = m_vulkan.get();
        params.window = this;
        r.rhi.reset(QRhi::create(QRhi::Vulkan, &params, flags));
    } else {
        m_fallbackSurface.reset(QRhiGles2InitParams::newFallbackSurface(format()));
        QRhiGles2InitParams params;
        params.format = format();
        params.fallbackSurface = m_fallbackSurface.get();
        params.window = this;
        r.rhi.reset(QRhi::create(QRhi::OpenGLES2, &params, flags));
    }
    if (!r.rhi || !r.rhi->isFeatureSupported(QRhi::Compute)) {
        m_initFailed = true;
        const QString msg = r.rhi ? tr("the %1 device has no compute shaders").arg(QString::fromLatin1(r.rhi->backendName()))
                                  : tr("could not create a %1 device").arg(m_api == Api::Vulkan ? QStringLiteral("Vulkan")
                                                                                                  : QStringLiteral("OpenGL"));
        r.rhi.reset();
        emit initFailed(msg);
        return;
    }
    r.swapChain.reset(r.rhi->newSwapChain());
    r.depth.reset(r.rhi->newRenderBuffer(QRhiRenderBuffer::DepthStencil, QSize(), 1,
                                          QRhiRenderBuffer::UsedWithSwapChainOnly));
    r.swapChain->setWindow(this);
    r.swapChain->setDepthStencil(r.depth.get());
    r.swapChain->setFlags(QRhiSwapChain::UsedAsTransferSource); // screenshots read the swapchain back
    r.renderPass.reset(r.swapChain->newCompatibleRenderPassDescriptor());
    r.swapChain->setRenderPassDescriptor(r.renderPass.get());
    r.swapChain->createOrResize();

    r.uboStride = quint32(r.rhi->ubufAligned(sizeof(ViewBlock)));
    r.ubo.reset(r.rhi->newBuffer(QRhiBuffer::Dynamic, QRhiBuffer::UniformBuffer, int(r.uboStride) * kMaxSlots));
    r.ubo->create();
    r.deformer = std::make_unique<GpuDeformer>(r.rhi.get());
    m_rigDirty = m_poseDirty = m_settingsDirty = true;
    r.frameTimer.start();
}

void Viewport::resizeSwapChain()
{
    m_res->swapChain->createOrResize();
}

namespace {

glm::mat4 toGlm(const QMatrix4x4& m)
{
    glm::mat4 g;
    std::memcpy(&g[0][0], m.constData(), sizeof(float) * 16);
    return g;
}

struct ViewRect {
    int x, y, w, h; // pixels, top-left origin
};

// The sub-views of the window: one, or four (TL method, TR reference, BL normal error, BR tangent error).
int viewRects(ViewMode mode, QSize size, ViewRect out[4])
{
    const int w = size.width(), h = size.height();
    if (mode == ViewMode::Single) {
        out[0] = {0, 0, w, h};
        return 1;
    }
    const int gap = 2;
    const int hw = (w - gap) / 2, hh = (h - gap) / 2;
    out[0] = {0, 0, hw, hh};
    out[1] = {w - hw, 0, hw, hh};
    out[2] = {0, h - hh, hw, hh};
    out[3] = {w - hw, h - hh, hw, hh};
    return 4;
}

/// The sub-view (viewRects) under a window point, and whether there is one.
bool viewAt(ViewMode mode, QSize size, QPointF pos, ViewRect& out)
{
    ViewRect rects[4];
    const int views = viewRects(mode, size, rects);
    for (int v = 0; v < views; ++v) {
        const ViewRect& vr = rects[v];
        if (pos.x() >= vr.x && pos.x() < vr.x + vr.w && pos.y() >= vr.y && pos.y() < vr.y + vr.h) {
            out = vr;
            return true;
        }
    }
    return false;
}

} // namespace

namespace {

QString shadingLabel(Shading s, ErrorMeasure measure)
{
    const QString from = measure == ErrorMeasure::Skinning ? QStringLiteral(" from skinning") : QString();
    switch (s) {
    case Shading::Lit: return QStringLiteral("lit");
    case Shading::Reference: return QStringLiteral("rebuilt reference");
    case Shading::NormalError: return QStringLiteral("normal error") + from;
    case Shading::TangentError: return QStringLiteral("tangent error") + from;
    case Shading::Handedness: return QStringLiteral("tangent handedness (red: opposite to the reference)");
    case Shading::JointWeight: return QStringLiteral("raw weight");
    case Shading::JointWeightBands: return QStringLiteral("raw weight bands");
    case Shading::InfluenceCount: return QStringLiteral("influences per vertex");
    case Shading::WeightSum: return QStringLiteral("|Σw − 1|");
    case Shading::BlendScale: return QStringLiteral("linear-blend scale (candy wrapper)");
    case Shading::DqDisplacement: return QStringLiteral("dual-quaternion − linear position, of the limb radius");
    case Shading::FormatPosition: return QStringLiteral("position moved by the runtime format (against float ×8)");
    case Shading::FormatNormal: return QStringLiteral("normal turned by the runtime format (against float ×8)");
    case Shading::WeightChange: return QStringLiteral("weight change against the compared version");
    }
    return QString();
}

bool isWeightShading(Shading s)
{
    return s == Shading::JointWeight || s == Shading::JointWeightBands || s == Shading::InfluenceCount || s == Shading::WeightSum;
}

} // namespace

float Viewport::formatPositionRed() const
{
    return std::max(glm::length(m_boundsMax - m_boundsMin), 1e-6f) * kFormatPositionRedFraction;
}

QImage Viewport::paintOverlay(QSize px, qreal dpr) const
{
    QImage img(px, QImage::Format_RGBA8888_Premultiplied);
    img.fill(Qt::transparent);
    img.setDevicePixelRatio(dpr);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    QFont f = p.font();
    f.setPixelSize(13);
    p.setFont(f);
    const QString method = QString::fromLatin1(rig::methodId(m_settings.method).data(), int(rig::methodId(m_settings.method).size()));
    struct Label {
        QRect view;
        QString text;
        bool legend;
    };
    std::vector<Label> labels;
    const QSize logical(int(px.width() / dpr), int(px.height() / dpr));
    if (m_settings.view == ViewMode::Quad) {
        const int hw = logical.width() / 2, hh = logical.height() / 2;
        labels.push_back({QRect(0, 0, hw, hh), method, false});
        labels.push_back({QRect(hw, 0, hw, hh), QStringLiteral("rebuilt reference"), false});
        labels.push_back({QRect(0, hh, hw, hh),
                          QStringLiteral("%1 · %2").arg(method, shadingLabel(Shading::NormalError, m_settings.errorMeasure)), true});
        labels.push_back({QRect(hw, hh, hw, hh),
                          QStringLiteral("%1 · %2").arg(method, shadingLabel(Shading::TangentError, m_settings.errorMeasure)), true});
    } else if (isWeightShading(m_settings.shading)) {
        QString what = shadingLabel(m_settings.shading, m_settings.errorMeasure);
        if (m_settings.shading == Shading::JointWeight || m_settings.shading == Shading::JointWeightBands) {
            const bool has = m_rig && m_selectedJoint >= 0 && size_t(m_selectedJoint) < m_rig->skeleton.nodes.size();
            what = has ? QStringLiteral("%1 of %2").arg(what, QString::fromStdString(m_rig->skeleton.nodes[size_t(m_selectedJoint)].name))
                       : QStringLiteral("%1 · select a joint").arg(what);
        }
        labels.push_back({QRect(QPoint(0, 0), logical), QStringLiteral("%1 · %2").arg(method, what), true});
    } else if (m_settings.shading == Shading::BlendScale || m_settings.shading == Shading::DqDisplacement) {
        labels.push_back({QRect(QPoint(0, 0), logical),
                          QStringLiteral("%1").arg(shadingLabel(m_settings.shading, m_settings.errorMeasure)), true});
    } else if (m_settings.shading == Shading::WeightChange) {
        const QString what = shadingLabel(m_settings.shading, m_settings.errorMeasure);
        labels.push_back({QRect(QPoint(0, 0), logical),
                          m_valuesReady ? what + QStringLiteral(" (violet: no partner)")
                                        : what + QStringLiteral(" · File ▸ Compare With… first"),
                          m_valuesReady});
    } else if (showsFormatDifference(m_settings.shading)) {
        const QString profile = QString::fromStdString(m_settings.profile);
        const QString what = QStringLiteral("%1 · %2 · %3").arg(method, profile, shadingLabel(m_settings.shading, m_settings.errorMeasure));
        labels.push_back({QRect(QPoint(0, 0), logical),
                          m_formatReady ? what : what + QStringLiteral(" · building the float reference…"), m_formatReady});
    } else {
        const bool heat = m_settings.shading == Shading::NormalError || m_settings.shading == Shading::TangentError;
        labels.push_back({QRect(QPoint(0, 0), logical),
                          QStringLiteral("%1 · %2").arg(method, shadingLabel(m_settings.shading, m_settings.errorMeasure)), heat});
    }
    for (const Label& l : labels) {
        const QRect box(l.view.left() + 8, l.view.top() + 8, p.fontMetrics().horizontalAdvance(l.text) + 16, 22);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0, 0, 0, 140));
        p.drawRoundedRect(box, 4, 4);
        p.setPen(QColor(240, 240, 240));
        p.drawText(box, Qt::AlignCenter, l.text);
        if (l.legend && m_settings.view == ViewMode::Single && isWeightShading(m_settings.shading))
            drawWeightLegend(p, l.view, m_settings.shading);
        else if (l.legend && m_settings.view == ViewMode::Single && m_settings.shading == Shading::BlendScale)
            drawScaleLegend(p, l.view);
        else if (l.legend && m_settings.view == ViewMode::Single && m_settings.shading == Shading::DqDisplacement)
            drawHeatLegend(p, l.view, 0.5f, QString()); // the label above names the unit: the limb radius
        else if (l.legend && m_settings.view == ViewMode::Single && m_settings.shading == Shading::FormatPosition)
            drawHeatLegend(p, l.view, formatPositionRed(), QStringLiteral(" units"));
        else if (l.legend && m_settings.view == ViewMode::Single && m_settings.shading == Shading::FormatNormal)
            drawHeatLegend(p, l.view, kFormatNormalRedDeg);
        else if (l.legend && m_settings.view == ViewMode::Single && m_settings.shading == Shading::WeightChange)
            drawHeatLegend(p, l.view, kWeightChangeRed, QString());
        else if (l.legend)
            drawHeatLegend(p, l.view, m_settings.heatmapMaxDeg);
    }
    return img;
}

void Viewport::uploadTextures(QRhiResourceUpdateBatch* u)
{
    Resources& r = *m_res;
    if (!r.whiteTexture) {
        r.whiteTexture.reset(r.rhi->newTexture(QRhiTexture::RGBA8, QSize(1, 1)));
        r.whiteTexture->create();
        QImage white(1, 1, QImage::Format_RGBA8888);
        white.fill(Qt::white);
        u->uploadTexture(r.whiteTexture.get(), white);
        // glTF's default sampler: trilinear, repeating.
        r.textureSampler.reset(r.rhi->newSampler(QRhiSampler::Linear, QRhiSampler::Linear, QRhiSampler::Linear,
                                                 QRhiSampler::Repeat, QRhiSampler::Repeat));
        r.textureSampler->create();
    }
    r.textures.clear();
    const int maxSide = r.rhi->resourceLimit(QRhi::TextureSizeMax);
    for (const rig::Image& im : m_rig->images) {
        std::unique_ptr<QRhiTexture> texture;
        if (im.decoded() && int(im.width) <= maxSide && int(im.height) <= maxSide) {
            const QSize size(int(im.width), int(im.height));
            texture.reset(r.rhi->newTexture(QRhiTexture::RGBA8, size, 1,
                                            QRhiTexture::sRGB | QRhiTexture::MipMapped | QRhiTexture::UsedWithGenerateMips));
            if (texture->create()) {
                // The rig outlives the batch: the image wraps its pixels without a copy.
                const QImage pixels(im.rgba.data(), size.width(), size.height(), size.width() * 4, QImage::Format_RGBA8888);
                u->uploadTexture(texture.get(), pixels);
                u->generateMips(texture.get());
            } else {
                texture.reset();
            }
        } else if (im.decoded()) {
            qWarning("rigscope: texture '%s' is %u x %u, larger than this GPU takes (%d); the lit view shows the factor",
                     im.name.c_str(), im.width, im.height, maxSide);
        }
        r.textures.push_back(std::move(texture));
    }
    // Runs of consecutive meshes with the same texture (the deformer's meshes are the rig's, in order).
    r.meshRuns.clear();
    const auto& ranges = r.deformer->meshes();
    for (size_t m = 0; m < ranges.size() && m < m_rig->meshes.size(); ++m) {
        const int image = m_rig->meshes[m].baseColorImage;
        const int texture = image >= 0 && size_t(image) < r.textures.size() && r.textures[size_t(image)] ? image : -1;
        const quint32 first = 3 * ranges[m].triangleBegin, count = 3 * ranges[m].triangleCount;
        if (count == 0)
            continue;
        if (!r.meshRuns.empty() && r.meshRuns.back().texture == texture &&
            r.meshRuns.back().firstIndex + r.meshRuns.back().indexCount == first)
            r.meshRuns.back().indexCount += count;
        else
            r.meshRuns.push_back({first, count, texture});
    }
    r.texturesGeneration = m_rigGeneration;
    r.bindingsStale = true;
}

void Viewport::render()
{
    Resources& r = *m_res;
    if (!r.rhi || !r.swapChain)
        return;
    QElapsedTimer timer;
    timer.start();

    if (m_rigDirty && m_rig && m_runtime) {
        // Without a pack (the rig could not be packed; its loader said why) the deformer empties.
        std::string err;
        if (!r.deformer->setRig(*m_rig, *m_runtime, m_pack, &err) && m_pack)
            qWarning("rigscope: the GPU deformer could not take the rig: %s", err.c_str());
        r.bindingsStale = true;
    }
    if (!r.deformer->isReady()) {
        m_rigDirty = false;
    }
    if ((m_poseDirty || m_rigDirty) && r.deformer->isReady())
        r.deformer->setPose(m_pose);
    if ((m_settingsDirty || m_rigDirty) && r.deformer->isReady()) {
        r.deformer->setMethod(m_settings.method);
        rig::DeformSettings ds;
        ds.morphNormals = m_settings.morphNormals;
        r.deformer->setSettings(ds);
    }
    if (r.deformer->isReady())
        r.deformer->setComparisonEnabled(showsFormatDifference(m_settings.shading) && r.deformer->hasComparison());
    m_formatReady = r.deformer->isReady() && r.deformer->hasComparison();

    if (r.swapChain->currentPixelSize() != r.swapChain->surfacePixelSize())
        resizeSwapChain();
    const QRhi::FrameOpResult begin = r.rhi->beginFrame(r.swapChain.get());
    if (begin == QRhi::FrameOpSwapChainOutOfDate) {
        resizeSwapChain();
        requestUpdate();
        return;
    }
    if (begin != QRhi::FrameOpSuccess)
        return;

    QRhiCommandBuffer* cb = r.swapChain->currentFrameCommandBuffer();
    QRhiResourceUpdateBatch* u = r.rhi->nextResourceUpdateBatch();
    const bool ready = r.deformer->isReady();
    if (ready)
        r.deformer->record(cb); // compute passes, outside the render pass

    // Static draw data of a new rig: UVs as vertex input, segment buffers for bones and the bounding box.
    if (ready && (m_rigDirty || !r.uvs)) {
        // Per vertex: the pack's draw input (UV0, the base colour texture's coordinate, the base colour factor),
        // uploaded once per rig (or device).
        const std::vector<DrawVertex>& vin = m_pack->draw;
        r.uvs.reset(r.rhi->newBuffer(QRhiBuffer::Immutable, QRhiBuffer::VertexBuffer, int(vin.size() * sizeof(DrawVertex))));
        r.uvs->create();
        u->uploadStaticBuffer(r.uvs.get(), vin.data());
    }
    if (ready && r.texturesGeneration != m_rigGeneration)
        uploadTextures(u);
    if (ready && (m_rigDirty || r.bindingsStale)) {
        const size_t n = r.deformer->vertexCount();
        r.vertexCount = int(n);
        r.indexCount = int(r.deformer->triangleCount() * 3);
        r.segCapacity = int(2 * m_rig->skeleton.nodes.size() + 3 * kRingSegments + kAidSegments);
        r.aidBase = r.segCapacity - kAidSegments;
        m_groundDirty = true;
        r.segOrigins.reset(r.rhi->newBuffer(QRhiBuffer::Static, QRhiBuffer::StorageBuffer, r.segCapacity * 16));
        r.segDirs.reset(r.rhi->newBuffer(QRhiBuffer::Static, QRhiBuffer::StorageBuffer, r.segCapacity * 16));
        r.segOrigins->create();
        r.segDirs->create();
        // The wireframe's and the hard boundaries' edges: static per rig.
        auto edgeBuffer = [&](const std::vector<uint32_t>& edges, std::unique_ptr<QRhiBuffer>& buffer, int& count) {
            count = int(edges.size() / 2);
            std::vector<uint32_t> padded(std::max<size_t>((edges.size() + 3) / 4 * 4, 4), 0u);
            std::copy(edges.begin(), edges.end(), padded.begin());
            buffer.reset(r.rhi->newBuffer(QRhiBuffer::Immutable, QRhiBuffer::StorageBuffer, int(padded.size() * 4)));
            buffer->create();
            u->uploadStaticBuffer(buffer.get(), padded.data());
        };
        edgeBuffer(m_pack->edges, r.edges, r.edgeCount);
        edgeBuffer(m_pack->hardEdges, r.hardEdges, r.hardEdgeCount);
    }
    auto uploadSegments = [&](int at, const std::vector<Segment>& segs, int capacity) {
        const int n = std::min(int(segs.size()), capacity);
        if (n <= 0)
            return 0;
        std::vector<glm::vec4> origins, dirs;
        origins.reserve(size_t(n));
        dirs.reserve(size_t(n));
        for (int i = 0; i < n; ++i) {
            origins.emplace_back(segs[size_t(i)].a, 1.0f);
            dirs.emplace_back(segs[size_t(i)].d, 0.0f);
        }
        u->uploadStaticBuffer(r.segOrigins.get(), at * 16, n * 16, origins.data());
        u->uploadStaticBuffer(r.segDirs.get(), at * 16, n * 16, dirs.data());
        return n;
    };
    // The ground grid: rebuilt when the rig or its ground box changes.
    if (ready && r.segOrigins && m_groundDirty) {
        const GroundGrid grid = groundGrid(m_groundMin, m_groundMax);
        r.gridSegments = uploadSegments(r.aidBase, grid.lines, kGridCapacity);
        r.gridCentre[0] = grid.centreLines[0];
        r.gridCentre[1] = grid.centreLines[1];
        m_groundDirty = false;
    }
    // The axes gizmo follows the camera: rebuilt every frame (a dozen segments).
    if (ready && r.segOrigins) {
        r.gizmo = axesGizmo(m_camera.view());
        uploadSegments(r.aidBase + kGridCapacity, r.gizmo.segments, kGizmoCapacity);
    }
    // The selection box being drawn, in window pixels (logical).
    r.boxSegments = 0;
    if (ready && r.segOrigins && m_drag == Drag::Box) {
        const glm::vec3 a(float(m_pressPos.x()), float(m_pressPos.y()), 0.0f), b(float(m_boxEnd.x()), float(m_boxEnd.y()), 0.0f);
        const std::vector<Segment> box = {{a, {b.x - a.x, 0, 0}}, {{b.x, a.y, 0}, {0, b.y - a.y, 0}},
                                          {b, {a.x - b.x, 0, 0}}, {{a.x, b.y, 0}, {0, a.y - b.y, 0}}};
        r.boxSegments = uploadSegments(r.aidBase + kGridCapacity + kGizmoCapacity, box, kBoxSegments);
    }
    // Bones: from each joint's parent joint to the joint, at the current pose; then the selected joint's own bones.
    if (ready && r.segOrigins && (m_poseDirty || m_rigDirty || r.bindingsStale)) {
        std::vector<Segment> segs;
        std::vector<int> owners;
        boneSegments(segs, owners);
        std::vector<glm::vec4> origins, dirs;
        origins.reserve(2 * segs.size());
        dirs.reserve(2 * segs.size());
        for (const Segment& sg : segs) {
            origins.emplace_back(sg.a, 1.0f);
            dirs.emplace_back(sg.d, 0.0f);
        }
        r.boneSegments = int(segs.size());
        for (size_t i = 0; i < segs.size(); ++i)
            if (owners[i] == m_selectedJoint) {
                origins.emplace_back(segs[i].a, 1.0f);
                dirs.emplace_back(segs[i].d, 0.0f);
            }
        r.highlightSegments = int(origins.size()) - r.boneSegments;
        r.ringBase = int(origins.size());
        const int count = std::min(int(origins.size()), r.aidBase);
        if (count > 0) {
            u->uploadStaticBuffer(r.segOrigins.get(), 0, count * 16, origins.data());
            u->uploadStaticBuffer(r.segDirs.get(), 0, count * 16, dirs.data());
        }
        r.boundsSegments = int(r.deformer->meshes().size() * 12);
        // The per-bone box at this pose: O(joints), from the joints' bind-pose boxes the runtime holds.
        r.perBoneBoxSegments = 0;
        if (m_runtime && m_runtime->jointBoxes.size() == m_rig->meshes.size()) {
            const rig::Bounds b = rig::perBoneBounds(*m_rig, m_runtime->jointBoxes, r.deformer->world());
            if (!b.empty())
                r.perBoneBoxSegments = uploadSegments(r.aidBase + kGridCapacity + kGizmoCapacity + kBoxSegments,
                                                      boxEdges(b.min, b.max), kPerBoneBoxSegments);
        }
    }
    // The rotate rings: screen-constant, so rebuilt every frame they show (3 × 64 segments).
    r.ringSegments = 0;
    RotateRings rings;
    if (ready && r.segOrigins && currentRings(rings) && r.ringBase + 3 * kRingSegments <= r.aidBase) {
        r.ringSegments = uploadSegments(r.ringBase, rings.segments(), 3 * kRingSegments);
    }
    // The selection set's markers.
    if (ready && (m_selectionSetDirty || r.bindingsStale)) {
        const size_t n = m_selectionSet ? m_selectionSet->size() : 0;
        r.setCount = 0;
        std::vector<uint32_t> packed;
        if (n > 0) {
            packed.assign((n + 3) / 4 * 4, 0u);
            for (size_t i = 0; i < n; ++i)
                packed[i] = std::min<uint32_t>((*m_selectionSet)[i], uint32_t(std::max(r.vertexCount - 1, 0)));
        }
        const int bytes = int(std::max<size_t>(packed.size() * 4, 16));
        if (!r.setIndices || qint64(r.setIndices->size()) < qint64(bytes)) {
            r.setIndices.reset(r.rhi->newBuffer(QRhiBuffer::Static, QRhiBuffer::StorageBuffer, bytes));
            r.setIndices->create();
            r.bindingsStale = true; // the set's bindings name the new buffer
        }
        if (!packed.empty()) {
            u->uploadStaticBuffer(r.setIndices.get(), 0, int(packed.size() * 4), packed.data());
            r.setCount = int(n);
        }
        m_selectionSetDirty = false;
    }
    // The per-vertex values (the weight-change heatmap): one float per vertex, at least 16 bytes; uploaded as given.
    if (ready && (m_vertexValuesDirty || r.bindingsStale || !r.vertexValues)) {
        const int bytes = std::max(r.vertexCount * 4, 16);
        if (!r.vertexValues || r.vertexValues->size() != quint32(bytes)) {
            r.vertexValues.reset(r.rhi->newBuffer(QRhiBuffer::Static, QRhiBuffer::StorageBuffer, bytes));
            r.vertexValues->create();
            r.bindingsStale = true;
        }
        m_valuesReady = m_vertexValues && m_vertexValues->size() == size_t(r.vertexCount) && r.vertexCount > 0;
        if (m_valuesReady)
            u->uploadStaticBuffer(r.vertexValues.get(), 0, r.vertexCount * 4, m_vertexValues->data());
        m_vertexValuesDirty = false;
    }
    m_rigDirty = m_poseDirty = m_settingsDirty = false;

    // Pipelines and bindings (rebuilt when the deformer's buffers are new).
    if (ready && r.bindingsStale) {
        const auto vs = QRhiShaderResourceBinding::VertexStage;
        const auto vfs = vs | QRhiShaderResourceBinding::FragmentStage;
        const quint32 blockSize = sizeof(ViewBlock);
        GpuDeformer& d = *r.deformer;
        auto meshSrb = [&](QRhiTexture* texture) {
            std::unique_ptr<QRhiShaderResourceBindings> srb(r.rhi->newShaderResourceBindings());
            srb->setBindings({
                QRhiShaderResourceBinding::uniformBufferWithDynamicOffset(0, vfs, r.ubo.get(), blockSize),
                QRhiShaderResourceBinding::bufferLoad(1, vs, d.positionsBuffer()),
                QRhiShaderResourceBinding::bufferLoad(2, vs, d.normalsBuffer()),
                QRhiShaderResourceBinding::bufferLoad(3, vs, d.tangentsBuffer()),
                QRhiShaderResourceBinding::bufferLoad(4, vs, d.referenceNormalsBuffer()),
                QRhiShaderResourceBinding::bufferLoad(5, vs, d.referenceTangentsBuffer()),
                QRhiShaderResourceBinding::bufferLoad(6, vs, d.errorsBuffer()),
                QRhiShaderResourceBinding::bufferLoad(7, vs, d.rawInfluencesBuffer()),
                QRhiShaderResourceBinding::sampledTexture(8, QRhiShaderResourceBinding::FragmentStage, texture,
                                                          r.textureSampler.get()),
                QRhiShaderResourceBinding::bufferLoad(9, vs, d.blendScaleBuffer()),
                QRhiShaderResourceBinding::bufferLoad(10, vs, d.formatDifferenceBuffer()),
                QRhiShaderResourceBinding::bufferLoad(11, vs, r.vertexValues.get()),
            });
            srb->create();
            return srb;
        };
        r.meshSrb = meshSrb(r.whiteTexture.get());
        r.textureSrbs.clear();
        for (const auto& texture : r.textures)
            r.textureSrbs.push_back(texture ? meshSrb(texture.get()) : nullptr);
        auto lineSrb = [&](QRhiBuffer* origins, QRhiBuffer* dirs) {
            std::unique_ptr<QRhiShaderResourceBindings> srb(r.rhi->newShaderResourceBindings());
            srb->setBindings({
                QRhiShaderResourceBinding::uniformBufferWithDynamicOffset(0, vfs, r.ubo.get(), blockSize),
                QRhiShaderResourceBinding::bufferLoad(1, vs, origins),
                QRhiShaderResourceBinding::bufferLoad(2, vs, dirs),
            });
            srb->create();
            return srb;
        };
        r.normalLinesSrb = lineSrb(d.positionsBuffer(), d.normalsBuffer());
        r.tangentLinesSrb = lineSrb(d.positionsBuffer(), d.tangentsBuffer());
        r.refNormalLinesSrb = lineSrb(d.positionsBuffer(), d.referenceNormalsBuffer());
        r.refTangentLinesSrb = lineSrb(d.positionsBuffer(), d.referenceTangentsBuffer());
        r.segLinesSrb = lineSrb(r.segOrigins.get(), r.segDirs.get());
        r.boundsSrb = lineSrb(d.boundsBuffer(), d.boundsBuffer());
        r.markerSrb = lineSrb(d.positionsBuffer(), d.positionsBuffer());
        r.setSrb = lineSrb(d.positionsBuffer(), r.setIndices.get());
        r.edgesSrb = lineSrb(d.positionsBuffer(), r.edges.get());
        r.hardEdgesSrb = lineSrb(d.positionsBuffer(), r.hardEdges.get());

        if (!r.meshPipeline || r.pipelineRp != r.renderPass.get()) {
            r.meshPipeline.reset(r.rhi->newGraphicsPipeline());
            r.meshPipeline->setShaderStages({{QRhiShaderStage::Vertex, loadShader(QStringLiteral("mesh.vert"))},
                                             {QRhiShaderStage::Fragment, loadShader(QStringLiteral("mesh.frag"))}});
            QRhiVertexInputLayout layout;
            layout.setBindings({{sizeof(DrawVertex)}});
            layout.setAttributes({{0, 0, QRhiVertexInputAttribute::Float2, 0},
                                  {0, 1, QRhiVertexInputAttribute::UNormByte4, offsetof(DrawVertex, color)},
                                  {0, 2, QRhiVertexInputAttribute::Float2, offsetof(DrawVertex, texUv)}});
            r.meshPipeline->setVertexInputLayout(layout);
            r.meshPipeline->setShaderResourceBindings(r.meshSrb.get());
            r.meshPipeline->setRenderPassDescriptor(r.renderPass.get());
            r.meshPipeline->setDepthTest(true);
            r.meshPipeline->setDepthWrite(true);
            r.meshPipeline->setCullMode(QRhiGraphicsPipeline::None);
            r.meshPipeline->create();

            r.linePipeline.reset(r.rhi->newGraphicsPipeline());
            r.linePipeline->setShaderStages({{QRhiShaderStage::Vertex, loadShader(QStringLiteral("lines.vert"))},
                                             {QRhiShaderStage::Fragment, loadShader(QStringLiteral("lines.frag"))}});
            r.linePipeline->setVertexInputLayout(QRhiVertexInputLayout());
            r.linePipeline->setShaderResourceBindings(r.normalLinesSrb.get());
            r.linePipeline->setRenderPassDescriptor(r.renderPass.get());
            r.linePipeline->setDepthTest(true);
            r.linePipeline->setDepthWrite(false);
            r.linePipeline->setCullMode(QRhiGraphicsPipeline::None);
            r.linePipeline->create();

            r.xrayLinePipeline.reset(r.rhi->newGraphicsPipeline());
            r.xrayLinePipeline->setShaderStages(r.linePipeline->cbeginShaderStages(), r.linePipeline->cendShaderStages());
            r.xrayLinePipeline->setVertexInputLayout(QRhiVertexInputLayout());
            r.xrayLinePipeline->setShaderResourceBindings(r.normalLinesSrb.get());
            r.xrayLinePipeline->setRenderPassDescriptor(r.renderPass.get());
            r.xrayLinePipeline->setDepthTest(false);
            r.xrayLinePipeline->setDepthWrite(false);
            r.xrayLinePipeline->setCullMode(QRhiGraphicsPipeline::None);
            r.xrayLinePipeline->create();
            r.pipelineRp = r.renderPass.get();
        }
        r.bindingsStale = false;
    }

    // Uniform slots, one per draw.
    const QSize px = r.swapChain->currentPixelSize();
    ViewRect rects[4];
    const int views = viewRects(m_settings.view, px, rects);
    const glm::mat4 corr = toGlm(r.rhi->clipSpaceCorrMatrix());
    const glm::vec3 eye = m_camera.eye();
    const glm::vec3 lightDir = glm::normalize(eye - m_camera.target + glm::vec3(0.0f, 0.6f * m_camera.distance, 0.0f));
    const float diag = glm::length(m_boundsMax - m_boundsMin);
    const float lineLength = std::max(diag, 1e-4f) * m_settings.lineLength;
    const float dpr = float(devicePixelRatio());

    struct Draw {
        int view;
        bool mesh;
        int mode;          // mesh mode
        int source;        // line source
        int count;         // lines
        QRhiShaderResourceBindings* srb;
        glm::vec4 color;
        float width;
        int first = 0;     // first line (segment sub-ranges)
        enum Space { World, Gizmo, Window } space = World; // the view's camera; its gizmo corner; window pixels
    };
    // Where a draw lands (pixels, top-left origin) and its world -> clip matrix.
    const float logicalW = float(px.width()) / dpr, logicalH = float(px.height()) / dpr;
    auto placement = [&](const Draw& dr, glm::mat4& vp) {
        ViewRect vr = rects[dr.view];
        if (dr.space == Draw::Gizmo) {
            const int g = std::min({int(float(kGizmoPx) * dpr), vr.w, vr.h});
            vr = {vr.x + vr.w - g - kGizmoMargin, vr.y + vr.h - g - kGizmoMargin, g, g};
            vp = corr; // gizmo space is clip space
        } else if (dr.space == Draw::Window) {
            vr = {0, 0, px.width(), px.height()};
            glm::mat4 m(1.0f);
            m[0][0] = 2.0f / std::max(logicalW, 1.0f);
            m[1][1] = -2.0f / std::max(logicalH, 1.0f);
            m[3][0] = -1.0f;
            m[3][1] = 1.0f;
            vp = corr * m;
        } else {
            vp = corr * m_camera.projection(float(vr.w) / float(std::max(vr.h, 1))) * m_camera.view();
        }
        return vr;
    };
    std::vector<Draw> draws;
    if (ready && r.indexCount > 0) {
        for (int v = 0; v < views; ++v) {
            const bool skinning = m_settings.errorMeasure == ErrorMeasure::Skinning;
            const int normalError = skinning ? ModeSkinningNormalError : ModeNormalError;
            const int tangentError = skinning ? ModeSkinningTangentError : ModeTangentError;
            int mode = ModeLit;
            if (views == 4)
                mode = v == 0 ? ModeLit : v == 1 ? ModeReference : v == 2 ? normalError : tangentError;
            else
                switch (m_settings.shading) {
                case Shading::Lit: mode = ModeLit; break;
                case Shading::Reference: mode = ModeReference; break;
                case Shading::NormalError: mode = normalError; break;
                case Shading::TangentError: mode = tangentError; break;
                case Shading::Handedness: mode = ModeHandedness; break;
                case Shading::JointWeight: mode = ModeJointWeight; break;
                case Shading::JointWeightBands: mode = ModeJointWeightBands; break;
                case Shading::InfluenceCount: mode = ModeInfluenceCount; break;
                case Shading::WeightSum: mode = ModeWeightSum; break;
                case Shading::BlendScale: mode = ModeBlendScale; break;
                case Shading::DqDisplacement: mode = ModeDqDisplacement; break;
                case Shading::FormatPosition: mode = m_formatReady ? ModeFormatPosition : ModeLit; break;
                case Shading::FormatNormal: mode = m_formatReady ? ModeFormatNormal : ModeLit; break;
                case Shading::WeightChange: mode = m_valuesReady ? ModeWeightChange : ModeLit; break;
                }
            draws.push_back({v, true, mode, 0, r.vertexCount, r.meshSrb.get(), {}, 0.0f}); // flags.y: the vertex count
            const bool referenceView = mode == ModeReference;
            // In the four-view comparison the vectors belong to the two shaded views; the heatmaps stay readable.
            const unsigned o = (views == 4 && v >= 2) ? (m_settings.overlays & (OverlaySkeleton | OverlayBounds))
                                                      : m_settings.overlays;
            const glm::vec4 gold(1.0f, 0.78f, 0.12f, 1.0f), cyan(0.15f, 0.8f, 1.0f, 1.0f), magenta(0.95f, 0.35f, 0.9f, 1.0f);
            // Direction lines stay readable on dense meshes: at most kMaxVectorLines, one vertex (jittered) from each
            // block of `stride` consecutive vertices (flags.w) — meshes are stored in spatially coherent order.
            const int stride = std::max(1, (r.vertexCount + kMaxVectorLines - 1) / kMaxVectorLines);
            const int lines = (r.vertexCount + stride - 1) / stride;
            if (o & OverlayNormals)
                draws.push_back({v, false, 0, SourceVectors, lines,
                                 referenceView ? r.refNormalLinesSrb.get() : r.normalLinesSrb.get(), gold, 1.6f, stride});
            if (o & OverlayTangents)
                draws.push_back({v, false, 0, SourceVectors, lines,
                                 referenceView ? r.refTangentLinesSrb.get() : r.tangentLinesSrb.get(), cyan, 1.6f, stride});
            if ((o & OverlayReferenceNormals) && !referenceView)
                draws.push_back({v, false, 0, SourceVectors, lines, r.refNormalLinesSrb.get(), magenta, 1.6f, stride});
            if ((o & OverlaySkeleton) && r.boneSegments > 0)
                draws.push_back({v, false, 0, SourceSegments, r.boneSegments, r.segLinesSrb.get(),
                                 glm::vec4(0.85f, 0.9f, 1.0f, 1.0f), 3.0f});
            if (o & OverlayBounds) {
                draws.push_back({v, false, 0, SourceBounds, r.boundsSegments, r.boundsSrb.get(), glm::vec4(0.9f, 0.9f, 0.9f, 1.0f), 1.2f});
                if (r.perBoneBoxSegments > 0)
                    draws.push_back({v, false, 0, SourceSegments, r.perBoneBoxSegments, r.segLinesSrb.get(),
                                     glm::vec4(1.0f, 0.6f, 0.15f, 1.0f), 1.2f,
                                     r.aidBase + kGridCapacity + kGizmoCapacity + kBoxSegments});
            }
            // The selected joint's bones, shown whether or not the skeleton is.
            if (r.highlightSegments > 0)
                draws.push_back({v, false, 0, SourceSegments, r.highlightSegments, r.segLinesSrb.get(),
                                 glm::vec4(1.0f, 0.55f, 0.1f, 1.0f), 5.0f, r.boneSegments});
            if (r.setCount > 0 && r.setSrb)
                draws.push_back({v, false, 0, SourceSetMarkers, r.setCount, r.setSrb.get(), glm::vec4(0.2f, 0.95f, 1.0f, 1.0f), 2.0f});
            if (v == 0 && r.ringSegments == 3 * kRingSegments) {
                const glm::vec4 axisColors[3] = {{0.95f, 0.25f, 0.2f, 1.0f}, {0.3f, 0.9f, 0.25f, 1.0f}, {0.25f, 0.45f, 1.0f, 1.0f}};
                for (int k = 0; k < 3; ++k)
                    draws.push_back({v, false, 0, SourceSegments, kRingSegments, r.segLinesSrb.get(),
                                     k == m_hoverAxis ? glm::vec4(1.0f, 0.9f, 0.2f, 1.0f) : axisColors[k],
                                     k == m_hoverAxis ? 3.5f : 2.2f, r.ringBase + k * kRingSegments});
            }
            if (m_selected >= 0 && m_selected < r.vertexCount)
                draws.push_back({v, false, 0, SourceMarker, 1, r.markerSrb.get(), glm::vec4(1.0f, 1.0f, 1.0f, 1.0f), 2.0f});
            // The wireframe over any shading, the topology the colours are painted on; the ground grid under the rig.
            if ((m_settings.overlays & OverlayWireframe) && r.edgeCount > 0 && r.edgesSrb)
                draws.push_back({v, false, 0, SourceEdges, r.edgeCount, r.edgesSrb.get(), glm::vec4(0.05f, 0.05f, 0.07f, 1.0f), 1.0f});
            // The hard weight boundaries in red, over the wireframe.
            if ((m_settings.overlays & OverlayHardBoundaries) && r.hardEdgeCount > 0 && r.hardEdgesSrb)
                draws.push_back({v, false, 0, SourceEdges, r.hardEdgeCount, r.hardEdgesSrb.get(), glm::vec4(0.95f, 0.12f, 0.1f, 1.0f), 1.0f});
            if ((m_settings.overlays & OverlayGrid) && r.gridSegments > 0) {
                draws.push_back({v, false, 0, SourceSegments, r.gridSegments, r.segLinesSrb.get(),
                                 glm::vec4(0.36f, 0.38f, 0.42f, 1.0f), 1.0f, r.aidBase});
                for (int c : r.gridCentre)
                    if (c >= 0 && c < r.gridSegments)
                        draws.push_back({v, false, 0, SourceSegments, 1, r.segLinesSrb.get(),
                                         glm::vec4(0.55f, 0.57f, 0.62f, 1.0f), 1.6f, r.aidBase + c});
            }
            // The axes gizmo in the view's lower right corner: X red, Y green, Z blue, as in Maya and Blender.
            const glm::vec4 axisColors[3] = {{0.95f, 0.3f, 0.25f, 1.0f}, {0.35f, 0.9f, 0.3f, 1.0f}, {0.3f, 0.5f, 1.0f, 1.0f}};
            for (int k = 0; k < 3; ++k)
                if (r.gizmo.count[k] > 0 && r.gizmo.first[k] + r.gizmo.count[k] <= kGizmoCapacity) {
                    Draw g{v, false, 0, SourceSegments, r.gizmo.count[k], r.segLinesSrb.get(), axisColors[k], 1.8f,
                           r.aidBase + kGridCapacity + r.gizmo.first[k]};
                    g.space = Draw::Gizmo;
                    draws.push_back(g);
                }
        }
        if (r.boxSegments > 0) {
            Draw box{0, false, 0, SourceSegments, r.boxSegments, r.segLinesSrb.get(), glm::vec4(1.0f, 1.0f, 1.0f, 1.0f), 1.0f,
                     r.aidBase + kGridCapacity + kGizmoCapacity};
            box.space = Draw::Window;
            draws.push_back(box);
        }
    }
    draws.resize(std::min<size_t>(draws.size(), kMaxSlots));
    for (size_t i = 0; i < draws.size(); ++i) {
        const Draw& dr = draws[i];
        glm::mat4 vp;
        const ViewRect vr = placement(dr, vp);
        ViewBlock b{};
        std::memcpy(b.viewProj, &vp[0][0], sizeof b.viewProj);
        b.eye[0] = eye.x, b.eye[1] = eye.y, b.eye[2] = eye.z;
        b.lightDir[0] = lightDir.x, b.lightDir[1] = lightDir.y, b.lightDir[2] = lightDir.z;
        b.params[0] = dr.mode == ModeFormatPosition ? formatPositionRed()
                      : dr.mode == ModeFormatNormal ? kFormatNormalRedDeg
                      : dr.mode == ModeWeightChange ? kWeightChangeRed
                                                    : m_settings.heatmapMaxDeg;
        b.params[1] = float(dr.mode);
        b.params[2] = float(int(m_settings.material));
        b.params[3] = float(m_selected);
        b.viewport[0] = float(vr.w), b.viewport[1] = float(vr.h);
        b.viewport[2] = dr.width * dpr;
        b.viewport[3] = lineLength;
        std::memcpy(b.color, &dr.color[0], sizeof b.color);
        b.flags[0] = dr.source;
        b.flags[1] = dr.count;
        b.flags[2] = dr.source == SourceVectors && !dr.mesh ? r.vertexCount : m_selected;
        b.flags[3] = dr.mesh ? m_selectedJoint : dr.first; // vectors: the stride; segments: the first line
        u->updateDynamicBuffer(r.ubo.get(), int(i * r.uboStride), sizeof b, &b);
    }

    // The 2D overlay (labels, legend): repainted only when its content or the window size changes.
    const QString overlayKey = QStringLiteral("%1|%2|%3|%4|%5|%6x%7|%8")
                                   .arg(int(m_settings.view))
                                   .arg(int(m_settings.shading))
                                   .arg(int(m_settings.method))
                                   .arg(double(m_settings.heatmapMaxDeg))
                                   .arg(ready)
                                   .arg(px.width())
                                   .arg(px.height())
                                   .arg(m_selectedJoint) +
                                 QStringLiteral("|%1|%2|%3|%4").arg(m_valuesReady).arg(m_formatReady).arg(QString::fromStdString(m_settings.profile))
                                     .arg(double(formatPositionRed()));
    if (ready && overlayKey != r.overlayKey) {
        if (!r.overlayTex || r.overlayTex->pixelSize() != px) {
            r.overlayTex.reset(r.rhi->newTexture(QRhiTexture::RGBA8, px));
            r.overlayTex->create();
            if (!r.overlaySampler) {
                r.overlaySampler.reset(r.rhi->newSampler(QRhiSampler::Nearest, QRhiSampler::Nearest, QRhiSampler::None,
                                                         QRhiSampler::ClampToEdge, QRhiSampler::ClampToEdge));
                r.overlaySampler->create();
                r.overlayUbo.reset(r.rhi->newBuffer(QRhiBuffer::Dynamic, QRhiBuffer::UniformBuffer, 16));
                r.overlayUbo->create();
            }
            r.overlaySrb.reset(r.rhi->newShaderResourceBindings());
            r.overlaySrb->setBindings({QRhiShaderResourceBinding::uniformBuffer(0, QRhiShaderResourceBinding::VertexStage,
                                                                                 r.overlayUbo.get()),
                                       QRhiShaderResourceBinding::sampledTexture(1, QRhiShaderResourceBinding::FragmentStage,
                                                                                 r.overlayTex.get(), r.overlaySampler.get())});
            r.overlaySrb->create();
            if (!r.overlayPipeline) {
                r.overlayPipeline.reset(r.rhi->newGraphicsPipeline());
                r.overlayPipeline->setShaderStages({{QRhiShaderStage::Vertex, loadShader(QStringLiteral("overlay.vert"))},
                                                    {QRhiShaderStage::Fragment, loadShader(QStringLiteral("overlay.frag"))}});
                QRhiGraphicsPipeline::TargetBlend blend;
                blend.enable = true;
                blend.srcColor = QRhiGraphicsPipeline::One; // premultiplied
                blend.dstColor = QRhiGraphicsPipeline::OneMinusSrcAlpha;
                blend.srcAlpha = QRhiGraphicsPipeline::One;
                blend.dstAlpha = QRhiGraphicsPipeline::OneMinusSrcAlpha;
                r.overlayPipeline->setTargetBlends({blend});
                r.overlayPipeline->setVertexInputLayout(QRhiVertexInputLayout());
                r.overlayPipeline->setShaderResourceBindings(r.overlaySrb.get());
                r.overlayPipeline->setRenderPassDescriptor(r.renderPass.get());
                r.overlayPipeline->create();
            }
        }
        const float yUp[4] = {r.rhi->isYUpInNDC() ? 1.0f : 0.0f, 0, 0, 0};
        u->updateDynamicBuffer(r.overlayUbo.get(), 0, 16, yUp);
        u->uploadTexture(r.overlayTex.get(), paintOverlay(px, devicePixelRatio()));
        r.overlayKey = overlayKey;
    }

    cb->beginPass(r.swapChain->currentFrameRenderTarget(), QColor(38, 40, 46), {1.0f, 0}, u);
    for (size_t i = 0; i < draws.size(); ++i) {
        const Draw& dr = draws[i];
        glm::mat4 unused;
        const ViewRect vr = placement(dr, unused);
        // QRhiViewport / QRhiScissor are bottom-left based.
        const float y = float(px.height() - vr.y - vr.h);
        // Bones, markers and the gizmo show through the mesh; the grid and the wireframe are hidden behind it.
        const bool depthTested = dr.source == SourceVectors || dr.source == SourceBounds || dr.source == SourceEdges ||
                                 (dr.source == SourceSegments && dr.space == Draw::World && dr.first >= r.aidBase);
        const bool xray = !depthTested;
        cb->setGraphicsPipeline(dr.mesh ? r.meshPipeline.get() : xray ? r.xrayLinePipeline.get() : r.linePipeline.get());
        cb->setViewport(QRhiViewport(float(vr.x), y, float(vr.w), float(vr.h)));
        const QRhiCommandBuffer::DynamicOffset offset(0, quint32(i * r.uboStride));
        cb->setShaderResources(dr.srb, 1, &offset);
        if (dr.mesh) {
            const QRhiCommandBuffer::VertexInput vin(r.uvs.get(), 0);
            cb->setVertexInput(0, 1, &vin, r.deformer->indexBuffer(), 0, QRhiCommandBuffer::IndexUInt32);
            // Only the lit views sample the base colour: the others draw the whole mesh at once.
            if (dr.mode != ModeLit && dr.mode != ModeReference) {
                cb->drawIndexed(quint32(r.indexCount));
            } else {
                for (const Resources::MeshRun& run : r.meshRuns) {
                    cb->setShaderResources(run.texture >= 0 ? r.textureSrbs[size_t(run.texture)].get() : dr.srb, 1, &offset);
                    cb->drawIndexed(run.indexCount, 1, run.firstIndex);
                }
            }
        } else {
            cb->draw(quint32(dr.count * 6));
        }
    }

    if (ready && r.overlayPipeline && r.overlayTex) {
        cb->setGraphicsPipeline(r.overlayPipeline.get());
        cb->setViewport(QRhiViewport(0, 0, float(px.width()), float(px.height())));
        cb->setShaderResources(r.overlaySrb.get());
        cb->draw(3);
    }

    QRhiReadbackResult readback;
    QRhiResourceUpdateBatch* after = nullptr;
    const bool grab = m_grabRequested;
    if (grab) {
        after = r.rhi->nextResourceUpdateBatch();
        after->readBackTexture(QRhiReadbackDescription(), &readback);
    }
    cb->endPass(after);
    r.rhi->endFrame(r.swapChain.get());

    if (grab) {
        m_grabRequested = false;
        r.rhi->finish(); // completes the readback
        QImage::Format f = readback.format == QRhiTexture::BGRA8 ? QImage::Format_ARGB32 : QImage::Format_RGBA8888;
        QImage img(reinterpret_cast<const uchar*>(readback.data.constData()), readback.pixelSize.width(),
                   readback.pixelSize.height(), f);
        m_grabbed = r.rhi->isYUpInFramebuffer() ? img.mirrored() : img.copy();
        m_grabbed = m_grabbed.convertToFormat(QImage::Format_RGB32);
    }
    ++m_frames;
    emit frameRendered(double(timer.nsecsElapsed()) / 1e6);
    if (r.deformer->isDirty())
        requestUpdate();
}

double Viewport::renderAndWait()
{
    if (!isReady() || !isExposed())
        return -1.0;
    QElapsedTimer t;
    t.start();
    render();
    m_res->rhi->finish();
    return double(t.nsecsElapsed()) / 1e6;
}

QImage Viewport::grabImage(QString* error)
{
    if (!isReady() || !isExposed()) {
        if (error)
            *error = tr("the viewport is not on screen");
        return {};
    }
    m_grabRequested = true;
    m_grabbed = QImage();
    render();
    if (m_grabbed.isNull() && error)
        *error = tr("the swapchain image could not be read back");
    return m_grabbed;
}

float Viewport::viewAspect() const
{
    ViewRect rects[4];
    viewRects(m_settings.view, size(), rects);
    return rects[0].h > 0 && rects[0].w > 0 ? float(rects[0].w) / float(rects[0].h) : 1.0f;
}

bool Viewport::rayAt(QPointF pos, glm::vec3& origin, glm::vec3& dir) const
{
    ViewRect vr;
    if (!viewAt(m_settings.view, size(), pos, vr))
        return false;
    m_camera.ray(float(pos.x() - vr.x), float(pos.y() - vr.y), float(vr.w), float(vr.h), origin, dir);
    return true;
}

float Viewport::pixelAngle() const
{
    ViewRect rects[4];
    viewRects(m_settings.view, size(), rects);
    return m_camera.fovYDeg * 0.017453292519943295f / float(std::max(rects[0].h, 1));
}

bool Viewport::projectorAt(QPointF pos, ScreenProjector& out) const
{
    ViewRect vr;
    if (!viewAt(m_settings.view, size(), pos, vr))
        return false;
    out.viewProj = m_camera.projection(float(vr.w) / float(std::max(vr.h, 1))) * m_camera.view();
    out.origin = glm::vec2(float(vr.x), float(vr.y));
    out.size = glm::vec2(float(vr.w), float(vr.h));
    return true;
}

void Viewport::boneSegments(std::vector<Segment>& segments, std::vector<int>& owners) const
{
    segments.clear();
    owners.clear();
    if (!m_rig || !m_res->deformer || !m_res->deformer->isReady())
        return;
    const std::vector<rig::Node>& nodes = m_rig->skeleton.nodes;
    std::vector<char> isJoint(nodes.size(), 0);
    for (const rig::Skin& s : m_rig->skins)
        for (int j : s.joints)
            if (j >= 0 && size_t(j) < isJoint.size())
                isJoint[size_t(j)] = 1;
    const std::vector<glm::mat4>& world = m_res->deformer->world();
    for (size_t i = 0; i < nodes.size() && i < world.size(); ++i) {
        const int parent = nodes[i].parent;
        if (!isJoint[i] || parent < 0 || !isJoint[size_t(parent)])
            continue;
        const glm::vec3 a(world[size_t(parent)][3]), b(world[i][3]);
        segments.push_back({a, b - a});
        owners.push_back(parent);
    }
}

bool Viewport::currentRings(RotateRings& out) const
{
    if (!m_settings.manipulator || !m_rig || m_selectedJoint < 0 || !m_res->deformer || !m_res->deformer->isReady())
        return false;
    const std::vector<glm::mat4>& world = m_res->deformer->world();
    if (size_t(m_selectedJoint) >= world.size())
        return false;
    out.center = glm::vec3(world[size_t(m_selectedJoint)][3]);
    out.axes = frameAxes(world[size_t(m_selectedJoint)]);
    // Screen-constant: kRingRadiusPx at the joint's depth in the first view.
    ViewRect rects[4];
    viewRects(m_settings.view, size(), rects);
    const float depth = glm::length(m_camera.eye() - out.center);
    const float pixel = 2.0f * std::tan(m_camera.fovYDeg * 0.5f * 0.017453292519943295f) / float(std::max(rects[0].h, 1));
    out.radius = std::max(kRingRadiusPx * pixel * depth, 1e-6f);
    return std::isfinite(out.radius) && std::isfinite(out.center.x + out.center.y + out.center.z);
}

void Viewport::mousePressEvent(QMouseEvent* e)
{
    m_pressPos = m_lastPos = e->position();
    m_moved = false;
    const bool alt = e->modifiers() & Qt::AltModifier;
    const bool shift = e->modifiers() & Qt::ShiftModifier;
    // Alt+button always moves the camera (Maya); a plain left press on a ring turns the selected joint.
    RotateRings rings;
    ScreenProjector view;
    if (e->button() == Qt::LeftButton && !alt && !shift && currentRings(rings) && projectorAt(e->position(), view)) {
        const int axis = pickRing(rings, view, m_camera.eye(), glm::vec2(e->position().x(), e->position().y()), kPickTolerancePx);
        if (axis >= 0) {
            m_drag = Drag::Rotate;
            m_hoverAxis = axis;
            m_rotateDegrees = 0.0f;
            emit rotateStarted(m_selectedJoint, axis);
            requestRender();
            return;
        }
    }
    if (e->button() == Qt::LeftButton)
        m_drag = shift && !alt ? Drag::Box : Drag::Orbit; // Shift+drag draws a selection box; a Shift+click adds one
    if (m_drag == Drag::Box)
        m_boxEnd = m_pressPos;
    else if (e->button() == Qt::MiddleButton)
        m_drag = Drag::Pan;
    else if (e->button() == Qt::RightButton)
        m_drag = Drag::Dolly;
}

void Viewport::mouseMoveEvent(QMouseEvent* e)
{
    if (m_drag == Drag::None) {
        // Hover: light up the ring under the mouse.
        RotateRings rings;
        ScreenProjector view;
        int axis = -1;
        if (currentRings(rings) && projectorAt(e->position(), view))
            axis = pickRing(rings, view, m_camera.eye(), glm::vec2(e->position().x(), e->position().y()), kPickTolerancePx);
        if (axis != m_hoverAxis) {
            m_hoverAxis = axis;
            requestRender();
        }
        return;
    }
    const QPointF d = e->position() - m_lastPos;
    const QPointF last = m_lastPos;
    m_lastPos = e->position();
    if ((e->position() - m_pressPos).manhattanLength() > 3.0)
        m_moved = true;
    if (m_drag == Drag::Box) {
        // The box stays inside the view it began in.
        ViewRect vr;
        if (viewAt(m_settings.view, size(), m_pressPos, vr))
            m_boxEnd = QPointF(std::clamp(e->position().x(), qreal(vr.x), qreal(vr.x + vr.w - 1)),
                               std::clamp(e->position().y(), qreal(vr.y), qreal(vr.y + vr.h - 1)));
        if (m_moved)
            requestRender();
        return;
    }
    if (m_drag == Drag::Rotate) {
        RotateRings rings;
        ScreenProjector view;
        if (currentRings(rings) && projectorAt(m_pressPos, view)) {
            m_rotateDegrees += dragDegrees(rings, m_hoverAxis, view, m_camera.eye(), glm::vec2(last.x(), last.y()),
                                           glm::vec2(e->position().x(), e->position().y()));
            emit rotateDragged(m_selectedJoint, m_hoverAxis, m_rotateDegrees);
        }
        return;
    }
    if (!m_moved)
        return;
    switch (m_drag) {
    case Drag::Orbit:
        m_camera.orbit(float(d.x()), float(d.y()));
        break;
    case Drag::Pan:
        m_camera.pan(float(d.x()), float(d.y()), float(height()));
        break;
    case Drag::Dolly:
        m_camera.dolly(float(d.x() - d.y()) * 0.01f);
        break;
    case Drag::None:
    case Drag::Rotate:
    case Drag::Box:
        break;
    }
    requestRender();
}

void Viewport::mouseReleaseEvent(QMouseEvent* e)
{
    if (m_drag == Drag::Rotate) {
        m_drag = Drag::None;
        emit rotateFinished(m_selectedJoint);
        requestRender();
        return;
    }
    if (m_drag == Drag::Box && m_moved) {
        m_drag = Drag::None;
        ScreenProjector view;
        if (projectorAt(m_pressPos, view))
            emit boxSelectRequested(m_pressPos, m_boxEnd, view, e->modifiers());
        requestRender(); // the box goes
        return;
    }
    if (e->button() == Qt::LeftButton && (m_drag == Drag::Orbit || m_drag == Drag::Box) && !m_moved) {
        // A click (Shift+left draws a box only once it moves): a bone when the skeleton shows and one is under the mouse,
        // else a vertex, with the modifiers (Shift adds it to the selection, Ctrl toggles it).
        ScreenProjector view;
        if ((m_settings.overlays & OverlaySkeleton) && projectorAt(e->position(), view)) {
            std::vector<Segment> segs;
            std::vector<int> owners;
            boneSegments(segs, owners);
            const int hit = pickSegment(segs, view, glm::vec2(e->position().x(), e->position().y()), kPickTolerancePx);
            if (hit >= 0) {
                m_drag = Drag::None;
                emit jointPicked(owners[size_t(hit)]);
                return;
            }
        }
        emit pickRequested(e->position(), e->modifiers());
    }
    m_drag = Drag::None;
}

void Viewport::wheelEvent(QWheelEvent* e)
{
    m_camera.dolly(float(e->angleDelta().y()) / 120.0f * 0.15f);
    requestRender();
}

void Viewport::keyPressEvent(QKeyEvent* e)
{
    // Every key goes to the main window's actions (F frames the selection, Home resets the camera, ...).
    emit unhandledKey(e->key(), e->modifiers());
    QWindow::keyPressEvent(e);
}

} // namespace viewer
