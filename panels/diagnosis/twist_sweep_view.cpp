#include "panels/diagnosis/twist_sweep_view.h"

#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QPen>
#include <QPushButton>
#include <QValueAxis>
#include <QVBoxLayout>

#include <cmath>

#include "app/document.h"

namespace panels {

namespace {
constexpr int kSteps = 36; // 5° apart
}

TwistSweepView::TwistSweepView(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("twistSweep"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 2, 0, 0);
    layout->setSpacing(2);
    auto* row = new QHBoxLayout;
    m_joint = new QLabel(this);
    m_joint->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_status = new QLabel(this);
    m_button = new QPushButton(tr("Sweep"), this);
    m_button->setObjectName(QStringLiteral("sweepButton"));
    m_button->setToolTip(tr("Turn the selected joint about its bone from 0° to 180° (the rest of the pose as it is) and "
                            "plot how close to the bone each method pulls its band"));
    row->addWidget(m_joint, 1);
    row->addWidget(m_status);
    row->addWidget(m_button);
    layout->addLayout(row);

    m_chart = new QChart();
    m_chart->setMargins(QMargins(2, 2, 2, 2));
    m_chart->legend()->setAlignment(Qt::AlignRight);
    m_linear = new QLineSeries();
    m_linear->setName(tr("linear"));
    m_linear->setPen(QPen(QColor(210, 60, 40), 2.0));
    m_dq = new QLineSeries();
    m_dq->setName(tr("dual-quaternion"));
    m_dq->setPen(QPen(QColor(40, 110, 210), 2.0));
    m_cor = new QLineSeries();
    m_cor->setName(tr("center-of-rotation"));
    m_cor->setPen(QPen(QColor(40, 160, 80), 2.0, Qt::DotLine)); // dotted: it lies on dual quaternions' line on a limb
    m_reference = new QLineSeries();
    m_reference->setName(tr("cos(θ/2)"));
    QPen dashed(QColor(120, 120, 120), 1.0, Qt::DashLine);
    m_reference->setPen(dashed);
    for (int step = 0; step <= kSteps; ++step) {
        const double deg = 180.0 * step / kSteps;
        m_reference->append(deg, std::cos(deg * 3.14159265358979323846 / 360.0));
    }
    for (QLineSeries* s : {m_linear, m_dq, m_cor, m_reference}) // the dashed reference over the lines it explains
        m_chart->addSeries(s);
    auto* x = new QValueAxis();
    x->setRange(0.0, 180.0);
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0.0);
    x->setTickInterval(30.0);
    x->setLabelFormat(QStringLiteral("%d")); // degrees (printf's format is Latin-1: the sign is in the label above)
    auto* y = new QValueAxis();
    y->setRange(0.0, 1.08);
    y->setTickType(QValueAxis::TicksDynamic);
    y->setTickAnchor(0.0);
    y->setTickInterval(0.25);
    y->setLabelFormat(QStringLiteral("%.2f"));
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    for (QLineSeries* s : {m_linear, m_dq, m_cor, m_reference}) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    auto* view = new QChartView(m_chart, this);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(40); // the dock is one row of the window tall: the tab stays as small as the others
    layout->addWidget(view, 1);

    connect(m_button, &QPushButton::clicked, this, [this] { running() ? cancel() : start(); });
    connect(doc, &app::Document::jointSelectionChanged, this, &TwistSweepView::onJoint);
    connect(doc, &app::Document::rigChanged, this, [this] {
        cancel();
        m_result.reset();
        m_linear->clear();
        m_dq->clear();
        m_cor->clear();
        m_status->clear();
        onJoint();
    });
    onJoint();
}

TwistSweepView::~TwistSweepView()
{
    m_cancel->store(true);
    join();
}

void TwistSweepView::join()
{
    if (m_thread.joinable())
        m_thread.join();
}

void TwistSweepView::onJoint()
{
    const app::LoadedRig* l = m_doc->loaded();
    const int joint = m_doc->selectedJoint();
    const bool ok = l && joint >= 0;
    m_joint->setText(ok ? tr("<b>%1</b> turned 0–180° about its bone: the band's narrowest radius, of its radius at 0°").arg(QString::fromStdString(l->rig.skeleton.nodes[size_t(joint)].name).toHtmlEscaped())
                        : tr("Select a joint (a candy-wrapper band's click selects the one that turns)"));
    m_button->setEnabled(ok || running());
}

void TwistSweepView::cancel()
{
    m_cancel->store(true);
    join(); // the sweep checks between angles: at most one evaluation's wait
    m_button->setText(tr("Sweep"));
    onJoint();
}

void TwistSweepView::start()
{
    cancel();
    std::shared_ptr<const app::LoadedRig> rig = m_doc->loadedShared();
    const int node = m_doc->selectedJoint();
    if (!rig || node < 0)
        return;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_done = std::make_shared<std::atomic<bool>>(false);
    const unsigned generation = ++m_generation;
    const rig::ResolvedPose pose = m_doc->resolvedPose();
    const rig::DeformSettings settings{m_doc->display().morphNormals, 0};
    m_status->setText(tr("0 / %1").arg(kSteps + 1));
    m_button->setText(tr("Cancel"));
    m_thread = std::thread([this, rig, node, pose, settings, generation, cancel = m_cancel, done = m_done] {
        auto r = rig::sweepTwist(rig->rig, rig->runtime, pose, node, kSteps, settings, cancel.get(), [&](int count) {
            QMetaObject::invokeMethod(this, [this, count, generation] {
                if (generation == m_generation)
                    m_status->setText(tr("%1 / %2").arg(count).arg(kSteps + 1));
            }, Qt::QueuedConnection);
        });
        auto sweep = r.ok() ? std::make_shared<const rig::TwistSweep>(std::move(r.value())) : nullptr;
        done->store(true);
        QMetaObject::invokeMethod(this, [this, sweep, generation] {
            if (generation == m_generation)
                show(sweep);
        }, Qt::QueuedConnection);
    });
}

void TwistSweepView::show(std::shared_ptr<const rig::TwistSweep> sweep)
{
    join();
    m_button->setText(tr("Sweep"));
    onJoint();
    m_result = std::move(sweep);
    m_linear->clear();
    m_dq->clear();
    m_cor->clear();
    if (!m_result) {
        m_status->setText(tr("failed"));
        emit finished();
        return;
    }
    // The narrowest radius of the band about the bone, of its radius at 0°, per method (kSweepMethods' order).
    QList<QPointF> points[3];
    for (const rig::TwistSweepSample& s : m_result->samples)
        for (size_t k = 0; k < 3; ++k)
            if (s.radiusMin[k] >= 0.0f)
                points[k].append(QPointF(s.angleDeg, s.radiusMin[k]));
    m_linear->replace(points[0]);
    m_dq->replace(points[1]);
    m_cor->replace(points[2]);
    m_status->setText(m_result->vertices == 0 ? tr("no vertex blends this joint with another")
                                               : tr("%1 vertices").arg(m_result->vertices));
    emit finished();
}

} // namespace panels
