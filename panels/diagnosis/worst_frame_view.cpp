#include "panels/diagnosis/worst_frame_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "app/document.h"

namespace panels {

namespace {
constexpr int kTimeRole = Qt::UserRole + 1;
constexpr int kVertexRole = Qt::UserRole + 2; ///< global vertex index, -1 for none
} // namespace

WorstFrameView::WorstFrameView(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("worstFrame"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 2, 0, 0);
    layout->setSpacing(2);
    auto* row = new QHBoxLayout;
    m_clip = new QLabel(this);
    m_clip->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_status = new QLabel(this);
    m_status->setMinimumWidth(m_status->fontMetrics().horizontalAdvance(QStringLiteral("cancelled after 0000 frames")));
    m_status->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_button = new QPushButton(tr("Scan"), this);
    m_button->setObjectName(QStringLiteral("scanButton"));
    m_button->setToolTip(tr("Evaluate every key time of the clip with every method and find the worst frames"));
    row->addWidget(m_clip, 1);
    row->addWidget(m_status);
    row->addWidget(m_button);
    layout->addLayout(row);
    m_list = new QTreeWidget(this);
    m_list->setObjectName(QStringLiteral("worstFrameList"));
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setHeaderLabels({tr("Worst"), tr("Value"), tr("At"), tr("Vertex")});
    m_list->setToolTip(tr("Click a row to go there: the clip at that time, the vertex selected and framed"));
    m_list->setMinimumHeight(m_list->fontMetrics().height() * 3);
    layout->addWidget(m_list, 1);

    connect(m_button, &QPushButton::clicked, this, [this] { running() ? cancel() : start(); });
    connect(m_list, &QTreeWidget::itemClicked, this, &WorstFrameView::go);
    connect(m_list, &QTreeWidget::itemActivated, this, &WorstFrameView::go);
    connect(doc, &app::Document::poseChanged, this, &WorstFrameView::onPose);
    connect(doc, &app::Document::rigChanged, this, [this] {
        cancel();
        m_result.reset();
        m_scannedRig.reset();
        m_list->clear();
        m_status->clear();
        onPose();
    });
    onPose();
}

WorstFrameView::~WorstFrameView()
{
    m_cancel->store(true);
    join();
}

void WorstFrameView::join()
{
    if (m_thread.joinable())
        m_thread.join();
}

void WorstFrameView::onPose()
{
    const app::LoadedRig* l = m_doc->loaded();
    const int clip = m_doc->resolvedPose().clip;
    const bool ok = l && clip >= 0 && size_t(clip) < l->rig.clips.size();
    m_clip->setText(ok ? tr("Clip <b>%1</b> (%2 frames)")
                             .arg(QString::fromStdString(l->rig.clips[size_t(clip)].name).toHtmlEscaped())
                             .arg(rig::scanTimes(l->rig.clips[size_t(clip)], 0.0f).size())
                       : tr("Choose a clip in the timeline to scan it"));
    m_button->setEnabled(ok || running());
}

void WorstFrameView::cancel()
{
    m_cancel->store(true);
    join();
    m_button->setText(tr("Scan"));
    onPose();
}

void WorstFrameView::start()
{
    cancel();
    std::shared_ptr<const app::LoadedRig> rig = m_doc->loadedShared();
    const rig::ResolvedPose pose = m_doc->resolvedPose();
    if (!rig || pose.clip < 0)
        return;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_done = std::make_shared<std::atomic<bool>>(false);
    const unsigned generation = ++m_generation;
    const rig::DeformSettings settings{m_doc->display().morphNormals, 0};
    const size_t frames = rig::scanTimes(rig->rig.clips[size_t(pose.clip)], 0.0f).size();
    m_scannedClip = m_doc->pose().clip;
    m_scannedRig = rig;
    m_status->setText(tr("0 / %1").arg(frames));
    m_button->setText(tr("Cancel"));
    m_thread = std::thread([this, rig, pose, settings, generation, frames, cancel = m_cancel, done = m_done] {
        auto r = rig::scanClip(rig->rig, rig->runtime, pose, pose.clip, rig::allMethods(), 0.0f, settings, cancel.get(),
                               [&](size_t count) {
                                   QMetaObject::invokeMethod(this, [this, count, frames, generation] {
                                       if (generation == m_generation)
                                           m_status->setText(tr("%1 / %2").arg(count).arg(frames));
                                   }, Qt::QueuedConnection);
                               });
        auto scan = r.ok() ? std::make_shared<const rig::ClipScan>(std::move(r.value())) : nullptr;
        done->store(true);
        QMetaObject::invokeMethod(this, [this, scan, generation] {
            if (generation == m_generation)
                show(scan);
        }, Qt::QueuedConnection);
    });
}

void WorstFrameView::show(std::shared_ptr<const rig::ClipScan> scan)
{
    join();
    m_button->setText(tr("Scan"));
    onPose();
    m_result = std::move(scan);
    m_list->clear();
    const app::LoadedRig* l = m_doc->loaded();
    if (!m_result || !l || m_scannedRig != m_doc->loadedShared()) {
        m_status->setText(m_result ? QString() : tr("failed"));
        emit finished();
        return;
    }
    std::vector<uint32_t> meshBase;
    uint32_t base = 0;
    for (const rig::Mesh& mesh : l->rig.meshes) {
        meshBase.push_back(base);
        base += uint32_t(mesh.vertexCount());
    }
    auto add = [&](const QString& what, const QString& value, float time, int mesh, size_t vertex) {
        auto* item = new QTreeWidgetItem(m_list);
        item->setText(0, what);
        item->setText(1, value);
        item->setText(2, tr("%1 s").arg(double(time), 0, 'f', 3));
        const int global = mesh >= 0 && size_t(mesh) < meshBase.size() ? int(meshBase[size_t(mesh)] + vertex) : -1;
        item->setText(3, global >= 0 ? QString::number(global) : QString());
        item->setData(0, kTimeRole, double(time));
        item->setData(0, kVertexRole, global);
        for (int c = 1; c < 4; ++c)
            item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
    };
    const rig::ClipScan& s = *m_result;
    if (s.minScaleMesh >= 0) {
        QString joints;
        if (s.minScaleNodeA >= 0 && s.minScaleNodeB >= 0)
            joints = QStringLiteral(" (%1 / %2)").arg(QString::fromStdString(l->rig.skeleton.nodes[size_t(s.minScaleNodeA)].name),
                                                      QString::fromStdString(l->rig.skeleton.nodes[size_t(s.minScaleNodeB)].name));
        add(tr("linear-blend scale") + joints, QString::number(double(s.minScale), 'f', 3), s.minScaleTime, s.minScaleMesh,
            s.minScaleVertex);
    }
    for (const rig::ClipScanMethod& m : s.methods)
        if (m.worstErrorDeg >= 0.0f && m.method != rig::Method::Rebuilt) // the reference: 0 by definition
            add(tr("%1 normal error").arg(QString::fromLatin1(rig::methodId(m.method).data(), int(rig::methodId(m.method).size()))),
                QStringLiteral("%1°").arg(double(m.worstErrorDeg), 0, 'f', 2), m.time, int(m.mesh), m.vertex);
    for (int c = 0; c < 4; ++c)
        m_list->resizeColumnToContents(c);
    m_status->setText(s.cancelled ? tr("cancelled after %1 frames").arg(s.times.size()) : QString());
    emit finished();
}

void WorstFrameView::go(QTreeWidgetItem* item)
{
    if (!item || !m_result || m_scannedRig != m_doc->loadedShared())
        return;
    m_doc->setClipTime(m_scannedClip, item->data(0, kTimeRole).toDouble());
    const int vertex = item->data(0, kVertexRole).toInt();
    if (vertex < 0)
        return;
    app::SelectionSet set;
    set.label = item->text(0);
    set.vertices = std::make_shared<const std::vector<uint32_t>>(1, uint32_t(vertex));
    m_doc->setSelectionSet(std::move(set));
    emit frameRequested();
}

} // namespace panels
