#include "method_stats_model.h"

#include <QColor>

namespace panels {

MethodStatsModel::MethodStatsModel(QObject* parent) : QAbstractTableModel(parent) {}

void MethodStatsModel::setEvaluation(const rig::Evaluation& eval)
{
    beginResetModel();
    m_rows.clear();
    for (rig::Method m : eval.methods)
        m_rows.push_back({m, eval.stats[size_t(m)]});
    endResetModel();
}

void MethodStatsModel::clear()
{
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

int MethodStatsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int MethodStatsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MethodStatsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_rows.size()) || index.column() >= ColumnCount)
        return {};
    const Row& r = m_rows[size_t(index.row())];
    const int c = index.column();
    const rig::ErrorStats& s = c >= ColTangentMax && c <= ColTangentP95 ? r.stats.tangent
                               : c == ColSkinningNormalMax || c == ColSkinningNormalMean ? r.stats.skinningNormal
                               : c == ColSkinningTangentMean                             ? r.stats.skinningTangent
                                                                                         : r.stats.normal;
    auto value = [&]() -> double {
        switch (c) {
        case ColNormalMax:
        case ColTangentMax:
        case ColSkinningNormalMax: return s.max;
        case ColNormalMean:
        case ColTangentMean:
        case ColSkinningNormalMean:
        case ColSkinningTangentMean: return s.mean;
        case ColNormalP95:
        case ColTangentP95: return s.p95;
        default: return 0.0;
        }
    };
    if (c == ColHandedness) {
        if (role == Qt::DisplayRole)
            return QString::number(r.stats.handednessMismatches);
        if (role == Qt::UserRole)
            return double(r.stats.handednessMismatches);
        if (role == Qt::TextAlignmentRole)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        if (role == Qt::ForegroundRole && r.stats.handednessMismatches)
            return QColor(200, 40, 40);
        if (role == Qt::ToolTipRole)
            return tr("Vertices whose tangent handedness (w) disagrees with the reference's at this pose");
        return {};
    }
    if (role == Qt::DisplayRole) {
        if (c == ColMethod)
            return QString::fromLatin1(rig::methodId(r.method).data(), int(rig::methodId(r.method).size()));
        if (c == ColNotes) {
            QStringList notes;
            if (r.stats.dqFallbackVertices)
                notes << tr("%1 linear fallback").arg(r.stats.dqFallbackVertices);
            if (r.stats.singularVertices)
                notes << tr("%1 singular").arg(r.stats.singularVertices);
            if (r.stats.normal.undefined)
                notes << tr("%1 undefined").arg(r.stats.normal.undefined);
            return notes.join(QStringLiteral(", "));
        }
        if (s.defined == 0)
            return QStringLiteral("—");
        return QStringLiteral("%1°").arg(value(), 0, 'f', 2);
    }
    if (role == Qt::UserRole && c != ColMethod && c != ColNotes)
        return s.defined ? QVariant(value()) : QVariant();
    if (role == Qt::TextAlignmentRole && c != ColMethod && c != ColNotes)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && c != ColMethod && c != ColNotes && s.defined) {
        // The heatmap's scale: green below 1°, amber below 10°, red above.
        const double v = value();
        return v < 1.0 ? QColor(30, 140, 50) : v < 10.0 ? QColor(190, 120, 0) : QColor(200, 40, 40);
    }
    return {};
}

QVariant MethodStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) {
        if (section >= ColSkinningNormalMax && section <= ColSkinningTangentMean)
            return tr("Against the reference carried from the bind pose: what skinning gets wrong, leaving out what the "
                      "authored normals already differ by (see Error Measure)");
        if (section >= ColNormalMax && section <= ColTangentP95)
            return tr("Against the reference rebuilt from this method's own positions");
        return {};
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case ColMethod: return tr("Method");
    case ColNormalMax: return tr("N max");
    case ColNormalMean: return tr("N mean");
    case ColNormalP95: return tr("N p95");
    case ColTangentMax: return tr("T max");
    case ColTangentMean: return tr("T mean");
    case ColTangentP95: return tr("T p95");
    case ColSkinningNormalMax: return tr("skin N max");
    case ColSkinningNormalMean: return tr("skin N mean");
    case ColSkinningTangentMean: return tr("skin T mean");
    case ColHandedness: return tr("w ≠");
    case ColNotes: return tr("Notes");
    default: return {};
    }
}

} // namespace panels
