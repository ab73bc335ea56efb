#include "weights_model.h"

#include <algorithm>
#include <cmath>

#include "rig/model/model.h"

namespace panels {

WeightsModel::WeightsModel(QObject* parent) : QAbstractTableModel(parent) {}

void WeightsModel::clear()
{
    beginResetModel();
    m_rig.reset();
    m_vertices.reset();
    m_meshBegin.clear();
    m_nodes.clear();
    endResetModel();
}

void WeightsModel::setSelection(std::shared_ptr<const rig::Rig> rig, std::shared_ptr<const std::vector<uint32_t>> vertices)
{
    beginResetModel();
    m_rig = std::move(rig);
    m_vertices = std::move(vertices);
    m_meshBegin.clear();
    m_nodes.clear();
    if (m_rig && m_vertices) {
        uint32_t begin = 0;
        for (const rig::Mesh& mesh : m_rig->meshes) {
            m_meshBegin.push_back(begin);
            begin += uint32_t(mesh.vertexCount());
        }
        // Every node that weighs a selected vertex (a raw entry with a non-zero weight, whatever its value).
        std::vector<char> used(m_rig->skeleton.nodes.size(), 0);
        std::vector<uint32_t> kept;
        for (uint32_t g : *m_vertices) {
            if (g >= begin)
                continue;
            kept.push_back(g);
            const Located at = locate(g);
            const rig::Mesh& mesh = m_rig->meshes[at.mesh];
            if (!mesh.isSkinned() || mesh.influenceOffsets.size() != mesh.vertexCount() + 1)
                continue;
            const rig::Skin& skin = m_rig->skins[size_t(mesh.skin)];
            for (uint32_t i = mesh.influenceOffsets[at.local]; i < mesh.influenceOffsets[at.local + 1] && i < mesh.influences.size(); ++i) {
                const rig::Influence in = mesh.influences[i];
                if (in.weight != 0.0f && in.joint < skin.joints.size() && skin.joints[in.joint] >= 0 &&
                    size_t(skin.joints[in.joint]) < used.size())
                    used[size_t(skin.joints[in.joint])] = 1;
            }
        }
        if (kept.size() != m_vertices->size())
            m_vertices = std::make_shared<const std::vector<uint32_t>>(std::move(kept));
        for (size_t n = 0; n < used.size(); ++n)
            if (used[n])
                m_nodes.push_back(int(n));
    }
    endResetModel();
}

WeightsModel::Located WeightsModel::locate(uint32_t global) const
{
    const auto it = std::upper_bound(m_meshBegin.begin(), m_meshBegin.end(), global);
    const size_t mesh = size_t(it - m_meshBegin.begin()) - 1;
    return {mesh, global - m_meshBegin[mesh]};
}

int WeightsModel::Entries::nodeOf(const rig::Influence& in) const
{
    return in.weight != 0.0f && in.joint < skin->joints.size() ? skin->joints[in.joint] : -1;
}

WeightsModel::Entries WeightsModel::entriesOf(int row) const
{
    const Located at = locate(vertexAt(row));
    const rig::Mesh& mesh = m_rig->meshes[at.mesh];
    if (!mesh.isSkinned() || mesh.influenceOffsets.size() != mesh.vertexCount() + 1)
        return {};
    const uint32_t begin = std::min<uint32_t>(mesh.influenceOffsets[at.local], uint32_t(mesh.influences.size()));
    const uint32_t end = std::min<uint32_t>(mesh.influenceOffsets[at.local + 1], uint32_t(mesh.influences.size()));
    return {mesh.influences.data() + begin, mesh.influences.data() + std::max(begin, end), &m_rig->skins[size_t(mesh.skin)]};
}

bool WeightsModel::weightOf(int row, int node, double& w) const
{
    const Entries e = entriesOf(row);
    w = 0.0;
    bool any = false;
    for (const rig::Influence* in = e.begin; in != e.end; ++in)
        if (e.nodeOf(*in) == node) {
            w += double(in->weight);
            any = true;
        }
    return any;
}

void WeightsModel::totalsOf(int row, double& sum, int& count, bool& finite) const
{
    // The columns' weights summed and counted as the cells show them (entries naming one node add up), in one pass
    // over the vertex's entries: a few per vertex, so the repeated-node check is a scan of those before it.
    const Entries e = entriesOf(row);
    for (const rig::Influence* in = e.begin; in != e.end; ++in) {
        const int node = e.nodeOf(*in);
        if (node < 0 || !std::binary_search(m_nodes.begin(), m_nodes.end(), node))
            continue;
        bool seen = false;
        for (const rig::Influence* k = e.begin; k != in && !seen; ++k)
            seen = e.nodeOf(*k) == node;
        if (seen)
            continue; // its weight went into the first entry's total
        double w = 0.0;
        for (const rig::Influence* k = in; k != e.end; ++k)
            if (e.nodeOf(*k) == node)
                w += double(k->weight);
        finite = finite && std::isfinite(w);
        sum += std::isfinite(w) ? w : 0.0;
        count += w > 0.0 ? 1 : 0;
    }
}

int WeightsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_vertices ? 0 : int(m_vertices->size());
}

int WeightsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_rig ? 0 : countColumn() + 1;
}

int WeightsModel::nodeAt(int column) const
{
    const int j = column - kLeadingColumns;
    return j >= 0 && j < int(m_nodes.size()) ? m_nodes[size_t(j)] : -1;
}

QVariant WeightsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_rig || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    if (role != Qt::DisplayRole && role != kSortRole && role != Qt::TextAlignmentRole)
        return {};
    const int c = index.column();
    if (role == Qt::TextAlignmentRole)
        return c == ColMesh ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    const Located at = locate(vertexAt(index.row()));
    if (c == ColMesh)
        return role == kSortRole ? QVariant(qulonglong(at.mesh)) : QVariant(QString::fromStdString(m_rig->meshes[at.mesh].name));
    if (c == ColVertex)
        return qulonglong(at.local);
    if (c == sumColumn() || c == countColumn()) {
        double sum = 0.0;
        int count = 0;
        bool finite = true;
        totalsOf(index.row(), sum, count, finite);
        if (c == countColumn())
            return count;
        if (!finite)
            return role == kSortRole ? QVariant(-1.0) : QVariant(QStringLiteral("NaN"));
        return role == kSortRole ? QVariant(sum) : QVariant(QString::number(sum, 'f', 4));
    }
    double w = 0.0;
    if (!weightOf(index.row(), nodeAt(c), w))
        return role == kSortRole ? QVariant(0.0) : QVariant(QString());
    if (!std::isfinite(w))
        return role == kSortRole ? QVariant(-1.0) : QVariant(QStringLiteral("NaN"));
    return role == kSortRole ? QVariant(w) : QVariant(QString::number(w, 'f', 4));
}

QVariant WeightsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || !m_rig)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section == ColMesh)
        return tr("Mesh");
    if (section == ColVertex)
        return tr("Vertex");
    if (section == sumColumn())
        return tr("Σw");
    if (section == countColumn())
        return tr("Influences");
    const int node = nodeAt(section);
    return node >= 0 ? QVariant(QString::fromStdString(m_rig->skeleton.nodes[size_t(node)].name)) : QVariant();
}

QString WeightsModel::toText(QChar separator, const std::vector<int>& rows) const
{
    auto field = [separator](QString s) {
        if (separator == QLatin1Char(',') && (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')))) {
            s.replace(QLatin1String("\""), QLatin1String("\"\""));
            return QLatin1Char('"') + s + QLatin1Char('"');
        }
        if (separator == QLatin1Char('\t'))
            s.replace(QLatin1Char('\t'), QLatin1Char(' '));
        return s;
    };
    QString out;
    const int cols = columnCount();
    for (int c = 0; c < cols; ++c)
        out += (c ? QString(separator) : QString()) + field(headerData(c, Qt::Horizontal).toString());
    out += QLatin1Char('\n');
    auto line = [&](int r) {
        for (int c = 0; c < cols; ++c)
            out += (c ? QString(separator) : QString()) + field(data(index(r, c)).toString());
        out += QLatin1Char('\n');
    };
    if (rows.empty())
        for (int r = 0; r < rowCount(); ++r)
            line(r);
    else
        for (int r : rows)
            line(r);
    return out;
}

} // namespace panels
