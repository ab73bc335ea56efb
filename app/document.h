// The one document: the loaded rig, its pose, the display settings and the selection. The command line and the menus
// set it, the viewport observes it and the dock panels edit it; nothing else holds this state.
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "rig/analysis/audit.h"
#include "rig/deform/deform.h"
#include "rig/model/model.h"
#include "rig/model/pose.h"
#include "viewer/view_settings.h"

namespace app {

using viewer::ErrorMeasure;
using viewer::Material;
using viewer::Overlay;
using viewer::Shading;
using viewer::ViewMode;
using DisplaySettings = viewer::ViewSettings;

/// A loaded rig with its derived runtime data; immutable once built, shared with worker threads.
struct LoadedRig {
    rig::Rig rig;
    rig::RigRuntime runtime;
    rig::Audit audit;
    QString path; ///< file path, or empty for a sample
    QString displayName;
};

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(QObject* parent = nullptr);
    ~Document() override;

    // --- the rig ---------------------------------------------------------------------------------------------------
    const LoadedRig* loaded() const { return m_loaded.get(); }
    std::shared_ptr<const LoadedRig> loadedShared() const { return m_loaded; }
    bool isLoading() const { return m_loading; }

    /// Loads a file on a worker thread (the import itself runs in the import worker process); emits loadFinished or
    /// loadFailed. On failure the current rig stays. A newer open (or a sample) cancels a load still running: its
    /// worker process is killed and its result dropped.
    void openFile(const QString& path);
    /// Builds a sample rig (synchronously: they are small). Returns false (and emits loadFailed) on a bad name.
    bool openSample(const QString& name);
    /// Replaces the rig at once (used by the loaders and by tests). Resets the pose and the selection.
    void setLoaded(std::shared_ptr<const LoadedRig> loaded);

    // --- pose ------------------------------------------------------------------------------------------------------
    const rig::Pose& pose() const { return m_pose; }
    /// Sets the pose; fails (and keeps the old one) if it names something the rig lacks.
    bool setPose(const rig::Pose& pose, QString* error = nullptr);
    const rig::ResolvedPose& resolvedPose() const { return m_resolved; }

    // --- display ---------------------------------------------------------------------------------------------------
    const DisplaySettings& display() const { return m_display; }
    void setDisplay(const DisplaySettings& d);
    void setMethod(rig::Method m);
    void setViewMode(ViewMode v);
    void setShading(Shading s);
    void setMaterial(Material m);
    void setOverlay(Overlay o, bool on);

    // --- selection -------------------------------------------------------------------------------------------------
    /// Global vertex index (meshes concatenated in file order), or -1.
    int selectedVertex() const { return m_selectedVertex; }
    void setSelectedVertex(int v);

    // --- CPU evaluation of the current pose (the trusted numbers: status bar, picking, panels) ---------------------
    const rig::Evaluation& evaluation() const { return m_eval; }

signals:
    void loadStarted(const QString& what);
    void loadFinished(const QString& what);
    void loadFailed(const QString& message);
    void rigChanged();
    void poseChanged();
    void displayChanged();
    void selectionChanged();
    void evaluationChanged();

private:
    void reevaluate();

    std::shared_ptr<const LoadedRig> m_loaded;
    rig::Pose m_pose;
    rig::ResolvedPose m_resolved;
    DisplaySettings m_display;
    int m_selectedVertex = -1;
    rig::Evaluation m_eval;
    bool m_loading = false;
    unsigned m_loadGeneration = 0;

    /// A load in flight: its thread (owned, joined) and its cancel flag.
    struct LoadJob {
        std::atomic<bool> cancel{false};
        std::atomic<bool> done{false};
        std::thread thread;
    };
    /// Cancels every load in flight; joins those already finished (never blocks on one still running).
    void cancelLoads();
    std::vector<std::unique_ptr<LoadJob>> m_loads;
};

/// Loads a file (in the import worker) and builds its runtime data. Thread-safe; no Qt GUI use. Errors read
/// "<path>: <reason>". `cancel`, when set and it turns true, stops the import ("<path>: cancelled").
rig::Result<std::shared_ptr<LoadedRig>> loadRigFile(const QString& path, int influences,
                                                    const std::atomic<bool>* cancel = nullptr);
rig::Result<std::shared_ptr<LoadedRig>> loadSample(const QString& name, int influences);

} // namespace app
