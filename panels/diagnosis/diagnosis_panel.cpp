#include "panels/diagnosis/diagnosis_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "app/document.h"
#include "panels/diagnosis/blend_bands_model.h"
#include "panels/diagnosis/twist_sweep_view.h"
#include "panels/diagnosis/worst_frame_view.h"

namespace panels {

namespace {
constexpr int kCheckRole = Qt::UserRole + 1; ///< which check: 0 hard boundaries, 1 far joints, 2 asymmetry
constexpr int kPairRole = Qt::UserRole + 2;  ///< the pair's index in the check's list, -1 for the check's own row

QString nodeName(const rig::Rig& rig, int node)
{
    if (node < 0 || size_t(node) >= rig.skeleton.nodes.size())
        return QStringLiteral("?");
    const std::string& name = rig.skeleton.nodes[size_t(node)].name;
    return name.empty() ? QStringLiteral("node %1").arg(node) : QString::fromStdString(name);
}

const std::vector<rig::JointPairCount>& pairsOf(const rig::WeightBands& b, int check)
{
    return check == 0 ? b.hardBoundaryPairs : check == 1 ? b.nonAdjacentPairs : b.asymmetricPairs;
}

const std::vector<uint32_t>& verticesOf(const rig::WeightBands& b, int check)
{
    return check == 0 ? b.hardBoundaryVertices : check == 1 ? b.nonAdjacentList : b.asymmetricList;
}
} // namespace

DiagnosisPanel::DiagnosisPanel(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("diagnosisPanel"));
    // As short as the Audit dock beside it: the bottom row of docks is as tall as every method's row of the Methods
    // table, no taller (the tabs' pages take what the row gives them).
    setMinimumHeight(100);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("diagnosisTabs"));
    m_tabs->setDocumentMode(true);
    layout->addWidget(m_tabs);

    // Candy Wrapper.
    auto* candy = new QWidget(m_tabs);
    auto* candyLayout = new QVBoxLayout(candy);
    candyLayout->setContentsMargins(0, 4, 0, 0);
    m_summary = new QLabel(candy);
    m_summary->setObjectName(QStringLiteral("candySummary"));
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // one line; the whole of it in the tooltip
    m_heatmap = new QPushButton(tr("Scale Heatmap"), m_tabs);
    m_heatmap->setObjectName(QStringLiteral("candyHeatmap"));
    m_heatmap->setCheckable(true);
    m_heatmap->setToolTip(tr("Colour the mesh by linear blending's scale loss in this pose: green keeps its "
                             "cross-section, red loses 30 % or more"));
    candyLayout->addWidget(m_summary);
    m_bands = new BlendBandsModel(this);
    m_bandsProxy = new QSortFilterProxyModel(this);
    m_bandsProxy->setSourceModel(m_bands);
    m_bandsProxy->setSortRole(BlendBandsModel::kSortRole);
    m_bandsView = new QTableView(candy);
    m_bandsView->setObjectName(QStringLiteral("blendBandsTable"));
    m_bandsView->setModel(m_bandsProxy);
    m_bandsView->setSortingEnabled(true);
    m_bandsView->sortByColumn(BlendBandsModel::WorstScale, Qt::AscendingOrder);
    m_bandsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_bandsView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_bandsView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_bandsView->verticalHeader()->hide();
    m_bandsView->verticalHeader()->setDefaultSectionSize(m_bandsView->fontMetrics().height() + 3);
    m_bandsView->horizontalHeader()->setStretchLastSection(true);
    m_bandsView->setToolTip(tr("Click a band to select its vertices and the joint that turns, and frame them"));
    m_bandsView->setMinimumHeight(m_bandsView->verticalHeader()->defaultSectionSize() * 3); // fits the row of docks
    candyLayout->addWidget(m_bandsView, 1);
    m_tabs->addTab(candy, tr("Candy Wrapper"));
    m_tabs->setCornerWidget(m_heatmap, Qt::TopRightCorner); // beside the tabs: the dock is one row of the window tall

    // Weight Bands.
    m_weightTree = new QTreeWidget(m_tabs);
    m_weightTree->setObjectName(QStringLiteral("weightBandsTree"));
    m_weightTree->setHeaderLabels({tr("Check / joints"), tr("Count"), tr("Vertices")});
    m_weightTree->setUniformRowHeights(true);
    m_weightTree->setMinimumHeight(m_weightTree->fontMetrics().height() * 3);
    m_weightTree->setToolTip(tr("The authored weights at the bind pose; click a row to select and frame its vertices"));
    m_tabs->addTab(m_weightTree, tr("Weight Bands"));

    // Twist Sweep.
    m_sweep = new TwistSweepView(doc, m_tabs);
    m_tabs->addTab(m_sweep, tr("Twist Sweep"));

    // Worst Frame.
    m_worstFrame = new WorstFrameView(doc, m_tabs);
    m_tabs->addTab(m_worstFrame, tr("Worst Frame"));
    connect(m_worstFrame, &WorstFrameView::frameRequested, this, &DiagnosisPanel::frameRequested);

    connect(doc, &app::Document::evaluationChanged, this, &DiagnosisPanel::onEvaluation);
    connect(doc, &app::Document::rigChanged, this, [this] {
        m_pairA = m_pairB = -1;
        m_bands->setResult(nullptr);
        rebuildWeightTree();
    });
    connect(doc, &app::Document::displayChanged, this, [this] {
        const QSignalBlocker block(m_heatmap);
        m_heatmap->setChecked(m_doc->display().shading == app::Shading::BlendScale);
    });
    connect(m_heatmap, &QPushButton::toggled, this, [this](bool on) {
        m_doc->setShading(on ? app::Shading::BlendScale : app::Shading::Lit);
    });
    connect(m_bandsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
        if (i.isValid())
            selectBand(m_bandsProxy->mapToSource(i).row());
    });
    connect(m_bandsView, &QTableView::clicked, this, [this](const QModelIndex& i) {
        selectBand(m_bandsProxy->mapToSource(i).row());
        if (!m_doc->selectionSet().empty())
            emit frameRequested();
    });
    connect(m_weightTree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item)
            selectWeightItem(item);
    });
    connect(m_weightTree, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        selectWeightItem(item);
        if (!m_doc->selectionSet().empty())
            emit frameRequested();
    });
    m_heatmap->setChecked(doc->display().shading == app::Shading::BlendScale);
    rebuildWeightTree();
    onEvaluation();
}

void DiagnosisPanel::onEvaluation()
{
    std::shared_ptr<const app::EvaluationResult> result = m_doc->evaluationResult();
    if (result && result->rig != m_doc->loadedShared())
        result.reset(); // of the rig before
    {
        // Rebuilding the rows is not a choice of the user's: the band chosen stays chosen, nothing is selected anew.
        const QSignalBlocker block(m_bandsView->selectionModel());
        m_bands->setResult(result);
        const int row = m_bands->rowOf(m_pairA, m_pairB);
        if (row >= 0)
            m_bandsView->selectionModel()->setCurrentIndex(m_bandsProxy->mapFromSource(m_bands->index(row, 0)),
                                                           QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
    for (int c = 0; c < BlendBandsModel::ColumnCount - 1; ++c)
        m_bandsView->resizeColumnToContents(c);
    if (!result) {
        m_summary->setText(tr("No evaluation yet"));
        return;
    }
    const rig::CandyWrapper& cw = result->candyWrapper;
    const rig::Rig& rig = result->rig->rig;
    if (cw.worstMesh < 0) {
        m_summary->setText(tr("No vertex blends two joints: linear blending cannot collapse this rig"));
    } else if (cw.worstNodeA < 0 || cw.worstNodeB < 0) {
        m_summary->setText(tr("Linear blending keeps at least %1 of every cross-section").arg(cw.minScale, 0, 'f', 3));
    } else {
        m_summary->setText(tr("Worst scale %1 (%2 / %3) · %4 vertices below 0.9 · %5 below 0.7")
                               .arg(cw.minScale, 0, 'f', 3)
                               .arg(nodeName(rig, cw.worstNodeA), nodeName(rig, cw.worstNodeB))
                               .arg(cw.below09)
                               .arg(cw.below07));
    }
    m_summary->setToolTip(m_summary->text());
}

void DiagnosisPanel::selectBand(int row)
{
    const rig::BlendBand* band = m_bands->band(row);
    if (!band)
        return;
    m_pairA = band->nodeA;
    m_pairB = band->nodeB;
    app::SelectionSet set;
    set.label = tr("candy wrapper %1").arg(m_bands->jointsText(row));
    set.vertices = m_bands->vertices(row);
    const int worst = m_bands->worstVertex(row);
    const auto it = std::lower_bound(set.vertices->begin(), set.vertices->end(), uint32_t(std::max(worst, 0)));
    set.current = it != set.vertices->end() && int(*it) == worst ? size_t(it - set.vertices->begin()) : 0;
    m_doc->setSelectedJoint(band->nodeB);
    m_doc->setSelectionSet(std::move(set));
}

void DiagnosisPanel::rebuildWeightTree()
{
    const QSignalBlocker block(m_weightTree);
    m_weightTree->clear();
    const app::LoadedRig* l = m_doc->loaded();
    if (!l)
        return;
    const rig::WeightBands& b = l->bands;
    const rig::Rig& rig = l->rig;
    const QString titles[3] = {tr("Hard weight boundaries"), tr("Influences from far joints"), tr("Left/right asymmetry")};
    const QString tips[3] = {
        tr("Edges across which a joint's weight changes by half the vertex's weight or more: a band one edge wide, "
           "where faceting and pinching come from (largest change over all edges: %1)").arg(b.maxDelta, 0, 'f', 2),
        tr("Vertices weighted by two joints more than two bones apart in the hierarchy: the stray vertex between limbs"),
        b.mirrorAxis < 0 ? tr("No joints are paired by a left/right name: nothing to compare")
                         : tr("Vertices whose mirrored partner (across %1 = %2; %3 joint pairs by name) has other weights "
                              "(by more than 0.05); %4 vertices have no partner")
                               .arg(QChar(char('x' + b.mirrorAxis)))
                               .arg(b.mirrorOffset, 0, 'g', 4)
                               .arg(b.mirroredJoints.size())
                               .arg(b.unmatchedVertices)};
    const size_t counts[3] = {b.hardBoundaryEdges, b.nonAdjacentVertices, b.asymmetricVertices};
    const QString units[3] = {tr("edges"), tr("vertices"), tr("vertices")};
    for (int check = 0; check < 3; ++check) {
        auto* item = new QTreeWidgetItem(m_weightTree);
        item->setText(0, titles[check]);
        item->setText(1, QStringLiteral("%1 %2").arg(counts[check]).arg(units[check]));
        item->setText(2, QString::number(verticesOf(b, check).size()));
        item->setToolTip(0, tips[check]);
        item->setData(0, kCheckRole, check);
        item->setData(0, kPairRole, -1);
        if (counts[check] > 0)
            item->setForeground(1, QColor(200, 130, 0));
        const std::vector<rig::JointPairCount>& pairs = pairsOf(b, check);
        for (size_t p = 0; p < pairs.size(); ++p) {
            auto* child = new QTreeWidgetItem(item);
            child->setText(0, QStringLiteral("%1 ↔ %2").arg(nodeName(rig, pairs[p].nodeA), nodeName(rig, pairs[p].nodeB)));
            child->setText(1, QString::number(pairs[p].count));
            child->setText(2, QString::number(pairs[p].vertices.size()));
            child->setData(0, kCheckRole, check);
            child->setData(0, kPairRole, int(p));
        }
        item->setExpanded(pairs.size() <= 8);
    }
    m_weightTree->resizeColumnToContents(0);
    m_weightTree->resizeColumnToContents(1);
}

void DiagnosisPanel::selectWeightItem(QTreeWidgetItem* item)
{
    std::shared_ptr<const app::LoadedRig> l = m_doc->loadedShared();
    if (!l || !item)
        return;
    const int check = item->data(0, kCheckRole).toInt(), pair = item->data(0, kPairRole).toInt();
    const std::vector<rig::JointPairCount>& pairs = pairsOf(l->bands, check);
    app::SelectionSet set;
    set.label = item->text(0);
    if (pair >= 0 && size_t(pair) < pairs.size()) {
        set.vertices = std::shared_ptr<const std::vector<uint32_t>>(l, &pairs[size_t(pair)].vertices);
        m_doc->setSelectedJoint(pairs[size_t(pair)].nodeA);
    } else {
        set.vertices = std::shared_ptr<const std::vector<uint32_t>>(l, &verticesOf(l->bands, check));
    }
    m_doc->setSelectionSet(std::move(set)); // an empty list clears the set
}

} // namespace panels
