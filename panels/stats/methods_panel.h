// Every method's error statistics for the current pose (from the document's background evaluation), beside a histogram
// of the current method's normal and tangent errors. A row click selects the method. Two tabs over the histogram choose the
// error shown, as View > Error Measure does for the heatmaps: Total (against the reference rebuilt now) or From
// Skinning (against the reference carried from the bind pose); each shows only its own columns, so the table reads
// whole in a window of 1440 pixels.
#pragma once

#include <QWidget>

class QTableView;
class QTabBar;
class QLabel;

namespace app {
class Document;
}

namespace panels {

class ErrorHistogram;
class MethodStatsModel;

class MethodsPanel : public QWidget {
    Q_OBJECT
public:
    explicit MethodsPanel(app::Document* doc, QWidget* parent = nullptr);
    ~MethodsPanel() override;
    MethodStatsModel* model() const { return m_model; }
    ErrorHistogram* histogram() const { return m_histogram; }
    /// Evaluations shown so far (tests wait on it).
    int completed() const { return m_completed; }
    /// The panel's height that shows every method's row of the table without scrolling (the dock's default height).
    int heightForAllRows() const;
    /// The panel's width that shows every column of the table unelided beside the histogram.
    int widthForAllColumns() const;
    /// The Total / From Skinning tabs over the table.
    QTabBar* measureTabs() const { return m_measure; }
    /// True while the numbers shown are not those of the current state.
    bool isUpdating() const;

signals:
    void updated();

private:
    int tableWidthForAllColumns() const;
    int columnWidthFor(int column) const;
    void refresh();
    void showStatus();
    /// Shows the columns of the document's error measure and selects its tab.
    void applyMeasure();
    app::Document* m_doc;
    QTabBar* m_measure;
    MethodStatsModel* m_model;
    QTableView* m_view;
    ErrorHistogram* m_histogram;
    QLabel* m_status;
    int m_completed = 0;
};

} // namespace panels
