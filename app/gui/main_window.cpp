#include "app/gui/main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QPixmap>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>

#include <algorithm>
#include <cmath>
#include <limits>

#include <assimp/version.h>

#include "app/document.h"
#include "rig/io/pose_file.h"
#include "panels/stats/format_chooser.h"
#include "panels/animation/morph_panel.h"
#include "panels/animation/timeline_panel.h"
#include "panels/diagnosis/diagnosis_panel.h"
#include "panels/inspect/audit_panel.h"
#include "panels/inspect/compare_panel.h"
#include "panels/inspect/vertex_panel.h"
#include "panels/skeleton/bones_panel.h"
#include "panels/stats/methods_panel.h"
#include "rig/model/joint_tools.h"
#include "rig/io/import.h"
#include "rig/model/samples.h"
#include "viewer/picking.h"
#include "panels/inspect/weights_panel.h"
#include "viewer/viewport.h"

namespace app {

namespace {
constexpr int kMaxRecent = 10;
constexpr int kFrameSelectionTag = 1;
const char* kRecentKey = "recentFiles";
} // namespace

MainWindow::MainWindow(Document* doc, const QString& api, QWidget* parent) : QMainWindow(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("RigScopeMainWindow"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);

    m_viewport = new viewer::Viewport(api == QLatin1String("opengl") ? viewer::Viewport::Api::OpenGL
                                                                     : viewer::Viewport::Api::Vulkan);
    m_viewportContainer = QWidget::createWindowContainer(m_viewport, this);
    m_viewportContainer->setObjectName(QStringLiteral("viewportContainer"));
    m_viewportContainer->setMinimumSize(320, 240);
    m_viewportContainer->setFocusPolicy(Qt::StrongFocus);
    setCentralWidget(m_viewportContainer);

    m_statusFile = new QLabel(this);
    m_statusCounts = new QLabel(this);
    m_statusMethod = new QLabel(this);
    m_statusError = new QLabel(this);
    m_statusBounds = new QLabel(this);
    m_statusBounds->setObjectName(QStringLiteral("statusBounds"));
    m_statusBounds->setToolTip(tr("The box of the drawn positions (white in the viewport) and the per-bone box an engine "
                                  "computes from each bone's bind-pose box, without reading a vertex (orange)"));
    m_statusBounds->hide();
    m_statusFrame = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 0); // busy indicator while a file loads
    m_progress->setMaximumWidth(120);
    m_progress->hide();
    statusBar()->addWidget(m_statusFile, 1);
    statusBar()->addWidget(m_progress);
    statusBar()->addPermanentWidget(m_statusCounts);
    statusBar()->addPermanentWidget(m_statusMethod);
    statusBar()->addPermanentWidget(m_statusError);
    statusBar()->addPermanentWidget(m_statusBounds);
    statusBar()->addPermanentWidget(m_statusFrame);

    buildDocks();
    buildMenus();

    connect(m_doc, &Document::loadStarted, this, [this](const QString& what) {
        m_progress->show();
        statusBar()->showMessage(tr("Loading %1…").arg(QFileInfo(what).fileName()));
    });
    connect(m_doc, &Document::loadFinished, this, [this](const QString& what) {
        m_progress->hide();
        statusBar()->clearMessage();
        if (!what.startsWith(QLatin1String("sample:")))
            addRecentFile(what);
    });
    connect(m_doc, &Document::loadFailed, this, &MainWindow::onLoadFailed);
    connect(m_doc, &Document::comparisonChanged, this, [this] {
        const auto c = m_doc->comparison();
        m_viewport->setVertexValues(c ? c->weightChange : nullptr);
        if (c) {
            raiseDock(QStringLiteral("compare"));
            statusBar()->showMessage(tr("Compared with %1: %2 vertices' weights changed")
                                         .arg(QFileInfo(c->otherPath).fileName())
                                         .arg(c->diff.weightChangedVertices),
                                     8000);
        }
    });
    connect(m_doc, &Document::comparisonFailed, this, [this](const QString& message) {
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Could not compare"), message, QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("compareErrorBox"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        m_lastError = message;
    });
    connect(m_doc, &Document::loadRefused, this, &MainWindow::onLoadRefused);
    connect(m_doc, &Document::rigChanged, this, [this] {
        syncViewport();
        m_frameOnNextEvaluation = true;
        updateTitle();
        updateStatus();
    });
    connect(m_doc, &Document::poseChanged, this, [this] {
        m_viewport->setPose(m_doc->resolvedPose());
    });
    connect(m_doc, &Document::displayChanged, this, [this] {
        m_viewport->setSettings(m_doc->display());
        updateStatus();
    });
    connect(m_doc, &Document::selectionChanged, this, [this] { m_viewport->setSelectedVertex(m_doc->selectedVertex()); });
    connect(m_doc, &Document::jointSelectionChanged, this, [this] { m_viewport->setSelectedJoint(m_doc->selectedJoint()); });
    connect(m_doc, &Document::selectionSetChanged, this, [this] { m_viewport->setSelectionSet(m_doc->selectionSet().vertices); });
    connect(m_viewport, &viewer::Viewport::jointPicked, m_doc, &Document::setSelectedJoint);
    // The rotate manipulator: a drag is one undo step; each move turns the joint about its own axis from where the drag
    // began (E' = E · R_axis(δ)), written back as Euler angles in the joint's rotate order, continuous with the start.
    connect(m_viewport, &viewer::Viewport::rotateStarted, this, [this](int node, int) {
        m_rotateGesture = m_doc->beginGesture();
        m_rotateStart = m_doc->jointEdit(node);
    });
    connect(m_viewport, &viewer::Viewport::rotateDragged, this, [this](int node, int axis, float degrees) {
        rig::JointEdit e = m_rotateStart;
        glm::vec3 a(0.0f);
        a[axis] = 1.0f;
        e.rotateDeg = rig::eulerFromMatrix(rig::eulerRotation(m_rotateStart.rotateDeg, e.rotateOrder) * rig::axisAngle(a, degrees),
                                           e.rotateOrder, m_rotateStart.rotateDeg);
        const char* names[3] = {"X", "Y", "Z"};
        m_doc->editJoint(node, e, tr("Rotate %1 about %2").arg(QString::fromStdString(m_doc->loaded()->rig.skeleton.nodes[size_t(node)].name), QLatin1String(names[axis])),
                         m_rotateGesture);
    });
    connect(m_viewport, &viewer::Viewport::rotateFinished, this, [this](int) { m_rotateGesture = 0; });
    connect(m_doc, &Document::evaluationChanged, this, &MainWindow::onEvaluationChanged);
    connect(m_viewport, &viewer::Viewport::pickRequested, this, [this](QPointF px, Qt::KeyboardModifiers mods) {
        glm::vec3 origin, dir;
        if (!m_doc->loaded() || !m_viewport->rayAt(px, origin, dir))
            return;
        m_pickModifiers = mods; // the newest click's: picks answer in request order, the newest wins
        // Against the vertices of the latest evaluation, on the evaluator's thread (after any pending evaluation).
        const float tolerance = 12.0f * m_viewport->pixelAngle();
        m_doc->evaluator()->requestPick(origin, dir, tolerance, m_doc->display().method);
    });
    connect(m_doc->evaluator(), &Evaluator::picked, this, [this](int vertex) {
        if (vertex >= 0 && (m_pickModifiers & Qt::ShiftModifier))
            m_doc->addToSelectionSet(vertex);
        else if (vertex >= 0 && (m_pickModifiers & Qt::ControlModifier))
            m_doc->toggleInSelectionSet(vertex);
        else
            m_doc->setSelectedVertex(vertex);
    });
    // Shift+drag: the box's vertices join the selection (Ctrl+Shift+drag takes them out), on the evaluator's thread.
    connect(m_viewport, &viewer::Viewport::boxSelectRequested, this,
            [this](QPointF a, QPointF b, const viewer::ScreenProjector& view, Qt::KeyboardModifiers mods) {
                if (!m_doc->loaded())
                    return;
                viewer::BoxSelectQuery q;
                q.view = view;
                q.corner0 = glm::vec2(float(a.x()), float(a.y()));
                q.corner1 = glm::vec2(float(b.x()), float(b.y()));
                q.throughMesh = m_selectThrough->isChecked();
                std::shared_ptr<const std::vector<uint32_t>> current = m_doc->selectionSet().vertices;
                if (m_doc->selectionSet().empty() && m_doc->selectedVertex() >= 0) // a plain click, then a box: both
                    current = std::make_shared<const std::vector<uint32_t>>(1, uint32_t(m_doc->selectedVertex()));
                m_doc->evaluator()->requestBoxSelect(q, m_doc->display().method, current, mods & Qt::ControlModifier);
            });
    connect(m_doc->evaluator(), &Evaluator::boxSelected, this,
            [this](std::shared_ptr<const std::vector<uint32_t>> selection, size_t inBox) {
                SelectionSet set;
                set.label = m_doc->selectionSet().empty() ? tr("selected vertices") : m_doc->selectionSet().label;
                set.vertices = std::move(selection);
                const size_t n = set.size();
                m_doc->setSelectionSet(std::move(set));
                statusBar()->showMessage(tr("%n vertices in the box, ", nullptr, int(inBox)) + tr("%n selected", nullptr, int(n)), 4000);
            });
    connect(m_doc->evaluator(), &Evaluator::boxReady, this, [this](int tag, Box box) {
        if (tag != kFrameSelectionTag || box.empty())
            return;
        // A single vertex (or a tiny set) gets a box of a tenth of the rig's size around it.
        const float minSize = 0.1f * glm::length(m_frameMax - m_frameMin);
        const glm::vec3 c = 0.5f * (box.min + box.max);
        const glm::vec3 half = glm::max(0.5f * (box.max - box.min), glm::vec3(0.5f * minSize));
        m_viewport->frameBox(c - half, c + half);
    });
    connect(m_doc, &Document::evaluationRequested, this, &MainWindow::updateStatus);
    connect(m_viewport, &viewer::Viewport::unhandledKey, this, [this](int key, Qt::KeyboardModifiers mods) {
        const QKeySequence seq(QKeyCombination(mods, Qt::Key(key)));
        for (QAction* a : findChildren<QAction*>())
            if (a->isEnabled() && a->shortcut() == seq) {
                a->trigger();
                return;
            }
    });
    connect(m_viewport, &viewer::Viewport::frameRendered, this, [this](double ms) {
        m_statusFrame->setText(tr("%1 ms").arg(ms, 0, 'f', 1));
    });
    connect(m_viewport, &viewer::Viewport::initFailed, this, [this](const QString& message) {
        QMessageBox::critical(this, tr("RigScope"), tr("The viewport could not start: %1").arg(message));
    });

    QSettings settings;
    m_defaultState = saveState();
    restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
    m_defaultSizesPending = !restoreState(settings.value(QStringLiteral("windowState")).toByteArray());
    if (!settings.contains(QStringLiteral("geometry"))) {
        // First run: most of the screen (at least the classic 1280 × 800).
        const QRect avail = screen() ? screen()->availableGeometry() : QRect(0, 0, 1280, 800);
        resize(std::max(1280, avail.width() * 9 / 10), std::max(800, avail.height() * 9 / 10));
        resize(std::min(width(), avail.width()), std::min(height(), avail.height()));
    }
    m_viewport->setSettings(m_doc->display());
    if (m_doc->loaded()) {
        syncViewport();
        m_frameOnNextEvaluation = true;
        onEvaluationChanged();
    }
    updateTitle();
    updateStatus();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildDocks()
{
    auto add = [this](QWidget* w, const QString& title, const QString& name, Qt::DockWidgetArea area) {
        auto* dock = new QDockWidget(title, this);
        dock->setObjectName(name); // unique: saveState/restoreState key
        dock->setWidget(w);
        // Docks across the bottom carry their title on the left, upright, as Qt's vertical title bar: the row of
        // numbers costs the viewport no title line. Moved to a side, a dock gets its title line back.
        addDockWidget(area, dock);
        fitTitleBar(dock);
        connect(dock, &QDockWidget::dockLocationChanged, this, [this, dock] { fitTitleBar(dock); });
        m_docks << dock;
        return dock;
    };
    // Default layout (a saved one replaces it), the viewport most of the window as in Maya and Blender: posing on the
    // left (Bones, with Morph Targets as a tab), the numbers across the bottom (Methods, then Vertex and Audit as
    // tabs beside it), the timeline as a strip under everything (a toolbar: no title bar to pay for).
    setCorner(Qt::BottomLeftCorner, Qt::BottomDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
    m_bones = new panels::BonesPanel(m_doc, this);
    m_bonesDock = add(m_bones, tr("Bones"), QStringLiteral("dock.bones"), Qt::LeftDockWidgetArea);
    m_morphs = new panels::MorphPanel(m_doc, this);
    QDockWidget* morphs = add(m_morphs, tr("Morph Targets"), QStringLiteral("dock.morphs"), Qt::LeftDockWidgetArea);
    tabifyDockWidget(m_bonesDock, morphs);
    m_bonesDock->raise();
    m_methods = new panels::MethodsPanel(m_doc, this);
    m_methodsDock = add(m_methods, tr("Methods"), QStringLiteral("dock.methods"), Qt::BottomDockWidgetArea);
    m_vertexDock = add(new panels::VertexPanel(m_doc, this), tr("Vertex"), QStringLiteral("dock.vertex"), Qt::BottomDockWidgetArea);
    splitDockWidget(m_methodsDock, m_vertexDock, Qt::Horizontal);
    m_audit = new panels::AuditPanel(m_doc, this);
    QDockWidget* audit = add(m_audit, tr("Audit"), QStringLiteral("dock.audit"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(m_vertexDock, audit);
    m_weights = new panels::WeightsPanel(m_doc, this);
    QDockWidget* weights = add(m_weights, tr("Weights"), QStringLiteral("dock.weights"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(audit, weights);
    m_diagnosis = new panels::DiagnosisPanel(m_doc, this);
    QDockWidget* diagnosis = add(m_diagnosis, tr("Diagnosis"), QStringLiteral("dock.diagnosis"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(weights, diagnosis);
    connect(m_diagnosis, &panels::DiagnosisPanel::frameRequested, this, &MainWindow::frameSelection);
    m_compare = new panels::ComparePanel(m_doc, this);
    QDockWidget* compare = add(m_compare, tr("Compare"), QStringLiteral("dock.compare"), Qt::BottomDockWidgetArea);
    tabifyDockWidget(diagnosis, compare);
    connect(m_compare, &panels::ComparePanel::compareRequested, this, &MainWindow::compareDialog);
    connect(m_compare, &panels::ComparePanel::frameRequested, this, &MainWindow::frameSelection);
    connect(m_weights, &panels::WeightsPanel::frameVertexRequested, this, [this](uint32_t v) {
        m_doc->evaluator()->requestBox(std::make_shared<const std::vector<uint32_t>>(1, v), m_doc->display().method,
                                       kFrameSelectionTag);
    });
    m_vertexDock->raise();
    connect(m_audit, &panels::AuditPanel::frameRequested, this, &MainWindow::frameSelection);
    m_timeline = new panels::TimelinePanel(m_doc, this);
    QToolBar* timeline = new QToolBar(tr("Timeline"), this);
    timeline->setObjectName(QStringLiteral("toolbar.timeline")); // saveState key
    timeline->addWidget(m_timeline);
    addToolBar(Qt::BottomToolBarArea, timeline);
    m_timelineBar = timeline;
}

QStringList MainWindow::dockNames()
{
    return {QStringLiteral("bones"), QStringLiteral("morphs"), QStringLiteral("methods"), QStringLiteral("vertex"),
            QStringLiteral("audit"), QStringLiteral("weights"), QStringLiteral("diagnosis"), QStringLiteral("compare")};
}

bool MainWindow::raiseDock(const QString& name)
{
    for (QDockWidget* d : m_docks)
        if (d->objectName() == QStringLiteral("dock.") + name) {
            d->show();
            d->raise();
            return true;
        }
    return false;
}

void MainWindow::raiseWeightsDock()
{
    if (auto* dock = qobject_cast<QDockWidget*>(m_weights->parentWidget()))
        dock->raise();
}

void MainWindow::applyDefaultDockSizes()
{
    // The left column as wide as the Bones panel needs; the bottom row as tall as every method's row of the Methods
    // table; Methods most of that row, Vertex and Audit the rest.
    const int left = std::max(m_bones->minimumSizeHint().width(), 270);
    resizeDocks({m_bonesDock}, {left}, Qt::Horizontal);
    resizeDocks({m_methodsDock}, {m_methods->heightForAllRows()}, Qt::Vertical); // its title is beside it
    const int row = std::max(width() - 16, 400);
    const int methods = std::min(m_methods->widthForAllColumns(), row - 260);
    resizeDocks({m_methodsDock, m_vertexDock}, {methods, row - methods}, Qt::Horizontal);
}

void MainWindow::fitTitleBar(QDockWidget* dock)
{
    // A dock across the bottom (or top) carries its title upright on its left, as Qt's vertical title bar; at a side
    // or floating, a title line.
    const Qt::DockWidgetArea at = dock->isFloating() ? Qt::NoDockWidgetArea : dockWidgetArea(dock);
    const bool across = at == Qt::BottomDockWidgetArea || at == Qt::TopDockWidgetArea;
    dock->setFeatures(across ? dock->features() | QDockWidget::DockWidgetVerticalTitleBar
                             : dock->features() & ~QDockWidget::DockWidgetVerticalTitleBar);
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultState);
    for (QDockWidget* d : m_docks) {
        d->show();
        fitTitleBar(d); // restoreState docks a floated dock back without telling it where
    }
    m_timelineBar->show();
    m_bonesDock->raise();
    m_vertexDock->raise();
    applyDefaultDockSizes();
    // Once more after the restored docks have been laid out (a dock floated back in takes its place only then).
    QTimer::singleShot(0, this, &MainWindow::applyDefaultDockSizes);
}

void MainWindow::showEvent(QShowEvent* e)
{
    QMainWindow::showEvent(e);
    if (m_defaultSizesPending) {
        m_defaultSizesPending = false;
        applyDefaultDockSizes();
    }
}

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open…"), this, &MainWindow::openFileDialog);
    open->setShortcut(QKeySequence::Open);
    QMenu* samples = file->addMenu(tr("Open &Sample"));
    for (const std::string& name : rig::sampleNames()) {
        const QString n = QString::fromStdString(name);
        samples->addAction(n, this, [this, n] { m_doc->openSample(n); });
    }
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    file->addSeparator();
    file->addAction(tr("Co&mpare With…"), this, &MainWindow::compareDialog)
        ->setToolTip(tr("Compare the loaded rig with another version of it: the weights that changed"));
    file->addAction(tr("Load &Pose…"), this, &MainWindow::loadPoseDialog)->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    QAction* savePose = file->addAction(tr("Sa&ve Pose…"), this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save Pose"), QStringLiteral("pose.json"),
                                                          tr("Pose files (*.json)"));
        QString error;
        if (!path.isEmpty() && !m_bones->savePose(path, &error))
            QMessageBox::warning(this, tr("Save Pose"), error);
    });
    savePose->setObjectName(QStringLiteral("savePose"));
    savePose->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    file->addAction(tr("Rest P&ose"), this, [this] { m_doc->editPose(rig::Pose{}, tr("Rest Pose"), 0, true); });
    file->addAction(tr("Go to &Bind Pose"), this, [this] {
        rig::Pose bind;
        bind.base = rig::PoseBase::Bind; // every joint at inverse(inverse bind): the authored shape, as in Maya
        m_doc->editPose(bind, tr("Go to Bind Pose"), 0, true);
    });
    file->addSeparator();
    QAction* shot = file->addAction(tr("Save Screens&hot…"), this, &MainWindow::screenshotDialog);
    shot->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_doc->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_doc->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence::Redo});
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    // Shift+drag in the viewport selects the vertices in a box: those in view only (Blender's default), or every one
    // under the box through the mesh (Blender's X-ray, Alt+Z).
    m_selectThrough = edit->addAction(tr("Box Selects &Through the Mesh"));
    m_selectThrough->setObjectName(QStringLiteral("selectThrough"));
    m_selectThrough->setCheckable(true);
    m_selectThrough->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Z));
    m_selectThrough->setChecked(QSettings().value(QStringLiteral("selectThrough"), false).toBool());
    connect(m_selectThrough, &QAction::toggled, this, [](bool on) { QSettings().setValue(QStringLiteral("selectThrough"), on); });
    QAction* deselect = edit->addAction(tr("&Deselect All"), this, [this] {
        m_doc->setSelectionSet(SelectionSet{});
        m_doc->setSelectedVertex(-1);
    });
    deselect->setShortcut(QKeySequence(Qt::Key_Escape));

    QMenu* method = menuBar()->addMenu(tr("&Method"));
    auto* methods = new QActionGroup(this);
    for (rig::Method m : rig::allMethods()) {
        QAction* a = method->addAction(QString::fromLatin1(rig::methodId(m).data(), int(rig::methodId(m).size())));
        a->setCheckable(true);
        a->setChecked(m == m_doc->display().method);
        a->setActionGroup(methods);
        connect(a, &QAction::triggered, this, [this, m] { m_doc->setMethod(m); });
        connect(m_doc, &Document::displayChanged, a, [this, a, m] { a->setChecked(m_doc->display().method == m); });
    }

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : m_docks)
        m_viewMenu->addAction(d->toggleViewAction());
    m_viewMenu->addAction(m_timelineBar->toggleViewAction());
    QAction* resetLayoutAction = m_viewMenu->addAction(tr("&Reset Layout"), this, &MainWindow::resetLayout);
    resetLayoutAction->setObjectName(QStringLiteral("resetLayout"));
    m_viewMenu->addSeparator();
    QAction* quad = m_viewMenu->addAction(tr("&Four-View Comparison"));
    quad->setCheckable(true);
    quad->setShortcut(QKeySequence(Qt::Key_Q));
    connect(quad, &QAction::toggled, this, [this](bool on) { m_doc->setViewMode(on ? ViewMode::Quad : ViewMode::Single); });
    connect(m_doc, &Document::displayChanged, quad, [this, quad] {
        const QSignalBlocker b(quad);
        quad->setChecked(m_doc->display().view == ViewMode::Quad);
    });

    QMenu* shading = m_viewMenu->addMenu(tr("&Shading"));
    shading->setObjectName(QStringLiteral("shadingMenu"));
    auto* shadings = new QActionGroup(this);
    const std::pair<Shading, QString> shadingItems[] = {{Shading::Lit, tr("Lit (method normals)")},
                                                        {Shading::Reference, tr("Lit (rebuilt reference)")},
                                                        {Shading::NormalError, tr("Normal Error Heatmap")},
                                                        {Shading::TangentError, tr("Tangent Error Heatmap")},
                                                        {Shading::Handedness, tr("Tangent Handedness (red: opposite)")},
                                                        {Shading::JointWeight, tr("Selected Joint's Weight")},
                                                        {Shading::JointWeightBands, tr("Selected Joint's Weight, Banded")},
                                                        {Shading::InfluenceCount, tr("Influence Count")},
                                                        {Shading::WeightSum, tr("Weight-Sum Deviation |Σw − 1|")},
                                                        {Shading::BlendScale, tr("Candy-Wrapper Scale Loss (linear blend)")},
                                                        {Shading::DqDisplacement, tr("Dual-Quaternion Displacement (of the limb radius)")},
                                                        {Shading::FormatPosition, tr("Format Difference: Position")},
                                                        {Shading::FormatNormal, tr("Format Difference: Normal")},
                                                        {Shading::WeightChange, tr("Weight Change (Compared Version)")}};
    for (const auto& [s, label] : shadingItems) {
        QAction* a = shading->addAction(label);
        a->setCheckable(true);
        a->setActionGroup(shadings);
        a->setChecked(m_doc->display().shading == s);
        connect(a, &QAction::triggered, this, [this, s = s] { m_doc->setShading(s); });
        connect(m_doc, &Document::displayChanged, a, [this, a, s = s] { a->setChecked(m_doc->display().shading == s); });
    }
    QMenu* measure = m_viewMenu->addMenu(tr("Error &Measure"));
    auto* measures = new QActionGroup(this);
    const std::pair<ErrorMeasure, QString> measureItems[] = {
        {ErrorMeasure::Total, tr("Total (against the reference rebuilt now)")},
        {ErrorMeasure::Skinning, tr("From Skinning (against the reference carried from the bind pose)")}};
    for (const auto& [em, label] : measureItems) {
        QAction* a = measure->addAction(label);
        a->setCheckable(true);
        a->setActionGroup(measures);
        a->setChecked(m_doc->display().errorMeasure == em);
        connect(a, &QAction::triggered, this, [this, em = em] {
            DisplaySettings d = m_doc->display();
            d.errorMeasure = em;
            m_doc->setDisplay(d);
        });
        connect(m_doc, &Document::displayChanged, a, [this, a, em = em] { a->setChecked(m_doc->display().errorMeasure == em); });
    }
    QMenu* material = m_viewMenu->addMenu(tr("&Material"));
    auto* materials = new QActionGroup(this);
    const std::pair<Material, QString> materialItems[] = {
        {Material::Plain, tr("Plain")}, {Material::Bumps, tr("Normal-Mapped Bumps")}, {Material::Checker, tr("UV Checker")}};
    for (const auto& [m, label] : materialItems) {
        QAction* a = material->addAction(label);
        a->setCheckable(true);
        a->setActionGroup(materials);
        a->setChecked(m_doc->display().material == m);
        connect(a, &QAction::triggered, this, [this, m = m] { m_doc->setMaterial(m); });
        connect(m_doc, &Document::displayChanged, a, [this, a, m = m] { a->setChecked(m_doc->display().material == m); });
    }
    QMenu* overlays = m_viewMenu->addMenu(tr("&Overlays"));
    const std::tuple<Overlay, QString, int> overlayItems[] = {
        {viewer::OverlayNormals, tr("Normals (gold)"), Qt::Key_N},
        {viewer::OverlayTangents, tr("Tangents"), Qt::Key_T},
        {viewer::OverlayReferenceNormals, tr("Reference Normals"), Qt::Key_R},
        {viewer::OverlaySkeleton, tr("Skeleton"), Qt::Key_K},
        {viewer::OverlayBounds, tr("Bounding Box"), Qt::Key_B},
        {viewer::OverlayGrid, tr("Ground Grid"), Qt::Key_G},
        {viewer::OverlayWireframe, tr("Wireframe"), Qt::Key_W},
        {viewer::OverlayHardBoundaries, tr("Hard Weight Boundaries (red)"), Qt::Key_H}};
    for (const auto& [o, label, key] : overlayItems) {
        QAction* a = overlays->addAction(label);
        a->setCheckable(true);
        a->setShortcut(QKeySequence(key));
        a->setChecked(m_doc->display().overlays & o);
        connect(a, &QAction::toggled, this, [this, o = o](bool on) { m_doc->setOverlay(o, on); });
        connect(m_doc, &Document::displayChanged, a, [this, a, o = o] {
            const QSignalBlocker b(a);
            a->setChecked(m_doc->display().overlays & o);
        });
    }
    QAction* longer = m_viewMenu->addAction(tr("Longer Lines"), this, [this] { scaleLines(1.25f); });
    longer->setShortcut(QKeySequence(Qt::Key_BracketRight));
    QAction* shorter = m_viewMenu->addAction(tr("Shorter Lines"), this, [this] { scaleLines(0.8f); });
    shorter->setShortcut(QKeySequence(Qt::Key_BracketLeft));
    m_viewMenu->addAction(tr("Heatmap Maximum…"), this, [this] {
        bool ok = false;
        const double v = QInputDialog::getDouble(this, tr("Heatmap Maximum"), tr("Red at and above (degrees):"),
                                                 double(m_doc->display().heatmapMaxDeg), 0.1, 180.0, 1, &ok);
        if (ok) {
            DisplaySettings d = m_doc->display();
            d.heatmapMaxDeg = float(v);
            m_doc->setDisplay(d);
        }
    });
    QAction* morphNormals = m_viewMenu->addAction(tr("Morph Normal/Tangent Deltas"));
    morphNormals->setCheckable(true);
    morphNormals->setChecked(m_doc->display().morphNormals);
    connect(morphNormals, &QAction::toggled, this, [this](bool on) {
        DisplaySettings d = m_doc->display();
        d.morphNormals = on;
        m_doc->setDisplay(d);
    });
    QAction* manipulator = m_viewMenu->addAction(tr("Rotate &Manipulator"));
    manipulator->setCheckable(true);
    manipulator->setChecked(m_doc->display().manipulator);
    manipulator->setShortcut(QKeySequence(Qt::Key_E));
    connect(manipulator, &QAction::toggled, this, [this](bool on) {
        DisplaySettings d = m_doc->display();
        d.manipulator = on;
        m_doc->setDisplay(d);
    });
    m_viewMenu->addSeparator();
    QAction* reset = m_viewMenu->addAction(tr("&Reset Camera"), this, [this] { m_viewport->resetCamera(); });
    reset->setShortcut(QKeySequence(Qt::Key_Home));
    QAction* frame = m_viewMenu->addAction(tr("&Frame Selection or All"), this, &MainWindow::frameSelection);
    frame->setShortcut(QKeySequence(Qt::Key_F));
    QAction* frameAll = m_viewMenu->addAction(tr("Frame &All"), this, [this] { m_viewport->frameAll(); });
    frameAll->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F));

    QMenu* play = menuBar()->addMenu(tr("&Playback"));
    QAction* playPause = play->addAction(tr("&Play / Pause"), this, [this] { m_timeline->setPlaying(!m_timeline->isPlaying()); });
    playPause->setShortcut(QKeySequence(Qt::Key_Space));
    play->addAction(tr("P&revious Key"), this, [this] { m_timeline->stepKey(-1); })->setShortcut(QKeySequence(Qt::Key_Comma));
    play->addAction(tr("&Next Key"), this, [this] { m_timeline->stepKey(+1); })->setShortcut(QKeySequence(Qt::Key_Period));
    play->addSeparator();
    play->addAction(tr("Next Vertex of the Selection Set"), this, [this] { m_doc->stepSelectionSet(+1); })
        ->setShortcut(QKeySequence(Qt::Key_BracketRight | Qt::SHIFT));
    play->addAction(tr("Previous Vertex of the Selection Set"), this, [this] { m_doc->stepSelectionSet(-1); })
        ->setShortcut(QKeySequence(Qt::Key_BracketLeft | Qt::SHIFT));

    buildToolbar();

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About RigScope"), this, [this] {
        QMessageBox::about(this, tr("About RigScope"),
                           tr("<b>RigScope %1</b><p>Skinned normal and tangent inspector.</p>"
                              "<p>Qt %2 (built with %3)<br>Assimp %4<br>Viewport: %5</p>")
                               .arg(QStringLiteral(RIGSCOPE_VERSION), QString::fromLatin1(qVersion()),
                                    QStringLiteral(QT_VERSION_STR), QString::fromStdString(rig::assimpVersion()),
                                    m_viewport->backendName()));
    });
}

void MainWindow::buildToolbar()
{
    QToolBar* bar = addToolBar(tr("View"));
    bar->setObjectName(QStringLiteral("toolbar.view")); // saveState key
    bar->setMovable(true);
    auto* method = new QComboBox(bar);
    method->setObjectName(QStringLiteral("methodBox"));
    method->setToolTip(tr("Skinning method (Method menu)"));
    for (rig::Method m : rig::allMethods())
        method->addItem(QString::fromLatin1(rig::methodId(m).data(), int(rig::methodId(m).size())), int(m));
    connect(method, &QComboBox::activated, this, [this, method](int i) { m_doc->setMethod(rig::Method(method->itemData(i).toInt())); });
    bar->addWidget(method);
    bar->addWidget(new panels::FormatChooser(m_doc, bar)); // the runtime format beside the method it skins
    auto* views = new QComboBox(bar);
    views->setObjectName(QStringLiteral("viewBox"));
    views->addItems({tr("Single view"), tr("Four views")});
    connect(views, &QComboBox::activated, this, [this](int i) { m_doc->setViewMode(i == 1 ? ViewMode::Quad : ViewMode::Single); });
    bar->addWidget(views);
    auto* shading = new QComboBox(bar);
    shading->setObjectName(QStringLiteral("shadingBox"));
    const std::pair<Shading, QString> items[] = {
        {Shading::Lit, tr("Lit")}, {Shading::Reference, tr("Reference")}, {Shading::NormalError, tr("Normal error")},
        {Shading::TangentError, tr("Tangent error")}, {Shading::Handedness, tr("Handedness")},
        {Shading::JointWeight, tr("Joint weight")}, {Shading::JointWeightBands, tr("Weight bands")},
        {Shading::InfluenceCount, tr("Influence count")}, {Shading::WeightSum, tr("|Σw − 1|")},
        {Shading::BlendScale, tr("Candy-wrapper scale")}, {Shading::DqDisplacement, tr("DQ displacement")},
        {Shading::FormatPosition, tr("Format: position")}, {Shading::FormatNormal, tr("Format: normal")},
        {Shading::WeightChange, tr("Weight change")}};
    for (const auto& [sh, label] : items)
        shading->addItem(label, int(sh));
    connect(shading, &QComboBox::activated, this, [this, shading](int i) { m_doc->setShading(Shading(shading->itemData(i).toInt())); });
    bar->addWidget(shading);
    auto* maxDeg = new QDoubleSpinBox(bar);
    maxDeg->setObjectName(QStringLiteral("heatmapMax"));
    maxDeg->setRange(0.1, 180.0);
    maxDeg->setDecimals(1);
    maxDeg->setSuffix(QStringLiteral("°"));
    maxDeg->setPrefix(tr("red at "));
    maxDeg->setKeyboardTracking(false);
    maxDeg->setToolTip(tr("Heatmap maximum: red at and above"));
    connect(maxDeg, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        DisplaySettings d = m_doc->display();
        d.heatmapMaxDeg = float(v);
        m_doc->setDisplay(d);
    });
    bar->addWidget(maxDeg);
    bar->addSeparator();
    const std::tuple<Overlay, QString, QString> overlays[] = {{viewer::OverlayNormals, tr("N"), tr("Normals (gold), N")},
                                                              {viewer::OverlayTangents, tr("T"), tr("Tangents (cyan), T")},
                                                              {viewer::OverlayReferenceNormals, tr("R"), tr("Reference normals (magenta), R")},
                                                              {viewer::OverlaySkeleton, tr("K"), tr("Skeleton, K")},
                                                              {viewer::OverlayBounds, tr("B"), tr("Bounding box, B")},
                                                              {viewer::OverlayWireframe, tr("W"), tr("Wireframe, W")},
                                                              {viewer::OverlayHardBoundaries, tr("H"), tr("Hard weight boundaries (red edges), H")},
                                                              {viewer::OverlayGrid, tr("G"), tr("Ground grid, G")}};
    for (const auto& [o, label, tip] : overlays) {
        QAction* a = bar->addAction(label);
        a->setCheckable(true);
        a->setToolTip(tip);
        a->setObjectName(QStringLiteral("overlay%1").arg(label));
        connect(a, &QAction::toggled, this, [this, o = o](bool on) { m_doc->setOverlay(o, on); });
        connect(m_doc, &Document::displayChanged, a, [this, a, o = o] {
            const QSignalBlocker b(a);
            a->setChecked(m_doc->display().overlays & o);
        });
        a->setChecked(m_doc->display().overlays & o);
    }
    auto sync = [this, method, views, shading, maxDeg] {
        const DisplaySettings& d = m_doc->display();
        const QSignalBlocker b1(method), b2(views), b3(shading), b4(maxDeg);
        method->setCurrentIndex(method->findData(int(d.method)));
        views->setCurrentIndex(d.view == ViewMode::Quad ? 1 : 0);
        shading->setCurrentIndex(shading->findData(int(d.shading)));
        maxDeg->setValue(double(d.heatmapMaxDeg));
    };
    connect(m_doc, &Document::displayChanged, this, sync);
    sync();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList files = recentFiles();
    for (const QString& f : files)
        m_recentMenu->addAction(QFileInfo(f).fileName(), this, [this, f] { m_doc->openFile(f); })->setToolTip(f);
    if (files.isEmpty())
        m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
}

QStringList MainWindow::recentFiles() const
{
    return QSettings().value(QLatin1String(kRecentKey)).toStringList();
}

void MainWindow::addRecentFile(const QString& path)
{
    const QString abs = QFileInfo(path).absoluteFilePath();
    QStringList files = recentFiles();
    files.removeAll(abs);
    files.prepend(abs);
    while (files.size() > kMaxRecent)
        files.removeLast();
    QSettings().setValue(QLatin1String(kRecentKey), files);
    rebuildRecentMenu();
}

void MainWindow::openFileDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Rig"), QString(),
        tr("Rigged models (*.gltf *.glb *.fbx *.dae *.x *.X *.obj *.blend *.3ds *.ms3d *.md5mesh *.smd);;All files (*)"));
    if (!path.isEmpty())
        m_doc->openFile(path);
}

void MainWindow::compareDialog()
{
    if (!m_doc->loaded())
        return;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Compare With Another Version"), QFileInfo(m_doc->loaded()->path).absolutePath(),
        tr("Rigged models (*.gltf *.glb *.fbx *.dae *.x *.X *.obj *.blend *.3ds *.ms3d *.md5mesh *.smd);;All files (*)"));
    if (!path.isEmpty())
        m_doc->compareWith(path);
}

void MainWindow::scaleLines(float factor)
{
    DisplaySettings d = m_doc->display();
    d.lineLength = std::clamp(d.lineLength * factor, 0.002f, 0.5f);
    m_doc->setDisplay(d);
}

void MainWindow::loadPoseDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Load Pose"), QString(), tr("Pose files (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!applyPoseFile(path, &error))
        QMessageBox::warning(this, tr("Load Pose"), error);
}

bool MainWindow::applyPoseFile(const QString& path, QString* error)
{
    auto pose = rig::readPoseFile(path.toStdString());
    if (!pose) {
        if (error)
            *error = QString::fromStdString(pose.error());
        return false;
    }
    QString err;
    if (!m_doc->editPose(pose.value(), tr("Load Pose %1").arg(QFileInfo(path).fileName()), 0, true, &err)) {
        if (error)
            *error = path + QStringLiteral(": ") + err;
        return false;
    }
    return true;
}

void MainWindow::screenshotDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Screenshot"), QStringLiteral("rigscope.png"),
                                                      tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!saveScreenshot(path, &error))
        QMessageBox::warning(this, tr("Save Screenshot"), error);
}

bool MainWindow::saveScreenshot(const QString& path, QString* error)
{
    QString err;
    const QImage img = m_viewport->grabImage(&err);
    if (img.isNull()) {
        if (error)
            *error = err.isEmpty() ? tr("The viewport has no image yet.") : err;
        return false;
    }
    if (!img.save(path, "PNG")) {
        if (error)
            *error = tr("%1: cannot be written").arg(path);
        return false;
    }
    return true;
}

bool MainWindow::saveWindowScreenshot(const QString& path, QString* error)
{
    QString err;
    const QImage viewportImage = m_viewport->grabImage(&err);
    if (viewportImage.isNull()) {
        if (error)
            *error = err.isEmpty() ? tr("The viewport has no image yet.") : err;
        return false;
    }
    QPixmap window = grab();
    {
        QPainter p(&window);
        p.drawImage(QRect(m_viewportContainer->mapTo(this, QPoint(0, 0)), m_viewportContainer->size()), viewportImage);
    }
    if (!window.save(path, "PNG")) {
        if (error)
            *error = tr("%1: cannot be written").arg(path);
        return false;
    }
    return true;
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    QSettings settings;
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    settings.setValue(QStringLiteral("windowState"), saveState());
    QMainWindow::closeEvent(e);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e)
{
    if (e->mimeData()->hasUrls() && !e->mimeData()->urls().isEmpty() && e->mimeData()->urls().front().isLocalFile())
        e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e)
{
    const QList<QUrl> urls = e->mimeData()->urls();
    if (urls.isEmpty() || !urls.front().isLocalFile())
        return;
    m_doc->openFile(urls.front().toLocalFile());
    e->acceptProposedAction();
}

void MainWindow::onLoadFailed(const QString& message)
{
    m_progress->hide();
    statusBar()->clearMessage();
    // The previous rig stays loaded. The message box is not modal to the event loop: the viewport keeps rendering.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Could not open the file"), message, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("loadErrorBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
    m_lastError = message;
}

void MainWindow::onLoadRefused(const QString& path, const QString& message, const QString& reference,
                               const QString& resolved, const QString& suggestedRoot)
{
    m_progress->hide();
    statusBar()->clearMessage();
    m_lastError = message;
    // Ask, once, for this file; nothing is remembered: the next open asks again.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Read outside the file's folder?"),
                                tr("<p><b>%1</b> refers to a file outside its folder:</p><p><tt>%2</tt><br>(%3)</p>"
                                   "<p>Reading it means letting RigScope read everything in <tt>%4</tt> for this file. "
                                   "Only allow this for files you trust.</p>")
                                    .arg(QFileInfo(path).fileName().toHtmlEscaped(), reference.toHtmlEscaped(),
                                         resolved.toHtmlEscaped(), suggestedRoot.toHtmlEscaped()),
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("outsideRootBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton* allow = box->addButton(tr("Allow for This File"), QMessageBox::AcceptRole);
    allow->setObjectName(QStringLiteral("allowOutside"));
    QPushButton* cancel = box->addButton(QMessageBox::Cancel);
    box->setDefaultButton(cancel);
    connect(allow, &QPushButton::clicked, this, [this, path, suggestedRoot] { m_doc->openFile(path, suggestedRoot); });
    box->open();
}

void MainWindow::syncViewport()
{
    const auto loaded = m_doc->loadedShared();
    if (!loaded)
        return;
    if (!loaded->gpu)
        qWarning("rigscope: the GPU deformer could not take the rig: %s", loaded->gpuError.c_str());
    m_viewport->setRig(std::shared_ptr<const rig::Rig>(loaded, &loaded->rig),
                       std::shared_ptr<const rig::RigRuntime>(loaded, &loaded->runtime), loaded->gpu);
    m_viewport->setPose(m_doc->resolvedPose());
    m_viewport->setSettings(m_doc->display());
    m_viewport->setSelectedVertex(m_doc->selectedVertex());
    m_viewport->setSelectedJoint(m_doc->selectedJoint());
    m_viewport->setSelectionSet(m_doc->selectionSet().vertices);
}

void MainWindow::onEvaluationChanged()
{
    // Frame-all uses the bounds of the positions the method draws, from the evaluation (computed on its thread).
    const auto result = m_doc->evaluationResult();
    if (result) {
        const Box& b = result->boundsOf(m_doc->display().method);
        if (!b.empty()) {
            m_frameMin = b.min;
            m_frameMax = b.max;
            m_viewport->setFrameBounds(b.min, b.max);
            if (m_frameOnNextEvaluation) {
                m_viewport->frameAll();
                m_viewport->setGround(b.min, b.max); // the grid under the rig as it was loaded; it stays put
            }
            m_frameOnNextEvaluation = false;
        }
    }
    updateStatus();
}

void MainWindow::frameSelection()
{
    const SelectionSet& set = m_doc->selectionSet();
    if (!set.empty()) {
        // Every vertex of the set (the box comes back from the evaluator's thread).
        m_doc->evaluator()->requestBox(set.vertices, m_doc->display().method, kFrameSelectionTag);
        return;
    }
    if (m_doc->selectedVertex() >= 0) {
        m_doc->evaluator()->requestBox(std::make_shared<const std::vector<uint32_t>>(1, uint32_t(m_doc->selectedVertex())),
                                       m_doc->display().method, kFrameSelectionTag);
        return;
    }
    m_viewport->frameAll();
}

void MainWindow::updateTitle()
{
    const LoadedRig* l = m_doc->loaded();
    setWindowTitle(l ? tr("%1 — RigScope").arg(l->displayName) : tr("RigScope"));
}

void MainWindow::updateStatus()
{
    const LoadedRig* l = m_doc->loaded();
    if (!l) {
        m_statusFile->setText(tr("No rig"));
        return;
    }
    m_statusFile->setText(l->path.isEmpty() ? l->displayName : l->path);
    m_statusCounts->setText(tr("%1 vertices · %2 triangles · %3 joints")
                                .arg(l->rig.vertexCount())
                                .arg(l->rig.triangleCount())
                                .arg(l->rig.jointCount()));
    const rig::Method m = m_doc->display().method;
    m_statusMethod->setText(QString::fromLatin1(rig::methodId(m).data(), int(rig::methodId(m).size())));
    const rig::Evaluation& ev = m_doc->evaluation();
    const QString updating = m_doc->evaluationCurrent() ? QString() : tr(" (updating…)");
    if (ev.has(m)) {
        const bool skinning = m_doc->display().errorMeasure == ErrorMeasure::Skinning;
        const rig::ErrorStats& s = skinning ? ev.stats[size_t(m)].skinningNormal : ev.stats[size_t(m)].normal;
        const QString what = skinning ? tr("normal error from skinning") : tr("normal error");
        m_statusError->setText((s.defined ? tr("%1 max %2° mean %3°").arg(what).arg(s.max, 0, 'f', 2).arg(s.mean, 0, 'f', 2)
                                          : tr("%1 undefined").arg(what)) +
                               updating);
    } else {
        m_statusError->setText(updating.isEmpty() ? QString() : tr("evaluating…"));
    }
    // With the bounding box shown: the linear-blend box and how much larger the per-bone box is.
    const auto result = m_doc->evaluationResult();
    const bool bounds = (m_doc->display().overlays & viewer::OverlayBounds) && result && !result->linearBounds.empty();
    m_statusBounds->setVisible(bounds);
    if (bounds) {
        const Box& exact = result->linearBounds;
        const glm::vec3 e = exact.size();
        const double v = rig::volumeRatio(result->perBoneBounds, exact);
        m_statusBounds->setText(
            tr("box %1 × %2 × %3 · per-bone %4")
                .arg(double(e.x), 0, 'g', 4)
                .arg(double(e.y), 0, 'g', 4)
                .arg(double(e.z), 0, 'g', 4)
                .arg(v > 0.0 ? tr("%1× the volume").arg(v, 0, 'f', 2)
                             : tr("%1× the diagonal").arg(rig::diagonalRatio(result->perBoneBounds, exact), 0, 'f', 2)));
    }
}

} // namespace app
