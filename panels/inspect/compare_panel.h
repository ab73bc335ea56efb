// The Compare dock: the loaded rig against another version of it (File ▸ Compare With…, rig::diffWeights): joints added,
// removed, reparented and moved, how many vertices' weights changed, and per joint where; a joint row selects that
// joint, "Select Changed" makes the changed vertices the selection set (the Weights dock lists them, F frames them).
// The viewport shows the change as the Weight Change heatmap.
#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace app {
class Document;
}

namespace panels {

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparePanel(app::Document* doc, QWidget* parent = nullptr);
    QLabel* summary() const { return m_summary; }
    QTableWidget* joints() const { return m_joints; }
    QPushButton* selectChangedButton() const { return m_selectChanged; }

signals:
    /// "Compare With…": the main window asks for the file.
    void compareRequested();
    void frameRequested();

private:
    void refresh();
    app::Document* m_doc;
    QLabel* m_summary;
    QTableWidget* m_joints;
    QPushButton* m_selectChanged;
    QPushButton* m_clear;
};

} // namespace panels
