// Numbers that hold on real assets: one reference across meshes and primitives (material seams), tangent handedness in
// the file's own UV convention, the bind pose, the authoring baseline and the skinning error carried from it. Each case
// is a glTF file built here (tests/gltf_files.h) and imported through the real worker, or a real shared asset.
#include "testutil.h"
#include "gltf_files.h"

#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <set>

#include "rig/analysis/audit.h"
#include "rig/analysis/reference/reference.h"
#include "rig/deform/deform.h"
#include "rig/io/import.h"
#include "rig/model/pose.h"

using namespace rig;

namespace {

constexpr double kPi = 3.14159265358979323846;

Result<Rig> importBytes(const QByteArray& bytes, const char* hint, const std::string& name)
{
    return importMemory(bytes.constData(), size_t(bytes.size()), hint, name);
}

Evaluation evaluateAt(const Rig& rig, const RigRuntime& rt, const Pose& pose, const std::vector<Method>& methods = allMethods())
{
    auto resolved = resolvePose(rig, pose);
    if (!resolved)
        qFatal("pose: %s", resolved.error().c_str());
    Evaluation e;
    evaluate(rig, rt, resolved.value(), methods, DeformSettings{}, e);
    return e;
}

/// One joint at the origin, identity inverse bind, every vertex fully on it: skin attributes for `count` vertices.
void oneJointSkin(testgltf::Builder& g, int count, QJsonObject& attributes, int& ibm)
{
    std::vector<uint8_t> joints(size_t(4 * count), 0);
    std::vector<float> weights(size_t(4 * count), 0.0f);
    for (int v = 0; v < count; ++v)
        weights[size_t(4 * v)] = 1.0f;
    attributes["JOINTS_0"] = g.accessor(testgltf::bytesOf(joints), testgltf::kUbyte, "VEC4", count);
    attributes["WEIGHTS_0"] = g.floats(weights, "VEC4");
    if (ibm < 0) {
        const std::vector<float> identity = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        ibm = g.floats(identity, "MAT4");
    }
}

/// A skinned open tube along +x (0..2, radius 0.25) cut along its length into two primitives of one mesh: the
/// half 0..180° and the half 180..360°, each with vertices of its own on both seams. Normals radial (exact), UVs
/// (angle, x). `hardSeam`: the second half's seam normals tilted 5° (an authored hard edge, not to be welded).
QByteArray twoPrimitiveTube(bool hardSeam)
{
    const int rings = 9, segments = 12; // per half
    testgltf::Builder g;
    QJsonArray primitives;
    int ibm = -1;
    for (int half = 0; half < 2; ++half) {
        std::vector<float> pos, nrm, uv;
        std::vector<uint16_t> idx;
        for (int r = 0; r < rings; ++r)
            for (int s = 0; s <= segments; ++s) {
                // The last column of the second half is the first of the first half: the same bits (angle 0, not 2π).
                const double a = half == 1 && s == segments ? 0.0 : kPi * (half + double(s) / segments);
                const float x = 2.0f * float(r) / float(rings - 1);
                pos.insert(pos.end(), {x, float(0.25 * std::cos(a)), float(0.25 * std::sin(a))});
                double na = a;
                if (hardSeam && half == 1 && (s == 0 || s == segments))
                    na += (s == 0 ? 5.0 : -5.0) * kPi / 180.0;
                nrm.insert(nrm.end(), {0.0f, float(std::cos(na)), float(std::sin(na))});
                uv.insert(uv.end(), {float((half + double(s) / segments) / 2.0), x / 2.0f});
            }
        for (int r = 0; r + 1 < rings; ++r)
            for (int s = 0; s < segments; ++s) {
                const uint16_t a = uint16_t(r * (segments + 1) + s), b = uint16_t(a + 1),
                               c = uint16_t(a + segments + 1), d = uint16_t(c + 1);
                idx.insert(idx.end(), {a, b, c, b, d, c});
            }
        QJsonObject attributes{{"POSITION", g.floats(pos, "VEC3", true)}, {"NORMAL", g.floats(nrm, "VEC3")},
                               {"TEXCOORD_0", g.floats(uv, "VEC2")}};
        oneJointSkin(g, int(pos.size() / 3), attributes, ibm);
        primitives.append(QJsonObject{{"attributes", attributes}, {"indices", g.u16(idx, "SCALAR")}});
    }
    g.root["scene"] = 0;
    g.root["scenes"] = QJsonArray{QJsonObject{{"nodes", QJsonArray{0, 1}}}};
    g.root["nodes"] = QJsonArray{QJsonObject{{"name", "tube"}, {"mesh", 0}, {"skin", 0}}, QJsonObject{{"name", "root"}}};
    g.root["meshes"] = QJsonArray{QJsonObject{{"name", "tube"}, {"primitives", primitives}}};
    g.root["skins"] = QJsonArray{QJsonObject{{"joints", QJsonArray{1}}, {"inverseBindMatrices", ibm}}};
    return g.gltf();
}

/// Vertices of `mesh` on the seams (angle 0 or 180°: z = 0) of the inner rings (x strictly between the open ends, where
/// the triangulation is symmetric about every vertex and the rebuilt normal is exactly radial).
std::vector<size_t> seamVertices(const Mesh& mesh)
{
    std::vector<size_t> out;
    for (size_t v = 0; v < mesh.vertexCount(); ++v)
        if (std::fabs(mesh.positions[v].z) < 1e-6f && mesh.positions[v].x > 0.01f && mesh.positions[v].x < 1.99f)
            out.push_back(v);
    return out;
}

/// A flat sheet in the xy plane (normal +z), 8 x 4 quads, UVs in the file's convention: u follows x on the left half
/// and is mirrored on the right half (a mirrored UV island, vertices split at x = 4), v follows y. Authored tangents:
/// the right direction everywhere (+x on the left, -x on the right), handedness +1 everywhere — wrong on the right.
QByteArray mirroredSheet(int& leftVertices, int& rightVertices)
{
    testgltf::Builder g;
    std::vector<float> pos, nrm, tan, uv;
    std::vector<uint16_t> idx;
    leftVertices = rightVertices = 0;
    for (int half = 0; half < 2; ++half) {
        const uint16_t base = uint16_t(pos.size() / 3);
        for (int j = 0; j <= 4; ++j)
            for (int i = 0; i <= 4; ++i) {
                const float x = float(half * 4 + i), y = float(j);
                pos.insert(pos.end(), {x, y, 0.0f});
                nrm.insert(nrm.end(), {0.0f, 0.0f, 1.0f});
                const float u = half == 0 ? x / 8.0f : (8.0f - x) / 8.0f;
                uv.insert(uv.end(), {u, y / 4.0f});
                tan.insert(tan.end(), {half == 0 ? 1.0f : -1.0f, 0.0f, 0.0f, 1.0f});
                (half == 0 ? leftVertices : rightVertices) += 1;
            }
        for (int j = 0; j < 4; ++j)
            for (int i = 0; i < 4; ++i) {
                const uint16_t a = uint16_t(base + j * 5 + i), b = uint16_t(a + 1), c = uint16_t(a + 5), d = uint16_t(c + 1);
                idx.insert(idx.end(), {a, b, c, b, d, c}); // counter-clockwise seen from +z
            }
    }
    QJsonObject attributes{{"POSITION", g.floats(pos, "VEC3", true)}, {"NORMAL", g.floats(nrm, "VEC3")},
                           {"TANGENT", g.floats(tan, "VEC4")}, {"TEXCOORD_0", g.floats(uv, "VEC2")}};
    int ibm = -1;
    oneJointSkin(g, int(pos.size() / 3), attributes, ibm);
    g.root["scene"] = 0;
    g.root["scenes"] = QJsonArray{QJsonObject{{"nodes", QJsonArray{0, 1}}}};
    g.root["nodes"] = QJsonArray{QJsonObject{{"name", "sheet"}, {"mesh", 0}, {"skin", 0}}, QJsonObject{{"name", "root"}}};
    g.root["meshes"] = QJsonArray{QJsonObject{
        {"name", "sheet"}, {"primitives", QJsonArray{QJsonObject{{"attributes", attributes}, {"indices", g.u16(idx, "SCALAR")}}}}}};
    g.root["skins"] = QJsonArray{QJsonObject{{"joints", QJsonArray{1}}, {"inverseBindMatrices", ibm}}};
    return g.gltf();
}

glm::vec3 tilted(const glm::vec3& v, float degrees)
{
    return testutil::tiltedDirection(v, degrees);
}

/// Rigid motions of a whole prop: a twist about two of its faces' normals (z), about one face's normal and across the
/// others (x), a generic axis, and a generic axis with a translation and a uniform scale.
struct RigidMotion {
    const char* name;
    JointEdit edit;
};

std::vector<RigidMotion> rigidMotions()
{
    auto edit = [](glm::vec3 r, glm::vec3 t = glm::vec3(0.0f), float s = 1.0f) {
        JointEdit e;
        e.rotateDeg = r;
        e.translate = t;
        e.scale = glm::vec3(s);
        return e;
    };
    return {{"twist about z", edit({0.0f, 0.0f, 90.0f})},
            {"about x", edit({90.0f, 0.0f, 0.0f})},
            {"generic axis", edit({30.0f, 60.0f, 10.0f})},
            {"generic axis, translated, scaled x1.6", edit({-35.0f, 20.0f, 125.0f}, {0.4f, -0.3f, 0.2f}, 1.6f)}};
}

/// The methods whose skinning error under a rigid motion is 0: all but positions-only (the bind directions, unturned)
/// and rebuilt (the reference itself: its skinning error is the authoring difference by definition).
std::vector<Method> exactUnderRigidMotion()
{
    std::vector<Method> out;
    for (Method m : allMethods())
        if (m != Method::PositionsOnly && m != Method::Rebuilt)
            out.push_back(m);
    return out;
}

} // namespace

class TestTrustedNumbers : public QObject {
    Q_OBJECT
private slots:
    void seamBetweenPrimitivesIsWeldedToZeroError();
    void hardEdgeBetweenPrimitivesStaysHard();
    void weldIsTransitiveWhateverTheVertexOrder();
    void mirroredUvHalfWithWrongHandednessIsReportedExactly();
    void correctFileTangentsAgreeWithTheReference();
    void tiltedAuthoredNormalsAreBaselineNotSkinningError();
    void rigidMotionOfATiltedPropHasNoSkinningError_data();
    void rigidMotionOfATiltedPropHasNoSkinningError();
    void twoRigidPartsWithoutUvsHaveNoSkinningErrorWhileMovingApart();
    void bendWithoutUvsHasSkinningErrorEqualToPlainError();
    void skinningErrorEqualsPlainErrorOnAnalyticRigs();
    void bindBaseReproducesAuthoredPositionsOfARealFile();
    void bindBaseKeepsEditsAndClipsOnTop();
};

void TestTrustedNumbers::seamBetweenPrimitivesIsWeldedToZeroError()
{
    const auto imported = importBytes(twoPrimitiveTube(false), "gltf", "tube.gltf");
    QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().c_str());
    const Rig& rig = imported.value();
    QCOMPARE(rig.meshes.size(), size_t(2)); // Assimp: one mesh per primitive
    const RigRuntime rt = buildRuntime(rig, 4);
    QCOMPARE(rt.reference.crossMeshGroups, size_t(2 * 9)); // two seams of 9 rings
    const Evaluation e = evaluateAt(rig, rt, Pose{});
    for (size_t m = 0; m < 2; ++m) {
        const std::vector<size_t> seam = seamVertices(rig.meshes[m]);
        QCOMPARE(seam.size(), size_t(2 * 7)); // two seams, 7 inner rings
        for (Method method : {Method::Linear, Method::Cofactor, Method::DualQuaternion, Method::PositionsOnly}) {
            const MethodFrames& f = e.meshes[m].methods[size_t(method)];
            for (size_t v : seam)
                QVERIFY2(f.normalErrorDeg[v] >= 0.0f && f.normalErrorDeg[v] <= 0.05f,
                         qPrintable(QStringLiteral("mesh %1 v%2: %3°").arg(m).arg(v).arg(f.normalErrorDeg[v])));
        }
        // The bind baseline agrees: the authored radial normals are the welded reference.
        for (size_t v : seam)
            QVERIFY(angleDeg(rt.bind[m].normals[v], rig.meshes[m].normals[v]) <= 0.05);
    }
    // Without the weld across primitives each seam is one-sided: the same vertices are degrees off. (The check that
    // the test above can fail.)
    const Mesh& half = rig.meshes[0];
    std::vector<glm::vec3> n(half.vertexCount());
    std::vector<glm::vec4> t(half.vertexCount());
    ReferenceScratch scratch;
    rebuildMeshFrames(buildMeshTopology(half.positions, half.normals, half.indices), half.positions, half.uvs,
                      half.indices, n, t, scratch);
    for (size_t v : seamVertices(half))
        QVERIFY2(angleDeg(n[v], half.normals[v]) > 3.0, qPrintable(QString::number(angleDeg(n[v], half.normals[v]))));
}

void TestTrustedNumbers::hardEdgeBetweenPrimitivesStaysHard()
{
    // The second half's seam normals differ by 5° from the first's: an authored hard edge across primitives.
    const auto imported = importBytes(twoPrimitiveTube(true), "gltf", "tube-hard.gltf");
    QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().c_str());
    const RigRuntime rt = buildRuntime(imported.value(), 4);
    QCOMPARE(rt.reference.crossMeshGroups, size_t(0));
    for (size_t v : seamVertices(imported->meshes[1])) {
        const uint32_t g = rt.reference.group[rt.reference.vertexBegin[1] + v];
        QVERIFY(g >= rt.reference.vertexBegin[1]); // its group has no member in the first mesh
    }
}

void TestTrustedNumbers::weldIsTransitiveWhateverTheVertexOrder()
{
    // Four split vertices at one place: normals at 0°, 0.8° and 1.6° about one axis (neighbours agree within 1°, the
    // ends do not), and one at 10°. The first three form one group in every order; the fourth stays alone.
    const glm::vec3 axis(0, 0, 1);
    auto at = [&](float deg) { return glm::vec3(std::cos(deg * float(kPi / 180)), std::sin(deg * float(kPi / 180)), 0.0f); };
    const float angles[4] = {0.0f, 0.8f, 1.6f, 10.0f};
    std::vector<int> order = {0, 1, 2, 3};
    int permutations = 0;
    do {
        std::vector<glm::vec3> positions(4, glm::vec3(1, 2, 3)), normals(4);
        for (int i = 0; i < 4; ++i)
            normals[size_t(i)] = at(angles[order[size_t(i)]]);
        const ReferenceTopology t = buildMeshTopology(positions, normals, std::vector<uint32_t>{});
        std::vector<uint32_t> groupOfAngle(4);
        for (int i = 0; i < 4; ++i)
            groupOfAngle[size_t(order[size_t(i)])] = t.group[size_t(i)];
        QCOMPARE(groupOfAngle[0], groupOfAngle[1]);
        QCOMPARE(groupOfAngle[1], groupOfAngle[2]);
        QVERIFY(groupOfAngle[3] != groupOfAngle[0]);
        // The representative is the group's smallest index.
        uint32_t smallest = 4;
        for (int i = 0; i < 4; ++i)
            if (order[size_t(i)] < 3)
                smallest = std::min(smallest, uint32_t(i));
        QCOMPARE(groupOfAngle[0], smallest);
        ++permutations;
    } while (std::next_permutation(order.begin(), order.end()));
    QCOMPARE(permutations, 24);
    Q_UNUSED(axis);
}

void TestTrustedNumbers::mirroredUvHalfWithWrongHandednessIsReportedExactly()
{
    int left = 0, right = 0;
    const auto imported = importBytes(mirroredSheet(left, right), "gltf", "mirrored.gltf");
    QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().c_str());
    const Rig& rig = imported.value();
    QVERIFY(!rig.meshes[0].tangentsGenerated);
    const RigRuntime rt = buildRuntime(rig, 4);
    // The reference's handedness: +1 on the left half, -1 on the mirrored right half (vertices in file order).
    for (int v = 0; v < left + right; ++v)
        QCOMPARE(rt.bind[0].tangents[size_t(v)].w, v < left ? 1.0f : -1.0f);
    const Audit audit = auditRig(rig, rt.bind);
    const AuditFinding* f = audit.find("tangent-handedness-mismatch");
    QVERIFY(f);
    QCOMPARE(f->count, size_t(right));
    QCOMPARE(f->severity, AuditFinding::Severity::Warning);
    for (uint32_t v : f->examples)
        QVERIFY2(int(v) >= left, qPrintable(QString::number(v)));
    // Every method at the bind pose carries the authored w: the same vertices disagree with the reference.
    Pose bind;
    bind.base = PoseBase::Bind;
    const Evaluation e = evaluateAt(rig, rt, bind);
    for (Method m : {Method::Linear, Method::Cofactor, Method::DualQuaternion, Method::Jacobian, Method::PositionsOnly})
        QCOMPARE(e.stats[size_t(m)].handednessMismatches, size_t(right));
    QCOMPARE(e.stats[size_t(Method::Rebuilt)].handednessMismatches, size_t(0));
}

void TestTrustedNumbers::correctFileTangentsAgreeWithTheReference()
{
    REQUIRE_ASSETS();
    // The one shared asset with authored tangents and UVs (FBX, whose V Assimp keeps): no vertex disagrees in
    // handedness at the bind pose. With V flipped (what Assimp does to glTF and X, undone by the importer), every
    // defined one would: the check can fail. (The glTF case: the mirrored sheet's correct half, above.)
    const auto r = importFile(testutil::assetPath("FBX_huesitos/huesitos.fbx"));
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
    const RigRuntime rt = buildRuntime(r.value(), 4);
    QVERIFY(!auditRig(r.value(), rt.bind).find("tangent-handedness-mismatch"));
    size_t defined = 0;
    for (size_t m = 0; m < r->meshes.size(); ++m) {
        QVERIFY(r->meshes[m].hasTangents() && !r->meshes[m].tangentsGenerated);
        for (size_t v = 0; v < r->meshes[m].vertexCount(); ++v)
            defined += isDefined(glm::vec3(rt.bind[m].tangents[v])) && isDefined(glm::vec3(r->meshes[m].tangents[v])) ? 1 : 0;
    }
    QVERIFY(defined > 100);
    Rig flipped = r.value();
    for (Mesh& mesh : flipped.meshes)
        for (glm::vec2& uv : mesh.uvs)
            uv.y = 1.0f - uv.y;
    const RigRuntime frt = buildRuntime(flipped, 4);
    size_t mismatched = 0;
    for (const AuditFinding& f : auditRig(flipped, frt.bind).findings)
        if (f.code == "tangent-handedness-mismatch")
            mismatched += f.count;
    QCOMPARE(mismatched, defined);
}

void TestTrustedNumbers::tiltedAuthoredNormalsAreBaselineNotSkinningError()
{
    // The ramp with every authored normal tilted 10°: a 10° baseline, 10° total error and 0° skinning error at the
    // bind pose; stretched x2 along x, linear's skinning error is still measured against the authored look.
    Rig rig = testutil::sample("ramp");
    for (glm::vec3& n : rig.meshes[0].normals)
        n = tilted(n, 10.0f);
    const RigRuntime rt = buildRuntime(rig, 4);
    RS_COMPARE_NEAR(rt.baseline.normal.max, 10.0, 1e-3);
    RS_COMPARE_NEAR(rt.baseline.normal.mean, 10.0, 1e-3);
    Pose bind;
    bind.base = PoseBase::Bind;
    const Evaluation e = evaluateAt(rig, rt, bind);
    for (Method m : allMethods()) {
        if (m == Method::Rebuilt)
            continue; // the reference itself: 0° total, and the baseline against the authored look
        const MethodStats& s = e.stats[size_t(m)];
        RS_COMPARE_NEAR(s.normal.mean, 10.0, 1e-3);
        QVERIFY2(s.skinningNormal.max <= 1e-4, qPrintable(QString::fromLatin1(methodId(m).data()) + QStringLiteral(": ") +
                                                          QString::number(s.skinningNormal.max)));
    }
    RS_COMPARE_NEAR(e.stats[size_t(Method::Rebuilt)].skinningNormal.mean, 10.0, 1e-3);
}

void TestTrustedNumbers::rigidMotionOfATiltedPropHasNoSkinningError_data()
{
    QTest::addColumn<int>("uvs");
    QTest::addColumn<int>("motion");
    const std::vector<RigidMotion> motions = rigidMotions();
    for (const auto& [uvs, uvName] : {std::pair{testutil::PropUvs::Kept, "with UVs"}, std::pair{testutil::PropUvs::None, "without UVs"},
                                      std::pair{testutil::PropUvs::Degenerate, "degenerate UVs"}})
        for (size_t i = 0; i < motions.size(); ++i)
            QTest::addRow("%s, %s", uvName, motions[i].name) << int(uvs) << int(i);
}

void TestTrustedNumbers::rigidMotionOfATiltedPropHasNoSkinningError()
{
    // Every vertex moves rigidly, so every skinning method is exact: its skinning error is 0 whatever the authored
    // normals differ from the triangles by (10° here), UVs or not. The minimal rotation between the rebuilt normals
    // would drop a twist about the normal (11.5° under "twist about z" without UVs).
    QFETCH(int, uvs);
    QFETCH(int, motion);
    const Rig rig = testutil::tiltedProp(testutil::PropUvs(uvs));
    const RigRuntime rt = buildRuntime(rig, 4);
    RS_COMPARE_NEAR(rt.baseline.normal.mean, 10.0, 1e-3); // the authoring differs: the case is not trivial
    Pose pose;
    pose.joints["root"] = rigidMotions()[size_t(motion)].edit;
    const Evaluation e = evaluateAt(rig, rt, pose);
    const bool tangents = rig.meshes[0].hasTangents();
    for (Method m : exactUnderRigidMotion()) {
        const MethodStats& s = e.stats[size_t(m)];
        const QString tag = QString::fromLatin1(methodId(m).data());
        QVERIFY2(s.skinningNormal.defined == rig.meshes[0].vertexCount(), qPrintable(tag));
        QVERIFY2(s.skinningNormal.max <= 0.01, qPrintable(tag + QStringLiteral(" normal: %1°").arg(s.skinningNormal.max)));
        RS_COMPARE_NEAR(s.normal.mean, 10.0, 0.01); // against the reference rebuilt now: the authoring difference
        if (tangents) {
            QVERIFY2(s.skinningTangent.defined == rig.meshes[0].vertexCount(), qPrintable(tag));
            QVERIFY2(s.skinningTangent.max <= 0.01,
                     qPrintable(tag + QStringLiteral(" tangent: %1°").arg(s.skinningTangent.max)));
        }
    }
    // Positions-only keeps the bind directions: under a rotation its skinning error is the rotation's, not 0.
    QVERIFY(e.stats[size_t(Method::PositionsOnly)].skinningNormal.max > 10.0);
}

void TestTrustedNumbers::twoRigidPartsWithoutUvsHaveNoSkinningErrorWhileMovingApart()
{
    // Two tilted props in one mesh, each fully on its own joint, no UVs: as the joints turn and part, every vertex of
    // each part moves rigidly with its part.
    Rig rig = testutil::tiltedProp(testutil::PropUvs::None);
    Node b;
    b.name = "second";
    b.rest.translation = glm::vec3(3.0f, 0.0f, 0.0f);
    b.restMatrix = b.rest.matrix();
    rig.skeleton.nodes.push_back(b);
    rig.skins[0].joints.push_back(int(rig.skeleton.nodes.size() - 1));
    glm::mat4 inverseBind(1.0f);
    inverseBind[3] = glm::vec4(-3.0f, 0.0f, 0.0f, 1.0f);
    rig.skins[0].inverseBind.push_back(inverseBind);
    Mesh& mesh = rig.meshes[0];
    const uint32_t n = uint32_t(mesh.vertexCount());
    const size_t triangleIndices = mesh.indices.size();
    for (uint32_t v = 0; v < n; ++v) {
        mesh.positions.push_back(mesh.positions[v] + glm::vec3(3.0f, 0.0f, 0.0f));
        mesh.normals.push_back(mesh.normals[v]);
        const uint32_t first = mesh.influenceOffsets[v], last = mesh.influenceOffsets[v + 1];
        for (uint32_t i = first; i < last; ++i)
            mesh.influences.push_back(Influence{1u, mesh.influences[i].weight});
        mesh.influenceOffsets.push_back(uint32_t(mesh.influences.size()));
    }
    for (size_t i = 0; i < triangleIndices; ++i)
        mesh.indices.push_back(mesh.indices[i] + n);
    const RigRuntime rt = buildRuntime(rig, 4);
    for (float t : {0.25f, 0.5f, 1.0f}) {
        Pose pose;
        pose.joints["root"].rotateDeg = glm::vec3(0.0f, 0.0f, 90.0f * t);
        pose.joints["second"].rotateDeg = glm::vec3(40.0f * t, -20.0f * t, 70.0f * t);
        pose.joints["second"].translate = glm::vec3(0.5f, 1.0f, -0.7f) * t;
        const Evaluation e = evaluateAt(rig, rt, pose);
        for (Method m : exactUnderRigidMotion()) {
            const MethodFrames& f = e.meshes[0].methods[size_t(m)];
            for (uint32_t part = 0; part < 2; ++part) {
                float worst = 0.0f;
                for (uint32_t v = part * n; v < (part + 1) * n; ++v) {
                    QVERIFY(f.skinningNormalErrorDeg[v] >= 0.0f);
                    worst = std::max(worst, f.skinningNormalErrorDeg[v]);
                }
                QVERIFY2(worst <= 0.01f, qPrintable(QStringLiteral("%1 part %2 at %3: %4°")
                                                         .arg(QString::fromLatin1(methodId(m).data())).arg(part).arg(t).arg(worst)));
            }
        }
    }
}

void TestTrustedNumbers::bendWithoutUvsHasSkinningErrorEqualToPlainError()
{
    // The elbow bent across its weight band, its authored normals made the ones rebuilt at the bind pose: the carried
    // reference is the reference rebuilt now, so the skinning error is the plain error, vertex by vertex, with UVs and
    // without; and there is an error to show (linear's collapse of the band).
    for (const bool uvs : {true, false}) {
        Rig rig = testutil::sample("elbow");
        if (!uvs) {
            rig.meshes[0].uvs.clear();
            rig.meshes[0].tangents.clear();
        }
        rig.meshes[0].normals = buildRuntime(rig, 4).bind[0].normals;
        const RigRuntime rt = buildRuntime(rig, 4);
        QVERIFY(rt.baseline.normal.max <= 1e-4);
        Pose pose;
        pose.joints["lower"].rotateDeg = glm::vec3(0.0f, 0.0f, 70.0f);
        const Evaluation e = evaluateAt(rig, rt, pose);
        for (Method m : {Method::Linear, Method::Cofactor, Method::DualQuaternion, Method::BlendInverseTranspose}) {
            const MethodFrames& f = e.meshes[0].methods[size_t(m)];
            size_t compared = 0;
            for (size_t v = 0; v < f.normalErrorDeg.size(); ++v) {
                const float plain = f.normalErrorDeg[v], skin = f.skinningNormalErrorDeg[v];
                QCOMPARE(plain < 0.0f, skin < 0.0f);
                if (plain < 0.0f)
                    continue;
                QVERIFY2(std::fabs(plain - skin) <= 0.01f,
                         qPrintable(QStringLiteral("%1 %2 v%3: %4 vs %5").arg(uvs ? "UVs" : "no UVs")
                                        .arg(QString::fromLatin1(methodId(m).data())).arg(v).arg(plain).arg(skin)));
                ++compared;
            }
            QCOMPARE(compared, rig.meshes[0].vertexCount());
        }
        QVERIFY2(e.stats[size_t(Method::Linear)].skinningNormal.max > 1.0,
                 qPrintable(QString::number(e.stats[size_t(Method::Linear)].skinningNormal.max)));
    }
}

void TestTrustedNumbers::skinningErrorEqualsPlainErrorOnAnalyticRigs()
{
    // Where the authored directions are the rebuilt ones, the reference carried from the bind pose is the rebuilt
    // reference of the pose: both measures agree vertex by vertex.
    for (const std::string& name : sampleNames()) {
        const Rig rig = testutil::sample(name.c_str());
        const RigRuntime rt = buildRuntime(rig, 4);
        if (rt.baseline.normal.max > 0.01)
            continue; // the sample's authored normals are not the rebuilt ones
        Pose pose;
        if (!rig.clips.empty()) {
            pose.clip = rig.clips[0].name;
            pose.time = 0.5 * rig.clips[0].duration;
        }
        for (const Node& node : rig.skeleton.nodes)
            pose.joints[node.name].rotateDeg = glm::vec3(5.0f, -7.0f, 11.0f);
        const Evaluation e = evaluateAt(rig, rt, pose);
        size_t compared = 0;
        for (Method m : {Method::Linear, Method::Cofactor, Method::DualQuaternion, Method::Jacobian}) {
            for (size_t mi = 0; mi < rig.meshes.size(); ++mi) {
                const MethodFrames& f = e.meshes[mi].methods[size_t(m)];
                for (size_t v = 0; v < f.normalErrorDeg.size(); ++v) {
                    const float plain = f.normalErrorDeg[v], skin = f.skinningNormalErrorDeg[v];
                    QCOMPARE(plain < 0.0f, skin < 0.0f);
                    if (plain >= 0.0f) {
                        QVERIFY2(std::fabs(plain - skin) <= 0.01f,
                                 qPrintable(QStringLiteral("%1 %2 v%3: %4 vs %5").arg(QString::fromStdString(name))
                                                .arg(QString::fromLatin1(methodId(m).data())).arg(v).arg(plain).arg(skin)));
                        ++compared;
                    }
                }
            }
        }
        QVERIFY2(compared > 0, name.c_str());
    }
}

void TestTrustedNumbers::bindBaseReproducesAuthoredPositionsOfARealFile()
{
    REQUIRE_ASSETS();
    // CesiumMan's rest pose is not its bind pose for every joint; "base": "bind" gives back the authored positions bit
    // for bit (skin matrices exactly the identity, runtime weights summing to exactly 1).
    for (const char* file : {"CesiumMan/cesium_man.gltf", "Collada_seymour/seymour.dae", "X_BCN_Epileptic/BCN_Epileptic.X"}) {
        const auto r = importFile(testutil::assetPath(file));
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
        const Rig& rig = r.value();
        const RigRuntime rt = buildRuntime(rig, 4);
        Pose bind;
        bind.base = PoseBase::Bind;
        const Evaluation e = evaluateAt(rig, rt, bind);
        size_t skinned = 0;
        for (size_t m = 0; m < rig.meshes.size(); ++m) {
            if (!rig.meshes[m].isSkinned())
                continue;
            const std::vector<glm::vec3>& authored = rig.meshes[m].positions;
            for (Method method : {Method::Linear, Method::DualQuaternion}) {
                // Exactly equal values (a -0 coordinate may come back as +0: the same number).
                const std::vector<glm::vec3>& p = e.meshes[m].surfaceOf(method).positions;
                size_t differ = 0;
                for (size_t v = 0; v < authored.size(); ++v)
                    differ += p[v] == authored[v] ? 0 : 1;
                QVERIFY2(differ == 0, qPrintable(QStringLiteral("%1 mesh %2 %3: %4 positions differ").arg(file).arg(m)
                                                     .arg(QString::fromLatin1(methodId(method).data())).arg(differ)));
            }
            skinned += authored.size();
        }
        QVERIFY(skinned > 0);
        // Every skinning method's error against the carried reference is nil at the bind pose.
        for (Method m : {Method::Linear, Method::Cofactor, Method::InverseTranspose, Method::DualQuaternion,
                         Method::PositionsOnly})
            QVERIFY2(e.stats[size_t(m)].skinningNormal.max <= 1e-4,
                     qPrintable(QStringLiteral("%1 %2: %3").arg(file).arg(QString::fromLatin1(methodId(m).data()))
                                    .arg(e.stats[size_t(m)].skinningNormal.max)));
        // The cofactor of the exact identities is exact; what is left is the kernels' float rounding (rsqrt + Newton).
        QVERIFY2(e.stats[size_t(Method::Cofactor)].skinningNormal.max <= 1e-5,
                 qPrintable(QString::number(e.stats[size_t(Method::Cofactor)].skinningNormal.max)));
        // The rest pose differs from the bind pose for at least one of these files' joints: the two are not the same.
        const Evaluation rest = evaluateAt(rig, rt, Pose{});
        bool restDiffers = false;
        for (size_t m = 0; m < rig.meshes.size() && !restDiffers; ++m)
            restDiffers = rest.meshes[m].linear.positions != rig.meshes[m].positions;
        if (std::string(file).find("seymour") != std::string::npos)
            QVERIFY2(restDiffers, "seymour's rest pose is not its bind pose");
    }
}

void TestTrustedNumbers::bindBaseKeepsEditsAndClipsOnTop()
{
    // On the bind base an edit still rotates its joint in its local frame: the elbow sample's bind pose is its rest
    // pose, so both bases give the same result for the same edit.
    const Rig rig = testutil::sample("elbow");
    const RigRuntime rt = buildRuntime(rig, 4);
    Pose rest, bind;
    rest.joints["lower"].rotateDeg = glm::vec3(0, 0, 60);
    bind = rest;
    bind.base = PoseBase::Bind;
    const Evaluation a = evaluateAt(rig, rt, rest), b = evaluateAt(rig, rt, bind);
    for (size_t v = 0; v < rig.meshes[0].vertexCount(); ++v)
        QVERIFY(glm::length(a.meshes[0].linear.positions[v] - b.meshes[0].linear.positions[v]) < 1e-5f);
    QVERIFY(a.stats[size_t(Method::Linear)].normal.max > 10.0); // the edit really bent it
}

QTEST_GUILESS_MAIN(TestTrustedNumbers)
#include "test_trusted_numbers.moc"
