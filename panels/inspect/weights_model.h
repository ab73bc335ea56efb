// The Weights table (Maya's Component Editor, Blender's vertex weights): one row per vertex of a selection, one column
// per joint that weighs any of them, the raw authored weights as the file gives them (empty where a joint does not
// weigh the vertex), their sum and the usable influence count. Read-only; cells are read from the rig on demand, so
// ten thousand selected vertices cost one pass over their influences to find the columns, nothing per cell.
#pragma once

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace rig {
struct Influence;
struct Rig;
struct Skin;
}

namespace panels {

class WeightsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum FixedColumn { ColMesh, ColVertex, kLeadingColumns };
    static constexpr int kSortRole = Qt::UserRole; ///< numbers as numbers (an empty cell sorts as 0)

    explicit WeightsModel(QObject* parent = nullptr);

    /// `rig` must outlive the model or be replaced; `vertices` are global indices (meshes concatenated in file order).
    void setSelection(std::shared_ptr<const rig::Rig> rig, std::shared_ptr<const std::vector<uint32_t>> vertices);
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// The global vertex of a row.
    uint32_t vertexAt(int row) const { return (*m_vertices)[size_t(row)]; }
    /// The node a joint column stands for; -1 for the other columns.
    int nodeAt(int column) const;
    int sumColumn() const { return kLeadingColumns + int(m_nodes.size()); }
    int countColumn() const { return sumColumn() + 1; }

    /// The table as text: a header line, then one line per row in `rows` (model rows; all when empty), fields
    /// separated by `separator` (',' for CSV: fields with a comma or a quote are quoted; '\t' for TSV).
    QString toText(QChar separator, const std::vector<int>& rows = {}) const;

private:
    struct Located {
        size_t mesh = 0, local = 0;
    };
    Located locate(uint32_t global) const;
    /// A row's raw entries [begin, end) and the node each names (-1 for a zero weight or a joint out of range); empty
    /// for an unskinned mesh or broken offsets.
    struct Entries {
        const rig::Influence* begin = nullptr;
        const rig::Influence* end = nullptr;
        const rig::Skin* skin = nullptr;
        int nodeOf(const rig::Influence& in) const;
    };
    Entries entriesOf(int row) const;
    /// The raw weight of `node` on the row's vertex: summed over its entries naming that node; false when none does.
    bool weightOf(int row, int node, double& w) const;
    /// The sum and the count of the row's positive cells, as the Σw and Influences columns show them.
    void totalsOf(int row, double& sum, int& count, bool& finite) const;

    std::shared_ptr<const rig::Rig> m_rig;
    std::shared_ptr<const std::vector<uint32_t>> m_vertices;
    std::vector<uint32_t> m_meshBegin; ///< global index of each mesh's first vertex
    std::vector<int> m_nodes;          ///< the joint columns, in node order
};

} // namespace panels
