// Lists the audit findings of the loaded rig (raw data problems and import notes).
#pragma once

#include <QWidget>

class QTreeWidget;

namespace app {
class Document;
}

namespace panels {

class AuditPanel : public QWidget {
    Q_OBJECT
public:
    explicit AuditPanel(app::Document* doc, QWidget* parent = nullptr);
    int findingCount() const;

private:
    void refresh();
    app::Document* m_doc;
    QTreeWidget* m_tree;
};

} // namespace panels
