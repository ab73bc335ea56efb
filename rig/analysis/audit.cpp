#include "rig/analysis/audit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "rig/analysis/reference/reference.h"
#include "rig/analysis/weight_checks.h"
#include "rig/model/math.h"

#include <cassert>

namespace rig {

namespace {

using Sev = AuditFinding::Severity;

// Collects affected indices for one finding code.
struct Counter {
    size_t count = 0;
    std::vector<uint32_t> indices;
    void hit(size_t index)
    {
        indices.push_back(uint32_t(index));
        ++count;
    }
};

void emit(Audit& a, Sev sev, const char* code, const std::string& mesh, int meshIndex, AuditFinding::Subject subject,
          Counter& c, std::string message)
{
    if (c.count == 0)
        return;
    AuditFinding f;
    f.severity = sev;
    f.code = code;
    f.mesh = mesh;
    f.meshIndex = meshIndex;
    f.subject = subject;
    f.count = c.count;
    f.examples.assign(c.indices.begin(), c.indices.begin() + ptrdiff_t(std::min(c.indices.size(), kAuditExamples)));
    f.indices = std::move(c.indices);
    f.message = std::move(message);
    a.findings.push_back(std::move(f));
}

bool finite(const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

std::string meshLabel(const Mesh& m, size_t index)
{
    return m.name.empty() ? "mesh " + std::to_string(index) : m.name;
}

} // namespace

std::string_view severityName(AuditFinding::Severity s)
{
    switch (s) {
    case Sev::Info: return "info";
    case Sev::Warning: return "warning";
    case Sev::Error: return "error";
    }
    return "info";
}

std::vector<uint32_t> findingVertices(const Rig& rig, const AuditFinding& f)
{
    std::vector<uint32_t> out;
    if (f.meshIndex < 0 || size_t(f.meshIndex) >= rig.meshes.size())
        return out;
    uint32_t base = 0;
    for (int m = 0; m < f.meshIndex; ++m)
        base += uint32_t(rig.meshes[size_t(m)].vertexCount());
    const Mesh& mesh = rig.meshes[size_t(f.meshIndex)];
    if (f.subject == AuditFinding::Subject::Vertex) {
        out.reserve(f.indices.size());
        for (uint32_t v : f.indices)
            if (v < mesh.vertexCount())
                out.push_back(base + v);
    } else if (f.subject == AuditFinding::Subject::Triangle) {
        out.reserve(3 * f.indices.size());
        for (uint32_t t : f.indices)
            if (t < mesh.triangleCount())
                for (int k = 0; k < 3; ++k)
                    if (mesh.indices[3 * size_t(t) + size_t(k)] < mesh.vertexCount())
                        out.push_back(base + mesh.indices[3 * size_t(t) + size_t(k)]);
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
    }
    return out;
}

size_t Audit::count(AuditFinding::Severity s) const
{
    return size_t(std::count_if(findings.begin(), findings.end(), [s](const AuditFinding& f) { return f.severity == s; }));
}

const AuditFinding* Audit::find(const std::string& code, const std::string& mesh) const
{
    for (const AuditFinding& f : findings)
        if (f.code == code && (mesh.empty() || f.mesh == mesh))
            return &f;
    return nullptr;
}

Audit auditRig(const Rig& rig, std::span<const BindReference> bind)
{
    assert(bind.empty() || bind.size() == rig.meshes.size());
    Audit a;
    for (const ImportNote& note : rig.notes) {
        AuditFinding f;
        f.severity = note.severity == ImportNote::Severity::Error     ? Sev::Error
                     : note.severity == ImportNote::Severity::Warning ? Sev::Warning
                                                                      : Sev::Info;
        f.code = "import";
        f.message = note.message;
        a.findings.push_back(std::move(f));
    }

    // Skins: bind matrices.
    for (size_t s = 0; s < rig.skins.size(); ++s) {
        const Skin& skin = rig.skins[s];
        Counter singular, mirrored, missing, duplicate;
        for (size_t j = 0; j < skin.joints.size(); ++j) {
            if (skin.joints[j] < 0 || size_t(skin.joints[j]) >= rig.skeleton.nodes.size())
                missing.hit(j);
            else if (std::find(skin.joints.begin(), skin.joints.begin() + ptrdiff_t(j), skin.joints[j]) !=
                     skin.joints.begin() + ptrdiff_t(j))
                duplicate.hit(j);
            const glm::mat4& ib = skin.inverseBind[j];
            const double det = glm::determinant(glm::dmat3(glm::mat3(ib)));
            bool finiteMatrix = true;
            for (int c = 0; c < 4; ++c)
                for (int r = 0; r < 4; ++r)
                    finiteMatrix &= std::isfinite(ib[c][r]);
            if (!finiteMatrix || !(std::fabs(det) > 1e-12))
                singular.hit(j);
            else if (det < 0.0)
                mirrored.hit(j);
        }
        const std::string label = skin.name.empty() ? "skin " + std::to_string(s) : skin.name;
        auto emitJoints = [&a](Sev sev, const char* code, Counter& c, std::string message) {
            emit(a, sev, code, "", -1, AuditFinding::Subject::Joint, c, std::move(message));
        };
        emitJoints(Sev::Error, "singular-bind-matrix", singular,
             label + ": " + std::to_string(singular.count) + " joints have a singular or non-finite inverse bind matrix");
        emitJoints(Sev::Warning, "mirrored-bind-matrix", mirrored,
             label + ": " + std::to_string(mirrored.count) +
                 " joints have a mirrored inverse bind matrix (det < 0): dual quaternions cannot represent them");
        emitJoints(Sev::Error, "joint-without-node", missing,
             label + ": " + std::to_string(missing.count) + " joints name no node of the scene");
        emitJoints(Sev::Warning, "duplicate-joint", duplicate,
             label + ": " + std::to_string(duplicate.count) + " joints repeat a node already in the skin");
    }

    for (size_t mi = 0; mi < rig.meshes.size(); ++mi) {
        const Mesh& mesh = rig.meshes[mi];
        const std::string label = meshLabel(mesh, mi);
        auto emitVertices = [&a, &label, mi](Sev sev, const char* code, Counter& c, std::string message) {
            emit(a, sev, code, label, int(mi), AuditFinding::Subject::Vertex, c, std::move(message));
        };
        auto emitTriangles = [&a, &label, mi](Sev sev, const char* code, Counter& c, std::string message) {
            emit(a, sev, code, label, int(mi), AuditFinding::Subject::Triangle, c, std::move(message));
        };
        MeshAudit ma;
        ma.name = label;
        ma.vertices = mesh.vertexCount();
        const size_t n = mesh.vertexCount();

        Counter badPos, badNrm, zeroNrm, badUv;
        for (size_t v = 0; v < n; ++v) {
            if (!finite(mesh.positions[v]))
                badPos.hit(v);
            if (v < mesh.normals.size()) {
                if (!finite(mesh.normals[v]))
                    badNrm.hit(v);
                else if (glm::dot(mesh.normals[v], mesh.normals[v]) < 1e-12f)
                    zeroNrm.hit(v);
            }
            if (v < mesh.uvs.size() && !(std::isfinite(mesh.uvs[v].x) && std::isfinite(mesh.uvs[v].y)))
                badUv.hit(v);
        }
        emitVertices(Sev::Error, "non-finite-position", badPos,
             label + ": " + std::to_string(badPos.count) + " vertices have a NaN or infinite position");
        emitVertices(Sev::Error, "non-finite-normal", badNrm,
             label + ": " + std::to_string(badNrm.count) + " vertices have a NaN or infinite normal");
        emitVertices(Sev::Warning, "zero-normal", zeroNrm,
             label + ": " + std::to_string(zeroNrm.count) + " vertices have a zero-length rest normal");
        emitVertices(Sev::Error, "non-finite-uv", badUv,
             label + ": " + std::to_string(badUv.count) + " vertices have a NaN or infinite UV");

        // Triangles.
        Counter zeroArea, degenerateUv;
        for (size_t t = 0; t < mesh.triangleCount(); ++t) {
            const uint32_t i0 = mesh.indices[3 * t], i1 = mesh.indices[3 * t + 1], i2 = mesh.indices[3 * t + 2];
            if (i0 >= n || i1 >= n || i2 >= n)
                continue; // the importer rejects these; a hand-built rig is the caller's bug
            const glm::vec3 c = glm::cross(mesh.positions[i1] - mesh.positions[i0], mesh.positions[i2] - mesh.positions[i0]);
            if (!(glm::dot(c, c) > 0.0f))
                zeroArea.hit(t);
            if (!mesh.uvs.empty()) {
                const glm::vec2 d1 = mesh.uvs[i1] - mesh.uvs[i0], d2 = mesh.uvs[i2] - mesh.uvs[i0];
                if (!(std::fabs(d1.x * d2.y - d2.x * d1.y) > kMinUvDet))
                    degenerateUv.hit(t);
            }
        }
        emitTriangles(Sev::Warning, "zero-area-triangle", zeroArea,
             label + ": " + std::to_string(zeroArea.count) + " triangles have zero area (no normal; they contribute nothing)");
        emitTriangles(Sev::Warning, "degenerate-uv-triangle", degenerateUv,
             label + ": " + std::to_string(degenerateUv.count) +
                 " triangles have degenerate UVs (no UV tangent; they contribute nothing to tangents)");

        // Tangent handedness as authored against the reference at the bind pose (authored tangents only: generated
        // ones come from the same triangles). A mirrored UV island exported with the wrong sign breaks normal maps.
        if (!bind.empty() && mesh.hasTangents() && !mesh.tangentsGenerated && bind[mi].tangents.size() == n) {
            Counter handedness;
            for (size_t v = 0; v < n; ++v) {
                const glm::vec4& t = mesh.tangents[v];
                const glm::vec4& r = bind[mi].tangents[v];
                if (isDefined(glm::vec3(t)) && isDefined(glm::vec3(r)) && (t.w < 0.0f) != (r.w < 0.0f))
                    handedness.hit(v);
            }
            emitVertices(Sev::Warning, "tangent-handedness-mismatch", handedness,
                 label + ": " + std::to_string(handedness.count) +
                     " vertices have an authored tangent handedness (w) opposite to the one their UVs and triangles give "
                     "at the bind pose (normal maps shade them inside out)");
        }

        if (!mesh.isSkinned()) {
            a.meshes.push_back(ma);
            continue;
        }
        const size_t jointCount = size_t(mesh.skin) < rig.skins.size() ? rig.skins[size_t(mesh.skin)].joints.size() : 0;
        Counter nonFinite, negative, outOfRange, unweighted, notNormalised, over4, over8, dup;
        double minSum = std::numeric_limits<double>::infinity(), maxSum = -minSum;
        for (size_t v = 0; v < n && v + 1 < mesh.influenceOffsets.size(); ++v) {
            const uint32_t b = mesh.influenceOffsets[v], e = std::min<uint32_t>(mesh.influenceOffsets[v + 1], uint32_t(mesh.influences.size()));
            const VertexWeightFacts f =
                vertexWeightFacts(std::span<const Influence>(mesh.influences.data() + b, b < e ? e - b : 0), jointCount);
            if (f.nonFinite)
                nonFinite.hit(v);
            if (f.negative)
                negative.hit(v);
            if (f.outOfRange)
                outOfRange.hit(v);
            if (f.duplicate)
                dup.hit(v);
            ma.maxInfluences = std::max<size_t>(ma.maxInfluences, f.usable);
            ++ma.influenceCounts[std::min<size_t>(f.usable, 9)];
            if (f.usable == 0) {
                unweighted.hit(v);
                continue;
            }
            minSum = std::min(minSum, f.sum);
            maxSum = std::max(maxSum, f.sum);
            if (f.nonNormalized)
                notNormalised.hit(v); // unweighted vertices are left to unweighted-vertex (the report counts them here too)
            if (f.usable > 4)
                over4.hit(v);
            if (f.usable > 8)
                over8.hit(v);
        }
        ma.minWeightSum = std::isfinite(minSum) ? minSum : 0.0;
        ma.maxWeightSum = std::isfinite(maxSum) ? maxSum : 0.0;
        const std::string vs = " vertices";
        emitVertices(Sev::Error, "non-finite-weight", nonFinite,
             label + ": " + std::to_string(nonFinite.count) + vs + " have a NaN or infinite weight (ignored at runtime)");
        emitVertices(Sev::Error, "negative-weight", negative,
             label + ": " + std::to_string(negative.count) + vs + " have a negative weight (ignored at runtime)");
        emitVertices(Sev::Error, "joint-out-of-range", outOfRange,
             label + ": " + std::to_string(outOfRange.count) + vs + " reference a joint index beyond the skin's " +
                 std::to_string(jointCount) + " joints (ignored at runtime)");
        emitVertices(Sev::Warning, "duplicate-influence", dup,
             label + ": " + std::to_string(dup.count) + vs + " list the same joint twice");
        emitVertices(Sev::Error, "unweighted-vertex", unweighted,
             label + ": " + std::to_string(unweighted.count) + vs +
                 " have no valid influence (they stay at their bind position)");
        emitVertices(Sev::Warning, "weights-not-normalised", notNormalised,
             label + ": " + std::to_string(notNormalised.count) + vs + " have weights that do not sum to 1 within the glTF validator's float32 tolerance (range " +
                 std::to_string(ma.minWeightSum) + " .. " + std::to_string(ma.maxWeightSum) +
                 "; normalised at runtime)");
        emitVertices(Sev::Info, "over-4-influences", over4,
             label + ": " + std::to_string(over4.count) + vs + " have more than 4 influences (4-influence runtime drops the smallest)");
        emitVertices(Sev::Warning, "over-8-influences", over8,
             label + ": " + std::to_string(over8.count) + vs + " have more than 8 influences");
        a.meshes.push_back(ma);
    }
    return a;
}

} // namespace rig
