// The candy-wrapper bands of the latest evaluation (rig::CandyWrapper::bands) as a table: one row per pair of joints
// that a band of vertices blends (their two largest weights), its worst scale, where, and how many vertices of it lose
// more than 10 % and 30 %. The model holds the evaluation it shows, so a row's vertex list stays valid while shown.
#pragma once

#include <QAbstractTableModel>

#include <cstdint>
#include <memory>
#include <vector>

namespace app {
struct EvaluationResult;
}
namespace rig {
struct BlendBand;
}

namespace panels {

class BlendBandsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Joints, Vertices, WorstScale, WorstVertex, Below09, Below07, ColumnCount };
    static constexpr int kSortRole = Qt::UserRole; ///< numbers as numbers; the joints column by its worst scale

    using QAbstractTableModel::QAbstractTableModel;

    /// Shows `result`'s bands (null: none). O(bands).
    void setResult(std::shared_ptr<const app::EvaluationResult> result);
    const app::EvaluationResult* result() const { return m_result.get(); }

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// The band of a row (null when out of range).
    const rig::BlendBand* band(int row) const;
    /// The row of the band between these joints, or -1.
    int rowOf(int nodeA, int nodeB) const;
    /// A row's vertices, sharing the evaluation's list (null when out of range).
    std::shared_ptr<const std::vector<uint32_t>> vertices(int row) const;
    /// The global index of a row's worst vertex (meshes concatenated), or -1.
    int worstVertex(int row) const;
    /// "Hips / Spine": the joint nearer the root first, then the one that turns.
    QString jointsText(int row) const;

private:
    std::shared_ptr<const app::EvaluationResult> m_result;
    std::vector<uint32_t> m_meshBase; ///< each mesh's first global vertex
};

} // namespace panels
