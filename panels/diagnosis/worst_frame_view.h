// The Diagnosis dock's Worst Frame tab: the clip playing scanned frame by frame (rig/analysis/diagnosis/clip_scan.h:
// its own key times, every method), then per method the frame of its largest normal error and the frame where linear
// blending keeps least of a vertex's neighbourhood, each with where. A click goes there: the clip at that time, the
// vertex selected and framed. The scan runs on a thread of its own with its progress shown; Cancel stops it.
#pragma once

#include <QWidget>

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "rig/analysis/diagnosis/clip_scan.h"

class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace app {
class Document;
}

namespace panels {

class WorstFrameView : public QWidget {
    Q_OBJECT
public:
    explicit WorstFrameView(app::Document* doc, QWidget* parent = nullptr);
    ~WorstFrameView() override;

    /// Scans the clip playing (cancelling a scan running); no-op without one.
    void start();
    void cancel();
    bool running() const { return m_thread.joinable() && !m_done->load(); }
    const rig::ClipScan* result() const { return m_result.get(); }
    QTreeWidget* list() const { return m_list; }
    QPushButton* button() const { return m_button; }

signals:
    void finished();
    /// Frame the selection set (the main window owns the camera).
    void frameRequested();

private:
    void onPose();
    void show(std::shared_ptr<const rig::ClipScan> scan);
    void go(QTreeWidgetItem* item);
    void join();
    app::Document* m_doc;
    QLabel* m_clip;
    QLabel* m_status;
    QPushButton* m_button;
    QTreeWidget* m_list;
    std::shared_ptr<const rig::ClipScan> m_result;
    std::string m_scannedClip; ///< the pose's clip string the result is of (setClipTime takes it back)
    std::shared_ptr<const void> m_scannedRig; ///< the rig the result is of
    std::thread m_thread;
    std::shared_ptr<std::atomic<bool>> m_cancel = std::make_shared<std::atomic<bool>>(false);
    std::shared_ptr<std::atomic<bool>> m_done = std::make_shared<std::atomic<bool>>(true);
    unsigned m_generation = 0;
};

} // namespace panels
