#include "rig/platform/cpu_features.h"

namespace rig {

namespace {

struct Features {
    bool avx2, avx2Fma, avx512;
};

Features detect()
{
    // libgcc's checks include the OS (XCR0) support of the ymm and zmm state.
    __builtin_cpu_init();
    Features f;
    f.avx2 = __builtin_cpu_supports("avx2");
    f.avx2Fma = f.avx2 && __builtin_cpu_supports("fma");
    f.avx512 = f.avx2Fma && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
    return f;
}

const Features& features()
{
    static const Features f = detect();
    return f;
}

} // namespace

bool cpuHasAvx2()
{
    return features().avx2;
}

bool cpuHasAvx2Fma()
{
    return features().avx2Fma;
}

bool cpuHasAvx512()
{
    return features().avx512;
}

} // namespace rig
