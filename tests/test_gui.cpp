// The real main window under Xvfb, on Vulkan (lavapipe) and OpenGL (llvmpipe): four-view heatmaps, gold normal lines,
// picking, failed loads, recent files, and exact swapchain pixels.
#include "testutil.h"

#include <QApplication>
#include <QDockWidget>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

#include "app/document.h"
#include "app/main_window.h"
#include "viewer/viewport.h"

namespace {

struct Counts {
    int green = 0, hot = 0, gold = 0, total = 0;
};

// Classifies pixels of a region of the grabbed viewport image.
Counts classify(const QImage& img, QRect region)
{
    Counts c;
    region = region.intersected(img.rect());
    for (int y = region.top(); y <= region.bottom(); ++y)
        for (int x = region.left(); x <= region.right(); ++x) {
            const QColor p = img.pixelColor(x, y);
            ++c.total;
            if (p.green() > 140 && p.red() < 90 && p.blue() < 90)
                ++c.green; // heatmap 0°
            if (p.red() > 180 && p.green() < 140 && p.blue() < 80)
                ++c.hot; // heatmap towards red
            if (p.red() > 220 && p.green() > 160 && p.green() < 225 && p.blue() < 70)
                ++c.gold; // normal lines (1.0, 0.78, 0.12)
        }
    return c;
}

bool waitForFrames(viewer::Viewport* vp, int atLeast)
{
    return QTest::qWaitFor([&] { return vp->framesRendered() >= atLeast; }, 20000);
}

} // namespace

class TestGui : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void quadViewHeatmapsAndGoldLines_data();
    void quadViewHeatmapsAndGoldLines();
    void pickingSelectsTheVertexUnderTheCursor();
    void failedLoadKeepsThePreviousRig();
    void docksHaveUniqueNamesAndRecentFilesPersist();
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
    QTest::addColumn<QString>("api");
    QTest::newRow("vulkan") << QStringLiteral("vulkan");
    QTest::newRow("opengl") << QStringLiteral("opengl");
}

void TestGui::quadViewHeatmapsAndGoldLines()
{
    QFETCH(QString, api);
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("elbow")));
    rig::Pose pose;
    pose.joints["lower"].rotateDeg = glm::vec3(0, 0, 70);
    QVERIFY(doc.setPose(pose));
    doc.setViewMode(viewer::ViewMode::Quad);
    app::MainWindow w(&doc, api);
    w.resize(1100, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    viewer::Viewport* vp = w.viewport();
    QVERIFY2(waitForFrames(vp, 2), "the viewport never rendered");
    QVERIFY2(vp->backendName().startsWith(api == QLatin1String("vulkan") ? QStringLiteral("Vulkan") : QStringLiteral("OpenGL")),
             qPrintable(vp->backendName()));

    QString err;
    QImage img = vp->grabImage(&err);
    QVERIFY2(!img.isNull(), qPrintable(err));
    const int hw = img.width() / 2, hh = img.height() / 2;
    const QRect tl(0, 0, hw, hh), tr(hw, 0, hw, hh), bl(0, hh, hw, hh), br(hw, hh, hw, hh);
    // Bottom-left: the normal-error heatmap of linear blending at a 70° bend: mostly green, red at the elbow.
    const Counts normalHeat = classify(img, bl);
    QVERIFY2(normalHeat.green > 2000, qPrintable(QString::number(normalHeat.green)));
    QVERIFY2(normalHeat.hot > 20, qPrintable(QString::number(normalHeat.hot)));
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
    app::MainWindow w(&doc, QStringLiteral("vulkan"));
    w.resize(900, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    viewer::Viewport* vp = w.viewport();
    QVERIFY(waitForFrames(vp, 1));
    // Project a known vertex to the window and click there.
    const int target = 3 * 41 + 20; // a middle vertex of the 41 x 6 grid
    const glm::vec3 p = doc.evaluation().meshes[0].linear.positions[size_t(target)];
    const viewer::OrbitCamera& cam = vp->camera();
    const glm::vec4 clip = cam.projection(float(vp->width()) / float(vp->height())) * cam.view() * glm::vec4(p, 1.0f);
    const QPoint pos(int((clip.x / clip.w * 0.5f + 0.5f) * float(vp->width())),
                     int((0.5f - clip.y / clip.w * 0.5f) * float(vp->height())));
    QTest::mouseClick(vp, Qt::LeftButton, Qt::NoModifier, pos);
    QTRY_COMPARE(doc.selectedVertex(), target);
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

QTEST_MAIN(TestGui)
#include "test_gui.moc"
