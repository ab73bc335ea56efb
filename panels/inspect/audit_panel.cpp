#include "audit_panel.h"

#include <QHeaderView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/document.h"

namespace panels {

AuditPanel::AuditPanel(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("auditPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_tree = new QTreeWidget(this);
    m_tree->setHeaderLabels({tr("Severity"), tr("Code"), tr("Count"), tr("Message")});
    m_tree->setRootIsDecorated(false);
    m_tree->header()->setStretchLastSection(true);
    layout->addWidget(m_tree);
    connect(doc, &app::Document::rigChanged, this, &AuditPanel::refresh);
    // Clicking a finding selects its first example vertex (vertex-indexed codes only).
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        const QVariant v = item->data(0, Qt::UserRole);
        if (v.isValid())
            m_doc->setSelectedVertex(v.toInt());
    });
    refresh();
}

int AuditPanel::findingCount() const { return m_tree->topLevelItemCount(); }

void AuditPanel::refresh()
{
    m_tree->clear();
    const app::LoadedRig* l = m_doc->loaded();
    if (!l)
        return;
    for (const rig::AuditFinding& f : l->audit.findings) {
        auto* item = new QTreeWidgetItem(m_tree);
        item->setText(0, QString::fromLatin1(rig::severityName(f.severity).data()));
        item->setText(1, QString::fromStdString(f.code));
        item->setText(2, QString::number(f.count));
        item->setText(3, QString::fromStdString(f.message));
        item->setToolTip(3, QString::fromStdString(f.message));
        const QColor c = f.severity == rig::AuditFinding::Severity::Error     ? QColor(200, 40, 40)
                         : f.severity == rig::AuditFinding::Severity::Warning ? QColor(200, 130, 0)
                                                                              : QColor(90, 90, 90);
        item->setForeground(0, c);
        // Vertex-indexed findings: remember the first example as a global vertex index.
        const bool vertexCode = f.code.find("weight") != std::string::npos || f.code == "joint-out-of-range" ||
                                f.code == "unweighted-vertex" || f.code.rfind("over-", 0) == 0 ||
                                f.code == "duplicate-influence" || f.code.rfind("non-finite-", 0) == 0;
        if (vertexCode && !f.examples.empty()) {
            size_t base = 0;
            for (const rig::Mesh& m : l->rig.meshes) {
                if (m.name == f.mesh)
                    break;
                base += m.vertexCount();
            }
            item->setData(0, Qt::UserRole, int(base + f.examples.front()));
        }
    }
    for (int c = 0; c < 3; ++c)
        m_tree->resizeColumnToContents(c);
}

} // namespace panels
