#include "rig/qa/check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include <rapidjson/prettywriter.h>

#include "rig/analysis/audit.h"
#include "rig/analysis/diagnosis/blend_scale.h"
#include "rig/analysis/diagnosis/clip_scan.h"
#include "rig/analysis/weight_checks.h"
#include "rig/deform/deform.h"
#include "rig/io/json/json.h"
#include "rig/io/json/json_write.h"
#include "rig/model/pose.h"

namespace rig {

namespace {

using Sev = CheckSeverity;

const std::vector<CheckCodeInfo> kCodes = {
    {"RIGSCOPE_UNREADABLE", "read", Sev::Error},
    {"RIGSCOPE_IMPORT_NOTE", "read", Sev::Info}, // the importer's note; its own severity unless overridden
    {"ACCESSOR_WEIGHTS_NON_NORMALIZED", "weights", Sev::Error},
    {"ACCESSOR_WEIGHTS_NEGATIVE", "weights", Sev::Error},
    {"ACCESSOR_JOINTS_INDEX_OOB", "weights", Sev::Error},
    {"ACCESSOR_JOINTS_INDEX_DUPLICATE", "weights", Sev::Error},
    {"ACCESSOR_JOINTS_USED_ZERO_WEIGHT", "weights", Sev::Warning},
    {"RIGSCOPE_UNWEIGHTED_VERTEX", "weights", Sev::Error},
    {"RIGSCOPE_MAX_INFLUENCES", "influences", Sev::Warning},
    {"RIGSCOPE_SINGULAR_BIND_MATRIX", "skeleton", Sev::Error},
    {"RIGSCOPE_MIRRORED_BIND_MATRIX", "skeleton", Sev::Warning},
    {"RIGSCOPE_JOINT_WITHOUT_NODE", "skeleton", Sev::Error},
    {"RIGSCOPE_DUPLICATE_JOINT", "skeleton", Sev::Warning},
    {"RIGSCOPE_UNUSED_JOINT", "skeleton", Sev::Info},
    {"ACCESSOR_INVALID_FLOAT", "geometry", Sev::Error},
    {"ACCESSOR_INDEX_TRIANGLE_DEGENERATE", "geometry", Sev::Info},
    {"RIGSCOPE_ZERO_NORMAL", "geometry", Sev::Warning},
    {"RIGSCOPE_DEGENERATE_UV_TRIANGLE", "geometry", Sev::Info},
    {"RIGSCOPE_TANGENT_HANDEDNESS_MISMATCH", "tangents", Sev::Warning},
    {"RIGSCOPE_AUTHORING_BASELINE", "baseline", Sev::Warning},
    {"RIGSCOPE_SKINNING_ERROR", "skinning-error", Sev::Warning},
    {"RIGSCOPE_CANDY_WRAPPER", "candy-wrapper", Sev::Warning},
};

const std::vector<std::string_view> kRules = {"read",     "weights",  "influences",     "skeleton",     "geometry",
                                              "tangents", "baseline", "skinning-error", "candy-wrapper"};

/// The audit's codes (audit.h) and the check code each becomes; over-4/over-8-influences are the influences rule's.
struct AuditCode {
    std::string_view audit, check;
};
constexpr AuditCode kAuditCodes[] = {
    {"import", "RIGSCOPE_IMPORT_NOTE"},
    {"weights-not-normalised", "ACCESSOR_WEIGHTS_NON_NORMALIZED"},
    {"negative-weight", "ACCESSOR_WEIGHTS_NEGATIVE"},
    {"joint-out-of-range", "ACCESSOR_JOINTS_INDEX_OOB"},
    {"duplicate-influence", "ACCESSOR_JOINTS_INDEX_DUPLICATE"},
    {"unweighted-vertex", "RIGSCOPE_UNWEIGHTED_VERTEX"},
    {"singular-bind-matrix", "RIGSCOPE_SINGULAR_BIND_MATRIX"},
    {"mirrored-bind-matrix", "RIGSCOPE_MIRRORED_BIND_MATRIX"},
    {"joint-without-node", "RIGSCOPE_JOINT_WITHOUT_NODE"},
    {"duplicate-joint", "RIGSCOPE_DUPLICATE_JOINT"},
    {"non-finite-weight", "ACCESSOR_INVALID_FLOAT"},
    {"non-finite-position", "ACCESSOR_INVALID_FLOAT"},
    {"non-finite-normal", "ACCESSOR_INVALID_FLOAT"},
    {"non-finite-uv", "ACCESSOR_INVALID_FLOAT"},
    {"zero-area-triangle", "ACCESSOR_INDEX_TRIANGLE_DEGENERATE"},
    {"zero-normal", "RIGSCOPE_ZERO_NORMAL"},
    {"degenerate-uv-triangle", "RIGSCOPE_DEGENERATE_UV_TRIANGLE"},
    {"tangent-handedness-mismatch", "RIGSCOPE_TANGENT_HANDEDNESS_MISMATCH"},
};

const CheckCodeInfo* codeInfo(std::string_view code)
{
    for (const CheckCodeInfo& c : kCodes)
        if (c.code == code)
            return &c;
    return nullptr;
}

std::optional<Sev> severityFromName(std::string_view s)
{
    for (Sev v : {Sev::Ignore, Sev::Info, Sev::Warning, Sev::Error})
        if (checkSeverityName(v) == s)
            return v;
    return std::nullopt;
}

std::string degrees(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f°", v);
    return buf;
}

std::string fixed(double v, int digits)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

/// Adds a finding of `code` with its default severity (or `defaultSeverity` when given) unless the rules ignore it.
void add(CheckResult& r, const CheckRules& rules, std::string_view code, size_t count, std::string message,
         std::optional<Sev> defaultSeverity = std::nullopt)
{
    const CheckCodeInfo* info = codeInfo(code);
    Sev sev = defaultSeverity.value_or(info ? info->severity : Sev::Warning);
    if (const auto it = rules.severity.find(code); it != rules.severity.end())
        sev = it->second;
    if (sev == Sev::Ignore)
        return;
    r.findings.push_back({std::string(code), std::string(info ? info->rule : "read"), sev, count, std::move(message)});
}

Sev fromAudit(AuditFinding::Severity s)
{
    return s == AuditFinding::Severity::Error ? Sev::Error : s == AuditFinding::Severity::Warning ? Sev::Warning : Sev::Info;
}

/// The method's skinning error and linear blending's scale at one evaluated frame, into `pose` where worse.
void measureFrame(const Rig& rig, const RigRuntime& rt, const Evaluation& eval, Method method, float time, bool first,
                  CheckPose& pose)
{
    const ErrorStats& s = eval.stats[size_t(method)].skinningNormal;
    if (first || s.p95 > pose.skinningErrorP95) {
        pose.skinningErrorP95 = s.p95;
        pose.skinningErrorMax = s.max;
        pose.skinningErrorTime = time;
    }
    const CandyWrapper cw = measureCandyWrapper(rig, rt, eval, 1);
    if (first || cw.minScale < pose.minBlendScale) {
        pose.minBlendScale = cw.minScale;
        pose.minBlendScaleTime = time;
    }
}

} // namespace

std::string_view checkSeverityName(CheckSeverity s)
{
    switch (s) {
    case Sev::Ignore:
        return "ignore";
    case Sev::Info:
        return "info";
    case Sev::Warning:
        return "warning";
    case Sev::Error:
        return "error";
    }
    return "?";
}

const std::vector<std::string_view>& checkRuleIds()
{
    return kRules;
}

const std::vector<CheckCodeInfo>& checkCodes()
{
    return kCodes;
}

Result<CheckRules> parseCheckRules(std::string_view text, const std::string& name)
{
    auto err = [&](const std::string& what) { return fail(name + ": " + what); };
    json::ParseLimits limits;
    limits.maxBytes = size_t(1) << 20;
    limits.maxDepth = 8;
    Result<json::Document> parsed = json::parse(text, limits);
    if (!parsed)
        return err("not valid JSON (" + parsed.error() + ")");
    const json::Value root = parsed->root();
    if (!root.isObject())
        return err("the top level must be an object");
    CheckRules rules;
    for (size_t i = 0; i < root.size(); ++i) {
        const std::string key(root.keyAt(i));
        const json::Value v = root.valueAt(i);
        auto number = [&](double lo, double hi) -> Result<double> {
            if (!v.isNumber() || !std::isfinite(v.number()) || v.number() < lo || v.number() > hi)
                return err("\"" + key + "\" must be a number from " + fixed(lo, 2) + " to " + fixed(hi, 2));
            return v.number();
        };
        if (key == "influences") {
            uint64_t k = 0;
            if (!v.asIndex(k, 8) || (k != 4 && k != 8))
                return err("\"influences\" must be 4 or 8");
            rules.influences = int(k);
        } else if (key == "max_influences") {
            uint64_t k = 0;
            if (!v.asIndex(k, 64) || k < 1)
                return err("\"max_influences\" must be a whole number from 1 to 64");
            rules.maxInfluences = size_t(k);
        } else if (key == "method") {
            const auto m = methodFromId(v.string());
            if (!v.isString() || !m || *m == Method::Rebuilt)
                return err("\"method\" must be a method id (README \"Methods\") other than rebuilt");
            rules.method = *m;
        } else if (key == "max_skinning_error_deg") {
            auto x = number(0.0, 180.0);
            if (!x)
                return fail(x.error());
            rules.maxSkinningErrorDeg = x.value();
        } else if (key == "min_blend_scale") {
            auto x = number(0.0, 1.0);
            if (!x)
                return fail(x.error());
            rules.minBlendScale = x.value();
        } else if (key == "max_baseline_deg") {
            auto x = number(0.0, 180.0);
            if (!x)
                return fail(x.error());
            rules.maxBaselineDeg = x.value();
        } else if (key == "clip_step") {
            auto x = number(0.0, 3600.0);
            if (!x)
                return fail(x.error());
            rules.clipStep = float(x.value());
        } else if (key == "max_clip_frames") {
            uint64_t k = 0;
            if (!v.asIndex(k, 100000) || k < 1)
                return err("\"max_clip_frames\" must be a whole number from 1 to 100000");
            rules.maxClipFrames = size_t(k);
        } else if (key == "severity") {
            if (!v.isObject())
                return err("\"severity\" must be an object of code: \"error\" | \"warning\" | \"info\" | \"ignore\"");
            for (size_t c = 0; c < v.size(); ++c) {
                const std::string code(v.keyAt(c));
                if (!codeInfo(code))
                    return err("\"severity\": unknown code \"" + json::validUtf8(code) + "\" (README \"Check codes\")");
                const auto sev = severityFromName(v.valueAt(c).string());
                if (!sev)
                    return err("\"severity\": \"" + code + "\" must be \"error\", \"warning\", \"info\" or \"ignore\"");
                rules.severity[code] = *sev;
            }
        } else {
            return err("unknown key \"" + json::validUtf8(key) + "\" (README \"Check rules\")");
        }
    }
    return rules;
}

CheckSeverity CheckResult::worst() const
{
    Sev w = readable ? Sev::Ignore : Sev::Error;
    for (const CheckFinding& f : findings)
        w = std::max(w, f.severity);
    return w;
}

CheckResult unreadableFile(const std::string& file, const std::string& error)
{
    CheckResult r;
    r.file = file;
    r.readable = false;
    r.error = error;
    r.findings.push_back({"RIGSCOPE_UNREADABLE", "read", Sev::Error, 1, error});
    return r;
}

CheckResult checkRig(const Rig& rig, const std::string& file, const CheckRules& rules, const std::atomic<bool>* cancel)
{
    CheckResult r;
    r.file = file;
    r.readable = true;
    for (const Mesh& m : rig.meshes) {
        r.vertices += m.vertexCount();
        r.triangles += m.triangleCount();
    }
    std::set<int> joints;
    for (const Skin& s : rig.skins)
        joints.insert(s.joints.begin(), s.joints.end());
    r.joints = joints.size();
    r.clips = rig.clips.size();

    const RigRuntime rt = buildRuntime(rig, rules.influences);
    const Audit audit = auditRig(rig, rt.bind);
    const WeightChecks weights = checkWeights(rig);

    // The audit, code by code (the influence counts are the influences rule's, below).
    for (const AuditFinding& f : audit.findings) {
        const auto* mapped = std::find_if(std::begin(kAuditCodes), std::end(kAuditCodes),
                                          [&](const AuditCode& a) { return a.audit == f.code; });
        if (mapped == std::end(kAuditCodes))
            continue;
        const std::optional<Sev> own = f.code == "import" ? std::optional<Sev>(fromAudit(f.severity)) : std::nullopt;
        add(r, rules, mapped->check, std::max<size_t>(f.count, 1), f.message, own);
    }
    if (weights.zeroWeightInfluences.count > 0)
        add(r, rules, "ACCESSOR_JOINTS_USED_ZERO_WEIGHT", weights.zeroWeightInfluences.count,
            std::to_string(weights.zeroWeightInfluences.count) +
                " vertices name a joint other than 0 with weight 0 (the glTF validator warns: unused slots should be "
                "joint 0)");
    size_t over = 0;
    for (const MeshAudit& ma : audit.meshes)
        for (size_t i = rules.maxInfluences + 1; i < ma.influenceCounts.size(); ++i)
            over += ma.influenceCounts[i];
    if (over > 0)
        add(r, rules, "RIGSCOPE_MAX_INFLUENCES", over,
            std::to_string(over) + " vertices have more than " + std::to_string(rules.maxInfluences) +
                " usable influences (an engine at that limit drops the smallest and renormalises)");
    if (!weights.unusedJoints.empty()) {
        std::string names;
        for (size_t i = 0; i < weights.unusedJoints.size() && i < 5; ++i)
            names += (i ? ", " : "") + json::validUtf8(rig.skeleton.nodes[size_t(weights.unusedJoints[i])].name);
        if (weights.unusedJoints.size() > 5)
            names += ", ...";
        add(r, rules, "RIGSCOPE_UNUSED_JOINT", weights.unusedJoints.size(),
            std::to_string(weights.unusedJoints.size()) + " skin joints influence no vertex (" + names + ")");
    }

    // The authoring baseline: the authored normals against the reference rebuilt at the bind pose.
    r.baselineP95 = rt.baseline.normal.p95;
    if (rt.baseline.normal.defined > 0 && rt.baseline.normal.p95 > rules.maxBaselineDeg)
        add(r, rules, "RIGSCOPE_AUTHORING_BASELINE", 1,
            "the authored normals' p95 is " + degrees(rt.baseline.normal.p95) + " from the normals rebuilt at the bind "
                "pose (rule: " + degrees(rules.maxBaselineDeg) + "): custom or differently smoothed normals, which "
                "every skinning method carries along");

    // The rest pose and every clip: the method's skinning error and linear blending's scale, at each one's worst frame.
    const std::vector<Method> methods = rules.method == Method::Linear ? std::vector<Method>{Method::Linear}
                                                                       : std::vector<Method>{Method::Linear, rules.method};
    auto rest = resolvePose(rig, Pose{});
    if (!rest)
        return r; // a rig always resolves its rest pose; nothing to measure otherwise
    Evaluation eval;
    const DeformSettings settings{true, 1};
    {
        CheckPose pose;
        pose.name = "rest";
        evaluate(rig, rt, rest.value(), methods, settings, eval);
        measureFrame(rig, rt, eval, rules.method, 0.0f, true, pose);
        r.poses.push_back(pose);
    }
    for (size_t c = 0; c < rig.clips.size(); ++c) {
        if (cancel && cancel->load())
            break;
        std::vector<float> times = scanTimes(rig.clips[c], rules.clipStep);
        if (times.size() > rules.maxClipFrames) {
            std::vector<float> sampled(rules.maxClipFrames);
            for (size_t i = 0; i < sampled.size(); ++i)
                sampled[i] = times[i * (times.size() - 1) / std::max<size_t>(sampled.size() - 1, 1)];
            times = std::move(sampled);
        }
        CheckPose pose;
        pose.name = rig.clips[c].name.empty() ? "clip " + std::to_string(c) : rig.clips[c].name;
        pose.frames = 0;
        ResolvedPose frame = rest.value();
        frame.clip = int(c);
        for (float t : times) {
            if (cancel && cancel->load())
                break;
            frame.time = t;
            evaluate(rig, rt, frame, methods, settings, eval);
            measureFrame(rig, rt, eval, rules.method, t, pose.frames == 0, pose);
            ++pose.frames;
        }
        if (pose.frames > 0)
            r.poses.push_back(pose);
    }
    const std::string method(methodId(rules.method));
    for (const CheckPose& p : r.poses) {
        const std::string where = p.name == "rest" ? "the rest pose" : "clip '" + json::validUtf8(p.name) + "' at " +
                                                                           fixed(p.skinningErrorTime, 3) + " s";
        if (p.skinningErrorP95 > rules.maxSkinningErrorDeg)
            add(r, rules, "RIGSCOPE_SKINNING_ERROR", 1,
                where + ": " + method + "'s p95 skinning normal error is " + degrees(p.skinningErrorP95) + " (max " +
                    degrees(p.skinningErrorMax) + "; rule: " + degrees(rules.maxSkinningErrorDeg) + ")");
        const std::string scaleWhere = p.name == "rest" ? "the rest pose" : "clip '" + json::validUtf8(p.name) + "' at " +
                                                                                fixed(p.minBlendScaleTime, 3) + " s";
        if (p.minBlendScale >= 0.0f && p.minBlendScale < rules.minBlendScale)
            add(r, rules, "RIGSCOPE_CANDY_WRAPPER", 1,
                scaleWhere + ": linear blending keeps " + fixed(p.minBlendScale, 3) +
                    " of a vertex's neighbourhood across (rule: " + fixed(rules.minBlendScale, 3) + "): candy-wrapper collapse");
    }
    return r;
}

int checkExitStatus(std::span<const CheckResult> results, bool strict)
{
    int status = 0;
    for (const CheckResult& r : results) {
        if (!r.readable)
            return 2;
        const Sev w = r.worst();
        if (w == Sev::Error || (strict && w == Sev::Warning))
            status = 1;
    }
    return status;
}

namespace {

const char* fileStatus(const CheckResult& r, bool strict)
{
    if (!r.readable)
        return "unreadable";
    const Sev w = r.worst();
    if (w == Sev::Error || (strict && w == Sev::Warning))
        return "fail";
    return w == Sev::Warning ? "warn" : "pass";
}

} // namespace

void writeCheckJson(std::ostream& out, std::span<const CheckResult> results, const CheckRules& rules, bool strict)
{
    json::OStream os(out);
    rapidjson::PrettyWriter<json::OStream> w(os);
    w.SetIndent(' ', 2);
    w.StartObject();
    w.Key("rigscope_check");
    w.Int(1);
    w.Key("exit_status");
    w.Int(checkExitStatus(results, strict));
    w.Key("strict");
    w.Bool(strict);
    w.Key("rules");
    w.StartObject();
    w.Key("influences");
    w.Int(rules.influences);
    w.Key("max_influences");
    w.Uint64(rules.maxInfluences);
    w.Key("method");
    w.String(std::string(methodId(rules.method)).c_str());
    w.Key("max_skinning_error_deg");
    w.Double(rules.maxSkinningErrorDeg);
    w.Key("min_blend_scale");
    w.Double(rules.minBlendScale);
    w.Key("max_baseline_deg");
    w.Double(rules.maxBaselineDeg);
    w.Key("clip_step");
    json::writeFloat(w, rules.clipStep);
    w.Key("max_clip_frames");
    w.Uint64(rules.maxClipFrames);
    w.Key("severity");
    w.StartObject();
    for (const CheckCodeInfo& c : kCodes) {
        const auto it = rules.severity.find(c.code);
        w.Key(std::string(c.code).c_str());
        w.String(std::string(checkSeverityName(it == rules.severity.end() ? c.severity : it->second)).c_str());
    }
    w.EndObject();
    w.EndObject();
    size_t passed = 0, failed = 0, unreadable = 0, errors = 0, warnings = 0;
    w.Key("files");
    w.StartArray();
    for (const CheckResult& r : results) {
        const std::string status = fileStatus(r, strict);
        passed += status == "pass" || status == "warn";
        failed += status == "fail";
        unreadable += status == "unreadable";
        w.StartObject();
        w.Key("file");
        json::writeText(w, r.file);
        w.Key("status");
        w.String(status.c_str());
        if (!r.readable) {
            w.Key("error");
            json::writeText(w, r.error);
        } else {
            w.Key("vertices");
            w.Uint64(r.vertices);
            w.Key("triangles");
            w.Uint64(r.triangles);
            w.Key("joints");
            w.Uint64(r.joints);
            w.Key("clips");
            w.Uint64(r.clips);
            w.Key("baseline_normal_p95_deg");
            json::writeFloat(w, float(r.baselineP95));
            w.Key("poses");
            w.StartArray();
            for (const CheckPose& p : r.poses) {
                w.StartObject();
                w.Key("pose");
                json::writeText(w, p.name);
                w.Key("frames");
                w.Uint64(p.frames);
                w.Key("skinning_normal_error_p95_deg");
                json::writeFloat(w, float(p.skinningErrorP95));
                w.Key("skinning_normal_error_max_deg");
                json::writeFloat(w, float(p.skinningErrorMax));
                w.Key("skinning_error_time");
                json::writeFloat(w, p.skinningErrorTime);
                w.Key("min_blend_scale");
                json::writeFloat(w, p.minBlendScale);
                w.Key("min_blend_scale_time");
                json::writeFloat(w, p.minBlendScaleTime);
                w.EndObject();
            }
            w.EndArray();
        }
        w.Key("findings");
        w.StartArray();
        for (const CheckFinding& f : r.findings) {
            errors += f.severity == Sev::Error;
            warnings += f.severity == Sev::Warning;
            w.StartObject();
            w.Key("code");
            w.String(f.code.c_str());
            w.Key("rule");
            w.String(f.rule.c_str());
            w.Key("severity");
            w.String(std::string(checkSeverityName(f.severity)).c_str());
            w.Key("count");
            w.Uint64(f.count);
            w.Key("message");
            json::writeText(w, f.message);
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
    }
    w.EndArray();
    w.Key("summary");
    w.StartObject();
    w.Key("files");
    w.Uint64(results.size());
    w.Key("passed");
    w.Uint64(passed);
    w.Key("failed");
    w.Uint64(failed);
    w.Key("unreadable");
    w.Uint64(unreadable);
    w.Key("errors");
    w.Uint64(errors);
    w.Key("warnings");
    w.Uint64(warnings);
    w.EndObject();
    w.EndObject();
    os.Put('\n');
    os.Flush();
}

namespace {

/// Text for XML content and attribute values: the five special characters escaped, control characters other than
/// tab and newline dropped (XML 1.0 cannot carry them), invalid UTF-8 replaced.
std::string xml(std::string_view s)
{
    std::string out;
    for (char ch : json::validUtf8(s)) {
        const unsigned char c = static_cast<unsigned char>(ch);
        switch (ch) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&apos;";
            break;
        default:
            if (c >= 0x20 || ch == '\t' || ch == '\n')
                out += ch;
        }
    }
    return out;
}

} // namespace

void writeCheckJUnit(std::ostream& out, std::span<const CheckResult> results, bool strict)
{
    auto fails = [strict](Sev s) { return s == Sev::Error || (strict && s == Sev::Warning); };
    size_t tests = 0, failures = 0, errors = 0;
    std::string body;
    for (const CheckResult& r : results) {
        size_t suiteFailures = 0, suiteErrors = 0, suiteSkipped = 0;
        std::string cases;
        for (std::string_view rule : kRules) {
            std::vector<const CheckFinding*> mine;
            for (const CheckFinding& f : r.findings)
                if (f.rule == rule)
                    mine.push_back(&f);
            cases += "    <testcase classname=\"rigscope.check\" name=\"" + xml(r.file) + ": " + std::string(rule) + "\">\n";
            if (!r.readable) {
                if (rule == "read") {
                    cases += "      <error message=\"" + xml(r.error) + "\" type=\"RIGSCOPE_UNREADABLE\"/>\n";
                    ++suiteErrors;
                } else {
                    cases += "      <skipped message=\"the file could not be read\"/>\n";
                    ++suiteSkipped;
                }
            } else {
                const CheckFinding* failing = nullptr;
                std::string lines;
                for (const CheckFinding* f : mine) {
                    if (!failing && fails(f->severity))
                        failing = f;
                    lines += std::string(checkSeverityName(f->severity)) + " " + f->code + " (" + std::to_string(f->count) +
                             "): " + f->message + "\n";
                }
                if (failing) {
                    cases += "      <failure message=\"" + xml(failing->message) + "\" type=\"" + xml(failing->code) + "\">" +
                             xml(lines) + "</failure>\n";
                    ++suiteFailures;
                } else if (!lines.empty()) {
                    cases += "      <system-out>" + xml(lines) + "</system-out>\n";
                }
            }
            cases += "    </testcase>\n";
        }
        tests += kRules.size();
        failures += suiteFailures;
        errors += suiteErrors;
        body += "  <testsuite name=\"" + xml(r.file) + "\" tests=\"" + std::to_string(kRules.size()) + "\" failures=\"" +
                std::to_string(suiteFailures) + "\" errors=\"" + std::to_string(suiteErrors) + "\" skipped=\"" +
                std::to_string(suiteSkipped) + "\">\n" + cases + "  </testsuite>\n";
    }
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"rigscope check\" tests=\"" << tests
        << "\" failures=\"" << failures << "\" errors=\"" << errors << "\">\n"
        << body << "</testsuites>\n";
}

} // namespace rig
