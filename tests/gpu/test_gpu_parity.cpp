// GPU/CPU parity: the compute pipeline (viewer::GpuDeformer + viewer::evaluateOnGpu) against rig::evaluate, on
// Vulkan (lavapipe) and OpenGL (llvmpipe), for every built-in sample, real assets and synthetic edge cases, every
// method. Runs under xvfb-run (a GUI test).
//
// Tolerances: positions 1e-4 relative to the mesh's extent; directions (normals, tangents, reference normals and
// tangents, morphed normals) 0.01°; per-vertex errors 0.01° absolute. Where the CPU marks a direction or an error
// undefined, the GPU must mark it undefined too (and the other way round). Flags equal, bounds equal the min/max of the
// positions. A few vertices may be genuinely ill-conditioned (conditioning() / methodConditioning() below 1e-2: the
// value is a small difference of large terms, so float rounding decides it): mismatches are accepted only there,
// each one is listed, and their number per row is held to Case::maxIllConditioned (4, or the documented count of a
// deliberately degenerate case) instead of being skipped.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtGui/private/qrhi_p.h>
#include <QtTest/QtTest>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>

#include "rig/analysis/diagnosis/blend_scale.h"
#include "rig/analysis/diagnosis/dq_displacement.h"
#include "rig/analysis/format_difference.h"
#include "rig/deform/deform.h"
#include "rig/deform/engine_profiles.h"
#include "rig/io/import.h"
#include "rig/model/math.h"
#include "rig/model/pose.h"
#include "rig/model/samples.h"
#include "testutil.h"
#include "viewer/compute/gpu_deformer.h"
#include "viewer/compute/gpu_evaluate.h"
#include "viewer/compute/offscreen_rhi.h"

using rig::Method;

namespace {

constexpr double kPositionRel = 1e-4;
constexpr double kDirectionDeg = 0.01;
constexpr double kErrorDeg = 0.01;

struct Case {
    rig::Rig rig;
    rig::Pose pose;
    rig::RuntimeFormat format{4, rig::WeightEncoding::Float}; ///< the runtime's (engine_profiles.h)
    bool morphNormals = true;
    int dispatchLimit = 0; ///< GpuDeformer::setDispatchLimitForTesting
    /// How many ill-conditioned vertices (see conditioning()) may differ beyond the tolerances in one row.
    size_t maxIllConditioned = 4;
};

rig::Pose clipPose(const std::string& clip, double time)
{
    rig::Pose p;
    p.clip = clip;
    p.time = time;
    return p;
}

// A rig whose meshes exercise every special case of the layout: two meshes sharing one skin (one without UVs, so its
// reference tangents are undefined), an unskinned mesh placed by its node (no tangents), an empty mesh, a mesh with an
// unbound vertex (identity palette entry) and a zero-area triangle.
rig::Rig compositeRig()
{
    rig::Rig r = testutil::sample("twist_tube");
    r.source = "test:composite";
    const rig::Rig ramp = testutil::sample("ramp");
    const rig::Rig strip = testutil::sample("lift_strip");

    rig::Mesh noUv = r.meshes[0];
    noUv.name = "tube_without_uvs";
    noUv.uvs.clear();
    for (glm::vec3& p : noUv.positions)
        p.y += 0.7f;
    r.meshes.push_back(noUv);

    rig::Mesh rigid = ramp.meshes[0];
    rigid.name = "rigid_ramp";
    rigid.skin = -1;
    rigid.node = 1; // hangs from "twist"
    rigid.influenceOffsets.clear();
    rigid.influences.clear();
    rigid.tangents.clear();
    r.meshes.push_back(rigid);

    rig::Mesh empty;
    empty.name = "empty";
    empty.skin = 0;
    empty.influenceOffsets = {0};
    r.meshes.push_back(empty);

    rig::Mesh odd = strip.meshes[0];
    odd.name = "unbound_and_degenerate";
    odd.skin = 0;
    for (size_t v = 0; v < odd.vertexCount(); ++v)
        for (uint32_t i = odd.influenceOffsets[v]; i < odd.influenceOffsets[v + 1]; ++i)
            if (v % 7 == 3)
                odd.influences[i].weight = 0.0f; // unbound: the identity entry
    odd.indices.insert(odd.indices.end(), {0u, 0u, 1u}); // zero area
    r.meshes.push_back(odd);
    return r;
}

Case makeCase(const std::string& name)
{
    Case c;
    if (name == "sheet" || name == "sheet_k8" || name == "sheet_no_morph_normals") {
        c.rig = testutil::sample("sheet");
        c.pose.morphs["towel_twist"] = 0.7f;
        c.pose.morphs["ripples"] = 0.5f;
        c.pose.joints["bone2"].rotateDeg = glm::vec3(0.0f, 0.0f, 35.0f);
        c.format.influences = name == "sheet_k8" ? 8 : 4;
        c.morphNormals = name != "sheet_no_morph_normals";
    } else if (name == "twist_tube") {
        c.rig = testutil::sample("twist_tube");
        c.pose = clipPose("twist", 1.0); // 90°
    } else if (name == "ramp") {
        c.rig = testutil::sample("ramp");
        c.pose = clipPose("stretch", 1.0); // x2
    } else if (name == "elbow") {
        c.rig = testutil::sample("elbow");
        c.pose.joints["lower"].rotateDeg = glm::vec3(0.0f, 0.0f, 70.0f);
    } else if (name == "lift_strip") {
        c.rig = testutil::sample("lift_strip");
        c.pose = clipPose("lift", 2.0);
    } else if (name == "elbow_mirrored") {
        // det < 0: dual-quaternion falls back to the linear blend; cofactor and inverse-transpose disagree in sign.
        c.rig = testutil::sample("elbow");
        c.pose.joints["lower"].rotateDeg = glm::vec3(0.0f, 0.0f, 40.0f);
        c.pose.joints["lower"].scale = glm::vec3(1.0f, -1.0f, 1.0f);
    } else if (name == "elbow_singular") {
        // A flattened joint: singular flags, undefined normals, degenerate triangles.
        c.rig = testutil::sample("elbow");
        c.pose.joints["lower"].scale = glm::vec3(1.0f, 0.0f, 1.0f);
        // The flattened tube's upper and lower rows coincide: 2 x 7 vertices whose face normals cancel exactly
        // (conditioning 0). Their reference is float rounding noise; an FMA-contracting GPU (NVIDIA) rounds
        // differently from the CPU there, lavapipe happens not to.
        c.maxIllConditioned = 16;
    } else if (name == "bench40k" || name == "bench40k_2d") {
        // One mesh of more than 128 workgroups (the bounds reduction loops), and with a dispatch limit of 32 groups
        // per dimension a two-dimensional dispatch with idle groups at the end.
        c.rig = rig::makeBenchmarkRig(40000, 12, 4);
        c.pose = clipPose("bend", 0.6);
        c.dispatchLimit = name == "bench40k_2d" ? 32 : 0;
    } else if (name == "quad_skin_k8") {
        // Ten influences per vertex: with K = 8, influences 5 to 8 carry real weight on the GPU's second block.
        const QString dir = QString::fromStdString(testutil::assetsDir());
        auto loaded = rig::importFile((dir + QStringLiteral("/assimp_simple_skin/quad_skin.glb")).toStdString());
        if (!loaded.ok())
            qFatal("quad_skin.glb: %s", loaded.error().c_str());
        c.rig = std::move(loaded.value());
        c.format.influences = 8;
        int i = 0;
        for (const rig::Node& node : c.rig.skeleton.nodes)
            c.pose.joints[node.name].rotateDeg = glm::vec3(3.0f * float(i % 5), -4.0f, 6.0f * float(i++ % 3));
    } else if (name.rfind("tilted_prop_", 0) == 0) {
        // "tilted_prop_<uvs|no_uvs|degenerate_uvs>_<twist|generic_scaled>": testutil::tiltedProp under a rigid motion.
        const testutil::PropUvs uvs = name.find("degenerate_uvs") != std::string::npos ? testutil::PropUvs::Degenerate
                                      : name.find("no_uvs") != std::string::npos   ? testutil::PropUvs::None
                                                                                   : testutil::PropUvs::Kept;
        c.rig = testutil::tiltedProp(uvs);
        rig::JointEdit& e = c.pose.joints["root"];
        if (name.find("twist") != std::string::npos) {
            e.rotateDeg = glm::vec3(0.0f, 0.0f, 90.0f);
        } else {
            e.rotateDeg = glm::vec3(-35.0f, 20.0f, 125.0f);
            e.translate = glm::vec3(0.4f, -0.3f, 0.2f);
            e.scale = glm::vec3(1.6f);
        }
    } else if (name == "fox_twisted") {
        // A real character with a forearm turned 140° about its bone and the upper spine 90°: blend bands that lose.
        const QString dir = QString::fromStdString(testutil::assetsDir());
        auto loaded = rig::importFile((dir + QStringLiteral("/Fox/Fox.glb")).toStdString());
        if (!loaded.ok())
            qFatal("Fox.glb: %s", loaded.error().c_str());
        c.rig = std::move(loaded.value());
        c.pose.joints["b_LeftForeArm_010"].rotateDeg = glm::vec3(0.0f, 140.0f, 0.0f);
        c.pose.joints["b_Spine02_03"].rotateDeg = glm::vec3(0.0f, 90.0f, 0.0f);
    } else if (name == "composite") {
        c.rig = compositeRig();
        c.pose = clipPose("twist", 0.8);
    } else if (name.rfind("profile:", 0) == 0) {
        // "profile:<id>": CesiumMan mid-walk skinned with an engine profile's runtime format.
        const rig::EngineProfile* profile = rig::findEngineProfile(name.substr(8));
        if (!profile)
            qFatal("%s: no such profile", name.c_str());
        c = makeCase("CesiumMan/cesium_man.gltf@0@1.25");
        c.format = profile->format;
    } else {
        // Real assets: "<folder>/<file>@<clip>@<time>".
        const QStringList parts = QString::fromStdString(name).split(QLatin1Char('@'));
        const QString dir = QString::fromStdString(testutil::assetsDir());
        auto loaded = rig::importFile((dir + QLatin1Char('/') + parts[0]).toStdString());
        if (!loaded.ok())
            qFatal("%s: %s", qPrintable(parts[0]), loaded.error().c_str());
        c.rig = std::move(loaded.value());
        if (parts.size() == 3)
            c.pose = clipPose(parts[1].toStdString(), parts[2].toDouble());
    }
    return c;
}

/// Whether a case reads a file of ../shared/assets (makeCase above).
bool caseReadsAssets(const QString& name)
{
    return name.contains(QLatin1Char('/')) || name == QLatin1String("quad_skin_k8") || name == QLatin1String("fox_twisted") ||
           name.startsWith(QLatin1String("profile:"));
}

const char* const kCaseNames[] = {
    "sheet",
    "sheet_k8",
    "sheet_no_morph_normals",
    "twist_tube",
    "ramp",
    "elbow",
    "lift_strip",
    "elbow_mirrored",
    "elbow_singular",
    "composite",
    "tilted_prop_uvs_twist",
    "tilted_prop_no_uvs_twist",
    "tilted_prop_degenerate_uvs_twist",
    "tilted_prop_uvs_generic_scaled",
    "tilted_prop_no_uvs_generic_scaled",
    "tilted_prop_degenerate_uvs_generic_scaled",
    "quad_skin_k8",
    "bench40k",
    "bench40k_2d",
    "CesiumMan/cesium_man.gltf@0@1.25",
    "RiggedFigure/RiggedFigure.gltf@0@0.7",
    "Fox/Fox.glb@1@0.4",
    "RobotExpressive/RobotExpressive.glb@0@0.9",
    "MorphStressTest/glTF/MorphStressTest.gltf@0@1.3",
    "AnimatedMorphSphere/glTF/AnimatedMorphSphere.gltf@0@0.6",
    // Every engine profile but float32 (the CesiumMan row above) and the reference (sheet_k8's format).
    "profile:unorm16",
    "profile:unorm8",
    "profile:unorm11_11_10",
    "profile:unity-1",
    "profile:unity-2",
    "profile:unreal-8",
    "profile:unreal-8-16bit",
};

/// The backends to test: both, or those listed in RIGSCOPE_GPU_BACKENDS (e.g. "vulkan" on a machine without GL).
QStringList backends()
{
    const QString env = qEnvironmentVariable("RIGSCOPE_GPU_BACKENDS");
    return env.isEmpty() ? QStringList{QStringLiteral("vulkan"), QStringLiteral("opengl")} : env.split(QLatin1Char(','));
}

void addBackendRows()
{
    QTest::addColumn<QString>("backend");
    for (const QString& b : backends())
        QTest::newRow(qPrintable(b)) << b;
}

double angleBetween(const glm::vec3& a, const glm::vec3& b)
{
    return rig::angleDeg(a, b);
}

/// How well the rebuilt reference of each vertex is determined by its inputs, in double precision from the CPU's
/// positions: normal = |Σ c| / Σ |c| over the smoothing group (near 0: the face normals cancel), tangent = the
/// Gram-Schmidt residual |t - n (n·t)| / |t| and the handedness margin |(n × t̂)·B| / |B| (near 0: a float rounding
/// of the positions turns the direction or flips the sign). Float results can legitimately differ there.
struct Conditioning {
    std::vector<double> normal, tangent;
};

Conditioning conditioning(const rig::Mesh& mesh, const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& groups)
{
    const size_t n = mesh.vertexCount();
    std::vector<glm::dvec3> nsum(n, glm::dvec3(0.0)), tsum(n, glm::dvec3(0.0)), bsum(n, glm::dvec3(0.0));
    std::vector<double> asum(n, 0.0);
    for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
        const uint32_t i[3] = {mesh.indices[t], mesh.indices[t + 1], mesh.indices[t + 2]};
        const glm::dvec3 p0(positions[i[0]]), e1 = glm::dvec3(positions[i[1]]) - p0, e2 = glm::dvec3(positions[i[2]]) - p0;
        const glm::dvec3 c = glm::cross(e1, e2);
        const double a = glm::length(c);
        if (!(a > 0.0))
            continue;
        for (uint32_t v : i) {
            nsum[groups[v]] += c;
            asum[groups[v]] += a;
        }
        if (mesh.uvs.empty())
            continue;
        const glm::dvec2 d1 = glm::dvec2(mesh.uvs[i[1]]) - glm::dvec2(mesh.uvs[i[0]]);
        const glm::dvec2 d2 = glm::dvec2(mesh.uvs[i[2]]) - glm::dvec2(mesh.uvs[i[0]]);
        const double det = d1.x * d2.y - d2.x * d1.y;
        if (!(std::fabs(det) > 1e-12))
            continue;
        for (uint32_t v : i) {
            tsum[v] += (e1 * d2.y - e2 * d1.y) * (a / det);
            bsum[v] += (e2 * d1.x - e1 * d2.x) * (a / det);
        }
    }
    Conditioning out;
    out.normal.resize(n);
    out.tangent.resize(n);
    for (size_t v = 0; v < n; ++v) {
        const uint32_t g = groups[v];
        const double len = glm::length(nsum[g]);
        out.normal[v] = asum[g] > 0.0 ? len / asum[g] : 0.0;
        const double tl = glm::length(tsum[v]), bl = glm::length(bsum[v]);
        if (!(len > 0.0) || !(tl > 0.0) || !(bl > 0.0)) {
            out.tangent[v] = 0.0;
            continue;
        }
        const glm::dvec3 nn = nsum[g] / len;
        const glm::dvec3 r = tsum[v] - nn * glm::dot(nn, tsum[v]);
        const double rl = glm::length(r);
        const double handedness = rl > 0.0 ? std::fabs(glm::dot(glm::cross(nn, r / rl), bsum[v])) / bl : 0.0;
        out.tangent[v] = std::min({out.normal[v], rl / tl, handedness});
    }
    return out;
}

/// The same measure for a method's own normal and tangent: |T x| / (|T|_F |x|) for the transform T the method applies
/// to the direction x (the blended matrix, its cofactor, Σ w R^{-T}, the stretch S of dual quaternions, the jacobian),
/// in double precision from the CPU's palette and morphed attributes. Near 0, the transformed direction is a small
/// difference of large terms and float rounding decides it.
template <typename M>
M cofactorOf(const M& a)
{
    using V = typename M::col_type;
    const V r0(a[0][0], a[1][0], a[2][0]), r1(a[0][1], a[1][1], a[2][1]), r2(a[0][2], a[1][2], a[2][2]);
    const V c0 = glm::cross(r1, r2), c1 = glm::cross(r2, r0), c2 = glm::cross(r0, r1);
    return M(V(c0.x, c1.x, c2.x), V(c0.y, c1.y, c2.y), V(c0.z, c1.z, c2.z));
}

double transformConditioning(const glm::dmat3& t, const glm::dvec3& x)
{
    double f2 = 0.0;
    for (int c = 0; c < 3; ++c)
        f2 += glm::dot(t[c], t[c]);
    const double d = std::sqrt(f2) * glm::length(x);
    return d > 0.0 ? glm::length(t * x) / d : 0.0;
}

Conditioning methodConditioning(Method m, const rig::Mesh& mesh, const rig::MeshRuntime& rt, const rig::MeshEvaluation& me)
{
    const size_t n = mesh.vertexCount();
    Conditioning out;
    out.normal.assign(n, 1.0);
    out.tangent.assign(n, 1.0);
    if (m == Method::PositionsOnly || m == Method::Rebuilt)
        return out;
    const size_t k = size_t(rt.stream.perVertex);
    for (size_t v = 0; v < n; ++v) {
        glm::dmat3 a(0.0), nm(0.0), st(0.0);
        bool fallback = false;
        for (size_t i = 0; i < k; ++i) {
            const double w = rt.stream.weights[v * k + i];
            if (w == 0.0)
                continue;
            const rig::JointFrame& f = me.palette[rt.stream.joints[v * k + i]];
            a += w * glm::dmat3(glm::mat3(f.matrix));
            nm += w * glm::dmat3(f.inverseTranspose);
            st += w * glm::dmat3(f.stretch);
            fallback |= f.mirrored || f.singular;
        }
        glm::dmat3 tn = a, tt = a;
        switch (m) {
        case Method::BlendInverseTranspose: tn = nm; break;
        case Method::InverseTranspose:
        case Method::Cofactor: tn = cofactorOf(a); break;
        case Method::DualQuaternion:
            if (!fallback) {
                tn = cofactorOf(st);
                tt = st;
            }
            break;
        case Method::Jacobian: {
            glm::dmat3 j = a;
            const glm::dvec3 p(me.morphedPositions[v]);
            const rig::WeightGradients& g = rt.gradients;
            for (uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
                const glm::dmat4 mj(me.palette[g.joints[e]].matrix);
                const glm::dvec3 mp = glm::dvec3(mj * glm::dvec4(p, 1.0));
                const glm::dvec3 grad(g.gradients[e]);
                j[0] += mp * grad.x;
                j[1] += mp * grad.y;
                j[2] += mp * grad.z;
            }
            tn = cofactorOf(j);
            tt = j;
            break;
        }
        default: break;
        }
        out.normal[v] = transformConditioning(tn, glm::dvec3(me.morphedNormals[v]));
        if (mesh.hasTangents())
            out.tangent[v] = transformConditioning(tt, glm::dvec3(glm::vec3(me.morphedTangents[v])));
    }
    return out;
}

/// Below this conditioning a vertex's reference (and the errors measured against it) may differ beyond the tolerances.
constexpr double kIllConditioned = 1e-2;

/// Mismatches of one kind, with the first few described.
struct Tally {
    size_t count = 0;
    QStringList examples;
    void add(const QString& what)
    {
        if (count++ < 5)
            examples << what;
    }
};

} // namespace

class TestGpuParity : public QObject {
    Q_OBJECT

    struct Evaluated {
        Case c;
        rig::RigRuntime runtime;
        rig::Evaluation cpu, gpu;
        viewer::GpuEvaluationExtras extras;
    };

    std::map<QString, std::unique_ptr<viewer::OffscreenRhi>> m_rhis;
    std::map<QString, std::unique_ptr<Evaluated>> m_cache;
    QString m_xdg;

    viewer::OffscreenRhi* rhiFor(const QString& backend)
    {
        auto it = m_rhis.find(backend);
        if (it != m_rhis.end())
            return it->second.get();
        std::string error;
        auto rhi = viewer::OffscreenRhi::create(*viewer::backendFromId(backend.toStdString()), &error);
        if (!rhi)
            qWarning("%s: %s", qPrintable(backend), error.c_str());
        return (m_rhis[backend] = std::move(rhi)).get();
    }

    // Evaluates a case on both devices once (every method), caching the result for the per-method rows.
    Evaluated* evaluated(const QString& backend, const QString& caseName, QString* error)
    {
        const QString key = backend + QLatin1Char('|') + caseName;
        auto it = m_cache.find(key);
        if (it != m_cache.end())
            return it->second.get();
        viewer::OffscreenRhi* rhi = rhiFor(backend);
        if (!rhi) {
            *error = backend + QStringLiteral(" is not available");
            return nullptr;
        }
        auto e = std::make_unique<Evaluated>();
        e->c = makeCase(caseName.toStdString());
        auto resolved = rig::resolvePose(e->c.rig, e->c.pose);
        if (!resolved.ok()) {
            *error = QString::fromStdString(resolved.error());
            return nullptr;
        }
        e->runtime = rig::buildRuntime(e->c.rig, e->c.format);
        rig::DeformSettings settings;
        settings.morphNormals = e->c.morphNormals;
        rig::evaluate(e->c.rig, e->runtime, resolved.value(), rig::allMethods(), settings, e->cpu);

        viewer::GpuDeformer deformer(rhi->rhi());
        deformer.setDispatchLimitForTesting(e->c.dispatchLimit);
        std::string err;
        if (!deformer.setRig(e->c.rig, e->runtime, &err) ||
            !viewer::evaluateOnGpu(deformer, resolved.value(), rig::allMethods(), settings, e->gpu, &e->extras, &err)) {
            *error = QString::fromStdString(err);
            return nullptr;
        }
        return (m_cache[key] = std::move(e)).get();
    }

private slots:
    void initTestCase()
    {
        // A private runtime dir keeps Qt quiet about /tmp's permissions in child processes.
        static QTemporaryDir xdg;
        QVERIFY(xdg.isValid());
        QFile::setPermissions(xdg.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        m_xdg = xdg.path();
        qputenv("XDG_RUNTIME_DIR", m_xdg.toLocal8Bit());
        QVERIFY2(qGuiApp, "needs a QGuiApplication");
    }

    void backendsAvailable_data()
    {
        addBackendRows();
    }
    void backendsAvailable()
    {
        QFETCH(QString, backend);
        viewer::OffscreenRhi* rhi = rhiFor(backend);
        QVERIFY2(rhi, qPrintable(backend + QStringLiteral(" could not be created")));
        QVERIFY(rhi->rhi()->isFeatureSupported(QRhi::Compute));
        qInfo("%s: %s", qPrintable(backend), rhi->deviceName().c_str());
    }

    void parity_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<QString>("caseName");
        QTest::addColumn<int>("method");
        for (const QString& backend : backends())
            for (const char* name : kCaseNames)
                for (Method m : rig::allMethods())
                    QTest::addRow("%s %s %s", qPrintable(backend), name, std::string(rig::methodId(m)).c_str())
                        << backend << QString::fromLatin1(name) << int(m);
    }

    void parity()
    {
        QFETCH(QString, backend);
        QFETCH(QString, caseName);
        QFETCH(int, method);
        if (caseReadsAssets(caseName))
            REQUIRE_ASSETS(); // a real file's row; the built-in and synthetic rigs run without them
        const Method m = Method(method);
        QString error;
        Evaluated* e = evaluated(backend, caseName, &error);
        QVERIFY2(e, qPrintable(error));
        const rig::Rig& r = e->c.rig;
        // (Mirrored and singular joints, the palette and the audit come from the CPU on both devices: they are
        // checked against an independent oracle in test_gpu_oracle, not here.)
        QCOMPARE(e->gpu.meshes.size(), e->cpu.meshes.size());
        QCOMPARE(e->gpu.methods, e->cpu.methods);

        Tally positions, normals, tangents, refNormals, refTangents, normalErrors, tangentErrors, skinningErrors, flags,
            bounds, morphed;
        Tally tolerated; // mismatches at ill-conditioned vertices
        std::map<std::pair<size_t, size_t>, double> illConditioned; // (mesh, vertex) -> conditioning
        double toleratedErrorDelta[2] = {0.0, 0.0};                 // largest normal / tangent error difference there
        size_t toleratedFlips[2] = {0, 0};                          // errors defined on one device only, there
        size_t checkedVertices = 0, definedNormalErrors = 0;
        for (size_t mi = 0; mi < r.meshes.size(); ++mi) {
            const rig::Mesh& mesh = r.meshes[mi];
            const rig::MeshEvaluation& cm = e->cpu.meshes[mi];
            const rig::MeshEvaluation& gm = e->gpu.meshes[mi];
            const rig::Surface& cs = cm.surfaceOf(m);
            const rig::Surface& gs = gm.surfaceOf(m);
            const rig::MethodFrames& cf = cm.methods[size_t(m)];
            const rig::MethodFrames& gf = gm.methods[size_t(m)];
            const size_t n = mesh.vertexCount();
            QCOMPARE(gs.positions.size(), n);
            QCOMPARE(gf.normals.size(), cf.normals.size());
            QCOMPARE(gf.tangents.size(), cf.tangents.size());
            QCOMPARE(gs.referenceTangents.size(), cs.referenceTangents.size());
            QCOMPARE(gf.normalErrorDeg.size(), n);
            QCOMPARE(gf.skinningNormalErrorDeg.size(), n);
            QCOMPARE(gf.skinningTangentErrorDeg.size(), n);
            QCOMPARE(gf.tangentErrorDeg.size(), n);
            QCOMPARE(gf.flags.size(), n);

            // Scale of the mesh: the largest coordinate magnitude of the CPU positions.
            double extent = 1e-6;
            glm::vec3 lo(std::numeric_limits<float>::max()), hi(-std::numeric_limits<float>::max());
            glm::vec3 glo = lo, ghi = hi;
            for (size_t v = 0; v < n; ++v) {
                const glm::vec3 p = cs.positions[v];
                extent = std::max({extent, double(std::fabs(p.x)), double(std::fabs(p.y)), double(std::fabs(p.z))});
                lo = glm::min(lo, p);
                hi = glm::max(hi, p);
                glo = glm::min(glo, gs.positions[v]);
                ghi = glm::max(ghi, gs.positions[v]);
            }
            const double tol = kPositionRel * extent;
            // The mesh's smoothing groups (a group's members in other meshes do not count for conditioning here).
            std::vector<uint32_t> groups(n);
            const uint32_t vb = e->runtime.reference.vertexBegin[mi];
            for (size_t v = 0; v < n; ++v) {
                const uint32_t rep = e->runtime.reference.group[vb + v];
                groups[v] = rep >= vb && rep < vb + n ? rep - vb : uint32_t(v);
            }
            const Conditioning cond = conditioning(mesh, cs.positions, groups);
            const Conditioning mcond = methodConditioning(m, mesh, e->runtime.meshes[mi], cm);
            // Routes a mismatch at an ill-conditioned vertex to the tolerated tally: `reference` and `method` say
            // which of the two directions the compared value depends on.
            auto pick = [&](Tally& t, size_t v, bool tangentSide, bool reference, bool method) -> Tally& {
                double c = 1.0;
                if (reference)
                    c = std::min(c, tangentSide ? cond.tangent[v] : cond.normal[v]);
                if (method)
                    c = std::min(c, tangentSide ? mcond.tangent[v] : mcond.normal[v]);
                return c < kIllConditioned ? tolerated : t;
            };

            const QString meshTag = QStringLiteral("mesh %1 ('%2')").arg(mi).arg(QString::fromStdString(mesh.name));

            auto direction = [&](Tally& t, const char* what, size_t v, const glm::vec3& c, const glm::vec3& g) {
                const bool cd = rig::isDefined(c), gd = rig::isDefined(g);
                if (cd != gd) {
                    t.add(QStringLiteral("%1 v%2 %3: cpu %4 gpu %5").arg(meshTag).arg(v).arg(what)
                              .arg(cd ? "defined" : "undefined", gd ? "defined" : "undefined"));
                    return;
                }
                if (cd) {
                    const double a = angleBetween(c, g);
                    if (!(a <= kDirectionDeg))
                        t.add(QStringLiteral("%1 v%2 %3 differs by %4°").arg(meshTag).arg(v).arg(what).arg(a));
                } else if (!(g == glm::vec3(0.0f))) {
                    t.add(QStringLiteral("%1 v%2 %3: undefined but not zero").arg(meshTag).arg(v).arg(what));
                }
            };
            auto tangent = [&](Tally& t, const char* what, size_t v, const glm::vec4& c, const glm::vec4& g) {
                direction(t, what, v, glm::vec3(c), glm::vec3(g));
                if (rig::isDefined(glm::vec3(c)) && c.w != g.w)
                    t.add(QStringLiteral("%1 v%2 %3 handedness %4 vs %5").arg(meshTag).arg(v).arg(what).arg(c.w).arg(g.w));
            };
            auto errorValue = [&](Tally& t, const char* what, size_t v, float c, float g) {
                if ((c < 0.0f) != (g < 0.0f) || !std::isfinite(g)) {
                    t.add(QStringLiteral("%1 v%2 %3: cpu %4 gpu %5").arg(meshTag).arg(v).arg(what).arg(c).arg(g));
                    return;
                }
                if (c < 0.0f && g != rig::kUndefinedError)
                    t.add(QStringLiteral("%1 v%2 %3: undefined is %4, not -1").arg(meshTag).arg(v).arg(what).arg(g));
                if (c >= 0.0f && !(std::fabs(double(c) - double(g)) <= kErrorDeg))
                    t.add(QStringLiteral("%1 v%2 %3: cpu %4° gpu %5°").arg(meshTag).arg(v).arg(what).arg(c).arg(g));
            };

            for (size_t v = 0; v < n; ++v) {
                ++checkedVertices;
                const size_t toleratedBefore = tolerated.count;
                const glm::vec3 d = gs.positions[v] - cs.positions[v];
                if (!(std::fabs(d.x) <= tol && std::fabs(d.y) <= tol && std::fabs(d.z) <= tol))
                    positions.add(QStringLiteral("%1 v%2 position off by (%3, %4, %5), tolerance %6")
                                      .arg(meshTag).arg(v).arg(d.x).arg(d.y).arg(d.z).arg(tol));
                // Rebuilt's directions are the reference itself.
                const bool isRef = m == Method::Rebuilt;
                direction(pick(normals, v, false, isRef, true), "normal", v, cf.normals[v], gf.normals[v]);
                if (!cf.tangents.empty())
                    tangent(pick(tangents, v, true, isRef, true), "tangent", v, cf.tangents[v], gf.tangents[v]);
                direction(pick(refNormals, v, false, true, false), "reference normal", v, cs.referenceNormals[v],
                          gs.referenceNormals[v]);
                if (!cs.referenceTangents.empty())
                    tangent(pick(refTangents, v, true, true, false), "reference tangent", v, cs.referenceTangents[v],
                            gs.referenceTangents[v]);
                const size_t toleratedHere = tolerated.count;
                errorValue(pick(normalErrors, v, false, true, true), "normal error", v, cf.normalErrorDeg[v],
                           gf.normalErrorDeg[v]);
                errorValue(pick(tangentErrors, v, true, true, true), "tangent error", v, cf.tangentErrorDeg[v],
                           gf.tangentErrorDeg[v]);
                // Against the reference carried from the bind pose (both devices carry the same bind reference).
                errorValue(pick(skinningErrors, v, false, true, true), "skinning normal error", v,
                           cf.skinningNormalErrorDeg[v], gf.skinningNormalErrorDeg[v]);
                errorValue(pick(skinningErrors, v, true, true, true), "skinning tangent error", v,
                           cf.skinningTangentErrorDeg[v], gf.skinningTangentErrorDeg[v]);
                if (tolerated.count != toleratedHere) {
                    for (int which = 0; which < 2; ++which) {
                        const float c = which == 0 ? cf.normalErrorDeg[v] : cf.tangentErrorDeg[v];
                        const float g = which == 0 ? gf.normalErrorDeg[v] : gf.tangentErrorDeg[v];
                        if ((c < 0.0f) != (g < 0.0f))
                            ++toleratedFlips[which];
                        else
                            toleratedErrorDelta[which] = std::max(toleratedErrorDelta[which], std::fabs(double(c) - double(g)));
                    }
                }
                if (tolerated.count != toleratedBefore && !illConditioned.count({mi, v}))
                    illConditioned[{mi, v}] =
                        std::min({cond.normal[v], cond.tangent[v], mcond.normal[v], mcond.tangent[v]});
                definedNormalErrors += cf.normalErrorDeg[v] >= 0.0f ? 1 : 0;
                if (cf.flags[v] != gf.flags[v])
                    flags.add(QStringLiteral("%1 v%2 flags cpu %3 gpu %4").arg(meshTag).arg(v).arg(cf.flags[v]).arg(gf.flags[v]));
                // The morph pass (same for every method; checked on every row anyway).
                const glm::vec3 dm = gm.morphedPositions[v] - cm.morphedPositions[v];
                if (!(glm::length(dm) <= tol))
                    morphed.add(QStringLiteral("%1 v%2 morphed position off by %3").arg(meshTag).arg(v).arg(glm::length(dm)));
                direction(morphed, "morphed normal (normalised)", v, rig::safeNormalize(cm.morphedNormals[v]),
                          rig::safeNormalize(gm.morphedNormals[v]));
            }

            // Bounds of this method's surface: exactly the GPU positions' min/max, and the CPU's within tolerance.
            const std::vector<viewer::MeshBounds>& gb = e->extras.boundsOf(m);
            QCOMPARE(gb.size(), r.meshes.size());
            if (n == 0) {
                if (!gb[mi].empty)
                    bounds.add(meshTag + QStringLiteral(": empty mesh with a box"));
            } else {
                if (gb[mi].empty || gb[mi].min != glo || gb[mi].max != ghi)
                    bounds.add(QStringLiteral("%1: GPU box differs from the min/max of its positions").arg(meshTag));
                const glm::vec3 dlo = gb[mi].min - lo, dhi = gb[mi].max - hi;
                if (!(glm::length(dlo) <= 2 * tol && glm::length(dhi) <= 2 * tol))
                    bounds.add(QStringLiteral("%1: box off the CPU min/max by %2 / %3").arg(meshTag)
                                   .arg(glm::length(dlo)).arg(glm::length(dhi)));
            }
        }

        const QList<QPair<const char*, Tally*>> all = {
            {"positions", &positions},     {"normals", &normals},           {"tangents", &tangents},
            {"reference normals", &refNormals}, {"reference tangents", &refTangents},
            {"normal errors", &normalErrors}, {"tangent errors", &tangentErrors}, {"skinning errors", &skinningErrors},
            {"flags", &flags},
            {"bounds", &bounds},           {"morph", &morphed}};
        QStringList report;
        for (const auto& [what, t] : all)
            if (t->count > 0)
                report << QStringLiteral("%1 %2 mismatches: %3").arg(t->count).arg(what).arg(t->examples.join(QStringLiteral("; ")));
        QVERIFY2(report.isEmpty(), qPrintable(report.join(QLatin1Char('\n'))));
        QStringList ill;
        for (const auto& [where, c] : illConditioned)
            ill << QStringLiteral("mesh %1 v%2 (conditioning %3)").arg(where.first).arg(where.second).arg(c, 0, 'g', 3);
        if (!ill.isEmpty())
            qInfo("%zu ill-conditioned vertices differ: %s; first mismatches: %s", size_t(ill.size()),
                  qPrintable(ill.join(QStringLiteral(", "))), qPrintable(tolerated.examples.join(QStringLiteral("; "))));
        QVERIFY2(illConditioned.size() <= e->c.maxIllConditioned,
                 qPrintable(QStringLiteral("%1 ill-conditioned vertices differ, at most %2 allowed: %3")
                                .arg(illConditioned.size()).arg(e->c.maxIllConditioned).arg(ill.join(QStringLiteral(", ")))));
        QVERIFY(checkedVertices > 0);

        // The statistics come from the same per-vertex numbers.
        const rig::MethodStats& cst = e->cpu.stats[size_t(m)];
        const rig::MethodStats& gst = e->gpu.stats[size_t(m)];
        for (int which = 0; which < 2; ++which) {
            const rig::ErrorStats& c = which == 0 ? cst.normal : cst.tangent;
            const rig::ErrorStats& g = which == 0 ? gst.normal : gst.tangent;
            QCOMPARE(g.defined + g.undefined, c.defined + c.undefined);
            if (toleratedFlips[which] == 0) {
                QCOMPARE(g.defined, c.defined);
            } else {
                // Ill-conditioned vertices whose error is defined on one device only: the statistics are over
                // different sets; only the counts can be checked.
                QVERIFY(size_t(std::abs(long(g.defined) - long(c.defined))) <= toleratedFlips[which]);
                continue;
            }
            // Tolerated vertices can move the statistics by at most their own difference.
            const double d = toleratedErrorDelta[which];
            RS_COMPARE_NEAR(g.max, c.max, kErrorDeg + d);
            RS_COMPARE_NEAR(g.mean, c.mean, kErrorDeg + d * double(illConditioned.size()) / double(std::max<size_t>(c.defined, 1)));
            RS_COMPARE_NEAR(g.p95, c.p95, kErrorDeg + d);
        }
        QCOMPARE(gst.dqFallbackVertices, cst.dqFallbackVertices);
        QCOMPARE(gst.singularVertices, cst.singularVertices);
        // Handedness is counted from each device's own tangents (w is copied, never computed, by the skinning passes;
        // the reference's w is rebuilt on each device).
        if (illConditioned.empty())
            QCOMPARE(gst.handednessMismatches, cst.handednessMismatches);
        Q_UNUSED(definedNormalErrors);
    }

    // A rigid motion of a prop whose authored normals are 10° off its triangles: on the GPU too every skinning method's
    // skinning error is 0 (within the parity tolerance), UVs or not (rig/analysis/carried.h: the carrier edge's frame).
    void rigidMotionHasNoSkinningErrorOnTheGpu_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<QString>("caseName");
        for (const QString& backend : backends())
            for (const char* name : kCaseNames)
                if (std::string(name).rfind("tilted_prop_", 0) == 0)
                    QTest::addRow("%s %s", qPrintable(backend), name) << backend << QString::fromLatin1(name);
    }
    void rigidMotionHasNoSkinningErrorOnTheGpu()
    {
        QFETCH(QString, backend);
        QFETCH(QString, caseName);
        QString error;
        Evaluated* e = evaluated(backend, caseName, &error);
        QVERIFY2(e, qPrintable(error));
        const size_t n = e->c.rig.meshes[0].vertexCount();
        const bool tangents = e->c.rig.meshes[0].hasTangents();
        for (Method m : rig::allMethods()) {
            if (m == Method::PositionsOnly || m == Method::Rebuilt)
                continue;
            const rig::MethodFrames& g = e->gpu.meshes[0].methods[size_t(m)];
            QCOMPARE(g.skinningNormalErrorDeg.size(), n);
            for (size_t v = 0; v < n; ++v) {
                const QString where = QStringLiteral("%1 v%2").arg(QString::fromLatin1(rig::methodId(m).data())).arg(v);
                QVERIFY2(g.skinningNormalErrorDeg[v] >= 0.0f && g.skinningNormalErrorDeg[v] <= kErrorDeg,
                         qPrintable(where + QStringLiteral(" normal %1°").arg(g.skinningNormalErrorDeg[v])));
                if (tangents)
                    QVERIFY2(g.skinningTangentErrorDeg[v] >= 0.0f && g.skinningTangentErrorDeg[v] <= kErrorDeg,
                             qPrintable(where + QStringLiteral(" tangent %1°").arg(g.skinningTangentErrorDeg[v])));
            }
        }
    }

    // The candy-wrapper pass (deform_blend_scale.comp) against rig::measureCandyWrapper on the CPU: scale and volume
    // within 1e-4 (float against double), undefined on both devices alike.
    void blendScaleMatchesTheCpu_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<QString>("caseName");
        for (const QString& backend : backends())
            for (const char* name : {"twist_tube", "elbow", "elbow_mirrored", "elbow_singular", "sheet_k8", "composite",
                                     "bench40k", "CesiumMan/cesium_man.gltf@0@1.25", "Fox/Fox.glb@1@0.4", "fox_twisted"})
                QTest::addRow("%s %s", qPrintable(backend), name) << backend << QString::fromLatin1(name);
    }
    void blendScaleMatchesTheCpu()
    {
        QFETCH(QString, backend);
        QFETCH(QString, caseName);
        if (caseReadsAssets(caseName))
            REQUIRE_ASSETS();
        QString error;
        Evaluated* e = evaluated(backend, caseName, &error);
        QVERIFY2(e, qPrintable(error));
        const rig::CandyWrapper cw = rig::measureCandyWrapper(e->c.rig, e->runtime, e->cpu);
        QCOMPARE(e->extras.blendScale.size(), e->c.rig.meshes.size());
        size_t checked = 0, lost = 0;
        for (size_t m = 0; m < e->c.rig.meshes.size(); ++m) {
            QCOMPARE(e->extras.blendScale[m].size(), cw.scale[m].size());
            for (size_t v = 0; v < cw.scale[m].size(); ++v) {
                const float c = cw.scale[m][v], g = e->extras.blendScale[m][v];
                const float cv = cw.volume[m][v], gv = e->extras.blendVolume[m][v];
                const QString where = QStringLiteral("mesh %1 v%2: cpu %3 / %4, gpu %5 / %6")
                                          .arg(m).arg(v).arg(c).arg(cv).arg(g).arg(gv);
                QVERIFY2((c < 0.0f) == (g < 0.0f), qPrintable(where));
                if (c < 0.0f)
                    continue;
                QVERIFY2(std::fabs(c - g) <= 1e-4f, qPrintable(where));
                QVERIFY2(std::fabs(cv - gv) <= 1e-4f * std::max(1.0f, std::fabs(cv)), qPrintable(where));
                ++checked;
                lost += c < 0.99f ? 1 : 0;
            }
        }
        QVERIFY(checked > 0);
        if (caseName == QLatin1String("twist_tube") || caseName == QLatin1String("elbow"))
            QVERIFY2(lost > 0, "the posed tube loses scale somewhere: the row compares more than ones");
    }

    // The same pass's dual-quaternion displacement against rig::measureDqDisplacement: the distance within 1e-4 of the
    // rig's size (two float skinnings subtracted), the fraction of the limb radius within 1e-3, undefined alike.
    void dqDisplacementMatchesTheCpu_data() { blendScaleMatchesTheCpu_data(); }
    void dqDisplacementMatchesTheCpu()
    {
        QFETCH(QString, backend);
        QFETCH(QString, caseName);
        if (caseReadsAssets(caseName))
            REQUIRE_ASSETS();
        QString error;
        Evaluated* e = evaluated(backend, caseName, &error);
        QVERIFY2(e, qPrintable(error));
        QVERIFY(e->cpu.has(Method::DualQuaternion));
        const rig::DqDisplacement cpu = rig::measureDqDisplacement(e->c.rig, e->runtime, e->cpu);
        QCOMPARE(e->extras.dqDisplacement.size(), e->c.rig.meshes.size());
        float extent = 1e-6f;
        for (const rig::Mesh& mesh : e->c.rig.meshes)
            for (const glm::vec3& p : mesh.positions)
                extent = std::max({extent, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
        size_t checked = 0, moved = 0;
        for (size_t m = 0; m < e->c.rig.meshes.size(); ++m) {
            QCOMPARE(e->extras.dqDisplacement[m].size(), cpu.distance[m].size());
            for (size_t v = 0; v < cpu.distance[m].size(); ++v) {
                const float c = cpu.distance[m][v], g = e->extras.dqDisplacement[m][v];
                const float cf = cpu.fraction[m][v], gf = e->extras.dqFraction[m][v];
                const QString where = QStringLiteral("mesh %1 v%2: cpu %3 (%4), gpu %5 (%6)").arg(m).arg(v).arg(c).arg(cf).arg(g).arg(gf);
                QVERIFY2(std::fabs(c - g) <= 1e-4f * extent, qPrintable(where));
                QVERIFY2((cf < 0.0f) == (gf < 0.0f), qPrintable(where));
                // The distance's tolerance over the radius, and float rounding of the quotient.
                const float radius = e->runtime.meshes[m].limbRadius[v];
                if (cf >= 0.0f)
                    QVERIFY2(std::fabs(cf - gf) <= 1e-4f * extent / radius + 1e-5f * cf, qPrintable(where));
                ++checked;
                moved += c > 1e-3f * extent ? 1 : 0;
            }
        }
        QVERIFY(checked > 0);
        if (caseName == QLatin1String("twist_tube") || caseName == QLatin1String("elbow"))
            QVERIFY2(moved > 0, "the posed tube's dual quaternions move some vertex: the row compares more than zeros");
    }

    // The format difference (GpuDeformer's comparison: the skin pass again over the float reference's streams) against
    // rig::formatDifferences of two CPU evaluations, for every method: distances within 1e-4 of the rig's size,
    // normal angles within 0.01°, undefined alike (Rebuilt's angle is undefined on the GPU by contract).
    void formatDifferenceMatchesTheCpu_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<QString>("caseName");
        QTest::addColumn<QString>("profile");
        for (const QString& backend : backends())
            for (const char* name : {"lift_strip", "twist_tube", "CesiumMan/cesium_man.gltf@0@1.25"})
                for (const char* profile : {"unity-1", "unorm8", "unorm11_11_10", "unreal-8"})
                    QTest::addRow("%s %s %s", qPrintable(backend), name, profile)
                        << backend << QString::fromLatin1(name) << QString::fromLatin1(profile);
    }
    void formatDifferenceMatchesTheCpu()
    {
        QFETCH(QString, backend);
        QFETCH(QString, caseName);
        QFETCH(QString, profile);
        if (caseReadsAssets(caseName))
            REQUIRE_ASSETS();
        viewer::OffscreenRhi* rhi = rhiFor(backend);
        QVERIFY2(rhi, qPrintable(backend + QStringLiteral(" is not available")));
        const rig::EngineProfile* p = rig::findEngineProfile(profile.toStdString());
        QVERIFY(p);
        const Case c = makeCase(caseName.toStdString());
        auto resolved = rig::resolvePose(c.rig, c.pose);
        QVERIFY(resolved.ok());
        const rig::RigRuntime runtime = rig::buildRuntime(c.rig, p->format);
        const rig::RigRuntime reference = rig::buildRuntime(c.rig, rig::kReferenceFormat);
        rig::DeformSettings settings;
        rig::Evaluation cpu, cpuReference, gpu;
        rig::evaluate(c.rig, runtime, resolved.value(), rig::allMethods(), settings, cpu);
        rig::evaluate(c.rig, reference, resolved.value(), rig::allMethods(), settings, cpuReference);

        auto pack = viewer::packGpuRig(c.rig, runtime);
        QVERIFY(pack.ok());
        auto compared = viewer::packComparison(c.rig, reference, pack.value());
        QVERIFY2(compared.ok(), compared.ok() ? "" : compared.error().c_str());
        viewer::GpuDeformer deformer(rhi->rhi());
        std::string err;
        QVERIFY2(deformer.setRig(c.rig, runtime, std::make_shared<const viewer::GpuRigPack>(std::move(pack.value())), &err),
                 err.c_str());
        QVERIFY(deformer.hasComparison());
        viewer::GpuEvaluationExtras extras;
        QVERIFY2(viewer::evaluateOnGpu(deformer, resolved.value(), rig::allMethods(), settings, gpu, &extras, &err),
                 err.c_str());

        float extent = 1e-6f;
        for (const rig::Mesh& mesh : c.rig.meshes)
            for (const glm::vec3& q : mesh.positions)
                extent = std::max({extent, std::fabs(q.x), std::fabs(q.y), std::fabs(q.z)});
        float largest = 0.0f;
        size_t angles = 0;
        std::vector<float> distance, angle;
        for (Method m : rig::allMethods()) {
            const auto& gd = extras.formatDistance[size_t(m)];
            const auto& ga = extras.formatNormalDeg[size_t(m)];
            QCOMPARE(gd.size(), c.rig.meshes.size());
            for (size_t mesh = 0; mesh < c.rig.meshes.size(); ++mesh) {
                const auto& pa = cpuReference.meshes[mesh].surfaceOf(m).positions;
                const auto& pb = cpu.meshes[mesh].surfaceOf(m).positions;
                const auto& na = cpuReference.meshes[mesh].methods[size_t(m)].normals;
                const auto& nb = cpu.meshes[mesh].methods[size_t(m)].normals;
                distance.resize(pa.size());
                angle.resize(pa.size());
                rig::formatDifferences(pa, na, pb, nb, distance, angle);
                QCOMPARE(gd[mesh].size(), distance.size());
                for (size_t v = 0; v < distance.size(); ++v) {
                    const QString where = QStringLiteral("%1 mesh %2 v%3: cpu %4 / %5°, gpu %6 / %7°")
                                              .arg(QString::fromLatin1(rig::methodId(m).data()))
                                              .arg(mesh).arg(v).arg(distance[v]).arg(angle[v])
                                              .arg(gd[mesh][v]).arg(ga[mesh][v]);
                    QVERIFY2(std::fabs(distance[v] - gd[mesh][v]) <= 1e-4f * extent, qPrintable(where));
                    largest = std::max(largest, distance[v]);
                    if (m == Method::Rebuilt) {
                        QVERIFY2(ga[mesh][v] == rig::kUndefinedError, qPrintable(where));
                        continue;
                    }
                    QVERIFY2((angle[v] < 0.0f) == (ga[mesh][v] < 0.0f), qPrintable(where));
                    if (angle[v] >= 0.0f) {
                        QVERIFY2(std::fabs(angle[v] - ga[mesh][v]) <= 0.01f, qPrintable(where));
                        ++angles;
                    }
                }
            }
        }
        QVERIFY(angles > 0);
        if (profile == QLatin1String("unity-1"))
            QVERIFY2(largest > 1e-3f * extent, "one bone per vertex moves some vertex: the row compares more than zeros");
    }

    // The edge cases really happen in the rows above (otherwise those rows would prove little).
    void edgeCasesAreExercised()
    {
        QString error;
        Evaluated* mirrored = evaluated(QStringLiteral("vulkan"), QStringLiteral("elbow_mirrored"), &error);
        QVERIFY2(mirrored, qPrintable(error));
        QVERIFY(mirrored->cpu.stats[size_t(Method::DualQuaternion)].dqFallbackVertices > 0);
        QVERIFY(!mirrored->cpu.mirroredJoints.empty());
        Evaluated* singular = evaluated(QStringLiteral("vulkan"), QStringLiteral("elbow_singular"), &error);
        QVERIFY2(singular, qPrintable(error));
        QVERIFY(singular->cpu.stats[size_t(Method::InverseTranspose)].singularVertices > 0);
        QVERIFY(singular->cpu.stats[size_t(Method::BlendInverseTranspose)].singularVertices > 0);
        QVERIFY(singular->cpu.stats[size_t(Method::Linear)].normal.undefined > 0);
        Evaluated* composite = evaluated(QStringLiteral("vulkan"), QStringLiteral("composite"), &error);
        QVERIFY2(composite, qPrintable(error));
        QVERIFY(composite->runtime.meshes[4].stream.unboundVertices > 0);
        QVERIFY(composite->cpu.stats[size_t(Method::Linear)].tangent.undefined > 0);
        REQUIRE_ASSETS(); // the rest reads quad_skin.glb
        // K = 8 must matter: on quad_skin.glb (ten influences per vertex) the weights of slots 5 to 8 are real.
        Evaluated* k8 = evaluated(QStringLiteral("vulkan"), QStringLiteral("quad_skin_k8"), &error);
        QVERIFY2(k8, qPrintable(error));
        QCOMPARE(k8->runtime.influencesPerVertex, 8);
        // Its four vertices have 10, 5, 4 and 5 influences: three use the second block, vertex 0 with about a third of
        // its weight there.
        const std::vector<float>& w = k8->runtime.meshes[0].stream.weights;
        QCOMPARE(w.size(), size_t(4 * 8));
        auto upper = [&](size_t v) { return w[8 * v + 4] + w[8 * v + 5] + w[8 * v + 6] + w[8 * v + 7]; };
        QVERIFY(upper(0) > 0.25f && upper(1) > 0.0f && upper(2) == 0.0f && upper(3) > 0.05f);
    }

    // The two-pass bounds reduction, with the extreme vertices placed at every interesting workgroup position of a
    // mesh of 313 groups (first/last lane of a group, groups past 128 and 256 of the second pass's loop), next to
    // meshes of one vertex and of none.
    void boundsReduction_data()
    {
        addBackendRows();
    }
    void boundsReduction()
    {
        QFETCH(QString, backend);
        viewer::OffscreenRhi* offscreen = rhiFor(backend);
        QVERIFY(offscreen);
        QRhi* rhi = offscreen->rhi();
        const size_t big = 40000;
        for (size_t k : {size_t(0), size_t(127), size_t(128), size_t(16383), size_t(16384), size_t(20000), size_t(32767),
                         size_t(32768), size_t(39999)}) {
            rig::Rig r;
            r.source = "test:bounds";
            auto addMesh = [&](size_t n, float offset) {
                rig::Mesh mesh;
                mesh.name = "m" + std::to_string(r.meshes.size());
                for (size_t v = 0; v < n; ++v) {
                    // A small lattice, plus two far-out vertices.
                    mesh.positions.push_back(glm::vec3(float(v % 7), float(v % 11), float(v % 13)) * 0.01f + offset);
                    mesh.normals.push_back(glm::vec3(0.0f, 1.0f, 0.0f));
                }
                return mesh;
            };
            rig::Mesh m0 = addMesh(big, 0.0f);
            m0.positions[k] = glm::vec3(50.0f + float(k), -3.0f, 7.0f);
            m0.positions[big - 1 - k] += glm::vec3(-20.0f, 60.0f, -40.0f - float(k));
            r.meshes.push_back(m0);
            r.meshes.push_back(addMesh(1, -5.0f));
            r.meshes.push_back(addMesh(0, 0.0f));
            r.meshes.push_back(addMesh(300, 9.0f));
            const rig::RigRuntime runtime = rig::buildRuntime(r, 4);
            viewer::GpuDeformer deformer(rhi);
            std::string err;
            QVERIFY2(deformer.setRig(r, runtime, &err), err.c_str());
            QRhiCommandBuffer* cb = nullptr;
            QCOMPARE(rhi->beginOffscreenFrame(&cb), QRhi::FrameOpSuccess);
            deformer.record(cb);
            QRhiBufferReadbackResult result;
            QRhiResourceUpdateBatch* u = rhi->nextResourceUpdateBatch();
            u->readBackBuffer(deformer.boundsBuffer(), 0, int(r.meshes.size() * 32), &result);
            cb->resourceUpdate(u);
            QCOMPARE(rhi->endOffscreenFrame(), QRhi::FrameOpSuccess);
            QCOMPARE(size_t(result.data.size()), r.meshes.size() * 32);
            const glm::vec4* b = reinterpret_cast<const glm::vec4*>(result.data.constData());
            for (size_t m = 0; m < r.meshes.size(); ++m) {
                const std::vector<glm::vec3>& p = r.meshes[m].positions;
                if (p.empty()) {
                    QCOMPARE(b[2 * m].w, 0.0f);
                    QVERIFY(b[2 * m].x > b[2 * m + 1].x);
                    continue;
                }
                glm::vec3 lo = p[0], hi = p[0];
                for (const glm::vec3& x : p) {
                    lo = glm::min(lo, x);
                    hi = glm::max(hi, x);
                }
                QCOMPARE(b[2 * m].w, 1.0f);
                QVERIFY2(glm::vec3(b[2 * m]) == lo && glm::vec3(b[2 * m + 1]) == hi,
                         qPrintable(QStringLiteral("k = %1, mesh %2: (%3 %4 %5)-(%6 %7 %8), expected (%9 %10 %11)-(%12 %13 %14)")
                                        .arg(k).arg(m).arg(b[2 * m].x).arg(b[2 * m].y).arg(b[2 * m].z)
                                        .arg(b[2 * m + 1].x).arg(b[2 * m + 1].y).arg(b[2 * m + 1].z)
                                        .arg(lo.x).arg(lo.y).arg(lo.z).arg(hi.x).arg(hi.y).arg(hi.z)));
            }
        }
    }

    // record() runs only what changed, and what it skips must still be right: a sequence of single changes on one
    // deformer, each compared with a fresh CPU evaluation, reading the buffers directly.
    void incrementalChanges_data()
    {
        addBackendRows();
    }
    void incrementalChanges()
    {
        QFETCH(QString, backend);
        viewer::OffscreenRhi* offscreen = rhiFor(backend);
        QVERIFY(offscreen);
        QRhi* rhi = offscreen->rhi();
        const Case c = makeCase("sheet");
        const rig::RigRuntime runtime = rig::buildRuntime(c.rig, 4);
        viewer::GpuDeformer deformer(rhi);
        std::string err;
        QVERIFY2(deformer.setRig(c.rig, runtime, &err), err.c_str());
        QVERIFY(deformer.isDirty());

        const size_t n = deformer.vertexCount();
        auto readBack = [&](std::vector<glm::vec4>& pos, std::vector<glm::vec4>& nrm, std::vector<glm::vec4>& errs) {
            QRhiCommandBuffer* cb = nullptr;
            QCOMPARE(rhi->beginOffscreenFrame(&cb), QRhi::FrameOpSuccess);
            deformer.record(cb);
            QVERIFY(!deformer.isDirty());
            QRhiBufferReadbackResult p, nr, er;
            QRhiResourceUpdateBatch* u = rhi->nextResourceUpdateBatch();
            u->readBackBuffer(deformer.positionsBuffer(), 0, int(n * 16), &p);
            u->readBackBuffer(deformer.normalsBuffer(), 0, int(n * 16), &nr);
            u->readBackBuffer(deformer.errorsBuffer(), 0, int(n * 16), &er);
            cb->resourceUpdate(u);
            QCOMPARE(rhi->endOffscreenFrame(), QRhi::FrameOpSuccess);
            QCOMPARE(size_t(p.data.size()), n * 16);
            pos.resize(n);
            nrm.resize(n);
            errs.resize(n);
            std::memcpy(pos.data(), p.data.constData(), n * 16);
            std::memcpy(nrm.data(), nr.data.constData(), n * 16);
            std::memcpy(errs.data(), er.data.constData(), n * 16);
        };
        auto check = [&](const rig::Pose& pose, Method m, bool morphNormals) {
            auto resolved = rig::resolvePose(c.rig, pose);
            QVERIFY(resolved.ok());
            rig::DeformSettings settings;
            settings.morphNormals = morphNormals;
            rig::Evaluation cpu;
            rig::evaluate(c.rig, runtime, resolved.value(), std::vector<Method>{m}, settings, cpu);
            std::vector<glm::vec4> pos, nrm, errs;
            readBack(pos, nrm, errs);
            const rig::MeshEvaluation& me = cpu.meshes[0];
            size_t bad = 0;
            for (size_t v = 0; v < n; ++v) {
                const glm::vec3 cp = me.surfaceOf(m).positions[v];
                const glm::vec3 cn = me.methods[size_t(m)].normals[v];
                const float ce = me.methods[size_t(m)].normalErrorDeg[v];
                const float cs = me.methods[size_t(m)].skinningNormalErrorDeg[v];
                if (glm::length(glm::vec3(pos[v]) - cp) > 1e-4f)
                    ++bad;
                if (rig::isDefined(cn) != rig::isDefined(glm::vec3(nrm[v])) ||
                    (rig::isDefined(cn) && angleBetween(cn, glm::vec3(nrm[v])) > kDirectionDeg))
                    ++bad;
                if ((ce < 0.0f) != (errs[v].x < 0.0f) || (ce >= 0.0f && std::fabs(ce - errs[v].x) > kErrorDeg))
                    ++bad;
                if ((cs < 0.0f) != (errs[v].z < 0.0f) || (cs >= 0.0f && std::fabs(cs - errs[v].z) > kErrorDeg))
                    ++bad;
            }
            QVERIFY2(bad == 0, qPrintable(QStringLiteral("%1 mismatches after switching to %2")
                                              .arg(bad).arg(QString::fromUtf8(rig::methodId(m).data(), int(rig::methodId(m).size())))));
        };

        rig::Pose a = c.pose, b = c.pose;
        b.joints["bone1"].rotateDeg = glm::vec3(0.0f, 20.0f, -15.0f);
        b.morphs["swirl"] = 0.4f;
        auto set = [&](const rig::Pose& p) {
            auto resolved = rig::resolvePose(c.rig, p);
            QVERIFY(resolved.ok());
            deformer.setPose(resolved.value());
        };
        rig::DeformSettings on, off;
        off.morphNormals = false;

#define RS_STEP(...)                                                                                                   \
    do {                                                                                                               \
        __VA_ARGS__;                                                                                                   \
        if (QTest::currentTestFailed())                                                                                \
            return;                                                                                                    \
    } while (0)
        RS_STEP(set(a));
        deformer.setMethod(Method::Cofactor);
        RS_STEP(check(a, Method::Cofactor, true));
        deformer.setMethod(Method::Jacobian); // same positions: skin + errors only
        RS_STEP(check(a, Method::Jacobian, true));
        deformer.setMethod(Method::DualQuaternion); // other positions: the reference is rebuilt
        RS_STEP(check(a, Method::DualQuaternion, true));
        deformer.setMethod(Method::Rebuilt); // back to the linear positions
        RS_STEP(check(a, Method::Rebuilt, true));
        deformer.setMethod(Method::InverseTranspose);
        RS_STEP(check(a, Method::InverseTranspose, true));
        RS_STEP(set(b)); // pose and morph weights change
        RS_STEP(check(b, Method::InverseTranspose, true));
        deformer.setSettings(off); // only the normal deltas change
        RS_STEP(check(b, Method::InverseTranspose, false));
        deformer.setMethod(Method::PositionsOnly);
        RS_STEP(check(b, Method::PositionsOnly, false));
        deformer.setSettings(on);
        RS_STEP(set(a));
        RS_STEP(check(a, Method::PositionsOnly, true));
#undef RS_STEP
        // Nothing changed: nothing to record.
        QVERIFY(!deformer.isDirty());
        deformer.setMethod(Method::PositionsOnly);
        QVERIFY(!deformer.isDirty());
    }

    // `rigscope report --device gpu` writes the same report as the CPU (stats within 0.01°), on both backends.
    void reportCliMatchesCpu_data()
    {
        addBackendRows();
    }
    void reportCliMatchesCpu()
    {
        QFETCH(QString, backend);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString poseFile = dir.filePath(QStringLiteral("stretch.json"));
        {
            QFile f(poseFile);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"clip": "stretch", "time": 1.0})");
        }
        auto run = [&](const QStringList& extra, QJsonObject& out) {
            QProcess proc;
            proc.start(QStringLiteral(RIGSCOPE_BINARY),
                       QStringList{QStringLiteral("report"), QStringLiteral("--sample"), QStringLiteral("ramp"),
                                   QStringLiteral("--pose"), poseFile, QStringLiteral("--json"), QStringLiteral("-")} + extra);
            QVERIFY(proc.waitForFinished(120000));
            QVERIFY2(proc.exitStatus() == QProcess::NormalExit && proc.exitCode() == 0,
                     qPrintable(QString::fromLocal8Bit(proc.readAllStandardError())));
            QJsonParseError pe;
            const QJsonDocument doc = QJsonDocument::fromJson(proc.readAllStandardOutput(), &pe);
            QVERIFY2(pe.error == QJsonParseError::NoError, qPrintable(pe.errorString()));
            out = doc.object();
        };
        QJsonObject cpu, gpu;
        run({}, cpu);
        run({QStringLiteral("--device"), QStringLiteral("gpu"), QStringLiteral("--backend"), backend}, gpu);
        QCOMPARE(cpu.value(QStringLiteral("device")).toString(), QStringLiteral("cpu"));
        QCOMPARE(gpu.value(QStringLiteral("device")).toString(), QStringLiteral("gpu"));
        QCOMPARE(gpu.value(QStringLiteral("backend")).toString(), backend);
        QVERIFY(!cpu.contains(QStringLiteral("backend")));

        // Everything but the statistics and the device is identical.
        for (const QString& key : cpu.keys()) {
            if (key == QLatin1String("device") || key == QLatin1String("methods"))
                continue;
            QVERIFY2(cpu.value(key) == gpu.value(key), qPrintable(key));
        }
        const QJsonObject cm = cpu.value(QStringLiteral("methods")).toObject();
        const QJsonObject gm = gpu.value(QStringLiteral("methods")).toObject();
        QCOMPARE(gm.keys(), cm.keys());
        QCOMPARE(cm.keys().size(), rig::kMethodCount);
        bool sawNonZero = false;
        for (const QString& method : cm.keys()) {
            const QJsonObject c = cm.value(method).toObject(), g = gm.value(method).toObject();
            for (const QString& which : {QStringLiteral("normal_error_deg"), QStringLiteral("tangent_error_deg"),
                                         QStringLiteral("skinning_normal_error_deg"),
                                         QStringLiteral("skinning_tangent_error_deg")}) {
                QVERIFY2(c.contains(which) && g.contains(which), qPrintable(which));
                const QJsonObject cs = c.value(which).toObject(), gs = g.value(which).toObject();
                for (const QString& stat : {QStringLiteral("max"), QStringLiteral("mean"), QStringLiteral("p95")}) {
                    QCOMPARE(gs.value(stat).isNull(), cs.value(stat).isNull());
                    RS_COMPARE_NEAR(gs.value(stat).toDouble(), cs.value(stat).toDouble(), kErrorDeg);
                    sawNonZero |= cs.value(stat).toDouble() > 1.0;
                }
                QCOMPARE(gs.value(QStringLiteral("defined")), cs.value(QStringLiteral("defined")));
                QCOMPARE(gs.value(QStringLiteral("undefined")), cs.value(QStringLiteral("undefined")));
                QCOMPARE(gs.value(QStringLiteral("histogram")), cs.value(QStringLiteral("histogram")));
            }
            QCOMPARE(g.value(QStringLiteral("singular_vertices")), c.value(QStringLiteral("singular_vertices")));
            QCOMPARE(g.value(QStringLiteral("handedness_mismatches")), c.value(QStringLiteral("handedness_mismatches")));
            QCOMPARE(g.value(QStringLiteral("linear_fallback_vertices")), c.value(QStringLiteral("linear_fallback_vertices")));
        }
        QVERIFY(sawNonZero); // the stretched ramp has real errors (linear: 36.87°)
        RS_COMPARE_NEAR(gm.value(QStringLiteral("linear")).toObject().value(QStringLiteral("normal_error_deg")).toObject()
                            .value(QStringLiteral("max")).toDouble(), 36.870, 0.01);
    }

    // Without a usable display or backend the GPU report fails with exit status 2 and one line, never a crash.
    void reportCliFailsCleanly_data()
    {
        QTest::addColumn<QString>("platform");
        QTest::addColumn<bool>("display");
        QTest::addColumn<QString>("backend");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no DISPLAY") << QString() << false << QStringLiteral("vulkan") << QStringLiteral("no display");
        QTest::newRow("offscreen platform, vulkan") << QStringLiteral("offscreen") << true << QStringLiteral("vulkan")
                                                    << QStringLiteral("Vulkan is not available");
        QTest::newRow("bad backend") << QString() << true << QStringLiteral("metal") << QStringLiteral("--backend");
    }
    void reportCliFailsCleanly()
    {
        QFETCH(QString, platform);
        QFETCH(bool, display);
        QFETCH(QString, backend);
        QFETCH(QString, expected);
        QProcess proc;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        env.remove(QStringLiteral("WAYLAND_DISPLAY"));
        if (!platform.isEmpty())
            env.insert(QStringLiteral("QT_QPA_PLATFORM"), platform);
        if (!display)
            env.remove(QStringLiteral("DISPLAY"));
        proc.setProcessEnvironment(env);
        proc.start(QStringLiteral(RIGSCOPE_BINARY), {QStringLiteral("report"), QStringLiteral("--sample"), QStringLiteral("ramp"),
                                                     QStringLiteral("--device"), QStringLiteral("gpu"),
                                                     QStringLiteral("--backend"), backend});
        QVERIFY(proc.waitForFinished(60000));
        QCOMPARE(proc.exitStatus(), QProcess::NormalExit);
        QCOMPARE(proc.exitCode(), 2);
        const QString err = QString::fromLocal8Bit(proc.readAllStandardError()).trimmed();
        QVERIFY2(!err.contains(QLatin1Char('\n')), qPrintable(err));
        QVERIFY2(err.startsWith(QLatin1String("rigscope: ")) && err.contains(expected), qPrintable(err));
        QVERIFY(proc.readAllStandardOutput().isEmpty());
    }

    void cleanupTestCase()
    {
        m_cache.clear();
        m_rhis.clear(); // each QRhi before its instance / surface (OffscreenRhi's order), all before the application
    }
};

QTEST_MAIN(TestGpuParity)
#include "test_gpu_parity.moc"
