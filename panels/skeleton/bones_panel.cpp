#include "bones_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

#include "app/document.h"
#include "joint_editor.h"
#include "rig/io/pose_file.h"
#include "skeleton_model.h"

namespace panels {

BonesPanel::BonesPanel(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("bonesPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(3); // tight: the tree keeps the height (12 joints at 1440 x 900)

    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("jointFilter"));
    m_filter->setPlaceholderText(tr("Filter joints…"));
    m_filter->setClearButtonEnabled(true);
    m_count = new QLabel(this);
    m_count->setObjectName(QStringLiteral("jointCount"));
    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_count);
    layout->addLayout(top);

    m_model = new SkeletonModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setRecursiveFilteringEnabled(true); // a match keeps its ancestors visible
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(SkeletonModel::NameColumn);
    m_tree = new QTreeView(this);
    m_tree->setObjectName(QStringLiteral("skeletonTree"));
    m_tree->setModel(m_proxy);
    m_tree->setUniformRowHeights(true);
    m_tree->setFrameShape(QFrame::NoFrame); // flush with the dock, as an outliner: two rows more at 1440 x 900
    // A narrow step per level: a whole hierarchy opened (ten levels deep in Fox's arms) still leaves the names room.
    m_tree->setIndentation(8);
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(SkeletonModel::NameColumn, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(SkeletonModel::VerticesColumn, QHeaderView::ResizeToContents);

    m_editor = new JointEditor(doc, this);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_tree);
    split->addWidget(m_editor);
    split->setStretchFactor(0, 1);
    layout->addWidget(split, 1);

    // Rest Pose and Bind Pose are beside the clip chooser (the Timeline), Save Pose… in the File menu: the tree
    // keeps the height.

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& t) {
        m_proxy->setFilterFixedString(t);
        if (!t.isEmpty())
            m_tree->expandAll();
        selectInTree(m_doc->selectedJoint());
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& current) {
        if (current.isValid())
            m_doc->setSelectedJoint(current.data(SkeletonModel::NodeRole).toInt());
    });
    connect(doc, &app::Document::rigChanged, this, [this] {
        m_model->setRig(m_doc->loadedShared());
        expandDefault();
        updateCount();
    });
    connect(doc, &app::Document::jointSelectionChanged, this, [this] { selectInTree(m_doc->selectedJoint()); });
    m_model->setRig(doc->loadedShared());
    expandDefault();
    updateCount();
}

void BonesPanel::expandDefault()
{
    // The whole hierarchy open, so that the joints show at once (Fox's sit five levels under its root); a skeleton of
    // hundreds of nodes opens four levels deep.
    const app::LoadedRig* l = m_doc->loaded();
    if (l && l->rig.skeleton.nodes.size() <= 256)
        m_tree->expandAll();
    else
        m_tree->expandToDepth(3);
}

void BonesPanel::selectInTree(int node)
{
    const QModelIndex index = m_proxy->mapFromSource(m_model->indexOfNode(node));
    const QSignalBlocker block(m_tree->selectionModel());
    if (!index.isValid()) {
        m_tree->selectionModel()->clearSelection();
        return;
    }
    m_tree->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_tree->scrollTo(index);
    m_tree->viewport()->update();
}

void BonesPanel::updateCount()
{
    m_count->setText(m_model->unusedJointCount() > 0 ? tr("%1 joints (%2 weigh nothing)").arg(m_model->jointCount()).arg(m_model->unusedJointCount())
                                                     : tr("%1 joints").arg(m_model->jointCount()));
}

bool BonesPanel::savePose(const QString& path, QString* error)
{
    auto r = rig::writePoseFile(path.toStdString(), m_doc->pose());
    if (!r) {
        if (error)
            *error = QString::fromStdString(r.error());
        return false;
    }
    return true;
}

} // namespace panels
