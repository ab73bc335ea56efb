#include "rig/analysis/format_difference.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "rig/analysis/metrics.h"

namespace rig {

void formatDifferences(std::span<const glm::vec3> refPositions, std::span<const glm::vec3> refNormals,
                       std::span<const glm::vec3> positions, std::span<const glm::vec3> normals,
                       std::span<float> outDistance, std::span<float> outNormalDeg)
{
    assert(refPositions.size() == positions.size() && outDistance.size() == positions.size());
    assert(refNormals.size() == normals.size() && outNormalDeg.size() == normals.size());
    for (size_t v = 0; v < positions.size(); ++v) {
        const float d = glm::length(positions[v] - refPositions[v]);
        outDistance[v] = std::isfinite(d) ? d : 0.0f;
    }
    angularErrors(normals, refNormals, outNormalDeg);
}

namespace {

// The weighted (joint, weight) pairs of one vertex, sorted by joint then weight.
size_t weightedPairs(const InfluenceStream& s, size_t v, std::pair<uint16_t, float>* out)
{
    const size_t k = size_t(s.perVertex);
    size_t n = 0;
    for (size_t i = 0; i < k; ++i)
        if (s.weights[v * k + i] > 0.0f)
            out[n++] = {s.joints[v * k + i], s.weights[v * k + i]};
    std::sort(out, out + n);
    return n;
}

} // namespace

size_t changedInfluenceVertices(const InfluenceStream& reference, const InfluenceStream& formatted)
{
    const size_t ka = size_t(reference.perVertex);
    const size_t n = ka > 0 ? reference.weights.size() / ka : 0;
    assert(formatted.perVertex > 0 && formatted.weights.size() / size_t(formatted.perVertex) == n);
    assert(ka <= 8 && formatted.perVertex <= 8);
    std::pair<uint16_t, float> a[8], b[8];
    size_t changed = 0;
    for (size_t v = 0; v < n; ++v) {
        const size_t na = weightedPairs(reference, v, a);
        const size_t nb = weightedPairs(formatted, v, b);
        changed += (na != nb || !std::equal(a, a + na, b)) ? 1 : 0;
    }
    return changed;
}

VertexStreamShape vertexStreamShape(const Rig& rig, const RigRuntime& runtime)
{
    VertexStreamShape shape;
    for (const Skin& skin : rig.skins)
        shape.jointCount = std::max(shape.jointCount, skin.joints.size());
    size_t vertices = 0, entries = 0;
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        shape.hasTangents = shape.hasTangents || !rig.meshes[m].tangents.empty();
        vertices += rig.meshes[m].vertexCount();
        if (m < runtime.meshes.size())
            entries += runtime.meshes[m].gradients.gradients.size();
    }
    shape.gradientEntriesPerVertex = vertices > 0 ? double(entries) / double(vertices) : 0.0;
    return shape;
}

FormatComparison compareFormat(const Rig& rig, const RigRuntime& reference, const Evaluation& referenceEval,
                               const EngineProfile& profile, const RigRuntime& runtime, const Evaluation& eval)
{
    assert(referenceEval.methods == eval.methods);
    FormatComparison out;
    out.profile = std::string(profile.id);
    out.format = profile.format;
    for (size_t m = 0; m < rig.meshes.size(); ++m)
        out.verticesChanged += changedInfluenceVertices(reference.meshes[m].stream, runtime.meshes[m].stream);
    const VertexStreamShape shape = vertexStreamShape(rig, runtime);
    out.indexBits = indexBits(profile, shape);
    out.linearBytesPerVertex = bytesPerVertex(profile, Method::Linear, shape);
    std::vector<float> distance, angle;
    for (Method method : eval.methods) {
        FormatMethodDifference d;
        d.method = method;
        d.bytesPerVertex = bytesPerVertex(profile, method, shape);
        size_t base = 0;
        for (size_t m = 0; m < rig.meshes.size(); ++m) {
            const MeshEvaluation& a = referenceEval.meshes[m];
            const MeshEvaluation& b = eval.meshes[m];
            const auto& pa = a.surfaceOf(method).positions;
            const auto& pb = b.surfaceOf(method).positions;
            const auto& na = a.methods[size_t(method)].normals;
            const auto& nb = b.methods[size_t(method)].normals;
            distance.resize(pa.size());
            angle.resize(na.size());
            formatDifferences(pa, na, pb, nb, distance, angle);
            for (size_t v = 0; v < distance.size(); ++v)
                if (distance[v] > d.maxPositionError) {
                    d.maxPositionError = distance[v];
                    d.worstPositionVertex = base + v;
                }
            for (float e : angle)
                d.maxNormalErrorDeg = std::max(d.maxNormalErrorDeg, e);
            base += rig.meshes[m].vertexCount();
        }
        out.maxPositionError = std::max(out.maxPositionError, d.maxPositionError);
        out.maxNormalErrorDeg = std::max(out.maxNormalErrorDeg, d.maxNormalErrorDeg);
        out.methods.push_back(d);
    }
    return out;
}

std::vector<FormatComparison> compareFormats(const Rig& rig, const ResolvedPose& pose, std::span<const Method> methods,
                                             const DeformSettings& settings,
                                             std::span<const EngineProfile* const> profiles)
{
    const RigRuntime reference = buildRuntime(rig, kReferenceFormat);
    Evaluation referenceEval;
    evaluate(rig, reference, pose, methods, settings, referenceEval);
    std::vector<FormatComparison> out;
    Evaluation eval;
    for (const EngineProfile* profile : profiles) {
        const RigRuntime runtime = buildRuntime(rig, profile->format);
        evaluate(rig, runtime, pose, methods, settings, eval);
        out.push_back(compareFormat(rig, reference, referenceEval, *profile, runtime, eval));
    }
    return out;
}

} // namespace rig
