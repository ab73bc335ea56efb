// Tests of the Assimp importer (rig/import.h) on the real rigs in shared/assets and on small hand-made files.
//
// Expected values come from decoding the glTF files here, independently of Assimp (a minimal accessor reader below),
// or from INVENTORY.md. Weights must arrive raw: the inventory's known defects (sums != 1, sums of 2, 10 influences)
// must survive the import.
#include "testutil.h"
#include "gltf_files.h"

#include <QElapsedTimer>

#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include <assimp/Exporter.hpp>
#include <assimp/scene.h>

#include "rig/io/import.h"

namespace {

using GltfFile = testgltf::File; // the independent accessor reader, for ground truth

GltfFile gltf(const char* relative)
{
    GltfFile g;
    if (!g.load(QString::fromStdString(testutil::assetPath(relative))))
        qFatal("cannot decode %s", relative);
    return g;
}

rig::Rig load(const char* relative)
{
    auto r = rig::importFile(testutil::assetPath(relative));
    if (!r.ok())
        qFatal("import %s: %s", relative, r.error().c_str());
    return std::move(r.value());
}

// ------------------------------------------------------------------------------------------------------------------
// Checks shared by several tests

using Pair = std::pair<uint32_t, float>;

std::vector<Pair> influencesOf(const rig::Mesh& m, size_t v)
{
    std::vector<Pair> out;
    for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i)
        out.emplace_back(m.influences[i].joint, m.influences[i].weight);
    std::sort(out.begin(), out.end());
    return out;
}

double weightSum(const rig::Mesh& m, size_t v)
{
    double s = 0;
    for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i)
        s += m.influences[i].weight;
    return s;
}

/// Empty when `m` holds exactly the file's POSITION and the non-zero (JOINTS_k, WEIGHTS_k) pairs of every vertex,
/// with skin-local joint k mapped to the node named after glTF skin joint k; else the first difference.
QString compareWithGltf(const rig::Rig& r, const rig::Mesh& m, const GltfFile& g, int gltfMesh, int gltfSkin)
{
    const QJsonObject attrs = g.at("meshes", gltfMesh)["primitives"].toArray()[0].toObject()["attributes"].toObject();
    const std::vector<double> pos = g.read(attrs["POSITION"].toInt());
    if (pos.size() != m.positions.size() * 3)
        return QStringLiteral("vertex count %1, file %2").arg(m.positions.size()).arg(pos.size() / 3);
    for (size_t v = 0; v < m.positions.size(); ++v)
        for (int c = 0; c < 3; ++c)
            if (m.positions[v][c] != float(pos[3 * v + c]))
                return QStringLiteral("position %1.%2 = %3, file %4 (node transform baked?)").arg(v).arg(c).arg(m.positions[v][c]).arg(pos[3 * v + c]);
    if (gltfSkin < 0)
        return {};

    const QJsonArray fileJoints = g.at("skins", gltfSkin)["joints"].toArray();
    const rig::Skin& skin = r.skins.at(size_t(m.skin));
    if (skin.joints.size() != size_t(fileJoints.size()))
        return QStringLiteral("skin has %1 joints, file %2").arg(skin.joints.size()).arg(fileJoints.size());
    for (int j = 0; j < fileJoints.size(); ++j)
        if (QString::fromStdString(r.skeleton.nodes.at(size_t(skin.joints[size_t(j)])).name) != g.nodeName(fileJoints[j].toInt()))
            return QStringLiteral("joint %1 is node %2").arg(j).arg(skin.joints[size_t(j)]);

    std::vector<std::vector<Pair>> expected(m.positions.size());
    for (int set = 0; attrs.contains(QStringLiteral("JOINTS_%1").arg(set)); ++set) {
        const std::vector<double> js = g.read(attrs[QStringLiteral("JOINTS_%1").arg(set)].toInt());
        const std::vector<double> ws = g.read(attrs[QStringLiteral("WEIGHTS_%1").arg(set)].toInt());
        for (size_t v = 0; v < m.positions.size(); ++v)
            for (int k = 0; k < 4; ++k)
                if (ws[4 * v + k] != 0.0)
                    expected[v].emplace_back(uint32_t(js[4 * v + k]), float(ws[4 * v + k]));
    }
    for (size_t v = 0; v < m.positions.size(); ++v) {
        std::sort(expected[v].begin(), expected[v].end());
        if (influencesOf(m, v) != expected[v])
            return QStringLiteral("influences of vertex %1 differ from the file").arg(v);
    }
    return {};
}

/// Structural invariants every imported rig must satisfy; empty when fine, else the first violation.
QString invariantProblem(const rig::Rig& r)
{
    const auto& nodes = r.skeleton.nodes;
    if (nodes.empty())
        return "no nodes";
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].parent < -1 || nodes[i].parent >= int(i))
            return QStringLiteral("node %1 has parent %2").arg(i).arg(nodes[i].parent);
    for (size_t s = 0; s < r.skins.size(); ++s) {
        const rig::Skin& skin = r.skins[s];
        if (skin.joints.size() != skin.inverseBind.size() || skin.joints.empty() || skin.joints.size() > 65534)
            return QStringLiteral("skin %1: %2 joints, %3 matrices").arg(s).arg(skin.joints.size()).arg(skin.inverseBind.size());
        for (int j : skin.joints)
            if (j < -1 || j >= int(nodes.size()))
                return QStringLiteral("skin %1: joint node %2").arg(s).arg(j);
    }
    if (r.meshes.empty())
        return "no meshes";
    for (size_t mi = 0; mi < r.meshes.size(); ++mi) {
        const rig::Mesh& m = r.meshes[mi];
        const size_t n = m.vertexCount();
        const QString who = QStringLiteral("mesh %1 '%2'").arg(mi).arg(QString::fromStdString(m.name));
        if (n == 0 || m.indices.empty() || m.indices.size() % 3 != 0)
            return who + ": empty or not a triangle list";
        if (m.node < 0 || m.node >= int(nodes.size()))
            return who + ": node out of range";
        if (m.normals.size() != n || (!m.tangents.empty() && m.tangents.size() != n) || (!m.uvs.empty() && m.uvs.size() != n))
            return who + ": attribute sizes";
        if (m.tangents.empty() && !m.uvs.empty())
            return who + ": UVs but no tangents";
        for (const glm::vec4& t : m.tangents)
            if (t.w != 1.0f && t.w != -1.0f && !(t == glm::vec4(0.0f)))
                return who + ": tangent handedness not +-1";
        for (uint32_t i : m.indices)
            if (i >= n)
                return who + ": index out of range";
        if (m.skin >= 0) {
            if (m.skin >= int(r.skins.size()) || m.influenceOffsets.size() != n + 1 || m.influenceOffsets[0] != 0 ||
                m.influenceOffsets.back() != m.influences.size())
                return who + ": influence CSR";
            for (size_t v = 0; v < n; ++v)
                if (m.influenceOffsets[v + 1] < m.influenceOffsets[v])
                    return who + ": offsets decrease";
            for (const rig::Influence& in : m.influences)
                if (in.weight == 0.0f) // raw joint indices may be out of range (the audit reports them); zeros never
                    return who + ": bad influence";
        } else if (!m.influenceOffsets.empty() || !m.influences.empty()) {
            return who + ": influences without a skin";
        }
        if (m.defaultMorphWeights.size() != m.morphTargets.size())
            return who + ": default morph weights";
        for (const rig::MorphTarget& t : m.morphTargets)
            if (t.positionDeltas.size() != n || (!t.normalDeltas.empty() && t.normalDeltas.size() != n) ||
                (!t.tangentDeltas.empty() && t.tangentDeltas.size() != n))
                return who + ": morph target sizes";
    }
    for (const rig::Clip& c : r.clips) {
        const QString who = QStringLiteral("clip '%1'").arg(QString::fromStdString(c.name));
        if (c.name.empty() || !std::isfinite(c.duration) || c.duration < 0)
            return who + ": name/duration";
        float maxTime = 0;
        auto sorted = [&maxTime](const std::vector<float>& t) {
            for (size_t i = 1; i < t.size(); ++i)
                if (!(t[i] >= t[i - 1]))
                    return false;
            if (!t.empty())
                maxTime = std::max(maxTime, t.back());
            return true;
        };
        for (const rig::JointChannel& j : c.joints) {
            if (j.node < 0 || j.node >= int(nodes.size()))
                return who + ": channel node";
            if (j.translation.times.size() != j.translation.values.size() || j.rotation.times.size() != j.rotation.values.size() ||
                j.scale.times.size() != j.scale.values.size())
                return who + ": track sizes";
            if (!sorted(j.translation.times) || !sorted(j.rotation.times) || !sorted(j.scale.times))
                return who + ": unsorted track";
        }
        for (const rig::MorphChannel& mc : c.morphs) {
            if (mc.mesh < 0 || mc.mesh >= int(r.meshes.size()))
                return who + ": morph channel mesh";
            const size_t targets = r.meshes[size_t(mc.mesh)].morphTargets.size();
            if (targets == 0 || mc.weights.size() != mc.times.size() * targets || !sorted(mc.times))
                return who + ": morph channel sizes";
        }
        if (maxTime != c.duration)
            return who + QStringLiteral(": duration %1, last key %2").arg(c.duration).arg(maxTime);
    }
    for (const rig::ImportNote& note : r.notes)
        if (note.message.empty() || note.message.find('\n') != std::string::npos)
            return "a note is empty or not one line";
    return {};
}

bool hasNote(const rig::Rig& r, rig::ImportNote::Severity severity, const std::string& part)
{
    return std::any_of(r.notes.begin(), r.notes.end(), [&](const rig::ImportNote& n) {
        return n.severity == severity && n.message.find(part) != std::string::npos;
    });
}

QString notesOf(const rig::Rig& r)
{
    QStringList out;
    for (const rig::ImportNote& n : r.notes)
        out << QString::fromStdString(n.message);
    return out.join(" | ");
}

bool isCleanFailure(const std::string& message, const std::string& name)
{
    return message.size() > name.size() + 2 && message.compare(0, name.size() + 2, name + ": ") == 0 &&
           message.find('\n') == std::string::npos;
}

// Hand-made glTF files (one base64 buffer), for the cases no real asset has.
using GltfBuilder = testgltf::Builder;

rig::Result<rig::Rig> importBytes(const QByteArray& bytes, const char* hint, const std::string& name)
{
    return rig::importMemory(bytes.constData(), size_t(bytes.size()), hint, name);
}


// ------------------------------------------------------------------------------------------------------------------
// Scenes built by hand as aiScene and round-tripped through Assimp's own binary format (assbin), which keeps what
// the format readers would filter: negative and NaN weights, NaN positions, point faces inside a triangle mesh.

aiNode* newNode(const char* name, aiNode* parent)
{
    aiNode* n = new aiNode(name);
    if (parent) {
        aiNode** children = new aiNode*[parent->mNumChildren + 1];
        for (unsigned i = 0; i < parent->mNumChildren; ++i)
            children[i] = parent->mChildren[i];
        children[parent->mNumChildren] = n;
        delete[] parent->mChildren;
        parent->mChildren = children;
        ++parent->mNumChildren;
        n->mParent = parent;
    }
    return n;
}

aiBone* newBone(const char* name, std::vector<aiVertexWeight> weights, float offsetY)
{
    aiBone* b = new aiBone;
    b->mName = name;
    b->mNumWeights = unsigned(weights.size());
    b->mWeights = new aiVertexWeight[weights.size()];
    std::copy(weights.begin(), weights.end(), b->mWeights);
    b->mOffsetMatrix.b4 = offsetY; // row-major: b4 is the y translation
    return b;
}

/// A triangle (plus a point face, plus a NaN vertex) skinned to 'bone' and to a 'ghost' that names no node.
aiMesh* newSkinnedTriangle(const char* name)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    aiMesh* m = new aiMesh;
    m->mName = name;
    m->mPrimitiveTypes = aiPrimitiveType_TRIANGLE | aiPrimitiveType_POINT;
    m->mNumVertices = 4;
    m->mVertices = new aiVector3D[4]{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {nan, 0, 0}};
    m->mNumFaces = 2;
    m->mFaces = new aiFace[2];
    m->mFaces[0].mNumIndices = 3;
    m->mFaces[0].mIndices = new unsigned[3]{0, 1, 2};
    m->mFaces[1].mNumIndices = 1;
    m->mFaces[1].mIndices = new unsigned[1]{3};
    m->mNumBones = 2;
    m->mBones = new aiBone*[2];
    m->mBones[0] = newBone("bone", {{0, -0.5f}, {1, nan}, {2, 0.0f}}, -2.0f);
    m->mBones[1] = newBone("ghost", {{2, 2.5f}, {3, 1.0f}}, 0.0f);
    return m;
}

QByteArray toAssbin(aiScene* scene)
{
    Assimp::Exporter exporter;
    const aiExportDataBlob* blob = exporter.ExportToBlob(scene, "assbin");
    delete scene;
    if (!blob)
        qFatal("assbin export failed: %s", exporter.GetErrorString());
    return QByteArray(static_cast<const char*>(blob->data), qsizetype(blob->size));
}

} // namespace

class TestImport : public QObject {
    Q_OBJECT

private slots:
    void version()
    {
        const QString v = QString::fromStdString(rig::assimpVersion());
        QVERIFY2(QRegularExpression("^5\\.\\d+\\.\\d+$").match(v).hasMatch(), qPrintable(v));
    }

    void simpleSkin()
    {
        REQUIRE_ASSETS();
        const rig::Rig r = load("SimpleSkin/SimpleSkin.gltf");
        const GltfFile g = gltf("SimpleSkin/SimpleSkin.gltf");
        QCOMPARE(r.skeleton.nodes.size(), size_t(3));
        QCOMPARE(r.meshes.size(), size_t(1));
        const rig::Mesh& m = r.meshes[0];
        QCOMPARE(m.vertexCount(), size_t(10));
        QCOMPARE(m.triangleCount(), size_t(8));
        QCOMPARE(r.skins.size(), size_t(1));
        QCOMPARE(r.jointCount(), size_t(2));
        QCOMPARE(m.node, 0);
        QVERIFY(m.isSkinned());
        // Hierarchy: nodes[0] (mesh) is the root, nodes[1] its child, nodes[2] the child of nodes[1].
        QCOMPARE(r.skeleton.nodes[1].name, std::string("nodes[1]"));
        QCOMPARE(r.skeleton.nodes[1].parent, 0);
        QCOMPARE(r.skeleton.nodes[2].parent, 1);
        // nodes[2] sits 1 up its parent in the file: column-major translation must land in column 3.
        const glm::mat4& rest2 = r.skeleton.nodes[2].restMatrix;
        const QJsonArray t2 = g.at("nodes", 2)["translation"].toArray();
        for (int c = 0; c < 3; ++c)
            QCOMPARE(rest2[3][c], float(t2[c].toDouble()));
        QVERIFY(!r.skeleton.nodes[2].restHasShear);

        // Inverse bind matrix of joint 1 equals the file's (glTF stores matrices column-major, as glm does).
        const std::vector<double> ibm = g.read(g.at("skins", 0)["inverseBindMatrices"].toInt());
        QCOMPARE(ibm.size(), size_t(32));
        const glm::mat4& ib1 = r.skins[0].inverseBind[1];
        for (int c = 0; c < 4; ++c)
            for (int row = 0; row < 4; ++row)
                QCOMPARE(ib1[c][row], float(ibm[16 + 4 * c + row]));
        QCOMPARE(ib1[3][1], -1.0f); // the telling entry: a y translation, in column 3 (transposed it would be [1][3])

        const QString diff = compareWithGltf(r, m, g, 0, 0);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        // Normals are not in the file: generated, flagged, noted; no UVs: no tangents.
        QVERIFY(m.normalsGenerated);
        QVERIFY(m.tangents.empty());
        QVERIFY(hasNote(r, rig::ImportNote::Severity::Info, "no normals in the file, generated from the rest triangles"));
        QVERIFY(hasNote(r, rig::ImportNote::Severity::Info, "no UV0: tangents undefined"));
        // The strip lies in z = 0: generated normals are ±z.
        for (const glm::vec3& n : m.normals)
            RS_COMPARE_NEAR(std::fabs(n.z), 1.0, 1e-6);

        // One clip: nodes[2] rotation, 12 keys, times in seconds from the file's sampler input.
        QCOMPARE(r.clips.size(), size_t(1));
        const rig::Clip& clip = r.clips[0];
        QCOMPARE(clip.name, std::string("clip0"));
        RS_COMPARE_NEAR(clip.duration, 5.5, 1e-6);
        QCOMPARE(clip.joints.size(), size_t(1));
        QCOMPARE(clip.joints[0].node, 2);
        QCOMPARE(clip.joints[0].rotation.times.size(), size_t(12));
        QCOMPARE(clip.joints[0].rotation.interpolation, rig::Interpolation::Linear);
        const std::vector<double> times = g.read(5);
        const std::vector<double> quats = g.read(6);
        for (size_t k = 0; k < 12; ++k) {
            RS_COMPARE_NEAR(clip.joints[0].rotation.times[k], times[k], 1e-6);
            const glm::quat q = clip.joints[0].rotation.values[k];
            RS_COMPARE_NEAR(q.x, quats[4 * k + 0], 1e-7);
            RS_COMPARE_NEAR(q.y, quats[4 * k + 1], 1e-7);
            RS_COMPARE_NEAR(q.z, quats[4 * k + 2], 1e-7);
            RS_COMPARE_NEAR(q.w, quats[4 * k + 3], 1e-7);
        }
        QVERIFY2(invariantProblem(r).isEmpty(), qPrintable(invariantProblem(r)));
    }

    void cesiumManWeightsStayRaw()
    {
        REQUIRE_ASSETS();
        const rig::Rig r = load("CesiumMan/cesium_man.gltf");
        QCOMPARE(r.jointCount(), size_t(19));
        QCOMPARE(r.meshes.size(), size_t(1));
        const rig::Mesh& m = r.meshes[0];
        QCOMPARE(m.vertexCount(), size_t(3273));
        QCOMPARE(m.triangleCount(), size_t(4672));
        size_t off = 0;
        double minSum = 1e9;
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            const double s = weightSum(m, v);
            if (std::fabs(s - 1.0) > 1e-3)
                ++off;
            minSum = std::min(minSum, s);
        }
        QCOMPARE(off, size_t(210));
        RS_COMPARE_NEAR(minSum, 0.185, 0.001);
        // Every influence and every position is the file's; the mesh node's transform is not baked in.
        const QString diff = compareWithGltf(r, m, gltf("CesiumMan/cesium_man.gltf"), 0, 0);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QVERIFY(!m.normalsGenerated);
        QVERIFY(m.tangentsGenerated); // UVs, no TANGENT
        QCOMPARE(r.clips.size(), size_t(1));
        QCOMPARE(r.clips[0].joints.size(), size_t(19));
        RS_COMPARE_NEAR(r.clips[0].duration, 2.0, 1e-6);
        // COLLADA2GLTF's Z_UP root: a 90° rotation about x, decomposed exactly.
        const rig::Node& root = r.skeleton.nodes[0];
        QCOMPARE(root.parent, -1);
        QVERIFY(!root.restHasShear);
        RS_COMPARE_NEAR(std::fabs(glm::angle(root.rest.rotation)), glm::half_pi<float>(), 1e-6);
        RS_COMPARE_NEAR(glm::length(root.rest.matrix()[2] - root.restMatrix[2]), 0.0, 1e-6);
    }

    void quadSkinTenInfluencesAndNodeTransformNotBaked()
    {
        REQUIRE_ASSETS();
        const rig::Rig r = load("assimp_simple_skin/quad_skin.glb");
        const GltfFile g = gltf("assimp_simple_skin/quad_skin.glb");
        QCOMPARE(r.meshes.size(), size_t(1));
        const rig::Mesh& m = r.meshes[0];
        QCOMPARE(m.vertexCount(), size_t(4));
        QCOMPARE(r.skins[0].joints.size(), size_t(10));
        size_t maxInfluences = 0;
        for (size_t v = 0; v < m.vertexCount(); ++v)
            maxInfluences = std::max<size_t>(maxInfluences, m.influenceOffsets[v + 1] - m.influenceOffsets[v]);
        QCOMPARE(maxInfluences, size_t(10));
        // The skinned mesh's node 'Plane' carries a ×100 scale and a 90° turn; positions stay the file's.
        const rig::Node& plane = r.skeleton.nodes.at(size_t(m.node));
        QCOMPARE(plane.name, std::string("Plane"));
        RS_COMPARE_NEAR(glm::length(glm::vec3(plane.restMatrix[0])), 100.0, 1e-3);
        const QString diff = compareWithGltf(r, m, g, 0, 0);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        // File normals, file UVs, no tangents in the file: generated from UV0.
        QVERIFY(!m.normalsGenerated);
        QVERIFY(m.tangentsGenerated);
        QCOMPARE(m.tangents.size(), size_t(4));
    }

    void multiJointSetSumsToTwo()
    {
        REQUIRE_ASSETS();
        const rig::Rig r = load("SimpleSkin_multi_joint_set/SimpleSkin-multi-joint-set.gltf");
        const rig::Mesh& m = r.meshes.at(0);
        QCOMPARE(m.vertexCount(), size_t(10));
        for (size_t v = 0; v < m.vertexCount(); ++v)
            RS_COMPARE_NEAR(weightSum(m, v), 2.0, 1e-6);
        const QString diff = compareWithGltf(r, m, gltf("SimpleSkin_multi_joint_set/SimpleSkin-multi-joint-set.gltf"), 0, 0);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void foxGeneratedFramesAndClips()
    {
        REQUIRE_ASSETS();
        const rig::Rig r = load("Fox/Fox.glb");
        QCOMPARE(r.meshes.size(), size_t(1));
        const rig::Mesh& m = r.meshes[0];
        QVERIFY(m.normalsGenerated);
        QVERIFY(m.tangentsGenerated);
        QCOMPARE(m.vertexCount(), size_t(1728));
        QCOMPARE(m.tangents.size(), m.vertexCount());
        QCOMPARE(r.jointCount(), size_t(24));
        QVERIFY(hasNote(r, rig::ImportNote::Severity::Info, "mesh 'fox1': no normals in the file, generated from the rest triangles"));
        size_t unit = 0;
        for (const glm::vec3& n : m.normals)
            unit += std::fabs(glm::length(n) - 1.0f) < 1e-5f ? 1 : 0;
        QCOMPARE(unit, m.vertexCount()); // every vertex is on a non-degenerate triangle
        // Generated tangents are unit, perpendicular to the normals, and handed ±1.
        for (size_t v = 0; v < m.vertexCount(); ++v) {
            const glm::vec4 t = m.tangents[v];
            if (t == glm::vec4(0.0f))
                continue;
            RS_COMPARE_NEAR(glm::length(glm::vec3(t)), 1.0, 1e-5);
            RS_COMPARE_NEAR(glm::dot(glm::vec3(t), m.normals[v]), 0.0, 1e-5);
        }
        QCOMPARE(r.clips.size(), size_t(3));
        QCOMPARE(r.clips[0].name, std::string("Survey"));
        QCOMPARE(r.clips[1].name, std::string("Walk"));
        QCOMPARE(r.clips[2].name, std::string("Run"));
        RS_COMPARE_NEAR(r.clips[1].duration, 0.708333, 1e-5);
        QCOMPARE(r.findClip("Run"), 2);
        const QString diff = compareWithGltf(r, m, gltf("Fox/Fox.glb"), 0, 0);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    void animatedMorphCubeDeltas()
    {
        REQUIRE_ASSETS();
        const rig::Rig r = load("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf");
        const GltfFile g = gltf("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf");
        QCOMPARE(r.meshes.size(), size_t(1));
        const rig::Mesh& m = r.meshes[0];
        QCOMPARE(m.vertexCount(), size_t(24));
        QCOMPARE(m.morphTargets.size(), size_t(2));
        QCOMPARE(m.defaultMorphWeights, (std::vector<float>{0.0f, 0.0f}));
        QVERIFY(m.hasTangents());
        QVERIFY(!m.tangentsGenerated); // file tangents are kept even without UVs
        QCOMPARE(m.morphTargets[0].name, std::string("target0"));
        // File tangents with their handedness recovered from Assimp's bitangents: equal to the file's TANGENT.
        const std::vector<double> fileTangents = g.read(1);
        for (size_t v = 0; v < 24; ++v)
            for (int c = 0; c < 4; ++c)
                RS_COMPARE_NEAR(m.tangents[v][c], fileTangents[4 * v + c], 1e-6);

        // glTF morph accessors ARE deltas; Assimp makes them absolute; the import must give the file's deltas back.
        const QJsonArray targets = g.at("meshes", 0)["primitives"].toArray()[0].toObject()["targets"].toArray();
        const std::vector<double> basePos = g.read(2);
        for (int t = 0; t < 2; ++t) {
            const rig::MorphTarget& mt = m.morphTargets[size_t(t)];
            QCOMPARE(mt.normalDeltas.size(), size_t(24));
            QCOMPARE(mt.tangentDeltas.size(), size_t(24));
            const std::vector<double> dp = g.read(targets[t].toObject()["POSITION"].toInt());
            const std::vector<double> dn = g.read(targets[t].toObject()["NORMAL"].toInt());
            const std::vector<double> dt = g.read(targets[t].toObject()["TANGENT"].toInt());
            double maxNormalDelta = 0, maxTangentDelta = 0;
            for (size_t v = 0; v < 24; ++v)
                for (int c = 0; c < 3; ++c) {
                    // (base + d) - base in float: exact to one rounding of the sum.
                    const double tol = 1e-6 * (1.0 + std::fabs(basePos[3 * v + c]));
                    RS_COMPARE_NEAR(mt.positionDeltas[v][c], dp[3 * v + c], tol);
                    RS_COMPARE_NEAR(mt.normalDeltas[v][c], dn[3 * v + c], 1e-6);
                    RS_COMPARE_NEAR(mt.tangentDeltas[v][c], dt[3 * v + c], 1e-6);
                    maxNormalDelta = std::max(maxNormalDelta, std::fabs(double(mt.normalDeltas[v][c])));
                    maxTangentDelta = std::max(maxTangentDelta, std::fabs(double(mt.tangentDeltas[v][c])));
                }
            // In this file target 0 ('thin') moves positions only; target 1 ('angle') also turns normals.
            if (t == 0)
                QCOMPARE(maxNormalDelta, 0.0);
            else
                RS_COMPARE_NEAR(maxNormalDelta, 0.7051690816879272, 1e-6);
            QCOMPARE(maxTangentDelta, 0.0); // both tangent targets are zero in the file
        }
        // The base is not displaced, and one hand-decoded value pins the decoder: target 0 lifts vertex 2 in y.
        for (size_t v = 0; v < 24; ++v)
            QCOMPARE(m.positions[v].y, float(basePos[3 * v + 1]));
        RS_COMPARE_NEAR(m.morphTargets[0].positionDeltas[2].y, 0.018932530656456947, 1e-8);
        RS_COMPARE_NEAR(m.morphTargets[0].positionDeltas[2].x, 0.0, 1e-9);

        // Morph animation 'Square': one channel on mesh 0, two weights per key, times in seconds.
        QCOMPARE(r.clips.size(), size_t(1));
        const rig::Clip& c = r.clips[0];
        QCOMPARE(c.name, std::string("Square"));
        QCOMPARE(c.morphs.size(), size_t(1));
        QCOMPARE(c.morphs[0].mesh, 0);
        QCOMPARE(c.morphs[0].times.size(), size_t(127));
        QCOMPARE(c.morphs[0].weights.size(), size_t(254));
        const std::vector<double> in = g.read(10), out = g.read(11);
        for (size_t k = 0; k < 127; ++k) {
            RS_COMPARE_NEAR(c.morphs[0].times[k], in[k], 1e-6);
            RS_COMPARE_NEAR(c.morphs[0].weights[2 * k], out[2 * k], 1e-6);
            RS_COMPARE_NEAR(c.morphs[0].weights[2 * k + 1], out[2 * k + 1], 1e-6);
        }
        RS_COMPARE_NEAR(c.duration, in.back(), 1e-6);
        QVERIFY2(invariantProblem(r).isEmpty(), qPrintable(invariantProblem(r)));
    }

    void morphChannelsMapToEveryMeshOfTheNode()
    {
        REQUIRE_ASSETS();
        // MorphStressTest: one node 'Main' holds two primitives (two aiMeshes) with 8 targets each; the channel is
        // named after the node and must drive both.
        const rig::Rig r = load("MorphStressTest/glTF/MorphStressTest.gltf");
        QCOMPARE(r.meshes.size(), size_t(2));
        QCOMPARE(r.meshes[0].morphTargets.size(), size_t(8));
        QCOMPARE(r.meshes[1].morphTargets.size(), size_t(8));
        QCOMPARE(r.meshes[1].morphTargets[7].name, std::string("Key 8"));
        QVERIFY(r.meshes[1].morphTargets[0].tangentDeltas.empty());
        QCOMPARE(r.meshes[1].morphTargets[0].normalDeltas.size(), r.meshes[1].vertexCount());
        QCOMPARE(r.clips.size(), size_t(3));
        for (const rig::Clip& c : r.clips) {
            QCOMPARE(c.morphs.size(), size_t(2));
            QCOMPARE(c.morphs[0].mesh, 0);
            QCOMPARE(c.morphs[1].mesh, 1);
            QCOMPARE(c.morphs[0].weights, c.morphs[1].weights);
        }
        QCOMPARE(r.clips[0].name, std::string("Individuals"));
        QCOMPARE(r.clips[0].morphs[0].times.size(), size_t(281));

        // RobotExpressive: morph meshes are unskinned children of bones; channels 'Head_2..4' name their nodes.
        const rig::Rig robot = load("RobotExpressive/RobotExpressive.glb");
        QCOMPARE(robot.clips.size(), size_t(14));
        QCOMPARE(robot.morphTargetCount(), size_t(9));
        QCOMPARE(robot.jointCount(), size_t(43));
        for (const rig::Clip& c : robot.clips) {
            QCOMPARE(c.morphs.size(), size_t(3));
            for (const rig::MorphChannel& mc : c.morphs) {
                const rig::Mesh& target = robot.meshes.at(size_t(mc.mesh));
                QCOMPARE(target.morphTargets.size(), size_t(3));
                QVERIFY(!target.isSkinned());
                QVERIFY(robot.skeleton.nodes[size_t(target.node)].name.rfind("Head_", 0) == 0);
            }
        }
        QCOMPARE(robot.meshes[3].morphTargets[0].name, std::string("Angry"));
        // Four glTF skins with identical joints and matrices are shared as one.
        QCOMPARE(robot.skins.size(), size_t(1));
        QVERIFY2(invariantProblem(robot).isEmpty(), qPrintable(invariantProblem(robot)));

        // SimpleMorph: glTF mesh.weights [0.5, 0.5] become the default weights.
        const rig::Rig simple = load("SimpleMorph/glTF/SimpleMorph.gltf");
        QCOMPARE(simple.meshes.at(0).defaultMorphWeights, (std::vector<float>{0.5f, 0.5f}));
    }

    void everyAsset_data()
    {
        REQUIRE_ASSETS(); // skips every row
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("joints"); // expected distinct joints (INVENTORY.md); -1: not checked; -2: may fail
        const std::map<QString, int> joints{
            {"SimpleSkin.gltf", 2},     {"simple_skin.gltf", 2},  {"quad_skin.glb", 10},
            {"SimpleSkin-multi-joint-set.gltf", 2}, {"rigged_simple.gltf", 2}, {"RiggedFigure.gltf", 19},
            {"cesium_man.gltf", 19},    {"Fox.glb", 24},          {"RobotExpressive.glb", 43},
            {"seymour.dae", 19},        {"astro_maya.dae", 44},   {"animation_with_skeleton.fbx", 14},
            {"huesitos.fbx", 9},        {"BCN_Epileptic.X", 54},  {"SimpleMorph.gltf", 0},
            {"AnimatedMorphCube.gltf", 0}, {"AnimatedMorphSphere.gltf", 0}, {"MorphPrimitivesTest.gltf", 0},
            {"MorphStressTest.gltf", 0}, {"negativeScaleQuad.gltf", 0}};
        const QString root = QString::fromStdString(testutil::assetPath(""));
        // Collada: every joint of the controller is a skin joint (empty bones are kept); INVENTORY's "bones used"
        // (16 and 43) is checked in inventoryFacts.
        QDirIterator it(root, {"*.gltf", "*.glb", "*.fbx", "*.dae", "*.x", "*.X"}, QDir::Files, QDirIterator::Subdirectories);
        QStringList files;
        while (it.hasNext())
            files << it.next();
        files.sort();
        QVERIFY(files.size() >= 21);
        for (const QString& f : files) {
            const QString base = QFileInfo(f).fileName();
            const auto j = joints.find(base);
            QTest::newRow(qPrintable(base)) << f << (j == joints.end() ? -1 : j->second);
        }
        // The hand-broken fixtures of tests/data/broken (if present): they may fail, but only cleanly.
        QDirIterator broken(QStringLiteral(RIGSCOPE_TEST_DATA_DIR "/broken"), {"*.gltf", "*.glb"}, QDir::Files);
        QStringList brokenFiles;
        while (broken.hasNext())
            brokenFiles << broken.next();
        brokenFiles.sort();
        for (const QString& f : brokenFiles)
            QTest::newRow(qPrintable("broken/" + QFileInfo(f).fileName())) << f << -2;
    }

    void everyAsset()
    {
        REQUIRE_ASSETS();
        QFETCH(QString, path);
        QFETCH(int, joints);
        const std::string p = path.toStdString();
        const auto r = rig::importFile(p);
        if (!r.ok()) {
            QVERIFY2(isCleanFailure(r.error(), p), r.error().c_str());
            QVERIFY2(joints == -2 || path.contains("library_animation_clips"),
                     qPrintable("unexpected failure: " + QString::fromStdString(r.error())));
            return;
        }
        const QString problem = invariantProblem(r.value());
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(r->source, p);
        if (joints >= 0)
            QCOMPARE(int(r->jointCount()), joints);
        // Memory import of the same bytes agrees (self-contained files only).
        if (path.endsWith(".glb") || path.endsWith(".fbx") || path.endsWith(".X") || path.endsWith(".dae")) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray bytes = f.readAll();
            const auto mem = importBytes(bytes, qPrintable(QFileInfo(path).suffix().toLower()), "mem");
            QVERIFY2(mem.ok(), mem.ok() ? "" : mem.error().c_str());
            QCOMPARE(mem->vertexCount(), r->vertexCount());
            QCOMPARE(mem->skeleton.nodes.size(), r->skeleton.nodes.size());
            QCOMPARE(mem->source, std::string("mem"));
        }
    }

    void inventoryFacts()
    {
        REQUIRE_ASSETS();
        // Collada: seymour has up to 5 raw influences per vertex; FBX_animation_with_skeleton: every vertex's weights
        // sum != 1, up to 6 influences; huesitos: 240 of 256 not normalised; BCN: 3 skinned meshes, 15378 vertices.
        auto maxInfluences = [](const rig::Rig& r) {
            size_t most = 0;
            for (const rig::Mesh& m : r.meshes)
                for (size_t v = 0; v < m.vertexCount() && m.isSkinned(); ++v)
                    most = std::max<size_t>(most, m.influenceOffsets[v + 1] - m.influenceOffsets[v]);
            return most;
        };
        auto offSums = [](const rig::Rig& r) {
            size_t off = 0;
            for (const rig::Mesh& m : r.meshes)
                for (size_t v = 0; v < m.vertexCount() && m.isSkinned(); ++v)
                    off += std::fabs(weightSum(m, v) - 1.0) > 1e-3 ? 1 : 0;
            return off;
        };
        auto usedJoints = [](const rig::Rig& r) {
            std::set<int> used;
            for (const rig::Mesh& m : r.meshes)
                for (const rig::Influence& in : m.influences)
                    used.insert(r.skins[size_t(m.skin)].joints[in.joint]);
            return used.size();
        };
        const rig::Rig seymour = load("Collada_seymour/seymour.dae");
        QCOMPARE(maxInfluences(seymour), size_t(5));
        QCOMPARE(usedJoints(seymour), size_t(16));
        QCOMPARE(usedJoints(load("Collada_astro_maya/astro_maya.dae")), size_t(43));
        const rig::Rig fbx = load("FBX_animation_with_skeleton/animation_with_skeleton.fbx");
        QCOMPARE(maxInfluences(fbx), size_t(6));
        QCOMPARE(offSums(fbx), fbx.vertexCount());
        const rig::Rig huesitos = load("FBX_huesitos/huesitos.fbx");
        QCOMPARE(huesitos.vertexCount(), size_t(256));
        QCOMPARE(offSums(huesitos), size_t(240));
        QCOMPARE(huesitos.clips.size(), size_t(1));
        RS_COMPARE_NEAR(huesitos.clips[0].duration, 39.0 / 25.0, 1e-6); // FBX: 25 ticks per second here
        const rig::Rig bcn = load("X_BCN_Epileptic/BCN_Epileptic.X");
        QCOMPARE(bcn.vertexCount(), size_t(15378));
        QCOMPARE(bcn.meshes.size(), size_t(3));
        for (const rig::Mesh& m : bcn.meshes)
            QVERIFY(m.isSkinned());
        RS_COMPARE_NEAR(bcn.clips.at(0).duration, 15840.0 / 4800.0, 1e-5);
        // negativeScaleQuad: det < 0 node, represented exactly by TRS with a negative scale.
        const rig::Rig quad = load("negativeScaleQuad/negativeScaleQuad.gltf");
        const rig::Node& n = quad.skeleton.nodes[0];
        QVERIFY(glm::determinant(glm::mat3(n.restMatrix)) < 0.0f);
        QVERIFY(!n.restHasShear);
        const glm::mat4 back = n.rest.matrix();
        for (int c = 0; c < 4; ++c)
            RS_COMPARE_NEAR(glm::length(back[c] - n.restMatrix[c]), 0.0, 1e-5);
    }

    void colladaLibraryAnimationClipsFailsCleanly()
    {
        REQUIRE_ASSETS();
        const std::string p = testutil::assetPath("Collada_library_animation_clips/library_animation_clips.dae");
        const auto r = rig::importFile(p);
        QVERIFY(!r.ok());
        QVERIFY2(isCleanFailure(r.error(), p), r.error().c_str());
        // Assimp's own reason, with the quoted file text intact (spaces are not collapsed).
        QVERIFY2(r.error().find("Cannot parse string \"  0.0 0.0 0.0 1.0  \" as a real number") != std::string::npos,
                 r.error().c_str());
    }

    void missingAndInvalidFiles()
    {
        const std::string missing = testutil::assetPath("no/such/file.gltf");
        auto r = rig::importFile(missing);
        QVERIFY(!r.ok());
        QCOMPARE(r.error(), missing + ": no such file");

        const std::string dir = testutil::assetPath("SimpleSkin");
        r = rig::importFile(dir);
        QVERIFY(!r.ok());
        QVERIFY2(isCleanFailure(r.error(), dir), r.error().c_str());

        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        QByteArray garbage;
        uint32_t x = 12345;
        for (int i = 0; i < 4096; ++i) {
            x = x * 1664525u + 1013904223u;
            garbage.append(char(x >> 24));
        }
        for (const char* name : {"garbage.bin", "garbage.glb", "garbage.gltf", "garbage.fbx", "garbage.dae", "garbage.x", "empty.gltf"}) {
            const QString file = tmp.filePath(name);
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            if (QByteArray(name) != "empty.gltf")
                f.write(garbage);
            f.close();
            const std::string p = file.toStdString();
            const auto g = rig::importFile(p);
            QVERIFY2(!g.ok(), name);
            QVERIFY2(isCleanFailure(g.error(), p), g.error().c_str());
        }

        r = rig::importMemory(nullptr, 0, "glb", "nothing");
        QVERIFY(!r.ok());
        QCOMPARE(r.error(), std::string("nothing: empty buffer"));
        r = importBytes(garbage, "glb", "junk");
        QVERIFY(!r.ok());
        QVERIFY2(isCleanFailure(r.error(), "junk"), r.error().c_str());
        r = importBytes(garbage, "../x", "junk");
        QVERIFY(!r.ok());
        QVERIFY2(isCleanFailure(r.error(), "junk"), r.error().c_str());
    }

    void truncatedGlbNeverCrashes()
    {
        REQUIRE_ASSETS();
        QFile f(QString::fromStdString(testutil::assetPath("Fox/Fox.glb")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        int failed = 0;
        for (qsizetype cut : {qsizetype(1), qsizetype(12), qsizetype(19), qsizetype(20), qsizetype(100), qsizetype(1000),
                              bytes.size() / 4, bytes.size() / 2, bytes.size() - 5000, bytes.size() - 1}) {
            const auto r = importBytes(bytes.left(cut), "glb", "cut");
            if (!r.ok()) {
                ++failed;
                QVERIFY2(isCleanFailure(r.error(), "cut"), r.error().c_str());
            } else {
                QVERIFY2(invariantProblem(r.value()).isEmpty(), qPrintable(invariantProblem(r.value())));
            }
        }
        QVERIFY(failed > 0);
        // Corrupted bytes in the middle of the binary chunk (accessor data): loads or fails, never crashes.
        QByteArray corrupt = bytes;
        for (qsizetype i = bytes.size() / 3; i < bytes.size() / 3 + 4096; ++i)
            corrupt[i] = char(0xff);
        const auto r = importBytes(corrupt, "glb", "corrupt");
        if (r.ok())
            QVERIFY2(invariantProblem(r.value()).isEmpty(), qPrintable(invariantProblem(r.value())));
        else
            QVERIFY2(isCleanFailure(r.error(), "corrupt"), r.error().c_str());
    }

    void memoryBudget()
    {
        REQUIRE_ASSETS();
        // BCN_Epileptic: 15378 vertices with normals, UVs (tangents generated) and influences: well over 1 MiB.
        const std::string p = testutil::assetPath("X_BCN_Epileptic/BCN_Epileptic.X");
        rig::ImportOptions small;
        small.memoryBudgetBytes = size_t(1) << 20;
        auto r = rig::importFile(p, small);
        QVERIFY(!r.ok());
        const QRegularExpression form("^" + QRegularExpression::escape(QString::fromStdString(p)) +
                                      ": needs (\\d+) MiB, over the 1 MiB budget$");
        const QRegularExpressionMatch match = form.match(QString::fromStdString(r.error()));
        QVERIFY2(match.hasMatch(), r.error().c_str());
        QVERIFY(match.captured(1).toInt() >= 2);
        rig::ImportOptions enough;
        enough.memoryBudgetBytes = size_t(match.captured(1).toInt()) << 20;
        QVERIFY(rig::importFile(p, enough).ok());

        const std::string tiny = testutil::assetPath("SimpleSkin/SimpleSkin.gltf");
        rig::ImportOptions none;
        none.memoryBudgetBytes = 0;
        r = rig::importFile(tiny, none);
        QVERIFY(!r.ok());
        QCOMPARE(r.error(), tiny + ": needs 1 MiB, over the 0 MiB budget");
    }

    void handMadeSkinNodesAndTracks()
    {
        // Two joints (nodes 1, 2) under a mesh node moved by +5 in x; vertex weights: (1.5, 0.25), (0.7, -0.2),
        // (NaN, 1). One TRS node, one sheared matrix node, one mirrored matrix node, one non-finite matrix node,
        // a sorted translation track and an unsorted rotation track.
        GltfBuilder b;
        const int pos = b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", true);
        const int idx = b.u16({0, 1, 2}, "SCALAR");
        const int joints = b.u16({0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}, "VEC4");
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const int weights = b.floats({1.5f, 0.25f, 0, 0, 0.7f, -0.2f, 0, 0, nan, 1.0f, 0, 0}, "VEC4");
        const int normals = b.floats({0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3");
        const int tangents = b.floats({1, 0, 0, -1, 1, 0, 0, 1, 0, 1, 0, -1}, "VEC4");
        std::vector<float> ibm;
        for (int j = 0; j < 2; ++j) {
            const float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -float(j), -2.0f * float(j), 0, 1};
            ibm.insert(ibm.end(), m, m + 16);
        }
        const int ibmAcc = b.floats(ibm, "MAT4");
        const int tIn = b.floats({0, 1, 3}, "SCALAR");
        const int tOut = b.floats({0, 0, 0, 1, 0, 0, 2, 0, 0}, "VEC3");
        const int rIn = b.floats({0, 2, 1}, "SCALAR");
        const int rOut = b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, "VEC4");

        const double s = std::sqrt(0.5);
        QJsonObject root;
        root["scene"] = 0;
        root["scenes"] = QJsonArray{QJsonObject{{"nodes", QJsonArray{0, 3, 4, 5, 6}}}};
        root["nodes"] = QJsonArray{
            QJsonObject{{"name", "body"}, {"mesh", 0}, {"skin", 0}, {"translation", QJsonArray{5, 0, 0}}, {"children", QJsonArray{1}}},
            QJsonObject{{"name", "hip"}, {"children", QJsonArray{2}}},
            QJsonObject{{"name", "knee"}, {"translation", QJsonArray{0, 2, 0}}},
            QJsonObject{{"name", "trs"}, {"translation", QJsonArray{1, 2, 3}}, {"rotation", QJsonArray{0, 0, s, s}},
                        {"scale", QJsonArray{2, 3, 4}}},
            QJsonObject{{"name", "sheared"}, {"matrix", QJsonArray{1, 0, 0, 0, 0.5, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}}},
            QJsonObject{{"name", "mirrored"}, {"matrix", QJsonArray{-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 7, 0, 0, 1}}},
            QJsonObject{{"name", "infinite"}, {"matrix", QJsonArray{1e39, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}}}};
        root["meshes"] = QJsonArray{QJsonObject{
            {"name", "tri"},
            {"primitives", QJsonArray{QJsonObject{{"attributes", QJsonObject{{"POSITION", pos}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights},
                                                                                  {"NORMAL", normals}, {"TANGENT", tangents}}},
                                                  {"indices", idx}}}}}};
        root["skins"] = QJsonArray{QJsonObject{{"joints", QJsonArray{1, 2}}, {"inverseBindMatrices", ibmAcc}}};
        root["animations"] = QJsonArray{QJsonObject{
            {"name", "move"},
            {"samplers", QJsonArray{QJsonObject{{"input", tIn}, {"output", tOut}}, QJsonObject{{"input", rIn}, {"output", rOut}}}},
            {"channels", QJsonArray{QJsonObject{{"sampler", 0}, {"target", QJsonObject{{"node", 1}, {"path", "translation"}}}},
                                    QJsonObject{{"sampler", 1}, {"target", QJsonObject{{"node", 2}, {"path", "rotation"}}}}}}}};
        const QByteArray json = b.gltf(root);

        const auto r = importBytes(json, "gltf", "handmade");
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
        QVERIFY2(invariantProblem(r.value()).isEmpty(), qPrintable(invariantProblem(r.value())));
        const rig::Rig& rr = r.value();
        const rig::Mesh& m = rr.meshes.at(0);
        QCOMPARE(m.triangleCount(), size_t(1));
        // File tangents without UVs are kept, handedness from Assimp's bitangents.
        QCOMPARE(m.tangents, (std::vector<glm::vec4>{{1, 0, 0, -1}, {1, 0, 0, 1}, {0, 1, 0, -1}}));
        QVERIFY(!m.tangentsGenerated && !m.normalsGenerated);
        // Not baked: the mesh node's +5 in x is not in the positions.
        QCOMPARE(m.positions[1], glm::vec3(1, 0, 0));
        QCOMPARE(rr.skeleton.nodes.at(size_t(m.node)).name, std::string("body"));
        // Skin: joints by name, inverse binds as authored (translation in column 3).
        const rig::Skin& skin = rr.skins.at(size_t(m.skin));
        QCOMPARE(rr.skeleton.nodes.at(size_t(skin.joints[1])).name, std::string("knee"));
        QCOMPARE(skin.inverseBind[1][3], glm::vec4(-1, -2, 0, 1));
        // Raw weights: > 1 kept, sums kept (1.75), and the negative and NaN weights that Assimp 5.2's glTF reader
        // drops (`weight > 0` in its importer) are there too: for glTF the importer reads JOINTS/WEIGHTS itself.
        QCOMPARE(influencesOf(m, 0), (std::vector<Pair>{{0, 1.5f}, {1, 0.25f}}));
        QCOMPARE(influencesOf(m, 1), (std::vector<Pair>{{0, 0.7f}, {1, -0.2f}}));
        const std::vector<Pair> third = influencesOf(m, 2);
        QCOMPARE(third.size(), size_t(2));
        QCOMPARE(third[0].first, 0u);
        QVERIFY(std::isnan(third[0].second));
        QCOMPARE(third[1], (Pair{1, 1.0f}));
        QVERIFY2(hasNote(rr, rig::ImportNote::Severity::Info, "raw glTF skin weights read directly"), qPrintable(notesOf(rr)));

        auto node = [&](const char* name) { return rr.skeleton.nodes.at(size_t(rr.skeleton.find(name))); };
        const rig::Node trs = node("trs");
        QVERIFY(!trs.restHasShear);
        RS_COMPARE_NEAR(trs.rest.scale.x, 2.0, 1e-6);
        RS_COMPARE_NEAR(trs.rest.scale.y, 3.0, 1e-6);
        RS_COMPARE_NEAR(trs.rest.scale.z, 4.0, 1e-6);
        RS_COMPARE_NEAR(std::fabs(glm::dot(trs.rest.rotation, glm::quat(float(s), 0, 0, float(s)))), 1.0, 1e-6);
        QCOMPARE(trs.restMatrix[3], glm::vec4(1, 2, 3, 1));
        RS_COMPARE_NEAR(trs.restMatrix[0].y, 2.0, 1e-6); // x axis turned onto +y, scaled by 2
        QVERIFY(node("sheared").restHasShear);
        const rig::Node mirrored = node("mirrored");
        QVERIFY(!mirrored.restHasShear);
        QCOMPARE(mirrored.restMatrix[3], glm::vec4(7, 0, 0, 1));
        RS_COMPARE_NEAR(glm::length(mirrored.rest.matrix()[0] - mirrored.restMatrix[0]), 0.0, 1e-6);
        QVERIFY(glm::determinant(glm::mat3(mirrored.rest.matrix())) < 0.0f);
        QVERIFY(hasNote(rr, rig::ImportNote::Severity::Warning, "node 'infinite': non-finite rest matrix"));
        QVERIFY(std::isinf(node("infinite").restMatrix[0][0]));

        // Tracks: translation kept (seconds), the unsorted rotation skipped with a warning; duration from kept keys.
        QCOMPARE(rr.clips.size(), size_t(1));
        const rig::Clip& c = rr.clips[0];
        QCOMPARE(c.name, std::string("move"));
        bool sawHip = false;
        for (const rig::JointChannel& j : c.joints) {
            QVERIFY(j.rotation.empty() || rr.skeleton.nodes[size_t(j.node)].name != "knee");
            if (rr.skeleton.nodes[size_t(j.node)].name == "hip") {
                sawHip = true;
                QCOMPARE(j.translation.times, (std::vector<float>{0, 1, 3}));
                QCOMPARE(j.translation.values[2], glm::vec3(2, 0, 0));
            }
        }
        QVERIFY(sawHip);
        QVERIFY2(hasNote(rr, rig::ImportNote::Severity::Warning, "not sorted"), qPrintable(notesOf(rr)));
        RS_COMPARE_NEAR(c.duration, 3.0, 1e-6);
    }

    void handMadeWithoutTriangles()
    {
        // Only a line primitive, and a file with nodes but no mesh at all: both "no triangle meshes" (or Assimp's
        // own refusal), one line, named after the display name.
        GltfBuilder b;
        const int pos = b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", true);
        QJsonObject lines;
        lines["scene"] = 0;
        lines["scenes"] = QJsonArray{QJsonObject{{"nodes", QJsonArray{0}}}};
        lines["nodes"] = QJsonArray{QJsonObject{{"mesh", 0}}};
        lines["meshes"] = QJsonArray{QJsonObject{{"primitives", QJsonArray{QJsonObject{{"attributes", QJsonObject{{"POSITION", pos}}}, {"mode", 1}}}}}};
        auto r = importBytes(b.gltf(lines), "gltf", "lines");
        QVERIFY(!r.ok());
        QCOMPARE(r.error(), std::string("lines: no triangle meshes"));

        QJsonObject empty;
        empty["scene"] = 0;
        empty["scenes"] = QJsonArray{QJsonObject{{"nodes", QJsonArray{0}}}};
        empty["nodes"] = QJsonArray{QJsonObject{{"name", "alone"}}};
        r = importBytes(GltfBuilder().gltf(empty), "gltf", "nodes-only");
        QVERIFY(!r.ok());
        QVERIFY2(isCleanFailure(r.error(), "nodes-only"), r.error().c_str());
    }

    void rawDataThroughAssbin()
    {
        auto* scene = new aiScene;
        scene->mRootNode = newNode("root", nullptr);
        aiNode* bone = newNode("bone", scene->mRootNode);
        bone->mTransformation.b4 = 2.0f;
        aiNode* nanNode = newNode("nanNode", scene->mRootNode);
        nanNode->mTransformation.a1 = std::numeric_limits<float>::quiet_NaN();
        aiNode* holder = newNode("holder", bone);
        holder->mNumMeshes = 3;
        holder->mMeshes = new unsigned[3]{0, 1, 2};
        scene->mNumMaterials = 1;
        scene->mMaterials = new aiMaterial*[1]{new aiMaterial};
        aiMesh* points = new aiMesh;
        points->mName = "dots";
        points->mPrimitiveTypes = aiPrimitiveType_POINT;
        points->mNumVertices = 2;
        points->mVertices = new aiVector3D[2]{{0, 0, 0}, {1, 1, 1}};
        points->mNumFaces = 2;
        points->mFaces = new aiFace[2];
        for (unsigned f = 0; f < 2; ++f) {
            points->mFaces[f].mNumIndices = 1;
            points->mFaces[f].mIndices = new unsigned[1]{f};
        }
        scene->mNumMeshes = 3;
        scene->mMeshes = new aiMesh*[3]{newSkinnedTriangle("first"), points, newSkinnedTriangle("second")};
        // A clip with 0 ticks per second (Assimp's default rate of 25 applies) and a channel for a missing node.
        auto* anim = new aiAnimation;
        anim->mName = "";
        anim->mTicksPerSecond = 0.0;
        anim->mDuration = 50.0;
        anim->mNumChannels = 2;
        anim->mChannels = new aiNodeAnim*[2];
        for (unsigned c = 0; c < 2; ++c) {
            aiNodeAnim* ch = anim->mChannels[c] = new aiNodeAnim;
            ch->mNodeName = c == 0 ? "bone" : "nowhere";
            ch->mNumPositionKeys = 2;
            ch->mPositionKeys = new aiVectorKey[2]{aiVectorKey(0.0, aiVector3D(0, 2, 0)), aiVectorKey(50.0, aiVector3D(0, 3, 0))};
            ch->mNumRotationKeys = 1;
            ch->mRotationKeys = new aiQuatKey[1]{aiQuatKey(0.0, aiQuaternion(0.5f, 0.5f, 0.5f, 0.5f))};
            ch->mNumScalingKeys = 1;
            ch->mScalingKeys = new aiVectorKey[1]{aiVectorKey(0.0, aiVector3D(1, 1, 1))};
        }
        scene->mNumAnimations = 1;
        scene->mAnimations = new aiAnimation*[1]{anim};

        const auto r = importBytes(toAssbin(scene), "assbin", "raw.assbin");
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
        const rig::Rig& rr = r.value();
        QVERIFY2(invariantProblem(rr).isEmpty(), qPrintable(invariantProblem(rr)));
        using S = rig::ImportNote::Severity;

        // Hierarchy depth-first, parents first; restMatrix translation from the row-major b4.
        QCOMPARE(rr.skeleton.nodes.size(), size_t(4));
        QCOMPARE(rr.skeleton.nodes[1].name, std::string("bone"));
        QCOMPARE(rr.skeleton.nodes[2].name, std::string("holder"));
        QCOMPARE(rr.skeleton.nodes[2].parent, 1);
        QCOMPARE(rr.skeleton.nodes[3].name, std::string("nanNode"));
        QCOMPARE(rr.skeleton.nodes[1].restMatrix[3], glm::vec4(0, 2, 0, 1));
        QVERIFY(hasNote(rr, S::Warning, "node 'nanNode': non-finite rest matrix"));

        // The points-only mesh is dropped; the two triangle meshes keep their order and share one skin.
        QCOMPARE(rr.meshes.size(), size_t(2));
        // (assbin does not store mesh names: unnamed meshes are called after their index in the file.)
        QCOMPARE(rr.meshes[0].name, std::string("mesh0"));
        QCOMPARE(rr.meshes[1].name, std::string("mesh2"));
        QVERIFY(hasNote(rr, S::Warning, "mesh 'mesh1': no triangles (2 point/line faces); skipped"));
        QCOMPARE(rr.skins.size(), size_t(1));
        QCOMPARE(rr.meshes[0].skin, 0);
        QCOMPARE(rr.meshes[1].skin, 0);
        const rig::Skin& skin = rr.skins[0];
        QCOMPARE(skin.joints, (std::vector<int>{1, -1}));
        QCOMPARE(skin.inverseBind[0][3], glm::vec4(0, -2, 0, 1));
        QVERIFY(hasNote(rr, S::Error, "bone 'ghost' matches no node"));

        // Raw weights: negative and NaN kept, > 1 kept, the exact-zero dummy dropped; the point face dropped.
        const rig::Mesh& m = rr.meshes[0];
        QCOMPARE(m.node, 2);
        QCOMPARE(m.vertexCount(), size_t(4));
        QCOMPARE(m.indices, (std::vector<uint32_t>{0, 1, 2}));
        QVERIFY(hasNote(rr, S::Warning, "mesh 'mesh0': 1 non-triangle (point/line) faces skipped"));
        QVERIFY(hasNote(rr, S::Error, "mesh 'mesh0': 1 vertices have non-finite positions (first: vertex 3)"));
        QVERIFY(std::isnan(m.positions[3].x));
        QCOMPARE(influencesOf(m, 0), (std::vector<Pair>{{0, -0.5f}}));
        QCOMPARE(m.influenceOffsets[2] - m.influenceOffsets[1], 1u);
        QVERIFY(std::isnan(m.influences[m.influenceOffsets[1]].weight));
        QCOMPARE(influencesOf(m, 2), (std::vector<Pair>{{1, 2.5f}}));
        QCOMPARE(influencesOf(m, 3), (std::vector<Pair>{{1, 1.0f}}));
        // Normals generated from the one real triangle: +z on its three vertices.
        QVERIFY(m.normalsGenerated);
        QCOMPARE(m.normals[0], glm::vec3(0, 0, 1));

        // Clip: unnamed -> clip0, 25 ticks per second, the unknown channel skipped with a warning.
        QCOMPARE(rr.clips.size(), size_t(1));
        const rig::Clip& c = rr.clips[0];
        QCOMPARE(c.name, std::string("clip0"));
        QCOMPARE(c.joints.size(), size_t(1));
        QCOMPARE(c.joints[0].node, 1);
        QCOMPARE(c.joints[0].translation.times, (std::vector<float>{0.0f, 2.0f}));
        QCOMPARE(c.joints[0].rotation.values[0], glm::quat(0.5f, 0.5f, 0.5f, 0.5f));
        RS_COMPARE_NEAR(c.duration, 2.0, 0.0);
        QVERIFY(hasNote(rr, S::Warning, "clip 'clip0': channel for unknown node 'nowhere'"));
    }

    void notesAreCapped()
    {
        // 1500 channels for nodes that do not exist: 1000 notes are kept, the rest are counted in one last note.
        auto* scene = new aiScene;
        scene->mRootNode = newNode("root", nullptr);
        scene->mRootNode->mNumMeshes = 1;
        scene->mRootNode->mMeshes = new unsigned[1]{0};
        scene->mNumMaterials = 1;
        scene->mMaterials = new aiMaterial*[1]{new aiMaterial};
        scene->mNumMeshes = 1;
        scene->mMeshes = new aiMesh*[1]{newSkinnedTriangle("tri")};
        auto* anim = new aiAnimation;
        anim->mName = "many";
        anim->mTicksPerSecond = 1.0;
        anim->mDuration = 1.0;
        anim->mNumChannels = 1500;
        anim->mChannels = new aiNodeAnim*[1500];
        for (unsigned c = 0; c < 1500; ++c) {
            aiNodeAnim* ch = anim->mChannels[c] = new aiNodeAnim;
            ch->mNodeName = ("ghost" + std::to_string(c)).c_str();
            ch->mNumPositionKeys = 1;
            ch->mPositionKeys = new aiVectorKey[1]{aiVectorKey(0.0, aiVector3D(0, 0, 0))};
            ch->mNumRotationKeys = 1;
            ch->mRotationKeys = new aiQuatKey[1]{aiQuatKey(0.0, aiQuaternion())};
            ch->mNumScalingKeys = 1;
            ch->mScalingKeys = new aiVectorKey[1]{aiVectorKey(0.0, aiVector3D(1, 1, 1))};
        }
        scene->mNumAnimations = 1;
        scene->mAnimations = new aiAnimation*[1]{anim};
        const auto r = importBytes(toAssbin(scene), "assbin", "many.assbin");
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
        QCOMPARE(r->notes.size(), size_t(1001));
        QVERIFY2(r->notes.back().message.find("further notes were not recorded") != std::string::npos, r->notes.back().message.c_str());
        QVERIFY(r->clips.at(0).joints.empty());
    }

    void xFileUnknownBoneAndNegativeWeight()
    {
        // A bone that names no frame becomes an Error note with joint -1. Weights > 1 stay raw; Assimp 5.2's .x
        // reader (like its glTF reader) drops weights <= 0 itself: pinned here so a change of Assimp shows up.
        const QByteArray x = R"(xof 0303txt 0032
Frame Root {
  FrameTransformMatrix { 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0, 0.0,0.0,0.0,1.0;; }
  Frame Bone { FrameTransformMatrix { 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0, 0.0,2.0,0.0,1.0;; } }
  Mesh tri {
    3;
    0.0;0.0;0.0;, 1.0;0.0;0.0;, 0.0;1.0;0.0;;
    1;
    3;0,1,2;;
    SkinWeights { "Bone"; 3; 0,1,2; 1.0,-0.25,1.5; 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0, 0.0,-2.0,0.0,1.0;; }
    SkinWeights { "Ghost"; 1; 2; 0.5; 1.0,0.0,0.0,0.0, 0.0,1.0,0.0,0.0, 0.0,0.0,1.0,0.0, 0.0,0.0,0.0,1.0;; }
  }
}
)";
        const auto r = importBytes(x, "x", "ghost.x");
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
        QVERIFY2(invariantProblem(r.value()).isEmpty(), qPrintable(invariantProblem(r.value())));
        const rig::Mesh& m = r->meshes.at(0);
        QVERIFY(m.isSkinned());
        const rig::Skin& skin = r->skins.at(size_t(m.skin));
        QCOMPARE(skin.joints.size(), size_t(2));
        QCOMPARE(r->skeleton.nodes.at(size_t(skin.joints[0])).name, std::string("Bone"));
        QCOMPARE(skin.joints[1], -1);
        QVERIFY2(hasNote(r.value(), rig::ImportNote::Severity::Error, "bone 'Ghost' matches no node"), qPrintable(notesOf(r.value())));
        QCOMPARE(skin.inverseBind[0][3], glm::vec4(0, -2, 0, 1));
        QCOMPARE(influencesOf(m, 0), (std::vector<Pair>{{0, 1.0f}}));
        QCOMPARE(influencesOf(m, 1), (std::vector<Pair>{}));
        QCOMPARE(influencesOf(m, 2), (std::vector<Pair>{{0, 1.5f}, {1, 0.5f}}));
        RS_COMPARE_NEAR(weightSum(m, 2), 2.0, 0.0);
        QVERIFY(m.normalsGenerated);
        RS_COMPARE_NEAR(std::fabs(m.normals[0].z), 1.0, 1e-6);
    }

    void corruptedCountIsRefusedByTheAllocationCap()
    {
        REQUIRE_ASSETS();
        // 0xff bytes in a Collada <p> index list make Assimp 5.2.4 allocate without bound (over 13 GiB before it
        // fails). The import's allocation cap (twice the budget plus 256 MiB) must refuse it, quickly and cleanly.
        QFile f(QString::fromStdString(testutil::assetPath("Collada_seymour/seymour.dae")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray bytes = f.readAll();
        const qsizetype p = bytes.indexOf("<p>");
        QVERIFY(p > 0);
        for (int i = 0; i < 16; ++i)
            bytes[p + 13 + i] = char(0xff);
        rig::ImportOptions small;
        small.memoryBudgetBytes = size_t(32) << 20; // cap: 320 MiB
        QElapsedTimer timer;
        timer.start();
        const auto r = rig::importMemory(bytes.constData(), size_t(bytes.size()), "dae", "seymour-corrupt.dae", small);
        QVERIFY(!r.ok());
        QVERIFY2(QString::fromStdString(r.error()).startsWith(QLatin1String("seymour-corrupt.dae: reading it allocates more than 320 MiB")),
                 r.error().c_str());
        QVERIFY2(timer.elapsed() < 30000, "the refusal took too long");
        // The clean file still loads under the same budget.
        const QByteArray clean = [&] { QFile g(f.fileName()); g.open(QIODevice::ReadOnly); return g.readAll(); }();
        QVERIFY(rig::importMemory(clean.constData(), size_t(clean.size()), "dae", "seymour.dae", small).ok());
    }
};

QTEST_GUILESS_MAIN(TestImport)
#include "test_import.moc"
