#include "compare_panel.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/document.h"

namespace panels {

ComparePanel::ComparePanel(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("comparePanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("compareSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_joints = new QTableWidget(0, 3, this);
    m_joints->setObjectName(QStringLiteral("compareJoints"));
    m_joints->setHorizontalHeaderLabels({tr("Joint"), tr("Vertices changed"), tr("Max change")});
    m_joints->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_joints->verticalHeader()->hide();
    m_joints->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_joints->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_joints->setSelectionMode(QAbstractItemView::SingleSelection);
    layout->addWidget(m_joints, 1);
    auto* buttons = new QHBoxLayout;
    auto* compare = new QPushButton(tr("Compare With…"), this);
    m_selectChanged = new QPushButton(tr("Select Changed"), this);
    m_selectChanged->setObjectName(QStringLiteral("compareSelectChanged"));
    m_selectChanged->setToolTip(tr("The vertices whose weights changed become the selection (F frames them)"));
    m_clear = new QPushButton(tr("Clear"), this);
    buttons->addWidget(compare);
    buttons->addWidget(m_selectChanged);
    buttons->addStretch(1);
    buttons->addWidget(m_clear);
    layout->addLayout(buttons);

    connect(compare, &QPushButton::clicked, this, &ComparePanel::compareRequested);
    connect(m_clear, &QPushButton::clicked, m_doc, &app::Document::clearComparison);
    connect(m_selectChanged, &QPushButton::clicked, this, [this] {
        const auto c = m_doc->comparison();
        if (!c || c->changedVertices->empty())
            return;
        app::SelectionSet set;
        set.label = tr("weights changed against %1").arg(QFileInfo(c->otherPath).fileName());
        set.vertices = c->changedVertices;
        m_doc->setSelectionSet(std::move(set));
        emit frameRequested();
    });
    connect(m_joints, &QTableWidget::cellClicked, this, [this](int row, int) {
        const QTableWidgetItem* item = m_joints->item(row, 0);
        const app::LoadedRig* l = m_doc->loaded();
        if (item && l)
            m_doc->setSelectedJoint(l->rig.skeleton.find(item->text().toStdString())); // -1 when only A has it
    });
    connect(m_doc, &app::Document::comparisonChanged, this, &ComparePanel::refresh);
    connect(m_doc, &app::Document::comparisonStarted, this,
            [this](const QString& path) { m_summary->setText(tr("Comparing with %1…").arg(QFileInfo(path).fileName())); });
    connect(m_doc, &app::Document::comparisonFailed, this,
            [this](const QString& message) { m_summary->setText(tr("The comparison failed: %1").arg(message)); });
    refresh();
}

void ComparePanel::refresh()
{
    const auto c = m_doc->comparison();
    m_joints->setRowCount(0);
    m_selectChanged->setEnabled(c && !c->changedVertices->empty());
    m_clear->setEnabled(bool(c));
    if (!c) {
        m_summary->setText(tr("Compare the loaded rig with another version of it (File ▸ Compare With…): the weights "
                              "that changed, by vertex and by joint, and the joints added or removed."));
        return;
    }
    const rig::RigDiff& d = c->diff;
    auto names = [](const std::vector<std::string>& v) {
        QStringList out;
        for (size_t i = 0; i < v.size() && i < 8; ++i)
            out << QString::fromStdString(v[i]);
        if (v.size() > 8)
            out << QStringLiteral("…");
        return out.join(QStringLiteral(", "));
    };
    QStringList lines;
    lines << tr("Against <b>%1</b> (the loaded rig is B), vertices matched by %2: %3 of %4.")
                 .arg(QFileInfo(c->otherPath).fileName().toHtmlEscaped(), QString::fromLatin1(rig::vertexMatchName(d.match)))
                 .arg(d.matched)
                 .arg(d.verticesB);
    if (d.weightChangedVertices > 0)
        lines << tr("<b>%1</b> vertices' weights changed by more than %2 (max %3 at vertex %4).")
                     .arg(d.weightChangedVertices)
                     .arg(double(rig::RigDiffOptions{}.weightThreshold))
                     .arg(double(d.maxWeightChange), 0, 'f', 3)
                     .arg(d.maxWeightChangeVertex);
    else
        lines << tr("No vertex's weights changed by more than %1.").arg(double(rig::RigDiffOptions{}.weightThreshold));
    if (!d.jointsAdded.empty())
        lines << tr("Joints added: %1.").arg(names(d.jointsAdded).toHtmlEscaped());
    if (!d.jointsRemoved.empty())
        lines << tr("Joints removed: %1.").arg(names(d.jointsRemoved).toHtmlEscaped());
    for (const rig::JointDiff& j : d.jointsReparented)
        lines << tr("%1 reparented: %2 → %3.")
                     .arg(QString::fromStdString(j.name).toHtmlEscaped(),
                          QString::fromStdString(j.parentA.empty() ? "(root)" : j.parentA).toHtmlEscaped(),
                          QString::fromStdString(j.parentB.empty() ? "(root)" : j.parentB).toHtmlEscaped());
    if (!d.jointsMoved.empty())
        lines << tr("%1 joints moved at the bind pose.").arg(d.jointsMoved.size());
    if (d.unmatchedA + d.unmatchedB > 0)
        lines << tr("Unmatched vertices: %1 only in the other version, %2 only here (violet).").arg(d.unmatchedA).arg(d.unmatchedB);
    m_summary->setText(lines.join(QStringLiteral("<br>")));
    m_joints->setRowCount(int(d.jointChanges.size()));
    for (int i = 0; i < int(d.jointChanges.size()); ++i) {
        const rig::JointWeightChange& j = d.jointChanges[size_t(i)];
        m_joints->setItem(i, 0, new QTableWidgetItem(QString::fromStdString(j.joint)));
        auto* count = new QTableWidgetItem(QString::number(j.vertices));
        count->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_joints->setItem(i, 1, count);
        auto* max = new QTableWidgetItem(QString::number(double(j.maxChange), 'f', 3));
        max->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_joints->setItem(i, 2, max);
    }
}

} // namespace panels
