// `rigscope check`: the rules file (defaults, overrides, one test per bad key), the findings on analytic rigs and real
// files (the glTF validator's codes, the candy wrapper of the twist clip at its last frame, the influence limit), the
// exit status, the JSON and JUnit reports, and the command over folders with a broken file among good ones.
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include <sstream>

#include "rig/io/import.h"
#include "rig/qa/check.h"

using namespace rig;

namespace {

const CheckFinding* findingOf(const CheckResult& r, std::string_view code)
{
    for (const CheckFinding& f : r.findings)
        if (f.code == code)
            return &f;
    return nullptr;
}

using Output = testutil::RigscopeOutput;

Output runCheck(const QStringList& args)
{
    return testutil::runRigscope(QStringList{QStringLiteral("check")} + args, nullptr, 300000);
}

Rig importOrFail(const std::string& path)
{
    auto r = importFile(path);
    if (!r)
        qFatal("%s: %s", path.c_str(), r.error().c_str());
    return std::move(r.value());
}

} // namespace

class TestCheck : public QObject {
    Q_OBJECT
private slots:
    void rulesFileSetsEveryRuleAndSeverity()
    {
        const auto r = parseCheckRules(R"({"influences": 8, "max_influences": 6, "method": "dual-quaternion",
            "max_skinning_error_deg": 12.5, "min_blend_scale": 0.25, "max_baseline_deg": 40, "clip_step": 0.1,
            "max_clip_frames": 50, "severity": {"ACCESSOR_WEIGHTS_NON_NORMALIZED": "warning", "RIGSCOPE_UNUSED_JOINT": "ignore"}})",
                                       "rules.json");
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
        const CheckRules& c = r.value();
        QCOMPARE(c.influences, 8);
        QCOMPARE(c.maxInfluences, size_t(6));
        QVERIFY(c.method == Method::DualQuaternion);
        QCOMPARE(c.maxSkinningErrorDeg, 12.5);
        QCOMPARE(c.minBlendScale, 0.25);
        QCOMPARE(c.maxBaselineDeg, 40.0);
        QCOMPARE(c.clipStep, 0.1f);
        QCOMPARE(c.maxClipFrames, size_t(50));
        QCOMPARE(c.severity.at("ACCESSOR_WEIGHTS_NON_NORMALIZED"), CheckSeverity::Warning);
        QCOMPARE(c.severity.at("RIGSCOPE_UNUSED_JOINT"), CheckSeverity::Ignore);
        // An empty object is the documented defaults.
        const auto d = parseCheckRules("{}", "empty.json");
        QVERIFY(d.ok());
        QCOMPARE(d.value().influences, 4);
        QCOMPARE(d.value().maxInfluences, size_t(4));
        QVERIFY(d.value().method == Method::Linear);
        QCOMPARE(d.value().maxSkinningErrorDeg, 20.0);
        QCOMPARE(d.value().minBlendScale, 0.5);
        QVERIFY(d.value().severity.empty());
    }

    void rulesFileRefusesEachBadSetting_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("says");
        QTest::newRow("not JSON") << QByteArray("{") << "not valid JSON";
        QTest::newRow("not an object") << QByteArray("[]") << "top level";
        QTest::newRow("unknown key") << QByteArray(R"({"max_weights": 4})") << "unknown key \"max_weights\"";
        QTest::newRow("influences 5") << QByteArray(R"({"influences": 5})") << "\"influences\"";
        QTest::newRow("max influences 0") << QByteArray(R"({"max_influences": 0})") << "\"max_influences\"";
        QTest::newRow("method rebuilt") << QByteArray(R"({"method": "rebuilt"})") << "\"method\"";
        QTest::newRow("method unknown") << QByteArray(R"({"method": "lbs"})") << "\"method\"";
        QTest::newRow("error negative") << QByteArray(R"({"max_skinning_error_deg": -1})") << "\"max_skinning_error_deg\"";
        QTest::newRow("scale above 1") << QByteArray(R"({"min_blend_scale": 1.5})") << "\"min_blend_scale\"";
        QTest::newRow("step a string") << QByteArray(R"({"clip_step": "fast"})") << "\"clip_step\"";
        QTest::newRow("frames 0") << QByteArray(R"({"max_clip_frames": 0})") << "\"max_clip_frames\"";
        QTest::newRow("severity not an object") << QByteArray(R"({"severity": "error"})") << "\"severity\"";
        QTest::newRow("unknown code") << QByteArray(R"({"severity": {"WEIGHTS_BAD": "error"}})") << "unknown code \"WEIGHTS_BAD\"";
        QTest::newRow("bad severity") << QByteArray(R"({"severity": {"RIGSCOPE_CANDY_WRAPPER": "fatal"}})") << "RIGSCOPE_CANDY_WRAPPER";
    }
    void rulesFileRefusesEachBadSetting()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, says);
        const auto r = parseCheckRules(std::string_view(text.constData(), size_t(text.size())), "my-rules.json");
        QVERIFY(!r.ok());
        const QString error = QString::fromStdString(r.error());
        QVERIFY2(error.startsWith(QLatin1String("my-rules.json: ")) && error.contains(says), qPrintable(error));
    }

    void twistClipFailsTheCandyWrapperRuleAtItsHalfTurn()
    {
        // The twist tube's clip turns the joint 0° -> 90° -> 180° (keys at 0, 1, 2 s): linear blending keeps
        // cos(θ/2) of the 0.5 / 0.5 ring, 0.707 at 1 s (above the default 0.5) and 0 at 2 s. The rest pose keeps 1.
        const Rig rig = testutil::sample("twist_tube");
        const CheckResult r = checkRig(rig, "twist_tube", CheckRules{});
        QVERIFY(r.readable);
        QCOMPARE(r.poses.size(), size_t(2));
        QCOMPARE(r.poses[0].name, std::string("rest"));
        RS_COMPARE_NEAR(r.poses[0].minBlendScale, 1.0, 1e-5);
        QCOMPARE(r.poses[1].name, std::string("twist"));
        QCOMPARE(r.poses[1].frames, size_t(3));
        QVERIFY2(r.poses[1].minBlendScale < 1e-4f, qPrintable(QString::number(r.poses[1].minBlendScale)));
        QCOMPARE(r.poses[1].minBlendScaleTime, 2.0f);
        const CheckFinding* f = findingOf(r, "RIGSCOPE_CANDY_WRAPPER");
        QVERIFY(f);
        QCOMPARE(f->rule, std::string("candy-wrapper"));
        QCOMPARE(f->severity, CheckSeverity::Warning);
        QVERIFY2(QString::fromStdString(f->message).contains(QLatin1String("clip 'twist' at 2.000 s")), f->message.c_str());
        QCOMPARE(checkExitStatus(std::span(&r, 1), false), 0); // a warning
        QCOMPARE(checkExitStatus(std::span(&r, 1), true), 1);  // fails with --strict
        // A looser rule passes it; an override makes it an error.
        CheckRules loose;
        loose.minBlendScale = 0.0;
        QVERIFY(!findingOf(checkRig(rig, "twist_tube", loose), "RIGSCOPE_CANDY_WRAPPER"));
        CheckRules strictRule;
        strictRule.severity["RIGSCOPE_CANDY_WRAPPER"] = CheckSeverity::Error;
        const CheckResult e = checkRig(rig, "twist_tube", strictRule);
        QCOMPARE(checkExitStatus(std::span(&e, 1), false), 1);
        // At 1 s alone (the clip sampled at its first two keys) the scale stays above the rule.
        CheckRules twoFrames;
        twoFrames.maxClipFrames = 2; // the first and the last key: 0 and 2 s
        QCOMPARE(checkRig(rig, "twist_tube", twoFrames).poses[1].frames, size_t(2));
    }

    void influenceLimitCountsTheVerticesOverIt()
    {
        // The generated sheet gives every vertex 8 influences.
        const Rig rig = makeBenchmarkRig(400, 16, 8);
        CheckRules four;
        const CheckResult r4 = checkRig(rig, "sheet", four);
        const CheckFinding* f = findingOf(r4, "RIGSCOPE_MAX_INFLUENCES");
        QVERIFY(f);
        QCOMPARE(f->count, rig.meshes[0].vertexCount());
        QCOMPARE(f->rule, std::string("influences"));
        CheckRules eight;
        eight.maxInfluences = 8;
        QVERIFY(!findingOf(checkRig(rig, "sheet", eight), "RIGSCOPE_MAX_INFLUENCES"));
    }

    void realFileFindingsCarryTheValidatorsCodes()
    {
        REQUIRE_ASSETS();
        // CesiumMan: 210 of its 3273 vertices' weights do not sum to 1 (INVENTORY.md): the validator's error.
        const std::string path = testutil::assetPath("CesiumMan/cesium_man.gltf");
        const Rig rig = importOrFail(path);
        const CheckResult r = checkRig(rig, path, CheckRules{});
        QCOMPARE(r.vertices, size_t(3273));
        QCOMPARE(r.joints, size_t(19));
        const CheckFinding* f = findingOf(r, "ACCESSOR_WEIGHTS_NON_NORMALIZED");
        QVERIFY(f);
        QCOMPARE(f->count, size_t(210));
        QCOMPARE(f->severity, CheckSeverity::Error);
        QCOMPARE(f->rule, std::string("weights"));
        QCOMPARE(checkExitStatus(std::span(&r, 1), false), 1);
        // Its clip was measured frame by frame.
        QCOMPARE(r.poses.size(), size_t(2));
        QVERIFY(r.poses[1].frames > 10);
        // Ignored by the rules: gone, and the file passes unless something else is an error.
        CheckRules ignore;
        ignore.severity["ACCESSOR_WEIGHTS_NON_NORMALIZED"] = CheckSeverity::Ignore;
        const CheckResult q = checkRig(rig, path, ignore);
        QVERIFY(!findingOf(q, "ACCESSOR_WEIGHTS_NON_NORMALIZED"));
        QVERIFY(q.worst() != CheckSeverity::Error);
        QCOMPARE(checkExitStatus(std::span(&q, 1), false), 0);
    }

    void exitStatusIsTwoForAnUnreadableFileWhateverTheOthersAre()
    {
        std::vector<CheckResult> results;
        results.push_back(checkRig(testutil::sample("sheet"), "sheet", CheckRules{}));
        QCOMPARE(checkExitStatus(results, true), 0);
        results.push_back(unreadableFile("broken.glb", "broken.glb: not a model"));
        QCOMPARE(checkExitStatus(results, false), 2);
        QCOMPARE(results.back().worst(), CheckSeverity::Error);
    }

    void junitHasOneCaseAFileAndRuleAndFailsTheErrors()
    {
        std::vector<CheckResult> results;
        results.push_back(checkRig(testutil::sample("twist_tube"), "a&b <tube>.glb", CheckRules{}));
        results.push_back(unreadableFile("broken.glb", "broken.glb: not a model"));
        for (bool strict : {false, true}) {
            std::ostringstream s;
            writeCheckJUnit(s, results, strict);
            QXmlStreamReader xml(QByteArray::fromStdString(s.str()));
            int suites = 0, cases = 0, failures = 0, errors = 0, skipped = 0;
            QStringList suiteNames, failureTypes;
            while (!xml.atEnd()) {
                if (xml.readNext() != QXmlStreamReader::StartElement)
                    continue;
                if (xml.name() == QLatin1String("testsuite")) {
                    ++suites;
                    suiteNames << xml.attributes().value(QLatin1String("name")).toString();
                } else if (xml.name() == QLatin1String("testcase")) {
                    ++cases;
                } else if (xml.name() == QLatin1String("failure")) {
                    ++failures;
                    failureTypes << xml.attributes().value(QLatin1String("type")).toString();
                } else if (xml.name() == QLatin1String("error")) {
                    ++errors;
                } else if (xml.name() == QLatin1String("skipped")) {
                    ++skipped;
                }
            }
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
            QCOMPARE(suites, 2);
            QCOMPARE(suiteNames.front(), QStringLiteral("a&b <tube>.glb")); // escaped, read back as written
            QCOMPARE(cases, 2 * int(checkRuleIds().size()));
            QCOMPARE(errors, 1);                                // the unreadable file's "read"
            QCOMPARE(skipped, int(checkRuleIds().size()) - 1); // its other rules
            // The tube's half-turn collapses linear blending: its skinning error and its candy wrapper are warnings,
            // failures only with --strict (in rule order).
            QCOMPARE(failures, strict ? 2 : 0);
            if (strict)
                QCOMPARE(failureTypes, (QStringList{QStringLiteral("RIGSCOPE_SKINNING_ERROR"), QStringLiteral("RIGSCOPE_CANDY_WRAPPER")}));
        }
    }

    void jsonListsEveryFileWithItsPosesFindingsAndStatus()
    {
        std::vector<CheckResult> results;
        results.push_back(checkRig(testutil::sample("twist_tube"), "tube.glb", CheckRules{}));
        results.push_back(unreadableFile("broken.glb", "broken.glb: not a model"));
        std::ostringstream s;
        writeCheckJson(s, results, CheckRules{}, false);
        QJsonParseError pe;
        const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(s.str()), &pe).object();
        QCOMPARE(pe.error, QJsonParseError::NoError);
        QCOMPARE(o[QStringLiteral("rigscope_check")].toInt(), 1);
        QCOMPARE(o[QStringLiteral("exit_status")].toInt(), 2);
        QCOMPARE(o[QStringLiteral("rules")].toObject()[QStringLiteral("method")].toString(), QStringLiteral("linear"));
        QCOMPARE(o[QStringLiteral("rules")].toObject()[QStringLiteral("severity")].toObject().size(), int(checkCodes().size()));
        const QJsonArray files = o[QStringLiteral("files")].toArray();
        QCOMPARE(files.size(), 2);
        const QJsonObject tube = files[0].toObject();
        QCOMPARE(tube[QStringLiteral("status")].toString(), QStringLiteral("warn"));
        QCOMPARE(tube[QStringLiteral("poses")].toArray().size(), 2);
        QCOMPARE(tube[QStringLiteral("poses")].toArray()[1].toObject()[QStringLiteral("min_blend_scale_time")].toDouble(), 2.0);
        const QJsonArray findings = tube[QStringLiteral("findings")].toArray();
        QVERIFY(std::any_of(findings.begin(), findings.end(), [](const QJsonValue& v) {
            return v.toObject()[QStringLiteral("code")].toString() == QLatin1String("RIGSCOPE_CANDY_WRAPPER");
        }));
        QCOMPARE(files[1].toObject()[QStringLiteral("status")].toString(), QStringLiteral("unreadable"));
        QCOMPARE(files[1].toObject()[QStringLiteral("error")].toString(), QStringLiteral("broken.glb: not a model"));
        const QJsonObject summary = o[QStringLiteral("summary")].toObject();
        QCOMPARE(summary[QStringLiteral("files")].toInt(), 2);
        QCOMPARE(summary[QStringLiteral("passed")].toInt(), 1);
        QCOMPARE(summary[QStringLiteral("unreadable")].toInt(), 1);
    }

    void commandChecksAFolderInParallelAndOneBrokenFileStopsNothing()
    {
        REQUIRE_ASSETS();
        // A folder with two good rigs (one copied twice, under a sub-folder) and a broken one, on two jobs.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("sub"))));
        const QString fox = QString::fromStdString(testutil::assetPath("Fox/Fox.glb"));
        QVERIFY(QFile::copy(fox, dir.filePath(QStringLiteral("a_fox.glb"))));
        QVERIFY(QFile::copy(fox, dir.filePath(QStringLiteral("sub/c_fox.GLB"))));
        {
            QFile bad(dir.filePath(QStringLiteral("b_broken.glb")));
            QVERIFY(bad.open(QIODevice::WriteOnly));
            bad.write("glTF this is not a GLB file");
        }
        {
            QFile notes(dir.filePath(QStringLiteral("notes.txt"))); // not a model: not looked at
            QVERIFY(notes.open(QIODevice::WriteOnly));
            notes.write("hello");
        }
        const QString junit = dir.filePath(QStringLiteral("out.xml"));
        const Output o = runCheck({dir.path(), QStringLiteral("--jobs"), QStringLiteral("2"), QStringLiteral("--json"),
                                   QStringLiteral("-"), QStringLiteral("--junit"), junit});
        QCOMPARE(o.exitCode, 2); // the broken file
        QJsonParseError pe;
        const QJsonObject r = QJsonDocument::fromJson(o.out, &pe).object();
        QVERIFY2(pe.error == QJsonParseError::NoError, o.out.left(400).constData());
        const QJsonArray files = r[QStringLiteral("files")].toArray();
        QCOMPARE(files.size(), 3);
        QVERIFY(files[0].toObject()[QStringLiteral("file")].toString().endsWith(QLatin1String("a_fox.glb")));
        QVERIFY(files[1].toObject()[QStringLiteral("file")].toString().endsWith(QLatin1String("b_broken.glb")));
        QVERIFY(files[2].toObject()[QStringLiteral("file")].toString().endsWith(QLatin1String("sub/c_fox.GLB")));
        QCOMPARE(files[1].toObject()[QStringLiteral("status")].toString(), QStringLiteral("unreadable"));
        QVERIFY(files[1].toObject()[QStringLiteral("error")].toString().contains(QLatin1String("b_broken.glb")));
        // Both copies of the fox were measured, identically.
        QCOMPARE(files[0].toObject()[QStringLiteral("poses")], files[2].toObject()[QStringLiteral("poses")]);
        QCOMPARE(files[0].toObject()[QStringLiteral("vertices")].toInt(), 1728);
        QVERIFY(QFileInfo(junit).size() > 0);
        QVERIFY(o.err.isEmpty()); // not a terminal: no progress line
    }

    void commandExitStatusFollowsTheRules()
    {
        REQUIRE_ASSETS();
        QTemporaryDir dir;
        const QString cesium = QString::fromStdString(testutil::assetPath("CesiumMan/cesium_man.gltf"));
        // CesiumMan's weights fail the validator's rule: 1. Its code ignored, with the warnings allowed: 0.
        Output o = runCheck({cesium});
        QCOMPARE(o.exitCode, 1);
        QVERIFY2(o.out.contains("FAIL  ") && o.out.contains("ACCESSOR_WEIGHTS_NON_NORMALIZED"), o.out.constData());
        const QString rules = dir.filePath(QStringLiteral("rules.json"));
        {
            QFile f(rules);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"severity": {"ACCESSOR_WEIGHTS_NON_NORMALIZED": "ignore"}})");
        }
        o = runCheck({cesium, QStringLiteral("--rules"), rules});
        QCOMPARE(o.exitCode, 0);
        // Bad arguments: 2, one line naming the problem.
        o = runCheck({});
        QCOMPARE(o.exitCode, 2);
        QVERIFY(o.err.contains("at least one"));
        o = runCheck({dir.filePath(QStringLiteral("nothing-here"))});
        QCOMPARE(o.exitCode, 2);
        QVERIFY(o.err.contains("no such file or folder"));
        o = runCheck({cesium, QStringLiteral("--jobs"), QStringLiteral("0")});
        QCOMPARE(o.exitCode, 2);
        o = runCheck({cesium, QStringLiteral("--rules"), dir.filePath(QStringLiteral("missing.json"))});
        QCOMPARE(o.exitCode, 2);
        QVERIFY(o.err.contains("missing.json"));
        o = runCheck({dir.path()}); // a folder with no model in it
        QCOMPARE(o.exitCode, 2);
        QVERIFY(o.err.contains("no model file"));
    }
};

QTEST_MAIN(TestCheck)
#include "test_check.moc"
