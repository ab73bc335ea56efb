// The Diagnosis dock against the document, on the built-in tube whose numbers are known in closed form: the
// candy-wrapper bands of the current pose (a click selects the band, the joint that turns and frames them) and the
// weight-band checks (a click selects the vertices of a check or of one joint pair).
#include "testutil.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QLineSeries>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTreeWidget>
#include <QUndoStack>

#include <set>

#include "app/document.h"
#include "panels/diagnosis/blend_bands_model.h"
#include "panels/diagnosis/diagnosis_panel.h"
#include "panels/diagnosis/twist_sweep_view.h"
#include "panels/diagnosis/worst_frame_view.h"

class TestDiagnosisPanel : public QObject {
    Q_OBJECT
private slots:
    void candyBandsOfATwistedTubeAreTheClosedFormAndAClickSelectsTheBand();
    void bandStaysChosenAsThePoseChanges();
    void weightTreeListsAHardBoundaryAndSelectsItsTwoRings();
    void twistSweepPlotsCosHalfTheAngleForLinearAndOneForDualQuaternionsAndCentresOfRotation();
    void worstFrameOfTheTwistClipIsItsLastKeyAndAClickGoesThere();
};

namespace {

/// The tube twisted `degrees` about its bone (x), every evaluation current.
bool twistTube(app::Document& doc, float degrees)
{
    rig::Pose pose;
    pose.joints["twist"].rotateDeg = glm::vec3(degrees, 0.0f, 0.0f);
    if (!doc.setPose(pose))
        return false;
    return QTest::qWaitFor([&] { return doc.evaluationCurrent(); }, 20000);
}

/// The tube's twist weight at a bind position: clamp((x − 0.5) / 1, 0, 1) (rig/model/samples.cpp).
double twistWeight(const glm::vec3& p) { return std::clamp(double(p.x) - 0.5, 0.0, 1.0); }

} // namespace

void TestDiagnosisPanel::candyBandsOfATwistedTubeAreTheClosedFormAndAClickSelectsTheBand()
{
    // A vertex weighted (1 − w, w) between joints turned θ apart about x keeps |(1 − w) + w e^{iθ}| of its
    // cross-section. At θ = 90°: √((1 − w)² + w²), 0.7071 at w = 0.5; below 0.9 for w in (0.106, 0.894). The tube's
    // weights step by 0.05 over its 33 columns, so 19 rings (w = 0.05 … 0.95) blend and 15 of them (0.15 … 0.85)
    // lose more than 10 %; none loses 30 %.
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("twist_tube")));
    panels::DiagnosisPanel panel(&doc);
    QAbstractItemModelTester tester(panel.bandsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.resize(700, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(twistTube(doc, 90.0f));
    const rig::Rig& rig = doc.loaded()->rig;
    panels::BlendBandsModel* model = panel.bandsModel();
    QCOMPARE(model->rowCount(), 1);
    const rig::BlendBand* band = model->band(0);
    QCOMPARE(band->nodeA, rig.skeleton.find("root"));
    QCOMPARE(band->nodeB, rig.skeleton.find("twist"));
    QCOMPARE(band->vertices, size_t(19 * 33));
    QCOMPARE(band->below09, size_t(15 * 33));
    QCOMPARE(band->below07, size_t(0));
    QVERIFY2(std::fabs(band->worstScale - std::sqrt(0.5f)) < 1e-4f, qPrintable(QString::number(band->worstScale)));
    const int worst = model->worstVertex(0);
    QVERIFY(worst >= 0);
    QCOMPARE(twistWeight(rig.meshes[0].positions[size_t(worst)]), 0.5);
    QCOMPARE(model->data(model->index(0, panels::BlendBandsModel::Joints)).toString(), QStringLiteral("root / twist"));
    QCOMPARE(model->data(model->index(0, panels::BlendBandsModel::WorstScale)).toString(), QStringLiteral("0.707"));
    QVERIFY2(panel.summary()->text().contains(QStringLiteral("0.707")), qPrintable(panel.summary()->text()));

    // A click: the band's 627 vertices (every one strictly between the two joints' own parts), its worst vertex the
    // current one, the twisting joint selected, and the window asked to frame them.
    QSignalSpy frame(&panel, &panels::DiagnosisPanel::frameRequested);
    QTableView* view = panel.bandsView();
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, view->visualRect(view->model()->index(0, 0)).center());
    const app::SelectionSet& set = doc.selectionSet();
    QCOMPARE(set.size(), size_t(19 * 33));
    for (uint32_t v : *set.vertices) {
        const double w = twistWeight(rig.meshes[0].positions[v]);
        QVERIFY2(w > 0.0 && w < 1.0, qPrintable(QString::number(w)));
    }
    QCOMPARE(doc.selectedVertex(), worst);
    QCOMPARE(doc.selectedJoint(), rig.skeleton.find("twist"));
    QCOMPARE(frame.count(), 1);

    // At 180° the middle ring collapses to the axis: scale 0.
    QVERIFY(twistTube(doc, 180.0f));
    QCOMPARE(model->rowCount(), 1);
    QVERIFY2(model->band(0)->worstScale < 1e-4f, qPrintable(QString::number(model->band(0)->worstScale)));

    // The Scale Heatmap button switches the view to the scale loss and back.
    auto* heatmap = panel.findChild<QPushButton*>(QStringLiteral("candyHeatmap"));
    QVERIFY(heatmap);
    QTest::mouseClick(heatmap, Qt::LeftButton);
    QVERIFY(doc.display().shading == app::Shading::BlendScale);
    QTest::mouseClick(heatmap, Qt::LeftButton);
    QVERIFY(doc.display().shading == app::Shading::Lit);
}

void TestDiagnosisPanel::bandStaysChosenAsThePoseChanges()
{
    // The rows are rebuilt with every evaluation; the chosen band stays the current row, and the rebuild selects
    // nothing anew (the selection set is the user's).
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("twist_tube")));
    panels::DiagnosisPanel panel(&doc);
    QVERIFY(twistTube(doc, 60.0f));
    panel.selectBand(0);
    QCOMPARE(doc.selectionSet().size(), size_t(19 * 33));
    doc.setSelectionSet(app::SelectionSet{}); // the user clears it
    QVERIFY(twistTube(doc, 120.0f));
    QVERIFY(doc.selectionSet().empty());
    const QModelIndex current = panel.bandsView()->currentIndex();
    QVERIFY(current.isValid());
    QCOMPARE(current.row(), 0);
    // cos(60°) = 0.5 at the 0.5 / 0.5 ring at 120°.
    QVERIFY2(std::fabs(panel.bandsModel()->band(0)->worstScale - 0.5f) < 1e-4f,
             qPrintable(QString::number(panel.bandsModel()->band(0)->worstScale)));
}

void TestDiagnosisPanel::weightTreeListsAHardBoundaryAndSelectsItsTwoRings()
{
    // The tube with its weights made a step: root alone up to x = 1, twist alone after. Every edge between the rings
    // at x = 1 and x = 1.05 is a hard boundary (counted here from the triangles), and those two rings of 33 are its
    // vertices; no other check finds anything.
    rig::Rig rig = testutil::sample("twist_tube");
    rig::Mesh& mesh = rig.meshes[0];
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
        const bool root = mesh.positions[v].x <= 1.0f + 1e-6f;
        for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i)
            mesh.influences[i].weight = (mesh.influences[i].joint == 0) == root ? 1.0f : 0.0f;
    }
    std::set<std::pair<uint32_t, uint32_t>> crossing;
    for (size_t t = 0; t + 3 <= mesh.indices.size(); t += 3)
        for (int c = 0; c < 3; ++c) {
            const uint32_t a = mesh.indices[t + size_t(c)], b = mesh.indices[t + size_t((c + 1) % 3)];
            const float xa = mesh.positions[a].x, xb = mesh.positions[b].x;
            if ((xa <= 1.0f + 1e-6f) != (xb <= 1.0f + 1e-6f))
                crossing.insert({std::min(a, b), std::max(a, b)});
        }
    QVERIFY(crossing.size() >= 33);
    app::Document doc;
    doc.setLoaded(app::finishLoadedRig(std::move(rig), rig::RuntimeFormat{}, QString(), QStringLiteral("step tube")));
    panels::DiagnosisPanel panel(&doc);
    panel.resize(700, 400);
    panel.tabs()->setCurrentIndex(1);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTreeWidget* tree = panel.weightTree();
    QCOMPARE(tree->topLevelItemCount(), 3);
    QTreeWidgetItem* hard = tree->topLevelItem(0);
    QCOMPARE(hard->text(1), QStringLiteral("%1 edges").arg(crossing.size()));
    QCOMPARE(hard->text(2), QStringLiteral("66"));
    QCOMPARE(hard->childCount(), 1);
    QCOMPARE(hard->child(0)->text(0), QStringLiteral("root ↔ twist"));
    QCOMPARE(tree->topLevelItem(1)->text(1), QStringLiteral("0 vertices"));
    QCOMPARE(tree->topLevelItem(1)->childCount(), 0);

    QSignalSpy frame(&panel, &panels::DiagnosisPanel::frameRequested);
    for (QTreeWidgetItem* item : {hard, hard->child(0)}) {
        doc.setSelectionSet(app::SelectionSet{});
        tree->scrollToItem(item);
        QTest::mouseClick(tree->viewport(), Qt::LeftButton, Qt::NoModifier, tree->visualItemRect(item).center());
        const app::SelectionSet& set = doc.selectionSet();
        QCOMPARE(set.size(), size_t(66));
        for (uint32_t v : *set.vertices) {
            const float x = doc.loaded()->rig.meshes[0].positions[v].x;
            QVERIFY2(std::fabs(x - 1.0f) < 1e-5f || std::fabs(x - 1.05f) < 1e-5f, qPrintable(QString::number(x)));
        }
    }
    QCOMPARE(frame.count(), 2);
    QCOMPARE(doc.selectedJoint(), doc.loaded()->rig.skeleton.find("root")); // the pair's first joint
}

void TestDiagnosisPanel::twistSweepPlotsCosHalfTheAngleForLinearAndOneForDualQuaternionsAndCentresOfRotation()
{
    // Sweep the tube's "twist" joint from the tab: off the GUI thread, then 37 points a line of the band's narrowest
    // radius, linear blending's on cos(θ / 2) (the 0.5 / 0.5 ring is the band's worst), dual quaternions' and centres
    // of rotation's at 1; the dashed reference is the formula itself.
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("twist_tube")));
    panels::DiagnosisPanel panel(&doc);
    panel.resize(700, 400);
    panel.tabs()->setCurrentIndex(2);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panels::TwistSweepView* sweep = panel.sweepView();
    doc.setSelectedJoint(-1);
    QVERIFY(!sweep->button()->isEnabled());
    const int twist = doc.loaded()->rig.skeleton.find("twist");
    doc.setSelectedJoint(twist);
    QVERIFY(sweep->button()->isEnabled());
    const glm::vec3 before = doc.jointEdit(twist).rotateDeg;
    const int undoSteps = doc.undoStack()->count();
    QSignalSpy finished(sweep, &panels::TwistSweepView::finished);
    QTest::mouseClick(sweep->button(), Qt::LeftButton);
    QVERIFY(finished.wait(20000));
    QVERIFY(sweep->result());
    QCOMPARE(sweep->result()->vertices, size_t(19 * 33));
    QCOMPARE(sweep->linearSeries()->count(), 37);
    QCOMPARE(sweep->dualQuaternionSeries()->count(), 37);
    QCOMPARE(sweep->centerOfRotationSeries()->count(), 37);
    QCOMPARE(sweep->referenceSeries()->count(), 37);
    for (int i = 0; i < 37; ++i) {
        const QPointF l = sweep->linearSeries()->at(i), d = sweep->dualQuaternionSeries()->at(i);
        const QPointF c = sweep->centerOfRotationSeries()->at(i);
        QVERIFY2(std::fabs(c.y() - 1.0) < 1e-4, qPrintable(QString::number(c.y())));
        QCOMPARE(l.x(), 5.0 * i);
        QVERIFY2(std::fabs(l.y() - std::cos(l.x() * 3.14159265358979323846 / 360.0)) < 2e-5, qPrintable(QString::number(l.y())));
        QVERIFY2(std::fabs(d.y() - 1.0) < 2e-5, qPrintable(QString::number(d.y())));
    }
    QTest::qWait(50);
    panel.grab().save(QDir::temp().filePath(QStringLiteral("rigscope-test-twist-sweep.png"))); // to look at
    // The sweep turned a copy of the pose: the document's is as it was, and no undo step was made.
    QCOMPARE(doc.jointEdit(twist).rotateDeg, before);
    QCOMPARE(doc.undoStack()->count(), undoSteps);
}

void TestDiagnosisPanel::worstFrameOfTheTwistClipIsItsLastKeyAndAClickGoesThere()
{
    // The tube's clip turns "twist" 0°, 90°, 180° at 0, 1, 2 s. Scanned from the tab: three frames; linear blending
    // keeps least (0: the even ring on the axis) at 2 s between root and twist, and every method has its row. A click
    // on the scale row plays the clip to 2 s and selects and frames that vertex (on the ring at x = 1).
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("twist_tube")));
    panels::DiagnosisPanel panel(&doc);
    panel.resize(700, 400);
    panel.tabs()->setCurrentIndex(3);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panels::WorstFrameView* view = panel.worstFrameView();
    QVERIFY(doc.setPose(rig::Pose{})); // not the lesson pose's edit: the clip alone
    QVERIFY(doc.setClipTime("", 0.0));
    QVERIFY(!view->button()->isEnabled()); // no clip
    QVERIFY(doc.setClipTime("twist", 0.5));
    QVERIFY(view->button()->isEnabled());
    QSignalSpy finished(view, &panels::WorstFrameView::finished);
    QTest::mouseClick(view->button(), Qt::LeftButton);
    QVERIFY(finished.wait(20000));
    QVERIFY(view->result());
    QCOMPARE(view->result()->times, (std::vector<float>{0.0f, 1.0f, 2.0f}));
    QTreeWidget* list = view->list();
    QCOMPARE(list->topLevelItemCount(), int(rig::kMethodCount)); // the scale, and every method but the reference
    QTreeWidgetItem* scale = list->topLevelItem(0);
    QCOMPARE(scale->text(0), QStringLiteral("linear-blend scale (root / twist)"));
    QCOMPARE(scale->text(1), QStringLiteral("0.000"));
    QCOMPARE(scale->text(2), QStringLiteral("2.000 s"));
    panel.grab().save(QDir::temp().filePath(QStringLiteral("rigscope-test-worst-frame.png"))); // to look at
    QCOMPARE(doc.pose().time, 0.5); // scanning moved nothing
    QSignalSpy frame(&panel, &panels::DiagnosisPanel::frameRequested);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, Qt::NoModifier, list->visualItemRect(scale).center());
    QCOMPARE(doc.pose().clip, std::string("twist"));
    QCOMPARE(doc.pose().time, 2.0);
    QCOMPARE(doc.selectionSet().size(), size_t(1));
    QCOMPARE(doc.loaded()->rig.meshes[0].positions[doc.selectionSet().currentVertex()].x, 1.0f);
    QCOMPARE(doc.selectedVertex(), int(doc.selectionSet().currentVertex()));
    QCOMPARE(frame.count(), 1);
}

QTEST_MAIN(TestDiagnosisPanel)
#include "test_diagnosis_panel.moc"
