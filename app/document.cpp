#include "document.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QMetaObject>

#include <thread>

#include "rig/import.h"
#include "rig/samples.h"

namespace app {

namespace {

std::shared_ptr<LoadedRig> finish(rig::Rig&& r, int influences, const QString& path, const QString& name)
{
    auto loaded = std::make_shared<LoadedRig>();
    loaded->rig = std::move(r);
    loaded->runtime = rig::buildRuntime(loaded->rig, influences);
    loaded->audit = rig::auditRig(loaded->rig);
    loaded->path = path;
    loaded->displayName = name;
    return loaded;
}

} // namespace

rig::Result<std::shared_ptr<LoadedRig>> loadRigFile(const QString& path, int influences)
{
    auto r = rig::importFile(path.toStdString());
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
    // A worker still loading will find the document gone (QPointer) and drop its result.
}

void Document::openFile(const QString& path)
{
    const unsigned generation = ++m_loadGeneration;
    m_loading = true;
    emit loadStarted(path);
    const int influences = m_display.influences;
    QPointer<Document> self(this);
    std::thread([self, path, influences, generation] {
        auto result = loadRigFile(path, influences);
        // Back to the GUI thread. The document may be gone or a newer load may have started: then drop this one.
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, generation, result = std::move(result), path]() mutable {
                if (!self || self->m_loadGeneration != generation)
                    return;
                self->m_loading = false;
                if (!result) {
                    emit self->loadFailed(QString::fromStdString(result.error()));
                    return;
                }
                self->setLoaded(std::move(result.value()));
                emit self->loadFinished(path);
            },
            Qt::QueuedConnection);
    }).detach();
}

bool Document::openSample(const QString& name)
{
    auto result = loadSample(name, m_display.influences);
    if (!result) {
        emit loadFailed(QString::fromStdString(result.error()));
        return false;
    }
    ++m_loadGeneration; // a sample replaces any file still loading
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
