// rigscope: the desktop inspector, and the headless `report` / `bench` subcommands. Help and version need no display:
// they are answered here, before anything opens a window system connection.
#include <cstdio>
#include <string>
#include <string_view>

#include <QtGlobal>

#include "app/cli/cli.h"
#include "app/gui/gui.h"
#include "rig/io/import.h"

namespace {

std::string versionText()
{
    return std::string("rigscope ") + RIGSCOPE_VERSION + " (Qt " + qVersion() + ", Assimp " + rig::assimpVersion() + ")\n";
}

int printHelp(std::string_view command)
{
    if (command.empty()) {
        std::fputs(app::guiHelp().c_str(), stdout);
    } else if (command == "report") {
        std::fputs(app::reportHelp().c_str(), stdout);
    } else if (command == "bench") {
        std::fputs(app::benchHelp().c_str(), stdout);
    } else if (command == "check") {
        std::fputs(app::checkHelp().c_str(), stdout);
    } else if (command == "diff") {
        std::fputs(app::diffHelp().c_str(), stdout);
    } else {
        std::fprintf(stderr, "rigscope: no command '%.*s' (commands: report, check, diff, bench; rigscope --help for the app)\n",
                     int(command.size()), command.data());
        return 2;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    const std::string_view first = argc > 1 ? argv[1] : "";
    if (first == "report")
        return app::runReport(argc, argv);
    if (first == "bench")
        return app::runBench(argc, argv);
    if (first == "check")
        return app::runCheck(argc, argv);
    if (first == "diff")
        return app::runDiff(argc, argv);
    if (first == "help")
        return printHelp(argc > 2 ? argv[2] : "");
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--help" || a == "-h" || a == "-?" || a == "--help-all")
            return printHelp("");
        if (a == "--version" || a == "-v") {
            std::fputs(versionText().c_str(), stdout);
            return 0;
        }
    }
    return app::runGui(argc, argv);
}
