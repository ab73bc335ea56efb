// The background evaluator behind the panels' numbers: coalescing (the newest request wins, results arrive in
// increasing generation, never older than what was shown, never of a rig cleared away), the answers to picking and
// box questions after the evaluation asked before them, and a clean stop with work in flight.
#include "testutil.h"

#include <QSignalSpy>

#include <numeric>

#include "app/document.h"
#include "app/evaluator.h"

namespace {

std::shared_ptr<const app::LoadedRig> benchmarkRig(size_t vertices)
{
    return app::finishLoadedRig(rig::makeBenchmarkRig(vertices, 20, 4), rig::RuntimeFormat{}, QString(), QStringLiteral("bench"));
}

rig::ResolvedPose bent(const rig::Rig& r, float degrees)
{
    rig::Pose p;
    p.joints[r.skeleton.nodes[1].name].rotateDeg = glm::vec3(0, 0, degrees);
    return rig::resolvePose(r, p).value();
}

} // namespace

class TestEvaluator : public QObject {
    Q_OBJECT
private slots:
    void aBurstEndsWithTheNewestAndNeverGoesBack();
    void theLastResultIsOfTheLastPose();
    void clearDropsResultsOfTheOldRig();
    void questionsAreAnsweredAfterTheEvaluationBeforeThem();
    void destructionWithWorkInFlightStopsCleanly();
};

void TestEvaluator::aBurstEndsWithTheNewestAndNeverGoesBack()
{
    const auto rig = benchmarkRig(60000);
    app::Evaluator ev;
    std::vector<unsigned> seen;
    connect(&ev, &app::Evaluator::finished, this, [&](std::shared_ptr<const app::EvaluationResult> r) { seen.push_back(r->generation); });
    unsigned last = 0;
    for (int i = 0; i < 40; ++i)
        last = ev.request(rig, bent(rig->rig, float(i)), {});
    QTRY_VERIFY_WITH_TIMEOUT(!seen.empty() && seen.back() == last, 60000);
    QVERIFY(!ev.isPending());
    // Coalesced: far fewer evaluations than requests, in increasing order.
    QVERIFY2(seen.size() < 40, qPrintable(QString::number(seen.size())));
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
    QVERIFY(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
}

void TestEvaluator::theLastResultIsOfTheLastPose()
{
    const auto rig = benchmarkRig(20000);
    app::Evaluator ev;
    std::shared_ptr<const app::EvaluationResult> latest;
    connect(&ev, &app::Evaluator::finished, this, [&](std::shared_ptr<const app::EvaluationResult> r) { latest = r; });
    const rig::ResolvedPose a = bent(rig->rig, 10.0f), b = bent(rig->rig, 80.0f);
    ev.request(rig, a, {});
    const unsigned gb = ev.request(rig, b, {});
    QTRY_VERIFY_WITH_TIMEOUT(latest && latest->generation == gb, 60000);
    // Its numbers are those of pose b, computed independently here.
    rig::Evaluation expected;
    rig::evaluate(rig->rig, rig->runtime, b, rig::allMethods(), {}, expected);
    QCOMPARE(latest->eval.stats[size_t(rig::Method::Linear)].normal.max, expected.stats[size_t(rig::Method::Linear)].normal.max);
    QCOMPARE(latest->pose.joints.front().second.rotateDeg.z, 80.0f);
}

void TestEvaluator::clearDropsResultsOfTheOldRig()
{
    const auto oldRig = benchmarkRig(80000), newRig = benchmarkRig(2000);
    app::Evaluator ev;
    std::vector<std::shared_ptr<const app::EvaluationResult>> results;
    connect(&ev, &app::Evaluator::finished, this, [&](std::shared_ptr<const app::EvaluationResult> r) { results.push_back(r); });
    ev.request(oldRig, bent(oldRig->rig, 30.0f), {});
    QTest::qWait(5); // let the worker start on it
    ev.clear();
    const unsigned g = ev.request(newRig, bent(newRig->rig, 30.0f), {});
    QTRY_VERIFY_WITH_TIMEOUT(!results.empty() && results.back()->generation == g, 60000);
    QTest::qWait(50);
    for (const auto& r : results)
        QVERIFY(r->rig == newRig);
}

void TestEvaluator::questionsAreAnsweredAfterTheEvaluationBeforeThem()
{
    const auto rig = benchmarkRig(5000);
    app::Evaluator ev;
    QSignalSpy boxes(&ev, &app::Evaluator::boxReady);
    // Bend, then ask for the box of every vertex: the answer is the bent surface's box, not the rest one.
    ev.request(rig, bent(rig->rig, 90.0f), {});
    auto all = std::make_shared<std::vector<uint32_t>>(rig->rig.vertexCount());
    std::iota(all->begin(), all->end(), 0u);
    ev.requestBox(all, rig::Method::Linear, 7);
    QVERIFY(boxes.wait(60000));
    QCOMPARE(boxes.front().at(0).toInt(), 7);
    const app::Box box = boxes.front().at(1).value<app::Box>();
    rig::Evaluation e;
    const rig::Method linear[] = {rig::Method::Linear};
    rig::evaluate(rig->rig, rig->runtime, bent(rig->rig, 90.0f), linear, {}, e);
    glm::vec3 lo(1e30f), hi(-1e30f);
    for (const glm::vec3& p : e.meshes[0].linear.positions) {
        lo = glm::min(lo, p);
        hi = glm::max(hi, p);
    }
    for (int k = 0; k < 3; ++k) {
        RS_COMPARE_NEAR(box.min[k], lo[k], 1e-5);
        RS_COMPARE_NEAR(box.max[k], hi[k], 1e-5);
    }
}

void TestEvaluator::destructionWithWorkInFlightStopsCleanly()
{
    const auto rig = benchmarkRig(200000);
    QElapsedTimer t;
    t.start();
    {
        app::Evaluator ev;
        for (int i = 0; i < 5; ++i)
            ev.request(rig, bent(rig->rig, float(i)), {});
        QTest::qWait(10);
    } // joins: the evaluation under way finishes, the pending one is dropped
    QVERIFY2(t.elapsed() < 30000, qPrintable(QString::number(t.elapsed())));
}

QTEST_GUILESS_MAIN(TestEvaluator)
#include "test_evaluator.moc"
