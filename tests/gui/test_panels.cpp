// Dock panels against the document: the methods table (model checked by QAbstractItemModelTester), the vertex panel,
// the audit panel.
#include "testutil.h"
#include "gltf_files.h"

#include <cmath>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTableView>
#include <QTreeWidget>

#include "app/document.h"
#include "panels/inspect/audit_panel.h"
#include "panels/inspect/compare_panel.h"
#include "panels/stats/method_stats_model.h"
#include "panels/stats/format_chooser.h"
#include "panels/stats/methods_panel.h"
#include "panels/inspect/vertex_panel.h"
#include "panels/inspect/weights_model.h"
#include "panels/inspect/weights_panel.h"

#include <QClipboard>
#include <QHeaderView>
#include <QSortFilterProxyModel>

class TestPanels : public QObject {
    Q_OBJECT
private slots:
    void methodsTableMatchesTheCpuEvaluation();
    void methodsModelPassesTheTester();
    void vertexPanelShowsRawWeightsAndErrors();
    void auditPanelListsFindingsAndSelectsVertices();
    void formatChooserSkinsEveryMethodWithTheProfile();
    void weightsTableListsTheSelectionsRawWeights();
    void shiftAndCtrlPicksBuildTheSelection();
    void weightsTableOfAFindingOnARealRig();
    void comparePanelFindsTheEditedVertexAndSelectsIt();
};

void TestPanels::comparePanelFindsTheEditedVertexAndSelectsIt()
{
    // Two versions of the strip: vertex 1 goes from root 1 to root 0.6 / tip 0.4. The loaded one is B.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto write = [&](const char* name, const testgltf::StripData& s) {
        const QString path = dir.filePath(QString::fromLatin1(name));
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write(testgltf::strip(s).gltf());
        return path;
    };
    testgltf::StripData edited = testgltf::cleanStrip();
    edited.joints[4 * 1 + 1] = 1;
    edited.weights[4 * 1 + 0] = 0.6f;
    edited.weights[4 * 1 + 1] = 0.4f;
    const QString a = write("a.gltf", testgltf::cleanStrip()), b = write("b.gltf", edited);
    app::Document doc;
    QSignalSpy done(&doc, &app::Document::loadFinished);
    doc.openFile(b);
    QVERIFY(done.wait(20000));
    panels::ComparePanel panel(&doc);
    QVERIFY(!panel.selectChangedButton()->isEnabled());
    QSignalSpy compared(&doc, &app::Document::comparisonChanged);
    doc.compareWith(a);
    QVERIFY(compared.wait(20000));
    const auto c = doc.comparison();
    QVERIFY(c);
    QCOMPARE(c->weightChange->size(), size_t(8));
    RS_COMPARE_NEAR((*c->weightChange)[1], 0.4, 1e-6);
    for (size_t v = 0; v < 8; ++v)
        if (v != 1)
            QCOMPARE((*c->weightChange)[v], 0.0f);
    QCOMPARE(*c->changedVertices, std::vector<uint32_t>{1});
    QCOMPARE(doc.display().shading, app::Shading::WeightChange);
    QVERIFY2(panel.summary()->text().contains(QStringLiteral("<b>1</b> vertices")), qPrintable(panel.summary()->text()));
    QCOMPARE(panel.joints()->rowCount(), 2); // root lost 0.4, tip gained it
    QCOMPARE(panel.joints()->item(0, 2)->text(), QStringLiteral("0.400"));
    QVERIFY(panel.selectChangedButton()->isEnabled());
    panel.selectChangedButton()->click();
    QCOMPARE(*doc.selectionSet().vertices, std::vector<uint32_t>{1});

    // A file that cannot be read: the comparison fails naming it and the old one stays.
    QSignalSpy failed(&doc, &app::Document::comparisonFailed);
    doc.compareWith(dir.filePath(QStringLiteral("absent.gltf")));
    QVERIFY(failed.wait(20000));
    QVERIFY(failed.front().at(0).toString().contains(QStringLiteral("absent.gltf")));
    QVERIFY(doc.comparison() == c);
    // Another rig drops it, and the heatmap with it.
    QVERIFY(doc.openSample(QStringLiteral("ramp")));
    QVERIFY(!doc.comparison());
    QVERIFY(doc.display().shading != app::Shading::WeightChange);
    QVERIFY(!panel.selectChangedButton()->isEnabled());
}

void TestPanels::methodsTableMatchesTheCpuEvaluation()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("ramp")));
    panels::MethodsPanel panel(&doc);
    rig::Pose pose;
    pose.joints["root"].scale = glm::vec3(2, 1, 1);
    QVERIFY(doc.setPose(pose));
    // The evaluation runs off the GUI thread; wait for the result of the current pose.
    QTRY_VERIFY_WITH_TIMEOUT(panel.model()->rowCount() == rig::kMethodCount &&
                                 panel.model()->data(panel.model()->index(1, panels::MethodStatsModel::ColNormalMax), Qt::UserRole).toDouble() > 30.0,
                             20000);
    const panels::MethodStatsModel* m = panel.model();
    for (int row = 0; row < m->rowCount(); ++row) {
        const rig::Method method = m->methodAt(row);
        const double max = m->data(m->index(row, panels::MethodStatsModel::ColNormalMax), Qt::UserRole).toDouble();
        if (method == rig::Method::Linear)
            RS_COMPARE_NEAR(max, 36.8699, 0.01);
        if (method == rig::Method::Cofactor || method == rig::Method::InverseTranspose)
            RS_COMPARE_NEAR(max, 0.0, 0.01);
    }
    // A click on a row selects that method in the document.
    QCOMPARE(m->data(m->index(4, 0)).toString(), QStringLiteral("cofactor"));
    panel.resize(900, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTableView* table = panel.findChild<QTableView*>(QStringLiteral("methodsTable"));
    QVERIFY(table);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, Qt::NoModifier, table->visualRect(m->index(4, 0)).center());
    QCOMPARE(doc.display().method, rig::Method::Cofactor);
}

void TestPanels::methodsModelPassesTheTester()
{
    panels::MethodStatsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const rig::Rig rg = testutil::sample("elbow");
    const rig::RigRuntime rt = rig::buildRuntime(rg, 4);
    rig::Pose pose;
    pose.joints["lower"].rotateDeg = glm::vec3(0, 0, 60);
    rig::Evaluation eval;
    rig::evaluate(rg, rt, rig::resolvePose(rg, pose).value(), rig::allMethods(), {}, eval);
    model.setEvaluation(eval);
    QCOMPARE(model.rowCount(), rig::kMethodCount);
    QCOMPARE(model.columnCount(), int(panels::MethodStatsModel::ColumnCount));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    model.setEvaluation(eval);
    const double linearMean = model.data(model.index(1, panels::MethodStatsModel::ColNormalMean), Qt::UserRole).toDouble();
    RS_COMPARE_NEAR(linearMean, eval.stats[size_t(rig::Method::Linear)].normal.mean, 1e-9);
}

void TestPanels::vertexPanelShowsRawWeightsAndErrors()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("twist_tube")));
    panels::VertexPanel panel(&doc);
    QVERIFY(panel.text().contains(QStringLiteral("Click")));
    // A vertex on the x = 1 ring: 0.5 / 0.5.
    const rig::Mesh& mesh = doc.loaded()->rig.meshes[0];
    int ring = -1;
    for (size_t v = 0; v < mesh.vertexCount(); ++v)
        if (std::fabs(mesh.positions[v].x - 1.0f) < 1e-6f) {
            ring = int(v);
            break;
        }
    QVERIFY(ring >= 0);
    doc.setSelectedVertex(ring);
    const QString text = panel.text();
    // As authored and as the runtime skins with it (both 0.5 / 0.5 here), each with its sum.
    const QRegularExpression root(QStringLiteral("root\\s+0\\.5\\b")), twist(QStringLiteral("twist\\s+0\\.5\\b"));
    QCOMPARE(text.count(root), 2);
    QCOMPARE(text.count(twist), 2);
    QVERIFY2(text.contains(QStringLiteral("Raw influences")) && text.contains(QStringLiteral("Runtime")), qPrintable(text));
    // Every method's errors at the vertex, once the background evaluation is in.
    QTRY_VERIFY_WITH_TIMEOUT(doc.evaluationCurrent(), 20000);
    const QString withErrors = panel.text();
    for (rig::Method m : rig::allMethods())
        QVERIFY2(withErrors.contains(QString::fromLatin1(rig::methodId(m).data())), qPrintable(withErrors));

    // Why: twisted 150° about the bone, the ring at x = 0.9 (0.6 / 0.4) keeps |0.6 + 0.4 e^{i150°}| = 0.323 of its
    // cross-section under linear blending: collapse (README "Error causes"). (The 0.5 / 0.5 ring itself is the
    // narrowest, so its normal stays radial and right.) At rest it is within 5°: nothing to explain.
    QVERIFY2(withErrors.contains(QStringLiteral("Why (linear): within 5°")), qPrintable(withErrors));
    rig::Pose pose;
    pose.joints["twist"].rotateDeg = glm::vec3(150.0f, 0.0f, 0.0f);
    int before = -1;
    for (size_t v = 0; v < mesh.vertexCount() && before < 0; ++v)
        if (std::fabs(mesh.positions[v].x - 0.9f) < 1e-6f)
            before = int(v);
    QVERIFY(before >= 0);
    doc.setSelectedVertex(before);
    QSignalSpy evaluated(&doc, &app::Document::evaluationChanged);
    QVERIFY(doc.setPose(pose));
    QTRY_VERIFY_WITH_TIMEOUT(evaluated.count() > 0 && doc.evaluationCurrent(), 20000);
    const QString why = panel.text();
    QVERIFY2(why.contains(QStringLiteral("Why (linear): collapse: linear blending keeps 0.323 of the neighbourhood")), qPrintable(why));
    // Dual quaternions put the ring at its radius, turned by α = 2 atan2(0.4 sin 75°, 0.6 + 0.4 cos 75°); linear
    // blending at 0.6 + 0.4 e^{i150°} of it: |e^{iα} − (0.6 + 0.4 e^{i150°})| of the limb radius (0.25: the bone root ->
    // twist passes through the ring's centre).
    const double pi = 3.14159265358979323846, h = 75.0 * pi / 180.0;
    const double alpha = 2.0 * std::atan2(0.4 * std::sin(h), 0.6 + 0.4 * std::cos(h));
    const double gap = std::hypot(std::cos(alpha) - (0.6 + 0.4 * std::cos(2 * h)), std::sin(alpha) - 0.4 * std::sin(2 * h));
    QVERIFY2(why.contains(QStringLiteral("/ 0.25 (%1 of it)").arg(gap, 0, 'f', 3)), qPrintable(why + QString::number(gap)));
    // dual-quaternion keeps the ring: its error there is not a collapse.
    doc.setMethod(rig::Method::DualQuaternion);
    QTest::qWait(10);
    QVERIFY2(!panel.text().contains(QStringLiteral("Why (dual-quaternion): collapse")), qPrintable(panel.text()));
}

void TestPanels::auditPanelListsFindingsAndSelectsVertices()
{
    REQUIRE_ASSETS();
    app::Document doc;
    QSignalSpy done(&doc, &app::Document::loadFinished);
    doc.openFile(QString::fromStdString(testutil::assetPath("CesiumMan/cesium_man.gltf")));
    QVERIFY(done.wait(20000));
    panels::AuditPanel panel(&doc);
    panel.resize(700, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QVERIFY(panel.findingCount() >= 1);
    const rig::AuditFinding* f = doc.loaded()->audit.find("weights-not-normalised");
    QVERIFY(f);
    QCOMPARE(f->count, size_t(210));
    // Click the finding's row: all 210 vertices become the selection set, the first one selected.
    QTreeWidget* tree = panel.tree();
    QTreeWidgetItem* item = nullptr;
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        if (tree->topLevelItem(i)->text(1) == QLatin1String("weights-not-normalised"))
            item = tree->topLevelItem(i);
    QVERIFY(item);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, Qt::NoModifier, tree->visualItemRect(item).center());
    const app::SelectionSet& set = doc.selectionSet();
    QCOMPARE(set.size(), size_t(210));
    // The set is the finding's vertices (one mesh: global = local), each one off one by more than the tolerance.
    QCOMPARE(*set.vertices, f->indices);
    const rig::Mesh& m = doc.loaded()->rig.meshes[0];
    for (uint32_t v : *set.vertices) {
        double sum = 0.0;
        for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i)
            sum += m.influences[i].weight;
        QVERIFY2(std::fabs(sum - 1.0) > 1e-6, qPrintable(QString::number(sum)));
    }
    QCOMPARE(doc.selectedVertex(), int((*set.vertices)[0]));
    // Next / Previous step through them (wrapping).
    QTest::mouseClick(panel.nextButton(), Qt::LeftButton);
    QCOMPARE(doc.selectedVertex(), int((*set.vertices)[1]));
    QVERIFY(panel.cursorLabel()->text().contains(QStringLiteral("2 of 210")));
    QTest::mouseClick(panel.previousButton(), Qt::LeftButton);
    QTest::mouseClick(panel.previousButton(), Qt::LeftButton);
    QCOMPARE(doc.selectedVertex(), int((*set.vertices)[209]));
    // Activating (Enter) asks the window to frame them.
    QSignalSpy frame(&panel, &panels::AuditPanel::frameRequested);
    tree->setFocus();
    QTest::keyClick(tree, Qt::Key_Return);
    QCOMPARE(frame.count(), 1);
}

void TestPanels::formatChooserSkinsEveryMethodWithTheProfile()
{
    // The lift strip in its lesson pose (the lift joint raised 0.6; w_lift = x / 2): as floats the vertex at x = 1
    // sits at y = 0.3; with Unity's one bone per vertex it keeps the base (the 0.5 tie goes to the authored first
    // joint) and stays at y = 0.
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("lift_strip")));
    panels::FormatChooser panel(&doc);
    const rig::Mesh& mesh = doc.loaded()->rig.meshes[0];
    size_t tie = 0;
    while (tie < mesh.vertexCount() && mesh.positions[tie].x != 1.0f)
        ++tie;
    QVERIFY(tie < mesh.vertexCount());
    QTRY_VERIFY_WITH_TIMEOUT(doc.evaluationCurrent() && !doc.evaluation().meshes.empty(), 20000);
    QVERIFY(std::fabs(doc.evaluation().meshes[0].linear.positions[tie].y - 0.3f) < 1e-6f);

    QComboBox* box = panel.findChild<QComboBox*>(QStringLiteral("formatBox"));
    QVERIFY(box);
    QCOMPARE(box->currentData().toString(), QStringLiteral("float32"));
    QSignalSpy rebuilt(&doc, &app::Document::rigChanged);
    const int unity1 = box->findData(QStringLiteral("unity-1"));
    QVERIFY(unity1 >= 0);
    box->setCurrentIndex(unity1);
    emit box->activated(unity1);
    QCOMPARE(doc.display().profile, std::string("unity-1"));
    QVERIFY(rebuilt.wait(20000)); // the runtime is rebuilt off the GUI thread
    QCOMPARE(doc.loaded()->runtime.format.influences, 1);
    QTRY_VERIFY_WITH_TIMEOUT(doc.evaluationCurrent() && !doc.evaluation().meshes.empty() &&
                                 std::fabs(doc.evaluation().meshes[0].linear.positions[tie].y) < 1e-6f,
                             20000);
    // Bytes per vertex: position, normal and tangent (40), one 32-bit index, no weight, one 3×4 matrix (48); dual
    // quaternions gather a quaternion pair and a stretch (68) instead.
    QLabel* bytes = panel.findChild<QLabel*>(QStringLiteral("formatBytes"));
    QVERIFY(bytes);
    QCOMPARE(bytes->text(), QStringLiteral("92 B/vertex"));
    doc.setMethod(rig::Method::DualQuaternion);
    QCOMPARE(bytes->text(), QStringLiteral("112 B/vertex"));

    // A format set by hand shows as Custom.
    app::DisplaySettings d = doc.display();
    d.format = rig::RuntimeFormat{2, rig::WeightEncoding::Unorm8};
    d.profile = "custom";
    doc.setDisplay(d);
    QCOMPARE(box->currentText(), QStringLiteral("Custom: 2 × unorm8"));
}

void TestPanels::weightsTableListsTheSelectionsRawWeights()
{
    // The twist tube's rings k = 0, 20, 25, 30 of the first column (vertex = k): twist weighs clamp((k − 10) / 20, 0, 1)
    // and root the rest; a zero weight is not stored, so its cell is empty.
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("twist_tube")));
    panels::WeightsPanel panel(&doc);
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(panel.model()->rowCount(), 0);
    app::SelectionSet set;
    set.label = QStringLiteral("test");
    set.vertices = std::make_shared<const std::vector<uint32_t>>(std::vector<uint32_t>{0, 20, 25, 30});
    doc.setSelectionSet(set);
    const panels::WeightsModel* m = panel.model();
    QCOMPARE(m->rowCount(), 4);
    QCOMPARE(m->columnCount(), 6);
    QStringList headers;
    for (int c = 0; c < m->columnCount(); ++c)
        headers << m->headerData(c, Qt::Horizontal).toString();
    QCOMPARE(headers, (QStringList{"Mesh", "Vertex", "root", "twist", "Σw", "Influences"}));
    const QString csv = m->toText(QLatin1Char(','));
    QCOMPARE(csv, QStringLiteral("Mesh,Vertex,root,twist,Σw,Influences\n"
                                 "twist_tube,0,1.0000,,1.0000,1\n"
                                 "twist_tube,20,0.5000,0.5000,1.0000,2\n"
                                 "twist_tube,25,0.2500,0.7500,1.0000,2\n"
                                 "twist_tube,30,,1.0000,1.0000,1\n"));
    QCOMPARE(m->toText(QLatin1Char('\t')).section(QLatin1Char('\n'), 2, 2), QStringLiteral("twist_tube\t20\t0.5000\t0.5000\t1.0000\t2"));
    // Sorted by the twist column, largest first: the rows follow, and so does the copy.
    panel.view()->sortByColumn(3, Qt::DescendingOrder);
    QCOMPARE(panel.tableText(QLatin1Char(',')).section(QLatin1Char('\n'), 1, 1), QStringLiteral("twist_tube,30,,1.0000,1.0000,1"));
    QCOMPARE(panel.tableText(QLatin1Char(',')).section(QLatin1Char('\n'), 4, 4), QStringLiteral("twist_tube,0,1.0000,,1.0000,1"));
    // A click on a row picks its vertex.
    panel.resize(600, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy framed(&panel, &panels::WeightsPanel::frameVertexRequested);
    const QModelIndex second = panel.view()->model()->index(1, 0); // vertex 25 in this order
    QTest::mouseClick(panel.view()->viewport(), Qt::LeftButton, Qt::NoModifier, panel.view()->visualRect(second).center());
    QCOMPARE(doc.selectedVertex(), 25);
    QCOMPARE(framed.count(), 1);
    QCOMPARE(framed.at(0).at(0).value<uint32_t>(), 25u);
    // The copy button puts the table on the clipboard (the selected row: the one clicked).
    panel.findChild<QPushButton*>(QStringLiteral("copyCsv"))->click();
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("Mesh,Vertex,root,twist,Σw,Influences\ntwist_tube,25,0.2500,0.7500,1.0000,2\n"));
    // No selection: no rows.
    doc.setSelectionSet(app::SelectionSet{});
    QCOMPARE(m->rowCount(), 0);
}

void TestPanels::shiftAndCtrlPicksBuildTheSelection()
{
    app::Document doc;
    QVERIFY(doc.openSample(QStringLiteral("twist_tube")));
    doc.setSelectedVertex(7);
    doc.addToSelectionSet(3); // a click on 7, then Shift+click on 3: both
    QCOMPARE(*doc.selectionSet().vertices, (std::vector<uint32_t>{3, 7}));
    QCOMPARE(doc.selectionSet().label, QStringLiteral("picked vertices"));
    QCOMPARE(doc.selectedVertex(), 3);
    doc.addToSelectionSet(9);
    doc.addToSelectionSet(3); // already in: once
    QCOMPARE(*doc.selectionSet().vertices, (std::vector<uint32_t>{3, 7, 9}));
    doc.toggleInSelectionSet(7); // Ctrl+click: out
    QCOMPARE(*doc.selectionSet().vertices, (std::vector<uint32_t>{3, 9}));
    doc.toggleInSelectionSet(12); // Ctrl+click: in
    QCOMPARE(*doc.selectionSet().vertices, (std::vector<uint32_t>{3, 9, 12}));
    QCOMPARE(doc.selectedVertex(), 12);
    doc.toggleInSelectionSet(3);
    doc.toggleInSelectionSet(9);
    doc.toggleInSelectionSet(12);
    QVERIFY(doc.selectionSet().empty());
    QCOMPARE(doc.selectedVertex(), -1);
    doc.addToSelectionSet(int(doc.loaded()->rig.vertexCount())); // out of range: nothing
    QVERIFY(doc.selectionSet().empty());
}

void TestPanels::weightsTableOfAFindingOnARealRig()
{
    REQUIRE_ASSETS();
    // CesiumMan's weights-not-normalised finding (210 vertices): the table's Σw column is each vertex's raw sum
    // (computed here from the file's influences), none of them 1 within the validator's tolerance.
    app::Document doc;
    QSignalSpy done(&doc, &app::Document::loadFinished);
    doc.openFile(QString::fromStdString(testutil::assetPath("CesiumMan/cesium_man.gltf")));
    QVERIFY(done.wait(20000));
    panels::AuditPanel audit(&doc);
    panels::WeightsPanel panel(&doc);
    QTreeWidget* tree = audit.tree();
    QTreeWidgetItem* finding = nullptr;
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
        if (tree->topLevelItem(i)->text(1) == QLatin1String("weights-not-normalised"))
            finding = tree->topLevelItem(i);
    QVERIFY(finding);
    tree->setCurrentItem(finding);
    const panels::WeightsModel* m = panel.model();
    QCOMPARE(m->rowCount(), 210);
    const rig::Mesh& mesh = doc.loaded()->rig.meshes[0];
    for (int r = 0; r < m->rowCount(); ++r) {
        const uint32_t v = m->vertexAt(r);
        double sum = 0.0;
        for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i)
            sum += mesh.influences[i].weight;
        QCOMPARE(m->data(m->index(r, m->sumColumn()), panels::WeightsModel::kSortRole).toDouble(), sum);
        QVERIFY(std::fabs(sum - 1.0) > 2e-7);
    }
    QVERIFY(m->columnCount() > 4);
}

QTEST_MAIN(TestPanels)
#include "test_panels.moc"
