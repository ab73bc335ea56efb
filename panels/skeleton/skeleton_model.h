// The skeleton as a tree model: every node of the rig, children under their parent. Column 0 the name (with an icon:
// a joint that weighs vertices, a joint that weighs none, a plain node), column 1 the vertices it weighs. Rebuilt on a
// new rig (work proportional to the node count).
#pragma once

#include <QAbstractItemModel>
#include <QIcon>

#include <memory>
#include <vector>

namespace app {
struct LoadedRig;
}

namespace panels {

class SkeletonModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn = 0, VerticesColumn = 1, ColumnCount = 2 };
    enum Role { NodeRole = Qt::UserRole + 1, KindRole };
    enum class Kind { Joint, UnusedJoint, Node };

    explicit SkeletonModel(QObject* parent = nullptr);

    void setRig(std::shared_ptr<const app::LoadedRig> rig);
    /// The index (column 0) of a node, or invalid.
    QModelIndex indexOfNode(int node) const;
    int jointCount() const { return m_joints; }
    int unusedJointCount() const { return m_unused; }

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Item {
        int node = -1;
        int parent = -1; ///< node index of the parent, -1 for a root
        int row = 0;     ///< row under its parent
        Kind kind = Kind::Node;
        uint32_t vertices = 0;
        std::vector<int> children;
    };
    std::shared_ptr<const app::LoadedRig> m_rig;
    std::vector<Item> m_items; ///< by node index
    std::vector<int> m_roots;
    int m_joints = 0;
    int m_unused = 0;
    QIcon m_jointIcon, m_unusedIcon, m_nodeIcon;
};

} // namespace panels
