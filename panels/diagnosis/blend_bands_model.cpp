#include "panels/diagnosis/blend_bands_model.h"

#include "app/document.h"
#include "app/evaluator.h"

namespace panels {

namespace {
QString nodeName(const rig::Rig& rig, int node)
{
    if (node < 0 || size_t(node) >= rig.skeleton.nodes.size())
        return QStringLiteral("?");
    const std::string& name = rig.skeleton.nodes[size_t(node)].name;
    return name.empty() ? QStringLiteral("node %1").arg(node) : QString::fromStdString(name);
}
} // namespace

void BlendBandsModel::setResult(std::shared_ptr<const app::EvaluationResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    m_meshBase.clear();
    if (m_result && m_result->rig) {
        uint32_t base = 0;
        for (const rig::Mesh& mesh : m_result->rig->rig.meshes) {
            m_meshBase.push_back(base);
            base += uint32_t(mesh.vertexCount());
        }
    }
    endResetModel();
}

int BlendBandsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_result ? 0 : int(m_result->candyWrapper.bands.size());
}

int BlendBandsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const rig::BlendBand* BlendBandsModel::band(int row) const
{
    if (!m_result || row < 0 || size_t(row) >= m_result->candyWrapper.bands.size())
        return nullptr;
    return &m_result->candyWrapper.bands[size_t(row)];
}

int BlendBandsModel::rowOf(int nodeA, int nodeB) const
{
    for (int r = 0; r < rowCount(); ++r)
        if (band(r)->nodeA == nodeA && band(r)->nodeB == nodeB)
            return r;
    return -1;
}

std::shared_ptr<const std::vector<uint32_t>> BlendBandsModel::vertices(int row) const
{
    const rig::BlendBand* b = band(row);
    if (!b)
        return nullptr;
    return std::shared_ptr<const std::vector<uint32_t>>(m_result, &b->vertexList); // shares the evaluation's lifetime
}

int BlendBandsModel::worstVertex(int row) const
{
    const rig::BlendBand* b = band(row);
    if (!b || b->worstMesh >= m_meshBase.size())
        return -1;
    return int(m_meshBase[b->worstMesh] + b->worstVertex);
}

QString BlendBandsModel::jointsText(int row) const
{
    const rig::BlendBand* b = band(row);
    if (!b)
        return QString();
    const rig::Rig& rig = m_result->rig->rig;
    return QStringLiteral("%1 / %2").arg(nodeName(rig, b->nodeA), nodeName(rig, b->nodeB));
}

QVariant BlendBandsModel::data(const QModelIndex& index, int role) const
{
    const rig::BlendBand* b = index.isValid() ? band(index.row()) : nullptr;
    if (!b)
        return QVariant();
    if (role == Qt::TextAlignmentRole)
        return index.column() == Joints ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter)) : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::ToolTipRole && index.column() == Joints)
        return tr("%1 vertices blend these two joints (their two largest weights); the second turns against the first")
            .arg(b->vertices);
    if (role != Qt::DisplayRole && role != kSortRole)
        return QVariant();
    const bool sort = role == kSortRole;
    switch (index.column()) {
    case Joints: return sort ? QVariant(double(b->worstScale)) : QVariant(jointsText(index.row()));
    case Vertices: return qulonglong(b->vertices);
    case WorstScale: return sort ? QVariant(double(b->worstScale)) : QVariant(QString::number(b->worstScale, 'f', 3));
    case WorstVertex: return worstVertex(index.row());
    case Below09: return qulonglong(b->below09);
    case Below07: return qulonglong(b->below07);
    }
    return QVariant();
}

QVariant BlendBandsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Joints: return tr("Joints");
        case Vertices: return tr("Vertices");
        case WorstScale: return tr("Worst scale");
        case WorstVertex: return tr("At vertex");
        case Below09: return tr("< 0.9");
        case Below07: return tr("< 0.7");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case WorstScale:
            return tr("The smallest σ_min of the blended 3×3 over the band, over the joints' own scale: 1 keeps the "
                      "cross-section, cos(θ/2) for a 0.5/0.5 vertex between joints turned θ apart, 0 at the candy wrapper");
        case Below09: return tr("Vertices that lose more than 10 % of their cross-section under linear blending");
        case Below07: return tr("Vertices that lose more than 30 % (the error causes call this collapse)");
        }
    }
    return QVariant();
}

} // namespace panels
