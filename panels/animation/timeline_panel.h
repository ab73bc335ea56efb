// The Timeline dock: clip chooser, play / pause, loop, speed, the time slider over the clip's own key times (frame
// number = key index), a time spin box, and previous / next key. Playback and scrubbing set the clip time (not undo
// steps); joint and morph edits layer on top of the sampled clip.
#pragma once

#include <QElapsedTimer>
#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;
class QTimer;
class QToolButton;

namespace app {
class Document;
}

namespace panels {

class TimelinePanel : public QWidget {
    Q_OBJECT
public:
    explicit TimelinePanel(app::Document* doc, QWidget* parent = nullptr);

    QComboBox* clipBox() const { return m_clip; }
    QSlider* slider() const { return m_slider; }
    QDoubleSpinBox* timeBox() const { return m_time; }
    QLabel* frameLabel() const { return m_frame; }
    bool isPlaying() const;
    void setPlaying(bool on);
    /// Moves to the previous (-1) or next (+1) key time of the clip.
    void stepKey(int delta);
    const std::vector<float>& keyTimes() const { return m_keys; }

private:
    void rebuild();
    void sync();
    void setTime(double t);
    int keyIndexAt(double t) const;

    app::Document* m_doc;
    QComboBox* m_clip = nullptr;
    QToolButton* m_play = nullptr;
    QToolButton* m_prev = nullptr;
    QToolButton* m_next = nullptr;
    QCheckBox* m_loop = nullptr;
    QDoubleSpinBox* m_speed = nullptr;
    QSlider* m_slider = nullptr;
    QDoubleSpinBox* m_time = nullptr;
    QLabel* m_frame = nullptr;
    QTimer* m_timer = nullptr;
    QElapsedTimer m_clock;
    std::vector<float> m_keys;
    double m_start = 0.0, m_end = 0.0;
    const void* m_lastClip = nullptr; ///< the clip m_keys were made for
};

} // namespace panels
