// The Diagnosis dock's Twist Sweep tab: the selected joint turned about its bone axis from 0° to 180° (the rest of
// the pose as it is), and at each angle how close to the bone's axis linear blending, dual quaternions and centres of
// rotation pull the joint's band: its smallest distance from the axis as a fraction of that at 0°
// (rig/analysis/diagnosis/twist_sweep.h), plotted beside cos(θ / 2), the analytic loss of a 0.5 / 0.5 vertex.
// The sweep runs on a thread of its own, cancellable; a new rig or a new sweep cancels the one running.
#pragma once

#include <QWidget>

#include <atomic>
#include <memory>
#include <thread>

#include "rig/analysis/diagnosis/twist_sweep.h"

class QChart;
class QLabel;
class QLineSeries;
class QPushButton;

namespace app {
class Document;
}

namespace panels {

class TwistSweepView : public QWidget {
    Q_OBJECT
public:
    explicit TwistSweepView(app::Document* doc, QWidget* parent = nullptr);
    ~TwistSweepView() override;

    /// Sweeps the selected joint (36 steps of 5°); a sweep running is cancelled first. No-op without a joint.
    void start();
    void cancel();
    bool running() const { return m_thread.joinable() && !m_done->load(); }
    /// The last finished sweep (null before one).
    const rig::TwistSweep* result() const { return m_result.get(); }
    QLineSeries* linearSeries() const { return m_linear; }
    QLineSeries* dualQuaternionSeries() const { return m_dq; }
    QLineSeries* centerOfRotationSeries() const { return m_cor; }
    QLineSeries* referenceSeries() const { return m_reference; }
    QPushButton* button() const { return m_button; }

signals:
    /// A sweep finished (or was cancelled with what it had).
    void finished();

private:
    void onJoint();
    void show(std::shared_ptr<const rig::TwistSweep> sweep);
    void join();
    app::Document* m_doc;
    QLabel* m_joint;
    QLabel* m_status;
    QPushButton* m_button;
    QChart* m_chart;
    QLineSeries* m_linear;
    QLineSeries* m_dq;
    QLineSeries* m_cor;
    QLineSeries* m_reference;
    std::shared_ptr<const rig::TwistSweep> m_result;
    std::thread m_thread;
    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<std::atomic<bool>> m_done = std::make_shared<std::atomic<bool>>(true);
    unsigned m_generation = 0; ///< of the sweep started last: an older one's result is dropped
};

} // namespace panels
