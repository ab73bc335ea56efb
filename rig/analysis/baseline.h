// The authoring baseline: how far a file's authored normals and tangents already are from the reference rebuilt at the
// bind pose, before anything moves (weighted or custom normals, hard-surface parts, other smoothing). Reported apart
// from skinning error.
#pragma once

#include <span>

#include "rig/analysis/metrics.h"
#include "rig/analysis/reference/reference.h"
#include "rig/model/model.h"

namespace rig {

struct Baseline {
    ErrorStats normal;  ///< authored normals against the bind reference, all meshes
    ErrorStats tangent; ///< authored (or generated) tangents against the bind reference; undefined without tangents
};

/// `bind`: one BindReference per mesh (rebuildBindReference).
Baseline computeBaseline(const Rig& rig, std::span<const BindReference> bind);

} // namespace rig
