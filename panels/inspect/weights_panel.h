// The Weights dock: the raw weights of the selection set's vertices (an Audit finding's, or vertices picked with
// Shift+click / Ctrl+click), one column per joint that weighs any of them, sortable; a click on a row picks that
// vertex (the Vertex dock shows it) and frames it; Copy CSV / TSV puts the table (or the selected rows) on the
// clipboard. Read-only: repairs are explicit commands.
#pragma once

#include <QWidget>

#include <cstdint>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace app {
class Document;
}

namespace panels {

class WeightsModel;

class WeightsPanel : public QWidget {
    Q_OBJECT
public:
    explicit WeightsPanel(app::Document* doc, QWidget* parent = nullptr);
    WeightsModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    /// The table as CSV or TSV (the selected rows when any, else every row), as the copy buttons put it.
    QString tableText(QChar separator) const;

signals:
    /// Frame this global vertex (the main window owns the camera).
    void frameVertexRequested(uint32_t vertex);

private:
    void refresh();
    app::Document* m_doc;
    WeightsModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QLabel* m_summary;
};

} // namespace panels
