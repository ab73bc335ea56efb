// Every deformation method against analytic answers, on the built-in rigs and on hand-built ones.
#include "testutil.h"

#include <atomic>
#include <cstring>
#include <random>
#include <thread>
#include <tuple>

#include "rig/deform/deform.h"
#include "rig/deform/joint_frames.h"
#include "rig/deform/morph.h"
#include "rig/platform/parallel.h"
#include "rig/model/pose.h"
#include "rig/analysis/reference/reference.h"
#include "rig/deform/skinning.h"
#include "rig/deform/kernels/skinning_internal.h"
#include "rig/platform/cpu_features.h"
#include "rig/platform/huge_pages.h"

using namespace rig;

namespace {

struct Run {
    Rig rig;
    RigRuntime runtime;
    Evaluation eval;
};

Run evaluatePose(Rig r, const Pose& pose, int k = 4, bool morphNormals = true)
{
    Run run;
    run.rig = std::move(r);
    run.runtime = buildRuntime(run.rig, k);
    auto resolved = resolvePose(run.rig, pose);
    if (!resolved)
        qFatal("pose: %s", resolved.error().c_str());
    DeformSettings s;
    s.morphNormals = morphNormals;
    evaluate(run.rig, run.runtime, resolved.value(), allMethods(), s, run.eval);
    return run;
}

const MethodFrames& frames(const Run& r, Method m, size_t mesh = 0) { return r.eval.meshes[mesh].methods[size_t(m)]; }

constexpr double kRad = 180.0 / 3.14159265358979323846;

// A benchmark rig in a random pose with some scale (none when `rigid`), its palette, and a linear job reading its
// bind-space inputs.
struct PosedJob {
    Rig rig;
    RigRuntime runtime;
    std::vector<JointFrame> palette;
    SkinJob job;

    PosedJob(size_t vertices, int joints, int k, unsigned seed, bool rigid = false)
    {
        rig = makeBenchmarkRig(vertices, joints, k);
        runtime = buildRuntime(rig, k);
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> u(-60.0f, 60.0f);
        Pose pose;
        for (const Node& n : rig.skeleton.nodes) {
            pose.joints[n.name].rotateDeg = glm::vec3(u(rng), u(rng), u(rng));
            const glm::vec3 scale(1.0f + u(rng) / 200.0f, 1.0f, 1.0f - u(rng) / 300.0f);
            if (!rigid)
                pose.joints[n.name].scale = scale;
            pose.joints[n.name].translate = glm::vec3(u(rng), u(rng), u(rng)) / 100.0f;
        }
        auto resolved = resolvePose(rig, pose);
        if (!resolved)
            qFatal("pose: %s", resolved.error().c_str());
        std::vector<glm::mat4> world;
        evaluateWorld(rig, resolved.value(), world);
        std::vector<std::vector<glm::mat4>> pal;
        evaluatePalettes(rig, world, pal);
        std::vector<glm::mat4> m = pal[0];
        m.push_back(glm::mat4(1.0f));
        palette.resize(m.size());
        buildJointFrames(m, palette);
        const Mesh& mesh = rig.meshes[0];
        job.method = Method::Linear;
        job.palette = palette;
        job.influencesPerVertex = k;
        job.joints = runtime.meshes[0].stream.joints;
        job.weights = runtime.meshes[0].stream.weights;
        job.positions = mesh.positions;
        job.normals = mesh.normals;
        job.tangents = mesh.tangents;
        job.gradients = runtime.meshes[0].gradients.view();
        job.centers = runtime.meshes[0].centers;
    }
    size_t size() const { return rig.meshes[0].vertexCount(); }

    /// The gradients' block plan made again from the job's joints and weights, after a test changed them: its slot
    /// weights are what the folded jacobian blends (the gradient lists stay those of the rig's weights).
    void replan()
    {
        WeightGradients& g = runtime.meshes[0].gradients;
        planGradientBlocks(g, job.joints, job.weights, job.influencesPerVertex);
        job.gradients = g.view();
    }

    /// Edge cases: joint 3 singular (a zero column), joint 5 mirrored (a negated column), and NaN / zero rest normals
    /// on a few vertices (inputs are read from copies).
    void makeHostile()
    {
        std::vector<glm::mat4> m(palette.size());
        for (size_t i = 0; i < m.size(); ++i)
            m[i] = palette[i].matrix;
        m[3][0] = glm::vec4(0.0f);
        m[5][1] = -m[5][1];
        buildJointFrames(m, palette);
        job.palette = palette;
        normals.assign(rig.meshes[0].normals.begin(), rig.meshes[0].normals.end());
        for (size_t v = 7; v < normals.size(); v += 997)
            normals[v] = (v / 997) % 2 ? glm::vec3(std::numeric_limits<float>::quiet_NaN()) : glm::vec3(0.0f);
        job.normals = normals;
        // NaN and infinite rest tangents on a few others (at both phases of the two-vertex kernels).
        tangents.assign(rig.meshes[0].tangents.begin(), rig.meshes[0].tangents.end());
        for (size_t v = 12; v < tangents.size(); v += 499)
            tangents[v] = (v / 499) % 2 ? glm::vec4(std::numeric_limits<float>::quiet_NaN(), 0, 0, 1)
                                        : glm::vec4(std::numeric_limits<float>::infinity(), 1, 0, -1);
        job.tangents = tangents;
        // A few vertices weighted wholly to the singular joint: their blended matrix is singular too.
        joints.assign(job.joints.begin(), job.joints.end());
        weights.assign(job.weights.begin(), job.weights.end());
        const size_t k = size_t(job.influencesPerVertex);
        for (size_t v = 11; v < size(); v += 1499) {
            for (size_t i = 0; i < k; ++i) {
                joints[k * v + i] = i == 0 ? 3 : 0;
                weights[k * v + i] = i == 0 ? 1.0f : 0.0f;
            }
        }
        job.joints = joints;
        job.weights = weights;
        replan();
    }
    std::vector<glm::vec3> normals;
    std::vector<glm::vec4> tangents;
    std::vector<uint16_t> joints;
    std::vector<float> weights;
};

// Output arrays of one job, filled with a sentinel; `offset` shifts them in their storage (another alignment).
struct Outputs {
    static constexpr float kSentinel = -12345.0f;
    std::vector<glm::vec3> p, n;
    std::vector<glm::vec4> t;
    std::vector<uint8_t> f;
    size_t offset = 0, count = 0;

    Outputs(size_t count_, bool tangents, size_t offset_ = 0) : offset(offset_), count(count_)
    {
        p.assign(count + offset, glm::vec3(kSentinel));
        n.assign(count + offset, glm::vec3(kSentinel));
        t.assign(tangents ? count + offset : 0, glm::vec4(kSentinel));
        f.assign(count + offset, 0xAB);
    }
    void attach(SkinJob& job)
    {
        job.outPositions = std::span(p).subspan(offset, count);
        job.outNormals = std::span(n).subspan(offset, count);
        job.outTangents = t.empty() ? std::span<glm::vec4>() : std::span(t).subspan(offset, count);
        job.outFlags = std::span(f).subspan(offset, count);
    }
};

// Compares vertex v of a kernel's outputs with the scalar path's, within the documented tolerances.
bool matches(const Outputs& a, const Outputs& ref, size_t v, QString* why)
{
    const glm::vec3 pa = a.p[a.offset + v], pr = ref.p[ref.offset + v];
    const glm::vec3 na = a.n[a.offset + v], nr = ref.n[ref.offset + v];
    if (!(glm::length(pa - pr) <= 1e-5f * std::max(1.0f, glm::length(pr)))) {
        *why = QStringLiteral("position");
        return false;
    }
    if (glm::length(nr) == 0.0f ? glm::length(na) != 0.0f
                                : !(angleDeg(na, nr) < 0.01 && std::fabs(glm::length(na) - 1.0f) < 1e-5f)) {
        *why = QStringLiteral("normal");
        return false;
    }
    if (!a.t.empty()) {
        const glm::vec4 ta = a.t[a.offset + v], tr = ref.t[ref.offset + v];
        const glm::vec3 ta3(ta), tr3(tr);
        if (glm::length(tr3) == 0.0f ? glm::length(ta3) != 0.0f
                                     : !(angleDeg(ta3, tr3) < 0.01 && std::fabs(glm::length(ta3) - 1.0f) < 1e-5f)) {
            *why = QStringLiteral("tangent");
            return false;
        }
        if (ta.w != tr.w) {
            *why = QStringLiteral("handedness");
            return false;
        }
    }
    if (a.f[a.offset + v] != ref.f[ref.offset + v]) {
        *why = QStringLiteral("flag %1, expected %2").arg(a.f[a.offset + v]).arg(ref.f[ref.offset + v]);
        return false;
    }
    return true;
}

bool untouched(const Outputs& a, size_t v)
{
    const size_t i = a.offset + v;
    bool ok = a.p[i] == glm::vec3(Outputs::kSentinel) && a.n[i] == glm::vec3(Outputs::kSentinel) && a.f[i] == 0xAB;
    if (!a.t.empty())
        ok = ok && a.t[i] == glm::vec4(Outputs::kSentinel);
    return ok;
}

// The scalar path's outputs of the whole job with method m (its range reset to every vertex).
Outputs scalarOutputs(PosedJob& pj, Method m)
{
    pj.job.method = m;
    pj.job.first = 0;
    pj.job.last = SIZE_MAX;
    Outputs ref(pj.size(), true);
    ref.attach(pj.job);
    runMethodKernel(pj.job, LinearKernel::Scalar);
    return ref;
}

// Inside [first, last) the scalar path's result (matches), outside untouched: empty, or the first vertex that is not.
QString rangeMismatch(const Outputs& out, const Outputs& ref, size_t n, size_t first, size_t last)
{
    QString why;
    for (size_t v = 0; v < n; ++v) {
        const bool inside = v >= first && v < last;
        if (inside ? !matches(out, ref, v, &why) : !untouched(out, v))
            return QStringLiteral("vertex %1 %2").arg(v).arg(inside ? QStringLiteral("wrong: ") + why : QStringLiteral("written"));
    }
    return {};
}

// Runs `kernel` on pj's job (its method already set) over [first, last) into fresh outputs at `offset`, through
// `run` (runMethodKernel, or runLinearKernel for the linear kernels): empty when rangeMismatch finds nothing against
// ref, else what it found, named by kernel, method, offset and range.
QString kernelRangeMismatch(PosedJob& pj, LinearKernel kernel, const Outputs& ref, size_t offset, size_t first, size_t last,
                            void (*run)(const SkinJob&, LinearKernel) = runMethodKernel)
{
    const size_t n = pj.size();
    Outputs out(n, true, offset);
    out.attach(pj.job);
    pj.job.first = first;
    pj.job.last = last;
    run(pj.job, kernel);
    const QString bad = rangeMismatch(out, ref, n, first, last);
    if (bad.isEmpty())
        return {};
    return QStringLiteral("%1 %2, offset %3, [%4, %5): %6")
        .arg(QString::fromLatin1(linearKernelName(kernel).data()))
        .arg(QString::fromLatin1(methodId(pj.job.method).data()))
        .arg(offset).arg(first).arg(last).arg(bad);
}

struct SequentialScratch {
    std::vector<glm::vec3> normalSums, tangentSums, bitangentSums;
};

// The reference rebuild as one sequential scatter over the triangles (its definition, as it was before it became a
// parallel gather): the face pass and gather must reproduce it bit for bit on any number of threads.
void sequentialRebuild(std::span<const glm::vec3> positions, std::span<const glm::vec2> uvs, std::span<const uint32_t> indices,
                   std::span<const uint32_t> groups, std::span<glm::vec3> outNormals, std::span<glm::vec4> outTangents,
                   SequentialScratch& scratch)
{
    const size_t n = positions.size();
    assert(groups.size() == n && outNormals.size() == n);
    assert(outTangents.empty() || outTangents.size() == n);
    assert(uvs.empty() || uvs.size() == n);
    const bool wantTangents = !outTangents.empty() && !uvs.empty();

    scratch.normalSums.assign(n, glm::vec3(0.0f));
    if (wantTangents) {
        scratch.tangentSums.assign(n, glm::vec3(0.0f));
        scratch.bitangentSums.assign(n, glm::vec3(0.0f));
    }
    glm::vec3* nsum = scratch.normalSums.data();
    glm::vec3* tsum = scratch.tangentSums.data();
    glm::vec3* bsum = scratch.bitangentSums.data();

    const size_t triangles = indices.size() / 3;
    for (size_t t = 0; t < triangles; ++t) {
        const uint32_t i0 = indices[3 * t], i1 = indices[3 * t + 1], i2 = indices[3 * t + 2];
        assert(i0 < n && i1 < n && i2 < n);
        const glm::vec3 e1 = positions[i1] - positions[i0];
        const glm::vec3 e2 = positions[i2] - positions[i0];
        const glm::vec3 c = glm::cross(e1, e2);
        const float area2 = glm::dot(c, c);
        if (!(area2 > 0.0f) || !std::isfinite(area2))
            continue; // zero-area (or non-finite) triangles contribute nothing
        nsum[groups[i0]] += c;
        nsum[groups[i1]] += c;
        nsum[groups[i2]] += c;
        if (!wantTangents)
            continue;
        const glm::vec2 d1 = uvs[i1] - uvs[i0];
        const glm::vec2 d2 = uvs[i2] - uvs[i0];
        const float det = d1.x * d2.y - d2.x * d1.y;
        if (!(std::fabs(det) > kMinUvDet) || !std::isfinite(det))
            continue;
        const float w = std::sqrt(area2) / det;
        const glm::vec3 ft = (e1 * d2.y - e2 * d1.y) * w;
        const glm::vec3 fb = (e2 * d1.x - e1 * d2.x) * w;
        if (!std::isfinite(ft.x + ft.y + ft.z + fb.x + fb.y + fb.z))
            continue;
        tsum[i0] += ft;
        tsum[i1] += ft;
        tsum[i2] += ft;
        bsum[i0] += fb;
        bsum[i1] += fb;
        bsum[i2] += fb;
    }

    for (size_t v = 0; v < n; ++v) {
        const glm::vec3 nrm = safeNormalize(nsum[groups[v]]);
        outNormals[v] = nrm;
        if (outTangents.empty())
            continue;
        if (!wantTangents || !isDefined(nrm)) {
            outTangents[v] = glm::vec4(0.0f);
            continue;
        }
        const glm::vec3 tv = tsum[v];
        const glm::vec3 tan = safeNormalize(tv - nrm * glm::dot(nrm, tv));
        const float hand = glm::dot(glm::cross(nrm, tan), bsum[v]) < 0.0f ? -1.0f : 1.0f;
        outTangents[v] = isDefined(tan) ? glm::vec4(tan, hand) : glm::vec4(0.0f);
    }
}

std::vector<LinearKernel> simdKernels()
{
    std::vector<LinearKernel> out;
    for (LinearKernel k : {LinearKernel::Avx2, LinearKernel::Avx512})
        if (linearKernelAvailable(k))
            out.push_back(k);
    return out;
}

} // namespace

class TestSkinning : public QObject {
    Q_OBJECT
private slots:
    void methodIdsRoundTrip();
    void rampStretchedTwiceAlongX_data();
    void rampStretchedTwiceAlongX();
    void mirroredJointCofactorKeepsWindingInverseTransposeFlips();
    void candyWrapper_data();
    void candyWrapper();
    void liftStripJacobianFollowsTiltMatrixMethodsDoNot();
    void liftStripWeightGradientIsExact();
    void gradientBlockPlanLaysOutSlotsAndRefusesWhatItCannotHold();
    void gradientBlockPlanCarriesSlotWeightsAndFoldsOnlyCoveredBlocks();
    void jacobianKernelsAgreeWithScalarPlannedUnplannedAndWithoutPlan();
    void morphThenSkinOrder();
    void morphNormalDeltasSwitch();
    void morphRangesAddTheWeightedDeltasAndSplitToTheWholeRunsBits();
    void rebuiltReferenceTurnsRigidPartsWithTheirJoint();
    void dualQuaternionReportsMirroredJoint();
    void evaluateCountsFlagsAndHandednessOverEveryChunkAndMesh();
    void flaggedJointsAreListedOnceByNodeAcrossMeshes();
    void polarDecomposition();
    void unboundVertexStaysAtBindPosition();
    void fastPathMatchesScalar();
    void linearKernelsMatchScalar_data();
    void linearKernelsMatchScalar();
    void linearKernelsWriteOnlyTheirRange();
    void methodKernelsMatchScalar_data();
    void methodKernelsMatchScalar();
    void methodKernelsWriteOnlyTheirRange();
    void methodKernelsStreamLargeJobsIntoTheirRangeOnly();
    void positionsAloneKernelsMatchScalarInTheirRangeOnly();
    void methodKernelsAreUsedByRun();
    void halfWidthAvx512IsAmdFamily25Only();
    void halfWidthLinearKernelStreamsPastItsBytes();
    void halfWidthJacobianKernelTakesAvx2ForPlannedJobsBelowItsVertices();
    void avx2KernelsRunTheirAvx512RegisterBuildOnlyWhereAvx512Runs();
    void optionalOutputsAreLeftOutAndTheRestIsTheSame();
    void linearKernelsFallBackOnNonFinitePalette();
    void parallelForCoversEveryIndexOnce();
    void parallelRebuildIsBitExact();
    void eightInfluencesUseMoreWeights();
    void validateRejectsBadSizes();
    void hugePageInteriorIsTheWhole2MBPagesInside();
    void adviseHugePagesKeepsEveryByte();
};

void TestSkinning::methodIdsRoundTrip()
{
    const char* ids[] = {"positions-only", "linear", "blend-inverse-transpose", "inverse-transpose",
                         "cofactor", "dual-quaternion", "jacobian", "center-of-rotation", "rebuilt"};
    QCOMPARE(int(allMethods().size()), 9);
    for (size_t i = 0; i < 9; ++i) {
        QCOMPARE(QString::fromLatin1(methodId(allMethods()[i]).data(), int(methodId(allMethods()[i]).size())),
                 QString::fromLatin1(ids[i]));
        QVERIFY(methodFromId(ids[i]) == allMethods()[i]);
    }
    QVERIFY(!methodFromId("lbs"));
}

void TestSkinning::rampStretchedTwiceAlongX_data()
{
    QTest::addColumn<int>("method");
    QTest::addColumn<double>("slopeError");
    // True slope normal tilts atan(0.5) = 26.565°; A3 n tilts atan(2) = 63.435°; rest stays at 45°.
    QTest::newRow("positions-only") << int(Method::PositionsOnly) << 45.0 - std::atan(0.5) * kRad;
    QTest::newRow("linear") << int(Method::Linear) << std::atan(2.0) * kRad - std::atan(0.5) * kRad;
    QTest::newRow("blend-inverse-transpose") << int(Method::BlendInverseTranspose) << 0.0;
    QTest::newRow("inverse-transpose") << int(Method::InverseTranspose) << 0.0;
    QTest::newRow("cofactor") << int(Method::Cofactor) << 0.0;
    QTest::newRow("dual-quaternion") << int(Method::DualQuaternion) << 0.0;
    QTest::newRow("jacobian") << int(Method::Jacobian) << 0.0;
}

void TestSkinning::rampStretchedTwiceAlongX()
{
    QFETCH(int, method);
    QFETCH(double, slopeError);
    Pose pose;
    pose.joints["root"].scale = glm::vec3(2.0f, 1.0f, 1.0f);
    const Run r = evaluatePose(testutil::sample("ramp"), pose);
    const Mesh& mesh = r.rig.meshes[0];
    const MethodFrames& f = frames(r, Method(method));
    int slope = 0;
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
        const glm::vec3 n = mesh.normals[v];
        if (std::fabs(n.x + 0.70710678f) > 1e-4f || std::fabs(n.y - 0.70710678f) > 1e-4f)
            continue; // not on the slope
        ++slope;
        RS_COMPARE_NEAR(f.normalErrorDeg[v], slopeError, 0.01);
        // The reference itself is the analytic normal (-0.5, 1, 0)/|.|.
        const glm::vec3 ref = r.eval.meshes[0].linear.referenceNormals[v];
        RS_COMPARE_NEAR(angleDeg(ref, glm::vec3(-0.5f, 1.0f, 0.0f)), 0.0, 0.01);
    }
    QVERIFY(slope >= 81); // the 8x8-cell slope grid
    const MethodStats& st = r.eval.stats[size_t(method)];
    RS_COMPARE_NEAR(st.normal.max, slopeError, 0.01);
    // Tangents transform like edges: exact for every method that moves them with the matrix.
    if (Method(method) != Method::PositionsOnly)
        RS_COMPARE_NEAR(st.tangent.max, 0.0, 0.01);
}

void TestSkinning::mirroredJointCofactorKeepsWindingInverseTransposeFlips()
{
    Pose pose;
    pose.joints["root"].scale = glm::vec3(-1.0f, 1.0f, 1.0f);
    const Run r = evaluatePose(testutil::sample("ramp"), pose);
    // Mirroring flips the winding, so the rebuilt normal is cof(A) n = det(A) A^{-T} n. The cofactor agrees with it;
    // the inverse transpose (and here the plain 3x3) point the opposite way on every vertex.
    RS_COMPARE_NEAR(r.eval.stats[size_t(Method::Cofactor)].normal.max, 0.0, 0.01);
    const MethodFrames& it = frames(r, Method::InverseTranspose);
    for (float e : it.normalErrorDeg)
        RS_COMPARE_NEAR(e, 180.0, 0.01);
    // The joint is reported as mirrored and dual quaternions fall back to the linear blend on every vertex.
    QCOMPARE(int(r.eval.mirroredJoints.size()), 1);
    QCOMPARE(r.eval.stats[size_t(Method::DualQuaternion)].dqFallbackVertices, r.rig.meshes[0].vertexCount());
}

void TestSkinning::candyWrapper_data()
{
    QTest::addColumn<double>("theta");
    QTest::newRow("30") << 30.0;
    QTest::newRow("90") << 90.0;
    QTest::newRow("150") << 150.0;
    QTest::newRow("180") << 180.0;
}

void TestSkinning::candyWrapper()
{
    QFETCH(double, theta);
    Pose pose;
    pose.joints["twist"].rotateDeg = glm::vec3(float(theta), 0.0f, 0.0f);
    const Run r = evaluatePose(testutil::sample("twist_tube"), pose);
    const Mesh& mesh = r.rig.meshes[0];
    const float radius = glm::length(glm::vec2(mesh.positions[0].y, mesh.positions[0].z));
    const Surface& lbs = r.eval.meshes[0].linear;
    const Surface& dq = r.eval.meshes[0].dualQuaternion;
    int ring = 0;
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
        if (std::fabs(mesh.positions[v].x - 1.0f) > 1e-6f)
            continue; // only the ring weighted 0.5 / 0.5
        ++ring;
        const float lbsRadius = glm::length(glm::vec2(lbs.positions[v].y, lbs.positions[v].z));
        const float dqRadius = glm::length(glm::vec2(dq.positions[v].y, dq.positions[v].z));
        RS_COMPARE_NEAR(lbsRadius, radius * std::cos(theta / kRad / 2.0), 1e-5);
        RS_COMPARE_NEAR(dqRadius, radius, 1e-5);
        RS_COMPARE_NEAR(lbs.positions[v].x, 1.0, 1e-5);
        RS_COMPARE_NEAR(dq.positions[v].x, 1.0, 1e-5);
    }
    QVERIFY(ring >= 32);
    if (theta == 180.0) {
        // At 180° the blended 3x3 of the ring is diag(1, 0, 0): it crushes every radial normal to (float) noise.
        // Errors stay numbers in [0, 180] or undefined, never NaN; dual quaternions keep a defined normal there.
        const MeshEvaluation& me = r.eval.meshes[0];
        const MeshRuntime& mr = r.runtime.meshes[0];
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            const float e = frames(r, Method::Linear).normalErrorDeg[v];
            QVERIFY(e == kUndefinedError || (e >= 0.0f && e <= 180.0f));
            if (std::fabs(mesh.positions[v].x - 1.0f) > 1e-6f)
                continue;
            glm::mat3 a(0.0f);
            for (int i = 0; i < 4; ++i)
                a += mr.stream.weights[v * 4 + size_t(i)] * glm::mat3(me.palette[mr.stream.joints[v * 4 + size_t(i)]].matrix);
            QVERIFY(glm::length(a * mesh.normals[v]) < 1e-6f);
            QVERIFY(frames(r, Method::DualQuaternion).normalErrorDeg[v] >= 0.0f);
            RS_COMPARE_NEAR(frames(r, Method::DualQuaternion).normalErrorDeg[v], 0.0, 1.0);
        }
    }
}

void TestSkinning::liftStripJacobianFollowsTiltMatrixMethodsDoNot()
{
    const float h = 0.5f, length = 2.0f;
    Pose pose;
    pose.joints["lift"].translate = glm::vec3(0.0f, h, 0.0f);
    const Run r = evaluatePose(testutil::sample("lift_strip"), pose);
    const double tilt = std::atan(h / length) * kRad; // 14.036°
    const Mesh& mesh = r.rig.meshes[0];
    for (Method m : {Method::PositionsOnly, Method::Linear, Method::BlendInverseTranspose, Method::InverseTranspose,
                     Method::Cofactor, Method::DualQuaternion, Method::Jacobian, Method::Rebuilt}) {
        const MethodFrames& f = frames(r, m);
        const bool followsSurface = m == Method::Jacobian || m == Method::Rebuilt;
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            if (m != Method::DualQuaternion) // DQ bends the strip differently; its own reference is checked below
                RS_COMPARE_NEAR(angleDeg(r.eval.meshes[0].linear.referenceNormals[v], glm::vec3(0, 1, 0)), tilt, 1e-3);
            const double upright = angleDeg(f.normals[v], glm::vec3(0, 1, 0));
            if (followsSurface) {
                RS_COMPARE_NEAR(upright, tilt, 1e-3);
                RS_COMPARE_NEAR(f.normalErrorDeg[v], 0.0, 1e-3);
            } else {
                RS_COMPARE_NEAR(upright, 0.0, 1e-3);
            }
        }
    }
    RS_COMPARE_NEAR(r.eval.stats[size_t(Method::Linear)].normal.max, tilt, 1e-3);
    RS_COMPARE_NEAR(r.eval.stats[size_t(Method::Linear)].normal.mean, tilt, 1e-3);
    // Tangents: the jacobian stretches them along the slope too.
    RS_COMPARE_NEAR(r.eval.stats[size_t(Method::Jacobian)].tangent.max, 0.0, 1e-3);
    RS_COMPARE_NEAR(r.eval.stats[size_t(Method::Linear)].tangent.max, tilt, 1e-3);
}

void TestSkinning::liftStripWeightGradientIsExact()
{
    const Rig rg = testutil::sample("lift_strip");
    const RigRuntime rt = buildRuntime(rg, 4);
    const WeightGradients& g = rt.meshes[0].gradients;
    const int lift = rg.skeleton.find("lift");
    QVERIFY(lift >= 0);
    const Skin& skin = rg.skins[size_t(rg.meshes[0].skin)];
    const auto liftSlot = uint16_t(std::find(skin.joints.begin(), skin.joints.end(), lift) - skin.joints.begin());
    for (size_t v = 0; v < rg.meshes[0].vertexCount(); ++v) {
        bool found = false;
        glm::vec3 sum(0.0f);
        for (uint32_t i = g.offsets[v]; i < g.offsets[v + 1]; ++i) {
            sum += g.gradients[i];
            if (g.joints[i] == liftSlot) {
                found = true;
                RS_COMPARE_NEAR(g.gradients[i].x, 0.5, 1e-5);
                RS_COMPARE_NEAR(g.gradients[i].y, 0.0, 1e-6);
                RS_COMPARE_NEAR(g.gradients[i].z, 0.0, 1e-5);
            }
        }
        QVERIFY(found);
        // Normalised weights: the gradients of one vertex sum to zero.
        RS_COMPARE_NEAR(glm::length(sum), 0.0, 1e-5);
    }
}

void TestSkinning::gradientBlockPlanLaysOutSlotsAndRefusesWhatItCannotHold()
{
    // Hand-made lists, 40 vertices (blocks of 16: two full, one of 8).
    WeightGradients g;
    g.offsets.assign(41, 0);
    auto add = [&](size_t v, uint16_t joint, glm::vec3 grad) {
        g.joints.insert(g.joints.begin() + g.offsets[v + 1], joint);
        g.gradients.insert(g.gradients.begin() + g.offsets[v + 1], grad);
        for (size_t u = v + 1; u < g.offsets.size(); ++u)
            ++g.offsets[u];
    };
    // Block 0: vertex 0 lists joints 7 then 3, vertex 2 lists 3, vertex 15 lists 9 then 7; the rest nothing.
    add(0, 7, {1, 2, 3});
    add(0, 3, {4, 5, 6});
    add(2, 3, {7, 8, 9});
    add(15, 9, {10, 11, 12});
    add(15, 7, {13, 14, 15});
    // Block 1: vertex 16 lists 17 distinct joints: more than kMaxSlotsPerBlock.
    for (uint16_t j = 0; j < 17; ++j)
        add(16, uint16_t(20 + j), {1, 0, 0});
    // Block 2 (partial): vertex 32 lists joint 5 twice (one lane cannot hold two terms of one slot).
    add(32, 5, {1, 0, 0});
    add(32, 5, {2, 0, 0});
    planGradientBlocks(g);
    QCOMPARE(g.blockSlots.size(), size_t(4));
    QCOMPARE(g.blockData.size(), size_t(4));
    // Block 0: the low half's slots, then both halves', then the high half's: 3 (vertices 0, 2), 7 (vertices 0, 15),
    // 9 (vertex 15) — in order of first appearance within each run, 7 would come first.
    QCOMPARE(g.blockSlots[0], 0u);
    QCOMPARE(g.blockSlots[1] & ~WeightGradients::kUnplanned, 3u);
    QCOMPARE(g.slotEntries.size(), size_t(3));
    QCOMPARE(g.slotEntries[0], 3u | (1u | 1u << 2) << 16);
    QCOMPARE(g.slotEntries[1], 7u | (1u | 1u << 15) << 16);
    QCOMPARE(g.slotEntries[2], 9u | (1u << 15) << 16);
    const std::vector<float> data(g.slotGradients.begin(), g.slotGradients.begin() + g.blockData[1]);
    const std::vector<float> expected = {4, 7, 5, 8, 6, 9,    // joint 3: x of vertices 0, 2; then y; then z
                                         1, 13, 2, 14, 3, 15, // joint 7: vertices 0, 15
                                         10, 11, 12};         // joint 9: vertex 15
    // Both halves' slots start at slot 1 and float 6, the high half's alone at slot 2.
    QCOMPARE(g.blockHalves.size(), size_t(3));
    QCOMPARE(g.blockHalves[0], 1u | 2u << 8 | 6u << 16);
    QCOMPARE(data, expected);
    // Blocks 1 and 2 are not planned and add nothing; the padding follows the last slot's floats.
    QVERIFY(g.blockSlots[1] & WeightGradients::kUnplanned);
    QVERIFY(g.blockSlots[2] & WeightGradients::kUnplanned);
    QCOMPARE(g.blockHalves[1], 0u);
    QCOMPARE(g.blockHalves[2], 0u);
    QCOMPARE(g.blockSlots[3], 3u);
    QCOMPARE(g.blockData[3], g.blockData[1]);
    QCOMPARE(g.slotGradients.size(), size_t(g.blockData[3]) + WeightGradients::kSlotGradientPadding);
    // A block of many terms that share few joints is planned; one joint per vertex across a block is not (each slot
    // would run sixteen lanes for one term).
    WeightGradients wide;
    wide.offsets.assign(17, 0);
    for (size_t v = 0; v < 16; ++v) {
        wide.joints.push_back(uint16_t(v));
        wide.gradients.push_back({1, 0, 0});
        wide.offsets[v + 1] = uint32_t(v + 1);
    }
    planGradientBlocks(wide);
    QVERIFY(wide.blockSlots[0] & WeightGradients::kUnplanned);
}

void TestSkinning::gradientBlockPlanCarriesSlotWeightsAndFoldsOnlyCoveredBlocks()
{
    // Two blocks of hand-made lists with two influences a vertex.
    constexpr int k = 2;
    WeightGradients g;
    g.offsets.assign(33, 0);
    std::vector<uint16_t> joints(32 * k, 0);
    std::vector<float> weights(32 * k, 0.0f);
    auto add = [&](size_t v, uint16_t joint) {
        g.joints.insert(g.joints.begin() + g.offsets[v + 1], joint);
        g.gradients.insert(g.gradients.begin() + g.offsets[v + 1], glm::vec3(1, 2, 3));
        for (size_t u = v + 1; u < g.offsets.size(); ++u)
            ++g.offsets[u];
    };
    auto weigh = [&](size_t v, uint16_t j0, float w0, uint16_t j1, float w1) {
        joints[k * v] = j0;
        weights[k * v] = w0;
        joints[k * v + 1] = j1;
        weights[k * v + 1] = w1;
    };
    // Block 0: vertex 0 lists 7 and 3 and is weighted to joint 3 twice (0.25 + 0.5) — its weight of 7 is zero;
    // vertex 2 lists 3 and is weighted to it alone; vertex 15 lists 7 and 9, weighted 0.4 and 0.6. The others list
    // nothing and weigh nothing. Every weighted joint has a slot with its vertex: folded.
    add(0, 7);
    add(0, 3);
    add(2, 3);
    add(15, 7);
    add(15, 9);
    weigh(0, 3, 0.25f, 3, 0.5f);
    weigh(2, 3, 1.0f, 0, 0.0f);
    weigh(15, 9, 0.6f, 7, 0.4f);
    // Block 1: vertex 16 lists joint 5 but is weighted to 5 and 6 (6's gradient vanished there): not folded.
    add(16, 5);
    weigh(16, 5, 0.5f, 6, 0.5f);

    planGradientBlocks(g); // without the weights: no slot weights
    QVERIFY(g.slotWeights.empty());
    QVERIFY(g.blockFolded.empty());
    QVERIFY(!(g.blockSlots[0] & WeightGradients::kUnplanned));

    planGradientBlocks(g, joints, weights, k);
    QCOMPARE(g.blockFolded.size(), size_t(2));
    QCOMPARE(int(g.blockFolded[0]), 1);
    QCOMPARE(int(g.blockFolded[1]), 0);
    // Slots of block 0: 3 (vertices 0, 2: the low half alone), 7 (vertices 0, 15: both), 9 (vertex 15); block 1: 5.
    QCOMPARE(g.slotEntries.size(), size_t(4));
    QCOMPARE(g.slotEntries[0], 3u | (1u | 1u << 2) << 16);
    QCOMPARE(g.slotEntries[1], 7u | (1u | 1u << 15) << 16);
    QCOMPARE(g.slotEntries[2], 9u | (1u << 15) << 16);
    QCOMPARE(g.slotEntries[3], 5u | 1u << 16);
    // A slot's weights start at its first gradient float / 3, one per vertex in the order of its x run.
    QCOMPARE(g.blockData[1], 15u);
    const std::vector<float> expected = {0.75f, 1.0f, 0.0f, 0.4f, 0.6f, 0.5f};
    QCOMPARE(std::vector<float>(g.slotWeights.begin(), g.slotWeights.begin() + 6), expected);
    QCOMPARE(g.slotWeights.size(), size_t(g.blockData[2]) / 3 + WeightGradients::kSlotGradientPadding);
}

void TestSkinning::morphThenSkinOrder()
{
    // Bend the sheet's middle joint and apply a morph: the pipeline must morph in bind space, then skin.
    Pose pose;
    const Rig sheet = testutil::sample("sheet");
    const std::string joint = sheet.skeleton.nodes[2].name;
    pose.joints[joint].rotateDeg = glm::vec3(0.0f, 0.0f, 40.0f);
    pose.morphs["towel_twist"] = 1.0f;
    const Run r = evaluatePose(sheet, pose);
    const Mesh& mesh = r.rig.meshes[0];
    const MeshEvaluation& me = r.eval.meshes[0];
    const MeshRuntime& mr = r.runtime.meshes[0];
    size_t target = 0;
    while (mesh.morphTargets[target].name != "towel_twist")
        ++target;
    double wrongOrderMax = 0.0;
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
        glm::mat4 a(0.0f);
        for (int i = 0; i < 4; ++i)
            a += mr.stream.weights[v * 4 + size_t(i)] * me.palette[mr.stream.joints[v * 4 + size_t(i)]].matrix;
        const glm::vec3 delta = mesh.morphTargets[target].positionDeltas[v];
        const glm::vec3 right = glm::vec3(a * glm::vec4(mesh.positions[v] + delta, 1.0f));
        const glm::vec3 wrong = glm::vec3(a * glm::vec4(mesh.positions[v], 1.0f)) + delta;
        QVERIFY(glm::length(me.linear.positions[v] - right) < 1e-5f);
        wrongOrderMax = std::max(wrongOrderMax, double(glm::length(me.linear.positions[v] - wrong)));
    }
    // Skinning first would move the deltas by the bones' rotation: clearly different here.
    QVERIFY2(wrongOrderMax > 0.05, qPrintable(QString::number(wrongOrderMax)));
}

void TestSkinning::morphNormalDeltasSwitch()
{
    Pose pose;
    pose.morphs["middle_fold"] = 1.0f;
    const Run with = evaluatePose(testutil::sample("sheet"), pose, 4, true);
    const Run without = evaluatePose(testutil::sample("sheet"), pose, 4, false);
    // Positions are the same either way; only the directions change.
    for (size_t v = 0; v < with.rig.meshes[0].vertexCount(); v += 97)
        QVERIFY(glm::length(with.eval.meshes[0].linear.positions[v] - without.eval.meshes[0].linear.positions[v]) < 1e-6f);
    const double errWith = with.eval.stats[size_t(Method::Linear)].normal.max;
    const double errWithout = without.eval.stats[size_t(Method::Linear)].normal.max;
    // Without deltas the normals stay flat while the fold rises steeply; with them they follow within discretisation.
    QVERIFY2(errWithout > 20.0, qPrintable(QString::number(errWithout)));
    QVERIFY2(errWith < 5.0, qPrintable(QString::number(errWith)));
}

void TestSkinning::morphRangesAddTheWeightedDeltasAndSplitToTheWholeRunsBits()
{
    // Three targets, the middle one at weight 0 (skipped), one without normal deltas, one without tangent deltas.
    // Vertex 0 in exact binary fractions: p = (1, 2, 3) + 0.5 (2, 0, 4) - 1.25 (0, 8, 0.8) ... the normal and tangent
    // likewise, tangent w kept. Then random data: three ranges ([0, 1), [1, 333), [333, 1000)) give the whole run's bits.
    const size_t n = 1000;
    std::mt19937 rng(8);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    auto randomVec3 = [&] { return glm::vec3(u(rng), u(rng), u(rng)); };
    std::vector<glm::vec3> positions(n), normals(n);
    std::vector<glm::vec4> tangents(n);
    std::vector<MorphTarget> targets(3);
    for (size_t v = 0; v < n; ++v) {
        positions[v] = randomVec3();
        normals[v] = randomVec3();
        tangents[v] = glm::vec4(randomVec3(), v % 2 ? 1.0f : -1.0f);
    }
    for (MorphTarget& t : targets) {
        t.positionDeltas.resize(n);
        t.normalDeltas.resize(n);
        t.tangentDeltas.resize(n);
        for (size_t v = 0; v < n; ++v) {
            t.positionDeltas[v] = randomVec3();
            t.normalDeltas[v] = randomVec3();
            t.tangentDeltas[v] = randomVec3();
        }
    }
    targets[0].tangentDeltas.clear();
    targets[2].normalDeltas.clear();
    positions[0] = glm::vec3(1, 2, 3);
    normals[0] = glm::vec3(0, 1, 0);
    tangents[0] = glm::vec4(1, 0, 0, -1);
    targets[0].positionDeltas[0] = glm::vec3(2, 0, 4);
    targets[0].normalDeltas[0] = glm::vec3(0.5f, 0, 0);
    targets[1].positionDeltas[0] = glm::vec3(100, 100, 100); // weight 0: never added
    targets[2].positionDeltas[0] = glm::vec3(0, 8, 0.75f);
    targets[2].tangentDeltas[0] = glm::vec3(0, 4, 0);
    const std::vector<float> weights = {0.5f, 0.0f, -1.25f};

    std::vector<glm::vec3> wholeP(n), wholeN(n), splitP(n), splitN(n);
    std::vector<glm::vec4> wholeT(n), splitT(n);
    MorphJob job;
    job.positions = positions;
    job.normals = normals;
    job.tangents = tangents;
    job.targets = targets;
    job.weights = weights;
    job.outPositions = wholeP;
    job.outNormals = wholeN;
    job.outTangents = wholeT;
    QVERIFY(job.validate());
    job.run();
    QCOMPARE(wholeP[0], glm::vec3(2, -8, 4.0625f));
    QCOMPARE(wholeN[0], glm::vec3(0.25f, 1, 0));
    QCOMPARE(wholeT[0], glm::vec4(1, -5, 0, -1));
    job.outPositions = splitP;
    job.outNormals = splitN;
    job.outTangents = splitT;
    job.run(0, 1);
    job.run(1, 333);
    job.run(333, n);
    QVERIFY(std::memcmp(wholeP.data(), splitP.data(), n * sizeof(glm::vec3)) == 0);
    QVERIFY(std::memcmp(wholeN.data(), splitN.data(), n * sizeof(glm::vec3)) == 0);
    QVERIFY(std::memcmp(wholeT.data(), splitT.data(), n * sizeof(glm::vec4)) == 0);
    for (size_t v = 0; v < n; v += 111)
        QCOMPARE(wholeT[v].w, tangents[v].w);

    // Without normal deltas the directions are the rest ones, whatever the targets carry.
    job.withNormalDeltas = false;
    job.run(0, 1);
    QCOMPARE(splitP[0], glm::vec3(2, -8, 4.0625f));
    QCOMPARE(splitN[0], glm::vec3(0, 1, 0));
    QCOMPARE(splitT[0], glm::vec4(1, 0, 0, -1));
}

void TestSkinning::rebuiltReferenceTurnsRigidPartsWithTheirJoint()
{
    // The elbow bent 70° about z: away from the weight band the tube moves rigidly, so its rebuilt normals are the
    // bind-pose rebuilt normals turned by exactly that rotation (upper part: unchanged). Near the band they are not.
    Pose pose;
    pose.joints["lower"].rotateDeg = glm::vec3(0, 0, 70);
    const Run r = evaluatePose(testutil::sample("elbow"), pose);
    const RigRuntime rt = buildRuntime(r.rig, 4);
    const Mesh& mesh = r.rig.meshes[0];
    const glm::mat3 turn = eulerXYZ(glm::vec3(0, 0, 70));
    const std::vector<glm::vec3>& posed = r.eval.meshes[0].linear.referenceNormals;
    size_t upper = 0, lower = 0;
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
        const float x = mesh.positions[v].x;
        const glm::vec3 bind = rt.bind[0].normals[v];
        if (x < 0.65f) {
            RS_COMPARE_NEAR(angleDeg(posed[v], bind), 0.0, 0.01);
            ++upper;
        } else if (x > 1.35f) {
            RS_COMPARE_NEAR(angleDeg(posed[v], turn * bind), 0.0, 0.01);
            ++lower;
        }
    }
    QVERIFY(upper > 50 && lower > 50);
    // And the bend makes real error for the cheap methods (the weight band).
    QVERIFY(r.eval.stats[size_t(Method::Linear)].normal.max > 5.0);
}

void TestSkinning::flaggedJointsAreListedOnceByNodeAcrossMeshes()
{
    // Two meshes on one skin of three joints (nodes 7, 4, 9), and a rigid mesh: joint 0 mirrored, joint 1 singular,
    // joint 2 plain. Each flagged node is listed once, by node index, whichever mesh saw it; the rigid mesh adds none.
    Rig rig;
    rig.skins.resize(1);
    rig.skins[0].joints = {7, 4, 9};
    rig.meshes.resize(3);
    rig.meshes[0].skin = 0;
    rig.meshes[1].skin = 0;
    rig.meshes[2].node = 7;
    std::vector<JointFrame> palette(4); // the skin's joints, then the identity for unbound vertices
    palette[0].mirrored = true;
    palette[1].singular = true;
    Evaluation out;
    for (size_t m = 0; m < rig.meshes.size(); ++m)
        collectFlaggedJoints(rig, m, palette, out);
    QCOMPARE(out.mirroredJoints, std::vector<int>{7});
    QCOMPARE(out.singularJoints, std::vector<int>{4});
    // A rigid mesh alone adds nothing, even with flagged frames in the palette it is given.
    Evaluation rigid;
    collectFlaggedJoints(rig, 2, palette, rigid);
    QVERIFY(rigid.mirroredJoints.empty() && rigid.singularJoints.empty());
}

void TestSkinning::dualQuaternionReportsMirroredJoint()
{
    // A single mirrored joint in a two-joint rig: only the vertices it influences fall back.
    Pose pose;
    pose.joints["lower"].scale = glm::vec3(1.0f, -1.0f, 1.0f);
    const Run r = evaluatePose(testutil::sample("elbow"), pose);
    QCOMPARE(int(r.eval.mirroredJoints.size()), 1);
    QCOMPARE(r.rig.skeleton.nodes[size_t(r.eval.mirroredJoints[0])].name, std::string("lower"));
    const size_t fallback = r.eval.stats[size_t(Method::DualQuaternion)].dqFallbackVertices;
    QVERIFY(fallback > 0 && fallback < r.rig.meshes[0].vertexCount());
    const MethodFrames& dq = frames(r, Method::DualQuaternion);
    const MeshRuntime& mr = r.runtime.meshes[0];
    const int lowerNode = r.rig.skeleton.find("lower");
    const Skin& skin = r.rig.skins[0];
    const auto lowerSlot = uint16_t(std::find(skin.joints.begin(), skin.joints.end(), lowerNode) - skin.joints.begin());
    for (size_t v = 0; v < r.rig.meshes[0].vertexCount(); ++v) {
        bool influenced = false;
        for (int i = 0; i < 4; ++i)
            influenced |= mr.stream.joints[v * 4 + size_t(i)] == lowerSlot && mr.stream.weights[v * 4 + size_t(i)] > 0.0f;
        QCOMPARE(bool(dq.flags[v] & SkinFlagDqFallback), influenced);
    }
}

void TestSkinning::evaluateCountsFlagsAndHandednessOverEveryChunkAndMesh()
{
    // evaluate() counts the flags and the handedness mismatches chunk by chunk inside its parallel loop; here against
    // a direct count over the final arrays: two meshes of three chunks each, on two threads, a mirrored joint (dual-
    // quaternion fallbacks, tangents whose handedness flips against the reference) and a flattened one (singular
    // normal transforms). The GPU readback's path (computeStatistics, counting over whole arrays) must agree.
    Rig rig = makeBenchmarkRig(40000, 12, 4);
    rig.meshes.push_back(rig.meshes[0]);
    for (size_t v = 0; v < rig.meshes[1].vertexCount(); v += 7) // authored handedness against the UVs': mismatches
        rig.meshes[1].tangents[v].w = -1.0f;
    const std::vector<int>& joints = rig.skins[0].joints;
    Pose pose;
    pose.joints[rig.skeleton.nodes[size_t(joints[3])].name].scale = glm::vec3(1.0f, -1.0f, 1.0f);
    pose.joints[rig.skeleton.nodes[size_t(joints[8])].name].scale = glm::vec3(0.0f, 1.0f, 1.0f);
    const RigRuntime runtime = buildRuntime(rig, 4);
    auto resolved = resolvePose(rig, pose);
    QVERIFY(bool(resolved));
    DeformSettings settings;
    settings.threads = 2;
    Evaluation eval;
    evaluate(rig, runtime, resolved.value(), allMethods(), settings, eval);
    size_t fallbacks = 0, singular = 0, mismatches = 0; // over every method: each kind must occur somewhere
    for (Method m : allMethods()) {
        size_t dq = 0, sing = 0, flipped = 0;
        for (const MeshEvaluation& me : eval.meshes) {
            const MethodFrames& f = me.methods[size_t(m)];
            for (uint8_t flag : f.flags) {
                dq += (flag & SkinFlagDqFallback) ? 1 : 0;
                sing += (flag & SkinFlagSingular) ? 1 : 0;
            }
            const std::vector<glm::vec4>& ref = me.surfaceOf(m).referenceTangents;
            for (size_t v = 0; v < std::min(f.tangents.size(), ref.size()); ++v)
                flipped += isDefined(glm::vec3(f.tangents[v])) && isDefined(glm::vec3(ref[v])) &&
                                   (f.tangents[v].w < 0.0f) != (ref[v].w < 0.0f)
                               ? 1
                               : 0;
        }
        const MethodStats& st = eval.stats[size_t(m)];
        QCOMPARE(st.dqFallbackVertices, dq);
        QCOMPARE(st.singularVertices, sing);
        QCOMPARE(st.handednessMismatches, flipped);
        fallbacks += dq;
        singular += sing;
        mismatches += flipped;
    }
    QVERIFY2(fallbacks > 0, qPrintable(QString::number(fallbacks)));
    QVERIFY2(singular > 0, qPrintable(QString::number(singular)));
    QVERIFY2(mismatches > 0, qPrintable(QString::number(mismatches)));
    Evaluation whole = eval;
    computeStatistics(whole);
    for (Method m : allMethods()) {
        QCOMPARE(whole.stats[size_t(m)].dqFallbackVertices, eval.stats[size_t(m)].dqFallbackVertices);
        QCOMPARE(whole.stats[size_t(m)].singularVertices, eval.stats[size_t(m)].singularVertices);
        QCOMPARE(whole.stats[size_t(m)].handednessMismatches, eval.stats[size_t(m)].handednessMismatches);
    }
}

void TestSkinning::polarDecomposition()
{
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (int i = 0; i < 50; ++i) {
        const glm::quat q = glm::normalize(glm::quat(u(rng), u(rng), u(rng), u(rng)));
        glm::mat3 s(1.0f);
        s[0][0] = 1.5f + u(rng);
        s[1][1] = 1.5f + u(rng);
        s[2][2] = 1.5f + u(rng);
        s[0][1] = s[1][0] = 0.2f * u(rng);
        s[0][2] = s[2][0] = 0.2f * u(rng);
        const glm::mat3 r = glm::mat3_cast(q) * s;
        glm::mat3 qo, so;
        QVERIFY(polarDecompose(r, qo, so));
        const glm::mat3 back = qo * so;
        for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 3; ++k) {
                RS_COMPARE_NEAR(back[c][k], r[c][k], 1e-5);
                RS_COMPARE_NEAR(so[c][k], s[c][k], 1e-4);
                RS_COMPARE_NEAR(so[c][k], so[k][c], 1e-6);
            }
        RS_COMPARE_NEAR(glm::determinant(qo), 1.0, 1e-5);
    }
    glm::mat3 qo, so;
    QVERIFY(!polarDecompose(glm::mat3(glm::vec3(-1, 0, 0), glm::vec3(0, 1, 0), glm::vec3(0, 0, 1)), qo, so));
    QVERIFY(!polarDecompose(glm::mat3(0.0f), qo, so));
}

void TestSkinning::unboundVertexStaysAtBindPosition()
{
    Rig rg = testutil::sample("lift_strip");
    Mesh& mesh = rg.meshes[0];
    // Zero the weights of vertex 5 (raw data as a broken file would have it).
    for (uint32_t i = mesh.influenceOffsets[5]; i < mesh.influenceOffsets[6]; ++i)
        mesh.influences[i].weight = 0.0f;
    const glm::vec3 bind = mesh.positions[5];
    Pose pose;
    pose.joints["lift"].translate = glm::vec3(0, 1, 0);
    pose.joints["base"].translate = glm::vec3(0, 2, 0);
    const Run r = evaluatePose(rg, pose);
    QCOMPARE(r.runtime.meshes[0].stream.unboundVertices, size_t(1));
    QVERIFY(glm::length(r.eval.meshes[0].linear.positions[5] - bind) < 1e-6f);
    QVERIFY(glm::length(r.eval.meshes[0].linear.positions[6] - mesh.positions[6]) > 1.0f);
}

void TestSkinning::fastPathMatchesScalar()
{
    if (!linearFastPathAvailable())
        QSKIP("this CPU has no AVX2+FMA: only the scalar path exists");
    const Rig rg = makeBenchmarkRig(20000, 30, 4);
    const RigRuntime rt = buildRuntime(rg, 4);
    const Mesh& mesh = rg.meshes[0];
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-60.0f, 60.0f);
    Pose pose;
    for (const Node& n : rg.skeleton.nodes) {
        pose.joints[n.name].rotateDeg = glm::vec3(u(rng), u(rng), u(rng));
        pose.joints[n.name].scale = glm::vec3(1.0f + u(rng) / 200.0f, 1.0f, 1.0f - u(rng) / 300.0f);
    }
    auto resolved = resolvePose(rg, pose);
    QVERIFY(resolved.ok());
    std::vector<glm::mat4> world;
    evaluateWorld(rg, resolved.value(), world);
    std::vector<std::vector<glm::mat4>> pal;
    evaluatePalettes(rg, world, pal);
    std::vector<glm::mat4> m = pal[0];
    m.push_back(glm::mat4(1.0f));
    std::vector<JointFrame> fr(m.size());
    buildJointFrames(m, fr);
    const size_t n = mesh.vertexCount();
    std::vector<glm::vec3> p1(n), n1(n), p2(n), n2(n);
    std::vector<glm::vec4> t1(n), t2(n);
    SkinJob job;
    job.method = Method::Linear;
    job.palette = fr;
    job.joints = rt.meshes[0].stream.joints;
    job.weights = rt.meshes[0].stream.weights;
    job.positions = mesh.positions;
    job.normals = mesh.normals;
    job.tangents = mesh.tangents;
    job.outPositions = p1;
    job.outNormals = n1;
    job.outTangents = t1;
    QVERIFY(job.validate());
    job.run();
    job.outPositions = p2;
    job.outNormals = n2;
    job.outTangents = t2;
    runLinearScalar(job);
    for (size_t v = 0; v < n; ++v) {
        QVERIFY(glm::length(p1[v] - p2[v]) <= 1e-5f * std::max(1.0f, glm::length(p2[v])));
        QVERIFY(angleDeg(n1[v], n2[v]) < 0.01);
        QVERIFY(std::fabs(glm::length(n1[v]) - 1.0f) < 1e-5f);
        QVERIFY(angleDeg(glm::vec3(t1[v]), glm::vec3(t2[v])) < 0.01);
        QCOMPARE(t1[v].w, t2[v].w);
    }
}

void TestSkinning::linearKernelsMatchScalar_data()
{
    QTest::addColumn<int>("kernel");
    QTest::addColumn<int>("k");
    QTest::addColumn<bool>("tangents");
    QTest::addColumn<int>("vertices");
    QTest::addColumn<bool>("hostile");
    for (LinearKernel kernel : simdKernels())
        for (int k : {4, 8})
            for (bool tangents : {true, false})
                for (bool hostile : {false, true}) {
                    const std::string name = std::string(linearKernelName(kernel)) + " K=" + std::to_string(k) +
                                             (tangents ? " tangents" : " no tangents") + (hostile ? " NaN/inf/zero inputs" : "");
                    QTest::newRow(name.c_str()) << int(kernel) << k << tangents << 20000 << hostile;
                }
    // Large enough for the streaming (non-temporal) stores.
    for (LinearKernel kernel : simdKernels())
        QTest::newRow((std::string(linearKernelName(kernel)) + " K=4 streaming").c_str())
            << int(kernel) << 4 << true << 230000 << false;
}

void TestSkinning::linearKernelsMatchScalar()
{
    if (simdKernels().empty())
        QSKIP("this CPU has no AVX2+FMA: only the scalar path exists");
    QFETCH(int, kernel);
    QFETCH(int, k);
    QFETCH(bool, tangents);
    QFETCH(int, vertices);
    QFETCH(bool, hostile);
    PosedJob pj(size_t(vertices), 30, k, 11);
    if (hostile)
        pj.makeHostile();
    if (!tangents)
        pj.job.tangents = {};
    const size_t n = pj.size();
    Outputs ref(n, tangents), out(n, tangents);
    ref.attach(pj.job);
    runLinearScalar(pj.job);
    out.attach(pj.job);
    QVERIFY(pj.job.validate());
    runLinearKernel(pj.job, LinearKernel(kernel));
    QString why;
    for (size_t v = 0; v < n; ++v)
        if (!matches(out, ref, v, &why))
            QFAIL(qPrintable(QStringLiteral("vertex %1: %2").arg(v).arg(why)));
    // SkinJob::run through parallelFor chunks gives the same as one call.
    if (LinearKernel(kernel) == jobKernel(pj.job)) { // the kernel run() takes for this job
        Outputs par(n, tangents);
        par.attach(pj.job);
        parallelFor(n, 1000, 3, [&](size_t b, size_t e) {
            SkinJob part = pj.job;
            part.first = b;
            part.last = e;
            part.run();
        });
        for (size_t v = 0; v < n; ++v)
            QVERIFY(std::memcmp(&par.p[v], &out.p[v], sizeof(glm::vec3)) == 0 &&
                    std::memcmp(&par.n[v], &out.n[v], sizeof(glm::vec3)) == 0 &&
                    (!tangents || std::memcmp(&par.t[v], &out.t[v], sizeof(glm::vec4)) == 0));
    }
}

void TestSkinning::linearKernelsWriteOnlyTheirRange()
{
    if (simdKernels().empty())
        QSKIP("this CPU has no AVX2+FMA: only the scalar path exists");
    // Ranges that start and end at every phase of the kernels' 16-vertex blocks and 64-byte lines, on output arrays
    // at several alignments: inside the range the result equals the scalar path, outside nothing changes.
    // Offset 0 uses exactly-sized arrays, so that ASan sees any access past either end.
    PosedJob pj(4096, 20, 4, 5);
    const size_t n = pj.size();
    Outputs ref(n, true);
    ref.attach(pj.job);
    runLinearScalar(pj.job);
    const std::pair<size_t, size_t> ranges[] = {
        {0, n},      {0, 1},      {n - 1, n},  {1, n - 1}, {5, 21},    {17, 18},  {3, 3 + 16 * 7 + 7},
        {16, 32},    {15, 33},    {7, 7 + 16}, {100, 115}, {n - 15, n}, {n - 17, n - 2}, {0, 47}, {1000, 2025},
    };
    for (LinearKernel kernel : simdKernels())
        for (size_t offset : {size_t(0), size_t(1), size_t(2), size_t(3), size_t(5)})
            for (const auto& [first, last] : ranges) {
                const QString bad = kernelRangeMismatch(pj, kernel, ref, offset, first, last, runLinearKernel);
                if (!bad.isEmpty())
                    QFAIL(qPrintable(bad));
            }
}

// The SIMD kernels of the other methods on this CPU: AVX2+FMA, and AVX-512 for the methods that have it.
std::vector<LinearKernel> methodSimdKernels(Method m)
{
    std::vector<LinearKernel> out;
    if (linearKernelAvailable(LinearKernel::Avx2))
        out.push_back(LinearKernel::Avx2);
    if (linearKernelAvailable(LinearKernel::Avx512) && linearKernelAvailable(LinearKernel::Avx2))
        out.push_back(LinearKernel::Avx512);
    return out;
}

void TestSkinning::methodKernelsMatchScalar_data()
{
    QTest::addColumn<int>("kernel");
    QTest::addColumn<int>("method");
    QTest::addColumn<int>("k");
    QTest::addColumn<bool>("tangents");
    QTest::addColumn<bool>("positions");
    QTest::addColumn<bool>("hostile");
    QTest::addColumn<bool>("rigid");
    if (!linearKernelAvailable(LinearKernel::Avx2))
        QTest::newRow("none") << -1 << -1 << 4 << true << true << false << false;
    else
        for (Method m : {Method::PositionsOnly, Method::BlendInverseTranspose, Method::InverseTranspose, Method::Cofactor,
                         Method::DualQuaternion, Method::Jacobian, Method::CenterOfRotation})
            for (LinearKernel kernel : methodSimdKernels(m))
                for (int k : {4, 8})
                    for (bool tangents : {true, false})
                        for (bool hostile : {false, true})
                            for (bool positions : {true, false}) {
                                if (!positions && (m == Method::PositionsOnly || hostile))
                                    continue; // frames only: what evaluate asks of the methods sharing linear's positions
                                const std::string name = std::string(linearKernelName(kernel)) + " " + std::string(methodId(m)) +
                                                         " K=" + std::to_string(k) + (tangents ? "" : " no tangents") +
                                                         (positions ? "" : " frames only") +
                                                         (hostile ? " singular+mirrored+NaN" : "");
                                QTest::newRow(name.c_str()) << int(kernel) << int(m) << k << tangents << positions << hostile << false;
                                // Joints that only rotate and translate: the dual-quaternion kernels' unit-stretch path.
                                if (m == Method::DualQuaternion && !hostile)
                                    QTest::newRow((name + " rigid joints").c_str())
                                        << int(kernel) << int(m) << k << tangents << positions << hostile << true;
                            }
}

void TestSkinning::methodKernelsMatchScalar()
{
    // Every method's SIMD kernels against the scalar reference: posed, scaled joints; with `hostile`, a singular and
    // a mirrored joint (flags: singular normals, dual-quaternion fallbacks) and NaN / zero rest normals.
    QFETCH(int, kernel);
    QFETCH(int, method);
    QFETCH(int, k);
    QFETCH(bool, tangents);
    QFETCH(bool, positions);
    QFETCH(bool, hostile);
    QFETCH(bool, rigid);
    if (method < 0)
        QSKIP("this CPU has no AVX2+FMA: only the scalar path exists");
    PosedJob pj(20000, 30, k, 13, rigid);
    if (hostile)
        pj.makeHostile();
    if (rigid) {
        // A few vertices with every weight zero: their dual-quaternion blend vanishes (flagged singular), in blocks
        // that are otherwise the rigid path's.
        pj.weights.assign(pj.job.weights.begin(), pj.job.weights.end());
        for (size_t v = 33; v < pj.size(); v += 1001)
            std::fill_n(pj.weights.begin() + ptrdiff_t(v) * k, k, 0.0f);
        pj.job.weights = pj.weights;
        pj.replan();
    }
    pj.job.method = Method(method);
    if (!tangents)
        pj.job.tangents = {};
    const size_t n = pj.size();
    Outputs ref(n, tangents), out(n, tangents);
    ref.attach(pj.job);
    QVERIFY(pj.job.validate());
    runMethodKernel(pj.job, LinearKernel::Scalar);
    out.attach(pj.job);
    if (!positions)
        pj.job.outPositions = {};
    runMethodKernel(pj.job, LinearKernel(kernel));
    QString why;
    size_t flagged = 0;
    for (size_t v = 0; v < n; ++v) {
        if (!positions) {
            if (out.p[v] != glm::vec3(Outputs::kSentinel))
                QFAIL(qPrintable(QStringLiteral("vertex %1: a position written by a frames-only job").arg(v)));
            out.p[v] = ref.p[v];
        }
        if (!matches(out, ref, v, &why))
            QFAIL(qPrintable(QStringLiteral("vertex %1: %2").arg(v).arg(why)));
        flagged += ref.f[v] != SkinFlagNone;
    }
    // The hostile rows do reach the flagged branches.
    const bool flags = Method(method) == Method::DualQuaternion || Method(method) == Method::BlendInverseTranspose ||
                       Method(method) == Method::InverseTranspose;
    if ((hostile && flags) || rigid)
        QVERIFY2(flagged > 0, "no vertex took a flagged branch");
}

void TestSkinning::methodKernelsWriteOnlyTheirRange()
{
    if (!linearKernelAvailable(LinearKernel::Avx2))
        QSKIP("this CPU has no AVX2+FMA");
    // Offset 0 uses exactly-sized arrays: ASan sees any access past either end. The ranges start and end at several
    // phases of the AVX-512 kernels' 16-vertex blocks.
    PosedJob pj(700, 12, 4, 21);
    const size_t n = pj.size();
    for (Method m : {Method::PositionsOnly, Method::Cofactor, Method::InverseTranspose, Method::BlendInverseTranspose,
                     Method::DualQuaternion, Method::Jacobian, Method::CenterOfRotation}) {
        const Outputs ref = scalarOutputs(pj, m);
        for (LinearKernel kernel : methodSimdKernels(m))
            for (size_t offset : {size_t(0), size_t(1), size_t(3)})
                for (const auto& [first, last] :
                     {std::pair<size_t, size_t>{0, n}, {0, 1}, {n - 1, n}, {5, 21}, {17, 18}, {3, 67}, {n - 33, n}, {16, 48}}) {
                    const QString bad = kernelRangeMismatch(pj, kernel, ref, offset, first, last);
                    if (!bad.isEmpty())
                        QFAIL(qPrintable(bad));
                }
    }
}

void TestSkinning::methodKernelsStreamLargeJobsIntoTheirRangeOnly()
{
    if (!linearKernelAvailable(LinearKernel::Avx2))
        QSKIP("this CPU has no AVX2+FMA");
    // A job whose output passes kStreamingOutputBytes (230k vertices x 40 bytes) is written as non-temporal lines by
    // the AVX-512 kernels, and its output lines are fetched for writing ahead of the stores by the AVX2 ones. The
    // hostile palette makes some blocks go through the per-vertex kernel in the middle of a run of lines (a
    // blend-inverse-transpose vertex on the singular joint, a dual-quaternion one on the mirrored joint), and the ranges
    // start and end inside lines, on arrays at two alignments: inside the range the scalar path's result, outside
    // nothing written.
    PosedJob pj(230000, 30, 4, 17);
    pj.makeHostile();
    const size_t n = pj.size();
    QVERIFY(n * 40 >= detail::kStreamingOutputBytes);
    for (Method m : {Method::Cofactor, Method::InverseTranspose, Method::BlendInverseTranspose, Method::DualQuaternion,
                     Method::Jacobian}) {
        const Outputs ref = scalarOutputs(pj, m);
        for (size_t offset : {size_t(0), size_t(1)})
            for (const auto& [first, last] : {std::pair<size_t, size_t>{7, n - 5}, {16, n}, {0, n - 16}}) {
                for (LinearKernel kernel : {LinearKernel::Avx512, LinearKernel::Avx2}) {
                    if (!linearKernelAvailable(kernel))
                        continue;
                    const QString bad = kernelRangeMismatch(pj, kernel, ref, offset, first, last);
                    if (!bad.isEmpty())
                        QFAIL(qPrintable(bad));
                }
            }
    }
}

void TestSkinning::positionsAloneKernelsMatchScalarInTheirRangeOnly()
{
    if (!linearKernelAvailable(LinearKernel::Avx2))
        QSKIP("this CPU has no AVX2+FMA");
    // positions-only without frame outputs (ozz's positions-only job): every kernel against the scalar path, K = 4 and
    // 8, ranges at several phases of the 16-vertex blocks and lines, arrays at two alignments, a small job and one whose
    // output passes kStreamingOutputBytes (800k vertices x 12 bytes: written as non-temporal lines).
    for (size_t vertices : {size_t(700), size_t(800000)})
        for (int k : {4, 8}) {
            if (vertices > 1000 && k == 8)
                continue;
            PosedJob pj(vertices, 20, k, 31);
            pj.job.method = Method::PositionsOnly;
            const size_t n = pj.size();
            if (vertices > 1000)
                QVERIFY(n * 12 >= detail::kStreamingOutputBytes);
            Outputs ref(n, true);
            ref.attach(pj.job);
            pj.job.outNormals = {};
            pj.job.outTangents = {};
            runMethodKernel(pj.job, LinearKernel::Scalar);
            for (LinearKernel kernel : methodSimdKernels(Method::PositionsOnly))
                for (size_t offset : {size_t(0), size_t(1)})
                    for (const auto& [first, last] :
                         {std::pair<size_t, size_t>{0, n}, {5, 21}, {17, 18}, {3, n - 67}, {16, n - 1}}) {
                        Outputs out(n, true, offset);
                        out.attach(pj.job);
                        pj.job.outNormals = {};
                        pj.job.outTangents = {};
                        pj.job.first = first;
                        pj.job.last = last;
                        QVERIFY(pj.job.validate());
                        runMethodKernel(pj.job, kernel);
                        for (size_t v = 0; v < n; ++v) {
                            const glm::vec3 a = out.p[offset + v], r = ref.p[v];
                            const bool inside = v >= first && v < last;
                            const bool ok = inside ? glm::length(a - r) <= 1e-5f * std::max(1.0f, glm::length(r)) &&
                                                         out.f[offset + v] == SkinFlagNone
                                                   : a == glm::vec3(Outputs::kSentinel) && out.f[offset + v] == 0xAB;
                            if (!ok)
                                QFAIL(qPrintable(QStringLiteral("%1, %2 vertices, K=%3, offset %4, [%5, %6): vertex %7 %8")
                                                     .arg(QString::fromLatin1(linearKernelName(kernel).data()))
                                                     .arg(n).arg(k).arg(offset).arg(first).arg(last).arg(v)
                                                     .arg(inside ? "wrong" : "written")));
                            if (!inside || out.n[offset + v] != glm::vec3(Outputs::kSentinel))
                                QVERIFY(out.n[offset + v] == glm::vec3(Outputs::kSentinel)); // frames never written
                        }
                    }
        }
}

void TestSkinning::jacobianKernelsAgreeWithScalarPlannedUnplannedAndWithoutPlan()
{
    if (!linearKernelAvailable(LinearKernel::Avx2))
        QSKIP("this CPU has no AVX2+FMA");
    PosedJob pj(20000, 30, 4, 29);
    pj.job.method = Method::Jacobian;
    const WeightGradients& planned = pj.runtime.meshes[0].gradients;
    // The benchmark sheet's blocks are all planned: the kernels' block path is what runs.
    const size_t blocks = planned.blockSlots.size() - 1;
    for (size_t b = 0; b < blocks; ++b)
        QVERIFY2(!(planned.blockSlots[b] & WeightGradients::kUnplanned), qPrintable(QString::number(b)));
    // Blocks with slots of one half alone before and after both halves' (the AVX2 kernel's ranges start and end inside
    // the block's slots).
    size_t lowAlone = 0, highAlone = 0;
    for (size_t b = 0; b < blocks; ++b) {
        const uint32_t runs = planned.blockHalves[b], slotCount = planned.blockSlots[b + 1] - planned.blockSlots[b];
        lowAlone += (runs & 0xFFu) > 0;
        highAlone += (runs >> 8 & 0xFFu) < slotCount;
    }
    QVERIFY2(lowAlone > blocks / 10 && highAlone > blocks / 10,
             qPrintable(QStringLiteral("%1 and %2 of %3").arg(lowAlone).arg(highAlone).arg(blocks)));
    WeightGradients mixed = planned; // every third block left to the per-vertex lists
    for (size_t b = 0; b < blocks; b += 3)
        mixed.blockSlots[b] |= WeightGradients::kUnplanned;
    WeightGradientsView none = planned.view();
    none.blockSlots = {};
    none.blockData = {};
    none.slotEntries = {};
    none.slotGradients = {};
    none.slotWeights = {};
    none.blockFolded = {};
    WeightGradientsView unfolded = planned.view(); // the plan without its weights: every block blends A first
    unfolded.slotWeights = {};
    unfolded.blockFolded = {};
    // Every block of the sheet has its weighted joints in its slots: the folded path is what the planned view runs.
    for (size_t b = 0; b < blocks; ++b)
        QVERIFY2(planned.blockFolded[b] == 1, qPrintable(QString::number(b)));
    const size_t n = pj.size();
    Outputs ref(n, true);
    ref.attach(pj.job);
    runMethodKernel(pj.job, LinearKernel::Scalar);
    for (LinearKernel kernel : methodSimdKernels(Method::Jacobian))
        for (const WeightGradientsView& view : {planned.view(), mixed.view(), none, unfolded})
            for (const auto& [first, last] : {std::pair<size_t, size_t>{0, n}, {9, n - 7}}) {
                pj.job.gradients = view;
                pj.job.first = first;
                pj.job.last = last;
                QVERIFY(pj.job.validate());
                Outputs out(n, true);
                out.attach(pj.job);
                runMethodKernel(pj.job, kernel);
                QString why;
                for (size_t v = first; v < last; ++v)
                    if (!matches(out, ref, v, &why))
                        QFAIL(qPrintable(QStringLiteral("%1, plan %2, [%3, %4): vertex %5: %6")
                                             .arg(QString::fromLatin1(linearKernelName(kernel).data()))
                                             .arg(view.blockSlots.empty() ? "none" : view.slotWeights.empty() ? "unfolded" : view.blockSlots.data() == planned.blockSlots.data() ? "all" : "mixed")
                                             .arg(first).arg(last).arg(v).arg(why)));
            }
    // A plan of another vertex count is refused.
    WeightGradientsView wrong = planned.view();
    wrong.blockSlots = wrong.blockSlots.first(blocks);
    pj.job.gradients = wrong;
    QVERIFY(!pj.job.validate());
    // So is a plan without its halves' runs (the AVX2 kernel reads them).
    WeightGradientsView noRuns = planned.view();
    noRuns.blockHalves = {};
    pj.job.gradients = noRuns;
    QVERIFY(!pj.job.validate());
    // And slot weights of another length, or without the blocks that may fold.
    WeightGradientsView shortWeights = planned.view();
    shortWeights.slotWeights = shortWeights.slotWeights.first(shortWeights.slotWeights.size() - 1);
    pj.job.gradients = shortWeights;
    QVERIFY(!pj.job.validate());
    WeightGradientsView noFolded = planned.view();
    noFolded.blockFolded = {};
    pj.job.gradients = noFolded;
    QVERIFY(!pj.job.validate());
}

void TestSkinning::avx2KernelsRunTheirAvx512RegisterBuildOnlyWhereAvx512Runs()
{
    // The build over AVX-512VL's 32 registers holds AVX-512 encodings: on a CPU without AVX-512, or under
    // RIGSCOPE_ISA=avx2 (ctest's test_skinning_avx2), no method may run it, and every AVX2 kernel is named plainly.
    // Linear (its own kernels) and positions-only (slower so) never run it; where AVX-512 runs, the others do and
    // say so (the benchmark's rows).
    for (Method m : allMethods()) {
        if (m == Method::Rebuilt)
            continue;
        const bool plain = !cpuHasAvx512() || m == Method::Linear || m == Method::PositionsOnly;
        QCOMPARE(avx2KernelsUseEvex(m), !plain);
        QCOMPARE(methodKernelName(m, LinearKernel::Avx2), plain ? std::string("AVX2+FMA") : std::string("AVX2+FMA, 32 registers"));
        QCOMPARE(methodKernelName(m, LinearKernel::Avx512), std::string("AVX-512"));
    }
}

void TestSkinning::methodKernelsAreUsedByRun()
{
    // SkinJob::run runs the kernel jobKernel() names, bit for bit what runMethodKernel gives with it: methodKernel's,
    // the best this CPU has for the method (for linear, linearKernel()), except positions-only on AVX-512, which
    // copies its rest frames with the AVX2 kernel, and positions alone, blend-inverse-transpose and (short of its
    // streaming size) linear, which run AVX2 where the CPU splits 512-bit operations.
    PosedJob pj(3000, 10, 4, 2);
    const size_t n = pj.size();
    for (Method m : {Method::PositionsOnly, Method::Linear, Method::BlendInverseTranspose, Method::InverseTranspose,
                     Method::Cofactor, Method::DualQuaternion, Method::Jacobian}) {
        pj.job.method = m;
        for (bool alone : {false, true}) {
            if (alone && m != Method::PositionsOnly)
                continue;
            Outputs a(n, true), b(n, true);
            a.attach(pj.job);
            if (alone) {
                pj.job.outNormals = {};
                pj.job.outTangents = {};
            }
            pj.job.run();
            b.attach(pj.job);
            if (alone) {
                pj.job.outNormals = {};
                pj.job.outTangents = {};
            }
            runMethodKernel(pj.job, jobKernel(pj.job));
            QVERIFY(std::memcmp(a.p.data(), b.p.data(), n * sizeof(glm::vec3)) == 0);
            QVERIFY(std::memcmp(a.n.data(), b.n.data(), n * sizeof(glm::vec3)) == 0);
            QVERIFY(std::memcmp(a.t.data(), b.t.data(), n * sizeof(glm::vec4)) == 0);
            const std::vector<LinearKernel> simd = methodSimdKernels(m);
            const LinearKernel best = simd.empty() ? LinearKernel::Scalar : simd.back();
            QCOMPARE(methodKernel(m), best);
            if (m == Method::Linear)
                QCOMPARE(linearKernel(), best);
            LinearKernel expected = best;
            if (m == Method::Linear && best == LinearKernel::Avx512 && cpuHasHalfWidthAvx512())
                expected = LinearKernel::Avx2; // 3000 vertices: far under kHalfWidthLinearStreamingBytes
            if (m == Method::PositionsOnly && best == LinearKernel::Avx512 && (!alone || cpuHasHalfWidthAvx512()))
                expected = LinearKernel::Avx2;
            if (m == Method::BlendInverseTranspose && best == LinearKernel::Avx512 && cpuHasHalfWidthAvx512())
                expected = LinearKernel::Avx2;
            if (m == Method::Jacobian && best == LinearKernel::Avx512 && cpuHasHalfWidthAvx512())
                expected = halfWidthJacobianKernel(n, pj.job.gradients.blockSlots.size() - 1, pj.job.gradients.unplannedBlocks);
            QCOMPARE(jobKernel(pj.job), expected);
        }
    }
}

void TestSkinning::halfWidthLinearKernelStreamsPastItsBytes()
{
    // The rule at its edge, whatever the tuned threshold T = kHalfWidthLinearStreamingBytes is: the outputs' bytes
    // (12 a vertex for positions, 12 for normals, 16 for tangents) below T take AVX2, from T on AVX-512.
    const size_t T = kHalfWidthLinearStreamingBytes;
    QVERIFY(T > 40);
    auto firstAt = [T](size_t bytesPerVertex) { return (T + bytesPerVertex - 1) / bytesPerVertex; }; // ceil(T / b)
    for (const auto& [p, nrm, tan, bytes] : {std::tuple{true, true, true, size_t(40)}, std::tuple{true, true, false, size_t(24)},
                                             std::tuple{false, true, true, size_t(28)}, std::tuple{true, false, false, size_t(12)}}) {
        const size_t edge = firstAt(bytes);
        QCOMPARE(halfWidthLinearKernel(edge - 1, p, nrm, tan), LinearKernel::Avx2);
        QCOMPARE(halfWidthLinearKernel(edge, p, nrm, tan), LinearKernel::Avx512);
        QCOMPARE(halfWidthLinearKernel(edge / 2, p, nrm, tan), LinearKernel::Avx2);
        QCOMPARE(halfWidthLinearKernel(edge * 2, p, nrm, tan), LinearKernel::Avx512);
    }
    QCOMPARE(halfWidthLinearKernel(0, true, true, true), LinearKernel::Avx2);
    if (!cpuHasHalfWidthAvx512())
        return; // elsewhere jobKernel does not apply it (methodKernelsAreUsedByRun checks what it does there)
    // jobKernel applies it to the job's whole arrays, whatever part of them the job runs.
    std::vector<glm::vec3> big(firstAt(40));
    std::vector<glm::vec4> bigTangents(big.size());
    SkinJob job;
    job.method = Method::Linear;
    job.positions = big;
    job.outPositions = big;
    job.outNormals = big;
    job.outTangents = bigTangents;
    job.first = 0;
    job.last = 100;
    QCOMPARE(jobKernel(job), LinearKernel::Avx512);
    job.outTangents = {};
    QCOMPARE(jobKernel(job), LinearKernel::Avx2); // 24 bytes a vertex: under T
}

void TestSkinning::halfWidthJacobianKernelTakesAvx2ForPlannedJobsBelowItsVertices()
{
    // The rule at its edges, whatever the tuned vertex count V = kHalfWidthJacobianAvx2Vertices is: a planned job
    // below V with at most one unplanned block in sixteen takes AVX2; V or more vertices, more unplanned blocks or no
    // plan at all take AVX-512.
    const size_t V = kHalfWidthJacobianAvx2Vertices;
    QVERIFY(V >= 16'384);
    QCOMPARE(halfWidthJacobianKernel(V - 1, V / 16, 0), LinearKernel::Avx2);
    QCOMPARE(halfWidthJacobianKernel(V, V / 16, 0), LinearKernel::Avx512);
    QCOMPARE(halfWidthJacobianKernel(V / 5, V / 80, 0), LinearKernel::Avx2);
    QCOMPARE(halfWidthJacobianKernel(16'000, 1'000, 62), LinearKernel::Avx2);    // 992 <= 1000
    QCOMPARE(halfWidthJacobianKernel(16'000, 1'000, 63), LinearKernel::Avx512);  // 1008 > 1000
    QCOMPARE(halfWidthJacobianKernel(16'384, 1'024, 768), LinearKernel::Avx512); // the benchmark rig at 16k
    QCOMPARE(halfWidthJacobianKernel(3'000, 0, 0), LinearKernel::Avx512);        // no plan: the lists per vertex
    // The count the rule reads, from the plan itself: every kUnplanned block.
    PosedJob pj(3000, 10, 4, 2);
    const WeightGradientsView g = pj.job.gradients;
    size_t unplanned = 0;
    for (size_t b = 0; b + 1 < g.blockSlots.size(); ++b)
        unplanned += (g.blockSlots[b] & WeightGradients::kUnplanned) ? 1 : 0;
    QCOMPARE(g.unplannedBlocks, unplanned);
    if (!cpuHasHalfWidthAvx512())
        return; // elsewhere jobKernel does not apply it (methodKernelsAreUsedByRun checks what it does there)
    // jobKernel applies it to the job's whole arrays, whatever part of them the job runs.
    pj.job.method = Method::Jacobian;
    pj.job.first = 0;
    pj.job.last = 100;
    const size_t blocks = g.blockSlots.size() - 1;
    QCOMPARE(jobKernel(pj.job), halfWidthJacobianKernel(pj.size(), blocks, unplanned));
    pj.job.gradients.unplannedBlocks = blocks; // every block unplanned: AVX-512
    QCOMPARE(jobKernel(pj.job), LinearKernel::Avx512);
    pj.job.gradients.unplannedBlocks = 0;
    QCOMPARE(jobKernel(pj.job), LinearKernel::Avx2);
}

void TestSkinning::halfWidthAvx512IsAmdFamily25Only()
{
    // Zen 4 (AMD family 25 with AVX-512) splits 512-bit operations; Zen 5 (26), Zen 2 (23) and Intel's family 6 do
    // not, nor another vendor's family 25. (Zen 3 is family 25 too, without AVX-512: cpuHasHalfWidthAvx512 asks
    // only where AVX-512 is there.)
    QVERIFY(isHalfWidthAvx512("AuthenticAMD", 25));
    QVERIFY(!isHalfWidthAvx512("AuthenticAMD", 26));
    QVERIFY(!isHalfWidthAvx512("AuthenticAMD", 23));
    QVERIFY(!isHalfWidthAvx512("GenuineIntel", 6));
    QVERIFY(!isHalfWidthAvx512("GenuineIntel", 25));
    QVERIFY(!isHalfWidthAvx512("HygonGenuine", 24));
    // This CPU, as Linux reads it: /proc/cpuinfo's vendor, family and flags against the cpuid reading — AVX-512 only
    // where this process may use it (RIGSCOPE_ISA=avx2 or baseline takes it away, and the half width with it).
    const std::optional<testutil::ProcCpu> cpu = testutil::readProcCpu();
    if (!cpu)
        QSKIP("no /proc/cpuinfo");
    const bool avx512Usable = cpuHasAvx512();
    QCOMPARE(cpuHasHalfWidthAvx512(), avx512Usable && cpu->avx512() && cpu->vendor == "AuthenticAMD" && cpu->family == "25");
}

void TestSkinning::optionalOutputsAreLeftOutAndTheRestIsTheSame()
{
    // Positions-only without normal/tangent outputs writes the same positions; the other methods without positions
    // write the same frames and flags; validate() refuses what must be there. Every kernel, the scalar one too.
    PosedJob pj(1500, 12, 4, 4);
    const size_t n = pj.size();
    std::vector<LinearKernel> kernels = {LinearKernel::Scalar};
    if (linearKernelAvailable(LinearKernel::Avx2))
        kernels.push_back(LinearKernel::Avx2);
    for (LinearKernel k : kernels) {
        pj.job.method = Method::PositionsOnly;
        Outputs full(n, true), alone(n, true);
        full.attach(pj.job);
        runMethodKernel(pj.job, k);
        alone.attach(pj.job);
        pj.job.outNormals = {};
        pj.job.outTangents = {};
        QVERIFY(pj.job.validate());
        runMethodKernel(pj.job, k);
        QVERIFY(std::memcmp(full.p.data(), alone.p.data(), n * sizeof(glm::vec3)) == 0);
        QCOMPARE(alone.n[0], glm::vec3(Outputs::kSentinel)); // not written
        for (Method m : {Method::BlendInverseTranspose, Method::InverseTranspose, Method::Cofactor, Method::Jacobian}) {
            pj.job.method = m;
            Outputs all(n, true), frames(n, true);
            all.attach(pj.job);
            runMethodKernel(pj.job, k);
            frames.attach(pj.job);
            pj.job.outPositions = {};
            QVERIFY(pj.job.validate());
            runMethodKernel(pj.job, k);
            QVERIFY(std::memcmp(all.n.data(), frames.n.data(), n * sizeof(glm::vec3)) == 0);
            QVERIFY(std::memcmp(all.t.data(), frames.t.data(), n * sizeof(glm::vec4)) == 0);
            QVERIFY(all.f == frames.f);
            QCOMPARE(frames.p[n - 1], glm::vec3(Outputs::kSentinel));
        }
    }
    // Linear and dual quaternion own their positions; only positions-only may drop its frames.
    Outputs o(n, true);
    o.attach(pj.job);
    for (Method m : {Method::Linear, Method::DualQuaternion}) {
        pj.job.method = m;
        pj.job.outPositions = {};
        QVERIFY(!pj.job.validate());
        o.attach(pj.job);
    }
    pj.job.method = Method::Cofactor;
    pj.job.outNormals = {};
    QVERIFY(!pj.job.validate());
    // An empty mesh is a valid job for every method (evaluate runs one per mesh, empty ones too).
    SkinJob empty;
    empty.palette = pj.palette;
    for (Method m : {Method::Linear, Method::Cofactor, Method::DualQuaternion}) {
        empty.method = m;
        QVERIFY2(empty.validate(), methodId(m).data());
    }
}

void TestSkinning::linearKernelsFallBackOnNonFinitePalette()
{
    if (simdKernels().empty())
        QSKIP("this CPU has no AVX2+FMA: only the scalar path exists");
    // The SIMD kernels multiply unused slots (joint 0, weight 0) instead of skipping them; a non-finite matrix
    // sends the job to the scalar path, which skips zero weights: the results stay finite where they should.
    PosedJob pj(2000, 10, 8, 9);
    pj.palette[0].matrix[3][0] = std::numeric_limits<float>::infinity();
    pj.job.palette = pj.palette;
    const size_t n = pj.size();
    Outputs ref(n, true);
    ref.attach(pj.job);
    runLinearScalar(pj.job);
    for (LinearKernel kernel : simdKernels()) {
        Outputs out(n, true);
        out.attach(pj.job);
        runLinearKernel(pj.job, kernel);
        for (size_t v = 0; v < n; ++v) {
            QVERIFY(std::memcmp(&out.p[v], &ref.p[v], sizeof(glm::vec3)) == 0);
            QVERIFY(std::memcmp(&out.n[v], &ref.n[v], sizeof(glm::vec3)) == 0);
        }
    }
    size_t finite = 0;
    for (const glm::vec3& p : ref.p)
        finite += std::isfinite(p.x) ? 1 : 0;
    QVERIFY(finite > 0 && finite < n); // joint 0 carries weight somewhere, not everywhere
}

void TestSkinning::parallelForCoversEveryIndexOnce()
{
    for (unsigned threads : {1u, 2u, 3u, 8u})
        for (size_t count : {size_t(1), size_t(63), size_t(1000), size_t(100003)})
            for (size_t grain : {size_t(1), size_t(64), size_t(5000)}) {
                std::vector<std::atomic<int>> hits(count);
                parallelFor(count, grain, threads, [&](size_t b, size_t e) {
                    QVERIFY(b < e && e <= count);
                    for (size_t i = b; i < e; ++i)
                        hits[i].fetch_add(1, std::memory_order_relaxed);
                });
                for (size_t i = 0; i < count; ++i)
                    QCOMPARE(hits[i].load(), 1);
            }
    // Nested and concurrent calls (the pool is busy: they get threads of their own).
    std::atomic<size_t> total{0};
    auto nested = [&] {
        parallelFor(64, 1, 4, [&](size_t b, size_t e) {
            for (size_t i = b; i < e; ++i)
                parallelFor(100, 10, 2, [&](size_t b2, size_t e2) { total += e2 - b2; });
        });
    };
    std::thread other(nested);
    nested();
    other.join();
    QCOMPARE(total.load(), size_t(2 * 64 * 100));
    // The thread limit applies to threads == 0 on this thread only.
    std::atomic<int> maxConcurrent{0}, now{0};
    {
        const ScopedThreadLimit limit(1);
        parallelFor(100000, 100, 0, [&](size_t, size_t) {
            const int c = ++now;
            maxConcurrent = std::max(maxConcurrent.load(), c);
            --now;
        });
    }
    QCOMPARE(maxConcurrent.load(), 1);
}

void TestSkinning::parallelRebuildIsBitExact()
{
    auto check = [](const Rig& rg, const std::vector<glm::vec3>& positions, const std::vector<uint32_t>& groups) {
        const Mesh& mesh = rg.meshes[0];
        const size_t n = positions.size();
        std::vector<glm::vec3> refN(n);
        std::vector<glm::vec4> refT(mesh.hasTangents() ? n : 0);
        SequentialScratch s0;
        sequentialRebuild(positions, mesh.uvs, mesh.indices, groups, refN, refT, s0);
        const ReferenceTopology topology = meshTopologyWithGroups(mesh.indices, groups);
        for (unsigned threads : {1u, 2u, 3u, 7u}) {
            const ScopedThreadLimit limit(threads);
            std::vector<glm::vec3> outN(n, glm::vec3(7.0f));
            std::vector<glm::vec4> outT(refT.size(), glm::vec4(7.0f));
            ReferenceScratch s1;
            for (int repeat = 0; repeat < 2; ++repeat) { // the second call reuses the scratch
                rebuildMeshFrames(topology, positions, mesh.uvs, mesh.indices, outN, outT, s1);
                QVERIFY(std::memcmp(outN.data(), refN.data(), n * sizeof(glm::vec3)) == 0);
                QVERIFY(std::memcmp(outT.data(), refT.data(), refT.size() * sizeof(glm::vec4)) == 0);
            }
        }
    };
    // Large enough for the parallel path, posed (skinned positions), with every vertex's group being itself.
    {
        PosedJob pj(300000, 40, 4, 21);
        const size_t n = pj.size();
        Outputs out(n, true);
        out.attach(pj.job);
        pj.job.run();
        std::vector<uint32_t> groups(n);
        for (size_t v = 0; v < n; ++v)
            groups[v] = uint32_t(v);
        check(pj.rig, out.p, groups);
        // Groups far from their vertices (every vertex welded to one 1000 indices away, where it exists): sums land
        // in other ranges than the triangles' own vertices.
        for (size_t v = 1000; v < n; v += 3)
            groups[v] = uint32_t(v - 1000);
        check(pj.rig, out.p, groups);
    }
    // The built-in rigs: UV seams (welded groups), hard edges, degenerate triangles.
    for (const char* name : {"sheet", "twist_tube", "elbow", "ramp"}) {
        const Rig rg = testutil::sample(name);
        check(rg, rg.meshes[0].positions, buildMeshTopology(rg.meshes[0].positions, rg.meshes[0].normals, rg.meshes[0].indices).group);
    }
}

void TestSkinning::eightInfluencesUseMoreWeights()
{
    const Rig rg = makeBenchmarkRig(4000, 20, 8);
    const RigRuntime r4 = buildRuntime(rg, 4);
    const RigRuntime r8 = buildRuntime(rg, 8);
    QVERIFY(r4.meshes[0].stream.truncatedVertices > 0);
    QCOMPARE(r8.meshes[0].stream.truncatedVertices, size_t(0));
    // The top 4 of 8 are renormalised: each runtime weight of K=4 is >= the same joint's weight in K=8.
    for (size_t v = 0; v < rg.meshes[0].vertexCount(); v += 13) {
        float s4 = 0, s8 = 0;
        for (int i = 0; i < 4; ++i)
            s4 += r4.meshes[0].stream.weights[v * 4 + size_t(i)];
        for (int i = 0; i < 8; ++i)
            s8 += r8.meshes[0].stream.weights[v * 8 + size_t(i)];
        RS_COMPARE_NEAR(s4, 1.0, 1e-5);
        RS_COMPARE_NEAR(s8, 1.0, 1e-5);
        QVERIFY(r4.meshes[0].stream.weights[v * 4] >= r8.meshes[0].stream.weights[v * 8]);
    }
}

void TestSkinning::validateRejectsBadSizes()
{
    std::vector<JointFrame> pal(2);
    std::vector<glm::vec3> p(3), n(3), op(3), on(2);
    std::vector<uint16_t> j(12);
    std::vector<float> w(12);
    SkinJob job;
    job.palette = pal;
    job.joints = j;
    job.weights = w;
    job.positions = p;
    job.normals = n;
    job.outPositions = op;
    job.outNormals = on;
    QVERIFY(!job.validate()); // outNormals too short
    std::vector<glm::vec3> on3(3);
    job.outNormals = on3;
    QVERIFY(job.validate());
    job.method = Method::Jacobian;
    QVERIFY(!job.validate()); // no gradients
    job.method = Method::Rebuilt;
    QVERIFY(!job.validate());
    job.method = Method::Linear;
    job.influencesPerVertex = 5;
    QVERIFY(!job.validate());
}

void TestSkinning::hugePageInteriorIsTheWhole2MBPagesInside()
{
    constexpr uintptr_t M = uintptr_t(1) << 20;
    auto at = [](uintptr_t a) { return reinterpret_cast<const void*>(a); };
    // Starting 16 bytes into a page (as glibc's large chunks do): the first whole page starts at the next 2 MB.
    HugePageSpan s = hugePageInterior(at(100 * M + 16), 9 * M);
    QCOMPARE(s.begin, 102 * M);
    QCOMPARE(s.end, 108 * M); // 100 M + 16 + 9 M rounds down to 108 M
    // Aligned at both ends: all of it.
    s = hugePageInterior(at(64 * M), 8 * M);
    QCOMPARE(s.begin, 64 * M);
    QCOMPARE(s.end, 72 * M);
    // 4 MB that straddle three 2 MB pages hold one whole one.
    s = hugePageInterior(at(65 * M), 4 * M);
    QCOMPARE(s.begin, 66 * M);
    QCOMPARE(s.end, 68 * M);
    // Under the 4 MB threshold, or no memory: nothing.
    s = hugePageInterior(at(64 * M), 4 * M - 1);
    QCOMPARE(s.end, s.begin);
    s = hugePageInterior(nullptr, 64 * M);
    QCOMPARE(s.end, s.begin);
    // 4 MB starting a page past a 2 MB boundary: one whole page inside.
    s = hugePageInterior(at(64 * M + 4096), 4 * M);
    QCOMPARE(s.begin, 66 * M);
    QCOMPARE(s.end, 68 * M);
}

void TestSkinning::adviseHugePagesKeepsEveryByte()
{
    // The advice (and the collapse of pages already written, where the kernel does it) is a hint: the data must read
    // back unchanged. A wrong advice (MADV_DONTNEED, MADV_FREE) would zero or drop these pages.
    std::vector<uint32_t> data(6u << 20 >> 2); // 6 MB: at least one whole 2 MB page inside
    std::mt19937 rng(11);
    for (uint32_t& x : data)
        x = rng();
    const std::vector<uint32_t> copy = data;
    const HugePageSpan span = hugePageInterior(data.data(), data.size() * sizeof(uint32_t));
    QVERIFY(span.end - span.begin >= (2u << 20));
    const size_t collapsed = adviseHugePages(data);
    QVERIFY(collapsed == 0 || collapsed == span.end - span.begin);
    QVERIFY(data == copy);
    // Written again after the advice: still ordinary memory.
    for (size_t i = 0; i < data.size(); i += 1024)
        data[i] = uint32_t(i);
    for (size_t i = 0; i < data.size(); i += 1024)
        QCOMPARE(data[i], uint32_t(i));
}

QTEST_GUILESS_MAIN(TestSkinning)
#include "test_skinning.moc"
