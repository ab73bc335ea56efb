// The background evaluation of the current state: every method, the reference, the errors and the statistics for
// the numbers the panels show, off the GUI thread. One owned worker thread; requests coalesce: the newest wins (a
// request replaced before it started is never run), an evaluation under way is finished rather than thrown away, and
// its result is published even when a newer request is waiting — as progress, flagged not current — so the numbers
// follow a drag instead of freezing until it ends. What is never published: a result older than one already
// published, or one from before clear() (another rig). The result comes back through a queued call on the
// evaluator's thread; the destructor stops and joins the worker.
//
// The worker also answers the questions that need the vertices (picking, the box of a set of vertices), against the
// latest evaluation it computed, after any evaluation requested before them: the GUI thread never loops over vertices.
#pragma once

#include <QObject>

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <glm/glm.hpp>

#include "rig/analysis/diagnosis/blend_scale.h"
#include "rig/deform/deform.h"
#include "rig/model/pose.h"
#include "viewer/box_select.h"

namespace app {

struct LoadedRig;

/// An axis-aligned box; empty when min > max.
using Box = rig::Bounds;

/// One evaluation and what it was computed for (immutable once published).
struct EvaluationResult {
    std::shared_ptr<const LoadedRig> rig;
    rig::ResolvedPose pose;
    rig::DeformSettings settings;
    rig::Evaluation eval;  ///< every method
    Box linearBounds;      ///< of the linear-blend positions (every method but rig::ownPositions() draws them)
    Box dualQuaternionBounds;
    Box centerOfRotationBounds;
    /// The per-bone box an engine computes from the joints alone (rig/deform/bounds.h): it contains linearBounds.
    Box perBoneBounds;
    /// The box of the positions method m draws.
    const Box& boundsOf(rig::Method m) const
    {
        return m == rig::Method::DualQuaternion     ? dualQuaternionBounds
               : m == rig::Method::CenterOfRotation ? centerOfRotationBounds
                                                    : linearBounds;
    }
    Box& boundsOf(rig::Method m) { return const_cast<Box&>(std::as_const(*this).boundsOf(m)); }
    rig::CandyWrapper candyWrapper; ///< linear blending's scale loss in this pose (the Diagnosis dock's bands)
    unsigned generation = 0; ///< the request's
    double milliseconds = 0.0;
};

class Evaluator : public QObject {
    Q_OBJECT
public:
    explicit Evaluator(QObject* parent = nullptr);
    ~Evaluator() override;

    /// Evaluates every method for this state (replacing a request not yet started). Returns the request's generation.
    unsigned request(std::shared_ptr<const LoadedRig> rig, const rig::ResolvedPose& pose, const rig::DeformSettings& settings);
    /// Drops the pending request and the published result (a new rig is coming).
    void clear();

    /// The vertex nearest to the ray (viewer::pickVertex) on the surface of `method`, answered by picked().
    void requestPick(const glm::vec3& origin, const glm::vec3& dir, float maxAngleRad, rig::Method method);
    /// The selection `current` (ascending; null: none) with the vertices of `method`'s surface inside a screen box
    /// (viewer::selectInBox) added, or taken out when `remove` (viewer::combineSelection), answered by boxSelected().
    void requestBoxSelect(const viewer::BoxSelectQuery& query, rig::Method method,
                          std::shared_ptr<const std::vector<uint32_t>> current, bool remove);
    /// The box of global vertices `vertices` on the surface of `method`, answered by boxReady().
    void requestBox(std::shared_ptr<const std::vector<uint32_t>> vertices, rig::Method method, int tag);

    /// True while a requested evaluation has not been published yet.
    bool isPending() const;

signals:
    /// A new result: of the latest request, or of an earlier one (progress; result->generation tells which). Results
    /// arrive in increasing generation order.
    void finished(std::shared_ptr<const EvaluationResult> result);
    void picked(int vertex);
    /// The new selection, and how many vertices the box held.
    void boxSelected(std::shared_ptr<const std::vector<uint32_t>> selection, size_t inBox);
    void boxReady(int tag, Box box);

private:
    struct Job {
        std::shared_ptr<const LoadedRig> rig;
        rig::ResolvedPose pose;
        rig::DeformSettings settings;
        unsigned generation = 0;
    };
    void run();
    /// Queues a question, answered against the latest evaluation after any evaluation requested before it.
    void ask(std::function<void(const EvaluationResult*)> question);

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::optional<Job> m_pending;              ///< the newest request not yet started
    std::deque<std::function<void(const EvaluationResult*)>> m_questions; ///< after the pending evaluation
    unsigned m_generation = 0;                 ///< of the newest request
    unsigned m_published = 0;                  ///< of the newest result delivered
    unsigned m_cleared = 0;                    ///< the generation clear() made: results up to it are of an old rig
    bool m_running = false;                    ///< the worker is evaluating
    bool m_dropLatest = false;                 ///< clear(): questions get no (old) evaluation
    bool m_stop = false;
    std::thread m_thread;
};

} // namespace app
