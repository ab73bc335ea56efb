#include "skeleton_model.h"

#include <QPainter>
#include <QPixmap>

#include "app/document.h"

namespace panels {

namespace {

/// A small round icon: filled for a joint that weighs vertices, hollow for one that weighs none, a square for a node.
QIcon makeIcon(SkeletonModel::Kind kind)
{
    QPixmap pm(14, 14);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    switch (kind) {
    case SkeletonModel::Kind::Joint:
        p.setPen(QPen(QColor(30, 60, 110), 1.2));
        p.setBrush(QColor(90, 160, 240));
        p.drawEllipse(QRectF(2, 2, 10, 10));
        break;
    case SkeletonModel::Kind::UnusedJoint:
        p.setPen(QPen(QColor(150, 150, 150), 1.5));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(QRectF(2.5, 2.5, 9, 9));
        p.drawLine(QPointF(4, 10), QPointF(10, 4));
        break;
    case SkeletonModel::Kind::Node:
        p.setPen(QPen(QColor(120, 120, 120), 1.0));
        p.setBrush(QColor(200, 200, 200));
        p.drawRect(QRectF(4, 4, 6, 6));
        break;
    }
    return QIcon(pm);
}

} // namespace

SkeletonModel::SkeletonModel(QObject* parent) : QAbstractItemModel(parent)
{
    m_jointIcon = makeIcon(Kind::Joint);
    m_unusedIcon = makeIcon(Kind::UnusedJoint);
    m_nodeIcon = makeIcon(Kind::Node);
}

void SkeletonModel::setRig(std::shared_ptr<const app::LoadedRig> rig)
{
    beginResetModel();
    m_rig = std::move(rig);
    m_items.clear();
    m_roots.clear();
    m_joints = m_unused = 0;
    if (m_rig) {
        const auto& nodes = m_rig->rig.skeleton.nodes;
        m_items.resize(nodes.size());
        std::vector<char> isJoint(nodes.size(), 0);
        for (const rig::Skin& s : m_rig->rig.skins)
            for (int j : s.joints)
                if (j >= 0 && size_t(j) < nodes.size())
                    isJoint[size_t(j)] = 1;
        const auto& counts = m_rig->weights.nodeVertexCounts;
        for (size_t i = 0; i < nodes.size(); ++i) {
            Item& it = m_items[i];
            it.node = int(i);
            // Parents come before children (rig invariant); a bad parent index makes a root.
            it.parent = nodes[i].parent >= 0 && size_t(nodes[i].parent) < i ? nodes[i].parent : -1;
            it.vertices = i < counts.size() ? counts[i] : 0;
            it.kind = !isJoint[i] ? Kind::Node : it.vertices > 0 ? Kind::Joint : Kind::UnusedJoint;
            m_joints += isJoint[i] ? 1 : 0;
            m_unused += it.kind == Kind::UnusedJoint ? 1 : 0;
            std::vector<int>& siblings = it.parent >= 0 ? m_items[size_t(it.parent)].children : m_roots;
            it.row = int(siblings.size());
            siblings.push_back(int(i));
        }
    }
    endResetModel();
}

QModelIndex SkeletonModel::indexOfNode(int node) const
{
    if (node < 0 || size_t(node) >= m_items.size())
        return {};
    return createIndex(m_items[size_t(node)].row, 0, quintptr(node));
}

QModelIndex SkeletonModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    const std::vector<int>* list = &m_roots;
    if (parent.isValid()) {
        if (parent.column() != 0)
            return {};
        list = &m_items[size_t(parent.internalId())].children;
    }
    if (size_t(row) >= list->size())
        return {};
    return createIndex(row, column, quintptr((*list)[size_t(row)]));
}

QModelIndex SkeletonModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const Item& it = m_items[size_t(child.internalId())];
    if (it.parent < 0)
        return {};
    return createIndex(m_items[size_t(it.parent)].row, 0, quintptr(it.parent));
}

int SkeletonModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return int(m_roots.size());
    if (parent.column() != 0)
        return 0;
    return int(m_items[size_t(parent.internalId())].children.size());
}

int SkeletonModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant SkeletonModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_rig)
        return {};
    const Item& it = m_items[size_t(index.internalId())];
    const std::string& name = m_rig->rig.skeleton.nodes[size_t(it.node)].name;
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == NameColumn)
            return name.empty() ? QStringLiteral("(node %1)").arg(it.node) : QString::fromStdString(name);
        return it.kind == Kind::Node ? QVariant() : QVariant(it.vertices);
    case Qt::DecorationRole:
        if (index.column() != NameColumn)
            return {};
        return it.kind == Kind::Joint ? m_jointIcon : it.kind == Kind::UnusedJoint ? m_unusedIcon : m_nodeIcon;
    case Qt::ToolTipRole:
        switch (it.kind) {
        case Kind::Joint: return tr("Joint: weighs %1 vertices").arg(it.vertices);
        case Kind::UnusedJoint: return tr("Joint that weighs no vertex (a rigid mesh parented to it still follows it)");
        case Kind::Node: return tr("Node (no skin names it)");
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == VerticesColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case NodeRole: return it.node;
    case KindRole: return int(it.kind);
    default: return {};
    }
}

QVariant SkeletonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && section == VerticesColumn)
        return tr("The vertices the joint weighs (a raw weight above zero)");
    if (role != Qt::DisplayRole)
        return {};
    return section == NameColumn ? tr("Joint") : tr("Verts"); // short: the names keep the column's width
}

} // namespace panels
