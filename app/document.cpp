#include "app/document.h"

#include "rig/deform/engine_profiles.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QUndoCommand>
#include <QUndoStack>

#include <algorithm>
#include <filesystem>

#include "rig/io/import.h"
#include "rig/model/samples.h"
#include "viewer/view_aids.h"

namespace app {

namespace {

/// One undoable pose edit: the pose before and after. Without playback, undo and redo keep the clip and time the
/// timeline has then (scrubbing is not an edit).
class PoseCommand : public QUndoCommand {
public:
    PoseCommand(Document* doc, rig::Pose before, rig::Pose after, const QString& text, int gesture, bool withPlayback)
        : QUndoCommand(text), m_doc(doc), m_before(std::move(before)), m_after(std::move(after)), m_gesture(gesture),
          m_withPlayback(withPlayback)
    {
    }
    int id() const override { return m_gesture > 0 ? 1 : -1; }
    bool mergeWith(const QUndoCommand* other) override
    {
        const auto* o = static_cast<const PoseCommand*>(other);
        if (o->m_gesture != m_gesture || o->m_withPlayback != m_withPlayback)
            return false;
        m_after = o->m_after;
        return true;
    }
    void redo() override { apply(m_after); }
    void undo() override { apply(m_before); }

private:
    void apply(const rig::Pose& p)
    {
        rig::Pose target = p;
        if (!m_withPlayback) {
            target.clip = m_doc->pose().clip;
            target.time = m_doc->pose().time;
        }
        m_doc->setPose(target);
    }
    Document* m_doc;
    rig::Pose m_before, m_after;
    int m_gesture;
    bool m_withPlayback;
};

} // namespace

void packForGpu(LoadedRig& loaded, bool comparison)
{
    rig::Result<viewer::GpuRigPack> pack = viewer::packGpuRig(loaded.rig, loaded.runtime);
    if (pack && comparison) {
        const rig::RigRuntime reference = rig::buildRuntime(loaded.rig, rig::kReferenceFormat);
        auto compared = viewer::packComparison(loaded.rig, reference, pack.value());
        if (!compared)
            pack = rig::fail(compared.error());
    }
    if (pack) {
        pack.value().edges = viewer::uniqueEdges(loaded.rig); // the viewport's wireframe
        pack.value().hardEdges = loaded.bands.hardBoundaryEdgeList; // its hard-boundary overlay
        loaded.gpu = std::make_shared<const viewer::GpuRigPack>(std::move(pack.value()));
        loaded.gpuError.clear();
    } else {
        loaded.gpu.reset();
        loaded.gpuError = pack.error();
    }
}

std::shared_ptr<LoadedRig> finishLoadedRig(rig::Rig&& r, const rig::RuntimeFormat& format, const QString& path, const QString& name,
                                           const std::atomic<bool>* cancel)
{
    auto loaded = std::make_shared<LoadedRig>();
    loaded->rig = std::move(r);
    rig::RuntimeBuildControl control;
    control.cancel = cancel; // a cancelled load's result is dropped: its centres of rotation need not finish
    loaded->runtime = rig::buildRuntime(loaded->rig, format, control);
    loaded->audit = rig::auditRig(loaded->rig, loaded->runtime.bind);
    loaded->weights = rig::checkWeights(loaded->rig);
    loaded->bands = rig::diagnoseWeightBands(loaded->rig);
    loaded->findingVertices.reserve(loaded->audit.findings.size());
    for (const rig::AuditFinding& f : loaded->audit.findings)
        loaded->findingVertices.push_back(std::make_shared<const std::vector<uint32_t>>(rig::findingVertices(loaded->rig, f)));
    packForGpu(*loaded);
    loaded->path = path;
    loaded->displayName = name;
    return loaded;
}

rig::Result<std::shared_ptr<LoadedRig>> loadRigFile(const QString& path, const rig::RuntimeFormat& format,
                                                    const std::atomic<bool>* cancel,
                                                    const QString& assetRoot, rig::RefusedReference* refused)
{
    rig::ImportOptions options;
    options.cancel = cancel;
    options.assetRoot = assetRoot.toStdString();
    options.refused = refused;
    auto r = rig::importFile(path.toStdString(), options);
    if (!r)
        return rig::fail(r.error());
    return finishLoadedRig(std::move(r.value()), format, path, QFileInfo(path).fileName(), cancel);
}

rig::Result<std::shared_ptr<LoadedRig>> loadSample(const QString& name, const rig::RuntimeFormat& format)
{
    auto r = rig::makeSample(name.toStdString());
    if (!r)
        return rig::fail(r.error());
    auto loaded = finishLoadedRig(std::move(r.value()), format, QString(), QStringLiteral("sample: ") + name);
    loaded->sampleName = name;
    return loaded;
}

Document::Document(QObject* parent) : QObject(parent)
{
    m_undo = new QUndoStack(this);
    m_evaluator = new Evaluator(this);
    connect(m_evaluator, &Evaluator::finished, this, &Document::onEvaluated);
}

Document::~Document()
{
    // Jobs still running: cancel them (an import worker process is killed within ~50 ms) and wait for their threads.
    // Their queued results die with this object. The evaluator's worker is joined by its own destructor.
    for (auto& job : m_jobs)
        job->cancel = true;
    for (auto& job : m_jobs)
        if (job->thread.joinable())
            job->thread.join();
}

void Document::cancelJobs()
{
    for (auto it = m_jobs.begin(); it != m_jobs.end();) {
        Job& job = **it;
        job.cancel = true;
        if (job.done) {
            job.thread.join();
            it = m_jobs.erase(it);
        } else {
            ++it;
        }
    }
}

Document::Job& Document::startJob(bool exclusive)
{
    if (exclusive)
        cancelJobs();
    m_jobs.push_back(std::make_unique<Job>());
    return *m_jobs.back();
}

void Document::openFile(const QString& path, const QString& assetRoot)
{
    const unsigned generation = ++m_loadGeneration;
    emit loadStarted(path);
    const rig::RuntimeFormat format = m_display.format;
    const QString root = assetRoot.isEmpty() ? m_assetRoot : assetRoot;
    Job& job = startJob();
    Job* raw = &job;
    job.thread = std::thread([this, raw, path, format, generation, root] {
        rig::RefusedReference refused;
        auto result = loadRigFile(path, format, &raw->cancel, root, &refused);
        // Back to the GUI thread (dropped if the document is gone). A newer load may have started: then drop this one.
        QMetaObject::invokeMethod(
            this,
            [this, generation, result = std::move(result), path, refused]() mutable {
                if (m_loadGeneration != generation)
                    return;
                if (!result) {
                    if (refused.outsideRoot()) {
                        // The folder that would hold both the file and what it refers to: the root to ask about.
                        std::filesystem::path a = std::filesystem::absolute(path.toStdString()).parent_path().lexically_normal();
                        std::filesystem::path b = std::filesystem::path(refused.resolved).parent_path();
                        std::filesystem::path common;
                        for (auto ia = a.begin(), ib = b.begin(); ia != a.end() && ib != b.end() && *ia == *ib; ++ia, ++ib)
                            common /= *ia;
                        emit loadRefused(path, QString::fromStdString(result.error()), QString::fromStdString(refused.reference),
                                         QString::fromStdString(refused.resolved),
                                         QString::fromStdString(common.empty() ? std::string("/") : common.string()));
                        return;
                    }
                    emit loadFailed(QString::fromStdString(result.error()));
                    return;
                }
                setLoaded(std::move(result.value()));
                emit loadFinished(path);
            },
            Qt::QueuedConnection);
        raw->done = true;
    });
}

bool Document::openSample(const QString& name)
{
    auto result = loadSample(name, m_display.format);
    if (!result) {
        emit loadFailed(QString::fromStdString(result.error()));
        return false;
    }
    ++m_loadGeneration; // a sample replaces any file still loading
    cancelJobs();
    setLoaded(std::move(result.value()));
    // A sample opens in the pose that shows its lesson (README: "what it shows"), its lesson joint selected; the
    // undo history starts empty (Rest Pose is one step away).
    const rig::SampleLesson lesson = rig::sampleLesson(name.toStdString());
    setPose(lesson.pose);
    if (!lesson.joint.empty())
        setSelectedJoint(m_loaded->rig.skeleton.find(lesson.joint));
    emit loadFinished(QStringLiteral("sample:") + name);
    return true;
}

void Document::compareWith(const QString& path)
{
    if (!m_loaded)
        return;
    emit comparisonStarted(path);
    const unsigned generation = m_loadGeneration;
    std::shared_ptr<const LoadedRig> shown = m_loaded;
    const QString root = m_assetRoot;
    Job& job = startJob(false);
    Job* raw = &job;
    job.thread = std::thread([this, raw, path, shown, generation, root] {
        rig::ImportOptions options;
        options.cancel = &raw->cancel;
        options.assetRoot = root.toStdString();
        auto other = rig::importFile(path.toStdString(), options);
        rig::Result<rig::RigDiff> diff = other ? rig::diffWeights(other.value(), shown->rig, {})
                                               : rig::Result<rig::RigDiff>(rig::fail(other.error()));
        std::shared_ptr<RigComparison> result;
        if (diff) {
            result = std::make_shared<RigComparison>();
            result->otherPath = path;
            result->diff = std::move(diff.value());
            result->weightChange = std::make_shared<const std::vector<float>>(std::move(result->diff.weightChange));
            result->diff.weightChange.clear();
            auto changed = std::make_shared<std::vector<uint32_t>>();
            const float threshold = rig::RigDiffOptions{}.weightThreshold;
            for (size_t v = 0; v < result->weightChange->size(); ++v)
                if ((*result->weightChange)[v] > threshold)
                    changed->push_back(uint32_t(v));
            result->changedVertices = std::move(changed);
        }
        const std::string error = diff ? std::string() : diff.error();
        QMetaObject::invokeMethod(
            this,
            [this, generation, shown, result, error] {
                // Another rig since (a rebuild for another runtime format keeps the generation and the vertices).
                if (m_loadGeneration != generation || !m_loaded || m_loaded->rig.vertexCount() != shown->rig.vertexCount())
                    return;
                if (!result) {
                    emit comparisonFailed(QString::fromStdString(error));
                    return;
                }
                m_comparison = result;
                emit comparisonChanged();
                setShading(Shading::WeightChange);
            },
            Qt::QueuedConnection);
        raw->done = true;
    });
}

void Document::clearComparison()
{
    if (!m_comparison)
        return;
    m_comparison.reset();
    if (m_display.shading == Shading::WeightChange)
        setShading(Shading::Lit);
    emit comparisonChanged();
}

void Document::setLoaded(std::shared_ptr<const LoadedRig> loaded)
{
    // Another rig (not the same one rebuilt for another runtime format) drops the comparison.
    if (m_comparison && (!loaded || !m_loaded || loaded->path != m_loaded->path || loaded->sampleName != m_loaded->sampleName ||
                         loaded->rig.vertexCount() != m_loaded->rig.vertexCount())) {
        m_comparison.reset();
        if (m_display.shading == Shading::WeightChange)
            m_display.shading = Shading::Lit;
        emit comparisonChanged();
    }
    m_loaded = std::move(loaded);
    m_pose = rig::Pose{};
    m_selectedVertex = -1;
    m_selectedJoint = -1;
    m_selectionSet = SelectionSet{};
    m_undo->clear(); // switching rigs clears the history
    m_result.reset();
    m_evaluator->clear();
    auto resolved = rig::resolvePose(m_loaded->rig, m_pose);
    m_resolved = resolved ? resolved.value() : rig::ResolvedPose{};
    emit rigChanged();
    emit selectionChanged();
    emit jointSelectionChanged();
    emit selectionSetChanged();
    requestEvaluation();
    emit poseChanged();
    if (needsComparison())
        rebuildRig(false);
}

bool Document::setPose(const rig::Pose& pose, QString* error)
{
    if (!m_loaded) {
        if (error)
            *error = QStringLiteral("no rig is loaded");
        return false;
    }
    auto resolved = rig::resolvePose(m_loaded->rig, pose);
    if (!resolved) {
        if (error)
            *error = QString::fromStdString(resolved.error());
        return false;
    }
    m_pose = pose;
    m_resolved = std::move(resolved.value());
    requestEvaluation();
    emit poseChanged();
    return true;
}

bool Document::editPose(const rig::Pose& pose, const QString& what, int gesture, bool withPlayback, QString* error)
{
    if (!m_loaded) {
        if (error)
            *error = QStringLiteral("no rig is loaded");
        return false;
    }
    rig::Pose target = pose;
    if (!withPlayback) {
        target.clip = m_pose.clip;
        target.time = m_pose.time;
    }
    auto resolved = rig::resolvePose(m_loaded->rig, target);
    if (!resolved) {
        if (error)
            *error = QString::fromStdString(resolved.error());
        return false;
    }
    m_undo->push(new PoseCommand(this, m_pose, target, what, gesture, withPlayback)); // redo() applies it
    return true;
}

bool Document::setClipTime(const std::string& clip, double time)
{
    rig::Pose p = m_pose;
    p.clip = clip;
    p.time = time;
    return setPose(p);
}

void Document::setDisplay(const DisplaySettings& d)
{
    if (d == m_display)
        return;
    const bool needsEval = d.morphNormals != m_display.morphNormals;
    const bool needsRuntime = d.format != m_display.format;
    m_display = d;
    if (m_loaded && (needsRuntime || needsComparison()))
        rebuildRig(needsRuntime);
    if (needsEval)
        requestEvaluation();
    emit displayChanged();
}

bool Document::needsComparison() const
{
    return viewer::showsFormatDifference(m_display.shading) && m_loaded && m_loaded->gpu && !m_loaded->gpu->hasComparison();
}

void Document::rebuildRig(bool runtime)
{
    // Built off the GUI thread; the rig, pose and selection stay.
    const std::shared_ptr<const LoadedRig> current = m_loaded;
    const rig::RuntimeFormat k = m_display.format;
    const bool comparison = viewer::showsFormatDifference(m_display.shading);
    Job& job = startJob();
    Job* raw = &job;
    job.thread = std::thread([this, raw, current, k, runtime, comparison] {
        auto copy = std::make_shared<LoadedRig>(*current);
        if (runtime)
            copy->runtime = rig::buildRuntime(copy->rig, k);
        packForGpu(*copy, comparison); // the influence stream (or the comparison) changed: so does the pack
        QMetaObject::invokeMethod(
            this,
            [this, current, copy, k] {
                if (m_loaded != current || m_display.format != k)
                    return; // another rig, or another format asked for since
                m_loaded = copy;
                m_result.reset();
                emit rigChanged();
                requestEvaluation();
                emit poseChanged();
            },
            Qt::QueuedConnection);
        raw->done = true;
    });
}

void Document::setMethod(rig::Method m)
{
    DisplaySettings d = m_display;
    d.method = m;
    setDisplay(d);
}

void Document::setViewMode(ViewMode v)
{
    DisplaySettings d = m_display;
    d.view = v;
    setDisplay(d);
}

void Document::setShading(Shading s)
{
    DisplaySettings d = m_display;
    d.shading = s;
    setDisplay(d);
}

void Document::setMaterial(Material m)
{
    DisplaySettings d = m_display;
    d.material = m;
    setDisplay(d);
}

void Document::setOverlay(Overlay o, bool on)
{
    DisplaySettings d = m_display;
    d.overlays = on ? (d.overlays | o) : (d.overlays & ~unsigned(o));
    setDisplay(d);
}

rig::JointEdit Document::jointEdit(int node) const
{
    if (!isAddressable(node))
        return {};
    const auto it = m_pose.joints.find(m_loaded->rig.skeleton.nodes[size_t(node)].name);
    return it == m_pose.joints.end() ? rig::JointEdit{} : it->second;
}

bool Document::isAddressable(int node) const
{
    if (!m_loaded || node < 0 || size_t(node) >= m_loaded->rig.skeleton.nodes.size())
        return false;
    const std::string& name = m_loaded->rig.skeleton.nodes[size_t(node)].name;
    return !name.empty() && m_loaded->rig.skeleton.find(name) == node;
}

bool Document::editJoint(int node, const rig::JointEdit& edit, const QString& what, int gesture)
{
    if (!isAddressable(node))
        return false;
    rig::Pose p = m_pose;
    const std::string& name = m_loaded->rig.skeleton.nodes[size_t(node)].name;
    if (edit.isIdentity())
        p.joints.erase(name);
    else
        p.joints[name] = edit;
    return editPose(p, what, gesture);
}

bool Document::editMorph(const std::string& target, float weight, const QString& what, int gesture)
{
    rig::Pose p = m_pose;
    p.morphs[target] = weight;
    return editPose(p, what, gesture);
}

void Document::setSelectedVertex(int v)
{
    if (!m_loaded || v < -1 || v >= int(m_loaded->rig.vertexCount()))
        v = -1;
    if (v == m_selectedVertex)
        return;
    m_selectedVertex = v;
    emit selectionChanged();
}

void Document::setSelectedJoint(int node)
{
    if (!m_loaded || node < -1 || node >= int(m_loaded->rig.skeleton.nodes.size()))
        node = -1;
    if (node == m_selectedJoint)
        return;
    m_selectedJoint = node;
    emit jointSelectionChanged();
}

void Document::setSelectionSet(SelectionSet set)
{
    // Ascending: the last index bounds them all (O(1), whatever the set's size).
    if (!m_loaded || (!set.empty() && set.vertices->back() >= m_loaded->rig.vertexCount()))
        set = SelectionSet{};
    set.current = std::min(set.current, set.empty() ? size_t(0) : set.size() - 1);
    m_selectionSet = std::move(set);
    emit selectionSetChanged();
    if (!m_selectionSet.empty())
        setSelectedVertex(int(m_selectionSet.currentVertex()));
}

void Document::addToSelectionSet(int v)
{
    if (!m_loaded || v < 0 || v >= int(m_loaded->rig.vertexCount()))
        return;
    std::vector<uint32_t> list = m_selectionSet.empty() ? std::vector<uint32_t>() : *m_selectionSet.vertices;
    if (list.empty() && m_selectedVertex >= 0 && m_selectedVertex != v)
        list.push_back(uint32_t(m_selectedVertex)); // a plain click, then Shift+click: both
    const auto at = std::lower_bound(list.begin(), list.end(), uint32_t(v));
    if (at == list.end() || *at != uint32_t(v))
        list.insert(at, uint32_t(v));
    SelectionSet set;
    set.label = m_selectionSet.empty() ? tr("picked vertices") : m_selectionSet.label;
    set.current = size_t(std::lower_bound(list.begin(), list.end(), uint32_t(v)) - list.begin());
    set.vertices = std::make_shared<const std::vector<uint32_t>>(std::move(list));
    setSelectionSet(std::move(set));
}

void Document::toggleInSelectionSet(int v)
{
    if (!m_loaded || v < 0 || v >= int(m_loaded->rig.vertexCount()))
        return;
    std::vector<uint32_t> list = m_selectionSet.empty() ? std::vector<uint32_t>() : *m_selectionSet.vertices;
    const auto at = std::lower_bound(list.begin(), list.end(), uint32_t(v));
    const bool present = at != list.end() && *at == uint32_t(v);
    if (present)
        list.erase(at);
    else
        list.insert(at, uint32_t(v));
    SelectionSet set;
    set.label = m_selectionSet.empty() ? tr("picked vertices") : m_selectionSet.label;
    if (!list.empty()) {
        const size_t near = size_t(std::lower_bound(list.begin(), list.end(), uint32_t(v)) - list.begin());
        set.current = std::min(near, list.size() - 1);
        set.vertices = std::make_shared<const std::vector<uint32_t>>(std::move(list));
    }
    setSelectionSet(std::move(set));
    if (present && m_selectedVertex == v)
        setSelectedVertex(-1);
}

void Document::stepSelectionSet(int delta)
{
    if (m_selectionSet.empty())
        return;
    const long n = long(m_selectionSet.size());
    m_selectionSet.current = size_t(((long(m_selectionSet.current) + delta) % n + n) % n);
    emit selectionSetChanged();
    setSelectedVertex(int(m_selectionSet.currentVertex()));
}

const rig::Evaluation& Document::evaluation() const
{
    static const rig::Evaluation empty;
    return m_result ? m_result->eval : empty;
}

bool Document::evaluationCurrent() const
{
    return m_result && m_result->generation == m_requested;
}

void Document::requestEvaluation()
{
    if (!m_loaded)
        return;
    rig::DeformSettings s;
    s.morphNormals = m_display.morphNormals;
    m_requested = m_evaluator->request(m_loaded, m_resolved, s);
    emit evaluationRequested();
}

void Document::onEvaluated(std::shared_ptr<const EvaluationResult> result)
{
    if (!m_loaded || result->rig != m_loaded)
        return; // an evaluation of a rig no longer shown
    m_result = std::move(result);
    emit evaluationChanged();
}

} // namespace app
