// Helpers shared by the tests.
#pragma once

#include <QtTest/QtTest>

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

} // namespace testutil

#define RS_COMPARE_NEAR(actual, expected, tol)                                                                          \
    do {                                                                                                               \
        const double a_ = double(actual), e_ = double(expected);                                                       \
        if (!(std::fabs(a_ - e_) <= double(tol)))                                                                      \
            QFAIL(qPrintable(QStringLiteral("%1 = %2, expected %3 ± %4").arg(#actual).arg(a_, 0, 'g', 9).arg(e_, 0, 'g', 9).arg(double(tol)))); \
    } while (0)
