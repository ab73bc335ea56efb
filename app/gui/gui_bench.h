// Benchmarks of the interactive window (`rigscope --bench-frames N`, `rigscope --bench-drag STEPS [--json FILE]`): they
// run in the real window on the real device, print a line or a table and return the exit status.
#pragma once

#include <QString>

namespace viewer {
class Viewport;
}

namespace app {

class Document;
class MainWindow;

/// Full frames after a pose change each: the document re-poses, the viewport re-runs every compute pass and draws.
int runFrameBenchmark(Document& doc, viewer::Viewport& viewport, int frames);

/// A simulated drag of the joint editor's Rotate Z slider: `steps` changes, one every 16 ms (a 60 Hz mouse), on the
/// selected joint (else the first joint with a child). Measures the GUI thread's time for each change (the slider's
/// valueChanged to its return: the undo step, resolving the pose, the viewport's pose, the evaluation request), the
/// viewport's frame times meanwhile, and the time from the last change until the background evaluation of the final
/// pose is in (the panels' numbers caught up). Prints a summary; with `jsonPath`, writes
/// {"vertices", "steps", "gui_thread_ms": {"median", "max"}, "frame_ms": {"median", "max"}, "catch_up_ms",
/// "evaluations", "backend"}.
int runDragBenchmark(Document& doc, MainWindow& window, int steps, const QString& jsonPath);

/// A selection of `count` vertices (spread evenly over the rig) shown in the Weights dock, 20 times: the GUI thread's
/// time to set it (the model's reset, the viewport's markers, the dock painted), to sort it by its first joint column
/// (painted), and to copy it as CSV. Prints the median and maximum of each.
int runSelectionBenchmark(Document& doc, MainWindow& window, int count);

} // namespace app
