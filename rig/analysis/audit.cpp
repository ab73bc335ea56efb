#include "rig/analysis/audit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "rig/analysis/reference.h"
#include "rig/model/math.h"

#include <cassert>

namespace rig {

namespace {

using Sev = AuditFinding::Severity;

// Collects affected indices for one finding code.
struct Counter {
    size_t count = 0;
    std::vector<uint32_t> examples;
    void hit(size_t index)
    {
        if (examples.size() < kAuditExamples)
            examples.push_back(uint32_t(index));
        ++count;
    }
};

void emit(Audit& a, Sev sev, const char* code, const std::string& mesh, const Counter& c, std::string message)
{
    if (c.count == 0)
        return;
    AuditFinding f;
    f.severity = sev;
    f.code = code;
    f.mesh = mesh;
    f.count = c.count;
    f.examples = c.examples;
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
        emit(a, Sev::Error, "singular-bind-matrix", "", singular,
             label + ": " + std::to_string(singular.count) + " joints have a singular or non-finite inverse bind matrix");
        emit(a, Sev::Warning, "mirrored-bind-matrix", "", mirrored,
             label + ": " + std::to_string(mirrored.count) +
                 " joints have a mirrored inverse bind matrix (det < 0): dual quaternions cannot represent them");
        emit(a, Sev::Error, "joint-without-node", "", missing,
             label + ": " + std::to_string(missing.count) + " joints name no node of the scene");
        emit(a, Sev::Warning, "duplicate-joint", "", duplicate,
             label + ": " + std::to_string(duplicate.count) + " joints repeat a node already in the skin");
    }

    for (size_t mi = 0; mi < rig.meshes.size(); ++mi) {
        const Mesh& mesh = rig.meshes[mi];
        const std::string label = meshLabel(mesh, mi);
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
        emit(a, Sev::Error, "non-finite-position", label, badPos,
             label + ": " + std::to_string(badPos.count) + " vertices have a NaN or infinite position");
        emit(a, Sev::Error, "non-finite-normal", label, badNrm,
             label + ": " + std::to_string(badNrm.count) + " vertices have a NaN or infinite normal");
        emit(a, Sev::Warning, "zero-normal", label, zeroNrm,
             label + ": " + std::to_string(zeroNrm.count) + " vertices have a zero-length rest normal");
        emit(a, Sev::Error, "non-finite-uv", label, badUv,
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
        emit(a, Sev::Warning, "zero-area-triangle", label, zeroArea,
             label + ": " + std::to_string(zeroArea.count) + " triangles have zero area (no normal; they contribute nothing)");
        emit(a, Sev::Warning, "degenerate-uv-triangle", label, degenerateUv,
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
            emit(a, Sev::Warning, "tangent-handedness-mismatch", label, handedness,
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
        std::vector<uint32_t> seen;
        for (size_t v = 0; v < n && v + 1 < mesh.influenceOffsets.size(); ++v) {
            const uint32_t b = mesh.influenceOffsets[v], e = std::min<uint32_t>(mesh.influenceOffsets[v + 1], uint32_t(mesh.influences.size()));
            size_t valid = 0;
            double sum = 0.0;
            bool hasNonFinite = false, hasNegative = false, hasOut = false, hasDup = false;
            seen.clear();
            for (uint32_t i = b; i < e; ++i) {
                const Influence in = mesh.influences[i];
                if (!std::isfinite(in.weight)) {
                    hasNonFinite = true;
                    continue;
                }
                if (in.weight < 0.0f)
                    hasNegative = true;
                if (in.joint >= jointCount) {
                    hasOut = true;
                    continue;
                }
                if (std::find(seen.begin(), seen.end(), in.joint) != seen.end())
                    hasDup = true;
                seen.push_back(in.joint);
                sum += in.weight;
                if (in.weight > 0.0f)
                    ++valid;
            }
            if (hasNonFinite)
                nonFinite.hit(v);
            if (hasNegative)
                negative.hit(v);
            if (hasOut)
                outOfRange.hit(v);
            if (hasDup)
                dup.hit(v);
            ma.maxInfluences = std::max(ma.maxInfluences, valid);
            ++ma.influenceCounts[std::min<size_t>(valid, 9)];
            if (valid == 0) {
                unweighted.hit(v);
                continue;
            }
            minSum = std::min(minSum, sum);
            maxSum = std::max(maxSum, sum);
            if (std::fabs(sum - 1.0) > kWeightSumTolerance)
                notNormalised.hit(v);
            if (valid > 4)
                over4.hit(v);
            if (valid > 8)
                over8.hit(v);
        }
        ma.minWeightSum = std::isfinite(minSum) ? minSum : 0.0;
        ma.maxWeightSum = std::isfinite(maxSum) ? maxSum : 0.0;
        const std::string vs = " vertices";
        emit(a, Sev::Error, "non-finite-weight", label, nonFinite,
             label + ": " + std::to_string(nonFinite.count) + vs + " have a NaN or infinite weight (ignored at runtime)");
        emit(a, Sev::Error, "negative-weight", label, negative,
             label + ": " + std::to_string(negative.count) + vs + " have a negative weight (ignored at runtime)");
        emit(a, Sev::Error, "joint-out-of-range", label, outOfRange,
             label + ": " + std::to_string(outOfRange.count) + vs + " reference a joint index beyond the skin's " +
                 std::to_string(jointCount) + " joints (ignored at runtime)");
        emit(a, Sev::Warning, "duplicate-influence", label, dup,
             label + ": " + std::to_string(dup.count) + vs + " list the same joint twice");
        emit(a, Sev::Error, "unweighted-vertex", label, unweighted,
             label + ": " + std::to_string(unweighted.count) + vs +
                 " have no valid influence (they stay at their bind position)");
        emit(a, Sev::Warning, "weights-not-normalised", label, notNormalised,
             label + ": " + std::to_string(notNormalised.count) + vs + " have weights that do not sum to 1 (range " +
                 std::to_string(ma.minWeightSum) + " .. " + std::to_string(ma.maxWeightSum) +
                 "; normalised at runtime)");
        emit(a, Sev::Info, "over-4-influences", label, over4,
             label + ": " + std::to_string(over4.count) + vs + " have more than 4 influences (4-influence runtime drops the smallest)");
        emit(a, Sev::Warning, "over-8-influences", label, over8,
             label + ": " + std::to_string(over8.count) + vs + " have more than 8 influences");
        a.meshes.push_back(ma);
    }
    return a;
}

} // namespace rig
