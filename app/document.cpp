#include "document.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QMetaObject>

#include <thread>

#include "rig/io/import.h"
#include "rig/model/samples.h"

namespace app {

namespace {

std::shared_ptr<LoadedRig> finish(rig::Rig&& r, int influences, const QString& path, const QString& name)
{
    auto loaded = std::make_shared<LoadedRig>();
    loaded->rig = std::move(r);
    loaded->runtime = rig::buildRuntime(loaded->rig, influences);
    loaded->audit = rig::auditRig(loaded->rig, loaded->runtime.bind);
    loaded->path = path;
    loaded->displayName = name;
    return loaded;
}

} // namespace

rig::Result<std::shared_ptr<LoadedRig>> loadRigFile(const QString& path, int influences, const std::atomic<bool>* cancel)
{
    rig::ImportOptions options;
    options.cancel = cancel;
    auto r = rig::importFile(path.toStdString(), options);
    if (!r)
        return rig::fail(r.error());
    return finish(std::move(r.value()), influences, path, QFileInfo(path).fileName());
}

rig::Result<std::shared_ptr<LoadedRig>> loadSample(const QString& name, int influences)
{
    auto r = rig::makeSample(name.toStdString());
    if (!r)
        return rig::fail(r.error());
    return finish(std::move(r.value()), influences, QString(), QStringLiteral("sample: ") + name);
}

Document::Document(QObject* parent) : QObject(parent) {}

Document::~Document()
{
    // Loads still running: cancel them (their worker processes are killed within ~50 ms) and wait for their threads.
    // Their queued results die with this object.
    for (auto& job : m_loads)
        job->cancel = true;
    for (auto& job : m_loads)
        if (job->thread.joinable())
            job->thread.join();
}

void Document::cancelLoads()
{
    for (auto it = m_loads.begin(); it != m_loads.end();) {
        LoadJob& job = **it;
        job.cancel = true;
        if (job.done) {
            job.thread.join();
            it = m_loads.erase(it);
        } else {
            ++it;
        }
    }
}

void Document::openFile(const QString& path)
{
    cancelLoads();
    const unsigned generation = ++m_loadGeneration;
    m_loading = true;
    emit loadStarted(path);
    const int influences = m_display.influences;
    auto job = std::make_unique<LoadJob>();
    LoadJob* raw = job.get();
    job->thread = std::thread([this, raw, path, influences, generation] {
        auto result = loadRigFile(path, influences, &raw->cancel);
        // Back to the GUI thread (dropped if the document is gone). A newer load may have started: then drop this one.
        QMetaObject::invokeMethod(
            this,
            [this, generation, result = std::move(result), path]() mutable {
                if (m_loadGeneration != generation)
                    return;
                m_loading = false;
                if (!result) {
                    emit loadFailed(QString::fromStdString(result.error()));
                    return;
                }
                setLoaded(std::move(result.value()));
                emit loadFinished(path);
            },
            Qt::QueuedConnection);
        raw->done = true;
    });
    m_loads.push_back(std::move(job));
}

bool Document::openSample(const QString& name)
{
    auto result = loadSample(name, m_display.influences);
    if (!result) {
        emit loadFailed(QString::fromStdString(result.error()));
        return false;
    }
    ++m_loadGeneration; // a sample replaces any file still loading
    cancelLoads();
    m_loading = false;
    setLoaded(std::move(result.value()));
    emit loadFinished(QStringLiteral("sample:") + name);
    return true;
}

void Document::setLoaded(std::shared_ptr<const LoadedRig> loaded)
{
    m_loaded = std::move(loaded);
    m_pose = rig::Pose{};
    m_selectedVertex = -1;
    m_eval = rig::Evaluation{};
    auto resolved = rig::resolvePose(m_loaded->rig, m_pose);
    m_resolved = resolved ? resolved.value() : rig::ResolvedPose{};
    emit rigChanged();
    emit selectionChanged();
    reevaluate();
    emit poseChanged();
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
    reevaluate();
    emit poseChanged();
    return true;
}

void Document::setDisplay(const DisplaySettings& d)
{
    if (d == m_display)
        return;
    const bool needsEval = d.method != m_display.method || d.morphNormals != m_display.morphNormals;
    const bool needsRuntime = d.influences != m_display.influences;
    m_display = d;
    if (needsRuntime && m_loaded) {
        auto copy = std::make_shared<LoadedRig>(*m_loaded);
        copy->runtime = rig::buildRuntime(copy->rig, d.influences);
        m_loaded = std::move(copy);
        emit rigChanged();
    }
    if (needsEval || needsRuntime)
        reevaluate();
    emit displayChanged();
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

void Document::setSelectedVertex(int v)
{
    if (!m_loaded || v < -1 || v >= int(m_loaded->rig.vertexCount()))
        v = -1;
    if (v == m_selectedVertex)
        return;
    m_selectedVertex = v;
    emit selectionChanged();
}

void Document::reevaluate()
{
    if (!m_loaded)
        return;
    rig::DeformSettings s;
    s.morphNormals = m_display.morphNormals;
    const rig::Method methods[] = {m_display.method};
    rig::evaluate(m_loaded->rig, m_loaded->runtime, m_resolved, methods, s, m_eval);
    emit evaluationChanged();
}

} // namespace app
