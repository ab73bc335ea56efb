#include "methods_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "app/document.h"
#include "error_histogram.h"
#include "method_stats_model.h"

namespace panels {

MethodsPanel::MethodsPanel(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("methodsPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* split = new QSplitter(Qt::Horizontal, this);
    m_model = new MethodStatsModel(this);
    m_view = new QTableView(split);
    m_view->setObjectName(QStringLiteral("methodsTable"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(20);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_histogram = new ErrorHistogram(split);
    split->addWidget(m_view);
    split->addWidget(m_histogram);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    m_histogram->setMinimumWidth(380);
    split->setSizes({700, 460});
    m_status = new QLabel(this);
    layout->addWidget(split, 1);
    layout->addWidget(m_status);
    connect(m_view, &QTableView::clicked, this, [this](const QModelIndex& i) {
        if (i.isValid())
            m_doc->setMethod(m_model->methodAt(i.row()));
    });
    connect(doc, &app::Document::evaluationChanged, this, &MethodsPanel::refresh);
    connect(doc, &app::Document::evaluationRequested, this, &MethodsPanel::showStatus);
    connect(doc, &app::Document::displayChanged, this, [this] {
        m_histogram->show(m_doc->evaluation(), m_doc->display().method, m_doc->display().errorMeasure);
    });
    connect(doc, &app::Document::rigChanged, this, [this] {
        m_model->clear();
        m_histogram->clear();
        showStatus();
    });
    refresh();
}

MethodsPanel::~MethodsPanel() = default;

bool MethodsPanel::isUpdating() const { return m_doc->loaded() && !m_doc->evaluationCurrent(); }

void MethodsPanel::refresh()
{
    const rig::Evaluation& eval = m_doc->evaluation();
    if (eval.methods.empty()) {
        m_model->clear();
        m_histogram->clear();
    } else {
        m_model->setEvaluation(eval);
        m_histogram->show(eval, m_doc->display().method, m_doc->display().errorMeasure);
        if (m_completed == 0)
            m_view->resizeColumnsToContents();
        ++m_completed;
    }
    showStatus();
    emit updated();
}

void MethodsPanel::showStatus()
{
    if (!m_doc->loaded()) {
        m_status->clear();
        return;
    }
    const auto result = m_doc->evaluationResult();
    if (isUpdating())
        m_status->setText(tr("Updating… (the numbers shown are of the previous pose)"));
    else if (result)
        m_status->setText(tr("Every method against the reference rebuilt from its own positions; \"skin\": against the "
                             "reference carried from the bind pose. Evaluated in %1 ms.")
                              .arg(result->milliseconds, 0, 'f', 1));
}

} // namespace panels
