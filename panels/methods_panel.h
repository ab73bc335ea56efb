// Every method's error statistics for the current pose, computed off the GUI thread; a row click selects the method.
#pragma once

#include <QWidget>

class QTableView;
class QLabel;

namespace app {
class Document;
}

namespace panels {

class MethodStatsModel;

class MethodsPanel : public QWidget {
    Q_OBJECT
public:
    explicit MethodsPanel(app::Document* doc, QWidget* parent = nullptr);
    ~MethodsPanel() override;
    MethodStatsModel* model() const { return m_model; }
    /// Number of evaluations finished (tests wait on it).
    int completed() const { return m_completed; }
    /// True while a worker is evaluating.
    bool isBusy() const { return m_running; }

signals:
    void updated();

private:
    void schedule();
    app::Document* m_doc;
    MethodStatsModel* m_model;
    QTableView* m_view;
    QLabel* m_status;
    unsigned m_generation = 0;
    bool m_running = false;
    bool m_pending = false;
    int m_completed = 0;
};

} // namespace panels
