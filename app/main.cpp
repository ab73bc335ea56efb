// rigscope: the desktop inspector, and the headless `report` / `bench` subcommands.
#include <cstdio>
#include <cstring>

#include "cli.h"

int main(int argc, char** argv)
{
    if (argc > 1 && std::strcmp(argv[1], "report") == 0)
        return app::runReport(argc, argv);
    if (argc > 1 && std::strcmp(argv[1], "bench") == 0)
        return app::runBench(argc, argv);
    std::fprintf(stderr, "usage: rigscope report <file | --sample NAME> [options]\n"
                         "       rigscope bench [--vertices N] [--joints J]\n");
    return 2;
}
