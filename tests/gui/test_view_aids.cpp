// The viewport's selection and orientation maths without a window: box selection (through the mesh and visible only)
// and combining it with a selection, the ground grid, the axes gizmo and the wireframe's edge list. Analytic cases,
// with the camera and the expected pixels worked out here.
#include <set>
#include <QtTest/QtTest>

#include <cmath>
#include <limits>

#include <glm/gtc/matrix_transform.hpp>

#include "viewer/box_select.h"
#include "viewer/view_aids.h"

namespace {

/// A grid of n × n vertices spanning [-1, 1]² at depth z, triangulated (two triangles per cell).
rig::Mesh sheet(int n, float z)
{
    rig::Mesh m;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            m.positions.push_back({-1.0f + 2.0f * float(i) / float(n - 1), -1.0f + 2.0f * float(j) / float(n - 1), z});
    for (int j = 0; j + 1 < n; ++j)
        for (int i = 0; i + 1 < n; ++i) {
            const uint32_t a = uint32_t(j * n + i), b = a + 1, c = a + uint32_t(n), d = c + 1;
            m.indices.insert(m.indices.end(), {a, b, d, a, d, c});
        }
    return m;
}

/// The rig's meshes as an evaluation whose linear surface is the rest shape.
rig::Evaluation restEvaluation(const rig::Rig& r)
{
    rig::Evaluation e;
    e.meshes.resize(r.meshes.size());
    for (size_t m = 0; m < r.meshes.size(); ++m)
        e.meshes[m].linear.positions = r.meshes[m].positions;
    return e;
}

/// A 400 × 400 view of a camera at (0, 0, 5) looking down -z with a 90° field of view: a point (x, y, z) lands at
/// pixel (200 + 200 x / (5 - z), 200 - 200 y / (5 - z)).
viewer::ScreenProjector frontView()
{
    viewer::ScreenProjector v;
    v.viewProj = glm::perspectiveRH_ZO(glm::radians(90.0f), 1.0f, 0.1f, 100.0f) *
                 glm::lookAt(glm::vec3(0, 0, 5), glm::vec3(0), glm::vec3(0, 1, 0));
    v.size = glm::vec2(400.0f);
    return v;
}

/// A box over the whole of frontView(), visible vertices only.
viewer::BoxSelectQuery wholeFrontView()
{
    viewer::BoxSelectQuery q;
    q.view = frontView();
    q.corner0 = {0.0f, 0.0f};
    q.corner1 = {400.0f, 400.0f};
    return q;
}

glm::vec2 expectedPixel(const glm::vec3& p) { return {200.0f + 200.0f * p.x / (5.0f - p.z), 200.0f - 200.0f * p.y / (5.0f - p.z)}; }

} // namespace

class TestViewAids : public QObject {
    Q_OBJECT
private slots:
    void boxThroughTheMeshSelectsExactlyTheVerticesProjectedInside();
    void boxVisibleOnlyLeavesOutTheSheetBehind();
    void boxVisibleOnlySelectsWhatAFrontSheetDoesNotCover();
    void boxSkipsVerticesBehindTheCameraAndNonFinite();
    void emptyBoxSelectsNothing();
    void combineAddsAndTakesOut();
    void gridLiesAtTheLowestPointAndCoversTheFootprint_data();
    void gridLiesAtTheLowestPointAndCoversTheFootprint();
    void gridOfAnEmptyBoxIsEmpty();
    void gizmoAxesFollowTheCamera();
    void edgesAreUniqueAcrossSharedTrianglesAndOffsetPerMesh();
    void boxEdgesJoinEveryPairOfCornersThatDifferInOneAxis();
};

void TestViewAids::boxThroughTheMeshSelectsExactlyTheVerticesProjectedInside()
{
    rig::Rig r;
    r.meshes.push_back(sheet(9, 0.0f));
    r.meshes.push_back(sheet(5, -2.0f));
    const rig::Evaluation e = restEvaluation(r);
    viewer::BoxSelectQuery q;
    q.view = frontView();
    q.corner0 = {230.0f, 90.0f}; // given in the "wrong" order: the box is their span
    q.corner1 = {130.0f, 210.0f};
    q.throughMesh = true;
    std::vector<uint32_t> expected;
    uint32_t base = 0;
    for (const rig::Mesh& m : r.meshes) {
        for (size_t v = 0; v < m.positions.size(); ++v) {
            const glm::vec2 p = expectedPixel(m.positions[v]);
            if (p.x >= 130.0f && p.x <= 230.0f && p.y >= 90.0f && p.y <= 210.0f)
                expected.push_back(base + uint32_t(v));
        }
        base += uint32_t(m.positions.size());
    }
    QVERIFY(expected.size() > 10);
    QVERIFY(expected.back() >= 81); // the sheet behind contributes
    QCOMPARE(viewer::selectInBox(r, e, rig::Method::Linear, q), expected);
}

void TestViewAids::boxVisibleOnlyLeavesOutTheSheetBehind()
{
    // A front sheet at z = 0 hides a smaller one at z = -1 entirely (the back one spans [-1, 1]² too, but further away
    // it projects inside the front one's image).
    rig::Rig r;
    r.meshes.push_back(sheet(9, 0.0f));
    r.meshes.push_back(sheet(7, -1.0f));
    const rig::Evaluation e = restEvaluation(r);
    viewer::BoxSelectQuery q = wholeFrontView();
    q.throughMesh = true;
    QCOMPARE(viewer::selectInBox(r, e, rig::Method::Linear, q).size(), size_t(81 + 49));
    q.throughMesh = false;
    std::vector<uint32_t> front(81);
    for (uint32_t v = 0; v < 81; ++v)
        front[v] = v;
    QCOMPARE(viewer::selectInBox(r, e, rig::Method::Linear, q), front);
}

void TestViewAids::boxVisibleOnlySelectsWhatAFrontSheetDoesNotCover()
{
    // A small front sheet, [-0.2, 0.2]² at z = 2, covers pixels 200 ± 13.3; the back sheet (z = 0, 9 × 9 from -1 to 1,
    // spacing 0.25) lands 10 pixels apart: its 3 × 3 vertices around the middle fall under the front one.
    rig::Rig r;
    rig::Mesh front = sheet(3, 2.0f);
    for (glm::vec3& p : front.positions)
        p = glm::vec3(p.x * 0.2f, p.y * 0.2f, p.z);
    r.meshes.push_back(sheet(9, 0.0f));
    r.meshes.push_back(front);
    const rig::Evaluation e = restEvaluation(r);
    viewer::BoxSelectQuery q = wholeFrontView();
    const std::vector<uint32_t> got = viewer::selectInBox(r, e, rig::Method::Linear, q);
    QCOMPARE(got.size(), size_t(81 - 9 + 9));
    auto has = [&](uint32_t v) { return std::binary_search(got.begin(), got.end(), v); };
    QVERIFY(!has(4 * 9 + 4)); // (0, 0, 0)
    QVERIFY(!has(4 * 9 + 5)); // (0.25, 0, 0)
    QVERIFY(!has(5 * 9 + 5)); // (0.25, 0.25, 0)
    QVERIFY(has(4 * 9 + 6));  // (0.5, 0, 0): beside the front sheet
    for (uint32_t v = 81; v < 90; ++v)
        QVERIFY(has(v));
    // A huge box (sampled coarser than one sample per pixel) decides the same.
    q.view.size = glm::vec2(4000.0f);
    q.corner1 = {4000.0f, 4000.0f};
    QCOMPARE(viewer::selectInBox(r, e, rig::Method::Linear, q), got);
}

void TestViewAids::boxSkipsVerticesBehindTheCameraAndNonFinite()
{
    rig::Rig r;
    rig::Mesh m;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    m.positions = {{0, 0, 0}, {0, 0, 9}, {nan, 0, 0}, {0.1f, 0.1f, 0}};
    m.indices = {0, 1, 2, 0, 1, 3}; // triangles through the eye and through a NaN hide nothing
    r.meshes.push_back(m);
    const rig::Evaluation e = restEvaluation(r);
    viewer::BoxSelectQuery q = wholeFrontView();
    for (bool through : {true, false}) {
        q.throughMesh = through;
        QCOMPARE(viewer::selectInBox(r, e, rig::Method::Linear, q), (std::vector<uint32_t>{0, 3}));
    }
}

void TestViewAids::emptyBoxSelectsNothing()
{
    rig::Rig r;
    r.meshes.push_back(sheet(3, 0.0f));
    const rig::Evaluation e = restEvaluation(r);
    viewer::BoxSelectQuery q;
    q.view = frontView();
    q.corner0 = q.corner1 = {200.0f, 200.0f}; // the middle vertex's pixel, but a box of no area
    QVERIFY(viewer::selectInBox(r, e, rig::Method::Linear, q).empty());
}

void TestViewAids::combineAddsAndTakesOut()
{
    const std::vector<uint32_t> current{1, 4, 7, 9}, box{2, 4, 8, 9, 12};
    QCOMPARE(viewer::combineSelection(current, box, false), (std::vector<uint32_t>{1, 2, 4, 7, 8, 9, 12}));
    QCOMPARE(viewer::combineSelection(current, box, true), (std::vector<uint32_t>{1, 7}));
    QCOMPARE(viewer::combineSelection({}, box, false), box);
    QVERIFY(viewer::combineSelection({}, box, true).empty());
}

void TestViewAids::gridLiesAtTheLowestPointAndCoversTheFootprint_data()
{
    QTest::addColumn<glm::vec3>("lo");
    QTest::addColumn<glm::vec3>("hi");
    QTest::addColumn<float>("cell");
    // Footprint 4 → side 8 → 8 / 24 = 0.333 → cell 0.5. Footprint 170 (Fox-like, centimetres) → 340 / 24 → 20.
    // A thin pole: the footprint is a tenth of the diagonal (1.000002) → side 2.000004 → 0.0833 → 0.1.
    QTest::newRow("metres") << glm::vec3(-1.0f, 0.5f, -2.0f) << glm::vec3(3.0f, 4.0f, 1.0f) << 0.5f;
    QTest::newRow("centimetres") << glm::vec3(-20.0f, -3.0f, -85.0f) << glm::vec3(20.0f, 80.0f, 85.0f) << 20.0f;
    QTest::newRow("pole") << glm::vec3(0.0f, -10.0f, 0.0f) << glm::vec3(0.02f, 0.0f, 0.0f) << 0.1f;
}

void TestViewAids::gridLiesAtTheLowestPointAndCoversTheFootprint()
{
    QFETCH(glm::vec3, lo);
    QFETCH(glm::vec3, hi);
    QFETCH(float, cell);
    const viewer::GroundGrid g = viewer::groundGrid(lo, hi);
    QCOMPARE(g.cell, cell);
    QVERIFY(g.lines.size() % 2 == 0);
    const size_t perAxis = g.lines.size() / 2;
    QVERIFY(perAxis >= 11 && perAxis <= 25); // 10 to 24 cells across
    glm::vec2 covLo(1e30f), covHi(-1e30f);
    for (size_t i = 0; i < g.lines.size(); ++i) {
        const viewer::Segment& s = g.lines[i];
        QCOMPARE(s.a.y, lo.y);
        QCOMPARE(s.d.y, 0.0f);
        const bool alongX = i < perAxis;
        QVERIFY(alongX ? (s.d.z == 0.0f && s.d.x > 0.0f) : (s.d.x == 0.0f && s.d.z > 0.0f));
        // Every line at a whole multiple of the cell.
        const float at = alongX ? s.a.z : s.a.x;
        QVERIFY(std::fabs(at / cell - std::round(at / cell)) < 1e-3f);
        covLo = glm::min(covLo, glm::vec2(s.a.x, s.a.z));
        covHi = glm::max(covHi, glm::vec2(s.a.x + s.d.x, s.a.z + s.d.z));
    }
    QVERIFY(covLo.x <= lo.x && covLo.y <= lo.z && covHi.x >= hi.x && covHi.y >= hi.z);
    // The centre lines pass through the grid's centre.
    QCOMPARE(g.lines[size_t(g.centreLines[0])].a.z, g.centre.z);
    QCOMPARE(g.lines[size_t(g.centreLines[1])].a.x, g.centre.x);
}

void TestViewAids::gridOfAnEmptyBoxIsEmpty()
{
    QVERIFY(viewer::groundGrid(glm::vec3(1.0f), glm::vec3(-1.0f)).lines.empty());
    QVERIFY(viewer::groundGrid(glm::vec3(0.0f), glm::vec3(std::numeric_limits<float>::infinity())).lines.empty());
}

void TestViewAids::gizmoAxesFollowTheCamera()
{
    // From +z looking at the origin: X to the right, Y up, Z at the viewer (a dot).
    const viewer::AxesGizmo front = viewer::axesGizmo(glm::lookAt(glm::vec3(0, 0, 5), glm::vec3(0), glm::vec3(0, 1, 0)));
    QCOMPARE(front.count[0], 1 + 2);
    QCOMPARE(front.count[1], 1 + 3);
    QCOMPARE(front.count[2], 1 + 3);
    QCOMPARE(front.first[1], front.first[0] + front.count[0]);
    QCOMPARE(front.segments.size(), size_t(11));
    auto tip = [](const viewer::AxesGizmo& g, int k) { return g.segments[size_t(g.first[k])].a + g.segments[size_t(g.first[k])].d; };
    QVERIFY(glm::length(tip(front, 0) - glm::vec3(0.7f, 0, 0)) < 1e-6f);
    QVERIFY(glm::length(tip(front, 1) - glm::vec3(0, 0.7f, 0)) < 1e-6f);
    QVERIFY(glm::length(tip(front, 2)) < 1e-6f);
    // From +x: Z points to the left (right-handed: right = forward × up = -x × y = -z) and X at the viewer.
    const viewer::AxesGizmo side = viewer::axesGizmo(glm::lookAt(glm::vec3(5, 0, 0), glm::vec3(0), glm::vec3(0, 1, 0)));
    QVERIFY(glm::length(tip(side, 2) - glm::vec3(-0.7f, 0, 0)) < 1e-6f);
    QVERIFY(glm::length(tip(side, 1) - glm::vec3(0, 0.7f, 0)) < 1e-6f);
    QVERIFY(glm::length(tip(side, 0)) < 1e-6f);
    // Every letter stroke lies beyond its axis's tip, inside the gizmo square.
    for (int k = 0; k < 3; ++k)
        for (int s = front.first[k] + 1; s < front.first[k] + front.count[k]; ++s) {
            const viewer::Segment& seg = front.segments[size_t(s)];
            for (const glm::vec3& p : {seg.a, seg.a + seg.d})
                QVERIFY(std::fabs(p.x) <= 1.0f && std::fabs(p.y) <= 1.0f);
        }
}

void TestViewAids::edgesAreUniqueAcrossSharedTrianglesAndOffsetPerMesh()
{
    rig::Rig r;
    rig::Mesh quad;
    quad.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    quad.indices = {0, 1, 2, 0, 2, 3, /* out of range: skipped */ 0, 1, 7, /* degenerate edge 2-2 */ 2, 2, 1};
    rig::Mesh tri;
    tri.positions = {{0, 0, 1}, {1, 0, 1}, {0, 1, 1}};
    tri.indices = {2, 1, 0};
    r.meshes = {quad, tri};
    // The quad: 01 12 02 23 03 (02 shared; 12 again in the degenerate triangle); the triangle offset by 4.
    QCOMPARE(viewer::uniqueEdges(r), (std::vector<uint32_t>{0, 1, 0, 2, 0, 3, 1, 2, 2, 3, 4, 5, 4, 6, 5, 6}));
}

void TestViewAids::boxEdgesJoinEveryPairOfCornersThatDifferInOneAxis()
{
    // The per-bone box's lines: 12 edges, each from a corner to the corner that differs in one coordinate, every
    // such pair once.
    const glm::vec3 lo(-1.0f, 0.5f, 2.0f), hi(3.0f, 1.5f, 2.25f);
    const std::vector<viewer::Segment> edges = viewer::boxEdges(lo, hi);
    QCOMPARE(edges.size(), size_t(12));
    std::set<std::pair<int, int>> pairs;
    auto corner = [&](glm::vec3 p) {
        int c = 0;
        for (int a = 0; a < 3; ++a) {
            if (p[a] == hi[a])
                c |= 1 << a;
            else if (p[a] != lo[a])
                return -1;
        }
        return c;
    };
    for (const viewer::Segment& e : edges) {
        const int a = corner(e.a), b = corner(e.a + e.d);
        QVERIFY(a >= 0 && b >= 0);
        QCOMPARE(__builtin_popcount(unsigned(a ^ b)), 1);
        QVERIFY(pairs.insert({std::min(a, b), std::max(a, b)}).second);
    }
}

QTEST_GUILESS_MAIN(TestViewAids)
#include "test_view_aids.moc"
