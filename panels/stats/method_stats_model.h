// A table of every method's normal and tangent error statistics for one pose (rows: methods; columns: statistics).
#pragma once

#include <QAbstractTableModel>

#include <array>
#include <vector>

#include "rig/deform/deform.h"

namespace panels {

class MethodStatsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        ColMethod,
        ColNormalMax,
        ColNormalMean,
        ColNormalP95,
        ColTangentMax,
        ColTangentMean,
        ColTangentP95,
        ColSkinningNormalMax,  ///< against the reference carried from the bind pose
        ColSkinningNormalMean,
        ColSkinningTangentMean,
        ColHandedness,         ///< vertices whose tangent handedness disagrees with the reference
        ColNotes,
        ColumnCount
    };

    explicit MethodStatsModel(QObject* parent = nullptr);

    /// Replaces the rows with the methods evaluated in `eval` (in eval.methods order).
    void setEvaluation(const rig::Evaluation& eval);
    void clear();
    /// The method of a row (rows follow rig::allMethods() order of the evaluation).
    rig::Method methodAt(int row) const { return m_rows.at(size_t(row)).method; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        rig::Method method;
        rig::MethodStats stats;
    };
    std::vector<Row> m_rows;
};

} // namespace panels
