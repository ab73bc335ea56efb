#include "rig/io/report.h"

#include <charconv>
#include <cmath>

#include "rig/model/math.h"

namespace rig {

namespace {

/// A minimal streaming JSON writer: commas are handled by the caller's structure (first-flags).
class Json {
public:
    explicit Json(std::ostream& out) : m_out(out) {}

    void raw(std::string_view s) { m_out.write(s.data(), std::streamsize(s.size())); }
    void key(std::string_view k)
    {
        comma();
        writeJsonString(m_out, k);
        m_out.put(':');
        m_needComma = false;
    }
    void beginObject() { comma(); m_out.put('{'); m_needComma = false; }
    void endObject() { m_out.put('}'); m_needComma = true; }
    void beginArray() { comma(); m_out.put('['); m_needComma = false; }
    void endArray() { m_out.put(']'); m_needComma = true; }
    void null() { comma(); raw("null"); m_needComma = true; }
    void boolean(bool b) { comma(); raw(b ? "true" : "false"); m_needComma = true; }
    void string(std::string_view s) { comma(); writeJsonString(m_out, s); m_needComma = true; }
    void integer(long long v)
    {
        comma();
        char buf[32];
        auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_out.write(buf, r.ptr - buf);
        m_needComma = true;
    }
    /// Shortest round-trip float; null when not finite.
    void number(float v)
    {
        if (!std::isfinite(v)) {
            null();
            return;
        }
        comma();
        char buf[32];
        auto r = std::to_chars(buf, buf + sizeof buf, v == 0.0f ? 0.0f : v);
        m_out.write(buf, r.ptr - buf);
        m_needComma = true;
    }

private:
    void comma()
    {
        if (m_needComma)
            m_out.put(',');
    }
    std::ostream& m_out;
    bool m_needComma = false;
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

std::string nodeName(const Rig& rig, int node)
{
    return node >= 0 && size_t(node) < rig.skeleton.nodes.size() ? rig.skeleton.nodes[size_t(node)].name : std::string();
}

} // namespace

namespace {

/// Length of the well-formed UTF-8 sequence at s[i] (lead byte >= 0x80), or 0 when it is not one (RFC 3629: no
/// overlong forms, no surrogates, nothing above U+10FFFF).
size_t utf8SequenceLength(std::string_view s, size_t i)
{
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF; // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (i + len > s.size())
        return 0;
    for (size_t k = 1; k < len; ++k) {
        const unsigned char b = static_cast<unsigned char>(s[i + k]);
        if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF))
            return 0;
    }
    return len;
}

} // namespace

void writeJsonString(std::ostream& out, std::string_view s)
{
    // Names and messages come from the user's file: bytes that are not UTF-8 become U+FFFD, so the report stays valid
    // JSON (RFC 8259 text is UTF-8) whatever the file holds.
    out.put('"');
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            const size_t len = utf8SequenceLength(s, i);
            if (len == 0) {
                out << "\\ufffd";
                ++i;
            } else {
                out.write(s.data() + i, std::streamsize(len));
                i += len;
            }
            continue;
        }
        switch (c) {
        case '"': out << "\\\""; break;
        case '\\': out << "\\\\"; break;
        case '\n': out << "\\n"; break;
        case '\r': out << "\\r"; break;
        case '\t': out << "\\t"; break;
        default:
            if (c < 0x20) {
                static const char hex[] = "0123456789abcdef";
                out << "\\u00" << hex[c >> 4] << hex[c & 15];
            } else {
                out.put(char(c));
            }
        }
        ++i;
    }
    out.put('"');
}

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
    j.integer(runtime.influencesPerVertex);
    j.key("morph_normals");
    j.boolean(settings.morphNormals);

    j.key("pose");
    j.beginObject();
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
        if (m == Method::DualQuaternion) {
            j.key("linear_fallback_vertices");
            j.integer((long long)st.dqFallbackVertices);
        }
        j.key("singular_vertices");
        j.integer((long long)st.singularVertices);
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
            j.endObject();
        }
        j.endObject();
    }
    j.endObject();
    out.put('\n');
}

} // namespace rig
