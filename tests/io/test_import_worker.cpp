// The import worker (rig/io/worker/import_worker.h, worker/): the rig's versioned wire format compared field by field over
// every shared asset, and a worker that crashes, aborts, hangs, spins, lies, overreaches or is cancelled — also
// while other threads of the caller are busy allocating, which is what hung the forked import of old.
#include "testutil.h"

#include "rig/io/worker/worker_protocol.h"

#include <QDirIterator>
#include <QElapsedTimer>

#include <sys/resource.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "rig/io/import.h"
#include "rig/io/worker/import_worker.h"
#include "rig/io/worker/rig_serialize.h"
#include "worker/decode_image.h"

namespace {

// ---- A field-by-field comparison of two rigs, written apart from the serializer --------------------------------
// Floats compare by their bits: raw data may hold NaN, and a NaN must come back as the same NaN.

template <typename T>
bool sameBits(const T& a, const T& b)
{
    static_assert(std::is_trivially_copyable_v<T>);
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
QString diffVector(const std::vector<T>& a, const std::vector<T>& b, const QString& what)
{
    if (a.size() != b.size())
        return QStringLiteral("%1: %2 vs %3 elements").arg(what).arg(a.size()).arg(b.size());
    for (size_t i = 0; i < a.size(); ++i)
        if (!sameBits(a[i], b[i]))
            return QStringLiteral("%1[%2] differs").arg(what).arg(i);
    return {};
}

template <typename T>
QString diffTrack(const rig::Track<T>& a, const rig::Track<T>& b, const QString& what)
{
    if (a.interpolation != b.interpolation)
        return what + QStringLiteral(".interpolation");
    if (QString d = diffVector(a.times, b.times, what + QStringLiteral(".times")); !d.isEmpty())
        return d;
    return diffVector(a.values, b.values, what + QStringLiteral(".values"));
}

#define RS_DIFF(expr)                                                                                                  \
    do {                                                                                                               \
        if (QString d_ = (expr); !d_.isEmpty())                                                                        \
            return d_;                                                                                                 \
    } while (0)
#define RS_FIELD(a, b, what)                                                                                           \
    do {                                                                                                               \
        if (!sameBits(a, b))                                                                                           \
            return QString(what);                                                                                      \
    } while (0)

QString diffRig(const rig::Rig& a, const rig::Rig& b)
{
    if (a.source != b.source)
        return "source";
    if (a.skeleton.nodes.size() != b.skeleton.nodes.size())
        return "node count";
    for (size_t i = 0; i < a.skeleton.nodes.size(); ++i) {
        const rig::Node &x = a.skeleton.nodes[i], &y = b.skeleton.nodes[i];
        const QString w = QStringLiteral("nodes[%1].").arg(i);
        if (x.name != y.name)
            return w + "name";
        RS_FIELD(x.parent, y.parent, w + "parent");
        RS_FIELD(x.rest.translation, y.rest.translation, w + "rest.translation");
        RS_FIELD(x.rest.rotation, y.rest.rotation, w + "rest.rotation");
        RS_FIELD(x.rest.scale, y.rest.scale, w + "rest.scale");
        RS_FIELD(x.restMatrix, y.restMatrix, w + "restMatrix");
        RS_FIELD(x.restHasShear, y.restHasShear, w + "restHasShear");
    }
    if (a.skins.size() != b.skins.size())
        return "skin count";
    for (size_t i = 0; i < a.skins.size(); ++i) {
        const QString w = QStringLiteral("skins[%1].").arg(i);
        if (a.skins[i].name != b.skins[i].name)
            return w + "name";
        RS_DIFF(diffVector(a.skins[i].joints, b.skins[i].joints, w + "joints"));
        RS_DIFF(diffVector(a.skins[i].inverseBind, b.skins[i].inverseBind, w + "inverseBind"));
    }
    if (a.meshes.size() != b.meshes.size())
        return "mesh count";
    for (size_t i = 0; i < a.meshes.size(); ++i) {
        const rig::Mesh &x = a.meshes[i], &y = b.meshes[i];
        const QString w = QStringLiteral("meshes[%1].").arg(i);
        if (x.name != y.name)
            return w + "name";
        RS_FIELD(x.node, y.node, w + "node");
        RS_FIELD(x.skin, y.skin, w + "skin");
        RS_DIFF(diffVector(x.positions, y.positions, w + "positions"));
        RS_DIFF(diffVector(x.normals, y.normals, w + "normals"));
        RS_DIFF(diffVector(x.tangents, y.tangents, w + "tangents"));
        RS_DIFF(diffVector(x.uvs, y.uvs, w + "uvs"));
        RS_DIFF(diffVector(x.indices, y.indices, w + "indices"));
        RS_DIFF(diffVector(x.influenceOffsets, y.influenceOffsets, w + "influenceOffsets"));
        RS_DIFF(diffVector(x.zeroWeightJointVertices, y.zeroWeightJointVertices, w + "zeroWeightJointVertices"));
        for (int c = 0; c < 4; ++c)
            RS_FIELD(x.baseColor[c], y.baseColor[c], w + "baseColor");
        RS_FIELD(x.baseColorImage, y.baseColorImage, w + "baseColorImage");
        RS_FIELD(x.uvOriginTopLeft, y.uvOriginTopLeft, w + "uvOriginTopLeft");
        if (x.influences.size() != y.influences.size())
            return w + "influence count";
        for (size_t k = 0; k < x.influences.size(); ++k) {
            RS_FIELD(x.influences[k].joint, y.influences[k].joint, w + QStringLiteral("influences[%1].joint").arg(k));
            RS_FIELD(x.influences[k].weight, y.influences[k].weight, w + QStringLiteral("influences[%1].weight").arg(k));
        }
        if (x.morphTargets.size() != y.morphTargets.size())
            return w + "morph target count";
        for (size_t t = 0; t < x.morphTargets.size(); ++t) {
            const QString wt = w + QStringLiteral("morphTargets[%1].").arg(t);
            if (x.morphTargets[t].name != y.morphTargets[t].name)
                return wt + "name";
            RS_DIFF(diffVector(x.morphTargets[t].positionDeltas, y.morphTargets[t].positionDeltas, wt + "positionDeltas"));
            RS_DIFF(diffVector(x.morphTargets[t].normalDeltas, y.morphTargets[t].normalDeltas, wt + "normalDeltas"));
            RS_DIFF(diffVector(x.morphTargets[t].tangentDeltas, y.morphTargets[t].tangentDeltas, wt + "tangentDeltas"));
        }
        RS_DIFF(diffVector(x.defaultMorphWeights, y.defaultMorphWeights, w + "defaultMorphWeights"));
        RS_FIELD(x.normalsGenerated, y.normalsGenerated, w + "normalsGenerated");
        RS_FIELD(x.tangentsGenerated, y.tangentsGenerated, w + "tangentsGenerated");
    }
    if (a.clips.size() != b.clips.size())
        return "clip count";
    for (size_t i = 0; i < a.clips.size(); ++i) {
        const rig::Clip &x = a.clips[i], &y = b.clips[i];
        const QString w = QStringLiteral("clips[%1].").arg(i);
        if (x.name != y.name)
            return w + "name";
        RS_FIELD(x.duration, y.duration, w + "duration");
        if (x.joints.size() != y.joints.size())
            return w + "joint channel count";
        for (size_t c = 0; c < x.joints.size(); ++c) {
            const QString wc = w + QStringLiteral("joints[%1].").arg(c);
            RS_FIELD(x.joints[c].node, y.joints[c].node, wc + "node");
            RS_DIFF(diffTrack(x.joints[c].translation, y.joints[c].translation, wc + "translation"));
            RS_DIFF(diffTrack(x.joints[c].rotation, y.joints[c].rotation, wc + "rotation"));
            RS_DIFF(diffTrack(x.joints[c].scale, y.joints[c].scale, wc + "scale"));
        }
        if (x.morphs.size() != y.morphs.size())
            return w + "morph channel count";
        for (size_t c = 0; c < x.morphs.size(); ++c) {
            const QString wc = w + QStringLiteral("morphs[%1].").arg(c);
            RS_FIELD(x.morphs[c].mesh, y.morphs[c].mesh, wc + "mesh");
            RS_FIELD(x.morphs[c].interpolation, y.morphs[c].interpolation, wc + "interpolation");
            RS_DIFF(diffVector(x.morphs[c].times, y.morphs[c].times, wc + "times"));
            RS_DIFF(diffVector(x.morphs[c].weights, y.morphs[c].weights, wc + "weights"));
        }
    }
    if (a.images.size() != b.images.size())
        return "image count";
    for (size_t i = 0; i < a.images.size(); ++i) {
        const rig::Image &x = a.images[i], &y = b.images[i];
        const QString w = QStringLiteral("images[%1].").arg(i);
        if (x.name != y.name)
            return w + "name";
        if (x.formatHint != y.formatHint)
            return w + "formatHint";
        RS_FIELD(x.width, y.width, w + "width");
        RS_FIELD(x.height, y.height, w + "height");
        RS_DIFF(diffVector(x.encoded, y.encoded, w + "encoded"));
        RS_DIFF(diffVector(x.rgba, y.rgba, w + "rgba"));
    }
    if (a.notes.size() != b.notes.size())
        return "note count";
    for (size_t i = 0; i < a.notes.size(); ++i) {
        RS_FIELD(a.notes[i].severity, b.notes[i].severity, QStringLiteral("notes[%1].severity").arg(i));
        if (a.notes[i].message != b.notes[i].message)
            return QStringLiteral("notes[%1].message").arg(i);
    }
    return {};
}

/// Every model file of the shared assets.
QStringList modelFiles()
{
    QStringList files;
    QDirIterator it(QString::fromStdString(testutil::assetsDir()), {"*.gltf", "*.glb", "*.fbx", "*.dae", "*.x", "*.X", "*.obj"},
                    QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    files.sort();
    return files;
}

rig::ImportOptions faultWorker(double timeoutSeconds = 30.0)
{
    rig::ImportOptions o;
    o.workerPath = RIGSCOPE_FAULT_WORKER;
    o.timeoutSeconds = timeoutSeconds;
    return o;
}

/// Imports "bytes" named `name` through the fault worker (the name picks the fault).
rig::Result<rig::Rig> fault(const char* name, const rig::ImportOptions& options)
{
    static const char bytes[] = "placeholder";
    return rig::importMemory(bytes, sizeof bytes, "gltf", name, options);
}

bool startsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

constexpr bool kSanitizerBuild =
#if defined(__SANITIZE_ADDRESS__)
    true;
#else
    false;
#endif

} // namespace

class TestImportWorker : public QObject {
    Q_OBJECT
private slots:
    void everyAssetComesBackFieldByFieldEqual();
    void samplesRoundTripFieldByField();
    void anotherFormatVersionIsRefused();
    void truncatedOrCorruptDataFailsCleanly();
    void crashAbortHangAndSpinBecomeMessages();
    void malformedRepliesBecomeMessages();
    void workerRunsUnderItsLimitsWithOnlyItsPipesOpen();
    void allocationPastTheCapIsRefused();
    void cancelKillsTheWorkerAtOnce();
    void workerSurvivesWhileOtherThreadsAllocate();
    void assimpCrashOnAValidFileIsAMessage();
    void missingWorkerIsAClearMessage();
};

void TestImportWorker::everyAssetComesBackFieldByFieldEqual()
{
    REQUIRE_ASSETS();
    // What the worker sends equals, field by field, what this process imports itself: every shared asset (the broken
    // corpus is not imported in-process here: one file crashes Assimp, and in-process there is no memory limit); the
    // ones that fail, fail with the same message.
    const QStringList files = modelFiles();
    QVERIFY(files.size() >= 20);
    int loaded = 0;
    for (const QString& f : files) {
        const std::string path = f.toStdString();
        rig::ImportOptions inProcess;
        inProcess.isolate = false;
        auto local = rig::importFile(path, inProcess);
        // The worker decodes the textures before it replies (tests/io/test_textures.cpp holds the decoders to QImage).
        if (local.ok())
            rig::worker::decodeImages(local.value(), inProcess.memoryBudgetBytes / 4);
        const auto viaWorker = rig::importFile(path);
        QCOMPARE(viaWorker.ok(), local.ok());
        if (!local.ok()) {
            QCOMPARE(viaWorker.error(), local.error());
            continue;
        }
        ++loaded;
        const QString d = diffRig(local.value(), viaWorker.value());
        QVERIFY2(d.isEmpty(), qPrintable(f + QStringLiteral(": ") + d));
        // And the serialized form on its own.
        std::string bytes;
        rig::serializeRig(local.value(), bytes);
        const auto back = rig::deserializeRig(bytes);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().c_str());
        const QString d2 = diffRig(local.value(), back.value());
        QVERIFY2(d2.isEmpty(), qPrintable(f + QStringLiteral(": ") + d2));
    }
    QVERIFY2(loaded >= 18, qPrintable(QString::number(loaded)));
}

void TestImportWorker::samplesRoundTripFieldByField()
{
    for (const std::string& name : rig::sampleNames()) {
        const rig::Rig a = testutil::sample(name.c_str());
        std::string bytes;
        rig::serializeRig(a, bytes);
        const auto b = rig::deserializeRig(bytes);
        QVERIFY2(b.ok(), b.ok() ? "" : b.error().c_str());
        const QString d = diffRig(a, b.value());
        QVERIFY2(d.isEmpty(), qPrintable(QString::fromStdString(name) + QStringLiteral(": ") + d));
    }
    // The comparison itself sees a one-bit change deep inside.
    rig::Rig a = testutil::sample("sheet");
    rig::Rig b = a;
    b.meshes[0].morphTargets[3].normalDeltas[100].y = std::nextafter(b.meshes[0].morphTargets[3].normalDeltas[100].y, 2.0f);
    QCOMPARE(diffRig(a, b), QStringLiteral("meshes[0].morphTargets[3].normalDeltas[100] differs"));
}

void TestImportWorker::anotherFormatVersionIsRefused()
{
    std::string bytes;
    rig::serializeRig(testutil::sample("ramp"), bytes);
    const uint32_t other = rig::kRigFormatVersion + 7;
    std::memcpy(bytes.data() + 4, &other, 4); // after the magic
    const auto r = rig::deserializeRig(bytes);
    QVERIFY(!r.ok());
    QCOMPARE(r.error(), "serialized rig format " + std::to_string(other) + ", expected " + std::to_string(rig::kRigFormatVersion));
}

void TestImportWorker::truncatedOrCorruptDataFailsCleanly()
{
    const rig::Rig a = testutil::sample("lift_strip");
    std::string bytes;
    rig::serializeRig(a, bytes);
    for (size_t n = 0; n < bytes.size(); n += 7)
        QVERIFY(!rig::deserializeRig(std::string_view(bytes).substr(0, n)).ok());
    QVERIFY(!rig::deserializeRig(bytes + "x").ok());
    // A huge count right after the source name is refused before anything is allocated.
    std::string huge = bytes;
    const uint64_t big = ~uint64_t(0) / 2;
    std::memcpy(huge.data() + 8 + 8 + a.source.size(), &big, 8);
    QVERIFY(!rig::deserializeRig(huge).ok());
    // A boolean that is neither 0 nor 1 (the first node's restHasShear, after name, parent, TRS and matrix).
    std::string badBool = bytes;
    const size_t node0 = 8 + 8 + a.source.size() + 8;
    const size_t shear = node0 + 8 + a.skeleton.nodes[0].name.size() + 4 + sizeof(rig::Transform) + sizeof(glm::mat4);
    QCOMPARE(uint8_t(badBool[shear]), uint8_t(a.skeleton.nodes[0].restHasShear ? 1 : 0));
    badBool[shear] = 2;
    QVERIFY(!rig::deserializeRig(badBool).ok());
    // Well-formed bytes of a rig that breaks an invariant.
    rig::Rig broken = a;
    broken.meshes[0].indices[4] = uint32_t(broken.meshes[0].vertexCount());
    std::string brokenBytes;
    rig::serializeRig(broken, brokenBytes);
    const auto r = rig::deserializeRig(brokenBytes);
    QVERIFY(!r.ok());
    QCOMPARE(r.error(), std::string("serialized rig breaks an invariant: mesh 0: index out of range"));
}

void TestImportWorker::crashAbortHangAndSpinBecomeMessages()
{
    const auto crash = fault("crash.gltf", faultWorker());
    QVERIFY(!crash.ok());
    // (Under AddressSanitizer the sanitizer catches the signal and reports it; the message is the same.)
    QCOMPARE(crash.error(), std::string("crash.gltf: the importer crashed on this file (Segmentation fault, signal 11)"));

    const auto aborted = fault("abort.dae", faultWorker());
    QVERIFY(!aborted.ok());
    QVERIFY2(startsWith(aborted.error(), "abort.dae: the importer crashed on this file (") &&
                 aborted.error().find("signal 6)") != std::string::npos,
             aborted.error().c_str());

    QElapsedTimer t;
    t.start();
    const auto hung = fault("hang.fbx", faultWorker(1.0));
    QCOMPARE(hung.error(), std::string("hang.fbx: the importer did not finish within 1 s"));
    QVERIFY(t.elapsed() >= 900 && t.elapsed() < 10000);

    // A busy loop: the parent's deadline or the worker's processor-time limit, whichever comes first.
    t.restart();
    const auto spun = fault("spin.x", faultWorker(1.0));
    QVERIFY2(startsWith(spun.error(), "spin.x: the importer did not finish within 1 s"), spun.error().c_str());
    QVERIFY(t.elapsed() < 10000);
}

void TestImportWorker::malformedRepliesBecomeMessages()
{
    QCOMPARE(fault("garbage.obj", faultWorker()).error(), std::string("garbage.obj: the import worker sent an invalid reply"));
    QCOMPARE(fault("silent.obj", faultWorker()).error(), std::string("silent.obj: the import worker sent no reply"));
    QCOMPARE(fault("exit3.obj", faultWorker()).error(), std::string("exit3.obj: the import worker failed (exit status 3)"));
    QCOMPARE(fault("oldprotocol.gltf", faultWorker()).error(),
             "oldprotocol.gltf: the import worker speaks protocol 0, expected " + std::to_string(rig::worker::kProtocolVersion) +
                 " (a mismatched installation)");
    QCOMPARE(fault("truncated.gltf", faultWorker()).error(), std::string("truncated.gltf: the import worker's reply is truncated"));
    QCOMPARE(fault("badrig.gltf", faultWorker()).error(),
             std::string("badrig.gltf: the import worker's reply is invalid (serialized rig breaks an invariant: mesh 0: "
                         "index out of range)"));
}

void TestImportWorker::workerRunsUnderItsLimitsWithOnlyItsPipesOpen()
{
    // The fault worker reports its own limits and open descriptors as its error message.
    rig::ImportOptions o = faultWorker(7.0);
    o.memoryBudgetBytes = size_t(64) << 20; // cap: 2 x 64 + 256 = 384 MiB
    const auto r = fault("limits.txt", o);
    QVERIFY(!r.ok());
    const QString msg = QString::fromStdString(r.error());
    const QRegularExpression form(QStringLiteral("^limits: as=(\\w+) cpu=(\\w+) fsize=(\\w+) core=(\\w+) fds=([0-9,]+)$"));
    const QRegularExpressionMatch m = form.match(msg);
    QVERIFY2(m.hasMatch(), qPrintable(msg));
    QCOMPARE(m.captured(2), QStringLiteral("7"));  // processor seconds: the timeout
    QCOMPARE(m.captured(3), QStringLiteral("0"));  // no file writes
    QCOMPARE(m.captured(4), QStringLiteral("0"));  // no core files
    QCOMPARE(m.captured(5), QStringLiteral("0,1,2,3,4")); // /dev/null, diagnostics x2, the reply pipe, the input
    if (kSanitizerBuild) {
        QCOMPARE(m.captured(1), QStringLiteral("unlimited")); // the sanitizer's limits instead (see allocation test)
    } else {
        // What was mapped at start plus the cap: more than the cap, not much more.
        const double as = m.captured(1).toDouble() / double(1 << 20);
        QVERIFY2(as > 384.0 && as < 384.0 + 512.0, qPrintable(msg));
    }
}

void TestImportWorker::allocationPastTheCapIsRefused()
{
    rig::ImportOptions o = faultWorker();
    o.memoryBudgetBytes = size_t(16) << 20; // cap: 288 MiB
    QElapsedTimer t;
    t.start();
    const auto r = fault("alloc.bin", o);
    QCOMPARE(r.error(), std::string("alloc.bin: reading it allocates more than 288 MiB (twice the memory budget plus "
                                    "headroom); refused"));
    QVERIFY(t.elapsed() < 20000);
}

void TestImportWorker::cancelKillsTheWorkerAtOnce()
{
    std::atomic<bool> cancel{false};
    rig::ImportOptions o = faultWorker(60.0);
    o.cancel = &cancel;
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        cancel = true;
    });
    QElapsedTimer t;
    t.start();
    const auto r = fault("hang.fbx", o);
    canceller.join();
    QCOMPARE(r.error(), std::string("hang.fbx: cancelled"));
    QVERIFY2(t.elapsed() >= 250 && t.elapsed() < 3000, qPrintable(QString::number(t.elapsed())));
}

void TestImportWorker::workerSurvivesWhileOtherThreadsAllocate()
{
    REQUIRE_ASSETS();
    // Three threads allocate, free and lock without pause while this one imports thirty times: a worker forked from
    // this process could inherit an allocator or mutex lock held by one of them and hang; a spawned one cannot.
    std::atomic<bool> stop{false};
    std::mutex shared;
    std::vector<std::thread> busy;
    for (int i = 0; i < 3; ++i)
        busy.emplace_back([&, i] {
            std::vector<std::unique_ptr<char[]>> blocks(64);
            unsigned x = 12345u + unsigned(i);
            while (!stop.load(std::memory_order_relaxed)) {
                x = x * 1664525u + 1013904223u;
                blocks[x % 64].reset(new char[1 + (x >> 8) % 100000]);
                std::lock_guard<std::mutex> lock(shared);
                blocks[(x >> 3) % 64].reset();
            }
        });
    const std::string simple = testutil::assetPath("SimpleSkin/SimpleSkin.gltf");
    rig::ImportOptions real;
    real.timeoutSeconds = 30;
    int ok = 0;
    for (int round = 0; round < 30; ++round) {
        switch (round % 4) {
        case 0: {
            const auto r = rig::importFile(simple, real);
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
            QCOMPARE(r->vertexCount(), size_t(10));
            break;
        }
        case 1:
            QVERIFY(startsWith(fault("crash.gltf", faultWorker()).error(), "crash.gltf: the importer crashed"));
            break;
        case 2:
            QVERIFY(startsWith(fault("abort.dae", faultWorker()).error(), "abort.dae: the importer crashed"));
            break;
        case 3:
            QCOMPARE(fault("hang.fbx", faultWorker(0.2)).error(), std::string("hang.fbx: the importer did not finish within 0.2 s"));
            break;
        }
        ++ok;
    }
    stop = true;
    for (std::thread& t : busy)
        t.join();
    QCOMPARE(ok, 30);
}

void TestImportWorker::assimpCrashOnAValidFileIsAMessage()
{
    // A skin without inverseBindMatrices is valid glTF (they default to identities); Assimp 5.2.4 crashes on it.
    const std::string path = std::string(RIGSCOPE_TEST_DATA_DIR) + "/broken/skin_without_inverse_binds.gltf";
    const auto r = rig::importFile(path);
    QVERIFY(!r.ok());
    QVERIFY2(startsWith(r.error(), path + ": the importer crashed on this file"), r.error().c_str());
}

void TestImportWorker::missingWorkerIsAClearMessage()
{
    rig::ImportOptions o;
    o.workerPath = "/nonexistent/rigscope-import";
    const auto r = rig::importFile(testutil::assetPath("SimpleSkin/SimpleSkin.gltf"), o);
    QVERIFY(!r.ok());
    QVERIFY2(r.error().find(": the import worker 'rigscope-import' was not found") != std::string::npos, r.error().c_str());
    // The default search finds the one built beside this test.
    QVERIFY(!rig::findImportWorker(rig::ImportOptions{}).empty());
}

QTEST_GUILESS_MAIN(TestImportWorker)
#include "test_import_worker.moc"
