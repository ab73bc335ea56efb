#include "rig/platform/cpu_features.h"

#include <cpuid.h>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string_view>

namespace rig {

namespace {

struct Features {
    bool avx2, avx2Fma, avx512, halfWidthAvx512;
    std::string cap; ///< what RIGSCOPE_ISA did, for cpuDescription ("" when unset)
};

// The display family from cpuid leaf 1's eax, as the kernel computes it (arch/x86/lib/cpu.c).
unsigned displayFamily(unsigned eax)
{
    const unsigned base = eax >> 8 & 0xFu;
    return base == 0xFu ? base + (eax >> 20 & 0xFFu) : base;
}

std::string vendorString()
{
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return {};
    char text[13] = {};
    std::memcpy(text, &b, 4);
    std::memcpy(text + 4, &d, 4);
    std::memcpy(text + 8, &c, 4);
    return text;
}

Features detect()
{
    // libgcc's checks include the OS (XCR0) support of the ymm and zmm state.
    __builtin_cpu_init();
    Features f;
    f.avx2 = __builtin_cpu_supports("avx2");
    f.avx2Fma = f.avx2 && __builtin_cpu_supports("fma");
    f.avx512 = f.avx2Fma && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
    // The cap, before anything asks: every choice of a path then sees the capped set.
    if (const char* isa = std::getenv("RIGSCOPE_ISA")) {
        const std::string_view v(isa);
        if (v == "avx2") {
            f.avx512 = false;
            f.cap = "capped at AVX2 by RIGSCOPE_ISA=avx2";
        } else if (v == "baseline") {
            f.avx2 = f.avx2Fma = f.avx512 = false;
            f.cap = "capped at baseline x86-64 by RIGSCOPE_ISA=baseline";
        } else if (v == "avx512" || v.empty()) {
            f.cap = v.empty() ? "" : "RIGSCOPE_ISA=avx512: no cap";
        } else {
            f.cap = "RIGSCOPE_ISA='" + std::string(v) + "' ignored (avx512, avx2 or baseline)";
        }
    }
    unsigned a = 0, b = 0, c = 0, d = 0;
    f.halfWidthAvx512 = f.avx512 && __get_cpuid(1, &a, &b, &c, &d) && isHalfWidthAvx512(vendorString(), displayFamily(a));
    return f;
}

const Features& features()
{
    static const Features f = detect();
    return f;
}

/// s without the spaces and tabs around it (some processors pad their brand string).
std::string trimmed(std::string_view s)
{
    const size_t first = s.find_first_not_of(" \t");
    return first == std::string_view::npos ? std::string() : std::string(s.substr(first, s.find_last_not_of(" \t") - first + 1));
}

/// The first processor's "model name" in /proc/cpuinfo, what `lscpu` shows; empty where there is none.
std::string kernelModelName()
{
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (f && std::getline(f, line) && !line.empty()) // the first processor's block
        if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos)
            return trimmed(std::string_view(line).substr(line.find(':') + 1));
    return {};
}

} // namespace

bool isHalfWidthAvx512(std::string_view vendor, unsigned family)
{
    // Zen 4 (family 25 = 0x19: its models with AVX-512) splits 512-bit operations into two 256-bit ones; Zen 5
    // (family 26) and Intel's AVX-512 cores run them whole.
    return vendor == "AuthenticAMD" && family == 25;
}

bool cpuHasHalfWidthAvx512()
{
    return features().halfWidthAvx512;
}

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

std::string processorName(std::string_view kernelName, std::string_view cpuidBrand, unsigned family, unsigned model)
{
    std::string name(kernelName.empty() ? cpuidBrand : kernelName);
    if (name.empty())
        name = "unknown processor";
    name += " (family " + std::to_string(family) + ", model " + std::to_string(model);
    if (!kernelName.empty() && !cpuidBrand.empty() && kernelName != cpuidBrand)
        name += "; cpuid brand string \"" + std::string(cpuidBrand) + "\"";
    return name + ")";
}

std::string cpuDescription()
{
    unsigned a = 0, b = 0, c = 0, d = 0;
    std::string brand;
    if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000004u) {
        char text[49] = {};
        for (unsigned leaf = 0; leaf < 3; ++leaf) {
            unsigned r[4];
            __get_cpuid(0x80000002u + leaf, &r[0], &r[1], &r[2], &r[3]);
            std::memcpy(text + 16 * leaf, r, sizeof r);
        }
        brand = trimmed(text);
    }
    unsigned family = 0, model = 0;
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        // Display family and model as the kernel computes them (arch/x86/lib/cpu.c).
        family = displayFamily(a);
        model = (a >> 4 & 0xFu) | (family >= 6 ? (a >> 16 & 0xFu) << 4 : 0u);
    }
    std::string isa = cpuHasAvx512()   ? "AVX-512 F/DQ/BW/VL, AVX2, FMA"
                      : cpuHasAvx2Fma() ? "AVX2, FMA (no AVX-512)"
                      : cpuHasAvx2()    ? "AVX2 (no FMA)"
                                        : "baseline x86-64 (no AVX2)";
    const std::string& cap = features().cap;
    return processorName(kernelModelName(), brand, family, model) + ": " + isa + (cap.empty() ? "" : " — " + cap);
}

} // namespace rig
