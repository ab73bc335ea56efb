// `rigscope check FILE|DIR...`: every model file named or found under the folders named, each imported in its own
// worker process and checked (rig/qa/check.h) on a pool of --jobs threads; JSON and JUnit reports; a progress line on
// a terminal; the exit status of checkExitStatus.
#include "app/cli/cli.h"

#include <QCommandLineParser>
#include <QStringList>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "rig/io/import.h"
#include "rig/platform/parallel.h"
#include "rig/qa/check.h"

namespace app {

namespace {

int failWith(const std::string& message)
{
    std::fprintf(stderr, "rigscope check: %s\n", message.c_str());
    return 2;
}

struct CheckCli {
    QCommandLineOption rules{QStringLiteral("rules"),
        QStringLiteral("Rules file (JSON, README \"Check rules\"); default: the documented defaults."),
        QStringLiteral("FILE")};
    QCommandLineOption json{QStringLiteral("json"),
        QStringLiteral("Write every file's measurements and findings as JSON to FILE (- for stdout)."),
        QStringLiteral("FILE")};
    QCommandLineOption junit{QStringLiteral("junit"),
        QStringLiteral("Write JUnit XML (one test case per file and rule) to FILE (- for stdout)."), QStringLiteral("FILE")};
    QCommandLineOption jobs{QStringLiteral("jobs"),
        QStringLiteral("Files checked at once (default: the hardware threads)."), QStringLiteral("N")};
    QCommandLineOption strict{QStringLiteral("strict"), QStringLiteral("Warnings fail too (exit status 1).")};

    void addTo(QCommandLineParser& p) const
    {
        p.setApplicationDescription(QStringLiteral(
            "Check rigs against rules: the weight audit, influence limits, the skeleton, geometry, tangent handedness, the "
            "authoring baseline, a method's skinning error and linear blending's candy wrapper at the rest pose and over "
            "every clip. Exit status 0: every rule passes; 1: a rule fails; 2: a file cannot be read."));
        p.addHelpOption();
        p.addPositionalArgument(QStringLiteral("paths"),
                                QStringLiteral("Model files, or folders searched (recursively) for the formats RigScope "
                                               "reads."),
                                QStringLiteral("FILE|DIR..."));
        p.addOptions({rules, json, junit, jobs, strict});
    }
};

/// The model files under `path` (or `path` itself), sorted; false with a message when it does not exist.
bool collect(const std::string& path, std::vector<std::string>& out, std::string& error)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
        error = path + ": no such file or folder";
        return false;
    }
    if (!fs::is_directory(st)) {
        out.push_back(path);
        return true;
    }
    std::vector<std::string> found;
    for (fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end; it != end;
         it.increment(ec)) {
        if (ec)
            break;
        std::error_code fe;
        if (it->is_regular_file(fe) && rig::isRigFileName(it->path().string()))
            found.push_back(it->path().string());
    }
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
    return true;
}

/// Writes `text` to `target` ("-": stdout); false with a message on failure.
bool writeTo(const QString& target, const std::string& text, std::string& error)
{
    if (target == QLatin1String("-")) {
        std::cout << text;
        std::cout.flush();
        return bool(std::cout);
    }
    std::ofstream out(target.toStdString(), std::ios::binary);
    out << text;
    out.close();
    if (!out) {
        error = target.toStdString() + ": cannot be written";
        return false;
    }
    return true;
}

void printText(std::ostream& out, const std::vector<rig::CheckResult>& results, bool strict)
{
    for (const rig::CheckResult& r : results) {
        const rig::CheckSeverity w = r.worst();
        const char* status = !r.readable ? "UNREADABLE"
                             : (w == rig::CheckSeverity::Error || (strict && w == rig::CheckSeverity::Warning)) ? "FAIL"
                             : w == rig::CheckSeverity::Warning ? "WARN"
                                                                : "PASS";
        out << status << "  " << r.file << "\n";
        for (const rig::CheckFinding& f : r.findings)
            out << "    " << rig::checkSeverityName(f.severity) << " " << f.code << ": " << f.message << "\n";
    }
}

} // namespace

std::string checkHelp()
{
    QCommandLineParser p;
    CheckCli().addTo(p);
    return p.helpText().replace(QLatin1String("<executable_name>"), QLatin1String("rigscope check")).toStdString();
}

int runCheck(int argc, char** argv)
{
    QCommandLineParser p;
    const CheckCli cli;
    cli.addTo(p);
    QStringList args;
    args << QStringLiteral("rigscope check");
    for (int i = 2; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    if (!p.parse(args))
        return failWith(p.errorText().toStdString());
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(checkHelp().c_str(), stdout);
        return 0;
    }
    if (p.positionalArguments().isEmpty())
        return failWith("name at least one model file or folder");

    rig::CheckRules rules;
    if (p.isSet(cli.rules)) {
        const std::string path = p.value(cli.rules).toStdString();
        std::ifstream in(path, std::ios::binary);
        if (!in)
            return failWith(path + ": cannot be read");
        std::stringstream text;
        text << in.rdbuf();
        auto parsed = rig::parseCheckRules(text.str(), path);
        if (!parsed)
            return failWith(parsed.error());
        rules = std::move(parsed.value());
    }
    unsigned jobs = rig::defaultThreadCount();
    if (p.isSet(cli.jobs)) {
        bool ok = false;
        jobs = p.value(cli.jobs).toUInt(&ok);
        if (!ok || jobs < 1 || jobs > 256)
            return failWith("--jobs must be a whole number from 1 to 256");
    }
    const bool toStdout = p.value(cli.json) == QLatin1String("-") || p.value(cli.junit) == QLatin1String("-");
    if (p.value(cli.json) == QLatin1String("-") && p.value(cli.junit) == QLatin1String("-"))
        return failWith("--json - and --junit - cannot both write to stdout");

    std::vector<std::string> files;
    for (const QString& a : p.positionalArguments()) {
        std::string error;
        if (!collect(a.toStdString(), files, error))
            return failWith(error);
    }
    if (files.empty())
        return failWith("no model file found (formats: " + rig::rigFileExtensions() + ")");

    // A pool of `jobs` threads, each file imported in its own worker process; the measurements of one file run on its
    // own thread (jobs > 1) or on every core (one job).
    std::vector<rig::CheckResult> results(files.size());
    std::atomic<size_t> next{0}, done{0};
    std::mutex progressMutex;
    const bool progress = isatty(STDERR_FILENO) != 0;
    const unsigned threads = unsigned(std::min<size_t>(jobs, files.size()));
    auto work = [&] {
        std::optional<rig::ScopedThreadLimit> limit;
        if (threads > 1)
            limit.emplace(1);
        for (size_t i = next++; i < files.size(); i = next++) {
            auto loaded = rig::importFile(files[i]);
            results[i] = loaded ? rig::checkRig(loaded.value(), files[i], rules) : rig::unreadableFile(files[i], loaded.error());
            const size_t count = ++done;
            if (progress) {
                const std::lock_guard lock(progressMutex);
                std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", count, files.size(), files[i].c_str());
                std::fflush(stderr);
            }
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (std::thread& t : pool)
        t.join();
    if (progress)
        std::fprintf(stderr, "\r\033[K");

    const bool strict = p.isSet(cli.strict);
    std::string error;
    if (p.isSet(cli.json)) {
        std::ostringstream s;
        rig::writeCheckJson(s, results, rules, strict);
        if (!writeTo(p.value(cli.json), s.str(), error))
            return failWith(error);
    }
    if (p.isSet(cli.junit)) {
        std::ostringstream s;
        rig::writeCheckJUnit(s, results, strict);
        if (!writeTo(p.value(cli.junit), s.str(), error))
            return failWith(error);
    }
    if (!toStdout)
        printText(std::cout, results, strict);
    else if (progress) // stdout carries a report: the summary only where someone watches
        printText(std::cerr, results, strict);
    return rig::checkExitStatus(results, strict);
}

} // namespace app
