// The GPU checked against an oracle that shares none of its code. The GPU parity tests compare the GPU with the CPU,
// but both take the joint matrices, skin palettes, polar decompositions, dual quaternions and influence streams from
// the same CPU set-up; a bug there would pass them. Here the set-up is recomputed in the test itself, in double
// precision, from the file's raw glTF data (its JSON nodes, skins and accessors, read by tests/gltf_files.h) or from a
// built-in rig's raw node data, and compared with what the GPU deformer uploads (its palette) and with what the GPU
// computes (skinned positions and normals).
#include "testutil.h"
#include "gltf_files.h"
#include "oracle_centers.h"

#include <QGuiApplication>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include "rig/deform/centers_of_rotation.h"
#include "rig/deform/deform.h"
#include "rig/io/import.h"
#include "rig/model/pose.h"
#include "viewer/compute/gpu_deformer.h"
#include "viewer/compute/gpu_evaluate.h"
#include "viewer/compute/offscreen_rhi.h"

namespace {

using glm::dmat3;
using glm::dmat4;
using glm::dquat;
using glm::dvec3;

// ---- The oracle: double precision, written here ---------------------------------------------------------------

/// The edit's rotation: the three axis rotations in the order its name spells ("zxy": Z first, so R = Ry Rx Rz).
dmat3 eulerEdit(const glm::vec3& degrees, rig::RotateOrder order)
{
    const double k = 3.14159265358979323846 / 180.0;
    auto rot = [](double a, int axis) {
        const double c = std::cos(a), s = std::sin(a);
        dmat3 m(1.0);
        const int i = (axis + 1) % 3, j = (axis + 2) % 3;
        m[i][i] = c, m[j][j] = c, m[i][j] = s, m[j][i] = -s; // columns: rotate i towards j
        return m;
    };
    const char* name = rig::rotateOrderName(order);
    dmat3 r(1.0);
    for (int step = 0; step < 3; ++step) {
        const int axis = name[step] - 'x';
        r = rot(degrees[axis] * k, axis) * r;
    }
    return r;
}

/// Polar decomposition M = Q S (det M > 0) by Higham's iteration Q <- (Q + Q^{-T}) / 2.
bool polar(const dmat3& m, dmat3& q, dmat3& s)
{
    if (!(glm::determinant(m) > 1e-12))
        return false;
    q = m;
    for (int i = 0; i < 100; ++i) {
        const dmat3 next = 0.5 * (q + glm::transpose(glm::inverse(q)));
        double d = 0.0;
        for (int c = 0; c < 3; ++c)
            d = std::max(d, glm::length(next[c] - q[c]));
        q = next;
        if (d < 1e-15)
            break;
    }
    s = glm::transpose(q) * m;
    return true;
}

/// A node's local transform as TRS (with the shear-free matrix decomposition for "matrix" nodes).
struct Trs {
    dvec3 t{0.0};
    dmat3 r{1.0};
    dvec3 s{1.0};
    dmat4 matrix() const
    {
        dmat4 m(1.0);
        for (int c = 0; c < 3; ++c)
            m[c] = glm::dvec4(r[c] * s[c], 0.0);
        m[3] = glm::dvec4(t, 1.0);
        return m;
    }
};

/// The oracle's skeleton: node names, parents (any order), local TRS, skins (joint node indices, inverse binds).
struct OracleRig {
    std::vector<std::string> names;
    std::vector<int> parents;
    std::vector<Trs> local;
    struct Skin {
        std::vector<int> joints;
        std::vector<dmat4> inverseBind;
    };
    std::vector<Skin> skins;

    /// World matrices with the pose's edits (rotate after the local rotation, translate added, scale multiplied).
    std::vector<dmat4> world(const rig::Pose& pose) const
    {
        const size_t n = names.size();
        std::vector<dmat4> w(n);
        std::vector<char> done(n, 0);
        for (size_t pass = 0; pass < n; ++pass) // any node order: parents first by repetition
            for (size_t i = 0; i < n; ++i) {
                if (done[i] || (parents[i] >= 0 && !done[size_t(parents[i])]))
                    continue;
                Trs t = local[i];
                if (auto it = pose.joints.find(names[i]); it != pose.joints.end()) {
                    t.r = t.r * eulerEdit(it->second.rotateDeg, it->second.rotateOrder);
                    t.t += dvec3(it->second.translate);
                    t.s *= dvec3(it->second.scale);
                }
                w[i] = parents[i] >= 0 ? w[size_t(parents[i])] * t.matrix() : t.matrix();
                done[i] = 1;
            }
        return w;
    }
};

/// From a glTF file's JSON: nodes (matrix or TRS; names as Assimp gives them), children, skins.
OracleRig fromGltf(const testgltf::File& g)
{
    OracleRig o;
    const QJsonArray nodes = g.json()["nodes"].toArray();
    o.names.resize(size_t(nodes.size()));
    o.parents.assign(size_t(nodes.size()), -1);
    o.local.resize(size_t(nodes.size()));
    for (int i = 0; i < nodes.size(); ++i) {
        const QJsonObject n = nodes[i].toObject();
        o.names[size_t(i)] = g.nodeName(i).toStdString();
        for (const QJsonValue c : n["children"].toArray())
            o.parents[size_t(c.toInt())] = i;
        Trs& t = o.local[size_t(i)];
        if (n.contains("matrix")) {
            const QJsonArray m = n["matrix"].toArray();
            dmat4 mm;
            for (int k = 0; k < 16; ++k)
                mm[k / 4][k % 4] = m[k].toDouble();
            t.t = dvec3(mm[3]);
            for (int c = 0; c < 3; ++c) {
                t.s[c] = glm::length(dvec3(mm[c]));
                t.r[c] = dvec3(mm[c]) / t.s[c];
            }
        } else {
            const QJsonArray tr = n["translation"].toArray(), ro = n["rotation"].toArray(), sc = n["scale"].toArray();
            if (tr.size() == 3)
                t.t = dvec3(tr[0].toDouble(), tr[1].toDouble(), tr[2].toDouble());
            if (ro.size() == 4)
                t.r = glm::mat3_cast(dquat(ro[3].toDouble(), ro[0].toDouble(), ro[1].toDouble(), ro[2].toDouble()));
            if (sc.size() == 3)
                t.s = dvec3(sc[0].toDouble(), sc[1].toDouble(), sc[2].toDouble());
        }
    }
    for (const QJsonValue sv : g.json()["skins"].toArray()) {
        const QJsonObject s = sv.toObject();
        OracleRig::Skin skin;
        for (const QJsonValue j : s["joints"].toArray())
            skin.joints.push_back(j.toInt());
        const std::vector<double> ibm = g.read(s["inverseBindMatrices"].toInt());
        for (size_t j = 0; j < skin.joints.size(); ++j) {
            dmat4 m;
            for (int k = 0; k < 16; ++k)
                m[k / 4][k % 4] = ibm[16 * j + size_t(k)];
            skin.inverseBind.push_back(m);
        }
        o.skins.push_back(skin);
    }
    return o;
}

/// From a built-in rig's raw node data (its authored rest TRS and inverse binds; no rig/ computation).
OracleRig fromRigData(const rig::Rig& r)
{
    OracleRig o;
    for (const rig::Node& n : r.skeleton.nodes) {
        o.names.push_back(n.name);
        o.parents.push_back(n.parent);
        Trs t;
        t.t = dvec3(n.rest.translation);
        t.r = glm::mat3_cast(dquat(n.rest.rotation));
        t.s = dvec3(n.rest.scale);
        o.local.push_back(t);
    }
    for (const rig::Skin& s : r.skins) {
        OracleRig::Skin skin;
        skin.joints = s.joints;
        for (const glm::mat4& m : s.inverseBind)
            skin.inverseBind.push_back(dmat4(m));
        o.skins.push_back(skin);
    }
    return o;
}

/// One vertex's influences as authored: (skin-local joint, weight).
using Influences = std::vector<std::pair<int, double>>;

/// The top-K valid influences, normalised (largest first; ties keep the authored order).
Influences topK(Influences raw, size_t jointCount, int k)
{
    raw.erase(std::remove_if(raw.begin(), raw.end(),
                             [&](const auto& p) { return !(p.second > 0.0) || !std::isfinite(p.second) || p.first < 0 || size_t(p.first) >= jointCount; }),
              raw.end());
    std::stable_sort(raw.begin(), raw.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (raw.size() > size_t(k))
        raw.resize(size_t(k));
    double sum = 0.0;
    for (const auto& p : raw)
        sum += p.second;
    for (auto& p : raw)
        p.second /= sum;
    return raw;
}

struct Skinned {
    dvec3 linear;
    dvec3 linearNormal;
    std::optional<dvec3> dualQuaternion;   ///< when no influence is mirrored
    std::optional<dvec3> centerOfRotation; ///< when no influence is mirrored
};

/// Linear blend, two-phase dual-quaternion and centre-of-rotation skinning of one vertex, in double. `center`: the
/// vertex's centre of rotation (none: its own position).
Skinned skinVertex(const dvec3& p, const dvec3& n, const Influences& in, const std::vector<dmat4>& palette,
                   const std::optional<dvec3>& center)
{
    Skinned out;
    dmat4 a(0.0);
    for (const auto& [j, w] : in)
        a += w * palette[size_t(j)];
    out.linear = dvec3(a * glm::dvec4(p, 1.0));
    out.linearNormal = glm::normalize(dmat3(a) * n);
    // Dual quaternions: per joint the rotation of the polar decomposition and the translation; hemisphere of the
    // largest weight; the stretch blended linearly and applied first.
    dmat3 stretch(0.0);
    dquat real(0, 0, 0, 0), dual(0, 0, 0, 0);
    dquat pivot;
    for (size_t i = 0; i < in.size(); ++i) {
        const dmat4& m = palette[size_t(in[i].first)];
        dmat3 q, s;
        if (!polar(dmat3(m), q, s))
            return out;
        dquat r = glm::quat_cast(q);
        if (i == 0)
            pivot = r;
        if (glm::dot(r, pivot) < 0.0)
            r = -r;
        const dquat d = 0.5 * (dquat(0.0, m[3].x, m[3].y, m[3].z) * r);
        real += in[i].second * r;
        dual += in[i].second * d;
        stretch += in[i].second * s;
    }
    const double len = glm::length(real);
    real /= len;
    dual /= len;
    const dquat t = 2.0 * (dual * glm::conjugate(real));
    out.dualQuaternion = glm::mat3_cast(real) * (stretch * p) + dvec3(t.x, t.y, t.z);
    // Le & Hodgins: the blended rotation about the centre c, plus the linear blend of c itself.
    const dvec3 c = center.value_or(p);
    out.centerOfRotation = glm::mat3_cast(real) * (stretch * (p - c)) + dvec3(a * glm::dvec4(c, 1.0));
    return out;
}

double angleDeg(const dvec3& a, const dvec3& b)
{
    return std::atan2(glm::length(glm::cross(a, b)), glm::dot(a, b)) * 180.0 / 3.14159265358979323846;
}

double relativeDiff(const dmat4& a, const glm::mat4& b)
{
    double d = 0.0, m = 1e-30;
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) {
            d = std::max(d, std::fabs(a[c][r] - double(b[c][r])));
            m = std::max(m, std::fabs(a[c][r]));
        }
    return d / m;
}

struct OracleCase {
    rig::Rig rig;
    OracleRig oracle;
    rig::Pose pose;
    int influences = 4;
    /// Per rig mesh: the authored influences per vertex (skin-local joints), or empty to take the rig's raw data.
    std::vector<std::vector<Influences>> raw;
    std::vector<std::vector<dvec3>> positions, normals; ///< authored, per rig mesh
};

/// The raw JOINTS_n / WEIGHTS_n of primitive 0 of glTF mesh 0, every set, as authored.
std::vector<Influences> rawInfluences(const testgltf::File& g)
{
    const QJsonObject attrs = g.at("meshes", 0)["primitives"].toArray()[0].toObject()["attributes"].toObject();
    std::vector<Influences> out;
    for (int set = 0; attrs.contains(QStringLiteral("JOINTS_%1").arg(set)); ++set) {
        const std::vector<double> j = g.read(attrs[QStringLiteral("JOINTS_%1").arg(set)].toInt());
        const std::vector<double> w = g.read(attrs[QStringLiteral("WEIGHTS_%1").arg(set)].toInt());
        out.resize(j.size() / 4);
        for (size_t v = 0; v < out.size(); ++v)
            for (size_t c = 0; c < 4; ++c)
                if (w[4 * v + c] != 0.0)
                    out[v].emplace_back(int(j[4 * v + c]), w[4 * v + c]);
    }
    return out;
}

std::vector<dvec3> attribute(const testgltf::File& g, const char* name)
{
    const QJsonObject attrs = g.at("meshes", 0)["primitives"].toArray()[0].toObject()["attributes"].toObject();
    const std::vector<double> a = g.read(attrs[QLatin1String(name)].toInt());
    std::vector<dvec3> out(a.size() / 3);
    for (size_t v = 0; v < out.size(); ++v)
        out[v] = dvec3(a[3 * v], a[3 * v + 1], a[3 * v + 2]);
    return out;
}

OracleCase makeCase(const QString& name)
{
    OracleCase c;
    if (name == "twist_tube") {
        // The analytic rig twisted 120° about its axis with a non-uniform squash: raw node data, raw influences.
        c.rig = testutil::sample("twist_tube");
        c.oracle = fromRigData(c.rig);
        c.pose.joints["twist"].rotateDeg = glm::vec3(120.0f, 0.0f, 0.0f);
        c.pose.joints["twist"].scale = glm::vec3(1.0f, 1.4f, 0.7f);
        c.pose.joints["root"].rotateDeg = glm::vec3(0.0f, 10.0f, 5.0f);
        const rig::Mesh& m = c.rig.meshes[0];
        c.raw.resize(1);
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            Influences in;
            for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i)
                in.emplace_back(int(m.influences[i].joint), double(m.influences[i].weight));
            c.raw[0].push_back(in);
        }
        c.positions = {std::vector<dvec3>(m.positions.begin(), m.positions.end())};
        c.normals = {std::vector<dvec3>(m.normals.begin(), m.normals.end())};
        return c;
    }
    // Real assets, one skinned primitive each.
    const QString path = QString::fromStdString(testutil::assetPath(name.toStdString().c_str()));
    testgltf::File g;
    if (!g.load(path))
        qFatal("cannot read %s", qPrintable(path));
    auto loaded = rig::importFile(path.toStdString());
    if (!loaded)
        qFatal("%s", loaded.error().c_str());
    c.rig = std::move(loaded.value());
    c.oracle = fromGltf(g);
    c.raw = {rawInfluences(g)};
    c.positions = {attribute(g, "POSITION")};
    c.normals = {attribute(g, "NORMAL")};
    // Edits on a few joints of the hierarchy (a rotation at the root propagates to all), one of them non-uniform, in
    // every rotate order in turn.
    const rig::Skin& skin = c.rig.skins.at(0);
    for (size_t j = 0; j < skin.joints.size(); j += 3) {
        rig::JointEdit& e = c.pose.joints[c.rig.skeleton.nodes[size_t(skin.joints[j])].name];
        e.rotateDeg = glm::vec3(7.0f * float(j % 4), -11.0f, 13.0f);
        e.rotateOrder = rig::RotateOrder((j / 3) % rig::kRotateOrderCount);
        if (j == 3)
            e.scale = glm::vec3(1.0f, 1.3f, 0.8f);
    }
    if (name.contains(QLatin1String("quad_skin")))
        c.influences = 8;
    return c;
}

} // namespace

class TestGpuOracle : public QObject {
    Q_OBJECT

    std::map<QString, std::unique_ptr<viewer::OffscreenRhi>> m_rhis;

    viewer::OffscreenRhi* rhiFor(const QString& backend)
    {
        auto& slot = m_rhis[backend];
        if (!slot) {
            std::string error;
            slot = viewer::OffscreenRhi::create(*viewer::backendFromId(backend.toStdString()), &error);
            if (!slot)
                qWarning("%s: %s", qPrintable(backend), error.c_str());
        }
        return slot.get();
    }

private slots:
    void initTestCase()
    {
        static QTemporaryDir xdg;
        QVERIFY(xdg.isValid());
        QFile::setPermissions(xdg.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        qputenv("XDG_RUNTIME_DIR", xdg.path().toLocal8Bit());
        QVERIFY2(qGuiApp, "needs a QGuiApplication");
    }

    void gpuSetUpAndResultsMatchADoubleOracle_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<QString>("caseName");
        for (const char* backend : {"vulkan", "opengl"})
            for (const char* c : {"CesiumMan/cesium_man.gltf", "RiggedFigure/RiggedFigure.gltf",
                                  "assimp_simple_skin/quad_skin.glb", "twist_tube"})
                QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(backend), QLatin1String(c))))
                    << QString::fromLatin1(backend) << QString::fromLatin1(c);
    }

    void gpuSetUpAndResultsMatchADoubleOracle()
    {
        QFETCH(QString, backend);
        QFETCH(QString, caseName);
        if (caseName.contains(QLatin1Char('/')))
            REQUIRE_ASSETS(); // a real file's row; the analytic tube runs without them
        viewer::OffscreenRhi* rhi = rhiFor(backend);
        QVERIFY2(rhi, qPrintable(backend + QStringLiteral(" is not available")));
        const OracleCase c = makeCase(caseName);
        const rig::RigRuntime runtime = rig::buildRuntime(c.rig, c.influences);
        auto resolved = rig::resolvePose(c.rig, c.pose);
        QVERIFY2(resolved.ok(), resolved.ok() ? "" : resolved.error().c_str());

        viewer::GpuDeformer deformer(rhi->rhi());
        std::string err;
        QVERIFY2(deformer.setRig(c.rig, runtime, &err), err.c_str());
        rig::Evaluation gpu;
        const std::vector<rig::Method> methods{rig::Method::Linear, rig::Method::DualQuaternion,
                                               rig::Method::CenterOfRotation};
        QVERIFY2(viewer::evaluateOnGpu(deformer, resolved.value(), methods, rig::DeformSettings{}, gpu, nullptr, &err),
                 err.c_str());

        // 1. Joint world matrices (the deformer's, by node name).
        const std::vector<dmat4> world = c.oracle.world(c.pose);
        size_t joints = 0;
        for (size_t i = 0; i < c.oracle.names.size(); ++i) {
            const int node = c.rig.skeleton.find(c.oracle.names[i]);
            QVERIFY2(node >= 0, c.oracle.names[i].c_str());
            const double d = relativeDiff(world[i], deformer.world()[size_t(node)]);
            QVERIFY2(d < 2e-6, qPrintable(QStringLiteral("world of %1 off by %2 (relative)").arg(QString::fromStdString(c.oracle.names[i])).arg(d)));
            ++joints;
        }
        QVERIFY(joints >= 2);

        // 2. The uploaded palette: skin matrices, dual quaternions, stretch, mirrored flag.
        QCOMPARE(c.oracle.skins.size(), c.rig.skins.size());
        std::vector<std::vector<dmat4>> palettes(c.oracle.skins.size());
        for (size_t s = 0; s < c.oracle.skins.size(); ++s)
            for (size_t j = 0; j < c.oracle.skins[s].joints.size(); ++j)
                palettes[s].push_back(world[size_t(c.oracle.skins[s].joints[j])] * c.oracle.skins[s].inverseBind[j]);
        size_t checkedFrames = 0;
        for (size_t m = 0; m < c.rig.meshes.size(); ++m) {
            const rig::Mesh& mesh = c.rig.meshes[m];
            if (!mesh.isSkinned())
                continue;
            const viewer::GpuMeshRange& range = deformer.meshes()[m];
            const std::vector<dmat4>& pal = palettes[size_t(mesh.skin)];
            QCOMPARE(size_t(range.paletteCount), pal.size() + 1); // plus the identity entry
            for (size_t j = 0; j < pal.size(); ++j) {
                const rig::JointFrame& f = deformer.palette()[range.paletteBegin + j];
                QVERIFY2(relativeDiff(pal[j], f.matrix) < 2e-6, qPrintable(QStringLiteral("skin matrix %1").arg(j)));
                QCOMPARE(f.mirrored, glm::determinant(dmat3(pal[j])) < 0.0);
                dmat3 q, st;
                QVERIFY(polar(dmat3(pal[j]), q, st));
                dquat r = glm::quat_cast(q);
                const glm::dquat gr(f.dq.real);
                const double sign = glm::dot(r, gr) < 0.0 ? -1.0 : 1.0;
                r *= sign;
                const dquat d = 0.5 * (dquat(0.0, pal[j][3].x, pal[j][3].y, pal[j][3].z) * r);
                const double scale = std::max(1.0, glm::length(dvec3(pal[j][3])));
                QVERIFY2(glm::length(glm::dvec4(gr.x - r.x, gr.y - r.y, gr.z - r.z, gr.w - r.w)) < 1e-5,
                         qPrintable(QStringLiteral("dual quaternion real part %1").arg(j)));
                const glm::dquat gd(f.dq.dual);
                QVERIFY2(glm::length(glm::dvec4(gd.x - d.x, gd.y - d.y, gd.z - d.z, gd.w - d.w)) < 1e-5 * scale,
                         qPrintable(QStringLiteral("dual quaternion dual part %1").arg(j)));
                for (int col = 0; col < 3; ++col)
                    QVERIFY2(glm::length(dvec3(f.stretch[col]) - st[col]) < 1e-5 * std::max(1.0, glm::length(st[col])),
                             qPrintable(QStringLiteral("stretch %1").arg(j)));
                ++checkedFrames;
            }

            // 3. What the GPU computed: positions (linear and dual quaternion) and linear normals, vertex by vertex.
            const std::vector<Influences>& raw = c.raw[m];
            QCOMPARE(raw.size(), mesh.vertexCount());
            const double extent = [&] {
                double e = 1e-6;
                for (const dvec3& p : c.positions[m])
                    e = std::max({e, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
                return e;
            }();
            // The centres of rotation, every vertex against every triangle (tests/oracle_centers.h).
            std::vector<testoracle::WeightMap> weights(mesh.vertexCount());
            for (size_t v = 0; v < mesh.vertexCount(); ++v)
                for (const auto& [j, w] : topK(raw[v], pal.size(), c.influences))
                    weights[v][j] += w;
            const testoracle::CenterOracle centers(c.positions[m], mesh.indices, weights, rig::kCenterOfRotationSigma);
            size_t upperBlock = 0;
            for (size_t v = 0; v < mesh.vertexCount(); ++v) {
                const Influences in = topK(raw[v], pal.size(), c.influences);
                upperBlock += in.size() > 4 ? 1 : 0;
                const Skinned o = skinVertex(c.positions[m][v], c.normals[m][v], in, pal, centers.center(weights[v]));
                const dvec3 gl(gpu.meshes[m].linear.positions[v]);
                QVERIFY2(glm::length(gl - o.linear) < 1e-5 * extent * 4,
                         qPrintable(QStringLiteral("v%1 linear position off by %2").arg(v).arg(glm::length(gl - o.linear))));
                const double na = angleDeg(dvec3(gpu.meshes[m].methods[size_t(rig::Method::Linear)].normals[v]), o.linearNormal);
                QVERIFY2(na < 0.01, qPrintable(QStringLiteral("v%1 linear normal off by %2°").arg(v).arg(na)));
                if (o.dualQuaternion) {
                    const dvec3 gd(gpu.meshes[m].dualQuaternion.positions[v]);
                    QVERIFY2(glm::length(gd - *o.dualQuaternion) < 1e-5 * extent * 4,
                             qPrintable(QStringLiteral("v%1 dual-quaternion position off by %2").arg(v).arg(glm::length(gd - *o.dualQuaternion))));
                    const dvec3 gc(gpu.meshes[m].centerOfRotation.positions[v]);
                    QVERIFY2(glm::length(gc - *o.centerOfRotation) < 1e-5 * extent * 8,
                             qPrintable(QStringLiteral("v%1 center-of-rotation position off by %2").arg(v).arg(glm::length(gc - *o.centerOfRotation))));
                }
            }
            if (c.influences == 8)
                QVERIFY2(upperBlock >= 3, "influences 5 to 8 must carry weight on this file");
        }
        QVERIFY(checkedFrames > 0);
    }
};

QTEST_MAIN(TestGpuOracle)
#include "test_gpu_oracle.moc"
