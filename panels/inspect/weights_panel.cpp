#include "weights_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

#include "app/document.h"
#include "weights_model.h"

namespace panels {

WeightsPanel::WeightsPanel(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("weightsPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_model = new WeightsModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(WeightsModel::kSortRole);
    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("weightsTable"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 3);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    // Column widths from the first 200 rows: enough to read, and a selection of 10,000 vertices resizes as fast as one
    // of 200.
    m_view->horizontalHeader()->setResizeContentsPrecision(200);
    layout->addWidget(m_view, 1);

    auto* row = new QHBoxLayout;
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("weightsSummary"));
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* csv = new QPushButton(tr("Copy CSV"), this);
    csv->setObjectName(QStringLiteral("copyCsv"));
    auto* tsv = new QPushButton(tr("Copy TSV"), this);
    tsv->setObjectName(QStringLiteral("copyTsv"));
    tsv->setToolTip(tr("Tab-separated: pastes into a spreadsheet's cells"));
    row->addWidget(m_summary, 1);
    row->addWidget(csv);
    row->addWidget(tsv);
    layout->addLayout(row);

    connect(csv, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(tableText(QLatin1Char(','))); });
    connect(tsv, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(tableText(QLatin1Char('\t'))); });
    connect(m_view, &QTableView::clicked, this, [this](const QModelIndex& i) {
        if (!i.isValid())
            return;
        const uint32_t v = m_model->vertexAt(m_proxy->mapToSource(i).row());
        m_doc->setSelectedVertex(int(v));
        emit frameVertexRequested(v);
    });
    connect(doc, &app::Document::selectionSetChanged, this, &WeightsPanel::refresh);
    connect(doc, &app::Document::rigChanged, this, &WeightsPanel::refresh);
    refresh();
}

QString WeightsPanel::tableText(QChar separator) const
{
    std::vector<int> rows;
    if (m_view->selectionModel())
        for (const QModelIndex& i : m_view->selectionModel()->selectedRows())
            rows.push_back(m_proxy->mapToSource(i).row());
    if (rows.empty()) // every row, in the order shown
        for (int r = 0; r < m_proxy->rowCount(); ++r)
            rows.push_back(m_proxy->mapToSource(m_proxy->index(r, 0)).row());
    else
        std::sort(rows.begin(), rows.end(), [this](int a, int b) {
            return m_proxy->mapFromSource(m_model->index(a, 0)).row() < m_proxy->mapFromSource(m_model->index(b, 0)).row();
        });
    return m_model->toText(separator, rows);
}

void WeightsPanel::refresh()
{
    const auto loaded = m_doc->loadedShared();
    const app::SelectionSet& set = m_doc->selectionSet();
    if (!loaded || set.empty()) {
        m_model->clear();
        m_summary->setText(loaded ? tr("Select vertices: an Audit finding, or Shift+click, Ctrl+click or Shift+drag in the viewport")
                                  : QString());
        return;
    }
    m_model->setSelection(std::shared_ptr<const rig::Rig>(loaded, &loaded->rig), set.vertices);
    m_view->resizeColumnsToContents();
    m_summary->setText(tr("%1 · %2 vertices, %3 joints").arg(set.label).arg(m_model->rowCount()).arg(m_model->sumColumn() - WeightsModel::kLeadingColumns));
    m_summary->setToolTip(m_summary->text());
}

} // namespace panels
