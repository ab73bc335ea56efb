#include "rig/deform/deform.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstring>
#include <optional>

#include "rig/analysis/carried.h"
#include "rig/analysis/diagnosis/dq_displacement.h"
#include "rig/deform/centers_of_rotation.h"
#include "rig/deform/morph.h"
#include "rig/model/math.h"
#include "rig/platform/parallel.h"
#include "rig/analysis/reference/reference.h"
#include "rig/platform/huge_pages.h"

namespace rig {

namespace {

constexpr size_t kGrain = 16384;
/// Step 4 of evaluate goes through a chunk kCacheRun vertices at a time, every method over each run: a run's four
/// reference arrays (~230 KB) and one method's frames and errors (~180 KB) stay in a core's L2 from one method to the
/// next. A whole chunk of kGrain (~1.6 MB of them) did not (L2: 1.25 MB on Ice Lake Xeons, 1 MB on Zen 4), and every
/// method read the references from L3 again: 100k vertices on an Ice Lake Xeon, one thread, 25.9 -> 23.5 ms (runs of
/// 2048 and 8192 as fast as 4096).
constexpr size_t kCacheRun = 4096;

/// Sizes an output array; a new allocation is backed by huge pages where it is large (huge_pages.h: every pass
/// over it is a stream of its own).
template <typename T>
void resize(std::vector<T>& v, size_t n)
{
    if (v.size() != n)
        resizeOnHugePages(v, n);
}

/// The reference of one surface (the linear or the dual-quaternion positions of every mesh).
template <typename SurfaceOf>
void rebuildReference(const Rig& rig, const RigRuntime& runtime, ReferenceScratch& scratch, SurfaceOf surfaceOf)
{
    std::vector<ReferenceMeshIO> io(rig.meshes.size()); // one per mesh and evaluation
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        Surface& s = surfaceOf(m);
        resize(s.referenceNormals, mesh.vertexCount());
        resize(s.referenceTangents, mesh.hasTangents() ? mesh.vertexCount() : 0);
        io[m] = {s.positions, mesh.uvs, mesh.indices, s.referenceNormals, s.referenceTangents,
                 runtime.meshes[m].uvDifferences};
    }
    rig::rebuildReference(runtime.reference, io, scratch);
}

/// How many of `flags` have bit `flag` set, eight at a time: a word's bytes shifted and masked to 0 or 1, and summed
/// into the top byte by one multiply (not std::popcount: the baseline x86-64 build has no popcnt instruction and
/// calls libgcc for it).
size_t countFlag(std::span<const uint8_t> flags, uint8_t flag)
{
    assert(std::has_single_bit(unsigned(flag)));
    const int shift = std::countr_zero(unsigned(flag));
    constexpr uint64_t kBytes = 0x0101010101010101ull;
    size_t count = 0, i = 0;
    for (; i + 8 <= flags.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, flags.data() + i, 8);
        count += size_t((((w >> shift) & kBytes) * kBytes) >> 56);
    }
    for (; i < flags.size(); ++i)
        count += (flags[i] & flag) ? 1 : 0;
    return count;
}

/// MethodStats' per-vertex counts of one method: the flags and the handedness mismatches.
struct VertexCounts {
    size_t dqFallback = 0, singular = 0, mismatches = 0;
    VertexCounts& operator+=(const VertexCounts& o)
    {
        dqFallback += o.dqFallback;
        singular += o.singular;
        mismatches += o.mismatches;
        return *this;
    }
};

/// Those counts over vertices [b, e) of one mesh's frames of a method (as far as it has flags; its tangents against
/// the reference's where both have them).
VertexCounts countVertices(const MethodFrames& f, const Surface& surface, size_t b, size_t e)
{
    VertexCounts c;
    if (const size_t flagged = std::min(f.flags.size(), e); flagged > b) {
        const auto flags = std::span(f.flags).subspan(b, flagged - b);
        c.dqFallback = countFlag(flags, SkinFlagDqFallback);
        c.singular = countFlag(flags, SkinFlagSingular);
    }
    const size_t common = std::min({f.tangents.size(), surface.referenceTangents.size(), e});
    if (common > b)
        c.mismatches = handednessMismatches(std::span(f.tangents).subspan(b, common - b),
                                            std::span(surface.referenceTangents).subspan(b, common - b));
    return c;
}

/// computeStatistics with the per-vertex counts already made (`counted`, by method) or not (null: counted here).
void statistics(Evaluation& out, const std::array<VertexCounts, kMethodCount>* counted);

} // namespace

bool Evaluation::has(Method m) const
{
    return std::find(methods.begin(), methods.end(), m) != methods.end();
}

RigRuntime buildRuntime(const Rig& rig, int influencesPerVertex, const RuntimeBuildControl& control)
{
    return buildRuntime(rig, RuntimeFormat{influencesPerVertex, WeightEncoding::Float}, control);
}

RigRuntime buildRuntime(const Rig& rig, const RuntimeFormat& format, const RuntimeBuildControl& control)
{
    assert(format.validate());
    const int influencesPerVertex = format.influences == 8 ? 8 : 4;
    RigRuntime rt;
    rt.influencesPerVertex = influencesPerVertex;
    rt.format = format;
    rt.meshes.resize(rig.meshes.size());
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        MeshRuntime& mr = rt.meshes[m];
        const size_t joints = mesh.isSkinned() ? rig.skins[size_t(mesh.skin)].joints.size() : 0;
        mr.stream = buildInfluenceStream(mesh, joints, influencesPerVertex);
        if (format.influences != influencesPerVertex || format.weights != WeightEncoding::Float) {
            auto formatted = applyRuntimeFormat(mr.stream, format);
            assert(formatted); // the format validates and asks for no more slots than the stream has
            mr.stream = std::move(formatted.value());
        }
        mr.gradients = buildWeightGradients(mesh.positions, mesh.indices, mr.stream.joints, mr.stream.weights,
                                            influencesPerVertex);
        if (!mesh.uvs.empty())
            referenceUvDifferences(mesh.uvs, mesh.indices, mr.uvDifferences);
        rt.jointBoxes.push_back(buildJointBoxes(mesh, mr.stream));
    }
    rt.reference = buildReferenceTopology(rig);
    rt.bind = rebuildBindReference(rig, rt.reference);
    for (size_t m = 0; m < rig.meshes.size(); ++m)
        rt.meshes[m].carryEdges = buildCarryEdges(rig.meshes[m].positions, rig.meshes[m].indices, rt.bind[m].normals);
    rt.baseline = computeBaseline(rig, rt.bind);
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        MeshRuntime& mr = rt.meshes[m];
        mr.limbRadius.assign(mesh.vertexCount(), 0.0f);
        if (!mesh.isSkinned())
            continue;
        std::vector<glm::vec3> bones;
        std::vector<int> parents;
        skinBones(rig, mesh.skin, bones, parents);
        limbRadii(mesh.positions, mr.stream.joints, influencesPerVertex, bones, parents, mr.limbRadius);
    }
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        MeshRuntime& mr = rt.meshes[m];
        mr.centers.resize(mesh.vertexCount());
        mr.centerDefined.resize(mesh.vertexCount());
        CenterOfRotationJob job;
        job.positions = mesh.positions;
        job.indices = mesh.indices;
        job.influencesPerVertex = influencesPerVertex;
        job.joints = mr.stream.joints;
        job.weights = mr.stream.weights;
        job.outCenters = mr.centers;
        job.outDefined = mr.centerDefined;
        job.cancel = control.cancel;
        job.verticesDone = control.centersDone;
        assert(job.validate());
        if (!job.run())
            break; // cancelled
    }
    adviseHugePages(rig, rt);
    return rt;
}

void adviseHugePages(const Rig& rig, const RigRuntime& rt)
{
    for (const Mesh& mesh : rig.meshes) {
        adviseHugePages(mesh.positions);
        adviseHugePages(mesh.normals);
        adviseHugePages(mesh.tangents);
        adviseHugePages(mesh.uvs);
        adviseHugePages(mesh.indices);
    }
    for (const MeshRuntime& mr : rt.meshes) {
        adviseHugePages(mr.stream.joints);
        adviseHugePages(mr.stream.weights);
        const WeightGradients& g = mr.gradients;
        adviseHugePages(g.offsets);
        adviseHugePages(g.joints);
        adviseHugePages(g.gradients);
        adviseHugePages(g.slotGradients);
        adviseHugePages(g.slotEntries);
        adviseHugePages(g.slotWeights);
        adviseHugePages(mr.uvDifferences);
    }
    const ReferenceTopology& t = rt.reference;
    adviseHugePages(t.group);
    adviseHugePages(t.groupTriangleOffsets);
    adviseHugePages(t.groupTriangles);
    adviseHugePages(t.vertexTriangleOffsets);
    adviseHugePages(t.vertexTriangles);
    adviseHugePages(t.schedule.compactBegin);
    adviseHugePages(t.schedule.compactTriangles);
}

void collectFlaggedJoints(const Rig& rig, size_t mesh, std::span<const JointFrame> palette, Evaluation& out)
{
    const Mesh& me = rig.meshes[mesh];
    if (!me.isSkinned())
        return;
    const Skin& skin = rig.skins[size_t(me.skin)];
    assert(palette.size() >= skin.joints.size());
    for (size_t j = 0; j < skin.joints.size(); ++j) {
        if (!palette[j].mirrored && !palette[j].singular)
            continue;
        const int node = skin.joints[j];
        std::vector<int>& list = palette[j].mirrored ? out.mirroredJoints : out.singularJoints;
        if (std::find(list.begin(), list.end(), node) == list.end())
            list.push_back(node);
    }
}

void evaluate(const Rig& rig, const RigRuntime& runtime, const ResolvedPose& pose, std::span<const Method> methods,
              const DeformSettings& settings, Evaluation& out)
{
    assert(runtime.meshes.size() == rig.meshes.size());
    out.methods.assign(methods.begin(), methods.end());
    evaluateWorld(rig, pose, out.world, &out.atBind);

    std::vector<std::vector<glm::mat4>>& skinPalettes = out.skinPalettes;
    evaluatePalettes(rig, out.world, skinPalettes, &out.atBind);

    out.meshes.resize(rig.meshes.size());
    out.stats = {};
    // settings.threads also caps the parallel loops inside (the reference rebuild); 0 keeps the default (all cores).
    std::optional<ScopedThreadLimit> limit;
    if (settings.threads != 0)
        limit.emplace(settings.threads);
    out.mirroredJoints.clear();
    out.singularJoints.clear();
    // The methods with positions of their own (their surfaces and references are built beside the linear one).
    std::array<Method, 2> ownStorage{};
    size_t ownCount = 0;
    for (Method m : {Method::DualQuaternion, Method::CenterOfRotation})
        if (out.has(m))
            ownStorage[ownCount++] = m;
    const std::span<const Method> ownSurfaces(ownStorage.data(), ownCount);

    // Each mesh's skinning job for one method: its palette (and frames), its morphed bind-space attributes; the
    // outputs sized here, before any parallel loop writes them. Without `surface`: the frames only (the positions
    // equal the linear ones, already there).
    auto makeSkinJob = [&](size_t m, Method method, Surface* surface, MethodFrames& frames) {
        const Mesh& mesh = rig.meshes[m];
        const MeshRuntime& rt = runtime.meshes[m];
        MeshEvaluation& me = out.meshes[m];
        const size_t n = mesh.vertexCount();
        if (surface)
            resize(surface->positions, n);
        resize(frames.normals, n);
        resize(frames.tangents, mesh.hasTangents() ? n : 0);
        resize(frames.flags, n);
        SkinJob job;
        job.method = method;
        job.palette = me.palette;
        job.influencesPerVertex = rt.stream.perVertex;
        job.joints = rt.stream.joints;
        job.weights = rt.stream.weights;
        job.gradients = rt.gradients.view();
        job.centers = rt.centers;
        job.positions = me.morphedPositions;
        job.normals = me.morphedNormals;
        job.tangents = me.morphedTangents;
        if (surface)
            job.outPositions = surface->positions;
        job.outNormals = frames.normals;
        job.outTangents = frames.tangents;
        job.outFlags = frames.flags;
        assert(job.validate());
        return job;
    };
    auto runPart = [](const SkinJob& job, size_t b, size_t e) {
        SkinJob part = job;
        part.first = b;
        part.last = e;
        part.run();
    };
    auto skinJob = [&](size_t m, Method method, Surface* surface, MethodFrames& frames) {
        const SkinJob job = makeSkinJob(m, method, surface, frames);
        parallelFor(job.positions.size(), kGrain, settings.threads, [&](size_t b, size_t e) { runPart(job, b, e); });
    };
    // The methods whose positions equal the linear ones: step 4 skins their frames only.
    auto framesOnly = [](Method m) { return m != Method::Linear && !ownPositions(m) && m != Method::Rebuilt; };

    // 1. Per mesh: palette, morph, and the positions every reference needs (linear; the ownPositions() methods asked).
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        [[maybe_unused]] const MeshRuntime& rt = runtime.meshes[m];
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
        collectFlaggedJoints(rig, m, me.palette, out);

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
        parallelFor(n, kGrain, settings.threads, [&morph](size_t b, size_t e) { morph.run(b, e); });

        // Linear-blend positions (and linear frames) always: they carry the reference of every method but DQ and CoR.
        skinJob(m, Method::Linear, &me.linear, me.methods[size_t(Method::Linear)]);
        for (Method own : ownSurfaces)
            skinJob(m, own, &me.surfaceOf(own), me.methods[size_t(own)]);
    }

    // 2. The references, over all meshes at once (smoothing groups cross mesh boundaries).
    rebuildReference(rig, runtime, out.referenceScratch, [&](size_t m) -> Surface& { return out.meshes[m].linear; });
    for (Method own : ownSurfaces)
        rebuildReference(rig, runtime, out.referenceScratch,
                         [&](size_t m) -> Surface& { return out.meshes[m].surfaceOf(own); });

    // 3. The references carried from the bind pose, once per surface (the rotations do not depend on the method).
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        MeshEvaluation& me = out.meshes[m];
        std::array<Surface*, 3> surfaces = {&me.linear, nullptr, nullptr};
        for (size_t i = 0; i < ownSurfaces.size(); ++i)
            surfaces[i + 1] = &me.surfaceOf(ownSurfaces[i]);
        for (Surface* surface : surfaces) {
            if (!surface)
                continue;
            const size_t n = mesh.vertexCount();
            const bool carryTangents = mesh.hasTangents() && runtime.bind[m].tangents.size() == n &&
                                       surface->referenceTangents.size() == n;
            resize(surface->carriedNormals, n);
            resize(surface->carriedTangents, carryTangents ? n : 0);
            CarryJob carry;
            carry.authoredNormals = mesh.normals;
            carry.authoredTangents = mesh.tangents;
            carry.bindNormals = runtime.bind[m].normals;
            carry.bindTangents = runtime.bind[m].tangents;
            carry.posedNormals = surface->referenceNormals;
            carry.posedTangents = surface->referenceTangents;
            carry.edgePartners = runtime.meshes[m].carryEdges.partner;
            carry.bindEdgeTangents = runtime.meshes[m].carryEdges.bindTangents;
            carry.posedPositions = surface->positions;
            carry.outNormals = surface->carriedNormals;
            carry.outTangents = surface->carriedTangents;
            parallelFor(n, kGrain, settings.threads, [&carry](size_t b, size_t e) { carry.run(b, e); });
        }
    }

    // VertexCounts' fields by method, over all meshes, added to by every run of step 4.
    std::array<std::array<std::atomic<size_t>, 3>, kMethodCount> sums{};
    // 4. Per mesh and method: the frames of the methods that share the linear positions, and every error. One
    //    parallel loop a mesh, each chunk doing every method in turn, kCacheRun vertices at a time: one hand-out to
    //    the threads instead of one per method, and a run's references stay in the cache across the methods.
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        MeshEvaluation& me = out.meshes[m];
        const size_t n = mesh.vertexCount();
        const bool tangents = mesh.hasTangents();
        std::array<SkinJob, kMethodCount> jobs; // by method, for framesOnly()
        for (Method method : methods) {
            MethodFrames& frames = me.methods[size_t(method)];
            if (method == Method::Rebuilt) {
                resize(frames.normals, n);
                resize(frames.tangents, me.surfaceOf(method).referenceTangents.size());
                resize(frames.flags, n);
            } else if (framesOnly(method)) {
                jobs[size_t(method)] = makeSkinJob(m, method, nullptr, frames);
            }
            resize(frames.normalErrorDeg, n);
            resize(frames.tangentErrorDeg, n);
            resize(frames.skinningNormalErrorDeg, n);
            resize(frames.skinningTangentErrorDeg, n);
        }
        // One run [b, e) of the mesh's vertices: every method's frames (those that share the linear positions), its
        // errors against both references, and the statistics' per-vertex counts while the run is in the cache
        // (computeStatistics would read every method's flags and tangents from memory again).
        auto overRun = [&](size_t b, size_t e) {
            auto part = [b, e](auto& v) { return std::span(v).subspan(b, e - b); };
            for (Method method : methods) {
                MethodFrames& frames = me.methods[size_t(method)];
                const Surface& surface = me.surfaceOf(method);
                if (method == Method::Rebuilt) {
                    std::ranges::copy(part(surface.referenceNormals), part(frames.normals).begin());
                    if (!frames.tangents.empty())
                        std::ranges::copy(part(surface.referenceTangents), part(frames.tangents).begin());
                    std::ranges::fill(part(frames.flags), SkinFlagNone);
                } else if (framesOnly(method)) {
                    runPart(jobs[size_t(method)], b, e);
                }
                // Against the reference rebuilt now and the one carried from the bind pose (step 3), in one pass.
                angularErrors(part(frames.normals), part(surface.referenceNormals), part(frames.normalErrorDeg),
                              part(surface.carriedNormals), part(frames.skinningNormalErrorDeg));
                if (tangents && surface.carriedTangents.size() == n) {
                    angularErrors(part(frames.tangents), part(surface.referenceTangents), part(frames.tangentErrorDeg),
                                  part(surface.carriedTangents), part(frames.skinningTangentErrorDeg));
                } else {
                    if (tangents)
                        angularErrors(part(frames.tangents), part(surface.referenceTangents), part(frames.tangentErrorDeg));
                    else
                        std::ranges::fill(part(frames.tangentErrorDeg), kUndefinedError);
                    std::ranges::fill(part(frames.skinningTangentErrorDeg), kUndefinedError);
                }
                const VertexCounts c = countVertices(frames, surface, b, e);
                auto& sum = sums[size_t(method)];
                sum[0].fetch_add(c.dqFallback, std::memory_order_relaxed);
                sum[1].fetch_add(c.singular, std::memory_order_relaxed);
                sum[2].fetch_add(c.mismatches, std::memory_order_relaxed);
            }
        };
        parallelFor(n, kGrain, settings.threads, [&](size_t chunkBegin, size_t chunkEnd) {
            for (size_t b = chunkBegin; b < chunkEnd; b += kCacheRun)
                overRun(b, std::min(chunkEnd, b + kCacheRun));
        });
    }

    std::array<VertexCounts, kMethodCount> counted;
    for (size_t i = 0; i < kMethodCount; ++i)
        counted[i] = {sums[i][0].load(std::memory_order_relaxed), sums[i][1].load(std::memory_order_relaxed),
                      sums[i][2].load(std::memory_order_relaxed)};
    statistics(out, &counted);
}

void computeStatistics(Evaluation& out)
{
    statistics(out, nullptr);
}

namespace {

void statistics(Evaluation& out, const std::array<VertexCounts, kMethodCount>* counted)
{
    // Per method and error field, over all meshes; the (method, field) pairs in parallel, each task its own scratch
    // (by method alone, seven heavy tasks on two threads left one thread idle a seventh of the time).
    using Field = std::vector<float> MethodFrames::*;
    static constexpr std::pair<Field, ErrorStats MethodStats::*> kFields[] = {
        {&MethodFrames::normalErrorDeg, &MethodStats::normal},
        {&MethodFrames::tangentErrorDeg, &MethodStats::tangent},
        {&MethodFrames::skinningNormalErrorDeg, &MethodStats::skinningNormal},
        {&MethodFrames::skinningTangentErrorDeg, &MethodStats::skinningTangent}};
    constexpr size_t kFieldCount = std::size(kFields);
    out.stats = {};
    const std::vector<Method>& methods = out.methods;
    parallelFor(methods.size() * kFieldCount, 1, 0, [&out, &methods, counted](size_t first, size_t last) {
        thread_local std::vector<float> all, scratch;
        for (size_t task = first; task < last; ++task) {
            const Method method = methods[task / kFieldCount];
            MethodStats& st = out.stats[size_t(method)];
            const auto& [field, stat] = kFields[task % kFieldCount];
            if (out.meshes.size() == 1) { // one mesh: its array as it is
                st.*stat = errorStats(out.meshes[0].methods[size_t(method)].*field, scratch);
            } else {
                all.clear();
                for (const MeshEvaluation& me : out.meshes) {
                    const std::vector<float>& e = me.methods[size_t(method)].*field;
                    all.insert(all.end(), e.begin(), e.end());
                }
                st.*stat = errorStats(all, scratch);
            }
            if (task % kFieldCount != 0)
                continue;
            // The method's vertex counts, once (its first field's task).
            VertexCounts c;
            if (counted) {
                c = (*counted)[size_t(method)];
            } else {
                for (const MeshEvaluation& me : out.meshes) {
                    const MethodFrames& f = me.methods[size_t(method)];
                    c += countVertices(f, me.surfaceOf(method), 0, std::max(f.flags.size(), f.tangents.size()));
                }
            }
            st.dqFallbackVertices = c.dqFallback;
            st.singularVertices = c.singular;
            st.handednessMismatches = c.mismatches;
        }
    });
}

} // namespace

Bounds surfaceBounds(const Evaluation& eval, Method m)
{
    Bounds b;
    for (const MeshEvaluation& me : eval.meshes)
        b.add(pointBounds(me.surfaceOf(m).positions));
    return b;
}

Bounds perBoneBounds(const Rig& rig, const RigRuntime& runtime, const Evaluation& eval)
{
    return eval.skinPalettes.size() == rig.skins.size()
               ? perBoneBounds(rig, runtime.jointBoxes, eval.world, eval.skinPalettes)
               : perBoneBounds(rig, runtime.jointBoxes, eval.world);
}

} // namespace rig
