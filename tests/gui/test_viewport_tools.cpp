// The viewport's tools in the real window under Xvfb on a real device: the rotate manipulator dragged with the mouse,
// bone picking, the selected joint's highlight, the weight views (once per backend), the selection set's markers and
// F, and undo / redo from the keyboard. Asserted on the document and on read-back pixels.
#include "testutil.h"

#include <QApplication>
#include <QMouseEvent>
#include <QPainter>
#include <QSettings>
#include <QStandardPaths>
#include <QUndoStack>

#include <cmath>

#include "app/document.h"
#include "app/gui/main_window.h"
#include "gui_util.h"
#include "rig/model/joint_tools.h"
#include "viewer/legend.h"
#include "viewer/viewport.h"

using guitest::countPixels;
using guitest::waitForFrames;

namespace {

void sendMouse(QWindow* w, QEvent::Type type, QPointF pos, Qt::MouseButton button, Qt::MouseButtons buttons)
{
    QMouseEvent e(type, pos, w->mapToGlobal(pos), button, buttons, Qt::NoModifier);
    QApplication::sendEvent(w, &e);
}

/// A patch of pixels around a point.
QRect patch(QPoint p, int r = 3) { return QRect(p.x() - r, p.y() - r, 2 * r + 1, 2 * r + 1); }

/// A point on the near side of the tube of the twist_tube sample (axis x, radius 0.25) at `x`: towards the camera,
/// turned 50° about the axis so that it does not lie under the bone drawn along the axis.
glm::vec3 tubePointFacing(viewer::Viewport* vp, float x)
{
    glm::vec3 toEye = vp->camera().eye() - glm::vec3(x, 0.0f, 0.0f);
    toEye.x = 0.0f;
    const glm::vec3 n = glm::normalize(toEye);
    const float a = glm::radians(50.0f);
    const glm::vec3 turned(0.0f, n.y * std::cos(a) - n.z * std::sin(a), n.y * std::sin(a) + n.z * std::cos(a));
    return glm::vec3(x, 0.0f, 0.0f) + 0.25f * turned;
}

bool isWeightOne(const QColor& c) { return c.red() > 110 && c.green() < 70 && c.blue() < 70; }   // ramp(1): red
bool isWeightZero(const QColor& c) { return c.blue() > 35 && c.red() < 30 && c.green() < 45 && c.blue() > c.red() + 20; } // dark blue

struct Window {
    app::Document doc;
    std::unique_ptr<app::MainWindow> w;
    viewer::Viewport* vp = nullptr;
    bool open(const QString& api, QSize size = QSize(1000, 760))
    {
        w = std::make_unique<app::MainWindow>(&doc, api);
        w->resize(size);
        w->show();
        if (!QTest::qWaitForWindowExposed(w.get()))
            return false;
        vp = w->viewport();
        return waitForFrames(vp, 2) && QTest::qWaitFor([&] { return doc.evaluationCurrent(); }, 20000);
    }
    QImage grab()
    {
        QString err;
        QImage img = vp->grabImage(&err);
        if (img.isNull())
            qWarning("grab failed: %s", qPrintable(err));
        return img.scaled(vp->size()); // logical pixels, as the projections
    }
    /// The twist tube with "twist" turned `degrees` about its bone, shaded `shading`, drawn with dual quaternions'
    /// positions (the band stays at its radius), no manipulator, no joint selected; then open().
    bool openTwistedTube(const QString& api, float degrees, viewer::Shading shading)
    {
        if (!doc.openSample(QStringLiteral("twist_tube")))
            return false;
        rig::Pose pose;
        pose.joints["twist"].rotateDeg = glm::vec3(degrees, 0.0f, 0.0f);
        if (!doc.setPose(pose))
            return false;
        doc.setShading(shading);
        doc.setMethod(rig::Method::DualQuaternion);
        app::DisplaySettings d = doc.display();
        d.manipulator = false;
        doc.setDisplay(d);
        doc.setSelectedJoint(-1);
        return open(api);
    }
};

} // namespace

class TestViewportTools : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void manipulatorDragTurnsTheJointAboutTheRingAxis();
    void clickingABoneSelectsTheJointThatTurnsIt();
    void jointWeightViewColoursBySelectedJoint_data();
    void jointWeightViewColoursBySelectedJoint();
    void influenceCountViewTellsOneFromTwo();
    void candyWrapperViewIsRedWhereTheTwistedBandShrinks_data();
    void candyWrapperViewIsRedWhereTheTwistedBandShrinks();
    void dqDisplacementViewIsRedOnTheRingLinearBlendingCollapses_data();
    void dqDisplacementViewIsRedOnTheRingLinearBlendingCollapses();
    void selectionSetMarkersAreDrawnAndFFramesThem();
    void undoAndRedoFromTheKeyboard();
    void gridWireframeAndAxesGizmoAreDrawn_data();
    void gridWireframeAndAxesGizmoAreDrawn();
    void hardBoundariesAreDrawnRedWhereTheWeightsStep_data();
    void hardBoundariesAreDrawnRedWhereTheWeightsStep();
    void legendsStayInsideTheirView_data();
    void legendsStayInsideTheirView();
};

void TestViewportTools::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("RigScopeTests"));
    QApplication::setApplicationName(QStringLiteral("test_viewport_tools"));
    QSettings().clear();
}

void TestViewportTools::manipulatorDragTurnsTheJointAboutTheRingAxis()
{
    Window win;
    QVERIFY(win.doc.openSample(QStringLiteral("elbow"))); // lower selected, at Z 60°
    QVERIFY(win.open(QStringLiteral("vulkan")));
    const int lower = win.doc.loaded()->rig.skeleton.find("lower");
    QCOMPARE(win.doc.selectedJoint(), lower);
    viewer::RotateRings rings;
    QVERIFY(win.vp->currentRings(rings));
    // The rings are drawn: red, green and blue pixels around the joint.
    const QImage img = win.grab();
    const QPoint c = guitest::project(win.vp, rings.center);
    const QRect around(c.x() - 90, c.y() - 90, 180, 180);
    QVERIFY(countPixels(img, around, [](QColor p) { return p.red() > 200 && p.green() < 100 && p.blue() < 90; }) > 40);
    QVERIFY(countPixels(img, around, [](QColor p) { return p.blue() > 200 && p.red() < 110 && p.green() < 150; }) > 40);

    // The ring that faces the camera most, grabbed on its side nearest the viewer, dragged 60° round the centre.
    const glm::vec3 eye = win.vp->camera().eye();
    int axis = 0;
    for (int k = 1; k < 3; ++k)
        if (std::fabs(glm::dot(rings.axes[size_t(k)], glm::normalize(eye - rings.center))) >
            std::fabs(glm::dot(rings.axes[size_t(axis)], glm::normalize(eye - rings.center))))
            axis = k;
    const glm::vec3 n = rings.axes[size_t(axis)];
    glm::vec3 u = (eye - rings.center) - n * glm::dot(eye - rings.center, n);
    u = glm::length(u) > 1e-6f ? glm::normalize(u) : glm::normalize(glm::cross(n, glm::vec3(0.3f, 1, 0.1f)));
    const QPoint start = guitest::project(win.vp, rings.center + rings.radius * u);
    const QPointF centre = guitest::project(win.vp, rings.center);
    // In a rotate order other than xyz (the same rotation for the lesson's Z-only angle): the ring writes the angles back
    // in the joint's order.
    rig::JointEdit ordered = win.doc.jointEdit(lower);
    ordered.rotateOrder = rig::RotateOrder::ZXY;
    QVERIFY(win.doc.editJoint(lower, ordered, QStringLiteral("Rotate Order")));
    const rig::JointEdit before = win.doc.jointEdit(lower);
    const int steps = win.doc.undoStack()->count();
    sendMouse(win.vp, QEvent::MouseMove, start, Qt::NoButton, Qt::NoButton);
    sendMouse(win.vp, QEvent::MouseButtonPress, start, Qt::LeftButton, Qt::LeftButton);
    const QPointF r0 = QPointF(start) - centre;
    for (int i = 1; i <= 12; ++i) {
        const double a = -60.0 * i / 12.0 * M_PI / 180.0; // screen y is down: negative is counter-clockwise
        const QPointF p = centre + QPointF(r0.x() * std::cos(a) - r0.y() * std::sin(a), r0.x() * std::sin(a) + r0.y() * std::cos(a));
        sendMouse(win.vp, QEvent::MouseMove, p, Qt::NoButton, Qt::LeftButton);
    }
    sendMouse(win.vp, QEvent::MouseButtonRelease, start, Qt::LeftButton, Qt::NoButton);
    QCOMPARE(win.doc.undoStack()->count(), steps + 1); // the whole drag is one step
    // The change is a turn about the ring's own axis, of about the angle swept on screen.
    QVERIFY(win.doc.jointEdit(lower).rotateOrder == rig::RotateOrder::ZXY);
    const glm::mat3 delta = glm::transpose(rig::eulerRotation(before.rotateDeg, before.rotateOrder)) *
                            rig::eulerRotation(win.doc.jointEdit(lower).rotateDeg, rig::RotateOrder::ZXY);
    glm::vec3 local(0.0f);
    local[axis] = 1.0f;
    const glm::vec3 kept = delta * local;
    RS_COMPARE_NEAR(glm::dot(kept, local), 1.0, 1e-4);
    const double angle = std::acos(std::clamp((delta[0][0] + delta[1][1] + delta[2][2] - 1.0) / 2.0, -1.0, 1.0)) * 180.0 / M_PI;
    QVERIFY2(angle > 45.0 && angle < 75.0, qPrintable(QString::number(angle)));
    // Counter-clockwise on screen about an axis that faces the viewer is a positive (right-handed) turn.
    const glm::vec3 off = glm::normalize(glm::cross(local, glm::vec3(0.2f, 0.7f, 0.4f)));
    const double sign = glm::dot(glm::cross(off, delta * off), local);
    const double facing = glm::dot(n, eye - rings.center);
    QVERIFY2((sign > 0) == (facing > 0), qPrintable(QStringLiteral("%1 %2").arg(sign).arg(facing)));
    win.doc.undoStack()->undo();
    QCOMPARE(win.doc.jointEdit(lower).rotateDeg, before.rotateDeg);
}

void TestViewportTools::clickingABoneSelectsTheJointThatTurnsIt()
{
    Window win;
    QVERIFY(win.doc.openSample(QStringLiteral("elbow")));
    win.doc.setOverlay(viewer::OverlaySkeleton, true);
    app::DisplaySettings d = win.doc.display();
    d.manipulator = false;
    win.doc.setDisplay(d);
    win.doc.setSelectedJoint(-1);
    QVERIFY(win.open(QStringLiteral("vulkan")));
    // The bone from upper (origin) to lower (x = 1) belongs to upper: it turns it.
    const QPoint mid = guitest::project(win.vp, glm::vec3(0.5f, 0.0f, 0.0f));
    const QImage before = win.grab();
    auto orange = [](QColor p) { return p.red() > 200 && p.green() > 90 && p.green() < 170 && p.blue() < 60; };
    QCOMPARE(countPixels(before, patch(mid, 6), orange), 0);
    QTest::mouseClick(win.vp, Qt::LeftButton, Qt::NoModifier, mid);
    QCOMPARE(win.doc.selectedJoint(), win.doc.loaded()->rig.skeleton.find("upper"));
    // Its bone is highlighted (orange), drawn over the mesh.
    QTest::qWait(50);
    QVERIFY(countPixels(win.grab(), patch(mid, 6), orange) > 5);
}

void TestViewportTools::jointWeightViewColoursBySelectedJoint_data()
{
    guitest::addBackendRows();
}

void TestViewportTools::jointWeightViewColoursBySelectedJoint()
{
    QFETCH(QString, api);
    Window win;
    QVERIFY(win.doc.openSample(QStringLiteral("twist_tube")));
    QVERIFY(win.doc.setPose(rig::Pose{}));
    win.doc.setShading(viewer::Shading::JointWeight);
    app::DisplaySettings d = win.doc.display();
    d.manipulator = false;
    win.doc.setDisplay(d);
    const int root = win.doc.loaded()->rig.skeleton.find("root"), twist = win.doc.loaded()->rig.skeleton.find("twist");
    win.doc.setSelectedJoint(root);
    QVERIFY(win.open(api));
    // w_twist = clamp(x − 0.5, 0, 1): root weighs 1 at x = 0.2, 0 at x = 1.8.
    const QPoint nearRoot = guitest::project(win.vp, tubePointFacing(win.vp, 0.2f));
    const QPoint nearTip = guitest::project(win.vp, tubePointFacing(win.vp, 1.8f));
    QImage img = win.grab();
    img.save(QDir::temp().filePath(QStringLiteral("rigscope-test-weight-%1.png").arg(api)));
    QVERIFY2(countPixels(img, patch(nearRoot), isWeightOne) > 30, qPrintable(img.pixelColor(nearRoot).name()));
    QVERIFY2(countPixels(img, patch(nearTip), isWeightZero) > 30, qPrintable(img.pixelColor(nearTip).name()));
    // Selecting twist swaps them; no CPU work on the vertices: the shader reads the raw weights.
    win.doc.setSelectedJoint(twist);
    QTest::qWait(50);
    img = win.grab();
    QVERIFY2(countPixels(img, patch(nearRoot), isWeightZero) > 30, qPrintable(img.pixelColor(nearRoot).name()));
    QVERIFY2(countPixels(img, patch(nearTip), isWeightOne) > 30, qPrintable(img.pixelColor(nearTip).name()));
    // No joint: neutral grey everywhere on the mesh.
    win.doc.setSelectedJoint(-1);
    QTest::qWait(50);
    img = win.grab();
    auto grey = [](QColor p) { return std::abs(p.red() - p.green()) < 12 && std::abs(p.green() - p.blue()) < 16 && p.red() > 50; };
    QVERIFY(countPixels(img, patch(nearRoot), grey) > 30);
}

void TestViewportTools::candyWrapperViewIsRedWhereTheTwistedBandShrinks_data()
{
    guitest::addBackendRows();
}

void TestViewportTools::candyWrapperViewIsRedWhereTheTwistedBandShrinks()
{
    // "twist" turned 120° about its bone: the even ring at x = 1 keeps cos 60° = 0.5 of its radius (red: 0.7 and
    // below), the tube near the root follows root alone (scale 1: green). The GPU's blend-scale pass, whatever the
    // method shown.
    QFETCH(QString, api);
    Window win;
    QVERIFY(win.openTwistedTube(api, 120.0f, viewer::Shading::BlendScale));
    // The even ring's surface is at half the radius: aim at a point on it.
    const glm::vec3 onTube = tubePointFacing(win.vp, 1.0f);
    const QPoint band = guitest::project(win.vp, glm::vec3(1.0f, 0.0f, 0.0f) + 0.5f * (onTube - glm::vec3(1.0f, 0.0f, 0.0f)));
    const QPoint nearRoot = guitest::project(win.vp, tubePointFacing(win.vp, 0.2f));
    QTest::qWait(50);
    const QImage img = win.grab();
    img.save(QDir::temp().filePath(QStringLiteral("rigscope-test-candy-wrapper-%1.png").arg(api)));
    auto red = [](QColor p) { return p.red() > 120 && p.green() < 50 && p.blue() < 50; };
    auto green = [](QColor p) { return p.green() > 100 && p.red() < 50 && p.blue() < 70; };
    QVERIFY2(countPixels(img, patch(band, 2), red) > 15, qPrintable(img.pixelColor(band).name()));
    QVERIFY2(countPixels(img, patch(nearRoot), green) > 30, qPrintable(img.pixelColor(nearRoot).name()));
}

void TestViewportTools::dqDisplacementViewIsRedOnTheRingLinearBlendingCollapses_data()
{
    guitest::addBackendRows();
}

void TestViewportTools::dqDisplacementViewIsRedOnTheRingLinearBlendingCollapses()
{
    // "twist" turned 180°: linear blending pulls the even ring at x = 1 onto the axis, dual quaternions keep it at its
    // radius: the whole limb radius apart (red from half of it). Near the root the two agree (0: green). Drawn with
    // dual quaternions' positions, so that the ring is there to look at.
    QFETCH(QString, api);
    Window win;
    QVERIFY(win.openTwistedTube(api, 180.0f, viewer::Shading::DqDisplacement));
    const QPoint ring = guitest::project(win.vp, tubePointFacing(win.vp, 1.0f));
    const QPoint nearRoot = guitest::project(win.vp, tubePointFacing(win.vp, 0.2f));
    QTest::qWait(50);
    const QImage img = win.grab();
    img.save(QDir::temp().filePath(QStringLiteral("rigscope-test-dq-displacement-%1.png").arg(api)));
    auto red = [](QColor p) { return p.red() > 120 && p.green() < 50 && p.blue() < 50; };
    auto green = [](QColor p) { return p.green() > 100 && p.red() < 50 && p.blue() < 70; };
    QVERIFY2(countPixels(img, patch(ring, 2), red) > 15, qPrintable(img.pixelColor(ring).name()));
    QVERIFY2(countPixels(img, patch(nearRoot), green) > 30, qPrintable(img.pixelColor(nearRoot).name()));
}

void TestViewportTools::influenceCountViewTellsOneFromTwo()
{
    Window win;
    QVERIFY(win.doc.openSample(QStringLiteral("twist_tube")));
    QVERIFY(win.doc.setPose(rig::Pose{}));
    win.doc.setShading(viewer::Shading::InfluenceCount);
    win.doc.setSelectedJoint(-1);
    QVERIFY(win.open(QStringLiteral("vulkan")));
    // One influence (root alone) at x = 0.2: blue; two in the band at x = 1: cyan.
    const QImage img = win.grab();
    const QPoint one = guitest::project(win.vp, tubePointFacing(win.vp, 0.2f));
    const QPoint two = guitest::project(win.vp, tubePointFacing(win.vp, 1.0f));
    QVERIFY2(countPixels(img, patch(one), [](QColor p) { return p.blue() > 110 && p.green() < 100 && p.red() < 60; }) > 30,
             qPrintable(img.pixelColor(one).name()));
    QVERIFY2(countPixels(img, patch(two), [](QColor p) { return p.blue() > 110 && p.green() > 100 && p.red() < 60; }) > 30,
             qPrintable(img.pixelColor(two).name()));
}

void TestViewportTools::gridWireframeAndAxesGizmoAreDrawn_data()
{
    guitest::addBackendRows();
}

void TestViewportTools::gridWireframeAndAxesGizmoAreDrawn()
{
    // The same view three times: with the ground grid (on by default), bare, and with the wireframe. The grid adds
    // pixels only on the background (the rig hides it), the wireframe mostly on the rig; the gizmo's three coloured
    // axes are in the view's lower right corner in every picture.
    QFETCH(QString, api);
    Window win;
    QVERIFY(win.doc.openSample(QStringLiteral("twist_tube")));
    QVERIFY(win.doc.setPose(rig::Pose{}));
    app::DisplaySettings d = win.doc.display();
    QVERIFY(d.overlays & viewer::OverlayGrid);
    QVERIFY(!(d.overlays & viewer::OverlayWireframe));
    d.manipulator = false;
    win.doc.setDisplay(d);
    win.doc.setSelectedJoint(-1);
    QVERIFY(win.open(api));
    QTest::qWait(50);
    const QImage withGrid = win.grab();
    win.doc.setOverlay(viewer::OverlayGrid, false);
    QTest::qWait(50);
    const QImage bare = win.grab();
    win.doc.setOverlay(viewer::OverlayWireframe, true);
    QTest::qWait(50);
    const QImage wire = win.grab();
    wire.save(QDir::temp().filePath(QStringLiteral("rigscope-test-wireframe-%1.png").arg(api)));
    QCOMPARE(bare.size(), withGrid.size());
    QCOMPARE(wire.size(), withGrid.size());

    auto background = [](QColor p) { return std::abs(p.red() - 38) < 6 && std::abs(p.green() - 40) < 6 && std::abs(p.blue() - 46) < 6; };
    const QRect gizmo(bare.width() - 92, bare.height() - 92, 92, 92);
    int grid = 0, gridOnRig = 0, edges = 0, edgesOffRig = 0, darkEdges = 0;
    for (int y = 40; y < bare.height(); ++y) // below the label
        for (int x = 0; x < bare.width(); ++x) {
            if (gizmo.contains(x, y))
                continue;
            const QColor b = bare.pixelColor(x, y);
            if (withGrid.pixelColor(x, y) != b) {
                ++grid;
                gridOnRig += background(b) ? 0 : 1;
            }
            const QColor w = wire.pixelColor(x, y);
            if (w != b) {
                ++edges;
                edgesOffRig += background(b) ? 1 : 0;
                darkEdges += w.value() < 40 ? 1 : 0;
            }
        }
    QVERIFY2(grid > 1000, qPrintable(QString::number(grid)));
    QVERIFY2(gridOnRig * 50 < grid, qPrintable(QStringLiteral("%1 of %2").arg(gridOnRig).arg(grid)));
    QVERIFY2(edges > 2000, qPrintable(QString::number(edges)));
    QVERIFY2(edgesOffRig * 5 < edges, qPrintable(QStringLiteral("%1 of %2").arg(edgesOffRig).arg(edges))); // silhouettes
    QVERIFY(darkEdges * 10 > edges * 9);
    auto red = [](QColor p) { return p.red() > 180 && p.green() < 110 && p.blue() < 100; };
    auto green = [](QColor p) { return p.green() > 170 && p.red() < 130 && p.blue() < 120; };
    auto blue = [](QColor p) { return p.blue() > 200 && p.red() < 120 && p.green() < 160; };
    for (const QImage* img : {&withGrid, &bare, &wire}) {
        QVERIFY2(countPixels(*img, gizmo, red) > 15, "X");
        QVERIFY2(countPixels(*img, gizmo, green) > 15, "Y");
        QVERIFY2(countPixels(*img, gizmo, blue) > 10, "Z");
    }
}

void TestViewportTools::hardBoundariesAreDrawnRedWhereTheWeightsStep_data()
{
    guitest::addBackendRows();
}

void TestViewportTools::hardBoundariesAreDrawnRedWhereTheWeightsStep()
{
    // The tube with its weights made a step at x = 1 (root up to it, twist after): its hard boundary is the band of
    // edges between the rings at x = 1 and x = 1.05. With the overlay (H) red pixels appear, all of them on screen
    // between those two rings' projections; without it, none. The smooth tube as shipped has no boundary to draw.
    QFETCH(QString, api);
    rig::Rig rig = testutil::sample("twist_tube");
    rig::Mesh& mesh = rig.meshes[0];
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
        const bool root = mesh.positions[v].x <= 1.0f + 1e-6f;
        for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i)
            mesh.influences[i].weight = (mesh.influences[i].joint == 0) == root ? 1.0f : 0.0f;
    }
    Window win;
    win.doc.setLoaded(app::finishLoadedRig(std::move(rig), rig::RuntimeFormat{}, QString(), QStringLiteral("step tube")));
    QVERIFY(!win.doc.loaded()->bands.hardBoundaryEdgeList.empty());
    app::DisplaySettings d = win.doc.display();
    d.manipulator = false;
    d.overlays = viewer::OverlayNone;
    win.doc.setDisplay(d);
    QVERIFY(win.open(api));
    QTest::qWait(50);
    const QImage without = win.grab();
    win.doc.setOverlay(viewer::OverlayHardBoundaries, true);
    QTest::qWait(50);
    const QImage with = win.grab();
    with.save(QDir::temp().filePath(QStringLiteral("rigscope-test-hard-boundaries-%1.png").arg(api)));
    auto red = [](QColor p) { return p.red() > 170 && p.green() < 90 && p.blue() < 90; };
    // The screen x range of the two rings' points (the camera frames the tube along x): the red must lie within it
    // (with a margin of a few pixels for the line's width).
    float lo = 1e9f, hi = -1e9f;
    for (int a = 0; a < 36; ++a)
        for (float x : {1.0f, 1.05f}) {
            const float phi = float(a) * 10.0f * 3.14159265f / 180.0f;
            const float sx = float(guitest::project(win.vp, glm::vec3(x, 0.25f * std::cos(phi), 0.25f * std::sin(phi))).x());
            lo = std::min(lo, sx - 3.0f);
            hi = std::max(hi, sx + 3.0f);
        }
    QVERIFY2(hi - lo < with.width() / 4, qPrintable(QStringLiteral("the rings span x %1..%2").arg(lo).arg(hi)));
    int inside = 0, outside = 0, redWithout = 0;
    const QRect gizmo(with.width() - 92, with.height() - 92, 92, 92); // its X axis is red
    for (int y = 40; y < with.height(); ++y)
        for (int x = 0; x < with.width(); ++x) {
            if (gizmo.contains(x, y))
                continue;
            redWithout += red(without.pixelColor(x, y)) ? 1 : 0;
            if (red(with.pixelColor(x, y)))
                (float(x) >= lo && float(x) <= hi ? inside : outside) += 1;
        }
    QCOMPARE(redWithout, 0);
    QVERIFY2(inside > 30, qPrintable(QString::number(inside)));
    QVERIFY2(outside == 0, qPrintable(QStringLiteral("%1 red pixels outside x %2..%3").arg(outside).arg(lo).arg(hi)));
}

void TestViewportTools::selectionSetMarkersAreDrawnAndFFramesThem()
{
    REQUIRE_ASSETS();
    Window win;
    QSignalSpy done(&win.doc, &app::Document::loadFinished);
    win.doc.openFile(QString::fromStdString(testutil::assetPath("CesiumMan/cesium_man.gltf")));
    QVERIFY(done.wait(30000));
    QVERIFY(win.open(QStringLiteral("vulkan")));
    auto cyan = [](QColor p) { return p.red() < 110 && p.green() > 200 && p.blue() > 220; };
    QCOMPARE(countPixels(win.grab(), QRect(QPoint(0, 40), win.vp->size() - QSize(0, 80)), cyan), 0);
    const rig::AuditFinding* f = win.doc.loaded()->audit.find("weights-not-normalised");
    QVERIFY(f);
    size_t index = 0;
    while (&win.doc.loaded()->audit.findings[index] != f)
        ++index;
    app::SelectionSet set;
    set.label = QStringLiteral("weights");
    set.vertices = win.doc.loaded()->findingVertices[index];
    win.doc.setSelectionSet(set);
    QTest::qWait(50);
    QVERIFY(countPixels(win.grab(), QRect(QPoint(0, 40), win.vp->size() - QSize(0, 80)), cyan) > 200);
    // F frames the set: the camera's target moves to the centre of its vertices' box.
    glm::vec3 lo(1e30f), hi(-1e30f);
    const auto& positions = win.doc.evaluation().meshes[0].linear.positions;
    for (uint32_t v : *set.vertices) {
        lo = glm::min(lo, positions[v]);
        hi = glm::max(hi, positions[v]);
    }
    QTest::keyClick(win.vp, Qt::Key_F);
    QTRY_VERIFY_WITH_TIMEOUT(glm::length(win.vp->camera().target - 0.5f * (lo + hi)) < 1e-3f * glm::length(hi - lo) + 1e-5f, 5000);
}

void TestViewportTools::undoAndRedoFromTheKeyboard()
{
    Window win;
    QVERIFY(win.doc.openSample(QStringLiteral("elbow")));
    QVERIFY(win.open(QStringLiteral("opengl")));
    const int lower = win.doc.loaded()->rig.skeleton.find("lower");
    rig::JointEdit e = win.doc.jointEdit(lower);
    e.scale = glm::vec3(1.0f, 2.0f, 1.0f);
    QVERIFY(win.doc.editJoint(lower, e, QStringLiteral("scale")));
    QTest::keyClick(win.vp, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(win.doc.jointEdit(lower).scale, glm::vec3(1.0f));
    QTest::keyClick(win.vp, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(win.doc.jointEdit(lower).scale, glm::vec3(1.0f, 2.0f, 1.0f));
}

void TestViewportTools::legendsStayInsideTheirView_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("shading");
    // 150 and 190: quadrants of a narrow viewport (the bar, its labels and the key do not fit on one line there);
    // 700: a single view with room for everything on the bar's line.
    for (int w : {150, 190, 700})
        for (viewer::Shading s : {viewer::Shading::NormalError, viewer::Shading::JointWeight, viewer::Shading::JointWeightBands,
                                  viewer::Shading::InfluenceCount, viewer::Shading::WeightSum, viewer::Shading::BlendScale})
            QTest::addRow("%d px, shading %d", w, int(s)) << w << int(s);
}

void TestViewportTools::legendsStayInsideTheirView()
{
    QFETCH(int, width);
    QFETCH(int, shading);
    const viewer::Shading s = viewer::Shading(shading);
    // The view is the left one of two side by side, as in the four-view layout: nothing may be painted right of it.
    const QRect view(0, 0, width, 300);
    QImage img(2 * width + 2, 300, QImage::Format_RGBA8888_Premultiplied);
    img.fill(Qt::transparent);
    {
        QPainter p(&img);
        QFont f = p.font();
        f.setPixelSize(13); // as Viewport::paintOverlay
        p.setFont(f);
        if (s == viewer::Shading::NormalError)
            viewer::drawHeatLegend(p, view, 45.0f);
        else if (s == viewer::Shading::BlendScale)
            viewer::drawScaleLegend(p, view);
        else
            viewer::drawWeightLegend(p, view, s);
        const bool undefinedKey = s == viewer::Shading::NormalError || s == viewer::Shading::WeightSum ||
                                  s == viewer::Shading::BlendScale;
        const viewer::LegendLayout l =
            viewer::legendLayout(view, p.fontMetrics(), undefinedKey ? QStringLiteral("undefined") : QStringLiteral("NaN weight"));
        QVERIFY(l.fits);
        const QRect inner = view.adjusted(viewer::kLegendMargin, viewer::kLegendMargin, -viewer::kLegendMargin, -viewer::kLegendMargin);
        for (const QRect& r : {l.bar, l.labels, l.keySwatch, l.keyLabel})
            QVERIFY2(inner.contains(r), qPrintable(QStringLiteral("(%1, %2) %3 x %4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height())));
        QVERIFY(!l.keySwatch.intersects(l.bar) && !l.keyLabel.intersects(l.bar) && !l.keyLabel.intersects(l.labels));
        QVERIFY(l.bar.width() >= viewer::kLegendMinBarWidth);
        // The key shares the bar's line exactly when it fits there beside a full-width bar.
        QCOMPARE(l.keySwatch.top() == l.bar.top(), width >= 400);
    }
    int inside = 0, outside = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
            if (qAlpha(img.pixel(x, y)) != 0)
                ++(view.contains(x, y) ? inside : outside);
    QCOMPARE(outside, 0);
    QVERIFY2(inside > 10 * viewer::kLegendMinBarWidth, qPrintable(QString::number(inside))); // the bar at least
}

QTEST_MAIN(TestViewportTools)
#include "test_viewport_tools.moc"
