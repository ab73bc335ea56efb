// rigscope: the desktop inspector, and the headless `report` / `bench` subcommands.
#include <cstring>

#include "cli.h"
#include "gui.h"

int main(int argc, char** argv)
{
    if (argc > 1 && std::strcmp(argv[1], "report") == 0)
        return app::runReport(argc, argv);
    if (argc > 1 && std::strcmp(argv[1], "bench") == 0)
        return app::runBench(argc, argv);
    return app::runGui(argc, argv);
}
