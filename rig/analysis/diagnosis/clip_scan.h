// The worst frame of a clip: every frame of the clip (its own key times, or a fixed step) evaluated, and per method
// the frame where its normal error is largest, and the frame where linear blending keeps the least of a vertex's
// neighbourhood (the candy-wrapper scale, blend_scale.h) — with where. The pose's edits and morph weights stay
// on top of the clip, as the app layers them.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

#include "rig/deform/deform.h"
#include "rig/model/pose.h"
#include "rig/model/result.h"

namespace rig {

struct Rig;
struct RigRuntime;

struct ClipScanMethod {
    Method method = Method::Linear;
    float worstErrorDeg = -1.0f; ///< the largest defined normal error over every frame (-1: none defined)
    float time = 0.0f;           ///< of the first frame that reaches it
    size_t mesh = 0, vertex = 0;
};

struct ClipScan {
    int clip = -1;
    float step = 0.0f;              ///< 0: the clip's own key times
    std::vector<float> times;       ///< the frames scanned, in order (fewer than planned when cancelled)
    std::vector<ClipScanMethod> methods;
    float minScale = 1.0f;          ///< the candy wrapper's worst over every frame (1: nothing blends)
    float minScaleTime = 0.0f;
    int minScaleMesh = -1;          ///< -1: no vertex with a defined scale
    size_t minScaleVertex = 0;
    int minScaleNodeA = -1, minScaleNodeB = -1; ///< that vertex's two largest-weight joints (-1: one joint)
    /// The clip's animated bounds (deform/bounds.h), of the linear-blend positions: the union of every frame's exact
    /// box, and the union of every frame's per-bone box; and how loose they are — the mean over frames of the exact
    /// union's volume (diagonal) over that frame's exact box (one box for the whole clip), and of that frame's per-bone
    /// box over its exact box (0: no frame with a solid box).
    Bounds exactUnion, perBoneUnion;
    double meanUnionVolumeRatio = 0.0, meanPerBoneVolumeRatio = 0.0;
    double meanUnionDiagonalRatio = 0.0, meanPerBoneDiagonalRatio = 0.0;
    bool cancelled = false;
};

/// The frames a scan visits: the clip's key times (step 0), else 0, step, 2·step … and the clip's end.
std::vector<float> scanTimes(const Clip& clip, float step);

/// Scans clip `clip` of `rig` with `base` (its clip and time replaced per frame) over `methods`. Fails for a clip
/// index out of range, a negative or non-finite step, or more than 100,000 frames. `progress` (optional) is called
/// after each frame with the count done; `cancel` stops it between frames (the result says so). One Evaluation and
/// one scale buffer are reused across frames.
Result<ClipScan> scanClip(const Rig& rig, const RigRuntime& runtime, const ResolvedPose& base, int clip,
                          std::span<const Method> methods, float step = 0.0f, const DeformSettings& settings = {},
                          const std::atomic<bool>* cancel = nullptr, const std::function<void(size_t)>& progress = {});

} // namespace rig
