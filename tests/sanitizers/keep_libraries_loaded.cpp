// Preloaded into the GUI/GPU tests of the `asan` build (tests/CMakeLists.txt): dlclose() does nothing, so the graphics
// drivers (Mesa's lavapipe/llvmpipe, the Vulkan loader's ICDs, Qt's platform plugins) stay mapped until exit. Their
// process-lifetime allocations then carry module names in LeakSanitizer's report and tests/sanitizers/lsan.supp can name
// them; unloaded, they show as "<unknown module>" frames that no suppression can match. Built without sanitizers: it
// also lands in the non-instrumented processes the tests start (Xvfb, xauth).
#include <dlfcn.h>

extern "C" int dlclose(void*)
{
    return 0;
}
