#include "rig/analysis/diagnosis/clip_scan.h"

#include <algorithm>
#include <cmath>

#include "rig/analysis/diagnosis/blend_scale.h"
#include "rig/platform/parallel.h"

namespace rig {

std::vector<float> scanTimes(const Clip& clip, float step)
{
    if (!(step > 0.0f))
        return clipKeyTimes(clip);
    std::vector<float> times;
    const double end = std::max(0.0, double(clip.duration));
    for (size_t i = 0;; ++i) {
        const double t = double(step) * double(i);
        if (t >= end - 1e-6 * std::max(1.0, end))
            break;
        times.push_back(float(t));
    }
    times.push_back(float(end));
    return times;
}

Result<ClipScan> scanClip(const Rig& rig, const RigRuntime& runtime, const ResolvedPose& base, int clip,
                          std::span<const Method> methods, float step, const DeformSettings& settings,
                          const std::atomic<bool>* cancel, const std::function<void(size_t)>& progress)
{
    if (clip < 0 || size_t(clip) >= rig.clips.size())
        return fail("clip scan: clip " + std::to_string(clip) + " is not in the rig (it has " +
                    std::to_string(rig.clips.size()) + ")");
    if (!(step >= 0.0f) || !std::isfinite(step))
        return fail("clip scan: the step must be a finite number of seconds, 0 or more");
    if (runtime.meshes.size() != rig.meshes.size())
        return fail("clip scan: the runtime data is of another rig");
    const std::vector<float> times = scanTimes(rig.clips[size_t(clip)], step);
    if (times.size() > 100000)
        return fail("clip scan: " + std::to_string(times.size()) + " frames (at most 100,000: choose a larger step)");

    ClipScan out;
    out.clip = clip;
    out.step = step;
    for (Method m : methods)
        out.methods.push_back(ClipScanMethod{m});
    ResolvedPose pose = base;
    pose.clip = clip;
    Evaluation eval;
    std::vector<std::vector<float>> scale(rig.meshes.size()), volume(rig.meshes.size());
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        scale[m].assign(rig.meshes[m].vertexCount(), kUndefinedScale);
        volume[m].assign(rig.meshes[m].vertexCount(), 0.0f);
    }
    // Per frame: the exact and per-bone boxes, kept for the looseness of the unions once every frame is in.
    std::vector<Bounds> frameExact, framePerBone;
    frameExact.reserve(times.size());
    framePerBone.reserve(times.size());
    for (float t : times) {
        if (cancel && cancel->load()) {
            out.cancelled = true;
            break;
        }
        pose.time = t;
        evaluate(rig, runtime, pose, methods, settings, eval);
        // The worst normal error of each method, and where (the first vertex that reaches it).
        for (ClipScanMethod& sm : out.methods) {
            if (!eval.has(sm.method))
                continue;
            for (size_t mi = 0; mi < eval.meshes.size(); ++mi) {
                const std::vector<float>& e = eval.meshes[mi].methods[size_t(sm.method)].normalErrorDeg;
                for (size_t v = 0; v < e.size(); ++v)
                    if (e[v] >= 0.0f && e[v] > sm.worstErrorDeg) {
                        sm.worstErrorDeg = e[v];
                        sm.time = t;
                        sm.mesh = mi;
                        sm.vertex = v;
                    }
            }
        }
        // Linear blending's scale loss.
        for (size_t mi = 0; mi < rig.meshes.size(); ++mi) {
            BlendScaleJob job;
            job.perVertex = runtime.meshes[mi].stream.perVertex;
            job.joints = runtime.meshes[mi].stream.joints;
            job.weights = runtime.meshes[mi].stream.weights;
            job.palette = eval.meshes[mi].palette;
            job.outScale = scale[mi];
            job.outVolume = volume[mi];
            if (!job.validate())
                continue;
            parallelFor(scale[mi].size(), 4096, settings.threads, [&job](size_t b, size_t e) { job.run(b, e); });
            for (size_t v = 0; v < scale[mi].size(); ++v) {
                const float s = scale[mi][v];
                if (s >= 0.0f && (out.minScaleMesh < 0 || s < out.minScale)) {
                    out.minScale = s;
                    out.minScaleTime = t;
                    out.minScaleMesh = int(mi);
                    out.minScaleVertex = v;
                }
            }
        }
        frameExact.push_back(surfaceBounds(eval, Method::Linear));
        framePerBone.push_back(perBoneBounds(rig, runtime, eval));
        out.exactUnion.add(frameExact.back());
        out.perBoneUnion.add(framePerBone.back());
        out.times.push_back(t);
        if (progress)
            progress(out.times.size());
    }
    size_t solid = 0, extended = 0;
    for (size_t f = 0; f < frameExact.size(); ++f) {
        if (frameExact[f].volume() > 0.0) {
            ++solid;
            out.meanUnionVolumeRatio += volumeRatio(out.exactUnion, frameExact[f]);
            out.meanPerBoneVolumeRatio += volumeRatio(framePerBone[f], frameExact[f]);
        }
        if (frameExact[f].diagonal() > 0.0) {
            ++extended;
            out.meanUnionDiagonalRatio += diagonalRatio(out.exactUnion, frameExact[f]);
            out.meanPerBoneDiagonalRatio += diagonalRatio(framePerBone[f], frameExact[f]);
        }
    }
    if (solid)
        out.meanUnionVolumeRatio /= double(solid), out.meanPerBoneVolumeRatio /= double(solid);
    if (extended)
        out.meanUnionDiagonalRatio /= double(extended), out.meanPerBoneDiagonalRatio /= double(extended);
    if (out.minScaleMesh < 0) {
        out.minScale = 1.0f;
    } else {
        // The worst vertex's two largest weights, as measureCandyWrapper names a band.
        const InfluenceStream& stream = runtime.meshes[size_t(out.minScaleMesh)].stream;
        const Mesh& mesh = rig.meshes[size_t(out.minScaleMesh)];
        const size_t k = size_t(stream.perVertex), v = out.minScaleVertex;
        size_t first = k, second = k;
        twoLargestWeights(stream, v, first, second);
        if (mesh.isSkinned() && second != k) {
            const Skin& skin = rig.skins[size_t(mesh.skin)];
            auto nodeOf = [&](size_t slot) {
                const uint16_t j = stream.joints[v * k + slot];
                return j < skin.joints.size() ? skin.joints[j] : -1;
            };
            out.minScaleNodeA = nodeOf(first);
            out.minScaleNodeB = nodeOf(second);
            // The joint nearer the root first, the one that turns second (ties: the lower index first).
            auto depth = [&](int n) {
                int d = 0;
                for (; n >= 0 && d <= int(rig.skeleton.nodes.size()); ++d)
                    n = rig.skeleton.nodes[size_t(n)].parent;
                return d;
            };
            const int a = out.minScaleNodeA, b = out.minScaleNodeB;
            if (a >= 0 && b >= 0 && (depth(a) > depth(b) || (depth(a) == depth(b) && a > b)))
                std::swap(out.minScaleNodeA, out.minScaleNodeB);
        }
    }
    return out;
}

} // namespace rig
