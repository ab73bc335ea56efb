#include "methods_panel.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <memory>
#include <thread>

#include "app/document.h"
#include "method_stats_model.h"

namespace panels {

MethodsPanel::MethodsPanel(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("methodsPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_model = new MethodStatsModel(this);
    m_view = new QTableView(this);
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_status = new QLabel(this);
    layout->addWidget(m_view);
    layout->addWidget(m_status);
    connect(m_view, &QTableView::clicked, this, [this](const QModelIndex& i) {
        if (i.isValid())
            m_doc->setMethod(m_model->methodAt(i.row()));
    });
    connect(doc, &app::Document::poseChanged, this, &MethodsPanel::schedule);
    connect(doc, &app::Document::rigChanged, this, &MethodsPanel::schedule);
    connect(doc, &app::Document::displayChanged, this, &MethodsPanel::schedule);
    schedule();
}

MethodsPanel::~MethodsPanel()
{
    ++m_generation; // results still in flight are dropped (and the QPointer guard sees the panel gone)
}

void MethodsPanel::schedule()
{
    const auto loaded = m_doc->loadedShared();
    if (!loaded) {
        m_model->clear();
        return;
    }
    const unsigned generation = ++m_generation;
    if (m_running) {
        m_pending = true; // one worker at a time: rerun with the latest state when it finishes
        return;
    }
    m_running = true;
    const rig::ResolvedPose pose = m_doc->resolvedPose();
    rig::DeformSettings settings;
    settings.morphNormals = m_doc->display().morphNormals;
    settings.threads = 1; // leave the other cores to the viewport
    m_status->setText(tr("Evaluating every method…"));
    QPointer<MethodsPanel> self(this);
    // Slow work off the GUI thread; the result comes back through a queued, guarded call, and a stale one is dropped.
    std::thread([self, loaded, pose, settings, generation] {
        auto eval = std::make_shared<rig::Evaluation>();
        rig::evaluate(loaded->rig, loaded->runtime, pose, rig::allMethods(), settings, *eval);
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, eval, generation] {
                if (!self)
                    return;
                self->m_running = false;
                if (self->m_pending || self->m_generation != generation) {
                    self->m_pending = false;
                    self->schedule(); // the state changed meanwhile: this result is stale
                    return;
                }
                self->m_model->setEvaluation(*eval);
                self->m_view->resizeColumnsToContents();
                self->m_status->setText(tr("Errors against the reference rebuilt from each method's own positions."));
                ++self->m_completed;
                emit self->updated();
            },
            Qt::QueuedConnection);
    }).detach();
}

} // namespace panels
