// The Bones dock: the skeleton tree (filterable; a joint that weighs no vertex has a hollow icon), the selected joint's
// editor, and the pose as a whole: Rest Pose, Go to Bind Pose, Save Pose….
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTreeView;

namespace app {
class Document;
}

namespace panels {

class JointEditor;
class SkeletonModel;

class BonesPanel : public QWidget {
    Q_OBJECT
public:
    explicit BonesPanel(app::Document* doc, QWidget* parent = nullptr);

    QTreeView* tree() const { return m_tree; }
    QLineEdit* filter() const { return m_filter; }
    SkeletonModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    JointEditor* editor() const { return m_editor; }
    /// Writes the current pose as a pose file (the format --pose reads); false with a message naming the file.
    bool savePose(const QString& path, QString* error = nullptr);

private:
    void selectInTree(int node);
    void updateCount();
    /// Opens the tree as a rig first shows it: every level for up to 256 nodes, else four.
    void expandDefault();

    app::Document* m_doc;
    QLineEdit* m_filter = nullptr;
    QLabel* m_count = nullptr;
    QTreeView* m_tree = nullptr;
    SkeletonModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    JointEditor* m_editor = nullptr;
};

} // namespace panels
