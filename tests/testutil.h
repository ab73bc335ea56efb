// Helpers shared by the tests.
#pragma once

#include <QtTest/QtTest>
#include <QFileInfo>
#include <QProcess>

#include <cmath>
#include <fstream>
#include <optional>
#include <string>

#include "rig/model/math.h"
#include "rig/model/model.h"
#include "rig/model/samples.h"

/// At the start of a test function that reads ../shared/assets: skips it, naming the folder, when it is absent, so a
/// checkout without the rigs runs every other test instead of failing forty.
#define REQUIRE_ASSETS()                                                                                          \
    do {                                                                                                          \
        const QString missing_ = testutil::assetsMissing();                                                       \
        if (!missing_.isEmpty())                                                                                  \
            QSKIP(qPrintable(missing_));                                                                          \
    } while (0)

namespace testutil {

/// The folder of real rigs: RIGSCOPE_ASSETS_DIR from the environment (a copied binary run elsewhere), else the
/// build's (../shared/assets beside the checkout).
inline std::string assetsDir()
{
    const QByteArray env = qgetenv("RIGSCOPE_ASSETS_DIR");
    return env.isEmpty() ? std::string(RIGSCOPE_ASSETS_DIR) : env.toStdString();
}

inline std::string assetPath(const char* relative)
{
    return assetsDir() + "/" + relative;
}

/// Why the real rigs cannot be read ("" when their folder is there).
inline QString assetsMissing()
{
    const QString dir = QString::fromStdString(assetsDir());
    return QFileInfo(dir).isDir() ? QString()
                                  : QStringLiteral("the real rigs' folder %1 is absent (set RIGSCOPE_ASSETS_DIR to "
                                                   "another): this test reads them")
                                        .arg(dir);
}

/// What a run of the real binary gave: its exit status (-1: it did not finish in time; -2: it crashed), stdout, stderr.
struct RigscopeOutput {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

/// Runs the real binary with `args`; `env` replaces the process environment when given. Killed after `timeoutMs`.
inline RigscopeOutput runRigscope(const QStringList& args, const QProcessEnvironment* env = nullptr, int timeoutMs = 120000)
{
    QProcess p;
    if (env)
        p.setProcessEnvironment(*env);
    p.start(QStringLiteral(RIGSCOPE_BINARY), args);
    RigscopeOutput o;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return o;
    }
    o.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    o.out = p.readAllStandardOutput();
    o.err = p.readAllStandardError();
    return o;
}

/// Loads a built-in sample or fails the test.
inline rig::Rig sample(const char* name)
{
    auto r = rig::makeSample(name);
    if (!r.ok())
        qFatal("sample %s: %s", name, r.error().c_str());
    return std::move(r.value());
}

/// Rotates unit v by `degrees` about an axis perpendicular to it.
inline glm::vec3 tiltedDirection(const glm::vec3& v, float degrees)
{
    const glm::vec3 helper = std::fabs(v.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
    const glm::vec3 axis = glm::normalize(glm::cross(v, helper));
    const float a = degrees * (3.14159265358979323846f / 180.0f);
    return glm::normalize(v * std::cos(a) + glm::cross(axis, v) * std::sin(a) + axis * glm::dot(axis, v) * (1.0f - std::cos(a)));
}

/// What a rigid prop's UVs are, for the skinning error's rigid-motion cases.
enum class PropUvs { Kept, None, Degenerate };

/// The ramp sample (one joint, a closed wedge with hard edges: a hard-surface prop) with every authored normal tilted
/// 10° off its triangles' (custom normals). PropUvs::None: no UV0 and no tangents; Degenerate: every UV at one point
/// (every UV triangle degenerate, the authored tangents kept).
inline rig::Rig tiltedProp(PropUvs uvs)
{
    rig::Rig rig = sample("ramp");
    rig::Mesh& mesh = rig.meshes[0];
    for (glm::vec3& n : mesh.normals)
        n = tiltedDirection(n, 10.0f);
    if (uvs == PropUvs::None) {
        mesh.uvs.clear();
        mesh.tangents.clear();
    } else if (uvs == PropUvs::Degenerate) {
        for (glm::vec2& uv : mesh.uvs)
            uv = glm::vec2(0.25f, 0.75f);
    }
    return rig;
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
