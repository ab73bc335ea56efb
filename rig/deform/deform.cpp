#include "rig/deform/deform.h"

#include <algorithm>
#include <cassert>
#include <optional>

#include "rig/deform/morph.h"
#include "rig/deform/parallel.h"
#include "rig/analysis/reference.h"

namespace rig {

namespace {

constexpr size_t kGrain = 16384;

template <typename T>
void resize(std::vector<T>& v, size_t n)
{
    if (v.size() != n)
        v.resize(n);
}

void rebuildSurface(const Mesh& mesh, const MeshRuntime& rt, Surface& s, RebuildScratch& scratch)
{
    resize(s.referenceNormals, mesh.vertexCount());
    resize(s.referenceTangents, mesh.hasTangents() ? mesh.vertexCount() : 0);
    rebuildFrames(s.positions, mesh.uvs, mesh.indices, rt.smoothingGroups, s.referenceNormals, s.referenceTangents,
                  scratch);
}

} // namespace

bool Evaluation::has(Method m) const
{
    return std::find(methods.begin(), methods.end(), m) != methods.end();
}

RigRuntime buildRuntime(const Rig& rig, int influencesPerVertex)
{
    RigRuntime rt;
    rt.influencesPerVertex = influencesPerVertex;
    rt.meshes.resize(rig.meshes.size());
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        MeshRuntime& mr = rt.meshes[m];
        const size_t joints = mesh.isSkinned() ? rig.skins[size_t(mesh.skin)].joints.size() : 0;
        mr.stream = buildInfluenceStream(mesh, joints, influencesPerVertex);
        mr.gradients = buildWeightGradients(mesh.positions, mesh.indices, mr.stream.joints, mr.stream.weights,
                                            influencesPerVertex);
        mr.smoothingGroups = buildSmoothingGroups(mesh.positions, mesh.normals);
    }
    return rt;
}

void evaluate(const Rig& rig, const RigRuntime& runtime, const ResolvedPose& pose, std::span<const Method> methods,
              const DeformSettings& settings, Evaluation& out)
{
    assert(runtime.meshes.size() == rig.meshes.size());
    out.methods.assign(methods.begin(), methods.end());
    evaluateWorld(rig, pose, out.world);

    std::vector<std::vector<glm::mat4>>& skinPalettes = out.skinPalettes;
    evaluatePalettes(rig, out.world, skinPalettes);

    out.meshes.resize(rig.meshes.size());
    out.stats = {};
    // settings.threads also caps the parallel loops inside (the reference rebuild); 0 keeps the default (all cores).
    std::optional<ScopedThreadLimit> limit;
    if (settings.threads != 0)
        limit.emplace(settings.threads);
    out.mirroredJoints.clear();
    out.singularJoints.clear();
    const bool wantDq = out.has(Method::DualQuaternion);
    RebuildScratch& scratch = out.rebuildScratch;

    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        const MeshRuntime& rt = runtime.meshes[m];
        MeshEvaluation& me = out.meshes[m];
        const size_t n = mesh.vertexCount();
        const bool tangents = mesh.hasTangents();

        // Palette: the skin's matrices plus the identity for unbound vertices, or the node's world matrix.
        std::vector<glm::mat4>& matrices = me.paletteMatrices;
        matrices.clear();
        if (mesh.isSkinned()) {
            matrices.assign(skinPalettes[size_t(mesh.skin)].begin(), skinPalettes[size_t(mesh.skin)].end());
            matrices.push_back(glm::mat4(1.0f));
        } else {
            matrices.push_back(mesh.node >= 0 ? out.world[size_t(mesh.node)] : glm::mat4(1.0f));
        }
        assert(matrices.size() == rt.stream.paletteSize);
        resize(me.palette, matrices.size());
        buildJointFrames(matrices, me.palette);
        if (mesh.isSkinned()) {
            const Skin& skin = rig.skins[size_t(mesh.skin)];
            for (size_t j = 0; j < skin.joints.size(); ++j) {
                const int node = skin.joints[j];
                std::vector<int>& list = me.palette[j].mirrored ? out.mirroredJoints : out.singularJoints;
                if ((me.palette[j].mirrored || me.palette[j].singular) &&
                    std::find(list.begin(), list.end(), node) == list.end())
                    list.push_back(node);
            }
        }

        // Morph (bind space).
        resize(me.morphedPositions, n);
        resize(me.morphedNormals, n);
        resize(me.morphedTangents, tangents ? n : 0);
        MorphJob morph;
        morph.positions = mesh.positions;
        morph.normals = mesh.normals;
        morph.tangents = mesh.tangents;
        morph.targets = mesh.morphTargets;
        morph.weights = pose.morphWeights[m];
        morph.withNormalDeltas = settings.morphNormals;
        morph.outPositions = me.morphedPositions;
        morph.outNormals = me.morphedNormals;
        morph.outTangents = me.morphedTangents;
        assert(morph.validate());
        morph.run();

        auto skin = [&](Method method, Surface& surface, MethodFrames& frames) {
            resize(surface.positions, n);
            resize(frames.normals, n);
            resize(frames.tangents, tangents ? n : 0);
            resize(frames.flags, n);
            SkinJob job;
            job.method = method;
            job.palette = me.palette;
            job.influencesPerVertex = rt.stream.perVertex;
            job.joints = rt.stream.joints;
            job.weights = rt.stream.weights;
            job.gradients = rt.gradients.view();
            job.positions = me.morphedPositions;
            job.normals = me.morphedNormals;
            job.tangents = me.morphedTangents;
            job.outPositions = surface.positions;
            job.outNormals = frames.normals;
            job.outTangents = frames.tangents;
            job.outFlags = frames.flags;
            assert(job.validate());
            parallelFor(n, kGrain, settings.threads, [&job](size_t b, size_t e) {
                SkinJob part = job;
                part.first = b;
                part.last = e;
                part.run();
            });
        };

        // Linear-blend positions (and linear frames) always: they carry the reference of every method but DQ.
        MethodFrames& linearFrames = me.methods[size_t(Method::Linear)];
        skin(Method::Linear, me.linear, linearFrames);
        rebuildSurface(mesh, rt, me.linear, scratch);
        if (wantDq) {
            skin(Method::DualQuaternion, me.dualQuaternion, me.methods[size_t(Method::DualQuaternion)]);
            rebuildSurface(mesh, rt, me.dualQuaternion, scratch);
        }

        for (Method method : methods) {
            MethodFrames& frames = me.methods[size_t(method)];
            const Surface& surface = me.surfaceOf(method);
            if (method == Method::Rebuilt) {
                frames.normals = surface.referenceNormals;
                frames.tangents = surface.referenceTangents;
                frames.flags.assign(n, SkinFlagNone);
            } else if (method != Method::Linear && method != Method::DualQuaternion) {
                // Positions equal the linear ones: skin into a scratch surface, keep only the frames.
                skin(method, me.scratch, frames);
            }
            resize(frames.normalErrorDeg, n);
            resize(frames.tangentErrorDeg, n);
            angularErrors(frames.normals, surface.referenceNormals, frames.normalErrorDeg);
            if (tangents)
                angularErrors(frames.tangents, surface.referenceTangents, frames.tangentErrorDeg);
            else
                std::fill(frames.tangentErrorDeg.begin(), frames.tangentErrorDeg.end(), kUndefinedError);
        }
    }

    computeStatistics(out);
}

void computeStatistics(Evaluation& out)
{
    // Per method, over all meshes.
    out.stats = {};
    std::vector<float>& all = out.statsScratch;
    for (Method method : out.methods) {
        MethodStats& st = out.stats[size_t(method)];
        for (int which = 0; which < 2; ++which) {
            all.clear();
            for (const MeshEvaluation& me : out.meshes) {
                const MethodFrames& f = me.methods[size_t(method)];
                const std::vector<float>& e = which == 0 ? f.normalErrorDeg : f.tangentErrorDeg;
                all.insert(all.end(), e.begin(), e.end());
            }
            (which == 0 ? st.normal : st.tangent) = errorStats(all, out.statsSorted);
        }
        for (const MeshEvaluation& me : out.meshes)
            for (uint8_t f : me.methods[size_t(method)].flags) {
                st.dqFallbackVertices += (f & SkinFlagDqFallback) ? 1 : 0;
                st.singularVertices += (f & SkinFlagSingular) ? 1 : 0;
            }
    }
}

} // namespace rig
