#include "rig/deform/engine_profiles.h"
#include "app/gui/gui.h"

#include <QApplication>
#include <QIcon>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QMessageBox>
#include <QTimer>

#include <algorithm>
#include <cstdio>

#include "app/document.h"
#include "app/gui/gui_bench.h"
#include "app/gui/main_window.h"
#include "rig/io/pose_file.h"
#include "rig/model/samples.h"
#include "viewer/viewport.h"

namespace app {

namespace {

int failWith(const QString& message)
{
    std::fprintf(stderr, "rigscope: %s\n", qPrintable(message));
    return 2;
}

} // namespace


/// The options of rigscope, shared by the parser and the help text.
struct GuiCli {
    QCommandLineOption sample{QStringLiteral("sample"), QStringLiteral("Open a built-in rig."), QStringLiteral("NAME")};
    QCommandLineOption pose{QStringLiteral("pose"), QStringLiteral("Pose file (JSON) to apply."), QStringLiteral("FILE")};
    QCommandLineOption method{QStringLiteral("method"), QStringLiteral("Method id (default linear)."), QStringLiteral("ID")};
    QCommandLineOption view{QStringLiteral("view"), QStringLiteral("single or quad."), QStringLiteral("VIEW")};
    QCommandLineOption profile{QStringLiteral("profile"),
        QStringLiteral("Engine runtime format every method skins with (README \"Runtime formats\"; default float32)."),
        QStringLiteral("ID")};
    QCommandLineOption overlays{QStringLiteral("overlays"),
        QStringLiteral("Comma-separated, every overlay shown (default: grid): normals, tangents, reference-normals, skeleton, bounds, grid, wireframe, hard-boundaries; none for none."),
        QStringLiteral("LIST")};
    QCommandLineOption shading{QStringLiteral("shading"),
        QStringLiteral("lit, reference, normal-error, tangent-error, candy-wrapper, dq-displacement, format-position or "
                       "format-normal."),
        QStringLiteral("MODE")};
    QCommandLineOption material{QStringLiteral("material"), QStringLiteral("plain, bumps or checker."),
        QStringLiteral("NAME")};
    QCommandLineOption heatMax{QStringLiteral("heatmap-max"), QStringLiteral("Heatmap red at this error (degrees, default 45)."),
        QStringLiteral("DEG")};
    QCommandLineOption lineLength{QStringLiteral("line-length"),
        QStringLiteral("Overlay line length as a fraction of the bounding-box diagonal (default 0.04)."),
        QStringLiteral("F")};
    QCommandLineOption benchFrames{QStringLiteral("bench-frames"),
        QStringLiteral("Render N frames, each after a pose change, print the full-frame time "
        "(morph, skin, reference, errors, bounds, draw; GPU finished), then quit."),
        QStringLiteral("N")};
    QCommandLineOption benchDrag{QStringLiteral("bench-drag"),
        QStringLiteral("Drag the selected joint's rotate slider STEPS times at 60 Hz in the real window, print the GUI "
        "thread's time per change (median, max) and how long the numbers take to catch up after the last, then quit."),
        QStringLiteral("STEPS")};
    QCommandLineOption benchSelection{QStringLiteral("bench-selection"),
        QStringLiteral("Select N vertices, show them in the Weights dock, sort and copy them as CSV, 20 times; print the "
        "GUI thread's time for each (median, max), then quit."),
        QStringLiteral("N")};
    QCommandLineOption select{QStringLiteral("select"),
        QStringLiteral("Select these global vertices once the rig is shown (e.g. 0-99,250) and show them in the Weights dock."),
        QStringLiteral("LIST")};
    QCommandLineOption json{QStringLiteral("json"), QStringLiteral("With --bench-drag: also write the figures as JSON to FILE."),
        QStringLiteral("FILE")};
    QCommandLineOption assetRoot{QStringLiteral("asset-root"),
        QStringLiteral("The folder external references may be read from (default: each file's folder)."),
        QStringLiteral("DIR")};
    QCommandLineOption backend{QStringLiteral("backend"), QStringLiteral("vulkan (default) or opengl."),
        QStringLiteral("API"), QStringLiteral("vulkan")};
    QCommandLineOption screenshot{QStringLiteral("screenshot"),
        QStringLiteral("Save the viewport to a PNG once the rig is shown, then quit."),
        QStringLiteral("PNG")};
    QCommandLineOption windowShot{QStringLiteral("screenshot-window"),
        QStringLiteral("Save the whole window (docks, menus and viewport) to a PNG once the rig is shown, then quit."),
        QStringLiteral("PNG")};
    QCommandLineOption dock{QStringLiteral("dock"),
        QStringLiteral("Bring this dock to the front of its tabs: bones, morphs, methods, vertex, audit, weights, "
        "diagnosis or compare."),
        QStringLiteral("NAME")};
    QCommandLineOption compareWith{QStringLiteral("compare-with"),
        QStringLiteral("Compare the rig with another version of it (File > Compare With...): the weight-change "
                       "heatmap and the Compare dock."),
        QStringLiteral("FILE")};

    void addTo(QCommandLineParser& p) const
    {
        p.setApplicationDescription(QStringLiteral(
            "RigScope: see how skinning methods bend normals and tangents.\n\n"
            "Commands (no display needed):\n"
            "  rigscope report FILE [options]   every method's error against the rebuilt reference, and the audit\n"
            "  rigscope check FILE|DIR...       rig QA against rules: JSON, JUnit, an exit status for CI\n"
            "  rigscope diff A B [options]      two versions of a rig: joints, weights, errors\n"
            "  rigscope bench [options]         skinning throughput on a generated rig\n"
            "  rigscope help [COMMAND]          this text, or a command's options"));
        p.addHelpOption();
        p.addVersionOption();
        p.addPositionalArgument(QStringLiteral("file"), QStringLiteral("Model file to open (default: the sheet sample)."),
                                QStringLiteral("[file]"));
        p.addOptions({sample, pose, method, view, profile, overlays, shading, material, heatMax, lineLength, backend, screenshot, windowShot, benchFrames,
                      benchDrag, benchSelection, select, json, assetRoot, dock, compareWith});
    }
};

std::string guiHelp()
{
    QCommandLineParser p;
    GuiCli().addTo(p);
    return p.helpText().replace(QLatin1String("<executable_name>"), QLatin1String("rigscope")).toStdString();
}

int runGui(int argc, char** argv)
{
    QApplication qapp(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("RigScope"));
    QApplication::setApplicationName(QStringLiteral("RigScope"));
    QApplication::setApplicationVersion(QStringLiteral(RIGSCOPE_VERSION));
    // The desktop file's id (Wayland matches the window to it) and the window icon from resources/rigscope.qrc.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.rigscope.RigScope"));
    QIcon icon;
    for (int size : {16, 24, 32, 48, 64, 128, 256})
        icon.addFile(QStringLiteral(":/rigscope/icons/rigscope-%1.png").arg(size), QSize(size, size));
    QApplication::setWindowIcon(icon);

    QCommandLineParser p;
    const GuiCli cli;
    cli.addTo(p);
    const auto& [sample, pose, method, view, profile, overlays, shading, material, heatMax, lineLength, benchFrames, benchDrag,
                 benchSelection, select, json, assetRoot, backend, screenshot, windowShot, dock, compareWith] = cli;
    p.process(qapp); // --help / --version / unknown options exit here

    DisplaySettings d;
    if (p.isSet(method)) {
        auto m = rig::methodFromId(p.value(method).toStdString());
        if (!m)
            return failWith(QStringLiteral("unknown method '%1'").arg(p.value(method)));
        d.method = *m;
    }
    if (p.isSet(profile)) {
        const rig::EngineProfile* e = rig::findEngineProfile(p.value(profile).toStdString());
        if (!e)
            return failWith(QStringLiteral("unknown profile '%1'").arg(p.value(profile)));
        d.format = e->format;
        d.profile = std::string(e->id);
    }
    if (p.isSet(view)) {
        if (p.value(view) == QLatin1String("quad"))
            d.view = ViewMode::Quad;
        else if (p.value(view) != QLatin1String("single"))
            return failWith(QStringLiteral("--view must be single or quad"));
    }
    if (p.isSet(overlays)) {
        d.overlays = viewer::OverlayNone; // the list names every overlay shown, the grid too
        for (const QString& o : p.value(overlays).split(',', Qt::SkipEmptyParts)) {
            const QString k = o.trimmed();
            if (k == QLatin1String("normals"))
                d.overlays |= viewer::OverlayNormals;
            else if (k == QLatin1String("tangents"))
                d.overlays |= viewer::OverlayTangents;
            else if (k == QLatin1String("reference-normals"))
                d.overlays |= viewer::OverlayReferenceNormals;
            else if (k == QLatin1String("skeleton"))
                d.overlays |= viewer::OverlaySkeleton;
            else if (k == QLatin1String("bounds"))
                d.overlays |= viewer::OverlayBounds;
            else if (k == QLatin1String("grid"))
                d.overlays |= viewer::OverlayGrid;
            else if (k == QLatin1String("wireframe"))
                d.overlays |= viewer::OverlayWireframe;
            else if (k == QLatin1String("hard-boundaries"))
                d.overlays |= viewer::OverlayHardBoundaries;
            else if (k == QLatin1String("none"))
                continue;
            else
                return failWith(QStringLiteral("unknown overlay '%1'").arg(k));
        }
    }
    if (p.isSet(shading)) {
        const QString s = p.value(shading);
        if (s == QLatin1String("lit"))
            d.shading = Shading::Lit;
        else if (s == QLatin1String("reference"))
            d.shading = Shading::Reference;
        else if (s == QLatin1String("normal-error"))
            d.shading = Shading::NormalError;
        else if (s == QLatin1String("tangent-error"))
            d.shading = Shading::TangentError;
        else if (s == QLatin1String("candy-wrapper"))
            d.shading = Shading::BlendScale;
        else if (s == QLatin1String("dq-displacement"))
            d.shading = Shading::DqDisplacement;
        else if (s == QLatin1String("format-position"))
            d.shading = Shading::FormatPosition;
        else if (s == QLatin1String("format-normal"))
            d.shading = Shading::FormatNormal;
        else if (s == QLatin1String("weight-change"))
            d.shading = Shading::WeightChange;
        else
            return failWith(QStringLiteral("unknown shading '%1'").arg(s));
    }
    if (p.isSet(material)) {
        const QString m = p.value(material);
        if (m == QLatin1String("plain"))
            d.material = Material::Plain;
        else if (m == QLatin1String("bumps"))
            d.material = Material::Bumps;
        else if (m == QLatin1String("checker"))
            d.material = Material::Checker;
        else
            return failWith(QStringLiteral("unknown material '%1'").arg(m));
    }
    if (p.isSet(heatMax)) {
        bool ok = false;
        const float v = p.value(heatMax).toFloat(&ok);
        if (!ok || !(v > 0.0f && v <= 180.0f))
            return failWith(QStringLiteral("--heatmap-max must be in (0, 180]"));
        d.heatmapMaxDeg = v;
    }
    if (p.isSet(lineLength)) {
        bool ok = false;
        const float v = p.value(lineLength).toFloat(&ok);
        if (!ok || !(v > 0.0f && v <= 1.0f))
            return failWith(QStringLiteral("--line-length must be in (0, 1]"));
        d.lineLength = v;
    }
    const QString api = p.value(backend);
    if (api != QLatin1String("vulkan") && api != QLatin1String("opengl"))
        return failWith(QStringLiteral("--backend must be vulkan or opengl"));
    const QStringList files = p.positionalArguments();
    if (files.size() > 1 || (files.size() == 1 && p.isSet(sample)))
        return failWith(QStringLiteral("give one model file or --sample NAME"));

    rig::Pose poseData;
    bool hasPose = false;
    if (p.isSet(pose)) {
        auto pr = rig::readPoseFile(p.value(pose).toStdString());
        if (!pr)
            return failWith(QString::fromStdString(pr.error()));
        poseData = std::move(pr.value());
        hasPose = true;
    }

    Document doc;
    doc.setDisplay(d);
    doc.setAssetRoot(p.value(assetRoot));
    MainWindow window(&doc, api);

    const bool wholeWindow = p.isSet(windowShot);
    const QString shotPath = wholeWindow ? p.value(windowShot) : p.value(screenshot);
    const int frames = p.isSet(benchFrames) ? p.value(benchFrames).toInt() : 0;
    if (p.isSet(benchFrames) && (frames < 1 || frames > 100000))
        return failWith(QStringLiteral("--bench-frames must be 1..100000"));
    const int dragSteps = p.isSet(benchDrag) ? p.value(benchDrag).toInt() : 0;
    if (p.isSet(benchDrag) && (dragSteps < 2 || dragSteps > 100000))
        return failWith(QStringLiteral("--bench-drag must be 2..100000"));
    const int selectionCount = p.isSet(benchSelection) ? p.value(benchSelection).toInt() : 0;
    if (p.isSet(benchSelection) && selectionCount < 1)
        return failWith(QStringLiteral("--bench-selection needs a count of at least 1"));
    // --select: ascending, unique global vertex indices from "A-B,C,..." (checked against the rig once it is loaded).
    std::vector<uint32_t> selected;
    if (p.isSet(select)) {
        for (const QString& part : p.value(select).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const QStringList ends = part.trimmed().split(QLatin1Char('-'));
            bool ok0 = false, ok1 = false;
            const qulonglong a = ends.value(0).toULongLong(&ok0), b = ends.size() == 2 ? ends[1].toULongLong(&ok1) : a;
            if (!ok0 || (ends.size() == 2 && !ok1) || ends.size() > 2 || b < a || b > 0xffffffffull)
                return failWith(QStringLiteral("--select: '%1' is not a vertex index or a range A-B").arg(part));
            if (b - a + 1 + selected.size() > 50'000'000ull)
                return failWith(QStringLiteral("--select: more than 50,000,000 vertices"));
            for (qulonglong v = a; v <= b; ++v)
                selected.push_back(uint32_t(v));
        }
        std::sort(selected.begin(), selected.end());
        selected.erase(std::unique(selected.begin(), selected.end()), selected.end());
    }
    if (p.isSet(dock) && !MainWindow::dockNames().contains(p.value(dock)))
        return failWith(QStringLiteral("--dock: unknown dock '%1' (valid: %2)")
                            .arg(p.value(dock), MainWindow::dockNames().join(QStringLiteral(", "))));
    if (p.isSet(json) && !p.isSet(benchDrag))
        return failWith(QStringLiteral("--json goes with --bench-drag"));
    int status = 0;
    // Give the window a moment to be exposed and render, then grab the swapchain.
    auto shoot = [&] {
        QTimer::singleShot(300, &window, [&] {
            QString err;
            if (!(wholeWindow ? window.saveWindowScreenshot(shotPath, &err) : window.saveScreenshot(shotPath, &err))) {
                std::fprintf(stderr, "rigscope: %s\n", qPrintable(err));
                status = 2;
            }
            qapp.exit(status);
        });
    };
    auto applyPoseAndMaybeShoot = [&] {
        if (p.isSet(compareWith))
            doc.compareWith(p.value(compareWith));
        if (hasPose) {
            QString err;
            if (!doc.editPose(poseData, QObject::tr("Load Pose"), 0, true, &err)) {
                const QString msg = p.value(pose) + QStringLiteral(": ") + err;
                if (!shotPath.isEmpty()) {
                    std::fprintf(stderr, "rigscope: %s\n", qPrintable(msg));
                    status = 2;
                    qapp.exit(2);
                    return;
                }
                QMessageBox::warning(&window, QObject::tr("Pose"), msg);
            }
            window.viewport()->frameAll(); // frame what the pose made
        }
        if (frames > 0) {
            QTimer::singleShot(300, &window, [&] { status = runFrameBenchmark(doc, *window.viewport(), frames); qapp.exit(status); });
            return;
        }
        if (!selected.empty()) {
            if (selected.back() >= doc.loaded()->rig.vertexCount()) {
                std::fprintf(stderr, "rigscope: --select: vertex %u is past the rig's %zu vertices\n", selected.back(),
                             doc.loaded()->rig.vertexCount());
                status = 2;
                qapp.exit(2);
                return;
            }
            SelectionSet set;
            set.label = QObject::tr("--select");
            set.vertices = std::make_shared<const std::vector<uint32_t>>(selected);
            doc.setSelectionSet(std::move(set));
            window.raiseWeightsDock();
        }
        if (p.isSet(dock))
            window.raiseDock(p.value(dock)); // checked before the window showed
        if (selectionCount > 0) {
            QTimer::singleShot(300, &window, [&] {
                status = runSelectionBenchmark(doc, window, selectionCount);
                qapp.exit(status);
            });
            return;
        }
        if (dragSteps > 0) {
            QTimer::singleShot(300, &window, [&] {
                status = runDragBenchmark(doc, window, dragSteps, p.value(json));
                qapp.exit(status);
            });
            return;
        }
        if (shotPath.isEmpty())
            return;
        if (p.isSet(compareWith)) { // the picture shows the comparison
            QObject::connect(&doc, &Document::comparisonChanged, &window, shoot, Qt::SingleShotConnection);
            return;
        }
        shoot();
    };
    QObject::connect(&doc, &Document::comparisonFailed, &window, [&](const QString& msg) {
        if (!shotPath.isEmpty()) {
            std::fprintf(stderr, "rigscope: --compare-with: %s\n", qPrintable(msg));
            qapp.exit(2);
        }
    });
    QObject::connect(&doc, &Document::loadFailed, &window, [&](const QString& msg) {
        if (!shotPath.isEmpty()) {
            std::fprintf(stderr, "rigscope: %s\n", qPrintable(msg));
            qapp.exit(2);
        }
    });
    QObject::connect(&doc, &Document::loadRefused, &window, [&](const QString&, const QString& msg) {
        if (!shotPath.isEmpty() || frames > 0 || dragSteps > 0 || selectionCount > 0) { // scripted: no one to ask
            std::fprintf(stderr, "rigscope: %s\n", qPrintable(msg));
            qapp.exit(2);
        }
    });

    window.show();
    if (files.size() == 1) {
        QObject::connect(&doc, &Document::loadFinished, &window, applyPoseAndMaybeShoot, Qt::SingleShotConnection);
        doc.openFile(files.front());
    } else {
        const QString name = p.isSet(sample) ? p.value(sample) : QStringLiteral("sheet");
        if (name.startsWith(QLatin1String("benchmark:"))) {
            // A generated rig of N vertices, 100 joints, 4 influences (as `rigscope bench` uses).
            bool ok = false;
            const qulonglong n = name.mid(10).toULongLong(&ok);
            if (!ok || n < 100 || n > 20'000'000)
                return failWith(QStringLiteral("--sample benchmark:N needs 100 <= N <= 20000000"));
            doc.setLoaded(finishLoadedRig(rig::makeBenchmarkRig(size_t(n), 100, 4), doc.display().format, QString(), name));
        } else if (!doc.openSample(name)) {
            return failWith(QStringLiteral("unknown sample '%1'").arg(name));
        }
        QTimer::singleShot(0, &window, applyPoseAndMaybeShoot);
    }
    const int rc = qapp.exec();
    return rc ? rc : status;
}

} // namespace app
