// Engine profiles and what they do to a posed rig (rig/deform/engine_profiles.h, rig/analysis/format_difference.h):
// the profile table, bytes per vertex counted by hand, buildRuntime with a format against the stream it derives from,
// and the position and normal differences of the lift strip under one bone per vertex, computed by hand.
#include "testutil.h"

#include <cmath>
#include <set>

#include "rig/analysis/format_difference.h"
#include "rig/deform/deform.h"
#include "rig/deform/engine_profiles.h"
#include "rig/io/import.h"

using namespace rig;

class TestEngineFormats : public QObject {
    Q_OBJECT
private slots:
    void everyProfileValidatesHasAUniqueIdAndNamesItsSource()
    {
        std::set<std::string_view> ids;
        for (const EngineProfile& p : engineProfiles()) {
            QVERIFY2(p.format.validate(), p.id.data());
            QVERIFY2(ids.insert(p.id).second, p.id.data());
            QVERIFY2(!p.source.empty() && !p.facts.empty(), p.id.data());
            QCOMPARE(findEngineProfile(p.id), &p);
        }
        // The report's required keys.
        for (const char* id : {"float32", "unorm8", "unorm16", "unorm11_11_10"})
            QVERIFY2(findEngineProfile(id), id);
        QVERIFY(!findEngineProfile("custom"));
        QCOMPARE(profileForFormat({4, WeightEncoding::Unorm8})->id, std::string_view("unorm8"));
        QCOMPARE(profileForFormat({8, WeightEncoding::Float})->id, std::string_view("reference"));
        QVERIFY(!profileForFormat({2, WeightEncoding::Unorm8})); // a hand-set format: "custom"
    }

    void bytesPerVertexCountsTheLayoutByHand()
    {
        VertexStreamShape small{19, true, 0.0};   // CesiumMan-like: 8-bit indices, tangents
        VertexStreamShape large{300, false, 2.5}; // 16-bit indices, no tangents
        const EngineProfile& packed = *findEngineProfile("unorm11_11_10");
        // 12 + 12 + 16 attributes, 4 × 1 indices, one 4-byte weight word, 4 × 48 matrices.
        QCOMPARE(bytesPerVertex(packed, Method::Linear, small), 240.0);
        // 24 attributes, 4 × 2 indices, 4, 4 × 48.
        QCOMPARE(bytesPerVertex(packed, Method::Cofactor, large), 24.0 + 8.0 + 4.0 + 192.0);
        const EngineProfile& f32 = *findEngineProfile("float32");
        QCOMPARE(bytesPerVertex(f32, Method::Linear, small), 40.0 + 4.0 + 16.0 + 192.0);
        // Dual quaternions gather 32 + 36 per influence instead of the matrix.
        QCOMPARE(bytesPerVertex(f32, Method::DualQuaternion, small), 40.0 + 4.0 + 16.0 + 4.0 * 68.0);
        // The jacobian adds 16 bytes per gradient entry; the centre of rotation a rotation per influence and 12.
        QCOMPARE(bytesPerVertex(f32, Method::Jacobian, large), 24.0 + 8.0 + 16.0 + 192.0 + 40.0);
        QCOMPARE(bytesPerVertex(f32, Method::CenterOfRotation, small), 40.0 + 4.0 + 16.0 + 4.0 * 64.0 + 12.0);
        // Unity's one bone: a 32-bit index, no weight, one matrix.
        QCOMPARE(bytesPerVertex(*findEngineProfile("unity-1"), Method::Linear, small), 40.0 + 4.0 + 48.0);
        QCOMPARE(bytesPerVertex(*findEngineProfile("unity-2"), Method::Linear, small), 40.0 + 8.0 + 8.0 + 96.0);
        // Positions only: the position and the matrices.
        QCOMPARE(bytesPerVertex(*findEngineProfile("unreal-8"), Method::PositionsOnly, large), 12.0 + 16.0 + 8.0 + 384.0);
    }

    void buildRuntimeKeepsTheLargestInfluencesRenormalised()
    {
        REQUIRE_ASSETS();
        auto loaded = importFile(testutil::assetPath("CesiumMan/cesium_man.gltf"));
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().c_str());
        const Rig& r = loaded.value();
        const RigRuntime ref = buildRuntime(r, kReferenceFormat);
        const RigRuntime k2 = buildRuntime(r, RuntimeFormat{2, WeightEncoding::Float});
        QCOMPARE(k2.influencesPerVertex, 4); // K = 2 in the kernels' four slots
        QCOMPARE(k2.format.influences, 2);
        const InfluenceStream& a = ref.meshes[0].stream;
        const InfluenceStream& b = k2.meshes[0].stream;
        size_t moreThanTwo = 0, checked = 0;
        for (size_t v = 0; v < r.meshes[0].vertexCount(); ++v) {
            const float* wa = &a.weights[v * 8];
            const float* wb = &b.weights[v * 4];
            moreThanTwo += wa[2] > 0.0f ? 1 : 0;
            QCOMPARE(b.joints[v * 4], a.joints[v * 8]);
            if (wa[1] > 0.0f)
                QCOMPARE(b.joints[v * 4 + 1], a.joints[v * 8 + 1]);
            const double sum = double(wa[0]) + double(wa[1]);
            QVERIFY(std::fabs(double(wb[0]) - double(wa[0]) / sum) <= 1e-6);
            QVERIFY(std::fabs(double(wb[1]) - double(wa[1]) / sum) <= 1e-6);
            QCOMPARE(wb[0] + wb[1], 1.0f);
            QCOMPARE(wb[2], 0.0f);
            QCOMPARE(wb[3], 0.0f);
            ++checked;
        }
        QVERIFY(moreThanTwo > 100); // CesiumMan blends three or four joints in many places
        QCOMPARE(b.truncatedVertices, moreThanTwo);
        QCOMPARE(changedInfluenceVertices(a, b), moreThanTwo);
        QCOMPARE(changedInfluenceVertices(a, ref.meshes[0].stream), size_t(0));
        QCOMPARE(checked, r.meshes[0].vertexCount());
    }

    void oneBonePerVertexMovesTheLiftStripByItsDroppedWeight()
    {
        // The lift strip: w_lift = x / 2 along the strip, the lift joint raised 0.6. Linear blending puts a vertex at
        // y = 0.6 w_lift; with one bone it goes with its larger weight (the base at the 0.5 tie: authored order), so
        // it is 0.6 · min(w, 1 − w) off, 0.3 at x = 1; the vertices with both weights (x strictly inside) change.
        const Rig r = testutil::sample("lift_strip");
        Pose pose;
        pose.joints["lift"].translate = glm::vec3(0.0f, 0.6f, 0.0f);
        auto resolved = resolvePose(r, pose);
        QVERIFY(resolved.ok());
        const EngineProfile* profiles[] = {findEngineProfile("unity-1"), findEngineProfile("unity-2"),
                                           findEngineProfile("unorm8")};
        const Method methods[] = {Method::Linear, Method::DualQuaternion, Method::Rebuilt};
        const auto out = compareFormats(r, resolved.value(), methods, DeformSettings{}, profiles);
        QCOMPARE(out.size(), size_t(3));
        const FormatComparison& one = out[0];
        QCOMPARE(one.profile, std::string("unity-1"));
        size_t inside = 0;
        for (const glm::vec3& p : r.meshes[0].positions)
            inside += (p.x > 1e-6f && p.x < 2.0f - 1e-6f) ? 1 : 0;
        QCOMPARE(one.verticesChanged, inside);
        QCOMPARE(inside, size_t(39 * 6));
        const FormatMethodDifference& lin = one.methods[0];
        QCOMPARE(lin.method, Method::Linear);
        QVERIFY2(std::fabs(lin.maxPositionError - 0.3f) < 1e-5f, qPrintable(QString::number(lin.maxPositionError)));
        QVERIFY(std::fabs(r.meshes[0].positions[lin.worstPositionVertex].x - 1.0f) < 1e-6f);
        // A translation keeps the blend rigid in its rotation: dual quaternions move the same 0.3 at the tie.
        QVERIFY(std::fabs(one.methods[1].maxPositionError - 0.3f) < 1e-5f);
        // A translation leaves every blended 3×3 the identity: linear's normals are the authored ones either way.
        QCOMPARE(lin.maxNormalErrorDeg, 0.0f);
        // The surface itself: linear blending tilts the strip by atan(0.3) = 16.70°; one bone per vertex leaves it
        // flat away from the step at x = 1, so the rebuilt normals there differ by that tilt (and more at the step).
        QCOMPARE(one.methods[2].method, Method::Rebuilt);
        QVERIFY2(one.methods[2].maxNormalErrorDeg >= 16.69f, qPrintable(QString::number(one.methods[2].maxNormalErrorDeg)));
        // Two bones hold every vertex of the strip exactly.
        QCOMPARE(out[1].verticesChanged, size_t(0));
        QCOMPARE(out[1].maxPositionError, 0.0f);
        QCOMPARE(out[1].maxNormalErrorDeg, 0.0f);
        // 8-bit weights: each off by at most half a code (the residue goes to the larger weight, itself rounded by
        // at most half a code the other way), so the position by at most 0.6 / 255.
        QVERIFY(out[2].maxPositionError > 0.0f);
        QVERIFY2(out[2].maxPositionError <= 0.6f / 255.0f + 1e-6f, qPrintable(QString::number(out[2].maxPositionError)));
    }

    void formatDifferencesMarkUndefinedNormals()
    {
        const std::vector<glm::vec3> p0{{0, 0, 0}, {1, 0, 0}}, p1{{0, 3, 4}, {1, 0, 0}};
        const std::vector<glm::vec3> n0{{0, 1, 0}, {0, 0, 0}}, n1{{1, 0, 0}, {0, 1, 0}};
        std::vector<float> d(2), a(2);
        formatDifferences(p0, n0, p1, n1, d, a);
        QCOMPARE(d[0], 5.0f);
        QCOMPARE(d[1], 0.0f);
        QVERIFY(std::fabs(a[0] - 90.0f) < 1e-4f);
        QCOMPARE(a[1], kUndefinedError);
    }
};

QTEST_MAIN(TestEngineFormats)
#include "test_engine_formats.moc"
