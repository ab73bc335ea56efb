// The posing panels driven through their real widgets (mouse and keyboard on sliders, spin boxes, the tree, the
// combo box): Bones (tree, filter, joint editor, presets, Save Pose), Morph Targets, Timeline, and the undo stack
// behind them. Models checked by QAbstractItemModelTester.
#include "testutil.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QPushButton>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QTemporaryDir>
#include <QTreeView>
#include <QUndoStack>

#include <cmath>
#include <functional>

#include <glm/gtc/quaternion.hpp>
#include <set>

#include "app/document.h"
#include "panels/animation/morph_panel.h"
#include "panels/animation/timeline_panel.h"
#include "panels/skeleton/bones_panel.h"
#include "panels/skeleton/joint_editor.h"
#include "panels/skeleton/skeleton_model.h"
#include "rig/io/pose_file.h"
#include "rig/model/joint_tools.h"

namespace {

/// The centre of a slider's handle, from its style.
QPoint handleCentre(QSlider* s)
{
    QStyleOptionSlider opt;
    opt.initFrom(s);
    opt.orientation = s->orientation();
    opt.minimum = s->minimum();
    opt.maximum = s->maximum();
    opt.sliderPosition = s->sliderPosition();
    opt.sliderValue = s->value();
    opt.singleStep = s->singleStep();
    opt.pageStep = s->pageStep();
    opt.upsideDown = false;
    opt.subControls = QStyle::SC_SliderHandle;
    return s->style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderHandle, s).center();
}

/// Shows the Bones panel at a size where every editor row has room, and waits until it is on screen.
bool showOnScreen(panels::BonesPanel& panel)
{
    panel.resize(320, 700);
    panel.show();
    return QTest::qWaitForWindowExposed(&panel);
}

/// Drags a slider's handle by `dx` pixels in `steps` moves (press, moves, release): one user gesture.
void dragSlider(QSlider* s, int dx, int steps = 8)
{
    const QPoint from = handleCentre(s);
    QTest::mousePress(s, Qt::LeftButton, Qt::NoModifier, from);
    for (int i = 1; i <= steps; ++i) {
        QMouseEvent move(QEvent::MouseMove, QPointF(from + QPoint(dx * i / steps, 0)), s->mapToGlobal(QPointF(from + QPoint(dx * i / steps, 0))),
                         Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(s, &move);
    }
    QTest::mouseRelease(s, Qt::LeftButton, Qt::NoModifier, from + QPoint(dx, 0));
}

/// Types a value into a spin box and presses Enter.
void typeInto(QDoubleSpinBox* spin, const QString& text)
{
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, text);
    QTest::keyClick(spin, Qt::Key_Return);
}

QString assetQ(const char* rel) { return QString::fromStdString(testutil::assetPath(rel)); }

bool openFile(app::Document& doc, const QString& path)
{
    QSignalSpy done(&doc, &app::Document::loadFinished);
    doc.openFile(path);
    return done.wait(30000);
}

} // namespace

class TestPosingPanels : public QObject {
    Q_OBJECT
private slots:
    void skeletonModelPassesTheTesterWithAndWithoutFilter();
    void treeMarksJointsThatWeighNothing();
    void clickingAJointInTheTreeSelectsIt();
    void filterKeepsMatchesAndTheirAncestors();
    void rotateSliderDragIsOneUndoStep();
    void typedSpinValueIsExactAndUndoable();
    void rotateOrderChoiceKeepsTheAnglesAndIsOneUndoStep();
    void clipRotationReadsOnPastHalfATurn();
    void scaleIsPerAxis();
    void unnamedNodesCannotBePosed();
    void presetsActOnTheLessonJointWithoutASelection();
    void candyWrapperSweepEndsAt180AboutTheBoneInOneStep();
    void savedPoseReadsBackAndReportsTheSame();
    void morphSliderSetsTheWeightByName();
    void morphFilterHidesOtherTargets();
    void morphSlidersFollowTheClip();
    void timelineScrubSnapsToKeysAndIsNotAnUndoStep();
    void playbackAdvancesAndStopsAtTheEndWithoutLoop();
    void switchingRigsClearsTheUndoHistory();
};

void TestPosingPanels::skeletonModelPassesTheTesterWithAndWithoutFilter()
{
    REQUIRE_ASSETS();
    app::Document doc;
    QVERIFY(openFile(doc, assetQ("Fox/Fox.glb")));
    panels::SkeletonModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRig(doc.loadedShared());
    QSortFilterProxyModel proxy;
    proxy.setRecursiveFilteringEnabled(true);
    proxy.setSourceModel(&model);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setFilterFixedString(QStringLiteral("tail"));
    proxy.setFilterFixedString(QString());
    // Every node appears once; rows under a parent are its children in node order.
    const auto& nodes = doc.loaded()->rig.skeleton.nodes;
    int seen = 0;
    std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
        for (int r = 0; r < model.rowCount(parent); ++r) {
            const QModelIndex i = model.index(r, 0, parent);
            const int node = i.data(panels::SkeletonModel::NodeRole).toInt();
            QCOMPARE(nodes[size_t(node)].parent, parent.isValid() ? parent.data(panels::SkeletonModel::NodeRole).toInt() : -1);
            QCOMPARE(model.indexOfNode(node), i);
            ++seen;
            walk(i);
        }
    };
    walk({});
    QCOMPARE(seen, int(nodes.size()));
    model.setRig(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void TestPosingPanels::treeMarksJointsThatWeighNothing()
{
    REQUIRE_ASSETS();
    // Fox.glb: _rootJoint and b_Root_00 are skin joints that no vertex weighs; counted from the raw data here.
    app::Document doc;
    QVERIFY(openFile(doc, assetQ("Fox/Fox.glb")));
    panels::SkeletonModel model;
    model.setRig(doc.loadedShared());
    const rig::Rig& r = doc.loaded()->rig;
    std::vector<std::set<uint32_t>> weighs(r.skeleton.nodes.size());
    uint32_t base = 0;
    for (const rig::Mesh& m : r.meshes) {
        for (size_t v = 0; v + 1 < m.influenceOffsets.size(); ++v)
            for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i)
                if (m.influences[i].weight > 0.0f)
                    weighs[size_t(r.skins[size_t(m.skin)].joints[m.influences[i].joint])].insert(base + uint32_t(v));
        base += uint32_t(m.vertexCount());
    }
    int unused = 0;
    for (size_t n = 0; n < r.skeleton.nodes.size(); ++n) {
        const QModelIndex i = model.indexOfNode(int(n));
        const auto kind = panels::SkeletonModel::Kind(i.data(panels::SkeletonModel::KindRole).toInt());
        if (kind == panels::SkeletonModel::Kind::Node)
            continue;
        QCOMPARE(model.index(i.row(), panels::SkeletonModel::VerticesColumn, i.parent()).data().toUInt(), uint(weighs[n].size()));
        QCOMPARE(kind == panels::SkeletonModel::Kind::UnusedJoint, weighs[n].empty());
        if (weighs[n].empty()) {
            ++unused;
            QVERIFY(r.skeleton.nodes[n].name == "_rootJoint" || r.skeleton.nodes[n].name == "b_Root_00");
        }
    }
    QCOMPARE(unused, 2);
    QCOMPARE(model.unusedJointCount(), 2);
    QCOMPARE(model.jointCount(), 24);
}

void TestPosingPanels::clickingAJointInTheTreeSelectsIt()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("elbow")));
    panels::BonesPanel panel(&doc);
    panel.resize(320, 600);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTreeView* tree = panel.tree();
    tree->expandAll();
    const int upper = doc.loaded()->rig.skeleton.find("upper");
    const QModelIndex i = panel.proxy()->mapFromSource(panel.model()->indexOfNode(upper));
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, Qt::NoModifier, tree->visualRect(i).center());
    QCOMPARE(doc.selectedJoint(), upper);
    // And back: selecting in the document moves the tree's current row.
    const int lower = doc.loaded()->rig.skeleton.find("lower");
    doc.setSelectedJoint(lower);
    QCOMPARE(tree->currentIndex().data(panels::SkeletonModel::NodeRole).toInt(), lower);
    // Keyboard: Up goes back to upper.
    tree->setFocus();
    QTest::keyClick(tree, Qt::Key_Up);
    QCOMPARE(doc.selectedJoint(), upper);
}

void TestPosingPanels::filterKeepsMatchesAndTheirAncestors()
{
    REQUIRE_ASSETS();
    app::Document doc;
    QVERIFY(openFile(doc, assetQ("Fox/Fox.glb")));
    panels::BonesPanel panel(&doc);
    panel.show();
    QTest::keyClicks(panel.filter(), QStringLiteral("tail"));
    // Every visible leaf matches; every visible node matches or has a visible descendant that does.
    const QSortFilterProxyModel* p = panel.proxy();
    int matches = 0;
    std::function<bool(const QModelIndex&)> check = [&](const QModelIndex& parent) {
        bool any = false;
        for (int r = 0; r < p->rowCount(parent); ++r) {
            const QModelIndex i = p->index(r, 0, parent);
            const bool self = i.data().toString().contains(QStringLiteral("tail"), Qt::CaseInsensitive);
            matches += self;
            const bool below = check(i);
            if (!self && !below)
                return false;
            any = true;
        }
        return any || !parent.isValid();
    };
    QVERIFY(check({}));
    int expected = 0;
    for (const rig::Node& n : doc.loaded()->rig.skeleton.nodes)
        expected += QString::fromStdString(n.name).contains(QStringLiteral("tail"), Qt::CaseInsensitive);
    QVERIFY(expected > 0);
    QCOMPARE(matches, expected);
}

void TestPosingPanels::rotateSliderDragIsOneUndoStep()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("elbow"))); // lesson: lower at Z 60°, lower selected
    panels::BonesPanel panel(&doc);
    QVERIFY(showOnScreen(panel));
    const int lower = doc.loaded()->rig.skeleton.find("lower");
    QCOMPARE(doc.selectedJoint(), lower);
    QSlider* x = panel.editor()->slider(panels::JointEditor::RotateX);
    QCOMPARE(x->value(), 0);
    const int before = doc.undoStack()->count();
    dragSlider(x, 40);
    const float dragged = doc.jointEdit(lower).rotateDeg.x;
    QVERIFY2(dragged > 5.0f, qPrintable(QString::number(dragged)));
    QCOMPARE(doc.undoStack()->count(), before + 1); // eight moves, one step
    RS_COMPARE_NEAR(doc.jointEdit(lower).rotateDeg.z, 60.0, 1e-4); // the other angles untouched
    // The spin box shows the slider's value.
    RS_COMPARE_NEAR(panel.editor()->spinBox(panels::JointEditor::RotateX)->value(), dragged, 0.05);
    doc.undoStack()->undo();
    QCOMPARE(doc.jointEdit(lower).rotateDeg.x, 0.0f);
    QCOMPARE(x->value(), 0);
    doc.undoStack()->redo();
    QCOMPARE(doc.jointEdit(lower).rotateDeg.x, dragged);
}

void TestPosingPanels::rotateOrderChoiceKeepsTheAnglesAndIsOneUndoStep()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("elbow"))); // lesson: lower at Z 60°, lower selected
    panels::BonesPanel panel(&doc);
    QVERIFY(showOnScreen(panel));
    const int lower = doc.loaded()->rig.skeleton.find("lower");
    QComboBox* order = panel.editor()->rotateOrderBox();
    QCOMPARE(order->currentText(), QStringLiteral("xyz"));
    typeInto(panel.editor()->spinBox(panels::JointEditor::RotateX), QStringLiteral("30"));
    const int before = doc.undoStack()->count();
    order->setFocus();
    QTest::keyClick(order, Qt::Key_Down); // the next order, as an artist steps through them
    QCOMPARE(order->currentText(), QStringLiteral("yzx"));
    QVERIFY(doc.jointEdit(lower).rotateOrder == rig::RotateOrder::YZX);
    QCOMPARE(doc.jointEdit(lower).rotateDeg, glm::vec3(30.0f, 0.0f, 60.0f)); // the angles as set, as Maya keeps them
    QCOMPARE(doc.undoStack()->count(), before + 1);
    // A slider in the new order changes only its angle; the Reset Joint button keeps the order.
    typeInto(panel.editor()->spinBox(panels::JointEditor::RotateY), QStringLiteral("-15"));
    QCOMPARE(doc.jointEdit(lower).rotateDeg, glm::vec3(30.0f, -15.0f, 60.0f));
    QVERIFY(doc.jointEdit(lower).rotateOrder == rig::RotateOrder::YZX);
    QTest::mouseClick(panel.findChild<QPushButton*>(QStringLiteral("resetJoint")), Qt::LeftButton);
    QCOMPARE(doc.jointEdit(lower).rotateDeg, glm::vec3(0.0f));
    QVERIFY(doc.jointEdit(lower).rotateOrder == rig::RotateOrder::YZX);
    QCOMPARE(order->currentText(), QStringLiteral("yzx"));
    // Undo back past the choice: xyz again, and the combo box follows.
    while (doc.undoStack()->index() > before)
        doc.undoStack()->undo();
    QCOMPARE(order->currentText(), QStringLiteral("xyz"));
    QCOMPARE(doc.jointEdit(lower).rotateDeg, glm::vec3(30.0f, 0.0f, 60.0f));
}

void TestPosingPanels::clipRotationReadsOnPastHalfATurn()
{
    // A clip spins "lower" a whole turn about Z, a quarter turn per second. Played forward, the editor's clip line
    // reads each angle on from the last (315° at 3.5 s, where a fresh decomposition reads −45°), and the line is
    // hidden for a joint the clip does not rotate.
    rig::Rig rig = testutil::sample("elbow");
    const int lower = rig.skeleton.find("lower");
    rig::Clip spin;
    spin.name = "spin";
    spin.duration = 4.0f;
    rig::JointChannel ch;
    ch.node = lower;
    for (int key = 0; key <= 4; ++key) {
        ch.rotation.times.push_back(float(key));
        ch.rotation.values.push_back(glm::angleAxis(glm::radians(90.0f * float(key)), glm::vec3(0, 0, 1)));
    }
    spin.joints.push_back(ch);
    rig.clips.push_back(spin);
    app::Document doc;
    doc.setLoaded(app::finishLoadedRig(std::move(rig), rig::RuntimeFormat{}, QString(), QStringLiteral("spin")));
    panels::BonesPanel panel(&doc);
    QVERIFY(showOnScreen(panel));
    doc.setSelectedJoint(lower);
    auto* line = panel.findChild<QLabel*>(QStringLiteral("clipRotation"));
    QVERIFY(line);
    QVERIFY(std::isnan(panel.editor()->clipRotation().z)); // no clip yet
    for (int step = 0; step <= 40; ++step) {
        const double t = 0.1 * step;
        QVERIFY(doc.setClipTime("spin", t));
        const glm::vec3 r = panel.editor()->clipRotation();
        QVERIFY2(std::fabs(r.z - float(90.0 * t)) < 0.05f && std::fabs(r.x) < 0.05f && std::fabs(r.y) < 0.05f,
                 qPrintable(QStringLiteral("t %1: %2 %3 %4").arg(t).arg(r.x).arg(r.y).arg(r.z)));
        if (step == 35)
            QCOMPARE(line->text(), QStringLiteral("Clip: rotate 0.0°, 0.0°, 315.0° (xyz)"));
    }
    QVERIFY(line->isVisible());
    doc.setSelectedJoint(doc.loaded()->rig.skeleton.find("upper"));
    QVERIFY(!line->isVisible());
    // Back on "lower" at 4 s: a new start, the decomposition nearest zero (a whole turn reads 0°).
    doc.setSelectedJoint(lower);
    QVERIFY(std::fabs(panel.editor()->clipRotation().z) < 0.05f);
}

void TestPosingPanels::typedSpinValueIsExactAndUndoable()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("elbow")));
    panels::BonesPanel panel(&doc);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const int lower = doc.loaded()->rig.skeleton.find("lower");
    typeInto(panel.editor()->spinBox(panels::JointEditor::RotateY), QStringLiteral("33.5"));
    QCOMPARE(doc.jointEdit(lower).rotateDeg.y, 33.5f);
    // The resolved pose carries it: the world of `lower` is turned accordingly.
    bool found = false;
    for (const auto& [node, e] : doc.resolvedPose().joints)
        found = found || (node == lower && e.rotateDeg.y == 33.5f);
    QVERIFY(found);
    typeInto(panel.editor()->spinBox(panels::JointEditor::TranslateX), QStringLiteral("0.25"));
    QCOMPARE(doc.jointEdit(lower).translate.x, 0.25f);
    doc.undoStack()->undo();
    QCOMPARE(doc.jointEdit(lower).translate.x, 0.0f);
    QCOMPARE(doc.jointEdit(lower).rotateDeg.y, 33.5f);
    QTest::mouseClick(panel.findChild<QPushButton*>(QStringLiteral("resetJoint")), Qt::LeftButton);
    QVERIFY(doc.jointEdit(lower).isIdentity());
    QCOMPARE(doc.pose().joints.count("lower"), size_t(0)); // an identity edit leaves the pose
}

void TestPosingPanels::scaleIsPerAxis()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("ramp"))); // lesson: root scale (2, 1, 1)
    panels::BonesPanel panel(&doc);
    panel.show();
    const int root = doc.loaded()->rig.skeleton.find("root");
    QCOMPARE(panel.editor()->spinBox(panels::JointEditor::ScaleX)->value(), 2.0);
    typeInto(panel.editor()->spinBox(panels::JointEditor::ScaleZ), QStringLiteral("0.5"));
    QCOMPARE(doc.jointEdit(root).scale, glm::vec3(2.0f, 1.0f, 0.5f));
    // Numbers caught up: the CPU evaluation of this pose (off the GUI thread) says linear is off, inverse-transpose exact.
    QTRY_VERIFY_WITH_TIMEOUT(doc.evaluationCurrent(), 20000);
    QVERIFY(doc.evaluation().stats[size_t(rig::Method::Linear)].normal.max > 10.0);
    RS_COMPARE_NEAR(doc.evaluation().stats[size_t(rig::Method::InverseTranspose)].normal.max, 0.0, 0.01);
}

void TestPosingPanels::unnamedNodesCannotBePosed()
{
    // Two nodes named alike: the second cannot be named by a pose file, so the editor refuses it and says why.
    rig::Rig r = testutil::sample("elbow");
    r.skeleton.nodes[1].name = r.skeleton.nodes[0].name;
    app::Document doc;
    doc.setLoaded(app::finishLoadedRig(std::move(r), rig::RuntimeFormat{}, QString(), QStringLiteral("dup")));
    panels::BonesPanel panel(&doc);
    panel.show();
    doc.setSelectedJoint(1);
    QVERIFY(!doc.isAddressable(1));
    QVERIFY(!panel.editor()->spinBox(panels::JointEditor::RotateX)->isEnabled());
    QVERIFY(panel.findChild<QLabel*>(QStringLiteral("jointTitle"))->text().contains(QStringLiteral("cannot be posed")));
    QVERIFY(!doc.editJoint(1, rig::twistEdit(glm::vec3(1, 0, 0), 30.0f), QStringLiteral("x")));
    QCOMPARE(doc.undoStack()->count(), 0);
}

void TestPosingPanels::presetsActOnTheLessonJointWithoutASelection()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("ramp")));
    panels::BonesPanel panel(&doc);
    doc.setSelectedJoint(-1);
    const int root = doc.loaded()->rig.skeleton.find("root");
    QCOMPARE(panel.editor()->targetJoint(), root);
    panel.editor()->squash(0.6f, 1.3f);
    // root is a leaf at the origin: its bone axis falls back to +X.
    QCOMPARE(doc.jointEdit(root).scale, glm::vec3(0.6f, 1.3f, 1.3f));
    panel.editor()->bend(90.0f);
    // Bend turns +X (the bone) to a perpendicular direction.
    RS_COMPARE_NEAR(glm::dot(rig::eulerXYZ(doc.jointEdit(root).rotateDeg) * glm::vec3(1, 0, 0), glm::vec3(1, 0, 0)), 0.0, 1e-5);
    QCOMPARE(doc.jointEdit(root).scale, glm::vec3(0.6f, 1.3f, 1.3f)); // a preset changes only its part
}

void TestPosingPanels::candyWrapperSweepEndsAt180AboutTheBoneInOneStep()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("twist_tube"))); // lesson: twist at X 150°
    panels::BonesPanel panel(&doc);
    const int twist = doc.loaded()->rig.skeleton.find("twist");
    const int before = doc.undoStack()->count();
    panel.editor()->candyWrapperSweep(0.2);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.editor()->sweepRunning(), 5000);
    QCOMPARE(doc.undoStack()->count(), before + 1);
    // 180° about the bone (+X): y maps to -y, x stays.
    const glm::mat3 r = rig::eulerXYZ(doc.jointEdit(twist).rotateDeg);
    const glm::vec3 y = r * glm::vec3(0, 1, 0), x = r * glm::vec3(1, 0, 0);
    RS_COMPARE_NEAR(y.y, -1.0, 1e-5);
    RS_COMPARE_NEAR(x.x, 1.0, 1e-5);
    doc.undoStack()->undo();
    RS_COMPARE_NEAR(doc.jointEdit(twist).rotateDeg.x, 150.0, 1e-4);
}

void TestPosingPanels::savedPoseReadsBackAndReportsTheSame()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("elbow")));
    panels::BonesPanel panel(&doc);
    typeInto(panel.editor()->spinBox(panels::JointEditor::ScaleY), QStringLiteral("1.7"));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("pose.json"));
    QString error;
    QVERIFY2(panel.savePose(path, &error), qPrintable(error));
    const auto back = rig::readPoseFile(path.toStdString());
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().c_str());
    QCOMPARE(back->joints.size(), doc.pose().joints.size());
    QCOMPARE(back->joints.at("lower").rotateDeg, doc.pose().joints.at("lower").rotateDeg);
    QCOMPARE(back->joints.at("lower").scale, doc.pose().joints.at("lower").scale);
    // `rigscope report --pose` of the saved file gives the numbers the document shows.
    QTRY_VERIFY_WITH_TIMEOUT(doc.evaluationCurrent(), 20000);
    QProcess p;
    p.start(QStringLiteral(RIGSCOPE_BINARY), {QStringLiteral("report"), QStringLiteral("--sample"), QStringLiteral("elbow"),
                                              QStringLiteral("--pose"), path, QStringLiteral("--json"), QStringLiteral("-")});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    const QJsonObject report = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    const double max = report["methods"].toObject()["linear"].toObject()["normal_error_deg"].toObject()["max"].toDouble();
    RS_COMPARE_NEAR(max, doc.evaluation().stats[size_t(rig::Method::Linear)].normal.max, 1e-3);
    // A file that cannot be written: a message naming it, the document untouched.
    QVERIFY(!panel.savePose(dir.filePath(QStringLiteral("missing/dir/pose.json")), &error));
    QVERIFY2(error.contains(QStringLiteral("missing/dir/pose.json")), qPrintable(error));
}

void TestPosingPanels::morphSliderSetsTheWeightByName()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("sheet")));
    doc.editPose(rig::Pose{}, QStringLiteral("rest"));
    panels::MorphPanel panel(&doc);
    panel.resize(360, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QCOMPARE(panel.targetCount(), 4);
    int swirl = -1;
    for (int i = 0; i < panel.targetCount(); ++i)
        if (panel.targetName(i) == QLatin1String("swirl"))
            swirl = i;
    QVERIFY(swirl >= 0);
    const int before = doc.undoStack()->count();
    dragSlider(panel.slider(swirl), 60);
    QVERIFY(doc.pose().morphs.count("swirl"));
    const float w = doc.pose().morphs.at("swirl");
    QVERIFY2(w > 0.05f && w <= 1.0f, qPrintable(QString::number(w)));
    QCOMPARE(doc.undoStack()->count(), before + 1);
    RS_COMPARE_NEAR(doc.resolvedPose().morphWeights[0][size_t(swirl)], w, 1e-6);
    // The spin box allows −1 … 2: typed 1.5 applies as is.
    typeInto(panel.spinBox(swirl), QStringLiteral("1.5"));
    QCOMPARE(doc.pose().morphs.at("swirl"), 1.5f);
    QCOMPARE(panel.slider(swirl)->value(), panel.slider(swirl)->maximum()); // the slider pins at 1
    QTest::mouseClick(panel.findChild<QPushButton*>(QStringLiteral("resetMorphs")), Qt::LeftButton);
    QVERIFY(doc.pose().morphs.empty());
}

void TestPosingPanels::morphFilterHidesOtherTargets()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("sheet")));
    panels::MorphPanel panel(&doc);
    panel.show();
    QTest::keyClicks(panel.filter(), QStringLiteral("TWI"));
    int visible = 0;
    for (int i = 0; i < panel.targetCount(); ++i) {
        QCOMPARE(panel.isRowVisible(i), panel.targetName(i).contains(QStringLiteral("twi"), Qt::CaseInsensitive));
        visible += panel.isRowVisible(i);
    }
    QCOMPARE(visible, 1);
}

void TestPosingPanels::morphSlidersFollowTheClip()
{
    REQUIRE_ASSETS();
    // AnimatedMorphCube animates its two targets; the sliders show the sampled weights at the clip time.
    app::Document doc;
    QVERIFY(openFile(doc, assetQ("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf")));
    panels::MorphPanel panel(&doc);
    panels::TimelinePanel timeline(&doc);
    QVERIFY(panel.targetCount() >= 2);
    const rig::Clip& clip = doc.loaded()->rig.clips.at(0);
    QVERIFY(!clip.morphs.empty());
    const float t = 0.6f * clip.duration;
    QVERIFY(doc.setClipTime("0", t));
    std::vector<float> w(doc.loaded()->rig.meshes[size_t(clip.morphs[0].mesh)].morphTargets.size());
    rig::sampleMorphChannel(clip.morphs[0], w.size(), t, w.data());
    bool moved = false;
    for (int i = 0; i < panel.targetCount(); ++i) {
        RS_COMPARE_NEAR(panel.spinBox(i)->value(), w[size_t(i)], 1e-3);
        moved = moved || std::fabs(w[size_t(i)]) > 0.01f;
    }
    QVERIFY(moved);
}

void TestPosingPanels::timelineScrubSnapsToKeysAndIsNotAnUndoStep()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("twist_tube"))); // clip "twist": keys at 0, 1, 2 s
    panels::TimelinePanel panel(&doc);
    panel.resize(700, 60);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const int before = doc.undoStack()->count();
    // Choose the clip with the keyboard on the combo box.
    panel.clipBox()->setFocus();
    QTest::keyClick(panel.clipBox(), Qt::Key_Down);
    QCOMPARE(doc.pose().clip, std::string("0"));
    QCOMPARE(panel.keyTimes(), (std::vector<float>{0.0f, 1.0f, 2.0f}));
    QVERIFY(panel.slider()->isEnabled());
    // Drag to the far right: the last key.
    dragSlider(panel.slider(), panel.slider()->width());
    QCOMPARE(doc.pose().time, 2.0);
    QCOMPARE(panel.frameLabel()->text(), QStringLiteral("frame 2 / 2"));
    panel.stepKey(-1);
    QCOMPARE(doc.pose().time, 1.0);
    // Between keys, "previous" is the key before.
    QVERIFY(doc.setClipTime("0", 1.5));
    QCOMPARE(panel.frameLabel()->text(), QStringLiteral("frame 1 / 2"));
    panel.stepKey(-1);
    QCOMPARE(doc.pose().time, 1.0);
    QCOMPARE(doc.undoStack()->count(), before); // scrubbing is not an edit
    // The clip's rotation is sampled under the joint edits: the twist joint at t = 1 is the clip's 90° plus the edit.
    QCOMPARE(doc.resolvedPose().clip, 0);
}

void TestPosingPanels::playbackAdvancesAndStopsAtTheEndWithoutLoop()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("twist_tube")));
    panels::TimelinePanel panel(&doc);
    QVERIFY(doc.setClipTime("0", 1.7));
    panel.findChild<QCheckBox*>(QStringLiteral("loop"))->setChecked(false);
    panel.setPlaying(true);
    QVERIFY(panel.isPlaying());
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isPlaying(), 5000);
    QCOMPARE(doc.pose().time, 2.0);
    // With loop, playing from the end wraps back to the start and keeps going.
    panel.findChild<QCheckBox*>(QStringLiteral("loop"))->setChecked(true);
    panel.setPlaying(true);
    QTest::qWait(200);
    QVERIFY(panel.isPlaying());
    QVERIFY2(doc.pose().time < 1.0, qPrintable(QString::number(doc.pose().time)));
    panel.setPlaying(false);
}

void TestPosingPanels::switchingRigsClearsTheUndoHistory()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("elbow")));
    QVERIFY(doc.editJoint(doc.loaded()->rig.skeleton.find("upper"), rig::twistEdit(glm::vec3(1, 0, 0), 20.0f), QStringLiteral("t")));
    QVERIFY(doc.undoStack()->canUndo());
    QVERIFY(doc.openSample(QStringLiteral("ramp")));
    QVERIFY(!doc.undoStack()->canUndo());
    QCOMPARE(doc.undoStack()->count(), 0);
}

QTEST_MAIN(TestPosingPanels)
#include "test_posing_panels.moc"
