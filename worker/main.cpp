// rigscope-import: imports one model file for RigScope in a process of its own (rig/io/worker/worker_protocol.h).
#include "worker/serve.h"

int main(int argc, char** argv)
{
    return rig::worker::serve(argc, argv);
}
