#include "hostile_pipeline.h"

#include "rig/model/structure.h"
#include "worker/decode_image.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

namespace hostile {

namespace {

// -----------------------------------------------------------------------------------------------------------------
// Checks of the derived data

bool isUnitOrZero(const glm::vec3& v)
{
    if (!(std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z)))
        return false;
    const float l2 = glm::dot(v, v);
    return l2 == 0.0f || std::fabs(l2 - 1.0f) < 1e-3f;
}

std::string runtimeProblem(const rig::Rig& rig, const rig::RigRuntime& rt)
{
    if (rt.meshes.size() != rig.meshes.size())
        return "runtime mesh count";
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const rig::InfluenceStream& s = rt.meshes[m].stream;
        const size_t n = rig.meshes[m].vertexCount();
        const size_t k = size_t(rt.influencesPerVertex);
        const std::string who = "runtime mesh " + std::to_string(m);
        if (size_t(s.perVertex) != k || s.joints.size() != n * k || s.weights.size() != n * k)
            return who + ": stream sizes";
        for (size_t v = 0; v < n; ++v) {
            double sum = 0.0;
            for (size_t i = 0; i < k; ++i) {
                const float w = s.weights[v * k + i];
                if (!(w >= 0.0f && w <= 1.0f) || s.joints[v * k + i] >= s.paletteSize)
                    return who + ": vertex " + std::to_string(v) + " has an invalid runtime influence";
                sum += w;
            }
            if (std::fabs(sum - 1.0) > 1e-3)
                return who + ": vertex " + std::to_string(v) + " runtime weights sum to " + std::to_string(sum);
        }
    }
    return {};
}

std::string statsProblem(const rig::ErrorStats& s, size_t vertices, const std::string& who)
{
    if (s.defined + s.undefined != vertices)
        return who + ": defined + undefined != vertices";
    size_t histogram = 0;
    for (uint32_t c : s.histogram)
        histogram += c;
    if (histogram != s.defined)
        return who + ": histogram does not add up to the defined count";
    if (s.defined == 0)
        return {};
    const bool ok = std::isfinite(s.max) && std::isfinite(s.mean) && std::isfinite(s.p95) && s.max >= 0.0 &&
                    s.max <= 180.0 + 1e-3 && s.mean >= 0.0 && s.mean <= s.max + 1e-6 && s.p95 >= 0.0 && s.p95 <= s.max;
    return ok ? std::string() : who + ": statistics out of range (max " + std::to_string(s.max) + ", mean " +
                                    std::to_string(s.mean) + ", p95 " + std::to_string(s.p95) + ")";
}

std::string evaluationProblemImpl(const rig::Rig& rig, const rig::Evaluation& eval)
{
    if (eval.meshes.size() != rig.meshes.size())
        return "evaluation mesh count";
    const size_t total = rig.vertexCount();
    for (rig::Method m : eval.methods) {
        const std::string who = "method " + std::string(rig::methodId(m));
        for (size_t i = 0; i < rig.meshes.size(); ++i) {
            const rig::MethodFrames& f = eval.meshes[i].methods[size_t(m)];
            const size_t n = rig.meshes[i].vertexCount();
            if (f.normals.size() != n || f.normalErrorDeg.size() != n || f.tangentErrorDeg.size() != n ||
                (rig.meshes[i].hasTangents() && f.tangents.size() != n))
                return who + ": sizes in mesh " + std::to_string(i);
            for (size_t v = 0; v < n; ++v) {
                if (!isUnitOrZero(f.normals[v]))
                    return who + ": mesh " + std::to_string(i) + " vertex " + std::to_string(v) + ": normal neither unit nor zero";
                if (v < f.tangents.size() && !isUnitOrZero(glm::vec3(f.tangents[v])))
                    return who + ": mesh " + std::to_string(i) + " vertex " + std::to_string(v) + ": tangent neither unit nor zero";
                for (float e : {f.normalErrorDeg[v], f.tangentErrorDeg[v]})
                    if (!(e == rig::kUndefinedError || (e >= 0.0f && e <= 180.001f)))
                        return who + ": mesh " + std::to_string(i) + " vertex " + std::to_string(v) + ": error " + std::to_string(e);
            }
        }
        const rig::MethodStats& st = eval.stats[size_t(m)];
        if (auto p = statsProblem(st.normal, total, who + " normal"); !p.empty())
            return p;
        if (auto p = statsProblem(st.tangent, total, who + " tangent"); !p.empty())
            return p;
        if (st.singularVertices > total || st.dqFallbackVertices > total)
            return who + ": flag counts";
    }
    return {};
}

std::string auditProblem(const rig::Audit& audit)
{
    for (const rig::AuditFinding& f : audit.findings) {
        if (f.code.empty() || f.examples.size() > rig::kAuditExamples || (f.code != "import" && f.examples.size() > f.count))
            return "audit finding '" + f.code + "': examples/count";
        if (f.message.empty() || f.message.find('\n') != std::string::npos)
            return "audit finding '" + f.code + "': message not one line";
    }
    return {};
}

/// A pose that bends every node (rotation, non-uniform scale on every other node, a small translation), sets every
/// morph target to 0.5 and samples the first clip at half its duration when it is valid.
rig::Pose bentPose(const rig::Rig& rig, bool withClip)
{
    rig::Pose pose;
    for (size_t i = 0; i < rig.skeleton.nodes.size(); ++i) {
        rig::JointEdit& e = pose.joints[rig.skeleton.nodes[i].name];
        e.rotateDeg = glm::vec3(20.0f + 7.0f * float(i % 5), -35.0f, 50.0f);
        if (i % 2 == 1)
            e.scale = glm::vec3(1.0f, 1.25f, 0.8f);
        e.translate = glm::vec3(0.01f, 0.02f, -0.01f);
    }
    for (const rig::Mesh& m : rig.meshes)
        for (const rig::MorphTarget& t : m.morphTargets)
            pose.morphs[t.name] = 0.5f;
    if (withClip && !rig.clips.empty()) {
        pose.clip = "0";
        if (rig.findClip(pose.clip) != 0)
            pose.clip = rig.clips[0].name; // a clip named "0" that is not the first: ask for the first by name
        pose.time = double(rig.clips[0].duration) * 0.5;
    }
    return pose;
}

std::string evaluateAndReport(const rig::Rig& rig, const rig::RigRuntime& rt, const rig::Pose& pose,
                              const rig::ResolvedPose& resolved, const rig::DeformSettings& settings,
                              const rig::Audit& audit, bool perVertex, const std::string& label, size_t& jsonBytes)
{
    rig::Evaluation eval;
    rig::evaluate(rig, rt, resolved, rig::allMethods(), settings, eval);
    if (auto p = evaluationProblemImpl(rig, eval); !p.empty())
        return label + ": " + p;
    rig::ReportOptions options;
    options.perVertex = perVertex;
    const ReportCheck check = checkReport(rig, rt, pose, settings, eval, audit, options);
    jsonBytes += check.bytes;
    if (!check.problem.empty())
        return label + " report: " + check.problem;
    return {};
}

} // namespace

ReportCheck checkReport(const rig::Rig& rig, const rig::RigRuntime& runtime, const rig::Pose& pose,
                        const rig::DeformSettings& settings, const rig::Evaluation& eval, const rig::Audit& audit,
                        const rig::ReportOptions& options)
{
    std::ostringstream out;
    rig::writeReportJson(out, rig, runtime, pose, settings, eval, audit, options);
    const std::string text = out.str();
    ReportCheck check;
    check.bytes = text.size();
    check.problem = out.good() ? jsonProblem(text) : std::string("the stream failed");
    return check;
}

std::string errorMessageProblem(const std::string& message, const std::string& displayName)
{
    const std::string prefix = displayName + ": ";
    if (message.compare(0, prefix.size(), prefix) != 0)
        return "error message does not start with '" + prefix + "': " + message;
    if (message.size() == prefix.size() || message.find_first_not_of(' ', prefix.size()) == std::string::npos)
        return "error message has no reason: " + message;
    if (message.find_first_of("\n\r") != std::string::npos)
        return "error message is not one line: " + message;
    return {};
}

std::string rigInvariantProblem(const rig::Rig& r)
{
    const rig::Result<void> structure = rig::checkStructure(r);
    return structure ? std::string() : structure.error();
}

std::string evaluationProblem(const rig::Rig& rig, const rig::Evaluation& eval)
{
    return evaluationProblemImpl(rig, eval);
}

std::string jsonProblem(std::string_view json)
{
    // RapidJSON's reader (SAX, no document), strict: RFC 8259 grammar, valid UTF-8 (kParseValidateEncodingFlag), no
    // NaN or Infinity tokens, numbers that fit a double, one value and nothing after it but whitespace.
    if (const size_t nul = json.find('\0'); nul != std::string_view::npos)
        return "offset " + std::to_string(nul) + ": NUL byte";
    rapidjson::Reader reader;
    rapidjson::BaseReaderHandler<> handler;
    rapidjson::MemoryStream stream(json.data(), json.size());
    constexpr unsigned flags = rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;
    if (reader.Parse<flags>(stream, handler).IsError())
        return "offset " + std::to_string(reader.GetErrorOffset()) + ": " + rapidjson::GetParseError_En(reader.GetParseErrorCode());
    return {};
}

Outcome runFile(const uint8_t* data, size_t size, const std::string& formatHint, const std::string& displayName,
                const rig::ImportOptions& options, size_t perVertexLimit)
{
    Outcome o;
    rig::Result<rig::Rig> imported = rig::importMemory(data, size, formatHint, displayName, options);
    if (!imported.ok()) {
        o.error = imported.error();
        o.problem = errorMessageProblem(o.error, displayName);
        return o;
    }
    rig::Rig& rig = imported.value();
    // The textures, through the worker's decoders (they see the same hostile bytes there).
    rig::worker::decodeImages(rig, options.memoryBudgetBytes / 4);
    o.loaded = true;
    o.vertices = rig.vertexCount();
    if (auto p = rigInvariantProblem(rig); !p.empty()) {
        o.problem = "imported rig: " + p;
        return o;
    }

    const rig::RigRuntime rt4 = rig::buildRuntime(rig, 4);
    const rig::RigRuntime rt8 = rig::buildRuntime(rig, 8);
    for (const rig::RigRuntime* rt : {&rt4, &rt8})
        if (auto p = runtimeProblem(rig, *rt); !p.empty()) {
            o.problem = "K=" + std::to_string(rt->influencesPerVertex) + " " + p;
            return o;
        }
    const bool perVertex = o.vertices <= perVertexLimit;
    const rig::Audit audit = rig::auditRig(rig, rt4.bind);
    if (auto p = auditProblem(audit); !p.empty()) {
        o.problem = p;
        return o;
    }

    rig::DeformSettings settings;
    settings.threads = 1;

    // Rest pose, 4 influences, positions-only morphs.
    const rig::Pose rest;
    rig::Result<rig::ResolvedPose> restResolved = rig::resolvePose(rig, rest);
    if (!restResolved.ok()) {
        o.problem = "the rest pose does not resolve: " + restResolved.error();
        return o;
    }
    settings.morphNormals = false;
    o.problem = evaluateAndReport(rig, rt4, rest, restResolved.value(), settings, audit, perVertex, "rest pose", o.jsonBytes);
    if (!o.problem.empty())
        return o;

    // Bent pose, 8 influences, morph normals on; the first clip when it is valid.
    rig::Pose bent = bentPose(rig, true);
    rig::Result<rig::ResolvedPose> bentResolved = rig::resolvePose(rig, bent);
    if (!bentResolved.ok() && !bent.clip.empty()) {
        bent = bentPose(rig, false); // a malformed clip is refused by resolvePose: pose without it
        bentResolved = rig::resolvePose(rig, bent);
    }
    if (!bentResolved.ok()) {
        o.problem = "the bent pose does not resolve: " + bentResolved.error();
        return o;
    }
    settings.morphNormals = true;
    o.problem = evaluateAndReport(rig, rt8, bent, bentResolved.value(), settings, audit, perVertex, "bent pose", o.jsonBytes);
    return o;
}

Outcome run(const uint8_t* data, size_t size, const std::string& displayName, size_t perVertexLimit, bool isolate)
{
    rig::ImportOptions options;
    options.memoryBudgetBytes = kFuzzMemoryBudget;
    options.isolate = isolate;
    if (size == 0)
        return runFile(data, 0, kHints[0], displayName, options, perVertexLimit);
    return runFile(data + 1, size - 1, kHints[data[0] % kHintCount], displayName, options, perVertexLimit);
}

} // namespace hostile
