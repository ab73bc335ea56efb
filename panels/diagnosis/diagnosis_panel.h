// The Diagnosis dock: what a technical artist looks for first, named and selectable.
//   Candy Wrapper: the bands of vertices that linear blending shrinks in the current pose (the joints they blend,
//     the worst scale and where, the counts below 0.9 and 0.7), worst first; a click selects the band's vertices,
//     selects the joint that turns and frames them; Scale Heatmap shows the Candy-Wrapper Scale Loss view.
//   Weight Bands: the checks of the authored weights (hard boundaries, influences from far joints, left/right
//     asymmetry; rig/analysis/diagnosis/weight_bands.h), each by joint pair; a click selects and frames the vertices.
//   Twist Sweep: the selected joint turned 0° to 180° about its bone, linear blending's and dual quaternions' worst
//     scale over its band against cos(θ / 2) (twist_sweep_view.h).
//   Worst Frame: the clip playing scanned, the worst frame per method and of the scale loss; a click goes there
//     (worst_frame_view.h).
// Everything shown is computed off the GUI thread (the evaluator, the loader): the panel only lists it.
#pragma once

#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTreeWidget;
class QTreeWidgetItem;

namespace app {
class Document;
}

namespace panels {

class BlendBandsModel;
class TwistSweepView;
class WorstFrameView;

class DiagnosisPanel : public QWidget {
    Q_OBJECT
public:
    explicit DiagnosisPanel(app::Document* doc, QWidget* parent = nullptr);
    BlendBandsModel* bandsModel() const { return m_bands; }
    QTableView* bandsView() const { return m_bandsView; }
    QTreeWidget* weightTree() const { return m_weightTree; }
    QLabel* summary() const { return m_summary; }
    QTabWidget* tabs() const { return m_tabs; }
    TwistSweepView* sweepView() const { return m_sweep; }
    WorstFrameView* worstFrameView() const { return m_worstFrame; }
    /// Selects band `row` of the model (not the sorted view): its vertices, worst vertex current, the joint that turns.
    void selectBand(int row);

signals:
    /// Frame the selection set (the main window owns the camera).
    void frameRequested();

private:
    void onEvaluation();
    void rebuildWeightTree();
    void selectWeightItem(QTreeWidgetItem* item);
    app::Document* m_doc;
    QTabWidget* m_tabs;
    BlendBandsModel* m_bands;
    QSortFilterProxyModel* m_bandsProxy;
    QTableView* m_bandsView;
    QLabel* m_summary;
    QPushButton* m_heatmap;
    QTreeWidget* m_weightTree;
    TwistSweepView* m_sweep;
    WorstFrameView* m_worstFrame;
    int m_pairA = -1, m_pairB = -1; ///< the band chosen last, kept as the rows change with the pose
};

} // namespace panels
