#include "app/gui/gui_bench.h"

#include <QApplication>
#include <QTableView>
#include <QElapsedTimer>
#include <QFile>
#include <QSlider>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "app/document.h"
#include "app/gui/main_window.h"
#include "panels/inspect/weights_model.h"
#include "panels/inspect/weights_panel.h"
#include "panels/skeleton/bones_panel.h"
#include "panels/skeleton/joint_editor.h"
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "rig/io/json/json_write.h"
#include "viewer/viewport.h"

namespace app {

namespace {

double median(std::vector<double> v)
{
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double maximum(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); }

/// Processes events for `ms` milliseconds (the window renders, the evaluator's results arrive).
void pump(int ms)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms)
        QCoreApplication::processEvents(QEventLoop::AllEvents, int(std::max<qint64>(1, ms - t.elapsed())));
}

} // namespace

// Full frames after a pose change each: the document re-poses (CPU), the viewport re-runs every compute pass and draws.
int runFrameBenchmark(Document& doc, viewer::Viewport& viewport, int frames)
{
    const rig::Rig& rg = doc.loaded()->rig;
    if (rg.skeleton.nodes.empty() || !viewport.isReady()) {
        std::fprintf(stderr, "rigscope: nothing to benchmark (no viewport or no joints)\n");
        return 2;
    }
    std::vector<double> times;
    times.reserve(size_t(frames));
    const std::string joint = rg.skeleton.nodes.size() > 1 ? rg.skeleton.nodes[1].name : rg.skeleton.nodes[0].name;
    for (int i = 0; i < frames; ++i) {
        rig::Pose pose;
        pose.joints[joint].rotateDeg = glm::vec3(0.0f, 0.0f, float(i % 90));
        viewport.setPose(rig::resolvePose(rg, pose).value());
        const double ms = viewport.renderAndWait();
        if (ms < 0.0) {
            std::fprintf(stderr, "rigscope: the viewport stopped rendering\n");
            return 2;
        }
        if (i > 0) // the first frame builds pipelines
            times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    const double median = times.empty() ? 0.0 : times[times.size() / 2];
    const double best = times.empty() ? 0.0 : times.front();
    std::printf("| %s | %zu | %s | %.2f | %.2f |\n", qPrintable(viewport.backendName()), rg.vertexCount(),
                qPrintable(doc.loaded()->displayName), median, best);
    return 0;
}


int runDragBenchmark(Document& doc, MainWindow& window, int steps, const QString& jsonPath)
{
    const LoadedRig* l = doc.loaded();
    if (!l || !window.viewport()->isReady()) {
        std::fprintf(stderr, "rigscope: nothing to benchmark (no rig or no viewport)\n");
        return 2;
    }
    int joint = doc.selectedJoint();
    for (size_t i = 0; joint < 0 && i < l->rig.skeleton.nodes.size(); ++i)
        if (l->rig.skeleton.nodes[i].parent >= 0 && doc.isAddressable(l->rig.skeleton.nodes[i].parent))
            joint = l->rig.skeleton.nodes[i].parent;
    if (!doc.isAddressable(joint)) {
        std::fprintf(stderr, "rigscope: no joint to drag\n");
        return 2;
    }
    doc.setSelectedJoint(joint);
    QSlider* slider = window.bonesPanel()->editor()->slider(panels::JointEditor::RotateZ);
    pump(200); // settle: first frames, first evaluation

    std::vector<double> gui, frames;
    int evaluations = 0;
    const auto frameConn = QObject::connect(window.viewport(), &viewer::Viewport::frameRendered, [&](double ms) { frames.push_back(ms); });
    const auto evalConn = QObject::connect(&doc, &Document::evaluationChanged, [&] { ++evaluations; });
    slider->setSliderDown(true); // sliderPressed: the drag is one gesture
    for (int i = 0; i < steps; ++i) {
        // 0 -> 90 degrees and back, in tenths of a degree as the slider holds them.
        const int v = int(900.0 * (i % 200 < 100 ? (i % 100) : (100 - i % 100)) / 100.0);
        QElapsedTimer t;
        t.start();
        slider->setValue(v == slider->value() ? v + 1 : v);
        gui.push_back(double(t.nsecsElapsed()) / 1e6);
        pump(16);
    }
    slider->setSliderDown(false);
    QElapsedTimer catchUp;
    catchUp.start();
    while (!doc.evaluationCurrent() && catchUp.elapsed() < 120000)
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 5);
    const double caughtUp = double(catchUp.nsecsElapsed()) / 1e6;
    QObject::disconnect(frameConn);
    QObject::disconnect(evalConn);
    if (!doc.evaluationCurrent()) {
        std::fprintf(stderr, "rigscope: the evaluation did not catch up within 120 s\n");
        return 2;
    }

    const size_t n = l->rig.vertexCount();
    std::printf("bench-drag: %zu vertices, %d steps on '%s' (%s)\n", n, steps, l->rig.skeleton.nodes[size_t(joint)].name.c_str(),
                qPrintable(window.viewport()->backendName()));
    std::printf("  GUI thread per change: median %.3f ms, max %.3f ms\n", median(gui), maximum(gui));
    std::printf("  frames meanwhile: %zu, median %.2f ms, max %.2f ms (render() on the GUI thread, GPU waits included)\n",
                frames.size(), median(frames), maximum(frames));
    std::printf("  evaluations published during the drag: %d; numbers caught up %.1f ms after the last change\n", evaluations,
                caughtUp);
    if (!jsonPath.isEmpty()) {
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> j(buffer);
        auto stats = [&j](const char* key, const std::vector<double>& v) {
            j.Key(key);
            j.StartObject();
            j.Key("median");
            j.Double(median(v));
            j.Key("max");
            j.Double(maximum(v));
            j.EndObject();
        };
        j.StartObject();
        j.Key("vertices");
        j.Uint64(n);
        j.Key("steps");
        j.Int(steps);
        stats("gui_thread_ms", gui);
        stats("frame_ms", frames);
        j.Key("catch_up_ms");
        j.Double(caughtUp);
        j.Key("evaluations");
        j.Int(evaluations);
        j.Key("backend");
        rig::json::writeText(j, window.viewport()->backendName().toStdString());
        j.EndObject();
        QFile f(jsonPath);
        const std::string text = std::string(buffer.GetString(), buffer.GetSize()) + "\n";
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(text.data(), qint64(text.size())) != qint64(text.size())) {
            std::fprintf(stderr, "rigscope: %s: cannot be written\n", qPrintable(jsonPath));
            return 2;
        }
    }
    return 0;
}

int runSelectionBenchmark(Document& doc, MainWindow& window, int count)
{
    const size_t vertices = doc.loaded() ? doc.loaded()->rig.vertexCount() : 0;
    if (count < 1 || size_t(count) > vertices) {
        std::fprintf(stderr, "rigscope: --bench-selection %d: the rig has %zu vertices\n", count, vertices);
        return 2;
    }
    window.raiseWeightsDock();
    panels::WeightsPanel* panel = window.weightsPanel();
    auto list = std::make_shared<std::vector<uint32_t>>();
    for (int i = 0; i < count; ++i)
        list->push_back(uint32_t(size_t(i) * vertices / size_t(count)));
    std::vector<double> setMs, sortMs, copyMs;
    size_t columns = 0, bytes = 0;
    for (int run = 0; run < 20; ++run) {
        doc.setSelectionSet(SelectionSet{});
        pump(30);
        QElapsedTimer t;
        t.start();
        SelectionSet set;
        set.label = QStringLiteral("benchmark");
        set.vertices = list;
        doc.setSelectionSet(std::move(set));
        panel->view()->viewport()->repaint();
        setMs.push_back(double(t.nsecsElapsed()) / 1e6);
        columns = size_t(panel->model()->columnCount());
        t.restart();
        panel->view()->sortByColumn(panels::WeightsModel::kLeadingColumns, run % 2 ? Qt::AscendingOrder : Qt::DescendingOrder);
        panel->view()->viewport()->repaint();
        sortMs.push_back(double(t.nsecsElapsed()) / 1e6);
        t.restart();
        bytes = size_t(panel->tableText(QLatin1Char(',')).size());
        copyMs.push_back(double(t.nsecsElapsed()) / 1e6);
    }
    std::printf("selection of %d vertices (of %zu), %zu columns, GUI thread ms: set + paint median %.2f max %.2f; "
                "sort + paint median %.2f max %.2f; CSV (%zu characters) median %.2f max %.2f\n",
                count, vertices, columns, median(setMs), maximum(setMs), median(sortMs), maximum(sortMs), bytes,
                median(copyMs), maximum(copyMs));
    return 0;
}

} // namespace app
