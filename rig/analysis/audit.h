// The weight and rig audit: always reads the raw, authored data (never the normalised runtime stream).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "rig/analysis/reference/reference.h"
#include "rig/model/model.h"

namespace rig {

struct AuditFinding {
    enum class Severity : uint8_t { Info, Warning, Error };
    /// What the indices count.
    enum class Subject : uint8_t { Rig, Joint, Vertex, Triangle };
    Severity severity = Severity::Info;
    Subject subject = Subject::Rig;
    std::string code;               ///< stable id, e.g. "weights-not-normalised" (README lists them)
    std::string mesh;               ///< mesh name, empty for rig-wide findings
    int meshIndex = -1;             ///< index into Rig::meshes for vertex and triangle findings, else -1
    size_t count = 0;               ///< number of affected vertices / triangles / joints
    std::vector<uint32_t> indices;  ///< every affected index (mesh-local vertex or triangle; skin-local joint), ascending
    std::vector<uint32_t> examples; ///< the first kAuditExamples of indices
    std::string message;            ///< one readable line
};

inline constexpr size_t kAuditExamples = 8;

struct MeshAudit {
    std::string name;
    size_t vertices = 0;
    size_t maxInfluences = 0;                 ///< most valid influences on one vertex
    std::array<size_t, 10> influenceCounts{}; ///< vertices with 0..8 valid influences, [9] = more than 8
    double minWeightSum = 0.0;                ///< over vertices with at least one influence
    double maxWeightSum = 0.0;
};

struct Audit {
    std::vector<AuditFinding> findings;
    std::vector<MeshAudit> meshes;

    size_t count(AuditFinding::Severity s) const;
    const AuditFinding* find(const std::string& code, const std::string& mesh = {}) const;
};

/// The audit of the raw data. With `bind` (one BindReference per mesh, reference.h), also the tangent handedness as
/// authored against the reference at the bind pose ("tangent-handedness-mismatch").
Audit auditRig(const Rig& rig, std::span<const BindReference> bind = {});

std::string_view severityName(AuditFinding::Severity s);

/// The global vertex indices (meshes concatenated in file order) a finding touches: its vertices, or the corners of
/// its triangles (sorted, unique). Empty for joint and rig-wide findings.
std::vector<uint32_t> findingVertices(const Rig& rig, const AuditFinding& f);

} // namespace rig
