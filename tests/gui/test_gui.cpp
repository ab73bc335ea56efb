// The real main window under Xvfb, on Vulkan (lavapipe) and OpenGL (llvmpipe): four-view heatmaps, gold normal lines,
// picking, failed loads, recent files, and exact swapchain pixels.
#include "testutil.h"

#include <QAction>
#include <QApplication>
#include <QDirIterator>
#include <QDockWidget>
#include <QMessageBox>
#include <QProcess>
#include <QSettings>
#include <QHeaderView>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTabBar>
#include <QTableView>
#include <QTreeView>
#include <QTemporaryDir>

#include "app/document.h"
#include "gltf_files.h"
#include "gui_util.h"
#include "app/gui/main_window.h"
#include "panels/diagnosis/diagnosis_panel.h"
#include "panels/inspect/weights_model.h"
#include "panels/skeleton/skeleton_model.h"
#include "panels/inspect/weights_panel.h"
#include "viewer/viewport.h"

using guitest::classify;
using guitest::Counts;
using guitest::waitForFrames;

namespace {
/// Shows a window at `size` and waits until its viewport has drawn a frame.
bool showFor(app::MainWindow& w, QSize size)
{
    w.resize(size);
    w.show();
    return QTest::qWaitForWindowExposed(&w) && waitForFrames(w.viewport(), 1);
}
} // namespace

class TestGui : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void quadViewHeatmapsAndGoldLines_data();
    void quadViewHeatmapsAndGoldLines();
    void pickingSelectsTheVertexUnderTheCursor();
    void shiftDragSelectsTheVerticesInTheBoxAndCtrlShiftDragTakesThemOut();
    void failedLoadKeepsThePreviousRig();
    void docksHaveUniqueNamesAndRecentFilesPersist();
    void viewportKeysReachTheMenus();
    void poseFilesApplyOrExplain();
    void staysUsableThroughEveryCorpusFile();
    void withoutVulkanTheAppFallsBackToOpenGL();
    void litViewShowsTheBaseColourTexture_data();
    void litViewShowsTheBaseColourTexture();
    void firstLaunchGivesTheViewportMostOfTheWindow_data();
    void firstLaunchGivesTheViewportMostOfTheWindow();
};

void TestGui::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName(QStringLiteral("RigScopeTests"));
    QApplication::setApplicationName(QStringLiteral("test_gui"));
    QSettings().clear();
}

void TestGui::quadViewHeatmapsAndGoldLines_data()
{
    guitest::addBackendRows();
}

void TestGui::quadViewHeatmapsAndGoldLines()
{
    QFETCH(QString, api);
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("elbow")));
    doc.setSelectedJoint(-1); // no rotate rings: their green would read as heatmap green in the lit view
    rig::Pose pose;
    pose.joints["lower"].rotateDeg = glm::vec3(0, 0, 70);
    QVERIFY(doc.setPose(pose));
    doc.setViewMode(viewer::ViewMode::Quad);
    app::DisplaySettings d = doc.display();
    d.heatmapMaxDeg = 15.0f; // red from 15°: the weight band of the bend, not only its worst vertices
    doc.setDisplay(d);
    app::MainWindow w(&doc, api);
    w.resize(1100, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    viewer::Viewport* vp = w.viewport();
    QVERIFY2(waitForFrames(vp, 2), "the viewport never rendered");
    QVERIFY2(vp->backendName().startsWith(api == QLatin1String("vulkan") ? QStringLiteral("Vulkan") : QStringLiteral("OpenGL")),
             qPrintable(vp->backendName()));
    // The first evaluation frames the rig: wait for it, so that the pixels below are of the framed view.
    QTRY_VERIFY_WITH_TIMEOUT(doc.evaluationCurrent(), 20000);
    QTest::qWait(20);

    QString err;
    QImage img = vp->grabImage(&err);
    QVERIFY2(!img.isNull(), qPrintable(err));
    const int hw = img.width() / 2, hh = img.height() / 2;
    // Each quadrant without its label (top), its heatmap legend (bottom) and its axes gizmo (the lower right 90 px).
    auto body = [&](int x, int y) { return QRect(x, y + 40, hw - 90, hh - 90); };
    const QRect tl = body(0, 0), tr = body(hw, 0), bl = body(0, hh), br = body(hw, hh);
    // Bottom-left: the normal-error heatmap of linear blending at a 70° bend: mostly green, red at the elbow.
    const Counts normalHeat = classify(img, bl);
    qInfo("%s: normal heatmap %d green, %d hot pixels", qPrintable(api), normalHeat.green, normalHeat.hot);
    QVERIFY2(normalHeat.green > 2000, qPrintable(QString::number(normalHeat.green)));
    QVERIFY2(normalHeat.hot > 60, qPrintable(QString::number(normalHeat.hot))); // 154 at 1100 x 800 with the default docks
    // Bottom-right: tangent error, green with some error; the top views are lit (no heatmap green).
    QVERIFY(classify(img, br).green > 2000);
    QCOMPARE(classify(img, tl).green, 0);
    QCOMPARE(classify(img, tl).gold, 0); // no normal lines yet
    img.save(QDir::temp().filePath(QStringLiteral("rigscope-test-quad-%1.png").arg(api)));

    // Gold normal lines on: they appear in the top views.
    doc.setOverlay(viewer::OverlayNormals, true);
    img = vp->grabImage(&err);
    QVERIFY(!img.isNull());
    const Counts goldTl = classify(img, tl), goldTr = classify(img, tr);
    QVERIFY2(goldTl.gold > 300, qPrintable(QString::number(goldTl.gold)));
    QVERIFY2(goldTr.gold > 300, qPrintable(QString::number(goldTr.gold)));
    img.save(QDir::temp().filePath(QStringLiteral("rigscope-test-quad-lines-%1.png").arg(api)));

    // Back at the rest pose every method is exact: the normal heatmap has no hot pixels.
    QVERIFY(doc.setPose(rig::Pose{}));
    QTest::qWait(50);
    img = vp->grabImage(&err);
    QCOMPARE(classify(img, bl).hot, 0);
    QVERIFY(classify(img, bl).green > 1000);
}

void TestGui::pickingSelectsTheVertexUnderTheCursor()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("lift_strip")));
    QVERIFY(doc.setPose(rig::Pose{})); // the flat 41 x 6 strip, seen from above: one vertex per pixel neighbourhood
    app::MainWindow w(&doc, QStringLiteral("vulkan"));
    QVERIFY(showFor(w, QSize(900, 700)));
    viewer::Viewport* vp = w.viewport();
    // Project a known vertex to the window and click there.
    const int target = 3 * 41 + 20; // a middle vertex of the 41 x 6 grid
    QTRY_VERIFY_WITH_TIMEOUT(doc.evaluationCurrent(), 20000);
    const glm::vec3 p = doc.evaluation().meshes[0].linear.positions[size_t(target)];
    const QPoint pos = guitest::project(vp, p);
    QTest::mouseClick(vp, Qt::LeftButton, Qt::NoModifier, pos);
    QTRY_COMPARE(doc.selectedVertex(), target);
    // Shift+click adds two more vertices to a selection (with the one picked first), Ctrl+click takes one out again;
    // the Weights dock lists them.
    const int second = 2 * 41 + 10, third = 4 * 41 + 30;
    for (int v : {second, third}) {
        QTest::mouseClick(vp, Qt::LeftButton, Qt::ShiftModifier,
                          guitest::project(vp, doc.evaluation().meshes[0].linear.positions[size_t(v)]));
        QTRY_COMPARE(doc.selectedVertex(), v);
    }
    QCOMPARE(*doc.selectionSet().vertices, (std::vector<uint32_t>{uint32_t(second), uint32_t(target), uint32_t(third)}));
    QCOMPARE(w.weightsPanel()->model()->rowCount(), 3);
    QTest::mouseClick(vp, Qt::LeftButton, Qt::ControlModifier,
                      guitest::project(vp, doc.evaluation().meshes[0].linear.positions[size_t(target)]));
    QTRY_COMPARE(doc.selectionSet().size(), size_t(2));
    QCOMPARE(*doc.selectionSet().vertices, (std::vector<uint32_t>{uint32_t(second), uint32_t(third)}));
    QCOMPARE(w.weightsPanel()->model()->rowCount(), 2);
}

namespace {

void dragWith(QWindow* w, QPointF from, QPointF to, Qt::KeyboardModifiers mods)
{
    auto send = [&](QEvent::Type type, QPointF at, Qt::MouseButtons buttons) {
        QMouseEvent e(type, at, w->mapToGlobal(at), Qt::LeftButton, buttons, mods);
        QApplication::sendEvent(w, &e);
    };
    send(QEvent::MouseButtonPress, from, Qt::LeftButton);
    for (int i = 1; i <= 8; ++i)
        send(QEvent::MouseMove, from + (to - from) * (i / 8.0), Qt::LeftButton);
    send(QEvent::MouseButtonRelease, to, Qt::NoButton);
}

} // namespace

void TestGui::shiftDragSelectsTheVerticesInTheBoxAndCtrlShiftDragTakesThemOut()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("lift_strip")));
    QVERIFY(doc.setPose(rig::Pose{})); // the flat 41 x 6 strip, seen from above: one vertex per pixel neighbourhood
    app::MainWindow w(&doc, QStringLiteral("vulkan"));
    QVERIFY(showFor(w, QSize(900, 700)));
    viewer::Viewport* vp = w.viewport();
    QTRY_VERIFY_WITH_TIMEOUT(doc.evaluationCurrent(), 20000);
    const std::vector<glm::vec3>& pos = doc.evaluation().meshes[0].linear.positions;
    // The vertices whose points (the camera's own projection, computed here) fall in a box; the box's corners are
    // sub-pixel positions, nudged until no vertex lies within 0.1 pixel of a side, so that rounding cannot decide.
    auto pixel = [&](const glm::vec3& p) {
        const viewer::OrbitCamera& cam = vp->camera();
        const glm::vec4 c = cam.projection(float(vp->width()) / float(vp->height())) * cam.view() * glm::vec4(p, 1.0f);
        return glm::vec2((c.x / c.w * 0.5f + 0.5f) * float(vp->width()), (0.5f - c.y / c.w * 0.5f) * float(vp->height()));
    };
    auto clearBox = [&](QPoint centre, QSizeF half) {
        for (int tries = 0; tries < 100; ++tries, half += QSizeF(0.37, 0.29)) {
            const QRectF r(QPointF(centre) - QPointF(half.width(), half.height()), 2.0 * half);
            bool clear = true;
            for (const glm::vec3& p : pos) {
                const glm::vec2 q = pixel(p);
                if (std::fabs(q.x - r.left()) < 0.1 || std::fabs(q.x - r.right()) < 0.1 || std::fabs(q.y - r.top()) < 0.1 ||
                    std::fabs(q.y - r.bottom()) < 0.1)
                    clear = false;
            }
            if (clear)
                return std::pair<QPointF, QPointF>(r.topLeft(), r.bottomRight());
        }
        return std::pair<QPointF, QPointF>();
    };
    auto inside = [&](std::pair<QPointF, QPointF> box) {
        const QRectF r = QRectF(box.first, box.second).normalized();
        std::vector<uint32_t> out;
        for (size_t v = 0; v < pos.size(); ++v) {
            const glm::vec2 q = pixel(pos[v]);
            if (r.contains(QPointF(q.x, q.y)))
                out.push_back(uint32_t(v));
        }
        return out;
    };
    const QPoint middle = guitest::project(vp, pos[size_t(3 * 41 + 20)]);
    const auto wide = clearBox(middle, QSizeF(vp->width() / 6, vp->height() / 10));
    QVERIFY(wide.first != wide.second);
    const std::vector<uint32_t> expected = inside(wide);
    QVERIFY2(expected.size() > 30 && expected.size() < pos.size() - 30, qPrintable(QString::number(expected.size())));
    dragWith(vp, wide.first, wide.second, Qt::ShiftModifier);
    QTRY_COMPARE_WITH_TIMEOUT(doc.selectionSet().size(), expected.size(), 10000);
    QCOMPARE(*doc.selectionSet().vertices, expected);
    QCOMPARE(w.weightsPanel()->model()->rowCount(), int(expected.size()));
    // Ctrl+Shift+drag over a smaller box takes its vertices out.
    const auto narrow = clearBox(middle, QSizeF(vp->width() / 16, vp->height() / 6));
    QVERIFY(narrow.first != narrow.second);
    std::vector<uint32_t> rest;
    const std::vector<uint32_t> out = inside(narrow);
    std::set_difference(expected.begin(), expected.end(), out.begin(), out.end(), std::back_inserter(rest));
    QVERIFY(rest.size() > 10 && rest.size() + 10 < expected.size());
    dragWith(vp, narrow.first, narrow.second, Qt::ShiftModifier | Qt::ControlModifier);
    QTRY_COMPARE_WITH_TIMEOUT(doc.selectionSet().size(), rest.size(), 10000);
    QCOMPARE(*doc.selectionSet().vertices, rest);
    // A plain drag orbits: the selection stays.
    const float yaw = vp->camera().yaw;
    dragWith(vp, wide.first, wide.second, Qt::NoModifier);
    QVERIFY(vp->camera().yaw != yaw);
    QCOMPARE(*doc.selectionSet().vertices, rest);
}

void TestGui::failedLoadKeepsThePreviousRig()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("ramp")));
    app::MainWindow w(&doc, QStringLiteral("vulkan"));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(waitForFrames(w.viewport(), 1));
    const size_t before = doc.loaded()->rig.vertexCount();
    QSignalSpy failed(&doc, &app::Document::loadFailed);
    const QString broken = QString::fromStdString(
        testutil::assetPath("Collada_library_animation_clips/library_animation_clips.dae"));
    doc.openFile(broken);
    QVERIFY(failed.wait(20000));
    QVERIFY(failed.front().front().toString().startsWith(broken));
    QCOMPARE(doc.loaded()->rig.vertexCount(), before);
    QVERIFY(w.lastError().contains(QStringLiteral("library_animation_clips.dae")));
    // The error box is open but not blocking; the viewport still renders.
    auto* box = w.findChild<QMessageBox*>(QStringLiteral("loadErrorBox"));
    QVERIFY(box);
    const int frames = w.viewport()->framesRendered();
    doc.setMethod(rig::Method::Cofactor);
    QVERIFY(waitForFrames(w.viewport(), frames + 1));
    box->close();
}

void TestGui::docksHaveUniqueNamesAndRecentFilesPersist()
{
    REQUIRE_ASSETS();
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("sheet")));
    app::MainWindow w(&doc, QStringLiteral("opengl"));
    QSet<QString> names;
    const auto docks = w.findChildren<QDockWidget*>();
    QVERIFY(docks.size() >= 2);
    for (QDockWidget* d : docks) {
        QVERIFY(!d->objectName().isEmpty());
        QVERIFY(!names.contains(d->objectName()));
        names.insert(d->objectName());
    }
    const QString simple = QString::fromStdString(testutil::assetPath("SimpleSkin/SimpleSkin.gltf"));
    QSignalSpy finished(&doc, &app::Document::loadFinished);
    doc.openFile(simple);
    QVERIFY(finished.wait(20000));
    QCOMPARE(w.recentFiles().value(0), QFileInfo(simple).absoluteFilePath());
    // A new window (a new session) sees the same list.
    app::MainWindow w2(&doc, QStringLiteral("opengl"));
    QCOMPARE(w2.recentFiles().value(0), QFileInfo(simple).absoluteFilePath());
}

void TestGui::viewportKeysReachTheMenus()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("sheet")));
    app::MainWindow w(&doc, QStringLiteral("vulkan"));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    // The viewport is a native child window: its key events must still reach the menu shortcuts.
    QTest::keyClick(w.viewport(), Qt::Key_Q);
    QCOMPARE(doc.display().view, viewer::ViewMode::Quad);
    QTest::keyClick(w.viewport(), Qt::Key_N);
    QVERIFY(doc.display().overlays & viewer::OverlayNormals);
    const float before = doc.display().lineLength;
    QTest::keyClick(w.viewport(), Qt::Key_BracketRight);
    QVERIFY(doc.display().lineLength > before);
}

void TestGui::poseFilesApplyOrExplain()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("lift_strip")));
    app::MainWindow w(&doc, QStringLiteral("opengl"));
    QTemporaryDir dir;
    const QString good = dir.filePath(QStringLiteral("good.json"));
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    QFile g(good), b(bad);
    QVERIFY(g.open(QIODevice::WriteOnly) && b.open(QIODevice::WriteOnly));
    g.write(R"({"joints": {"lift": {"translate": [0, 0.5, 0]}}})");
    b.write(R"({"joints": {"elbow": {"rotate": [0, 0, 10]}}})");
    g.close();
    b.close();
    QVERIFY(w.applyPoseFile(good));
    QTRY_VERIFY_WITH_TIMEOUT(doc.evaluationCurrent(), 20000); // the numbers come from the background evaluation
    RS_COMPARE_NEAR(doc.evaluation().stats[size_t(rig::Method::Linear)].normal.max, std::atan(0.25) * 180.0 / M_PI, 1e-3);
    QString err;
    QVERIFY(!w.applyPoseFile(bad, &err));
    QVERIFY2(err.startsWith(bad) && err.contains(QLatin1String("elbow")), qPrintable(err));
    // The failed pose left the good one in place.
    QCOMPARE(doc.pose().joints.count("lift"), size_t(1));
}

void TestGui::staysUsableThroughEveryCorpusFile()
{
    REQUIRE_ASSETS();
    // Every real asset and every hand-broken rig, opened one after another in one window: each either loads or
    // fails with a message naming it; the previous rig stays on failure; the viewport keeps rendering throughout.
    QStringList files;
    for (const QString& root : {QString::fromStdString(testutil::assetsDir()), QStringLiteral(RIGSCOPE_TEST_DATA_DIR "/broken")}) {
        QDirIterator it(root, {"*.gltf", "*.glb", "*.fbx", "*.dae", "*.x", "*.X", "*.obj", "*.bin", "*.txt", "*.json"},
                        QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString f = it.next();
            if (!f.endsWith(QLatin1String(".bin")) || f.contains(QLatin1String("/broken/")))
                files << f;
        }
    }
    files.sort();
    QVERIFY(files.size() >= 30);
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("sheet")));
    app::MainWindow w(&doc, QStringLiteral("vulkan"));
    w.resize(800, 600);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(waitForFrames(w.viewport(), 1));
    int loaded = 0, failed = 0;
    for (const QString& f : files) {
        // No waiting for the Methods panel's worker thread: the import runs in a spawned worker process, whatever the
        // other threads of this one are doing.
        QSignalSpy ok(&doc, &app::Document::loadFinished), bad(&doc, &app::Document::loadFailed);
        const size_t before = doc.loaded()->rig.vertexCount();
        doc.openFile(f);
        QVERIFY2(QTest::qWaitFor([&] { return ok.count() + bad.count() > 0; }, 60000), qPrintable(f));
        if (bad.count()) {
            ++failed;
            QVERIFY2(bad.front().front().toString().startsWith(f), qPrintable(bad.front().front().toString()));
            QCOMPARE(doc.loaded()->rig.vertexCount(), before);
            if (auto* box = w.findChild<QMessageBox*>(QStringLiteral("loadErrorBox")))
                box->close();
        } else {
            ++loaded;
            QCOMPARE(doc.loaded()->path, f);
        }
        // Still usable: a method switch renders a new frame, and the status numbers are finite.
        const int frames = w.viewport()->framesRendered();
        doc.setMethod(doc.display().method == rig::Method::Linear ? rig::Method::Jacobian : rig::Method::Linear);
        QVERIFY2(waitForFrames(w.viewport(), frames + 1), qPrintable(f));
        const rig::ErrorStats& s = doc.evaluation().stats[size_t(doc.display().method)].normal;
        QVERIFY2(std::isfinite(s.max) && std::isfinite(s.mean), qPrintable(f));
    }
    qInfo("%d files loaded, %d failed cleanly", loaded, failed);
    QVERIFY(loaded >= 20);
    QVERIFY(failed >= 3);
}

void TestGui::withoutVulkanTheAppFallsBackToOpenGL()
{
    // The real binary on this display with no Vulkan driver at all: it must draw with OpenGL, not fail.
    QTemporaryDir dir;
    const QString shot = dir.filePath(QStringLiteral("fallback.png"));
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("VK_ICD_FILENAMES"), dir.filePath(QStringLiteral("no-such-icd.json")));
    env.insert(QStringLiteral("VK_DRIVER_FILES"), dir.filePath(QStringLiteral("no-such-icd.json")));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(RIGSCOPE_BINARY), {"--sample", "ramp", "--shading", "normal-error", "--screenshot", shot});
    QVERIFY(p.waitForFinished(60000));
    const QByteArray err = p.readAllStandardError();
    QCOMPARE(p.exitCode(), 0);
    QVERIFY2(err.contains("falling back to OpenGL"), err.constData());
    QImage img(shot);
    QVERIFY2(!img.isNull(), err.constData());
    // The ramp at rest is exact: its heatmap is green.
    const Counts c = classify(img, img.rect());
    QVERIFY2(c.green > 2000, qPrintable(QString::number(c.green)));
}


void TestGui::litViewShowsTheBaseColourTexture_data()
{
    guitest::addBackendRows();
}

void TestGui::litViewShowsTheBaseColourTexture()
{
    // A quad in z = 0 whose UV0 puts the image's top-left corner at its top-left (x = -1, y = 1), textured with four
    // colour quadrants (red, green / blue, white) from a PNG beside the .gltf: each quadrant's centre shows its
    // colour, so the texture is there, the right way up and not mirrored, on both backends.
    QFETCH(QString, api);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QImage tex(64, 64, QImage::Format_RGBA8888);
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x)
            tex.setPixelColor(x, y, y < 32 ? (x < 32 ? QColor(255, 0, 0) : QColor(0, 255, 0))
                                           : (x < 32 ? QColor(0, 0, 255) : QColor(255, 255, 255)));
    QVERIFY(tex.save(dir.filePath("quadrants.png")));
    testgltf::Builder b;
    QJsonObject root = testgltf::texturedQuad(
        b, QJsonObject{{"pbrMetallicRoughness", QJsonObject{{"baseColorTexture", QJsonObject{{"index", 0}}}}}});
    root["images"] = QJsonArray{QJsonObject{{"uri", "quadrants.png"}}};
    root["textures"] = QJsonArray{QJsonObject{{"source", 0}}};
    QFile f(dir.filePath("quad.gltf"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(b.gltf(root));
    f.close();

    app::Document doc;
    app::MainWindow w(&doc, api);
    w.resize(1000, 760);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy finished(&doc, &app::Document::loadFinished);
    doc.openFile(dir.filePath("quad.gltf"));
    QVERIFY(finished.wait(20000));
    QCOMPARE(doc.loaded()->rig.images.size(), size_t(1));
    QVERIFY(doc.loaded()->rig.images[0].decoded());
    // The loader packed the rig for the GPU (the GUI thread only uploads it), with its draw input per vertex.
    QVERIFY2(doc.loaded()->gpu, doc.loaded()->gpuError.c_str());
    QCOMPARE(doc.loaded()->gpu->vertices, size_t(4));
    QCOMPARE(doc.loaded()->gpu->draw.size(), size_t(4));
    QCOMPARE(doc.loaded()->gpu->draw[2].texUv, glm::vec2(1.0f, 1.0f)); // glTF's UV origin: the image's top left
    viewer::Viewport* vp = w.viewport();
    QVERIFY(waitForFrames(vp, 1));
    QTRY_VERIFY_WITH_TIMEOUT(doc.evaluationCurrent(), 20000); // the first evaluation frames the rig
    QTest::qWait(50);
    QString err;
    const QImage img = vp->grabImage(&err);
    QVERIFY2(!img.isNull(), qPrintable(err));
    img.save(QDir::temp().filePath(QStringLiteral("rigscope-test-texture-%1.png").arg(api)));
    const double sx = double(img.width()) / vp->width(), sy = double(img.height()) / vp->height();
    // Each quadrant's centre, 7 x 7 pixels (lighting and a specular highlight may brighten, never change the hue).
    auto at = [&](float x, float y) {
        const QPoint p = guitest::project(vp, glm::vec3(x, y, 0.0f));
        return QRect(int(p.x() * sx) - 3, int(p.y() * sy) - 3, 7, 7);
    };
    auto red = [](const QColor& c) { return c.red() > 120 && c.red() > c.green() + 60 && c.red() > c.blue() + 60; };
    auto green = [](const QColor& c) { return c.green() > 120 && c.green() > c.red() + 60 && c.green() > c.blue() + 60; };
    auto blue = [](const QColor& c) { return c.blue() > 120 && c.blue() > c.red() + 60 && c.blue() > c.green() + 60; };
    auto white = [](const QColor& c) { return c.red() > 150 && c.green() > 150 && c.blue() > 150; };
    QCOMPARE(guitest::countPixels(img, at(-0.5f, 0.5f), red), 49);
    QCOMPARE(guitest::countPixels(img, at(0.5f, 0.5f), green), 49);
    QCOMPARE(guitest::countPixels(img, at(-0.5f, -0.5f), blue), 49);
    QCOMPARE(guitest::countPixels(img, at(0.5f, -0.5f), white), 49);

    // The 4 / 8 influence switch rebuilds the runtime off the GUI thread, and the pack with it.
    QSignalSpy changed(&doc, &app::Document::rigChanged);
    app::DisplaySettings d = doc.display();
    d.format.influences = 8;
    doc.setDisplay(d);
    QVERIFY(changed.wait(20000));
    QVERIFY(doc.loaded()->gpu);
    QCOMPARE(doc.loaded()->gpu->influences, 8);
}

void TestGui::firstLaunchGivesTheViewportMostOfTheWindow_data()
{
    QTest::addColumn<QSize>("size");
    // The windows a first launch opens on a 1600 × 1000 and a 1920 × 1080 screen (nine tenths of each), and those
    // screens' whole size.
    QTest::newRow("1440x900") << QSize(1440, 900);
    QTest::newRow("1728x972") << QSize(1728, 972);
    QTest::newRow("1600x1000") << QSize(1600, 1000);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
}

void TestGui::firstLaunchGivesTheViewportMostOfTheWindow()
{
    REQUIRE_ASSETS();
    // No saved layout: the viewport is most of the window (at least 55 % of its area), every Methods row and column
    // reads without scrolling, and the Bones tree shows at least 12 joints of CesiumMan's 19.
    QFETCH(QSize, size);
    QSettings().clear();
    app::Document doc;
    doc.openFile(QString::fromStdString(testutil::assetPath("CesiumMan/cesium_man.gltf")));
    QVERIFY(QTest::qWaitFor([&] { return doc.loaded() != nullptr; }, 30000));
    app::MainWindow w(&doc, QStringLiteral("vulkan"));
    w.resize(size);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(QTest::qWaitFor([&] { return doc.evaluationCurrent(); }, 30000));
    QTest::qWait(100);
    QCOMPARE(w.size(), size);
    const QSize vp = w.centralWidget()->size();
    const double share = double(vp.width()) * vp.height() / (double(size.width()) * size.height());
    w.grab().save(QDir::temp().filePath(QStringLiteral("rigscope-test-layout-%1x%2.png").arg(size.width()).arg(size.height())));
    QVERIFY2(share >= 0.55, qPrintable(QStringLiteral("viewport %1 x %2: %3 of the window").arg(vp.width()).arg(vp.height()).arg(share)));

    // Numbers of three digits after the table first filled (a hard twist): they still read whole.
    rig::Pose twisted;
    for (const char* joint : {"nodes[7]", "nodes[11]", "nodes[3]"})
        twisted.joints[joint].rotateDeg = glm::vec3(0.0f, 160.0f, 40.0f);
    QVERIFY(doc.setPose(twisted));
    QVERIFY(QTest::qWaitFor([&] { return doc.evaluationCurrent(); }, 30000));
    QTest::qWait(50);
    auto* table = w.findChild<QTableView*>(QStringLiteral("methodsTable"));
    QVERIFY(table && table->isVisible());
    bool threeDigits = false;
    for (int r = 0; r < table->model()->rowCount(); ++r)
        threeDigits |= table->model()->index(r, 1).data().toString().size() >= 7;
    QVERIFY2(threeDigits, "the twist gives errors of 100° and more");
    QCOMPARE(table->model()->rowCount(), int(rig::kMethodCount));
    QVERIFY2(!table->verticalScrollBar()->isVisible(), "the Methods table scrolls vertically");
    QVERIFY2(!table->horizontalScrollBar()->isVisible(), "the Methods table scrolls horizontally");
    for (int r = 0; r < table->model()->rowCount(); ++r)
        QVERIFY2(table->viewport()->rect().contains(table->visualRect(table->model()->index(r, 0))), qPrintable(QString::number(r)));
    // Every cell's text fits its column (nothing elided to "12...."), the header's too, in both tabs of the table
    // (total error, from skinning), each with only its own columns.
    const int margin = 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1);
    auto* measure = w.findChild<QTabBar*>(QStringLiteral("methodsMeasure"));
    QVERIFY(measure && measure->isVisible());
    for (int tab : {1, 0}) {
        measure->setCurrentIndex(tab);
        QTest::qWait(20);
        QCOMPARE(doc.display().errorMeasure, tab == 1 ? app::ErrorMeasure::Skinning : app::ErrorMeasure::Total);
        QVERIFY2(!table->horizontalScrollBar()->isVisible(), qPrintable(QStringLiteral("tab %1 scrolls horizontally").arg(tab)));
        QVERIFY2(!table->verticalScrollBar()->isVisible(), qPrintable(QStringLiteral("tab %1 scrolls vertically").arg(tab)));
        int shown = 0;
        for (int c = 0; c < table->model()->columnCount(); ++c) {
            if (table->isColumnHidden(c))
                continue;
            ++shown;
            int need = table->horizontalHeader()->sectionSizeHint(c);
            for (int r = 0; r < table->model()->rowCount(); ++r)
                need = std::max(need, table->fontMetrics().horizontalAdvance(table->model()->index(r, c).data().toString()) + margin);
            QVERIFY2(table->columnWidth(c) >= need, qPrintable(QStringLiteral("tab %1 column %2: %3 < %4").arg(tab).arg(c).arg(table->columnWidth(c)).arg(need)));
        }
        QCOMPARE(shown, tab == 1 ? 6 : 9); // method, 6 total / 3 skinning columns, handedness, notes
        for (int r = 0; r < table->model()->rowCount(); ++r)
            QVERIFY2(table->viewport()->rect().contains(table->visualRect(table->model()->index(r, 0))), qPrintable(QString::number(r)));
    }
    // The tabs beside: Weights and Diagnosis have room for a table (a third of the window at least).
    auto* weightsDock = w.findChild<QDockWidget*>(QStringLiteral("dock.weights"));
    QVERIFY(weightsDock);
    weightsDock->raise();
    QTest::qWait(20);
    QVERIFY2(weightsDock->width() >= size.width() / 3, qPrintable(QString::number(weightsDock->width())));

    // --dock names every dock, and raising one by name brings it to the front (Diagnosis, tabbed with Vertex).
    const QList<QDockWidget*> docks = w.findChildren<QDockWidget*>();
    QCOMPARE(docks.size(), app::MainWindow::dockNames().size());
    for (QDockWidget* d : docks)
        QVERIFY2(app::MainWindow::dockNames().contains(d->objectName().mid(5)), qPrintable(d->objectName()));
    QVERIFY(!w.raiseDock(QStringLiteral("nonesuch")));
    QVERIFY(w.raiseDock(QStringLiteral("diagnosis")));
    QTest::qWait(20);
    QVERIFY(w.diagnosisPanel()->isVisible());
    QVERIFY(w.raiseDock(QStringLiteral("vertex")));

    // As the tree opens (nothing expanded by hand): at least 12 of CesiumMan's joints in view (plain nodes not counted).
    auto* tree = w.findChild<QTreeView*>(QStringLiteral("skeletonTree"));
    QVERIFY(tree && tree->isVisible());
    int rows = 0;
    for (QModelIndex i = tree->model()->index(0, 0); i.isValid(); i = tree->indexBelow(i))
        rows += tree->viewport()->rect().contains(tree->visualRect(i)) && i.data(panels::SkeletonModel::KindRole).toInt() != int(panels::SkeletonModel::Kind::Node) ? 1 : 0;
    QVERIFY2(rows >= 12, qPrintable(QStringLiteral("%1 joints visible (tree %2 px high, rows %3 px, the Bones dock %4 px)")
                                        .arg(rows).arg(tree->viewport()->height()).arg(tree->sizeHintForRow(0))
                                        .arg(w.findChild<QDockWidget*>(QStringLiteral("dock.bones"))->height())));

    // A layout of the user's: Bones made wide and Methods floated; View ▸ Reset Layout brings back the first one.
    auto* bones = w.findChild<QDockWidget*>(QStringLiteral("dock.bones"));
    auto* methods = w.findChild<QDockWidget*>(QStringLiteral("dock.methods"));
    QVERIFY(bones && methods);
    w.resizeDocks({bones}, {size.width() / 2}, Qt::Horizontal);
    methods->setFloating(true);
    QTest::qWait(50);
    auto shareNow = [&] {
        const QSize c = w.centralWidget()->size();
        return double(c.width()) * c.height() / (double(size.width()) * size.height());
    };
    QVERIFY(shareNow() < 0.55);
    auto* reset = w.findChild<QAction*>(QStringLiteral("resetLayout"));
    QVERIFY(reset);
    reset->trigger();
    QTest::qWait(50);
    QVERIFY(!methods->isFloating());
    QCOMPARE(w.dockWidgetArea(methods), Qt::BottomDockWidgetArea);
    QCOMPARE(w.dockWidgetArea(bones), Qt::LeftDockWidgetArea);
    QVERIFY2(shareNow() >= 0.55, qPrintable(QStringLiteral("%1: viewport %2 x %3").arg(shareNow()).arg(w.centralWidget()->width()).arg(w.centralWidget()->height())));
    QVERIFY(!table->verticalScrollBar()->isVisible());
}

QTEST_MAIN(TestGui)
#include "test_gui.moc"
