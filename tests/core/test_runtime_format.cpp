// Engine vertex formats (rig/deform/runtime_format.h): the 11/11/10 weights' round trip and exact sum, glTF's
// normalised 8- and 16-bit weights summing exactly, the influence limit against hand-computed cases, and a formatted
// stream of a real rig.
#include "testutil.h"

#include <algorithm>
#include <array>
#include <functional>
#include <random>

#include "rig/deform/influences.h"
#include "rig/deform/runtime_format.h"
#include "rig/io/import.h"

using namespace rig;

namespace {

/// Four random weights > 0, normalised in double, largest first (as a runtime stream sorts them), as floats.
std::array<float, 4> randomWeights(std::mt19937& rng, int nonZero)
{
    std::uniform_real_distribution<double> u(1e-4, 1.0);
    std::array<double, 4> d{0, 0, 0, 0};
    double sum = 0.0;
    for (int i = 0; i < nonZero; ++i)
        sum += d[size_t(i)] = u(rng);
    std::sort(d.begin(), d.end(), std::greater<>());
    std::array<float, 4> w;
    for (size_t i = 0; i < 4; ++i)
        w[i] = float(d[i] / sum);
    return w;
}

InfluenceStream streamOf(std::initializer_list<std::pair<uint16_t, float>> entries, int k)
{
    InfluenceStream s;
    s.perVertex = k;
    s.paletteSize = 16;
    s.joints.assign(size_t(k), 0);
    s.weights.assign(size_t(k), 0.0f);
    size_t i = 0;
    for (const auto& [j, w] : entries) {
        s.joints[i] = j;
        s.weights[i] = w;
        ++i;
    }
    return s;
}

} // namespace

class TestRuntimeFormat : public QObject {
    Q_OBJECT
private slots:
    void packed111110IsWithinHalfAStepAndSumsToExactlyOne()
    {
        // 100,000 vertices of four weights: w0, w1 within 1/4096, w2 within 1/2048, the reconstructed w3 within
        // 1/1024, the four added in order exactly 1.0f, none negative.
        std::mt19937 rng(11);
        size_t checked = 0;
        for (int n = 0; n < 100000; ++n) {
            const std::array<float, 4> w = randomWeights(rng, 4);
            if (w[3] < 1.0f / 1024.0f)
                continue; // the w3 < 1/1024 case is the next test's
            float d[4];
            unpack111110(pack111110(w.data()), d);
            QVERIFY2(std::fabs(d[0] - w[0]) <= 1.0f / 4096.0f && std::fabs(d[1] - w[1]) <= 1.0f / 4096.0f &&
                         std::fabs(d[2] - w[2]) <= 1.0f / 2048.0f && std::fabs(d[3] - w[3]) <= 1.0f / 1024.0f,
                     qPrintable(QStringLiteral("%1 %2 %3 %4 -> %5 %6 %7 %8").arg(w[0]).arg(w[1]).arg(w[2]).arg(w[3])
                                    .arg(d[0]).arg(d[1]).arg(d[2]).arg(d[3])));
            QCOMPARE(d[0] + d[1] + d[2] + d[3], 1.0f);
            QVERIFY(d[3] >= 0.0f);
            ++checked;
        }
        QVERIFY(checked > 90000);
    }

    void packed111110NeverGivesANegativeFourthWeight()
    {
        // Three influences (w3 = 0) and a tiny fourth: the three stored may round up past 1; the code rounded up most
        // is lowered a step instead, so w3 >= 0, each stored weight within one step, the sum still exactly 1.
        std::mt19937 rng(12);
        size_t lowered = 0;
        for (int n = 0; n < 50000; ++n) {
            std::array<float, 4> w = randomWeights(rng, 3);
            if (n % 2)
                w[3] = 1e-5f, w[0] -= 1e-5f;
            float d[4];
            unpack111110(pack111110(w.data()), d);
            QVERIFY(d[3] >= 0.0f);
            QCOMPARE(d[0] + d[1] + d[2] + d[3], 1.0f);
            QVERIFY(std::fabs(d[0] - w[0]) <= 1.0f / 2048.0f && std::fabs(d[1] - w[1]) <= 1.0f / 2048.0f &&
                    std::fabs(d[2] - w[2]) <= 1.0f / 1024.0f);
            lowered += std::fabs(d[0] - w[0]) > 1.0f / 4096.0f || std::fabs(d[1] - w[1]) > 1.0f / 4096.0f ||
                       std::fabs(d[2] - w[2]) > 1.0f / 2048.0f;
        }
        QVERIFY2(lowered > 0, "some vertex needed the step down: the rule was exercised");
    }

    void packed111110WeightOfOneClampsAndTheRestLandsOnTheFourth()
    {
        const float w[4] = {1.0f, 0.0f, 0.0f, 0.0f};
        const uint32_t p = pack111110(w);
        QCOMPARE(p, 2047u);
        float d[4];
        unpack111110(p, d);
        QCOMPARE(d[0], 2047.0f / 2048.0f);
        QCOMPARE(d[1], 0.0f);
        QCOMPARE(d[2], 0.0f);
        QCOMPARE(d[3], 1.0f / 2048.0f);
        // Codes in their fields: 0.5 -> 1024, 0.25 -> 512, 0.25 -> 256 (of 1024), w3 = 0.
        const float q[4] = {0.5f, 0.25f, 0.25f, 0.0f};
        QCOMPARE(pack111110(q), 1024u | (512u << 11) | (256u << 22));
    }

    void unormWeightsSumExactlyAndRoundToNearest_data()
    {
        QTest::addColumn<uint32_t>("max");
        QTest::newRow("unorm8") << 255u;
        QTest::newRow("unorm16") << 65535u;
    }
    void unormWeightsSumExactlyAndRoundToNearest()
    {
        QFETCH(uint32_t, max);
        std::mt19937 rng(13);
        for (int n = 0; n < 50000; ++n) {
            const std::array<float, 4> w = randomWeights(rng, 1 + n % 4);
            uint32_t c[4];
            quantizeUnorm(w, max, c);
            QCOMPARE(c[0] + c[1] + c[2] + c[3], max);
            // Each code but the largest is its weight rounded to the nearest; the largest took the residue, at most
            // half a code from each of the others.
            for (size_t i = 1; i < 4; ++i)
                QVERIFY(std::fabs(double(c[i]) - double(w[i]) * max) <= 0.5 + 1e-9);
            QVERIFY(std::fabs(double(c[0]) - double(w[0]) * max) <= 2.5 + 1e-9);
        }
        // By hand: (0.5, 0.3, 0.2, 0) x 255 = 127.5, 76.5, 51 -> 128, 77, 51 = 256: the largest gives one back.
        const float w[4] = {0.5f, 0.3f, 0.2f, 0.0f};
        uint32_t c[4];
        quantizeUnorm(w, 255u, c);
        if (max == 255u) {
            QCOMPARE(c[0], 127u);
            QCOMPARE(c[1], 77u);
            QCOMPARE(c[2], 51u);
            QCOMPARE(c[3], 0u);
        }
    }

    void influenceLimitKeepsTheLargestAndRenormalises()
    {
        // (0.4, 0.3, 0.2, 0.1): K = 2 keeps 0.4 / 0.7 and 0.3 / 0.7; K = 1 keeps joint 7 at 1; K = 4 is unchanged.
        const InfluenceStream in = streamOf({{7, 0.4f}, {3, 0.3f}, {5, 0.2f}, {9, 0.1f}}, 4);
        auto k2 = applyRuntimeFormat(in, {2, WeightEncoding::Float});
        QVERIFY(k2.ok());
        QCOMPARE(k2.value().joints, (std::vector<uint16_t>{7, 3, 0, 0}));
        RS_COMPARE_NEAR(k2.value().weights[0], 0.4 / 0.7, 1e-7);
        RS_COMPARE_NEAR(k2.value().weights[1], 0.3 / 0.7, 1e-7);
        QCOMPARE(k2.value().weights[0] + k2.value().weights[1], 1.0f);
        QCOMPARE(k2.value().weights[2], 0.0f);
        auto k1 = applyRuntimeFormat(in, {1, WeightEncoding::Float});
        QVERIFY(k1.ok());
        QCOMPARE(k1.value().joints, (std::vector<uint16_t>{7, 0, 0, 0}));
        QCOMPARE(k1.value().weights, (std::vector<float>{1.0f, 0.0f, 0.0f, 0.0f}));
        auto k4 = applyRuntimeFormat(in, {4, WeightEncoding::Float});
        QVERIFY(k4.ok());
        QCOMPARE(k4.value().joints, in.joints);
        QCOMPARE(k4.value().weights[0] + k4.value().weights[1] + k4.value().weights[2] + k4.value().weights[3], 1.0f);
        // Ties: the stream keeps the authored order, so K = 2 of four equal weights keeps the first two.
        const InfluenceStream tie = streamOf({{1, 0.25f}, {2, 0.25f}, {3, 0.25f}, {4, 0.25f}}, 4);
        auto t2 = applyRuntimeFormat(tie, {2, WeightEncoding::Float});
        QCOMPARE(t2.value().joints, (std::vector<uint16_t>{1, 2, 0, 0}));
        QCOMPARE(t2.value().weights, (std::vector<float>{0.5f, 0.5f, 0.0f, 0.0f}));
    }

    void formatRefusesEachInvalidSetup_data()
    {
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("encoding");
        QTest::addColumn<int>("streamK");
        QTest::newRow("3 influences") << 3 << int(WeightEncoding::Float) << 4;
        QTest::newRow("0 influences") << 0 << int(WeightEncoding::Float) << 4;
        QTest::newRow("16 influences") << 16 << int(WeightEncoding::Float) << 8;
        QTest::newRow("11-11-10 of 2") << 2 << int(WeightEncoding::Packed111110) << 4;
        QTest::newRow("11-11-10 of 8") << 8 << int(WeightEncoding::Packed111110) << 8;
        QTest::newRow("8 from a stream of 4") << 8 << int(WeightEncoding::Unorm8) << 4;
    }
    void formatRefusesEachInvalidSetup()
    {
        QFETCH(int, k);
        QFETCH(int, encoding);
        QFETCH(int, streamK);
        const InfluenceStream in = streamOf({{1, 1.0f}}, streamK);
        const auto r = applyRuntimeFormat(in, {k, WeightEncoding(encoding)});
        QVERIFY(!r.ok());
        QVERIFY2(r.error().rfind("runtime format: ", 0) == 0, r.error().c_str());
    }

    void formattedRealStreamKeepsEveryVertexsSumAndLimit_data()
    {
        QTest::addColumn<int>("k");
        QTest::addColumn<int>("encoding");
        for (int k : {1, 2, 4})
            for (WeightEncoding e : {WeightEncoding::Float, WeightEncoding::Unorm16, WeightEncoding::Unorm8})
                QTest::addRow("%d %s", k, weightEncodingId(e).data()) << k << int(e);
        QTest::newRow("4 11-11-10") << 4 << int(WeightEncoding::Packed111110);
    }
    void formattedRealStreamKeepsEveryVertexsSumAndLimit()
    {
        REQUIRE_ASSETS();
        QFETCH(int, k);
        QFETCH(int, encoding);
        const WeightEncoding e = WeightEncoding(encoding);
        ImportOptions o;
        o.isolate = false;
        auto rig = importFile(testutil::assetPath("CesiumMan/cesium_man.gltf"), o);
        QVERIFY(rig.ok());
        const Mesh& mesh = rig.value().meshes[0];
        const InfluenceStream in = buildInfluenceStream(mesh, rig.value().skins[0].joints.size(), 4);
        auto out = applyRuntimeFormat(in, {k, e});
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().c_str());
        const InfluenceStream& s = out.value();
        QCOMPARE(s.weights.size(), in.weights.size());
        // The largest unorm code holds the rounding residue (up to 2.5 codes); an 11/11/10 fourth weight up to the
        // three others' errors (a step lowered included).
        const double step = e == WeightEncoding::Unorm8 ? 3.0 / 255 : e == WeightEncoding::Unorm16 ? 3.0 / 65535
                          : e == WeightEncoding::Packed111110 ? 1.0 / 512 : 1e-6;
        size_t changed = 0;
        for (size_t v = 0; v < mesh.vertexCount(); ++v) {
            double sum = 0.0, keptIn = 0.0;
            for (size_t i = 0; i < 4; ++i) {
                const float w = s.weights[v * 4 + i];
                QVERIFY(w >= 0.0f);
                if (int(i) >= k)
                    QVERIFY(w == 0.0f && s.joints[v * 4 + i] == 0); // dropped
                else
                    keptIn += in.weights[v * 4 + i];
                sum += w;
            }
            QVERIFY2(std::fabs(sum - 1.0) <= 4e-7 + (e == WeightEncoding::Float || e == WeightEncoding::Packed111110 ? 0.0 : 4e-7),
                     qPrintable(QString::number(sum, 'g', 10)));
            // Each kept weight is its renormalised input within the encoding's step.
            for (size_t i = 0; i < size_t(k); ++i) {
                const double want = double(in.weights[v * 4 + i]) / keptIn;
                QVERIFY2(std::fabs(double(s.weights[v * 4 + i]) - want) <= step + 1e-6,
                         qPrintable(QStringLiteral("v%1 slot %2: %3 for %4").arg(v).arg(i).arg(s.weights[v * 4 + i]).arg(want)));
                changed += s.weights[v * 4 + i] != in.weights[v * 4 + i];
            }
        }
        if (k < 4 || e != WeightEncoding::Float)
            QVERIFY2(changed > 0, "the format changed some weight on CesiumMan: the row compares more than copies");
    }
};

QTEST_MAIN(TestRuntimeFormat)
#include "test_runtime_format.moc"
