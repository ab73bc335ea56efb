#include "audit_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/document.h"

namespace panels {

namespace {
constexpr int kFindingRole = Qt::UserRole + 1;
}

AuditPanel::AuditPanel(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("auditPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("auditTree"));
    m_tree->setHeaderLabels({tr("Severity"), tr("Code"), tr("Count"), tr("Message")});
    m_tree->setRootIsDecorated(false);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setStretchLastSection(true);
    layout->addWidget(m_tree, 1);

    auto* row = new QHBoxLayout;
    m_previous = new QPushButton(tr("◀"), this);
    m_previous->setObjectName(QStringLiteral("auditPrevious"));
    m_previous->setToolTip(tr("The finding's previous vertex (Shift+[)"));
    m_next = new QPushButton(tr("▶"), this);
    m_next->setObjectName(QStringLiteral("auditNext"));
    m_next->setToolTip(tr("The finding's next vertex (Shift+])"));
    m_frame = new QPushButton(tr("Frame"), this);
    m_frame->setObjectName(QStringLiteral("auditFrame"));
    m_frame->setToolTip(tr("Frame the finding's vertices (F)"));
    m_cursor = new QLabel(this);
    m_cursor->setObjectName(QStringLiteral("auditCursor"));
    // The panel fits a narrow column: the cursor's text gives way (its full text is the tooltip too).
    m_cursor->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_cursor->setMinimumWidth(40);
    row->addWidget(m_previous);
    row->addWidget(m_next);
    row->addWidget(m_frame);
    row->addWidget(m_cursor, 1);
    layout->addLayout(row);

    connect(doc, &app::Document::rigChanged, this, &AuditPanel::refresh);
    connect(doc, &app::Document::selectionSetChanged, this, &AuditPanel::updateCursor);
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item)
            select(item->data(0, kFindingRole).toInt());
    });
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        select(item->data(0, kFindingRole).toInt());
        if (!m_doc->selectionSet().empty())
            emit frameRequested();
    });
    connect(m_previous, &QPushButton::clicked, this, [this] { m_doc->stepSelectionSet(-1); });
    connect(m_next, &QPushButton::clicked, this, [this] { m_doc->stepSelectionSet(+1); });
    connect(m_frame, &QPushButton::clicked, this, &AuditPanel::frameRequested);
    refresh();
}

int AuditPanel::findingCount() const { return m_tree->topLevelItemCount(); }

void AuditPanel::refresh()
{
    const QSignalBlocker block(m_tree);
    m_tree->clear();
    const app::LoadedRig* l = m_doc->loaded();
    if (l) {
        for (size_t i = 0; i < l->audit.findings.size(); ++i) {
            const rig::AuditFinding& f = l->audit.findings[i];
            auto* item = new QTreeWidgetItem(m_tree);
            item->setText(0, QString::fromLatin1(rig::severityName(f.severity).data()));
            item->setText(1, QString::fromStdString(f.code));
            item->setText(2, QString::number(f.count));
            item->setText(3, QString::fromStdString(f.message));
            item->setToolTip(3, QString::fromStdString(f.message));
            item->setData(0, kFindingRole, int(i));
            const QColor c = f.severity == rig::AuditFinding::Severity::Error     ? QColor(200, 40, 40)
                             : f.severity == rig::AuditFinding::Severity::Warning ? QColor(200, 130, 0)
                                                                                  : QColor(90, 90, 90);
            item->setForeground(0, c);
        }
        for (int c = 0; c < 3; ++c)
            m_tree->resizeColumnToContents(c);
    }
    updateCursor();
}

void AuditPanel::select(int finding)
{
    const app::LoadedRig* l = m_doc->loaded();
    if (!l || finding < 0 || size_t(finding) >= l->findingVertices.size())
        return;
    const rig::AuditFinding& f = l->audit.findings[size_t(finding)];
    app::SelectionSet set;
    set.label = QStringLiteral("%1%2").arg(QString::fromStdString(f.code),
                                           f.mesh.empty() ? QString() : QStringLiteral(" (%1)").arg(QString::fromStdString(f.mesh)));
    set.vertices = l->findingVertices[size_t(finding)];
    m_doc->setSelectionSet(std::move(set)); // an empty list (a joint finding) clears the set
}

void AuditPanel::updateCursor()
{
    const app::SelectionSet& s = m_doc->selectionSet();
    const bool has = !s.empty();
    m_previous->setEnabled(has && s.size() > 1);
    m_next->setEnabled(has && s.size() > 1);
    m_frame->setEnabled(has);
    m_cursor->setText(has ? tr("%1: vertex %2 (%3 of %4)").arg(s.label).arg(s.currentVertex()).arg(s.current + 1).arg(s.size())
                          : tr("Choose a finding to select its vertices"));
    m_cursor->setToolTip(m_cursor->text());
}

} // namespace panels
