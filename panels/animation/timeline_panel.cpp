#include "timeline_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QStyle>
#include <QTimer>
#include <QToolButton>

#include <algorithm>
#include <cmath>

#include "app/document.h"

namespace panels {

TimelinePanel::TimelinePanel(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("timelinePanel"));
    auto* h = new QHBoxLayout(this);
    h->setContentsMargins(4, 4, 4, 4);
    m_clip = new QComboBox(this);
    m_clip->setObjectName(QStringLiteral("clipBox"));
    m_clip->setMinimumContentsLength(12);
    m_clip->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_prev = new QToolButton(this);
    m_prev->setIcon(style()->standardIcon(QStyle::SP_MediaSkipBackward));
    m_prev->setToolTip(tr("Previous key (,)"));
    m_prev->setObjectName(QStringLiteral("prevKey"));
    m_play = new QToolButton(this);
    m_play->setObjectName(QStringLiteral("play"));
    m_play->setCheckable(true);
    m_play->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_play->setToolTip(tr("Play / pause (Space)"));
    m_next = new QToolButton(this);
    m_next->setIcon(style()->standardIcon(QStyle::SP_MediaSkipForward));
    m_next->setToolTip(tr("Next key (.)"));
    m_next->setObjectName(QStringLiteral("nextKey"));
    m_loop = new QCheckBox(tr("Loop"), this);
    m_loop->setObjectName(QStringLiteral("loop"));
    m_loop->setChecked(true);
    m_speed = new QDoubleSpinBox(this);
    m_speed->setObjectName(QStringLiteral("speed"));
    m_speed->setRange(0.05, 8.0);
    m_speed->setValue(1.0);
    m_speed->setSingleStep(0.25);
    m_speed->setSuffix(QStringLiteral("×"));
    m_speed->setToolTip(tr("Playback speed"));
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setObjectName(QStringLiteral("timeSlider"));
    m_slider->setToolTip(tr("Scrub: snaps to the clip's key times"));
    m_time = new QDoubleSpinBox(this);
    m_time->setObjectName(QStringLiteral("timeBox"));
    m_time->setDecimals(3);
    m_time->setSuffix(QStringLiteral(" s"));
    m_time->setKeyboardTracking(false);
    m_frame = new QLabel(this);
    m_frame->setObjectName(QStringLiteral("frameLabel"));
    m_frame->setMinimumWidth(110);
    // The pose's base beside the clip chooser: the rest pose (every edit and morph weight cleared) or the bind pose.
    auto* rest = new QToolButton(this);
    rest->setObjectName(QStringLiteral("restPose"));
    rest->setText(tr("Rest"));
    rest->setToolTip(tr("Rest Pose: every edit and morph weight cleared, the file's node transforms (one undo step)"));
    auto* bind = new QToolButton(this);
    bind->setObjectName(QStringLiteral("bindPose"));
    bind->setText(tr("Bind"));
    bind->setToolTip(tr("Bind Pose: every joint at its bind pose, the mesh exactly as authored (one undo step)"));
    connect(rest, &QToolButton::clicked, this, [this] { m_doc->editPose(rig::Pose{}, tr("Rest Pose"), 0, true); });
    connect(bind, &QToolButton::clicked, this, [this] {
        rig::Pose p;
        p.base = rig::PoseBase::Bind;
        m_doc->editPose(p, tr("Go to Bind Pose"), 0, true);
    });
    h->addWidget(rest);
    h->addWidget(bind);
    h->addWidget(m_clip);
    h->addWidget(m_prev);
    h->addWidget(m_play);
    h->addWidget(m_next);
    h->addWidget(m_slider, 1);
    h->addWidget(m_time);
    h->addWidget(m_frame);
    h->addWidget(m_loop);
    h->addWidget(m_speed);

    m_timer = new QTimer(this);
    m_timer->setInterval(16);
    connect(m_timer, &QTimer::timeout, this, [this] {
        const double dt = double(m_clock.restart()) / 1000.0 * m_speed->value();
        double t = m_doc->pose().time + dt;
        if (t > m_end) {
            if (m_loop->isChecked() && m_end > m_start)
                t = m_start + std::fmod(t - m_start, m_end - m_start);
            else {
                t = m_end;
                setPlaying(false);
            }
        }
        setTime(t);
    });
    connect(m_play, &QToolButton::toggled, this, [this](bool on) { setPlaying(on); });
    connect(m_prev, &QToolButton::clicked, this, [this] { stepKey(-1); });
    connect(m_next, &QToolButton::clicked, this, [this] { stepKey(+1); });
    connect(m_clip, &QComboBox::activated, this, [this](int i) {
        const QString clip = i <= 0 ? QString() : QString::number(i - 1);
        setPlaying(false);
        m_doc->setClipTime(clip.toStdString(), 0.0);
    });
    connect(m_slider, &QSlider::valueChanged, this, [this](int v) {
        if (!m_keys.empty())
            setTime(double(m_keys[size_t(std::clamp(v, 0, int(m_keys.size()) - 1))]));
    });
    connect(m_time, &QDoubleSpinBox::valueChanged, this, [this](double t) { setTime(t); });
    connect(doc, &app::Document::rigChanged, this, &TimelinePanel::rebuild);
    connect(doc, &app::Document::poseChanged, this, &TimelinePanel::sync);
    rebuild();
}

bool TimelinePanel::isPlaying() const { return m_timer->isActive(); }

void TimelinePanel::setPlaying(bool on)
{
    on = on && !m_doc->pose().clip.empty() && m_end > m_start;
    if (on && !m_timer->isActive()) {
        if (m_doc->pose().time >= m_end)
            setTime(m_start);
        m_clock.start();
        m_timer->start();
    } else if (!on) {
        m_timer->stop();
    }
    const QSignalBlocker b(m_play);
    m_play->setChecked(on);
    m_play->setIcon(style()->standardIcon(on ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
}

void TimelinePanel::rebuild()
{
    setPlaying(false);
    m_lastClip = nullptr;
    m_keys.clear();
    const QSignalBlocker b(m_clip);
    m_clip->clear();
    m_clip->addItem(tr("(no clip: rest)"));
    if (const app::LoadedRig* l = m_doc->loaded())
        for (size_t i = 0; i < l->rig.clips.size(); ++i) {
            const rig::Clip& c = l->rig.clips[i];
            m_clip->addItem(c.name.empty() ? tr("clip %1").arg(i) : QString::fromStdString(c.name));
            m_clip->setItemData(int(i) + 1, tr("%1 s, %2 joint channels, %3 morph channels")
                                                 .arg(double(c.duration), 0, 'f', 3)
                                                 .arg(c.joints.size())
                                                 .arg(c.morphs.size()),
                                Qt::ToolTipRole);
        }
    sync();
}

void TimelinePanel::sync()
{
    const app::LoadedRig* l = m_doc->loaded();
    const rig::ResolvedPose& rp = m_doc->resolvedPose();
    const rig::Clip* clip = l && rp.clip >= 0 && size_t(rp.clip) < l->rig.clips.size() ? &l->rig.clips[size_t(rp.clip)] : nullptr;
    {
        const QSignalBlocker b(m_clip);
        m_clip->setCurrentIndex(clip ? rp.clip + 1 : 0);
    }
    // The clip's sampling (recomputed only when the clip changes).
    if (clip != m_lastClip) {
        m_keys = clip ? rig::clipKeyTimes(*clip) : std::vector<float>{};
        m_start = m_keys.empty() ? 0.0 : double(m_keys.front());
        m_end = m_keys.empty() ? 0.0 : std::max(double(m_keys.back()), clip ? double(clip->duration) : 0.0);
        m_lastClip = clip;
    }
    const bool has = clip && !m_keys.empty();
    m_slider->setEnabled(has);
    m_time->setEnabled(has);
    m_prev->setEnabled(has);
    m_next->setEnabled(has);
    m_play->setEnabled(has);
    const double t = m_doc->pose().time;
    const QSignalBlocker bs(m_slider), bt(m_time);
    m_slider->setRange(0, has ? int(m_keys.size()) - 1 : 0);
    m_time->setRange(has ? m_start : 0.0, has ? m_end : 0.0);
    m_time->setValue(t);
    const int k = keyIndexAt(t);
    m_slider->setValue(std::max(k, 0));
    m_frame->setText(has ? tr("frame %1 / %2").arg(k).arg(m_keys.size() - 1) : tr("no clip"));
}

int TimelinePanel::keyIndexAt(double t) const
{
    // The last key at or before t (within a microsecond).
    const auto it = std::upper_bound(m_keys.begin(), m_keys.end(), float(t + 1e-6));
    return int(it - m_keys.begin()) - 1;
}

void TimelinePanel::setTime(double t)
{
    if (m_doc->pose().clip.empty())
        return;
    m_doc->setClipTime(m_doc->pose().clip, t);
}

void TimelinePanel::stepKey(int delta)
{
    if (m_keys.empty())
        return;
    setPlaying(false);
    const double t = m_doc->pose().time;
    int k = keyIndexAt(t);
    if (delta < 0 && k >= 0 && double(m_keys[size_t(k)]) < t - 1e-6)
        ++k; // between keys: "previous" is the key at or before
    k = std::clamp(k + delta, 0, int(m_keys.size()) - 1);
    setTime(double(m_keys[size_t(k)]));
}

} // namespace panels
