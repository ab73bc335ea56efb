// The one document: the loaded rig, its pose (with its undo history), the display settings, the selection, and the
// latest background evaluation of all of it. The command line and the menus set it, the viewport observes it and the
// dock panels edit it; nothing else holds this state.
//
// The change pipeline: a pose or setting change resolves names (work proportional to joints and targets), tells the
// viewport (which deforms on the GPU at once) and asks the Evaluator for the numbers (every method, off the GUI
// thread, coalesced). No work proportional to the vertex count runs on the GUI thread for a change.
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "app/evaluator.h"
#include "rig/analysis/audit.h"
#include "rig/analysis/diagnosis/weight_bands.h"
#include "rig/analysis/weight_checks.h"
#include "rig/io/asset_root.h"
#include "viewer/compute/gpu_deformer.h"
#include "rig/deform/deform.h"
#include "rig/model/model.h"
#include "rig/model/pose.h"
#include "rig/qa/rig_diff.h"
#include "viewer/view_settings.h"

class QUndoStack;

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
    QString sampleName; ///< the built-in sample's name, or empty
    rig::WeightChecks weights; ///< the raw weight checks (per-node influenced vertex counts for the bones panel)
    rig::WeightBands bands;    ///< hard boundaries, far-joint influences, left/right asymmetry (the Diagnosis dock)
    /// Per audit finding: the global vertices it touches (rig::findingVertices), for selecting them all.
    std::vector<std::shared_ptr<const std::vector<uint32_t>>> findingVertices;
    /// The rig packed for the viewport's GPU path (viewer::packGpuRig), built with the rest off the GUI thread; null
    /// when the rig cannot go to the GPU (gpuError says why; the window reports it).
    std::shared_ptr<const viewer::GpuRigPack> gpu;
    std::string gpuError;
};

/// The loaded rig compared with another version of it (File ▸ Compare With…): rig::diffWeights with the other file as A
/// and the loaded rig as B, so that the per-vertex values belong to the vertices on screen. Immutable once built.
struct RigComparison {
    QString otherPath;
    rig::RigDiff diff;
    std::shared_ptr<const std::vector<float>> weightChange;      ///< per loaded vertex; -1: no partner in the other
    std::shared_ptr<const std::vector<uint32_t>> changedVertices; ///< over the weight threshold, ascending
};

/// A set of vertices to look at (an audit finding's), with a cursor for stepping through it. The list is shared (a
/// finding's is built once, off the GUI thread, with the rig) and never copied.
struct SelectionSet {
    QString label;                                          ///< e.g. "weights-not-normalised (CesiumMan)"
    std::shared_ptr<const std::vector<uint32_t>> vertices;  ///< global indices, ascending
    size_t current = 0;
    bool empty() const { return !vertices || vertices->empty(); }
    size_t size() const { return vertices ? vertices->size() : 0; }
    uint32_t currentVertex() const { return (*vertices)[current]; }
};

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(QObject* parent = nullptr);
    ~Document() override;

    // --- the rig ---------------------------------------------------------------------------------------------------
    const LoadedRig* loaded() const { return m_loaded.get(); }
    std::shared_ptr<const LoadedRig> loadedShared() const { return m_loaded; }

    /// Loads a file on a worker thread (the import itself runs in the import worker process); emits loadFinished or
    /// loadFailed. On failure the current rig stays. A newer open (or a sample) cancels a load still running: its
    /// worker process is killed and its result dropped.
    /// External references are read only from the asset root: `assetRoot` when given, else setAssetRoot's, else the
    /// file's folder; a reference outside it emits loadRefused (not loadFailed) so that the window can ask.
    void openFile(const QString& path, const QString& assetRoot = QString());
    /// The asset root for every later openFile (the command line's --asset-root); empty: each file's folder.
    void setAssetRoot(const QString& root) { m_assetRoot = root; }
    QString assetRoot() const { return m_assetRoot; }
    /// Builds a sample rig (synchronously: they are small) and puts it in its lesson pose (rig::sampleLesson) with the
    /// lesson joint selected. Returns false (and emits loadFailed) on a bad name.
    bool openSample(const QString& name);
    /// Replaces the rig at once (used by the loaders and by tests). Resets the pose, the undo history and the
    /// selection.
    void setLoaded(std::shared_ptr<const LoadedRig> loaded);

    // --- comparison with another version ------------------------------------------------------------------------
    /// Reads `path` (in the import worker, with the asset root) and compares the loaded rig's weights with it, off the
    /// GUI thread; comparisonChanged (and Shading::WeightChange) or comparisonFailed follows. A new rig drops it.
    void compareWith(const QString& path);
    /// The comparison of the loaded rig, or null.
    std::shared_ptr<const RigComparison> comparison() const { return m_comparison; }
    void clearComparison();

    // --- pose ------------------------------------------------------------------------------------------------------
    const rig::Pose& pose() const { return m_pose; }
    const rig::ResolvedPose& resolvedPose() const { return m_resolved; }
    /// Sets the pose directly, not as an undoable edit (playback, undo itself); fails (and keeps the old one) if it
    /// names something the rig lacks.
    bool setPose(const rig::Pose& pose, QString* error = nullptr);
    /// An undoable edit of the pose: joints, morph weights, the base; and, with `withPlayback`, the clip and time too
    /// (loading a pose file). Consecutive edits of one gesture (beginGesture) merge into one undo step.
    bool editPose(const rig::Pose& pose, const QString& what, int gesture = 0, bool withPlayback = false,
                  QString* error = nullptr);
    /// The edit of a node in the current pose (identity when it has none).
    rig::JointEdit jointEdit(int node) const;
    /// Whether a pose can name this node: its name is non-empty and no earlier node has the same one.
    bool isAddressable(int node) const;
    /// An undoable edit of one joint (an identity edit removes it from the pose); false when the node cannot be named.
    bool editJoint(int node, const rig::JointEdit& edit, const QString& what, int gesture = 0);
    /// An undoable edit of one morph weight by target name (every mesh's target of that name).
    bool editMorph(const std::string& target, float weight, const QString& what, int gesture = 0);
    /// A new gesture id: a slider drag or a manipulator drag is one undo step.
    int beginGesture() { return ++m_gestures; }
    QUndoStack* undoStack() const { return m_undo; }

    /// Playback: the clip (name or index; empty for none) and the time, not undoable.
    bool setClipTime(const std::string& clip, double time);

    // --- display ---------------------------------------------------------------------------------------------------
    const DisplaySettings& display() const { return m_display; }
    /// A new runtime format (the influences and weight encoding an engine profile keeps) rebuilds the runtime data on
    /// a worker thread; rigChanged follows.
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
    /// Node index of the selected joint, or -1.
    int selectedJoint() const { return m_selectedJoint; }
    void setSelectedJoint(int node);
    const SelectionSet& selectionSet() const { return m_selectionSet; }
    /// Sets the set (its vertices must be ascending global indices of this rig) and selects its current vertex.
    void setSelectionSet(SelectionSet set);
    /// Moves the cursor of the selection set by `delta` (wrapping) and selects that vertex.
    void stepSelectionSet(int delta);
    /// Shift+click: adds global vertex v to a set of picked vertices (a set of another kind, e.g. an Audit finding's,
    /// is kept and v added to it), and picks v. Ctrl+click: toggles v in it. O(set size).
    void addToSelectionSet(int v);
    void toggleInSelectionSet(int v);

    // --- the background evaluation (the trusted numbers: status bar, panels, picking) -------------------------------
    /// The latest finished evaluation (every method), or null before the first one.
    std::shared_ptr<const EvaluationResult> evaluationResult() const { return m_result; }
    /// Its evaluation, or an empty one.
    const rig::Evaluation& evaluation() const;
    /// True when the latest evaluation is of the current rig, pose and settings.
    bool evaluationCurrent() const;
    Evaluator* evaluator() const { return m_evaluator; }

signals:
    void loadStarted(const QString& what);
    void loadFinished(const QString& what);
    void loadFailed(const QString& message);
    /// The file refers to `reference` (resolved to `resolved`) outside the asset root; `suggestedRoot` is the folder
    /// that holds both. The current rig stays. Opening again with that root (openFile(path, root)) would read it.
    void loadRefused(const QString& path, const QString& message, const QString& reference, const QString& resolved,
                     const QString& suggestedRoot);
    void rigChanged();
    void poseChanged();
    void displayChanged();
    void selectionChanged();
    void jointSelectionChanged();
    void selectionSetChanged();
    /// A new evaluation arrived (evaluationCurrent() says whether it is of the current state).
    void evaluationChanged();
    /// An evaluation was asked for (the numbers on screen are about to change).
    void evaluationRequested();
    void comparisonStarted(const QString& path);
    void comparisonChanged();
    void comparisonFailed(const QString& message);

private:
    void requestEvaluation();
    /// Rebuilds, off the GUI thread, what the display asks of the current rig: the runtime in m_display.format (when
    /// `runtime`), and the pack with the float reference's streams while a format heatmap shows; rigChanged follows.
    void rebuildRig(bool runtime);
    /// A format heatmap shows and the loaded rig's pack lacks the float reference's streams.
    bool needsComparison() const;
    void onEvaluated(std::shared_ptr<const EvaluationResult> result);

    std::shared_ptr<const LoadedRig> m_loaded;
    rig::Pose m_pose;
    rig::ResolvedPose m_resolved;
    DisplaySettings m_display;
    int m_selectedVertex = -1;
    int m_selectedJoint = -1;
    SelectionSet m_selectionSet;
    QString m_assetRoot;
    unsigned m_loadGeneration = 0;
    int m_gestures = 0;
    QUndoStack* m_undo = nullptr;
    Evaluator* m_evaluator = nullptr;
    std::shared_ptr<const EvaluationResult> m_result;
    unsigned m_requested = 0; ///< generation of the newest evaluation request

    /// Background jobs (file loads, runtime rebuilds): owned threads with a cancel flag, joined when done or at exit.
    struct Job {
        std::atomic<bool> cancel{false};
        std::atomic<bool> done{false};
        std::thread thread;
    };
    /// Cancels every job in flight; joins those already finished (never blocks on one still running).
    void cancelJobs();
    /// A new job; `exclusive` cancels the others first (a load, a rebuild), otherwise they go on (a comparison).
    Job& startJob(bool exclusive = true);
    std::shared_ptr<const RigComparison> m_comparison;
    std::vector<std::unique_ptr<Job>> m_jobs;
};

/// Loads a file (in the import worker) and builds its runtime data. Thread-safe; no Qt GUI use. Errors read
/// "<path>: <reason>". `cancel`, when set and it turns true, stops the import ("<path>: cancelled").
rig::Result<std::shared_ptr<LoadedRig>> loadRigFile(const QString& path, const rig::RuntimeFormat& format,
                                                    const std::atomic<bool>* cancel = nullptr,
                                                    const QString& assetRoot = QString(),
                                                    rig::RefusedReference* refused = nullptr);
rig::Result<std::shared_ptr<LoadedRig>> loadSample(const QString& name, const rig::RuntimeFormat& format);
/// The runtime data and audit of a rig (buildRuntime, auditRig with the bind reference).
/// `cancel`, when it turns true, cuts the runtime build short (the caller drops the result).
std::shared_ptr<LoadedRig> finishLoadedRig(rig::Rig&& rig, const rig::RuntimeFormat& format, const QString& path, const QString& name,
                                           const std::atomic<bool>* cancel = nullptr);
/// Packs the rig for the GPU path into loaded.gpu (or says why not in gpuError); part of finishLoadedRig. With
/// `comparison`, also builds the float reference's runtime and packs its streams (the format heatmaps).
void packForGpu(LoadedRig& loaded, bool comparison = false);

} // namespace app
