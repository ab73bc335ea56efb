// `rigscope diff A B`: two versions of one rig (rig/qa/rig_diff.h), each read in its own import worker; a text summary
// or JSON; exit status 0 when they agree within the thresholds, 1 when they differ, 2 when a file cannot be read.
#include "app/cli/cli.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QStringList>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "rig/io/import.h"
#include "rig/io/pose_file.h"
#include "rig/model/samples.h"
#include "rig/qa/rig_diff.h"

namespace app {

namespace {

int failWith(const std::string& message)
{
    std::fprintf(stderr, "rigscope diff: %s\n", message.c_str());
    return 2;
}

struct DiffCli {
    QCommandLineOption json{QStringLiteral("json"), QStringLiteral("Write the comparison as JSON to FILE (- for stdout)."),
                            QStringLiteral("FILE")};
    QCommandLineOption match{QStringLiteral("match"),
        QStringLiteral("Vertex matching: order (same meshes, same vertex counts), position (the nearest bind position "
                       "within the tolerance) or auto (order where the counts agree; default)."),
        QStringLiteral("auto|order|position"), QStringLiteral("auto")};
    QCommandLineOption tolerance{QStringLiteral("tolerance"),
        QStringLiteral("Bind positions this close are the same (default: 1e-4 of A's bounding-box diagonal)."),
        QStringLiteral("DISTANCE")};
    QCommandLineOption weightThreshold{QStringLiteral("weight-threshold"),
        QStringLiteral("A vertex has changed when some joint's weight changes by more than this (default 0.01)."),
        QStringLiteral("W"), QStringLiteral("0.01")};
    QCommandLineOption errorThreshold{QStringLiteral("error-threshold"),
        QStringLiteral("A method has changed when its p95 skinning normal error changes by more than this many degrees "
                       "(default 1)."),
        QStringLiteral("DEG"), QStringLiteral("1")};
    QCommandLineOption influences{QStringLiteral("influences"),
        QStringLiteral("Influences per vertex of the runtimes the errors are measured with: 4 (default) or 8."),
        QStringLiteral("K"), QStringLiteral("4")};
    QCommandLineOption pose{QStringLiteral("pose"),
        QStringLiteral("Also compare at this pose file (repeatable; named by its file name)."), QStringLiteral("FILE")};

    void addTo(QCommandLineParser& p) const
    {
        p.setApplicationDescription(QStringLiteral(
            "Compare two versions of a rig: joints added, removed, reparented or moved; each vertex's weight change; "
            "every method's skinning error at the rest pose, each clip both have and the given poses. Exit status 0: "
            "no difference beyond the thresholds; 1: they differ; 2: a file cannot be read."));
        p.addHelpOption();
        p.addPositionalArgument(QStringLiteral("a"), QStringLiteral("The first version (a model file, or sample:NAME)."),
                                QStringLiteral("A"));
        p.addPositionalArgument(QStringLiteral("b"), QStringLiteral("The second version."), QStringLiteral("B"));
        p.addOptions({json, match, tolerance, weightThreshold, errorThreshold, influences, pose});
    }
};

rig::Result<rig::Rig> load(const QString& source)
{
    if (source.startsWith(QLatin1String("sample:")))
        return rig::makeSample(source.mid(7).toStdString());
    return rig::importFile(source.toStdString());
}

} // namespace

std::string diffHelp()
{
    QCommandLineParser p;
    DiffCli().addTo(p);
    return p.helpText().replace(QLatin1String("<executable_name>"), QLatin1String("rigscope diff")).toStdString();
}

int runDiff(int argc, char** argv)
{
    QCommandLineParser p;
    const DiffCli cli;
    cli.addTo(p);
    QStringList args;
    args << QStringLiteral("rigscope diff");
    for (int i = 2; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    if (!p.parse(args))
        return failWith(p.errorText().toStdString());
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(diffHelp().c_str(), stdout);
        return 0;
    }
    const QStringList files = p.positionalArguments();
    if (files.size() != 2)
        return failWith("diff needs two rigs: A and B (a model file or sample:NAME each)");

    rig::RigDiffOptions options;
    const QString m = p.value(cli.match);
    if (m == QLatin1String("auto"))
        options.match = rig::VertexMatch::Auto;
    else if (m == QLatin1String("order"))
        options.match = rig::VertexMatch::Order;
    else if (m == QLatin1String("position"))
        options.match = rig::VertexMatch::Position;
    else
        return failWith("--match must be auto, order or position, not '" + m.toStdString() + "'");
    auto number = [&](const QCommandLineOption& o, const char* name, double& out) -> bool {
        bool ok = false;
        out = p.value(o).toDouble(&ok);
        if (!ok || !std::isfinite(out) || out < 0.0) {
            failWith(std::string("--") + name + " must be a number, 0 or more, not '" + p.value(o).toStdString() + "'");
            return false;
        }
        return true;
    };
    double w = 0.0, e = 0.0, t = 0.0;
    if (!number(cli.weightThreshold, "weight-threshold", w) || !number(cli.errorThreshold, "error-threshold", e))
        return 2;
    if (p.isSet(cli.tolerance)) {
        if (!number(cli.tolerance, "tolerance", t))
            return 2;
        if (!(t > 0.0))
            return failWith("--tolerance must be above 0");
    }
    options.weightThreshold = float(w);
    options.errorThresholdDeg = e;
    options.tolerance = float(t);
    const QString k = p.value(cli.influences);
    if (k != QLatin1String("4") && k != QLatin1String("8"))
        return failWith("--influences must be 4 or 8");
    options.influences = k.toInt();
    for (const QString& file : p.values(cli.pose)) {
        auto pose = rig::readPoseFile(file.toStdString());
        if (!pose)
            return failWith(pose.error());
        options.poses.emplace_back(QFileInfo(file).fileName().toStdString(), pose.value());
    }

    auto a = load(files[0]);
    if (!a)
        return failWith(a.error());
    auto b = load(files[1]);
    if (!b)
        return failWith(b.error());
    auto diff = rig::diffRigs(a.value(), b.value(), options);
    if (!diff)
        return failWith(diff.error());
    const std::string nameA = files[0].toStdString(), nameB = files[1].toStdString();
    if (p.isSet(cli.json)) {
        const QString target = p.value(cli.json);
        if (target == QLatin1String("-")) {
            rig::writeRigDiffJson(std::cout, diff.value(), nameA, nameB, options);
            std::cout.flush();
        } else {
            std::ofstream f(target.toStdString(), std::ios::binary);
            if (!f)
                return failWith("cannot write " + target.toStdString());
            rig::writeRigDiffJson(f, diff.value(), nameA, nameB, options);
            if (!f.flush())
                return failWith("cannot write " + target.toStdString());
        }
    }
    if (!p.isSet(cli.json) || p.value(cli.json) != QLatin1String("-"))
        rig::printRigDiff(std::cout, diff.value(), nameA, nameB, options);
    return diff.value().differs() ? 1 : 0;
}

} // namespace app
