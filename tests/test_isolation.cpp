// The crash-isolated import: the rig's binary round trip, and a child that crashes, aborts, hangs or fails.
#include "testutil.h"

#include <csignal>
#include <cstdlib>
#include <thread>

#include "rig/import.h"
#include "rig/import_isolated.h"
#include "rig/rig_serialize.h"

namespace {

bool sameBytes(const rig::Rig& a, const rig::Rig& b)
{
    std::string x, y;
    rig::serializeRig(a, x);
    rig::serializeRig(b, y);
    return x == y;
}

} // namespace

class TestIsolation : public QObject {
    Q_OBJECT
private slots:
    void roundTripKeepsEveryField();
    void truncatedDataFailsCleanly();
    void isolatedImportEqualsInProcess();
    void crashAbortHangAndErrorBecomeMessages();
    void assimpCrashOnAValidFileIsAMessage();
};

void TestIsolation::roundTripKeepsEveryField()
{
    for (const std::string& name : rig::sampleNames()) {
        const rig::Rig a = testutil::sample(name.c_str());
        std::string bytes;
        rig::serializeRig(a, bytes);
        auto b = rig::deserializeRig(bytes);
        QVERIFY2(b.ok(), b.ok() ? "" : b.error().c_str());
        QVERIFY(sameBytes(a, b.value()));
        // Spot checks that the fields really travel (not just the framing).
        QCOMPARE(b->meshes[0].positions, a.meshes[0].positions);
        QCOMPARE(b->meshes[0].influences.size(), a.meshes[0].influences.size());
        QCOMPARE(b->clips.size(), a.clips.size());
        QCOMPARE(b->skeleton.nodes.back().name, a.skeleton.nodes.back().name);
    }
    const rig::Rig sheet = testutil::sample("sheet");
    std::string bytes;
    rig::serializeRig(sheet, bytes);
    const rig::Rig back = rig::deserializeRig(bytes).value();
    QCOMPARE(back.meshes[0].morphTargets[3].name, std::string("ripples"));
    QCOMPARE(back.meshes[0].morphTargets[3].normalDeltas, sheet.meshes[0].morphTargets[3].normalDeltas);
    QCOMPARE(back.clips[0].joints[1].rotation.interpolation, rig::Interpolation::CubicSpline);
}

void TestIsolation::truncatedDataFailsCleanly()
{
    const rig::Rig a = testutil::sample("lift_strip");
    std::string bytes;
    rig::serializeRig(a, bytes);
    for (size_t n = 0; n < bytes.size(); n += 7)
        QVERIFY(!rig::deserializeRig(std::string_view(bytes).substr(0, n)).ok());
    std::string extra = bytes + "x";
    QVERIFY(!rig::deserializeRig(extra).ok());
    // A huge count in the header is refused before anything is allocated.
    std::string huge = bytes;
    const uint64_t big = ~uint64_t(0) / 2;
    std::memcpy(huge.data() + 4 + 8 + a.source.size(), &big, 8);
    QVERIFY(!rig::deserializeRig(huge).ok());
}

void TestIsolation::isolatedImportEqualsInProcess()
{
    for (const char* f : {"CesiumMan/cesium_man.gltf", "Fox/Fox.glb", "Collada_seymour/seymour.dae",
                          "FBX_huesitos/huesitos.fbx"}) {
        const std::string path = testutil::assetPath(f);
        rig::ImportOptions inProcess;
        inProcess.isolate = false;
        auto a = rig::importFile(path, inProcess);
        auto b = rig::importFile(path); // isolated by default
        QVERIFY2(a.ok() && b.ok(), f);
        QVERIFY2(sameBytes(a.value(), b.value()), f);
    }
    // Errors come back word for word.
    const std::string missing = "/nonexistent/x.gltf";
    QCOMPARE(rig::importFile(missing).error(), missing + ": no such file");
}

void TestIsolation::crashAbortHangAndErrorBecomeMessages()
{
    auto crash = rig::runIsolated("crash.gltf", 30, [] {
        std::raise(SIGSEGV);
        return rig::Result<rig::Rig>(rig::Rig{});
    });
    QVERIFY(!crash.ok());
    QVERIFY2(crash.error().rfind("crash.gltf: the importer crashed on this file", 0) == 0, crash.error().c_str());
    QVERIFY(crash.error().find("signal 11") != std::string::npos);

    auto aborted = rig::runIsolated("abort.dae", 30, []() -> rig::Result<rig::Rig> { std::abort(); });
    QVERIFY(!aborted.ok());
    QVERIFY(aborted.error().find("signal 6") != std::string::npos);

    QElapsedTimer t;
    t.start();
    auto hung = rig::runIsolated("hang.fbx", 1.0, []() -> rig::Result<rig::Rig> {
        std::this_thread::sleep_for(std::chrono::seconds(60));
        return rig::Rig{};
    });
    QVERIFY(!hung.ok());
    QCOMPARE(hung.error(), std::string("hang.fbx: the importer did not finish within 1 s"));
    QVERIFY(t.elapsed() < 10000);

    auto failed = rig::runIsolated("bad.x", 30, []() -> rig::Result<rig::Rig> { return rig::fail("bad.x: no meshes"); });
    QCOMPARE(failed.error(), std::string("bad.x: no meshes"));
}

void TestIsolation::assimpCrashOnAValidFileIsAMessage()
{
    // A skin without inverseBindMatrices is valid glTF (they default to identities); Assimp 5.2.4 crashes on it.
    const std::string path = std::string(RIGSCOPE_TEST_DATA_DIR) + "/broken/skin_without_inverse_binds.gltf";
    auto r = rig::importFile(path);
    QVERIFY(!r.ok());
    QVERIFY2(r.error().rfind(path + ": the importer crashed on this file", 0) == 0, r.error().c_str());
}

QTEST_GUILESS_MAIN(TestIsolation)
#include "test_isolation.moc"
