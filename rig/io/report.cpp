#include "rig/io/report.h"

#include "rig/analysis/diagnosis/blend_scale.h"
#include "rig/analysis/diagnosis/clip_scan.h"
#include "rig/analysis/diagnosis/causes.h"
#include "rig/analysis/diagnosis/weight_bands.h"
#include "rig/analysis/format_difference.h"
#include "rig/analysis/weight_checks.h"

#include <cmath>

#include "rig/io/json/json_write.h"

#include "rig/model/math.h"

namespace rig {

namespace {

/// The report's writer: RapidJSON's, streaming into the caller's std::ostream, with the few forms the report uses.
/// Numbers are floats (shortest round-trip text, null when not finite) or integers; text from the file is made valid
/// UTF-8 first.
class Json {
public:
    explicit Json(std::ostream& out) : m_stream(out), m_w(m_stream) {}

    void key(std::string_view k) { m_w.Key(k.data(), rapidjson::SizeType(k.size())); }
    void beginObject() { m_w.StartObject(); }
    void endObject() { m_w.EndObject(); }
    void beginArray() { m_w.StartArray(); }
    void endArray() { m_w.EndArray(); }
    void null() { m_w.Null(); }
    void boolean(bool b) { m_w.Bool(b); }
    void string(std::string_view s) { json::writeText(m_w, s); }
    void integer(long long v) { m_w.Int64(v); }
    void number(float v) { json::writeFloat(m_w, v); }
    void finish()
    {
        m_stream.Put('\n');
        m_stream.Flush();
    }

private:
    json::OStream m_stream;
    rapidjson::Writer<json::OStream> m_w;
};

void writeStats(Json& j, const ErrorStats& s)
{
    j.beginObject();
    const bool any = s.defined > 0;
    j.key("max");
    any ? j.number(float(s.max)) : j.null();
    j.key("mean");
    any ? j.number(float(s.mean)) : j.null();
    j.key("p95");
    any ? j.number(float(s.p95)) : j.null();
    j.key("defined");
    j.integer((long long)s.defined);
    j.key("undefined");
    j.integer((long long)s.undefined);
    j.key("histogram");
    j.beginArray();
    for (uint32_t c : s.histogram)
        j.integer(c);
    j.endArray();
    j.endObject();
}

void writeVec3s(Json& j, const std::vector<glm::vec3>& v, bool direction)
{
    for (const glm::vec3& x : v) {
        if (direction && !isDefined(x)) {
            j.null(), j.null(), j.null();
            continue;
        }
        j.number(x.x), j.number(x.y), j.number(x.z);
    }
}

void writeVec4s(Json& j, const std::vector<glm::vec4>& v)
{
    for (const glm::vec4& x : v) {
        if (!isDefined(glm::vec3(x))) {
            j.null(), j.null(), j.null(), j.null();
            continue;
        }
        j.number(x.x), j.number(x.y), j.number(x.z), j.number(x.w);
    }
}

void writeErrors(Json& j, const std::vector<float>& e)
{
    for (float x : e)
        x >= 0.0f ? j.number(x) : j.null();
}

/// {"min": [x, y, z], "max": [x, y, z]}, or null for an empty box.
void writeBox(Json& j, const Bounds& b)
{
    if (b.empty()) {
        j.null();
        return;
    }
    j.beginObject();
    for (const auto& [name, v] : {std::pair{"min", b.min}, std::pair{"max", b.max}}) {
        j.key(name);
        j.beginArray();
        j.number(v.x), j.number(v.y), j.number(v.z);
        j.endArray();
    }
    j.endObject();
}

/// A ratio that is 0 where undefined (bounds.h) as null.
void writeRatio(Json& j, double r)
{
    r > 0.0 ? j.number(float(r)) : j.null();
}

std::string nodeName(const Rig& rig, int node)
{
    return node >= 0 && size_t(node) < rig.skeleton.nodes.size() ? rig.skeleton.nodes[size_t(node)].name : std::string();
}

} // namespace

void writeReportJson(std::ostream& out, const Rig& rig, const RigRuntime& runtime, const Pose& pose,
                     const DeformSettings& settings, const Evaluation& eval, const Audit& audit,
                     const ReportOptions& options)
{
    Json j(out);
    j.beginObject();
    j.key("rigscope_report");
    j.integer(1);
    j.key("source");
    j.string(rig.source);
    j.key("device");
    j.string(options.device);
    if (!options.backend.empty()) {
        j.key("backend");
        j.string(options.backend);
    }
    j.key("vertices");
    j.integer((long long)rig.vertexCount());
    j.key("triangles");
    j.integer((long long)rig.triangleCount());
    j.key("joints");
    j.integer((long long)rig.jointCount());
    j.key("morph_targets");
    j.integer((long long)rig.morphTargetCount());
    j.key("influences_per_vertex");
    j.integer(runtime.format.influences);
    j.key("profile");
    j.string(options.profile);
    j.key("weight_encoding");
    j.string(weightEncodingId(runtime.format.weights));
    j.key("morph_normals");
    j.boolean(settings.morphNormals);

    j.key("pose");
    j.beginObject();
    j.key("base");
    j.string(pose.base == PoseBase::Bind ? "bind" : "rest");
    j.key("clip");
    pose.clip.empty() ? j.null() : j.string(pose.clip);
    j.key("time");
    j.number(float(pose.time));
    j.endObject();

    j.key("meshes");
    j.beginArray();
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        j.beginObject();
        j.key("name");
        j.string(mesh.name);
        j.key("vertices");
        j.integer((long long)mesh.vertexCount());
        j.key("triangles");
        j.integer((long long)mesh.triangleCount());
        j.key("skinned");
        j.boolean(mesh.isSkinned());
        j.key("normals_generated");
        j.boolean(mesh.normalsGenerated);
        j.key("tangents");
        j.string(!mesh.hasTangents() ? "none" : mesh.tangentsGenerated ? "generated" : "file");
        j.key("morph_targets");
        j.beginArray();
        for (const MorphTarget& t : mesh.morphTargets)
            j.string(t.name);
        j.endArray();
        j.endObject();
    }
    j.endArray();

    j.key("bind_baseline");
    j.beginObject();
    j.key("normal_error_deg");
    writeStats(j, runtime.baseline.normal);
    j.key("tangent_error_deg");
    writeStats(j, runtime.baseline.tangent);
    j.endObject();

    // The candy-wrapper scale loss of linear blending (rig/analysis/diagnosis/blend_scale.h), used by the causes too.
    const CandyWrapper cw = measureCandyWrapper(rig, runtime, eval, settings.threads);

    j.key("methods");
    j.beginObject();
    for (Method m : eval.methods) {
        const MethodStats& st = eval.stats[size_t(m)];
        j.key(methodId(m));
        j.beginObject();
        j.key("normal_error_deg");
        writeStats(j, st.normal);
        j.key("tangent_error_deg");
        writeStats(j, st.tangent);
        j.key("skinning_normal_error_deg");
        writeStats(j, st.skinningNormal);
        j.key("skinning_tangent_error_deg");
        writeStats(j, st.skinningTangent);
        j.key("handedness_mismatches");
        j.integer((long long)st.handednessMismatches);
        if (ownPositions(m)) {
            j.key("linear_fallback_vertices");
            j.integer((long long)st.dqFallbackVertices);
        }
        j.key("singular_vertices");
        j.integer((long long)st.singularVertices);
        // Why the wrong vertices are wrong (rig/analysis/diagnosis/causes.h).
        const ErrorCauses causes = classifyErrorCauses(rig, runtime, eval, cw, m, settings);
        j.key("causes");
        j.beginObject();
        j.key("threshold_deg");
        j.number(causes.thresholdDeg);
        j.key("counts");
        j.beginObject();
        for (int c = 1; c < kErrorCauseCount; ++c) {
            j.key(errorCauseId(ErrorCause(c)));
            j.integer((long long)causes.counts[size_t(c)]);
        }
        j.endObject();
        j.endObject();
        j.endObject();
    }
    j.endObject();

    j.key("mirrored_joints");
    j.beginArray();
    for (int n : eval.mirroredJoints)
        j.string(nodeName(rig, n));
    j.endArray();
    j.key("singular_joints");
    j.beginArray();
    for (int n : eval.singularJoints)
        j.string(nodeName(rig, n));
    j.endArray();

    auto vertexRef = [&](size_t mesh, size_t vertex) {
        j.beginObject();
        j.key("mesh");
        j.integer((long long)mesh);
        j.key("vertex");
        j.integer((long long)vertex);
        j.endObject();
    };
    auto nodeOrNull = [&](int node) { node >= 0 ? j.string(nodeName(rig, node)) : j.null(); };
    auto globalVertexRef = [&](size_t global) {
        size_t mesh = 0;
        while (mesh + 1 < rig.meshes.size() && global >= rig.meshes[mesh].vertexCount()) {
            global -= rig.meshes[mesh].vertexCount();
            ++mesh;
        }
        vertexRef(mesh, global);
    };
    if (options.formats) {
        j.key("formats");
        j.beginObject();
        j.key("reference");
        j.beginObject();
        j.key("influences");
        j.integer(kReferenceFormat.influences);
        j.key("weights");
        j.string(weightEncodingId(kReferenceFormat.weights));
        j.endObject();
        for (const FormatComparison& f : *options.formats) {
            j.key(f.profile);
            j.beginObject();
            j.key("influences");
            j.integer(f.format.influences);
            j.key("weights");
            j.string(weightEncodingId(f.format.weights));
            j.key("index_bits");
            j.integer(f.indexBits);
            j.key("max_position_error");
            j.number(f.maxPositionError);
            j.key("max_normal_error_deg");
            j.number(f.maxNormalErrorDeg);
            j.key("vertices_changed");
            j.integer((long long)f.verticesChanged);
            j.key("bytes_per_vertex");
            j.number(float(f.linearBytesPerVertex));
            j.key("methods");
            j.beginObject();
            for (const FormatMethodDifference& d : f.methods) {
                j.key(methodId(d.method));
                j.beginObject();
                j.key("max_position_error");
                j.number(d.maxPositionError);
                j.key("worst_vertex");
                globalVertexRef(d.worstPositionVertex);
                j.key("max_normal_error_deg");
                j.number(d.maxNormalErrorDeg);
                j.key("bytes_per_vertex");
                j.number(float(d.bytesPerVertex));
                j.endObject();
            }
            j.endObject();
            j.endObject();
        }
        j.endObject();
    }
    {
        // The exact box of the linear-blend positions beside the per-bone box an engine computes (deform/bounds.h).
        const Bounds exact = surfaceBounds(eval, Method::Linear);
        const Bounds perBone = perBoneBounds(rig, runtime, eval);
        j.key("bounds");
        j.beginObject();
        j.key("exact");
        writeBox(j, exact);
        j.key("per_bone");
        writeBox(j, perBone);
        j.key("volume_ratio");
        writeRatio(j, volumeRatio(perBone, exact));
        j.key("diagonal_ratio");
        writeRatio(j, diagonalRatio(perBone, exact));
        j.key("per_bone_contains_exact");
        j.boolean(containsBounds(perBone, exact, 1e-5f * float(exact.diagonal())));
        j.endObject();
    }
    if (const ClipScan* scan = options.scan) {
        j.key("scan");
        j.beginObject();
        j.key("clip");
        j.string(scan->clip >= 0 && size_t(scan->clip) < rig.clips.size() ? rig.clips[size_t(scan->clip)].name : std::string());
        j.key("frames");
        j.integer((long long)scan->times.size());
        j.key("step");
        scan->step > 0.0f ? j.number(scan->step) : j.null();
        j.key("cancelled");
        j.boolean(scan->cancelled);
        j.key("methods");
        j.beginObject();
        for (const ClipScanMethod& sm : scan->methods) {
            j.key(methodId(sm.method));
            j.beginObject();
            j.key("worst_normal_error_deg");
            sm.worstErrorDeg >= 0.0f ? j.number(sm.worstErrorDeg) : j.null();
            j.key("time");
            sm.worstErrorDeg >= 0.0f ? j.number(sm.time) : j.null();
            j.key("vertex");
            sm.worstErrorDeg >= 0.0f ? vertexRef(sm.mesh, sm.vertex) : j.null();
            j.endObject();
        }
        j.endObject();
        j.key("min_scale");
        j.beginObject();
        j.key("scale");
        j.number(scan->minScale);
        j.key("time");
        scan->minScaleMesh >= 0 ? j.number(scan->minScaleTime) : j.null();
        j.key("vertex");
        scan->minScaleMesh >= 0 ? vertexRef(size_t(scan->minScaleMesh), scan->minScaleVertex) : j.null();
        j.key("joints");
        j.beginArray();
        for (int n : {scan->minScaleNodeA, scan->minScaleNodeB})
            if (n >= 0)
                j.string(nodeName(rig, n));
        j.endArray();
        j.endObject();
        j.key("bounds");
        j.beginObject();
        j.key("exact_union");
        writeBox(j, scan->exactUnion);
        j.key("per_bone_union");
        writeBox(j, scan->perBoneUnion);
        j.key("mean_union_volume_ratio");
        writeRatio(j, scan->meanUnionVolumeRatio);
        j.key("mean_per_bone_volume_ratio");
        writeRatio(j, scan->meanPerBoneVolumeRatio);
        j.key("mean_union_diagonal_ratio");
        writeRatio(j, scan->meanUnionDiagonalRatio);
        j.key("mean_per_bone_diagonal_ratio");
        writeRatio(j, scan->meanPerBoneDiagonalRatio);
        j.endObject();
        j.endObject();
    }
    j.key("candy_wrapper");
    j.beginObject();
    j.key("min_scale");
    j.number(cw.minScale);
    j.key("worst_joint");
    nodeOrNull(cw.worstNodeB >= 0 ? cw.worstNodeB : cw.worstNodeA);
    j.key("worst_joints");
    j.beginArray();
    for (int n : {cw.worstNodeA, cw.worstNodeB})
        if (n >= 0)
            j.string(nodeName(rig, n));
    j.endArray();
    j.key("worst_vertex");
    cw.worstMesh >= 0 ? vertexRef(size_t(cw.worstMesh), cw.worstVertex) : j.null();
    j.key("below_0_9");
    j.integer((long long)cw.below09);
    j.key("below_0_7");
    j.integer((long long)cw.below07);
    j.key("undefined");
    j.integer((long long)cw.undefined);
    j.key("bands");
    j.beginArray();
    for (const BlendBand& b : cw.bands) {
        j.beginObject();
        j.key("joints");
        j.beginArray();
        j.string(nodeName(rig, b.nodeA));
        j.string(nodeName(rig, b.nodeB));
        j.endArray();
        j.key("vertices");
        j.integer((long long)b.vertices);
        j.key("worst_scale");
        j.number(b.worstScale);
        j.key("worst_vertex");
        vertexRef(b.worstMesh, b.worstVertex);
        j.key("below_0_9");
        j.integer((long long)b.below09);
        j.key("below_0_7");
        j.integer((long long)b.below07);
        j.endObject();
    }
    j.endArray();
    if (options.perVertex) {
        for (const auto& [name, values] : {std::pair{"scale", &cw.scale}, std::pair{"volume", &cw.volume}}) {
            j.key(name);
            j.beginArray();
            for (size_t m = 0; m < values->size(); ++m)
                for (size_t v = 0; v < (*values)[m].size(); ++v) {
                    const float x = (*values)[m][v];
                    cw.scale[m][v] < 0.0f ? j.null() : j.number(x); // scale and volume are undefined together
                }
            j.endArray();
        }
    }
    j.endObject();

    j.key("audit");
    j.beginObject();
    j.key("errors");
    j.integer((long long)audit.count(AuditFinding::Severity::Error));
    j.key("warnings");
    j.integer((long long)audit.count(AuditFinding::Severity::Warning));
    j.key("findings");
    j.beginArray();
    for (const AuditFinding& f : audit.findings) {
        j.beginObject();
        j.key("severity");
        j.string(severityName(f.severity));
        j.key("code");
        j.string(f.code);
        j.key("mesh");
        f.mesh.empty() ? j.null() : j.string(f.mesh);
        j.key("count");
        j.integer((long long)f.count);
        j.key("examples");
        j.beginArray();
        for (uint32_t e : f.examples)
            j.integer(e);
        j.endArray();
        j.key("message");
        j.string(f.message);
        j.endObject();
    }
    j.endArray();
    j.endObject();

    // The raw weight checks (rig/analysis/weight_checks.h): counts, and with --per-vertex the global vertex indices.
    const WeightChecks wc = checkWeights(rig);
    j.key("weights");
    j.beginObject();
    const std::pair<const char*, const WeightCheck*> checks[] = {
        {"non_normalized", &wc.nonNormalized},   {"over_4", &wc.over4},
        {"over_8", &wc.over8},                   {"negative_or_nan", &wc.negativeOrNan},
        {"duplicate_joints", &wc.duplicateJoints}, {"zero_weight_influences", &wc.zeroWeightInfluences},
        {"no_influence", &wc.noInfluence}};
    for (const auto& [name, check] : checks) {
        j.key(name);
        j.beginObject();
        j.key("count");
        j.integer((long long)check->count);
        if (options.perVertex) {
            j.key("vertices");
            j.beginArray();
            for (uint32_t v : check->vertices)
                j.integer(v);
            j.endArray();
        }
        j.endObject();
    }
    // The weight bands (rig/analysis/diagnosis/weight_bands.h): hard boundaries, far influences, asymmetry.
    const WeightBands bands = diagnoseWeightBands(rig);
    auto pairsOf = [&](const std::vector<JointPairCount>& pairs) {
        j.key("pairs");
        j.beginArray();
        for (const JointPairCount& p : pairs) {
            j.beginObject();
            j.key("joints");
            j.beginArray();
            j.string(nodeName(rig, p.nodeA));
            j.string(nodeName(rig, p.nodeB));
            j.endArray();
            j.key("count");
            j.integer((long long)p.count);
            j.endObject();
        }
        j.endArray();
    };
    auto verticesOf = [&](const std::vector<uint32_t>& list) {
        if (!options.perVertex)
            return;
        j.key("vertices");
        j.beginArray();
        for (uint32_t v : list)
            j.integer(v);
        j.endArray();
    };
    j.key("hard_boundary_edges");
    j.beginObject();
    j.key("count");
    j.integer((long long)bands.hardBoundaryEdges);
    j.key("max_delta");
    j.number(bands.maxDelta);
    pairsOf(bands.hardBoundaryPairs);
    verticesOf(bands.hardBoundaryVertices);
    j.endObject();
    j.key("non_adjacent_influences");
    j.beginObject();
    j.key("count");
    j.integer((long long)bands.nonAdjacentVertices);
    pairsOf(bands.nonAdjacentPairs);
    verticesOf(bands.nonAdjacentList);
    j.endObject();
    j.key("asymmetric_vertices");
    j.beginObject();
    j.key("count");
    j.integer((long long)bands.asymmetricVertices);
    j.key("mirror_axis");
    bands.mirrorAxis >= 0 ? j.string(std::string(1, char('x' + bands.mirrorAxis))) : j.null();
    j.key("mirror_offset");
    bands.mirrorAxis >= 0 ? j.number(bands.mirrorOffset) : j.null();
    j.key("mirrored_joint_pairs");
    j.integer((long long)bands.mirroredJoints.size());
    j.key("unmatched_vertices");
    j.integer((long long)bands.unmatchedVertices);
    j.key("max_difference");
    j.number(bands.maxAsymmetry);
    pairsOf(bands.asymmetricPairs);
    verticesOf(bands.asymmetricList);
    j.endObject();
    j.key("max_influences");
    j.integer((long long)wc.maxInfluences);
    j.key("unused_joints");
    j.beginArray();
    for (int n : wc.unusedJoints)
        j.string(nodeName(rig, n));
    j.endArray();
    j.endObject();

    if (options.perVertex) {
        j.key("per_vertex");
        j.beginObject();
        for (Method m : eval.methods) {
            j.key(methodId(m));
            j.beginObject();
            auto field = [&](const char* name, auto&& writeMesh) {
                j.key(name);
                j.beginArray();
                for (size_t i = 0; i < eval.meshes.size(); ++i)
                    writeMesh(eval.meshes[i], eval.meshes[i].methods[size_t(m)], eval.meshes[i].surfaceOf(m), rig.meshes[i]);
                j.endArray();
            };
            using ME = MeshEvaluation;
            using MF = MethodFrames;
            field("positions", [&](const ME&, const MF&, const Surface& s, const Mesh&) { writeVec3s(j, s.positions, false); });
            field("normals", [&](const ME&, const MF& f, const Surface&, const Mesh&) { writeVec3s(j, f.normals, true); });
            field("tangents", [&](const ME&, const MF& f, const Surface&, const Mesh& mesh) {
                if (mesh.hasTangents())
                    writeVec4s(j, f.tangents);
                else
                    for (size_t v = 0; v < mesh.vertexCount() * 4; ++v)
                        j.null();
            });
            field("reference_normals",
                  [&](const ME&, const MF&, const Surface& s, const Mesh&) { writeVec3s(j, s.referenceNormals, true); });
            field("reference_tangents", [&](const ME&, const MF&, const Surface& s, const Mesh& mesh) {
                if (mesh.hasTangents())
                    writeVec4s(j, s.referenceTangents);
                else
                    for (size_t v = 0; v < mesh.vertexCount() * 4; ++v)
                        j.null();
            });
            field("normal_error_deg", [&](const ME&, const MF& f, const Surface&, const Mesh&) { writeErrors(j, f.normalErrorDeg); });
            field("tangent_error_deg", [&](const ME&, const MF& f, const Surface&, const Mesh&) { writeErrors(j, f.tangentErrorDeg); });
            field("skinning_normal_error_deg",
                  [&](const ME&, const MF& f, const Surface&, const Mesh&) { writeErrors(j, f.skinningNormalErrorDeg); });
            field("skinning_tangent_error_deg",
                  [&](const ME&, const MF& f, const Surface&, const Mesh&) { writeErrors(j, f.skinningTangentErrorDeg); });
            j.endObject();
        }
        j.endObject();
    }
    j.endObject();
    j.finish();
}

} // namespace rig
