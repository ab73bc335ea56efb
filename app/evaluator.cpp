#include "app/evaluator.h"

#include <QMetaObject>

#include <chrono>
#include <cmath>

#include "app/document.h"
#include "viewer/picking.h"

namespace app {

Evaluator::Evaluator(QObject* parent) : QObject(parent)
{
    m_thread = std::thread([this] { run(); });
}

Evaluator::~Evaluator()
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
        m_pending.reset();
        m_questions.clear();
    }
    m_wake.notify_all();
    m_thread.join(); // an evaluation in progress finishes first (it is not interruptible mid-way)
}

unsigned Evaluator::request(std::shared_ptr<const LoadedRig> rig, const rig::ResolvedPose& pose,
                            const rig::DeformSettings& settings)
{
    unsigned generation;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        generation = ++m_generation;
        m_pending = Job{std::move(rig), pose, settings, generation};
    }
    m_wake.notify_one();
    return generation;
}

void Evaluator::clear()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_pending.reset();
    m_dropLatest = true;
    m_cleared = ++m_generation; // a result in flight is of the old rig
}

void Evaluator::ask(std::function<void(const EvaluationResult*)> question)
{
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_questions.push_back(std::move(question));
    }
    m_wake.notify_one();
}

void Evaluator::requestPick(const glm::vec3& origin, const glm::vec3& dir, float maxAngleRad, rig::Method method)
{
    ask([this, origin, dir, maxAngleRad, method](const EvaluationResult* latest) {
        const int v = latest ? viewer::pickVertex(latest->eval, method, origin, dir, maxAngleRad) : -1;
        QMetaObject::invokeMethod(this, [this, v] { emit picked(v); }, Qt::QueuedConnection);
    });
}

void Evaluator::requestBoxSelect(const viewer::BoxSelectQuery& query, rig::Method method,
                                 std::shared_ptr<const std::vector<uint32_t>> current, bool remove)
{
    ask([this, query, method, current = std::move(current), remove](const EvaluationResult* latest) {
        static const std::vector<uint32_t> kNone;
        std::vector<uint32_t> box;
        if (latest)
            box = viewer::selectInBox(latest->rig->rig, latest->eval, method, query);
        const size_t inBox = box.size();
        auto selection = std::make_shared<const std::vector<uint32_t>>(
            viewer::combineSelection(current ? *current : kNone, box, remove));
        QMetaObject::invokeMethod(this, [this, selection, inBox] { emit boxSelected(selection, inBox); },
                                  Qt::QueuedConnection);
    });
}

void Evaluator::requestBox(std::shared_ptr<const std::vector<uint32_t>> vertices, rig::Method method, int tag)
{
    ask([this, vertices = std::move(vertices), method, tag](const EvaluationResult* latest) {
        Box box;
        if (latest && vertices) {
            box.min = glm::vec3(std::numeric_limits<float>::infinity());
            box.max = -box.min;
            // Global index -> mesh, then the method's surface.
            const rig::Evaluation& e = latest->eval;
            for (uint32_t g : *vertices) {
                size_t base = 0;
                for (const rig::MeshEvaluation& me : e.meshes) {
                    const std::vector<glm::vec3>& p = me.surfaceOf(method).positions;
                    if (g < base + p.size()) {
                        const glm::vec3 x = p[g - base];
                        if (std::isfinite(x.x + x.y + x.z)) {
                            box.min = glm::min(box.min, x);
                            box.max = glm::max(box.max, x);
                        }
                        break;
                    }
                    base += p.size();
                }
            }
        }
        QMetaObject::invokeMethod(this, [this, tag, box] { emit boxReady(tag, box); }, Qt::QueuedConnection);
    });
}

bool Evaluator::isPending() const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_pending.has_value() || m_running || m_published != m_generation;
}

void Evaluator::run()
{
    // Results are reused once nobody else holds them (the GUI keeps the latest, queued calls keep theirs until they
    // are delivered), so that a drag does not allocate an evaluation per step.
    std::vector<std::shared_ptr<EvaluationResult>> pool;
    std::shared_ptr<EvaluationResult> latest;
    std::unique_lock<std::mutex> lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [this] { return m_stop || m_pending || !m_questions.empty(); });
        if (m_stop)
            return;
        if (m_dropLatest) {
            latest.reset();
            m_dropLatest = false;
        }
        if (m_pending) {
            Job job = std::move(*m_pending);
            m_pending.reset();
            m_running = true;
            lock.unlock();

            std::shared_ptr<EvaluationResult> result;
            for (const auto& candidate : pool)
                if (candidate.use_count() == 1 && candidate != latest) {
                    result = candidate;
                    break;
                }
            if (!result) {
                result = std::make_shared<EvaluationResult>();
                if (pool.size() < 3)
                    pool.push_back(result);
            }
            const auto start = std::chrono::steady_clock::now();
            result->rig = job.rig;
            result->pose = job.pose;
            result->settings = job.settings;
            result->generation = job.generation;
            rig::evaluate(job.rig->rig, job.rig->runtime, job.pose, rig::allMethods(), job.settings, result->eval);
            for (rig::Method m : {rig::Method::Linear, rig::Method::DualQuaternion, rig::Method::CenterOfRotation})
                result->boundsOf(m) = rig::surfaceBounds(result->eval, m);
            result->perBoneBounds = rig::perBoneBounds(job.rig->rig, job.rig->runtime, result->eval);
            result->candyWrapper = rig::measureCandyWrapper(job.rig->rig, job.rig->runtime, result->eval);
            result->milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            latest = result;

            lock.lock();
            m_running = false;
            if (job.generation > m_cleared) {
                // The newest, or progress towards it: publish unless something newer was published meanwhile.
                std::shared_ptr<const EvaluationResult> published = result;
                const unsigned generation = job.generation;
                QMetaObject::invokeMethod(
                    this,
                    [this, published, generation] {
                        {
                            std::lock_guard<std::mutex> guard(m_mutex);
                            if (generation <= m_cleared || generation <= m_published)
                                return; // another rig since, or older than what is shown
                            m_published = generation;
                        }
                        emit finished(published);
                    },
                    Qt::QueuedConnection);
            }
            continue; // a newer request first, then the questions
        }
        auto questions = std::move(m_questions);
        m_questions.clear();
        lock.unlock();
        for (auto& q : questions)
            q(latest.get());
        lock.lock();
    }
}

} // namespace app
