// What the viewport shows. Plain data (no Qt): the document owns one, the viewport receives copies.
#pragma once

#include <string>

#include "rig/deform/runtime_format.h"
#include "rig/deform/skinning.h"

namespace viewer {

enum class ViewMode { Single, Quad };

/// What the single view colours the mesh with. The quad view always shows: method (lit), reference (lit),
/// normal-error heatmap, tangent-error heatmap. Handedness: red where the method's tangent handedness (w) disagrees
/// with the reference's, green where it agrees. The weight views read the raw, authored weights: JointWeight the
/// selected joint's (continuous ramp), JointWeightBands the same in bands at 0, 0.25, 0.5, 0.75, 1, InfluenceCount the
/// usable influences per vertex, WeightSum |Σw − 1|. BlendScale: the candy-wrapper scale of linear blending in this
/// pose (rig/analysis/diagnosis/blend_scale.h), green at 1, red at 0.7 and below, whatever the method shown.
/// DqDisplacement: how far dual quaternions move each vertex from linear blending's position, over its limb radius
/// (rig/analysis/diagnosis/dq_displacement.h), green at 0, red at half the radius and beyond. FormatPosition /
/// FormatNormal: what the runtime format does to the shown method (rig/analysis/format_difference.h): its position's
/// distance from the same method under float weights at 8 influences (red at 1 % of the rig's diagonal), and the angle
/// between their normals (red at 5°).
enum class Shading { Lit, NormalError, TangentError, Reference, Handedness, JointWeight, JointWeightBands, InfluenceCount, WeightSum,
                     BlendScale, DqDisplacement, FormatPosition, FormatNormal, WeightChange };
/// The shadings that need the float reference's skin pass (GpuDeformer's comparison).
constexpr bool showsFormatDifference(Shading s) { return s == Shading::FormatPosition || s == Shading::FormatNormal; }
/// Where the format heatmaps turn red: a fraction of the rig's bounding-box diagonal, and degrees.
inline constexpr float kFormatPositionRedFraction = 0.01f;
inline constexpr float kFormatNormalRedDeg = 5.0f;
/// Where the rig comparison's weight-change heatmap (Shading::WeightChange, File ▸ Compare With…) turns red: half a
/// vertex's weight moved to other joints.
inline constexpr float kWeightChangeRed = 0.5f;

/// Which error the heatmaps show: against the reference rebuilt now (total), or against the reference carried from the
/// bind pose (skinning: what authoring already differs by is left out; rig/analysis/carried.h).
enum class ErrorMeasure { Total, Skinning };

enum class Material { Plain, Bumps, Checker };

enum Overlay : unsigned {
    OverlayNone = 0,
    OverlayNormals = 1,          ///< gold lines: the method's normals
    OverlayTangents = 2,         ///< the method's tangents (cyan)
    OverlayReferenceNormals = 4, ///< the rebuilt reference normals, a second set (magenta)
    OverlaySkeleton = 8,
    OverlayBounds = 16,
    OverlayGrid = 32,      ///< the ground grid at the rig's lowest point (viewer/view_aids.h)
    OverlayWireframe = 64, ///< every triangle edge, over any shading
    OverlayHardBoundaries = 128, ///< the edges across which a joint's weight jumps (rig::WeightBands), red
};

struct ViewSettings {
    rig::Method method = rig::Method::Linear;
    ViewMode view = ViewMode::Single;
    Shading shading = Shading::Lit;
    Material material = Material::Plain;
    unsigned overlays = OverlayGrid; ///< the grid shows, as in Maya and Blender
    float lineLength = 0.04f;    ///< overlay line length, as a fraction of the bounding-box diagonal
    float heatmapMaxDeg = 45.0f; ///< red at and above this error
    ErrorMeasure errorMeasure = ErrorMeasure::Total;
    bool morphNormals = true;
    /// The runtime's format (rig/deform/engine_profiles.h): what every method skins with; a change rebuilds the
    /// runtime data off the GUI thread.
    rig::RuntimeFormat format{4, rig::WeightEncoding::Float};
    std::string profile = "float32"; ///< the engine profile `format` was chosen as, or "custom"
    bool manipulator = true; ///< the rotate rings on the selected joint

    bool operator==(const ViewSettings&) const = default;
};

} // namespace viewer
