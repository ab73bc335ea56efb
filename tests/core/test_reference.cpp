// The rebuilt reference and the error metrics, on hand-built meshes with exact answers.
#include "testutil.h"

#include <random>

#include "rig/analysis/carried.h"
#include "rig/analysis/metrics.h"
#include "rig/analysis/reference/reference.h"
#include "rig/analysis/reference/reference_kernels.h"
#include "rig/platform/parallel.h"
#include "rig/io/import.h"
#include "rig/platform/cpu_features.h"
#include "rig/model/samples.h"

using namespace rig;

namespace {

struct Rebuilt {
    std::vector<glm::vec3> normals;
    std::vector<glm::vec4> tangents;
};

Rebuilt rebuild(const std::vector<glm::vec3>& p, const std::vector<glm::vec2>& uv, const std::vector<uint32_t>& idx,
                const std::vector<glm::vec3>& restNormals = {})
{
    Rebuilt r;
    r.normals.resize(p.size());
    r.tangents.resize(p.size());
    ReferenceScratch scratch;
    rebuildMeshFrames(buildMeshTopology(p, restNormals, idx), p, uv, idx, r.normals, r.tangents, scratch);
    return r;
}

bool finite(const glm::vec4& v) { return std::isfinite(v.x + v.y + v.z + v.w); }

} // namespace

class TestReference : public QObject {
    Q_OBJECT
private slots:
    void quadNormalAndTangent();
    void mirroredUvsGiveNegativeHandedness();
    void areaWeighting();
    void degenerateTrianglesAndUvsNeverNaN();
    void uvSeamWeldedHardEdgeKept();
    void angleAccuracyNearZero();
    void statsNearestRankAndHistogram();
    void angularErrorsMatchDoublePrecision();
    void angularErrorsAreTheSameBitsOnEveryPath();
    void angularErrorPairsAreTheBitsOfTwoSingleCalls();
    void carriedReferenceRotatesByTheFrameChangeOnEveryPath();
    void p95IsTheNearestRankOfLargeSets();
    void histogramBinsMatchADirectCountAtEveryBoundary();
    void statsMeanIsTheSixteenLaneSumAndNegativeZeroIsZero();
    void p95IsExactInTheLumpedBucketsAndForOneRepeatedValue();
    void p95IsExactWhenItsBucketHoldsTensOfThousands();
    void handednessMismatchesCountDefinedOppositePairsOnly();
    void uvDifferencesAreEachTrianglesTwoEdgesInUv();
    void simdFacePassAndGatherAreTheScalarBitsOnRealAndHostileMeshes();
    void windowedScheduleIsTheTwoPassBitsOnRealRigsWhateverTheThreads();
    void scatteredTriangleOrderFallsBackToTwoPasses();
};

void TestReference::quadNormalAndTangent()
{
    // Unit quad in XZ, counter-clockwise seen from +y; u along +x, v along -z.
    const std::vector<glm::vec3> p = {{0, 0, 0}, {1, 0, 0}, {1, 0, -1}, {0, 0, -1}};
    const std::vector<glm::vec2> uv = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    const std::vector<uint32_t> idx = {0, 1, 2, 0, 2, 3};
    const Rebuilt r = rebuild(p, uv, idx);
    for (size_t v = 0; v < 4; ++v) {
        RS_COMPARE_NEAR(angleDeg(r.normals[v], {0, 1, 0}), 0.0, 1e-6);
        RS_COMPARE_NEAR(angleDeg(glm::vec3(r.tangents[v]), {1, 0, 0}), 0.0, 1e-6);
        QCOMPARE(r.tangents[v].w, 1.0f);
        RS_COMPARE_NEAR(glm::length(r.normals[v]), 1.0, 1e-6);
    }
}

void TestReference::mirroredUvsGiveNegativeHandedness()
{
    const std::vector<glm::vec3> p = {{0, 0, 0}, {1, 0, 0}, {1, 0, -1}, {0, 0, -1}};
    const std::vector<glm::vec2> uv = {{0, 1}, {1, 1}, {1, 0}, {0, 0}}; // v runs along +z: mirrored
    const Rebuilt r = rebuild(p, uv, {0, 1, 2, 0, 2, 3});
    for (size_t v = 0; v < 4; ++v)
        QCOMPARE(r.tangents[v].w, -1.0f);
}

void TestReference::areaWeighting()
{
    // Vertex 0 is shared by a big triangle in the XZ plane (area 2) and a small one in the XY plane (area 0.5).
    const std::vector<glm::vec3> p = {{0, 0, 0}, {2, 0, 0}, {0, 0, -2}, {0, 1, 0}, {1, 0, 0}};
    const std::vector<uint32_t> idx = {0, 1, 2, 0, 4, 3};
    const Rebuilt r = rebuild(p, {}, idx);
    // Face normals: (0,1,0)*4 (twice the area) and (0,0,1)*1.
    RS_COMPARE_NEAR(angleDeg(r.normals[0], glm::vec3(0, 4, 1)), 0.0, 1e-5);
    // No UVs: tangents are undefined (zero), not NaN.
    for (const glm::vec4& t : r.tangents)
        QCOMPARE(t, glm::vec4(0.0f));
}

void TestReference::degenerateTrianglesAndUvsNeverNaN()
{
    // Triangle 0 is fine; triangle 1 has zero area (collinear); vertex 5 belongs only to it.
    // Triangle 2 has identical UVs at every corner.
    const std::vector<glm::vec3> p = {{0, 0, 0}, {1, 0, 0}, {0, 0, -1}, {2, 0, 0}, {3, 0, 0}, {4, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 2, 0}};
    const std::vector<glm::vec2> uv = {{0, 0}, {1, 0}, {0, 1}, {0, 0}, {1, 0}, {2, 0}, {0.5f, 0.5f}, {0.5f, 0.5f}, {0.5f, 0.5f}};
    const std::vector<uint32_t> idx = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    const Rebuilt r = rebuild(p, uv, idx);
    for (size_t v = 0; v < p.size(); ++v) {
        QVERIFY(std::isfinite(r.normals[v].x + r.normals[v].y + r.normals[v].z));
        QVERIFY(finite(r.tangents[v]));
    }
    QVERIFY(isDefined(r.normals[0]));
    QCOMPARE(r.normals[5], glm::vec3(0.0f)); // only a zero-area face: undefined
    QVERIFY(isDefined(r.normals[6]));        // a real face with degenerate UVs: normal yes,
    QCOMPARE(r.tangents[6], glm::vec4(0.0f)); // tangent undefined
    std::vector<float> err(p.size());
    angularErrors(r.normals, r.normals, err);
    QCOMPARE(err[5], kUndefinedError);
    QCOMPARE(err[0], 0.0f);
}

void TestReference::uvSeamWeldedHardEdgeKept()
{
    // Two faces meeting at x = 0 along the z axis: a flat one (y = 0, x < 0) and a 90° wall (x = 0, y > 0).
    // Vertices 1/4 and 2/5 share positions. Case A: same rest normals (a UV seam): welded, normal is the average.
    // Case B: different rest normals (a hard edge): each keeps its own face normal.
    const std::vector<glm::vec3> p = {{-1, 0, 0}, {0, 0, 0}, {0, 0, -1}, {0, 1, 0}, {0, 0, 0}, {0, 0, -1}};
    const std::vector<uint32_t> idx = {0, 1, 2, 4, 3, 5};
    const glm::vec3 avg = glm::normalize(glm::vec3(1, 1, 0));
    // Face normals: (0,1,0) for the floor; the wall (4,3,5): (3-4)x(5-4) = (0,1,0)x(0,0,-1) = (-1,0,0).
    const glm::vec3 wall(-1, 0, 0);
    const std::vector<glm::vec3> seam = {{0, 1, 0}, avg, avg, wall, avg, avg};
    const Rebuilt a = rebuild(p, {}, idx, seam);
    RS_COMPARE_NEAR(angleDeg(a.normals[1], glm::vec3(-1, 1, 0)), 0.0, 1e-5);
    RS_COMPARE_NEAR(angleDeg(a.normals[4], glm::vec3(-1, 1, 0)), 0.0, 1e-5);
    const std::vector<glm::vec3> hard = {{0, 1, 0}, {0, 1, 0}, {0, 1, 0}, wall, wall, wall};
    const Rebuilt b = rebuild(p, {}, idx, hard);
    RS_COMPARE_NEAR(angleDeg(b.normals[1], glm::vec3(0, 1, 0)), 0.0, 1e-5);
    RS_COMPARE_NEAR(angleDeg(b.normals[4], wall), 0.0, 1e-5);
    QCOMPARE(buildMeshTopology(p, hard, idx).group[4], 4u);
    QCOMPARE(buildMeshTopology(p, seam, idx).group[4], 1u);
}

void TestReference::angleAccuracyNearZero()
{
    // acos would lose this: 1e-4 degrees between two unit vectors.
    const double a = 1e-4 / (180.0 / 3.14159265358979323846);
    RS_COMPARE_NEAR(angleDeg({1, 0, 0}, {float(std::cos(a)), float(std::sin(a)), 0}), 1e-4, 2e-6);
    RS_COMPARE_NEAR(angleDeg({1, 0, 0}, {-1, 0, 0}), 180.0, 1e-9);
    RS_COMPARE_NEAR(angleDeg({3, 0, 0}, {0, 0, 2}), 90.0, 1e-9);
}

void TestReference::statsNearestRankAndHistogram()
{
    std::vector<float> e;
    for (int i = 1; i <= 100; ++i)
        e.push_back(float(i) * 0.5f); // 0.5 .. 50
    e.push_back(kUndefinedError);
    const ErrorStats s = errorStats(e);
    QCOMPARE(s.defined, size_t(100));
    QCOMPARE(s.undefined, size_t(1));
    RS_COMPARE_NEAR(s.max, 50.0, 0);
    RS_COMPARE_NEAR(s.mean, 25.25, 1e-9);
    RS_COMPARE_NEAR(s.p95, 47.5, 0); // 95th of 100 sorted values
    QCOMPARE(s.histogram[0], 1u);    // 0.5
    QCOMPARE(s.histogram[1], 2u);    // 1.0, 1.5
    QCOMPARE(s.histogram[45], 11u);  // 45 .. 50
    const ErrorStats none = errorStats(std::vector<float>{kUndefinedError});
    QCOMPARE(none.defined, size_t(0));
    QCOMPARE(none.max, 0.0);
}

void TestReference::angularErrorsMatchDoublePrecision()
{
    // The vectorised float angles against the double-precision angleDeg: random pairs at every lane of the 8-wide
    // loop and its tail (n = 1003), vec3 / vec4 strides, tiny and large angles, opposite vectors, undefined inputs.
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    const size_t n = 1003;
    std::vector<glm::vec3> a(n), b(n);
    std::vector<glm::vec4> a4(n), b4(n);
    for (size_t i = 0; i < n; ++i) {
        a[i] = glm::normalize(glm::vec3(u(rng), u(rng), u(rng)));
        switch (i % 5) {
        case 0: b[i] = glm::normalize(glm::vec3(u(rng), u(rng), u(rng))); break;
        case 1: b[i] = glm::normalize(a[i] + 1e-4f * glm::vec3(u(rng), u(rng), u(rng))); break; // tiny angle
        case 2: b[i] = -a[i]; break;
        case 3: b[i] = glm::normalize(-a[i] + 1e-3f * glm::vec3(u(rng), u(rng), u(rng))); break; // near 180
        default: b[i] = a[i]; break;
        }
        a4[i] = glm::vec4(a[i], 1.0f);
        b4[i] = glm::vec4(b[i], -1.0f);
    }
    a[17] = glm::vec3(0.0f);                                        // undefined
    b[18] = glm::vec3(std::numeric_limits<float>::quiet_NaN());     // undefined
    a[n - 1] = glm::vec3(std::numeric_limits<float>::infinity(), 0, 0); // undefined, in the tail
    a4[17] = glm::vec4(0.0f);
    std::vector<float> e3(n), e4(n), e43(n);
    angularErrors(a, b, e3);
    angularErrors(a4, b4, e4);
    angularErrors(a4, b, e43);
    for (size_t i = 0; i < n; ++i) {
        const bool undefined = !isDefined(a[i]) || !isDefined(b[i]);
        if (undefined) {
            QCOMPARE(e3[i], kUndefinedError);
            continue;
        }
        const double exact = angleDeg(a[i], b[i]);
        QVERIFY2(std::fabs(e3[i] - exact) <= 2e-5 + 1e-6 * exact, qPrintable(QStringLiteral("%1: %2 vs %3").arg(i).arg(e3[i]).arg(exact)));
        if (i != 17) {
            QCOMPARE(e4[i], e3[i]);  // same vectors through the vec4 stride: the same bits
            QCOMPARE(e43[i], e3[i]);
        }
        if (a[i] == b[i])
            QCOMPARE(e3[i], 0.0f); // exactly 0, not rounding noise
    }
    QCOMPARE(e4[17], kUndefinedError);
}

void TestReference::angularErrorsAreTheSameBitsOnEveryPath()
{
    // A long array runs through the SIMD loops where the CPU has them — AVX-512: 4 x 16 interleaved, then 16 at a
    // time, then AVX2's 8; AVX2 alone: 4 x 8 interleaved, then 8 (4155 = 64 * 64 + 3 * 16 + 8 + 3 = 129 * 32 + 3 * 8 +
    // 3: every loop runs and the scalar form ends both) —, one pair at a time through the scalar form: every angle
    // must have the same bits either way (near 0°, near 45° — the range reduction's switch — near 90° and 180°,
    // random, undefined).
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    const size_t n = 4155;
    std::vector<glm::vec3> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
        a[i] = glm::normalize(glm::vec3(u(rng), u(rng), u(rng)));
        const glm::vec3 side = glm::normalize(glm::cross(a[i], glm::vec3(0.3f, 0.5f, 0.8f)));
        const float turn[] = {1e-4f, 0.3926991f, 0.7853982f, 1.5707964f, 3.1415f, 2.0f * u(rng) + 2.0f};
        const float angle = turn[i % 6] * (1.0f + 1e-3f * u(rng));
        b[i] = std::cos(angle) * a[i] + std::sin(angle) * side;
    }
    a[5] = glm::vec3(0.0f);
    b[40] = glm::vec3(std::numeric_limits<float>::quiet_NaN());
    a[n - 10] = glm::vec3(0.0f); // in the eight-wide remainder on either path
    // The same pairs as 4-vectors too (tangents: vec4 against vec4 and against vec3): the AVX-512 loop reads those in
    // a transposed lane order and puts the angles back in order, so a misplaced lane shows here as another pair's
    // angle. The w of a4 is noise the angle must ignore.
    std::vector<glm::vec4> a4(n), b4(n);
    for (size_t i = 0; i < n; ++i) {
        a4[i] = glm::vec4(a[i], u(rng));
        b4[i] = glm::vec4(b[i], u(rng));
    }
    auto sameBitsAsAlone = [n](const auto& x, const auto& y, const char* layout) {
        std::vector<float> all(n);
        angularErrors(x, y, all);
        for (size_t i = 0; i < n; ++i) {
            float one = 0.0f;
            angularErrors(std::span(x).subspan(i, 1), std::span(y).subspan(i, 1), std::span(&one, 1));
            QVERIFY2(std::memcmp(&one, &all[i], sizeof one) == 0,
                     qPrintable(QStringLiteral("%1, %2: %3 in the array, %4 alone").arg(layout).arg(i).arg(all[i], 0, 'g', 9).arg(one, 0, 'g', 9)));
        }
        QCOMPARE(all[5], kUndefinedError);
        QCOMPARE(all[40], kUndefinedError);
        QCOMPARE(all[n - 10], kUndefinedError);
    };
    sameBitsAsAlone(a, b, "vec3 / vec3");
    sameBitsAsAlone(std::span<const glm::vec4>(a4), std::span<const glm::vec4>(b4), "vec4 / vec4");
    sameBitsAsAlone(std::span<const glm::vec4>(a4), std::span<const glm::vec3>(b), "vec4 / vec3");
    // And the vec4 angles are the vec3 ones (the same xyz): the layouts share one definition.
    std::vector<float> e3(n), e4(n);
    angularErrors(a, b, e3);
    angularErrors(a4, b4, e4);
    QVERIFY(std::memcmp(e3.data(), e4.data(), n * sizeof(float)) == 0);
}

void TestReference::angularErrorPairsAreTheBitsOfTwoSingleCalls()
{
    // The two-reference form (a against b and against c in one pass) must give what two single calls give, bit for
    // bit, on every path: 4155 = 129 * 32 + 3 * 16 + 8 + 3 = 259 * 16 + 8 + 3 runs the AVX-512 pair loop (2 x 16
    // interleaved), its 16-wide remainder, AVX2's pair loop (2 x 8) and 8-wide remainder, and the scalar tail. Undefined
    // directions in a (both angles undefined), in b only and in c only, in each loop's range; the angles to b and to c
    // differ (a swapped output would show), and the vec4 tangents carry a w the angles must ignore.
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    const size_t n = 4155;
    std::vector<glm::vec3> a(n), b(n), c(n);
    std::vector<glm::vec4> a4(n), b4(n);
    for (size_t i = 0; i < n; ++i) {
        a[i] = glm::normalize(glm::vec3(u(rng), u(rng), u(rng)));
        b[i] = glm::normalize(a[i] + 0.2f * glm::vec3(u(rng), u(rng), u(rng)));
        c[i] = glm::normalize(glm::vec3(u(rng), u(rng), u(rng)));
    }
    for (size_t i : {size_t(3), size_t(2000), n - 12, n - 2})
        a[i] = glm::vec3(0.0f);
    for (size_t i : {size_t(17), size_t(4130), n - 1})
        b[i] = glm::vec3(std::numeric_limits<float>::infinity(), 0.0f, 0.0f);
    for (size_t i : {size_t(40), size_t(4140)})
        c[i] = glm::vec3(0.1f, 0.0f, 0.0f);
    for (size_t i = 0; i < n; ++i) {
        a4[i] = glm::vec4(a[i], u(rng));
        b4[i] = glm::vec4(b[i], u(rng));
    }
    auto sameBits = [n](const std::vector<float>& x, const std::vector<float>& y, const char* what) {
        for (size_t i = 0; i < n; ++i)
            QVERIFY2(std::memcmp(&x[i], &y[i], sizeof(float)) == 0,
                     qPrintable(QStringLiteral("%1, %2: %3 in the pair, %4 alone").arg(what).arg(i).arg(x[i], 0, 'g', 9).arg(y[i], 0, 'g', 9)));
    };
    std::vector<float> toB(n), toC(n), aloneB(n), aloneC(n);
    angularErrors(a, b, toB, c, toC);
    angularErrors(a, b, aloneB);
    angularErrors(a, c, aloneC);
    sameBits(toB, aloneB, "vec3 against b");
    sameBits(toC, aloneC, "vec3 against c");
    QCOMPARE(toB[2000], kUndefinedError);
    QCOMPARE(toC[2000], kUndefinedError);
    QCOMPARE(toB[4130], kUndefinedError);
    QVERIFY(toC[4130] >= 0.0f);
    QCOMPARE(toC[4140], kUndefinedError);
    QVERIFY(toB[4140] >= 0.0f);
    QVERIFY(toB[100] != toC[100]);
    std::ranges::fill(toB, 0.0f);
    std::ranges::fill(toC, 0.0f);
    angularErrors(std::span<const glm::vec4>(a4), std::span<const glm::vec4>(b4), toB, std::span<const glm::vec3>(c), toC);
    angularErrors(std::span<const glm::vec4>(a4), std::span<const glm::vec4>(b4), aloneB);
    angularErrors(std::span<const glm::vec4>(a4), std::span<const glm::vec3>(c), aloneC);
    sameBits(toB, aloneB, "vec4 against vec4 b");
    sameBits(toC, aloneC, "vec4 against vec3 c");
    QCOMPARE(toB[n - 2], kUndefinedError);
    QCOMPARE(toC[n - 2], kUndefinedError);
}

void TestReference::carriedReferenceRotatesByTheFrameChangeOnEveryPath()
{
    // Per vertex a random rotation Q takes the bind frame (t, n) to the posed one; the carried authored directions must
    // be Q applied to them. Some vertices keep their frame (exactly the authored direction back), some lose a normal
    // (zero) and some a tangent (the minimal rotation), in blocks of their own and mixed into others. A whole-range
    // job (16-wide where the CPU has AVX-512) and one job per vertex (the scalar form) give the same bits.
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    const size_t n = 1000;
    std::vector<glm::vec3> bn(n), pn(n), an(n), out(n), one(n), outT(n), oneT(n);
    std::vector<glm::vec4> bt(n), pt(n), at(n);
    std::vector<glm::quat> q(n);
    for (size_t v = 0; v < n; ++v) {
        bn[v] = glm::normalize(glm::vec3(u(rng), u(rng), u(rng)));
        const glm::vec3 t = glm::normalize(glm::cross(bn[v], glm::vec3(0.6f, -0.3f, 0.74f)));
        bt[v] = glm::vec4(t, 1.0f);
        q[v] = glm::normalize(glm::quat(u(rng), u(rng), u(rng), u(rng)));
        pn[v] = q[v] * bn[v];
        pt[v] = glm::vec4(q[v] * t, 1.0f);
        an[v] = 2.0f * glm::normalize(bn[v] + 0.3f * glm::vec3(u(rng), u(rng), u(rng))); // not unit: normalised first
        at[v] = glm::vec4(glm::normalize(t + 0.2f * glm::vec3(u(rng), u(rng), u(rng))), -1.0f);
    }
    auto special = [](size_t v) { return (v >= 160 && v < 176) || v % 37 == 5; };
    for (size_t v = 0; v < n; ++v) {
        if (!special(v))
            continue;
        switch (v % 3) {
        case 0: pn[v] = bn[v]; pt[v] = bt[v]; q[v] = glm::quat(1, 0, 0, 0); break; // the same frame
        case 1: pn[v] = glm::vec3(0.0f); break;                                    // no posed normal
        default: pt[v] = glm::vec4(0.0f); break;                                   // no posed tangent
        }
    }
    CarryJob job;
    job.authoredNormals = an;
    job.authoredTangents = at;
    job.bindNormals = bn;
    job.bindTangents = bt;
    job.posedNormals = pn;
    job.posedTangents = pt;
    job.outNormals = out;
    job.outTangents = outT;
    job.run(0, n);
    for (size_t v = 0; v < n; ++v) {
        CarryJob single = job;
        single.outNormals = one;
        single.outTangents = oneT;
        single.run(v, v + 1);
        QVERIFY2(std::memcmp(&one[v], &out[v], sizeof(glm::vec3)) == 0 && std::memcmp(&oneT[v], &outT[v], sizeof(glm::vec3)) == 0,
                 qPrintable(QStringLiteral("vertex %1: the whole-range job and the single-vertex job differ").arg(v)));
        const bool lost = special(v) && v % 3 == 1, minimal = special(v) && v % 3 == 2;
        if (lost) {
            QCOMPARE(out[v], glm::vec3(0.0f));
            continue;
        }
        if (minimal) { // the minimal rotation from bn to pn: a unit vector, perpendicular parts of bn kept
            QVERIFY(std::fabs(glm::length(out[v]) - 1.0f) < 1e-5f);
            continue;
        }
        const glm::vec3 expectN = q[v] * glm::normalize(an[v]), expectT = q[v] * glm::vec3(at[v]);
        QVERIFY2(angleDeg(out[v], expectN) < 2e-3 && angleDeg(outT[v], expectT) < 2e-3,
                 qPrintable(QStringLiteral("vertex %1: %2 / %3 degrees off Q applied").arg(v).arg(angleDeg(out[v], expectN))
                                .arg(angleDeg(outT[v], expectT))));
        if (special(v) && v % 3 == 0) // the same frame: the normalised authored direction, bit for bit
            QCOMPARE(out[v], an[v] * (1.0f / std::sqrt(glm::dot(an[v], an[v]))));
    }
}

void TestReference::histogramBinsMatchADirectCountAtEveryBoundary()
{
    // Every integer from 0 to 180, the floats just below and above it, zero, a denormal, random values and undefined
    // entries: each 1° bin (the last one open-ended) counted directly against errorStats' histogram, whose bins below
    // 32° come from its bucket counts and the others from a count per value.
    std::vector<float> e = {0.0f, 1e-40f, kUndefinedError};
    for (int k = 0; k <= 180; ++k) {
        e.push_back(float(k));
        e.push_back(std::nextafter(float(k), 0.0f));
        e.push_back(std::nextafter(float(k), 1000.0f));
    }
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> u(0.0f, 180.0f);
    for (int i = 0; i < 5000; ++i)
        e.push_back(i % 3 ? u(rng) / 6.0f : u(rng));
    std::array<uint32_t, kHistogramBins> expect{};
    for (float x : e)
        if (x >= 0.0f)
            ++expect[size_t(std::min(int(x), kHistogramBins - 1))];
    const ErrorStats s = errorStats(e);
    for (int b = 0; b < kHistogramBins; ++b)
        QVERIFY2(s.histogram[size_t(b)] == expect[size_t(b)],
                 qPrintable(QStringLiteral("bin %1: %2, counted %3").arg(b).arg(s.histogram[size_t(b)]).arg(expect[size_t(b)])));
}

void TestReference::p95IsTheNearestRankOfLargeSets()
{
    // The bucketed selection against a full sort, on sets with ties, a long tail and undefined entries.
    std::mt19937 rng(9);
    for (size_t n : {size_t(1), size_t(2), size_t(19), size_t(1000), size_t(100003)}) {
        std::exponential_distribution<float> ex(0.3f);
        std::vector<float> e(n);
        for (size_t i = 0; i < n; ++i)
            e[i] = i % 11 == 0 ? kUndefinedError : i % 7 == 0 ? 2.5f : ex(rng);
        std::vector<float> sorted;
        for (float x : e)
            if (x >= 0.0f)
                sorted.push_back(x);
        std::sort(sorted.begin(), sorted.end());
        const ErrorStats s = errorStats(e);
        QCOMPARE(s.defined, sorted.size());
        if (sorted.empty())
            continue;
        const size_t rank = size_t(std::ceil(0.95 * double(sorted.size())));
        QCOMPARE(float(s.p95), sorted[std::max<size_t>(rank, 1) - 1]);
        QCOMPARE(float(s.max), sorted.back());
    }
}


void TestReference::statsMeanIsTheSixteenLaneSumAndNegativeZeroIsZero()
{
    // The mean is the sum of sixteen double accumulators (element i in lane i % 16, each in order, merged in lane
    // order) over the defined count, whichever path ran: computed here the same way from the same values, bit for bit,
    // on lengths around the 16-value blocks; -0 counts as a defined 0 (its sign bit would put it past the last
    // bucket). A quarter of the values around 1e9, so that their sums with the others need more than a double's 53
    // bits and round: another order of the additions (four lanes, say) gives other bits.
    std::mt19937 rng(12);
    std::exponential_distribution<float> ex0(0.2f);
    auto ex = [&ex0](std::mt19937& g) { const float x = ex0(g); return g() % 4 == 0 ? x * 1e9f : x; };
    for (size_t n : {size_t(1), size_t(15), size_t(16), size_t(17), size_t(35), size_t(1000), size_t(4099)}) {
        std::vector<float> e(n);
        for (size_t i = 0; i < n; ++i)
            e[i] = i % 13 == 5 ? kUndefinedError : i % 17 == 3 ? -0.0f : i % 19 == 2 ? std::numeric_limits<float>::quiet_NaN()
                                                                                        : ex(rng);
        double lane[16] = {};
        size_t defined = 0;
        float mx = 0.0f;
        for (size_t i = 0; i < n; ++i)
            if (e[i] >= 0.0f) {
                lane[i % 16] += double(e[i] + 0.0f);
                ++defined;
                mx = std::max(mx, e[i]);
            }
        const ErrorStats s = errorStats(e);
        QCOMPARE(s.defined, defined);
        QCOMPARE(s.undefined, n - defined);
        if (defined == 0)
            continue;
        double total = lane[0];
        for (int l = 1; l < 16; ++l)
            total += lane[l];
        const double mean = total / double(defined);
        QVERIFY2(s.mean == mean, qPrintable(QString::number(s.mean - mean))); // exact (QCOMPARE on doubles is fuzzy)
        QCOMPARE(float(s.max), mx);
        size_t histogramTotal = 0;
        for (uint32_t c : s.histogram)
            histogramTotal += c;
        QCOMPARE(histogramTotal, defined);
    }
    const ErrorStats zero = errorStats(std::vector<float>{-0.0f});
    QCOMPARE(zero.defined, size_t(1));
    QCOMPARE(zero.p95, 0.0);
    QCOMPARE(zero.histogram[0], 1u);
}

void TestReference::p95IsExactWhenItsBucketHoldsTensOfThousands()
{
    // A smooth error field puts most values in one bucket (1/32 of an octave), where errorStats narrows them by their
    // next eight bits before the selection: the nearest rank against a full sort, with the values spread over a whole
    // bucket, packed into a few sub-buckets with ties on their edges, and with the rank's value repeated across the
    // boundary of its sub-bucket; undefined entries among them.
    std::mt19937 rng(33);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    const float base = 10.0f; // [8, 16): buckets 0.25 wide, sub-buckets 1/1024
    std::vector<std::vector<float>> sets;
    for (size_t n : {size_t(2049), size_t(5000), size_t(120001)}) {
        std::vector<float> spread(n), packed(n), edges(n);
        for (size_t i = 0; i < n; ++i) {
            spread[i] = i % 37 == 0 ? kUndefinedError : base + 0.25f * u(rng) * 0.999f;
            packed[i] = base + float(rng() % 3) / 1024.0f + (i % 5 == 0 ? 0.0f : u(rng) / 4096.0f);
            // Three values only: 90% just below a sub-bucket's lower edge, 5% on it (the rank's value), 5% above.
            const float edge = base + 7.0f / 1024.0f;
            edges[i] = i % 20 < 18 ? std::nextafter(edge, 0.0f) : i % 20 == 18 ? edge : base + 0.2f;
        }
        std::shuffle(edges.begin(), edges.end(), rng);
        sets.push_back(spread);
        sets.push_back(packed);
        sets.push_back(edges);
    }
    for (const std::vector<float>& e : sets) {
        std::vector<float> sorted;
        for (float x : e)
            if (x >= 0.0f)
                sorted.push_back(x);
        std::sort(sorted.begin(), sorted.end());
        const ErrorStats s = errorStats(e);
        QCOMPARE(s.defined, sorted.size());
        const size_t rank = size_t(std::ceil(0.95 * double(sorted.size())));
        QCOMPARE(float(s.p95), sorted[rank - 1]);
        QCOMPARE(float(s.max), sorted.back());
    }
}

void TestReference::p95IsExactInTheLumpedBucketsAndForOneRepeatedValue()
{
    // The buckets lump every value below 2^-16 into one and every value from 256 up into another: a percentile that
    // falls there is still the nearest rank (against a full sort), and so is one over a single repeated value (the
    // selection skipped) and a bucket that holds two values.
    std::mt19937 rng(21);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    auto tiny = [&] { return std::ldexp(u(rng), -20 - int(rng() % 100)); };       // 2^-120 .. 2^-20
    auto huge = [&] { return 256.0f + 1e6f * u(rng); };
    std::vector<std::vector<float>> sets;
    sets.push_back(std::vector<float>(1000, 0.0f));
    sets.push_back(std::vector<float>(777, 7.5f));
    {
        std::vector<float> e(5000);
        for (float& x : e)
            x = tiny();
        e[3] = 0.0f;
        e[4] = 1e-45f; // a denormal
        sets.push_back(e);
    }
    {
        std::vector<float> e(5000);
        for (size_t i = 0; i < e.size(); ++i)
            e[i] = i % 50 == 0 ? 3.0f : huge(); // the 95th percentile among the huge ones
        sets.push_back(e);
    }
    {
        std::vector<float> e(2000);
        for (size_t i = 0; i < e.size(); ++i)
            e[i] = i % 3 ? 1.0f : std::nextafter(1.0f, 2.0f); // one bucket, two values
        sets.push_back(e);
    }
    for (const std::vector<float>& e : sets) {
        std::vector<float> sorted = e;
        std::sort(sorted.begin(), sorted.end());
        const ErrorStats s = errorStats(e);
        QCOMPARE(s.defined, e.size());
        const size_t rank = size_t(std::ceil(0.95 * double(sorted.size())));
        QCOMPARE(float(s.p95), sorted[rank - 1]);
        QCOMPARE(float(s.max), sorted.back());
        QCOMPARE(s.histogram[0] + s.histogram[kHistogramBins - 1] + s.histogram[1] + s.histogram[3] + s.histogram[7],
                 uint32_t(e.size()));
    }
}

void TestReference::handednessMismatchesCountDefinedOppositePairsOnly()
{
    // 40 pairs (past two 16-value blocks and a tail): opposite w counts only where both xyz are defined (|v|² > 0.25,
    // finite); w = -0 is not negative.
    std::vector<glm::vec4> a, b;
    size_t expected = 0;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (int i = 0; i < 40; ++i) {
        const float wa = i % 2 ? -1.0f : 1.0f, wb = i % 3 ? 1.0f : (i % 6 == 3 ? -0.0f : -1.0f);
        glm::vec3 ta(1, 0, 0), tb(0, 1, 0);
        if (i % 5 == 4)
            ta = glm::vec3(0.4f, 0.2f, 0.1f); // |v|² = 0.21: undefined
        if (i % 7 == 6)
            tb = glm::vec3(nan, 0, 0);
        if (i % 11 == 10)
            tb = glm::vec3(0.5f, 0.0f, 0.0f); // |v|² = 0.25: undefined (not above)
        a.emplace_back(ta, wa);
        b.emplace_back(tb, wb);
        const bool defined = i % 5 != 4 && i % 7 != 6 && i % 11 != 10;
        expected += defined && (wa < 0.0f) != (wb < 0.0f) ? 1 : 0;
    }
    QVERIFY(expected > 5);
    QCOMPARE(handednessMismatches(a, b), expected);
    for (size_t n : {size_t(0), size_t(15), size_t(16), size_t(33)}) {
        size_t head = 0;
        for (size_t i = 0; i < n; ++i)
            head += isDefined(glm::vec3(a[i])) && isDefined(glm::vec3(b[i])) && (a[i].w < 0.0f) != (b[i].w < 0.0f) ? 1 : 0;
        QCOMPARE(handednessMismatches(std::span(a).first(n), std::span(b).first(n)), head);
    }
}

void TestReference::uvDifferencesAreEachTrianglesTwoEdgesInUv()
{
    // Two triangles over three UVs (exact in binary), the second in another corner order; a NaN UV stays NaN in the
    // rows of the triangles that use it (nothing is "fixed"), and a trailing partial triangle is not a triangle.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<glm::vec2> uv{{0.25f, 0.5f}, {1.0f, 0.5f}, {0.25f, 2.0f}, {nan, 0.0f}};
    const std::vector<uint32_t> idx{0, 1, 2, 2, 0, 1, 3, 0, 1, 0, 1};
    AlignedVector<glm::vec4> d(7, glm::vec4(5.0f));
    referenceUvDifferences(uv, idx, d);
    QCOMPARE(d.size(), size_t(3));
    QCOMPARE(d[0], glm::vec4(0.75f, 0.0f, 0.0f, 1.5f));
    QCOMPARE(d[1], glm::vec4(0.0f, -1.5f, 0.75f, -1.5f));
    QVERIFY(std::isnan(d[2].x) && std::isnan(d[2].z));
    QCOMPARE(d[2].y, 0.5f);
    QCOMPARE(d[2].w, 0.5f);
    QCOMPARE(reinterpret_cast<uintptr_t>(d.data()) % 64, uintptr_t(0)); // aligned rows
}

void TestReference::simdFacePassAndGatherAreTheScalarBitsOnRealAndHostileMeshes()
{
    REQUIRE_ASSETS();
    // Every SIMD kernel this processor runs (AVX-512, AVX2), against the scalar one, bit for bit.
    struct Kernel {
        const char* name;
        void (*faces)(const detail::FaceArgs&, size_t, size_t);
        void (*gather)(const detail::GatherArgs&, size_t, size_t);
    };
    std::vector<Kernel> kernels;
    if (cpuHasAvx512())
        kernels.push_back({"AVX-512", detail::faceTermsAvx512, detail::gatherFramesAvx512});
    if (cpuHasAvx2())
        kernels.push_back({"AVX2", detail::faceTermsAvx2, detail::gatherFramesAvx2});
    if (kernels.empty())
        QSKIP("this processor has neither AVX-512 nor AVX2");
    struct Case {
        const char* name;
        std::vector<glm::vec3> p, restNormals;
        std::vector<glm::vec2> uv;
        std::vector<uint32_t> idx;
    };
    std::vector<Case> cases;
    {
        // CesiumMan: UV seams (groups of several vertices, so the two-list gather), real proportions.
        ImportOptions o;
        o.isolate = false;
        auto r = importFile(testutil::assetPath("CesiumMan/cesium_man.gltf"), o);
        QVERIFY(r.ok());
        const Mesh& m = r.value().meshes[0];
        cases.push_back({"CesiumMan", m.positions, m.normals, m.uvs, m.indices});
    }
    {
        // A jittered 41 x 41 grid with everything that takes the special cases: repeated corners (zero area), NaN and
        // infinite positions, coordinates whose squares overflow, repeated and mirrored UVs (zero and negative
        // determinants), a vanishing UV triangle, and a seam weld (split rest normals are the same: one group).
        const Rig grid = makeBenchmarkRig(41 * 41, 2, 1);
        Case c{"hostile grid", grid.meshes[0].positions, grid.meshes[0].normals, grid.meshes[0].uvs, grid.meshes[0].indices};
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> jitter(-0.02f, 0.02f), uvd(0.0f, 1.0f);
        for (glm::vec3& q : c.p)
            q += glm::vec3(jitter(rng), jitter(rng), jitter(rng));
        for (size_t i = 0; i < c.uv.size(); i += 7)
            c.uv[i] = glm::vec2(uvd(rng), uvd(rng));
        const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
        c.p[50] = glm::vec3(nan, 0, 0);
        c.p[90] = glm::vec3(0, inf, 0);
        c.p[300] = glm::vec3(1e20f, 1e20f, -1e20f);
        c.p[301] = glm::vec3(-1e20f, 3e19f, 1e20f);
        for (size_t t = 0; t < c.idx.size() / 3; t += 11)
            c.idx[3 * t + 1] = c.idx[3 * t]; // zero area
        for (size_t v = 400; v < 420; ++v)
            c.uv[v] = glm::vec2(0.5f, 0.5f); // zero determinant
        for (size_t v = 600; v < 700; ++v)
            c.uv[v].x = -c.uv[v].x; // mirrored
        c.uv[800] = glm::vec2(0.5f, 0.5f) + glm::vec2(1e-7f, 0.0f);
        c.uv[801] = glm::vec2(0.5f, 0.5f) + glm::vec2(0.0f, 1e-7f);
        c.uv[802] = glm::vec2(0.5f, 0.5f);
        cases.push_back(std::move(c));
    }
    for (const Case& c : cases) {
        const ReferenceTopology topo = buildMeshTopology(c.p, c.restNormals, c.idx);
        const size_t T = topo.triangleCount(), N = c.p.size();
        const glm::vec3 zero(0.0f);
        for (const Kernel& k : kernels)
        for (bool withUvs : {true, false}) {
            // The pairs (normal and tangent rows, 8 floats a triangle), then the bitangent rows (4 floats a
            // triangle), in one aligned array; NaN-filled, so that a row the kernel does not write differs.
            const float nan = std::numeric_limits<float>::quiet_NaN();
            AlignedVector<float> scalar((detail::kPairFloats + 4) * T, nan), simd = scalar;
            // With the vertex count, as the rebuild passes it (the AVX2 kernel then loads whole 16-byte corners in the
            // runs that do not touch the last vertex, exactly in those that do: both kinds are among the ranges below).
            auto faceArgs = [&](AlignedVector<float>& rows) {
                return detail::FaceArgs{c.p.data(), withUvs ? c.uv.data() : nullptr, c.idx.data(), rows.data(),
                                        rows.data() + detail::kPairFloats * T, c.p.size()};
            };
            auto sameRows = [&](const AlignedVector<float>& x, const AlignedVector<float>& y) {
                return std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
            };
            const detail::FaceArgs fs = faceArgs(scalar), fv = faceArgs(simd);
            for (size_t t = 0; t < T; ++t)
                detail::faceTerms(fs, t);
            // Ranges that start and end off the blocks, as parallelFor's chunks of another grain would, and one of
            // a single block with a few more (the kernels take several blocks at a time).
            auto simdFaces = [&](const detail::FaceArgs& args) {
                k.faces(args, 0, 5);
                k.faces(args, 5, 5 + 16 + 3);
                k.faces(args, 24, T - 3);
                k.faces(args, T - 3, T);
            };
            simdFaces(fv);
            QVERIFY2(sameRows(scalar, simd), qPrintable(QStringLiteral("%1 %2: face terms differ").arg(k.name, c.name)));
            if (withUvs) {
                // From the precomputed UV differences (the runtime's) instead of the UVs: the same bits.
                AlignedVector<glm::vec4> differences;
                referenceUvDifferences(c.uv, c.idx, differences);
                AlignedVector<float> fromDifferences(scalar.size(), nan);
                detail::FaceArgs fd = faceArgs(fromDifferences);
                fd.uvDifferences = &differences[0].x;
                fd.triangleCount = T; // the index and difference prefetch inside the arrays, as the rebuild runs it
                simdFaces(fd);
                QVERIFY2(sameRows(scalar, fromDifferences),
                         qPrintable(QStringLiteral("%1 %2: face terms from UV differences differ").arg(k.name, c.name)));
            }

            std::vector<glm::vec3> n1(N), n2(N);
            std::vector<glm::vec4> t1(N), t2(N);
            detail::GatherArgs ga{topo.group.data(), topo.groupTriangleOffsets.data(), topo.groupTriangles.data(),
                                  topo.vertexTriangleOffsets.data(), topo.vertexTriangles.data(), scalar.data(),
                                  scalar.data() + detail::kPairFloats * T, &n1[0].x, &t1[0].x, withUvs, 0};
            for (size_t v = 0; v < N; ++v)
                detail::gatherVertex(ga, v);
            ga.normals = &n2[0].x;
            ga.tangents = &t2[0].x;
            // 37 vertices: runs of blocks (AVX-512: a pair of 16, gathered pairwise; AVX2: two pairs of 8) and a scalar
            // tail.
            k.gather(ga, 0, 7);
            k.gather(ga, 7, 7 + 32 + 5);
            k.gather(ga, 44, N - 2);
            k.gather(ga, N - 2, N);
            QVERIFY2(std::memcmp(n1.data(), n2.data(), N * sizeof(glm::vec3)) == 0,
                     qPrintable(QStringLiteral("%1 %2: normals differ").arg(k.name, c.name)));
            QVERIFY2(std::memcmp(t1.data(), t2.data(), N * sizeof(glm::vec4)) == 0,
                     qPrintable(QStringLiteral("%1 %2: tangents differ").arg(k.name, c.name)));
            // Not a vacuous comparison: the cases reach defined and undefined frames of both handednesses.
            size_t defined = 0, undefined = 0, negative = 0;
            for (const glm::vec4& t : t1) {
                defined += t.w != 0.0f;
                undefined += t.w == 0.0f;
                negative += t.w < 0.0f;
            }
            if (withUvs) {
                QVERIFY(defined > N / 2);
                QVERIFY(c.name[0] != 'h' || (undefined > 0 && negative > 0));
            } else {
                QCOMPARE(defined, size_t(0));
            }
        }
    }
}

namespace {

/// A rig's reference frames, every mesh's normals then tangents, as one byte string (for bit comparisons).
struct Frames {
    std::vector<std::vector<glm::vec3>> normals;
    std::vector<std::vector<glm::vec4>> tangents;
    bool operator==(const Frames& o) const
    {
        if (normals.size() != o.normals.size())
            return false;
        for (size_t m = 0; m < normals.size(); ++m)
            if (normals[m].size() != o.normals[m].size() || tangents[m].size() != o.tangents[m].size() ||
                std::memcmp(normals[m].data(), o.normals[m].data(), normals[m].size() * sizeof(glm::vec3)) != 0 ||
                std::memcmp(tangents[m].data(), o.tangents[m].data(), tangents[m].size() * sizeof(glm::vec4)) != 0)
                return false;
        return true;
    }
};

/// The reference of `positions` (one array per mesh) by rebuildReference (scheduled: true) or by the two passes
/// called one after the other, on `threads` threads with `kernel`.
Frames rebuildRig(const Rig& rig, const ReferenceTopology& topo, const std::vector<std::vector<glm::vec3>>& positions,
                  bool scheduled, unsigned threads, ReferenceKernel kernel,
                  const std::vector<AlignedVector<glm::vec4>>* uvDifferences = nullptr)
{
    const ScopedThreadLimit limit(threads);
    Frames f;
    std::vector<ReferenceMeshIO> io(rig.meshes.size());
    f.normals.resize(rig.meshes.size());
    f.tangents.resize(rig.meshes.size());
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        f.normals[m].assign(mesh.vertexCount(), glm::vec3(-7.0f));
        f.tangents[m].assign(mesh.vertexCount(), glm::vec4(-7.0f));
        io[m] = {positions[m], mesh.uvs, mesh.indices, f.normals[m], f.tangents[m], {}};
        if (uvDifferences)
            io[m].uvDifferences = (*uvDifferences)[m];
    }
    ReferenceScratch scratch;
    scratch.kernel = kernel;
    if (scheduled) {
        rebuildReference(topo, io, scratch);
        return f;
    }
    for (size_t m = 0; m < io.size(); ++m)
        rebuildFaces(topo, m, io[m].positions, io[m].uvs, io[m].indices, scratch, io[m].uvDifferences);
    for (size_t m = 0; m < io.size(); ++m)
        gatherFrames(topo, m, !io[m].uvs.empty(), scratch, io[m].outNormals, io[m].outTangents);
    return f;
}

std::vector<ReferenceKernel> availableKernels()
{
    std::vector<ReferenceKernel> k{ReferenceKernel::Scalar};
    if (cpuHasAvx2())
        k.push_back(ReferenceKernel::Avx2);
    if (cpuHasAvx512())
        k.push_back(ReferenceKernel::Avx512);
    return k;
}

} // namespace

void TestReference::windowedScheduleIsTheTwoPassBitsOnRealRigsWhateverTheThreads()
{
    REQUIRE_ASSETS();
    struct Case {
        QString name;
        Rig rig;
    };
    std::vector<Case> cases;
    for (const char* file : {"CesiumMan/cesium_man.gltf", "Fox/Fox.glb", "RobotExpressive/RobotExpressive.glb",
                             "Collada_astro_maya/astro_maya.dae", "X_BCN_Epileptic/BCN_Epileptic.X"}) {
        ImportOptions o;
        o.isolate = false;
        auto r = importFile(testutil::assetPath(file), o);
        QVERIFY2(r.ok(), file);
        cases.push_back({QString::fromUtf8(file), std::move(r.value())});
    }
    // A grid of many tasks, whose windows wrap around many times.
    cases.push_back({QStringLiteral("grid 300 x 300"), makeBenchmarkRig(300 * 300, 8, 4)});
    size_t windowed = 0, withDifferences = 0;
    for (const Case& c : cases) {
        const ReferenceTopology topo = buildReferenceTopology(c.rig);
        windowed += topo.schedule.windowTriangles > 0;
        // Positions moved off the authored ones (every face term changes), deterministic.
        std::mt19937 rng(3);
        std::uniform_real_distribution<float> jitter(-0.01f, 0.01f);
        std::vector<std::vector<glm::vec3>> positions;
        for (const Mesh& mesh : c.rig.meshes) {
            positions.push_back(mesh.positions);
            for (glm::vec3& p : positions.back())
                p += glm::vec3(jitter(rng), jitter(rng), jitter(rng)) * (1.0f + glm::length(p) * 0.1f);
        }
        // Other positions: rebuilt first on the same threads, they leave other terms in every thread's window, so
        // that a row the schedule failed to compute shows.
        std::vector<std::vector<glm::vec3>> other = positions;
        for (std::vector<glm::vec3>& mesh : other)
            for (glm::vec3& p : mesh)
                p = glm::vec3(p.z, 2.0f * p.x, p.y);
        // The UV differences as the runtime keeps them: with them, both ways give the same bits again.
        std::vector<AlignedVector<glm::vec4>> differences(c.rig.meshes.size());
        for (size_t m = 0; m < c.rig.meshes.size(); ++m)
            if (!c.rig.meshes[m].uvs.empty()) {
                referenceUvDifferences(c.rig.meshes[m].uvs, c.rig.meshes[m].indices, differences[m]);
                withDifferences += 1;
            }
        for (ReferenceKernel k : availableKernels()) {
            const Frames twoPass = rebuildRig(c.rig, topo, positions, false, 1, k);
            QVERIFY2(rebuildRig(c.rig, topo, positions, false, 1, k, &differences) == twoPass,
                     qPrintable(QStringLiteral("%1, %2 kernel, two passes with UV differences")
                                    .arg(c.name, referenceKernelName(k))));
            for (unsigned threads : {1u, 2u}) {
                QVERIFY(!(rebuildRig(c.rig, topo, other, true, threads, k) == twoPass));
                for (bool withUvDifferences : {false, true})
                    QVERIFY2(rebuildRig(c.rig, topo, positions, true, threads, k, withUvDifferences ? &differences : nullptr) ==
                                 twoPass,
                             qPrintable(QStringLiteral("%1, %2 kernel, %3 threads (window %4)%5")
                                            .arg(c.name, referenceKernelName(k)).arg(threads)
                                            .arg(topo.schedule.windowTriangles)
                                            .arg(withUvDifferences ? QStringLiteral(", UV differences") : QString())));
            }
        }
    }
    // The cases exercise the window: the grid and the real files in their exported orders all get one; and most of
    // their meshes have UVs.
    QCOMPARE(windowed, cases.size());
    QVERIFY(withDifferences >= cases.size());
}

void TestReference::scatteredTriangleOrderFallsBackToTwoPasses()
{
    // A grid too large for one window (a small mesh is one task whose window holds all its triangles, in any order),
    // its triangles shuffled.
    const Rig grid = makeBenchmarkRig(300 * 300, 8, 4);
    const Mesh& m = grid.meshes[0];
    std::vector<uint32_t> shuffled = m.indices;
    {
        std::vector<size_t> order(m.triangleCount());
        for (size_t t = 0; t < order.size(); ++t)
            order[t] = t;
        std::shuffle(order.begin(), order.end(), std::mt19937(11));
        for (size_t t = 0; t < order.size(); ++t)
            for (int k = 0; k < 3; ++k)
                shuffled[3 * t + size_t(k)] = m.indices[3 * order[t] + size_t(k)];
    }
    const ReferenceTopology ordered = buildMeshTopology(m.positions, m.normals, m.indices);
    const ReferenceTopology scattered = buildMeshTopology(m.positions, m.normals, shuffled);
    QVERIFY(ordered.schedule.windowTriangles > 0);
    QVERIFY(ordered.schedule.taskBegin.size() > 3);
    QCOMPARE(scattered.schedule.windowTriangles, uint32_t(0)); // every chunk would need triangles from everywhere
    QVERIFY(scattered.schedule.chunkBegin.empty());
    // The fallback rebuilds the same frames (the sums in another order: equal to rounding). Bent, so that the
    // normals vary.
    std::vector<glm::vec3> p = m.positions;
    for (glm::vec3& q : p)
        q.y = 0.3f * q.x * q.x - 0.2f * q.z;
    const Rebuilt a = rebuild(p, m.uvs, m.indices, m.normals);
    const Rebuilt b = rebuild(p, m.uvs, shuffled, m.normals);
    for (size_t v = 0; v < m.vertexCount(); ++v) {
        QVERIFY2(glm::length(a.normals[v] - b.normals[v]) < 1e-5f, qPrintable(QString::number(v)));
        QVERIFY2(glm::length(a.tangents[v] - b.tangents[v]) < 1e-5f, qPrintable(QString::number(v)));
    }
}

QTEST_GUILESS_MAIN(TestReference)
#include "test_reference.moc"
