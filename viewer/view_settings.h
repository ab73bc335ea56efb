// What the viewport shows. Plain data (no Qt): the document owns one, the viewport receives copies.
#pragma once

#include "rig/deform/skinning.h"

namespace viewer {

enum class ViewMode { Single, Quad };

/// What the single view colours the mesh with. The quad view always shows: method (lit), reference (lit),
/// normal-error heatmap, tangent-error heatmap.
enum class Shading { Lit, NormalError, TangentError, Reference };

enum class Material { Plain, Bumps, Checker };

enum Overlay : unsigned {
    OverlayNone = 0,
    OverlayNormals = 1,          ///< gold lines: the method's normals
    OverlayTangents = 2,         ///< the method's tangents (cyan)
    OverlayReferenceNormals = 4, ///< the rebuilt reference normals, a second set (magenta)
    OverlaySkeleton = 8,
    OverlayBounds = 16,
};

struct ViewSettings {
    rig::Method method = rig::Method::Linear;
    ViewMode view = ViewMode::Single;
    Shading shading = Shading::Lit;
    Material material = Material::Plain;
    unsigned overlays = OverlayNone;
    float lineLength = 0.04f;    ///< overlay line length, as a fraction of the bounding-box diagonal
    float heatmapMaxDeg = 45.0f; ///< red at and above this error
    bool morphNormals = true;
    int influences = 4;

    bool operator==(const ViewSettings&) const = default;
};

} // namespace viewer
