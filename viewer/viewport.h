// The 3D viewport: a QWindow that owns a QRhi (Vulkan, or OpenGL as the fallback) and its swapchain, embedded in the
// main window with QWidget::createWindowContainer. It renders on demand: setters mark dirty flags and request an
// update; render() consumes them. Deformation runs on the GPU (GpuDeformer); this class draws its buffers.
#pragma once

#include <QImage>
#include <QWindow>

#include <memory>

#include <glm/glm.hpp>

#include "camera.h"
#include "manipulator.h"
#include "rig/deform/deform.h"
#include "rig/model/model.h"
#include "rig/model/pose.h"
#include "view_settings.h"

class QRhi;
class QRhiResourceUpdateBatch;
class QVulkanInstance;
class QOffscreenSurface;

namespace viewer {

struct GpuRigPack;

class Viewport : public QWindow {
    Q_OBJECT
public:
    enum class Api { Vulkan, OpenGL };

    /// Vulkan is tried first when asked for; if no Vulkan instance can be created, OpenGL is used.
    explicit Viewport(Api preferred);
    ~Viewport() override;

    /// The rig to show, its runtime data and their GPU pack (packGpuRig, built off the GUI thread: nothing here loops
    /// over the vertices); a null pack (the rig could not be packed) leaves the viewport empty.
    void setRig(std::shared_ptr<const rig::Rig> rig, std::shared_ptr<const rig::RigRuntime> runtime,
                std::shared_ptr<const GpuRigPack> pack);
    void setPose(const rig::ResolvedPose& pose);
    void setSettings(const ViewSettings& settings);
    void setSelectedVertex(int globalVertex);
    /// The selected joint (node index, -1 none): its bones are highlighted, the rotate rings sit on it, and the joint
    /// weight views show its weights.
    void setSelectedJoint(int node);
    /// A set of vertices drawn as small markers (an audit finding's). Null or empty: none.
    void setSelectionSet(std::shared_ptr<const std::vector<uint32_t>> vertices);
    /// One value per global vertex for Shading::WeightChange (the rig comparison's weight change; negative: no partner
    /// in the other version), built off the GUI thread; null: none (the shading then draws lit). Uploaded as it is.
    void setVertexValues(std::shared_ptr<const std::vector<float>> values);
    /// Bounds used by frameAll() (the document's CPU evaluation provides them).
    void setFrameBounds(const glm::vec3& lo, const glm::vec3& hi);
    /// The box the ground grid is built from (the rig's bounds when it was loaded): the grid lies at its lowest point.
    void setGround(const glm::vec3& lo, const glm::vec3& hi);

    void resetCamera();
    void frameAll();
    /// Frames a box (the selection) without changing the frame-all bounds.
    void frameBox(const glm::vec3& lo, const glm::vec3& hi);
    OrbitCamera& camera() { return m_camera; }

    /// Renders a frame now and returns the swapchain's pixels (exactly what the viewport shows).
    QImage grabImage(QString* error = nullptr);
    /// The world-space ray through a point of the window (logical pixels). False before the first frame.
    bool rayAt(QPointF pos, glm::vec3& origin, glm::vec3& dir) const;
    /// The rotate rings on the selected joint at the current pose and camera (screen-constant size), when they show.
    bool currentRings(RotateRings& out) const;
    /// The projector of the view under a window point (logical pixels), and whether there is one.
    bool projectorAt(QPointF pos, ScreenProjector& out) const;
    /// The angle one logical pixel subtends at the centre of the view, in radians.
    float pixelAngle() const;

    /// Renders one frame now and waits for the GPU to finish it; returns the wall time in milliseconds (benchmarks),
    /// or a negative value when the viewport cannot render.
    double renderAndWait();

    QString backendName() const;
    Api api() const { return m_api; }
    bool isReady() const;
    int framesRendered() const { return m_frames; }

signals:
    void pickRequested(QPointF pos, Qt::KeyboardModifiers modifiers);
    /// A Shift+drag drew a box (window points, logical pixels) in the view of `view`, which projects the world as the
    /// view did when the drag ended; `modifiers` as the drag ended (Ctrl: take the box out of the selection).
    void boxSelectRequested(QPointF corner0, QPointF corner1, const viewer::ScreenProjector& view,
                            Qt::KeyboardModifiers modifiers);
    void frameRendered(double milliseconds);
    void initFailed(const QString& message);
    /// A click on a bone (skeleton overlay shown): the joint that turns it, i.e. the bone's parent end.
    void jointPicked(int node);
    /// The rotate manipulator: a drag on ring `axis` (0 X, 1 Y, 2 Z of the joint's frame) began, turned by `degrees`
    /// in all since it began, and ended.
    void rotateStarted(int node, int axis);
    void rotateDragged(int node, int axis, float degrees);
    void rotateFinished(int node);
    /// A key the viewport does not handle itself (the main window maps it to its menu shortcuts: a native child
    /// window's key events never reach QShortcut).
    void unhandledKey(int key, Qt::KeyboardModifiers modifiers);

protected:
    void exposeEvent(QExposeEvent*) override;
    bool event(QEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;

private:
    struct Resources;
    void init();
    void releaseResources();
    void resizeSwapChain();
    void render();
    void requestRender();
    /// Makes the rig's base colour textures (one per decoded image, uploaded into `u` with mipmaps) and the mesh runs
    /// that share one; marks the bindings stale.
    void uploadTextures(QRhiResourceUpdateBatch* u);
    /// Width / height of the first view (all views have the same).
    float viewAspect() const;
    /// Where the format position heatmap turns red: kFormatPositionRedFraction of the rig's diagonal (scene units).
    float formatPositionRed() const;
    /// Paints the labels and heatmap legend for a window of `px` device pixels.
    QImage paintOverlay(QSize px, qreal dpr) const;
    /// The bone segments at the current pose, and the joint that turns each (its parent end).
    void boneSegments(std::vector<Segment>& segments, std::vector<int>& owners) const;

    Api m_api;
    // Destroyed after the QRhi (declared before it): QRhi needs its instance / fallback surface until it is gone.
    std::unique_ptr<QVulkanInstance> m_vulkan;
    std::unique_ptr<QOffscreenSurface> m_fallbackSurface;
    std::unique_ptr<Resources> m_res;

    std::shared_ptr<const rig::Rig> m_rig;
    std::shared_ptr<const rig::RigRuntime> m_runtime;
    std::shared_ptr<const GpuRigPack> m_pack;
    rig::ResolvedPose m_pose;
    ViewSettings m_settings;
    int m_selected = -1;
    int m_selectedJoint = -1;
    std::shared_ptr<const std::vector<uint32_t>> m_selectionSet;
    bool m_selectionSetDirty = false;
    int m_hoverAxis = -1; ///< ring under the mouse, or being dragged
    glm::vec3 m_boundsMin{-1.0f}, m_boundsMax{1.0f};
    glm::vec3 m_groundMin{1.0f}, m_groundMax{-1.0f}; ///< empty: no grid
    bool m_groundDirty = false;
    OrbitCamera m_camera;

    // Dirty flags, consumed by render().
    bool m_rigDirty = false;
    uint64_t m_rigGeneration = 0; ///< counts setRig calls: what the uploaded textures belong to
    bool m_poseDirty = false;
    bool m_settingsDirty = false;
    bool m_initFailed = false;
    bool m_grabRequested = false;
    QImage m_grabbed;
    QString m_grabError;
    std::shared_ptr<const std::vector<float>> m_vertexValues;
    bool m_vertexValuesDirty = false;
    bool m_valuesReady = false; ///< the values buffer holds m_vertexValues (the weight-change heatmap can show)
    bool m_formatReady = false; ///< the deformer holds the float reference's streams (the format heatmaps can show)
    int m_frames = 0;

    // Mouse interaction.
    enum class Drag { None, Orbit, Pan, Dolly, Rotate, Box };
    Drag m_drag = Drag::None;
    QPointF m_pressPos, m_lastPos;
    QPointF m_boxEnd; ///< the box's moving corner, clamped to the view it began in
    bool m_moved = false;
    float m_rotateDegrees = 0.0f; ///< accumulated by a ring drag
};

} // namespace viewer
