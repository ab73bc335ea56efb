#include "rig/analysis/diagnosis/causes.h"

#include <cassert>
#include <cmath>

#include "rig/analysis/diagnosis/blend_scale.h"
#include "rig/analysis/metrics.h"
#include "rig/deform/deform.h"

namespace rig {

const char* errorCauseId(ErrorCause c)
{
    switch (c) {
    case ErrorCause::None: return "none";
    case ErrorCause::AuthoringBaseline: return "authoring_baseline";
    case ErrorCause::Collapse: return "collapse";
    case ErrorCause::MorphWithoutDeltas: return "morph_without_deltas";
    case ErrorCause::NonRigid: return "non_rigid";
    case ErrorCause::WeightGradient: return "weight_gradient";
    case ErrorCause::Other: return "other";
    }
    return "other";
}

namespace {

/// The rule of the header over one vertex's numbers.
ErrorCause causeOf(const VertexCause& c, Method m, float thresholdDeg)
{
    const float error = c.errorDeg;
    if (!(error > thresholdDeg))
        return ErrorCause::None;
    if (c.skinningErrorDeg >= 0.0f && c.skinningErrorDeg <= 0.5f * error && c.baselineDeg >= 0.5f * error)
        return ErrorCause::AuthoringBaseline;
    // Dual quaternions and centres of rotation blend rotations, not matrices: linear blending's collapse is not theirs.
    if (!ownPositions(m) && c.scale >= 0.0f && c.scale < 0.7f)
        return ErrorCause::Collapse;
    if (c.morphWithoutDeltas)
        return ErrorCause::MorphWithoutDeltas;
    if (c.isotropy >= 0.0f && c.isotropy < 0.98f)
        return ErrorCause::NonRigid;
    if (c.influences >= 2)
        return ErrorCause::WeightGradient;
    return ErrorCause::Other;
}

/// Whether the inputs line up (the evaluation holds m, and the candy-wrapper measure is of this rig).
bool consistent(const Rig& rig, const Evaluation& eval, const CandyWrapper& cw, Method m)
{
    return eval.has(m) && eval.meshes.size() == rig.meshes.size() && cw.scale.size() == rig.meshes.size();
}

/// Vertex v's numbers; `noDeltas`: the mesh's targets that move vertices without turning normals.
VertexCause gather(const Rig& rig, const RigRuntime& runtime, const Evaluation& eval, const CandyWrapper& cw, Method m,
                   size_t mi, size_t v, const std::vector<const MorphTarget*>& noDeltas)
{
    const Mesh& mesh = rig.meshes[mi];
    const size_t n = mesh.vertexCount();
    const MethodFrames& f = eval.meshes[mi].methods[size_t(m)];
    const MeshEvaluation& me = eval.meshes[mi];
    const InfluenceStream& stream = runtime.meshes[mi].stream;
    const size_t k = size_t(stream.perVertex);
    VertexCause c;
    c.errorDeg = f.normalErrorDeg.size() == n ? f.normalErrorDeg[v] : kUndefinedError;
    c.skinningErrorDeg = f.skinningNormalErrorDeg.size() == n ? f.skinningNormalErrorDeg[v] : kUndefinedError;
    if (runtime.bind.size() == rig.meshes.size() && runtime.bind[mi].normals.size() == n && mesh.normals.size() == n &&
        isDefined(mesh.normals[v]) && isDefined(runtime.bind[mi].normals[v]))
        c.baselineDeg = float(angleDeg(mesh.normals[v], runtime.bind[mi].normals[v]));
    if (me.morphedPositions.size() == n && me.morphedPositions[v] != mesh.positions[v])
        for (const MorphTarget* t : noDeltas)
            c.morphWithoutDeltas = c.morphWithoutDeltas || (t->positionDeltas.size() == n && t->positionDeltas[v] != glm::vec3(0.0f));
    if (stream.weights.size() >= (v + 1) * k)
        for (size_t i = 0; i < k; ++i)
            c.influences += stream.weights[v * k + i] > 0.0f ? 1 : 0;
    c.scale = cw.scale[mi].size() == n ? cw.scale[mi][v] : kUndefinedScale;
    c.isotropy = cw.isotropy.size() == rig.meshes.size() && cw.isotropy[mi].size() == n ? cw.isotropy[mi][v] : kUndefinedScale;
    return c;
}

std::vector<const MorphTarget*> targetsWithoutDeltas(const Mesh& mesh, const DeformSettings& settings)
{
    std::vector<const MorphTarget*> out;
    for (const MorphTarget& t : mesh.morphTargets)
        if (!settings.morphNormals || t.normalDeltas.size() != mesh.vertexCount())
            out.push_back(&t);
    return out;
}

} // namespace

VertexCause explainVertexError(const Rig& rig, const RigRuntime& runtime, const Evaluation& eval, const CandyWrapper& cw,
                               Method m, const DeformSettings& settings, size_t mesh, size_t vertex, float thresholdDeg)
{
    if (!consistent(rig, eval, cw, m) || mesh >= rig.meshes.size() || vertex >= rig.meshes[mesh].vertexCount())
        return VertexCause{};
    VertexCause c = gather(rig, runtime, eval, cw, m, mesh, vertex, targetsWithoutDeltas(rig.meshes[mesh], settings));
    c.cause = causeOf(c, m, thresholdDeg);
    return c;
}

ErrorCauses classifyErrorCauses(const Rig& rig, const RigRuntime& runtime, const Evaluation& eval, const CandyWrapper& cw,
                                Method m, const DeformSettings& settings, float thresholdDeg)
{
    ErrorCauses out;
    out.thresholdDeg = thresholdDeg;
    out.perVertex.resize(rig.meshes.size());
    if (!consistent(rig, eval, cw, m))
        return out;
    for (size_t mi = 0; mi < rig.meshes.size(); ++mi) {
        const size_t n = rig.meshes[mi].vertexCount();
        const MethodFrames& f = eval.meshes[mi].methods[size_t(m)];
        std::vector<ErrorCause>& causes = out.perVertex[mi];
        causes.assign(n, ErrorCause::None);
        if (f.normalErrorDeg.size() != n)
            continue;
        const std::vector<const MorphTarget*> noDeltas = targetsWithoutDeltas(rig.meshes[mi], settings);
        for (size_t v = 0; v < n; ++v)
            if (f.normalErrorDeg[v] > thresholdDeg) // the rest stay None without gathering
                causes[v] = causeOf(gather(rig, runtime, eval, cw, m, mi, v, noDeltas), m, thresholdDeg);
        for (ErrorCause c : causes)
            ++out.counts[size_t(c)];
    }
    return out;
}

} // namespace rig
