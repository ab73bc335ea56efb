#include "gpu_evaluate.h"

#include <QtGui/private/qrhi_p.h>

#include <algorithm>
#include <cstring>

#include "gpu_deformer.h"

namespace viewer {

namespace {

const glm::vec4* asVec4(const QByteArray& data)
{
    return reinterpret_cast<const glm::vec4*>(data.constData());
}

} // namespace

bool evaluateOnGpu(GpuDeformer& deformer, const rig::ResolvedPose& pose, std::span<const rig::Method> methods,
                   const rig::DeformSettings& settings, rig::Evaluation& out, GpuEvaluationExtras* extras,
                   std::string* error)
{
    auto fail = [error](const std::string& message) {
        if (error)
            *error = message;
        return false;
    };
    if (!deformer.isReady())
        return fail("the GPU deformer holds no rig");
    QRhi* rhi = deformer.rhi();
    const rig::Rig& rig = *deformer.rig();
    const std::vector<GpuMeshRange>& ranges = deformer.meshes();
    const size_t meshCount = rig.meshes.size();
    const size_t N = deformer.vertexCount();

    deformer.setSettings(settings);
    deformer.setPose(pose);

    out.methods.assign(methods.begin(), methods.end());
    out.world = deformer.world();
    out.meshes.resize(meshCount);
    out.stats = {};
    out.mirroredJoints.clear();
    out.singularJoints.clear();
    const std::vector<rig::JointFrame>& palette = deformer.palette();
    for (size_t m = 0; m < meshCount; ++m) {
        rig::MeshEvaluation& me = out.meshes[m];
        const GpuMeshRange& r = ranges[m];
        me.palette.assign(palette.begin() + r.paletteBegin, palette.begin() + r.paletteBegin + r.paletteCount);
        rig::collectFlaggedJoints(rig, m, me.palette, out);
    }

    // Linear first (its surface carries the reference of every method but those with positions of their own), the
    // other methods that share its positions next, dual-quaternion and center-of-rotation last: the reference is
    // rebuilt once per surface.
    std::vector<rig::Method> order{rig::Method::Linear};
    for (rig::Method m : methods)
        if (!rig::ownPositions(m) && std::find(order.begin(), order.end(), m) == order.end())
            order.push_back(m);
    auto wants = [&](rig::Method m) { return std::find(methods.begin(), methods.end(), m) != methods.end(); };
    for (rig::Method m : {rig::Method::DualQuaternion, rig::Method::CenterOfRotation})
        if (wants(m))
            order.push_back(m);
    if (extras) {
        extras->linearBounds.assign(meshCount, MeshBounds{});
        extras->dualQuaternionBounds.assign(wants(rig::Method::DualQuaternion) ? meshCount : 0, MeshBounds{});
        extras->centerOfRotationBounds.assign(wants(rig::Method::CenterOfRotation) ? meshCount : 0, MeshBounds{});
    }

    const bool compare = extras && deformer.hasComparison();
    if (compare)
        deformer.setComparisonEnabled(true);
    bool first = true;
    for (rig::Method method : order) {
        deformer.setMethod(method);
        const bool requested = std::find(methods.begin(), methods.end(), method) != methods.end();
        const bool surface = method == rig::Method::Linear || rig::ownPositions(method);

        QRhiCommandBuffer* cb = nullptr;
        if (rhi->beginOffscreenFrame(&cb) != QRhi::FrameOpSuccess)
            return fail(std::string("beginning a ") + rhi->backendName() + " offscreen frame failed");
        deformer.record(cb);
        QRhiBufferReadbackResult normals, tangents, errors, flags, positions, refNormals, refTangents, bounds, morphed,
            blend, difference;
        QRhiResourceUpdateBatch* rb = rhi->nextResourceUpdateBatch();
        if (N > 0) {
            rb->readBackBuffer(deformer.normalsBuffer(), 0, int(N * 16), &normals);
            rb->readBackBuffer(deformer.tangentsBuffer(), 0, int(N * 16), &tangents);
            rb->readBackBuffer(deformer.errorsBuffer(), 0, int(N * 16), &errors);
            rb->readBackBuffer(deformer.flagsBuffer(), 0, int(N * 4), &flags);
            if (surface) {
                rb->readBackBuffer(deformer.positionsBuffer(), 0, int(N * 16), &positions);
                rb->readBackBuffer(deformer.referenceNormalsBuffer(), 0, int(N * 16), &refNormals);
                rb->readBackBuffer(deformer.referenceTangentsBuffer(), 0, int(N * 16), &refTangents);
            }
            if (first)
                rb->readBackBuffer(deformer.morphedBuffer(), 0, int(3 * N * 16), &morphed);
            if (first && extras)
                rb->readBackBuffer(deformer.blendScaleBuffer(), 0, int(N * 16), &blend);
            if (compare)
                rb->readBackBuffer(deformer.formatDifferenceBuffer(), 0, int(N * 16), &difference);
        }
        if (surface && meshCount > 0)
            rb->readBackBuffer(deformer.boundsBuffer(), 0, int(meshCount * 32), &bounds);
        cb->resourceUpdate(rb);
        if (rhi->endOffscreenFrame() != QRhi::FrameOpSuccess)
            return fail(std::string("a ") + rhi->backendName() + " offscreen frame failed");

        if (N > 0) {
            const bool sizesOk = size_t(normals.data.size()) == N * 16 && size_t(tangents.data.size()) == N * 16 &&
                                 size_t(errors.data.size()) == N * 16 && size_t(flags.data.size()) == N * 4 &&
                                 (!surface || (size_t(positions.data.size()) == N * 16 &&
                                               size_t(refNormals.data.size()) == N * 16 &&
                                               size_t(refTangents.data.size()) == N * 16)) &&
                                 (!first || size_t(morphed.data.size()) == 3 * N * 16) &&
                                 (!first || !extras || size_t(blend.data.size()) == N * 16) &&
                                 (!compare || size_t(difference.data.size()) == N * 16);
            if (!sizesOk)
                return fail(std::string("reading back the ") + rhi->backendName() + " results failed");
        }
        if (surface && meshCount > 0 && size_t(bounds.data.size()) != meshCount * 32)
            return fail(std::string("reading back the ") + rhi->backendName() + " bounds failed");

        const glm::vec4* nrm = asVec4(normals.data);
        const glm::vec4* tan = asVec4(tangents.data);
        const glm::vec4* err = asVec4(errors.data);
        const uint32_t* flg = reinterpret_cast<const uint32_t*>(flags.data.constData());
        for (size_t m = 0; m < meshCount; ++m) {
            const rig::Mesh& mesh = rig.meshes[m];
            const GpuMeshRange& r = ranges[m];
            const size_t n = r.vertexCount, vb = r.vertexBegin;
            rig::MeshEvaluation& me = out.meshes[m];
            rig::MethodFrames& frames = me.methods[size_t(method)];
            frames.normals.resize(n);
            frames.tangents.resize(mesh.hasTangents() ? n : 0);
            frames.flags.resize(n);
            for (size_t v = 0; v < n; ++v) {
                frames.normals[v] = glm::vec3(nrm[vb + v]);
                frames.flags[v] = uint8_t(flg[vb + v]);
            }
            for (size_t v = 0; v < frames.tangents.size(); ++v)
                frames.tangents[v] = tan[vb + v];
            if (requested) {
                frames.normalErrorDeg.resize(n);
                frames.tangentErrorDeg.resize(n);
                frames.skinningNormalErrorDeg.resize(n);
                frames.skinningTangentErrorDeg.resize(n);
                for (size_t v = 0; v < n; ++v) {
                    frames.normalErrorDeg[v] = err[vb + v].x;
                    frames.tangentErrorDeg[v] = err[vb + v].y;
                    frames.skinningNormalErrorDeg[v] = err[vb + v].z;
                    frames.skinningTangentErrorDeg[v] = err[vb + v].w;
                }
            }
            if (surface) {
                rig::Surface& s = me.surfaceOf(method);
                const glm::vec4* pos = asVec4(positions.data);
                const glm::vec4* rn = asVec4(refNormals.data);
                const glm::vec4* rt = asVec4(refTangents.data);
                s.positions.resize(n);
                s.referenceNormals.resize(n);
                s.referenceTangents.resize(mesh.hasTangents() ? n : 0);
                for (size_t v = 0; v < n; ++v) {
                    s.positions[v] = glm::vec3(pos[vb + v]);
                    s.referenceNormals[v] = glm::vec3(rn[vb + v]);
                }
                for (size_t v = 0; v < s.referenceTangents.size(); ++v)
                    s.referenceTangents[v] = rt[vb + v];
                if (extras) {
                    const glm::vec4* b = asVec4(bounds.data);
                    MeshBounds& mb = extras->boundsOf(method)[m];
                    mb.min = glm::vec3(b[2 * m]);
                    mb.max = glm::vec3(b[2 * m + 1]);
                    mb.empty = b[2 * m].w == 0.0f;
                }
            }
            if (first && extras) {
                const glm::vec4* bs = asVec4(blend.data);
                extras->blendScale.resize(meshCount);
                extras->blendVolume.resize(meshCount);
                extras->dqDisplacement.resize(meshCount);
                extras->dqFraction.resize(meshCount);
                extras->blendScale[m].resize(n);
                extras->blendVolume[m].resize(n);
                extras->dqDisplacement[m].resize(n);
                extras->dqFraction[m].resize(n);
                for (size_t v = 0; v < n; ++v) {
                    extras->blendScale[m][v] = bs[vb + v].x;
                    extras->blendVolume[m][v] = bs[vb + v].y;
                    extras->dqDisplacement[m][v] = bs[vb + v].z;
                    extras->dqFraction[m][v] = bs[vb + v].w;
                }
            }
            if (compare) {
                const glm::vec4* d = asVec4(difference.data);
                auto& distance = extras->formatDistance[size_t(method)];
                auto& angle = extras->formatNormalDeg[size_t(method)];
                distance.resize(meshCount);
                angle.resize(meshCount);
                distance[m].resize(n);
                angle[m].resize(n);
                for (size_t v = 0; v < n; ++v) {
                    distance[m][v] = d[vb + v].x;
                    angle[m][v] = d[vb + v].y;
                }
            }
            if (first) {
                const glm::vec4* mo = asVec4(morphed.data);
                me.morphedPositions.resize(n);
                me.morphedNormals.resize(n);
                me.morphedTangents.resize(mesh.hasTangents() ? n : 0);
                for (size_t v = 0; v < n; ++v) {
                    me.morphedPositions[v] = glm::vec3(mo[vb + v]);
                    me.morphedNormals[v] = glm::vec3(mo[N + vb + v]);
                }
                for (size_t v = 0; v < me.morphedTangents.size(); ++v)
                    me.morphedTangents[v] = mo[2 * N + vb + v];
            }
        }
        first = false;
    }
    rig::computeStatistics(out);
    return true;
}

} // namespace viewer
