// Helpers shared by the tests.
#pragma once

#include <QtTest/QtTest>

#include <fstream>
#include <optional>
#include <string>

#include "rig/model/math.h"
#include "rig/model/samples.h"

namespace testutil {

inline std::string assetPath(const char* relative)
{
    return std::string(RIGSCOPE_ASSETS_DIR) + "/" + relative;
}

/// Loads a built-in sample or fails the test.
inline rig::Rig sample(const char* name)
{
    auto r = rig::makeSample(name);
    if (!r.ok())
        qFatal("sample %s: %s", name, r.error().c_str());
    return std::move(r.value());
}

/// The first processor as Linux reads it (/proc/cpuinfo), the oracle of the tests of rig/platform's cpuid reading.
struct ProcCpu {
    std::string vendor, name, family, model, flags;
    bool has(const char* flag) const { return (" " + flags + " ").find(std::string(" ") + flag + " ") != std::string::npos; }
    /// AVX-512 F, DQ, BW and VL: what cpuHasAvx512 asks for.
    bool avx512() const { return has("avx512f") && has("avx512dq") && has("avx512bw") && has("avx512vl"); }
};

/// Empty where there is no /proc/cpuinfo.
inline std::optional<ProcCpu> readProcCpu()
{
    std::ifstream f("/proc/cpuinfo");
    if (!f)
        return std::nullopt;
    ProcCpu c;
    std::string line;
    auto value = [&](const char* key, std::string& out) {
        if (out.empty() && line.rfind(key, 0) == 0 && line.find(':') != std::string::npos) {
            out = line.substr(line.find(':') + 1);
            out.erase(0, out.find_first_not_of(" \t"));
        }
    };
    while (std::getline(f, line) && !line.empty()) { // the first processor's block
        value("vendor_id", c.vendor);
        value("model name", c.name);
        value("cpu family", c.family);
        value("flags", c.flags);
        if (line.rfind("model\t", 0) == 0 || line.rfind("model :", 0) == 0)
            value("model", c.model);
    }
    return c;
}

} // namespace testutil

#define RS_COMPARE_NEAR(actual, expected, tol)                                                                          \
    do {                                                                                                               \
        const double a_ = double(actual), e_ = double(expected);                                                       \
        if (!(std::fabs(a_ - e_) <= double(tol)))                                                                      \
            QFAIL(qPrintable(QStringLiteral("%1 = %2, expected %3 ± %4").arg(#actual).arg(a_, 0, 'g', 9).arg(e_, 0, 'g', 9).arg(double(tol)))); \
    } while (0)
