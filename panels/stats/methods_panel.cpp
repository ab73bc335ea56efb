#include "methods_panel.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStyle>
#include <QTabBar>

#include <algorithm>
#include <QTableView>
#include <QVBoxLayout>

#include "app/document.h"
#include "error_histogram.h"
#include "method_stats_model.h"

namespace panels {

namespace {
/// The columns of one error measure's tab (the method, handedness and notes show in both).
bool columnOfMeasure(int column, app::ErrorMeasure measure)
{
    const bool skinning = column == MethodStatsModel::ColSkinningNormalMax || column == MethodStatsModel::ColSkinningNormalMean ||
                          column == MethodStatsModel::ColSkinningTangentMean;
    const bool total = column >= MethodStatsModel::ColNormalMax && column <= MethodStatsModel::ColTangentP95;
    return measure == app::ErrorMeasure::Skinning ? !total : !skinning;
}
} // namespace

MethodsPanel::MethodsPanel(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("methodsPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    auto* split = new QSplitter(Qt::Horizontal, this);
    m_model = new MethodStatsModel(this);
    m_view = new QTableView(split);
    // The histogram and, under it, what the numbers are against and how long they took: the table keeps the height.
    // Over the histogram, the error measure's tabs (they choose the table's columns and the histogram's errors
    // alike; here they cost the table no row).
    auto* side = new QWidget(split);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->setSpacing(2);
    m_measure = new QTabBar(side);
    m_measure->setObjectName(QStringLiteral("methodsMeasure"));
    m_measure->setDocumentMode(true);
    m_measure->setDrawBase(false);
    m_measure->addTab(tr("Total error"));
    m_measure->setTabToolTip(0, tr("Against the reference rebuilt now from each method's own positions"));
    m_measure->addTab(tr("From skinning"));
    m_measure->setTabToolTip(1, tr("Against the reference carried from the bind pose: what skinning gets wrong, what "
                                   "authoring already differed by left out"));

    m_view->setObjectName(QStringLiteral("methodsTable"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    // Compact rows: every method's row shows at the dock's default height (heightForAllRows).
    m_view->verticalHeader()->setMinimumSectionSize(1);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 1);
    m_view->horizontalHeader()->setStretchLastSection(true);
    for (int c = 0; c < m_model->columnCount(); ++c)
        m_view->setColumnWidth(c, columnWidthFor(c));
    m_histogram = new ErrorHistogram(side);
    m_status = new QLabel(side);
    m_status->setWordWrap(true);
    QFont small = m_status->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_status->setFont(small);
    sideLayout->addWidget(m_measure);
    sideLayout->addWidget(m_histogram, 1);
    sideLayout->addWidget(m_status);
    split->addWidget(m_view);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    m_histogram->setMinimumWidth(260);
    m_histogram->setMinimumHeight(60);
    split->setSizes({tableWidthForAllColumns(), m_histogram->minimumWidth()});
    layout->addWidget(split, 1);
    connect(m_view, &QTableView::clicked, this, [this](const QModelIndex& i) {
        if (i.isValid())
            m_doc->setMethod(m_model->methodAt(i.row()));
    });
    connect(doc, &app::Document::evaluationChanged, this, &MethodsPanel::refresh);
    connect(doc, &app::Document::evaluationRequested, this, &MethodsPanel::showStatus);
    connect(doc, &app::Document::displayChanged, this, [this] {
        m_histogram->show(m_doc->evaluation(), m_doc->display().method, m_doc->display().errorMeasure);
        applyMeasure();
    });
    connect(m_measure, &QTabBar::currentChanged, this, [this](int tab) {
        app::DisplaySettings d = m_doc->display();
        d.errorMeasure = tab == 1 ? app::ErrorMeasure::Skinning : app::ErrorMeasure::Total;
        if (!(d == m_doc->display()))
            m_doc->setDisplay(d);
    });
    applyMeasure();
    connect(doc, &app::Document::rigChanged, this, [this] {
        m_model->clear();
        m_histogram->clear();
        showStatus();
    });
    refresh();
}

MethodsPanel::~MethodsPanel() = default;

int MethodsPanel::heightForAllRows() const
{
    const QMargins m = layout()->contentsMargins();
    const int header = m_view->horizontalHeader()->sizeHint().height();
    const int rows = std::max(m_model->rowCount(), int(rig::kMethodCount)) * m_view->verticalHeader()->defaultSectionSize();
    return m.top() + m.bottom() + 2 * m_view->frameWidth() + header + rows + 2;
}

int MethodsPanel::columnWidthFor(int column) const
{
    // Wide enough for any value the column can hold: the longest method id, an angle up to "180.00°", a count up to
    // five digits; never narrower than the header.
    const QFontMetrics fm = m_view->fontMetrics();
    const int pad = 2 * (m_view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_view) + 1) + 2;
    const int header = m_view->horizontalHeader()->sectionSizeHint(column);
    QString widest = QStringLiteral("180.00°");
    if (column == MethodStatsModel::ColMethod)
        widest = QStringLiteral("blend-inverse-transpose");
    else if (column == MethodStatsModel::ColHandedness)
        widest = QStringLiteral("99999");
    else if (column == MethodStatsModel::ColNotes)
        widest = QStringLiteral("MMMMMMMM");
    return std::max(header, fm.horizontalAdvance(widest) + pad);
}

int MethodsPanel::tableWidthForAllColumns() const
{
    // The wider of the two tabs' column sets.
    int widest = 0;
    for (app::ErrorMeasure measure : {app::ErrorMeasure::Total, app::ErrorMeasure::Skinning}) {
        int width = 0;
        for (int c = 0; c < m_model->columnCount(); ++c)
            width += columnOfMeasure(c, measure) ? columnWidthFor(c) : 0;
        widest = std::max(widest, width);
    }
    return widest + 2 * m_view->frameWidth() + m_view->style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 4;
}

void MethodsPanel::applyMeasure()
{
    const app::ErrorMeasure measure = m_doc->display().errorMeasure;
    {
        const QSignalBlocker block(m_measure);
        m_measure->setCurrentIndex(measure == app::ErrorMeasure::Skinning ? 1 : 0);
    }
    for (int c = 0; c < m_model->columnCount(); ++c)
        m_view->setColumnHidden(c, !columnOfMeasure(c, measure));
}

int MethodsPanel::widthForAllColumns() const
{
    return tableWidthForAllColumns() + m_histogram->minimumWidth() + 12;
}

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
        if (m_completed == 0) {
            // The table keeps what its columns need; the histogram takes the rest of the row.
            if (auto* split = qobject_cast<QSplitter*>(m_view->parentWidget())) {
                const int need = tableWidthForAllColumns(), total = split->width();
                if (total > need + m_histogram->minimumWidth())
                    split->setSizes({need, total - need});
            }
        }
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
        m_status->setText(tr("Evaluated in %1 ms; \"skin\": from the bind pose").arg(result->milliseconds, 0, 'f', 1));
    m_status->setToolTip(tr("Every method against the reference rebuilt from its own positions; \"skin\" columns: "
                            "against the reference carried from the bind pose (what skinning gets wrong, authoring "
                            "aside)."));
}

} // namespace panels
