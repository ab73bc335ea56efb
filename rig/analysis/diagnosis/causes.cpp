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

ErrorCauses classifyErrorCauses(const Rig& rig, const RigRuntime& runtime, const Evaluation& eval, const CandyWrapper& cw,
                                Method m, const DeformSettings& settings, float thresholdDeg)
{
    ErrorCauses out;
    out.thresholdDeg = thresholdDeg;
    out.perVertex.resize(rig.meshes.size());
    if (!eval.has(m) || eval.meshes.size() != rig.meshes.size() || cw.scale.size() != rig.meshes.size())
        return out;
    for (size_t mi = 0; mi < rig.meshes.size(); ++mi) {
        const Mesh& mesh = rig.meshes[mi];
        const size_t n = mesh.vertexCount();
        const MethodFrames& f = eval.meshes[mi].methods[size_t(m)];
        const MeshEvaluation& me = eval.meshes[mi];
        const InfluenceStream& stream = runtime.meshes[mi].stream;
        const size_t k = size_t(stream.perVertex);
        std::vector<ErrorCause>& causes = out.perVertex[mi];
        causes.assign(n, ErrorCause::None);
        if (f.normalErrorDeg.size() != n)
            continue;
        // Targets that move vertices without turning normals: none have normal deltas, or they are switched off.
        std::vector<const MorphTarget*> noDeltas;
        for (const MorphTarget& t : mesh.morphTargets)
            if (!settings.morphNormals || t.normalDeltas.size() != n)
                noDeltas.push_back(&t);
        for (size_t v = 0; v < n; ++v) {
            const float error = f.normalErrorDeg[v];
            if (!(error > thresholdDeg))
                continue;
            ErrorCause c = ErrorCause::Other;
            const float skin = f.skinningNormalErrorDeg.size() == n ? f.skinningNormalErrorDeg[v] : kUndefinedError;
            float baseline = kUndefinedError; // the authored normal against the one rebuilt at the bind pose
            if (runtime.bind.size() == rig.meshes.size() && runtime.bind[mi].normals.size() == n && mesh.normals.size() == n &&
                isDefined(mesh.normals[v]) && isDefined(runtime.bind[mi].normals[v]))
                baseline = float(angleDeg(mesh.normals[v], runtime.bind[mi].normals[v]));
            bool morphed = false;
            if (me.morphedPositions.size() == n && me.morphedPositions[v] != mesh.positions[v])
                for (const MorphTarget* t : noDeltas)
                    morphed = morphed || (t->positionDeltas.size() == n && t->positionDeltas[v] != glm::vec3(0.0f));
            int influences = 0;
            for (size_t i = 0; i < k; ++i)
                influences += stream.weights[v * k + i] > 0.0f ? 1 : 0;
            const float scale = cw.scale[mi].size() == n ? cw.scale[mi][v] : kUndefinedScale;
            const float iso = cw.isotropy.size() == rig.meshes.size() && cw.isotropy[mi].size() == n ? cw.isotropy[mi][v]
                                                                                                      : kUndefinedScale;
            if (skin >= 0.0f && skin <= 0.5f * error && baseline >= 0.5f * error)
                c = ErrorCause::AuthoringBaseline;
            else if (scale >= 0.0f && scale < 0.7f)
                c = ErrorCause::Collapse;
            else if (morphed)
                c = ErrorCause::MorphWithoutDeltas;
            else if (iso >= 0.0f && iso < 0.98f)
                c = ErrorCause::NonRigid;
            else if (influences >= 2)
                c = ErrorCause::WeightGradient;
            causes[v] = c;
        }
        for (ErrorCause c : causes)
            ++out.counts[size_t(c)];
    }
    return out;
}

} // namespace rig
