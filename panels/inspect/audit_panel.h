// The Audit dock: the findings on the loaded rig's raw data (and the import's notes). Choosing a finding selects all
// its vertices (a selection set the viewport draws); Previous / Next step through them, Frame frames them.
#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
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
    QTreeWidget* tree() const { return m_tree; }
    QPushButton* nextButton() const { return m_next; }
    QPushButton* previousButton() const { return m_previous; }
    QLabel* cursorLabel() const { return m_cursor; }

signals:
    /// Frame the selection set (the main window owns the camera).
    void frameRequested();

private:
    void refresh();
    void select(int finding);
    void updateCursor();
    app::Document* m_doc;
    QTreeWidget* m_tree;
    QPushButton* m_previous = nullptr;
    QPushButton* m_next = nullptr;
    QPushButton* m_frame = nullptr;
    QLabel* m_cursor = nullptr;
};

} // namespace panels
