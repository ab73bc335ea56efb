// Headless subcommands: `rigscope report`, `rigscope check`, `rigscope diff` and `rigscope bench`. They need no display.
#pragma once

#include <string>

namespace app {

/// The help texts of the subcommands (usage lines name the program: "rigscope report ...").
std::string reportHelp();
std::string benchHelp();

/// Runs `rigscope report ...` (argv[1] == "report"). Returns the process exit status:
/// 0 success, 2 unreadable input or bad arguments (one line on stderr).
int runReport(int argc, char** argv);

std::string checkHelp();

/// Runs `rigscope check ...` (argv[1] == "check"): rig QA over files and folders (rig/qa/check.h). Exit status 0 when
/// every rule passes, 1 when one fails, 2 when a file cannot be read or the arguments are bad.
int runCheck(int argc, char** argv);

std::string diffHelp();

/// Runs `rigscope diff A B ...` (argv[1] == "diff"): two versions of a rig compared (rig/qa/rig_diff.h). Exit status 0
/// when they agree within the thresholds, 1 when they differ, 2 when a file cannot be read or the arguments are bad.
int runDiff(int argc, char** argv);

/// Runs `rigscope bench ...` (argv[1] == "bench"): CPU skinning throughput, as Markdown on stdout.
int runBench(int argc, char** argv);

} // namespace app
