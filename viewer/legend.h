// The colour-bar legends painted over the viewport's views (Viewport::paintOverlay): the heatmaps' green → yellow → red
// bar with its range, and the weight views' ramps, bands and influence-count swatches; each with the key of the colour
// that means "no value" (undefined frame, NaN weight). A legend stays inside its own view, whatever the view's width:
// in the four-view layout a quadrant can be narrower than the bar, its labels and its key side by side.
#pragma once

#include <QFontMetrics>
#include <QRect>
#include <QString>

#include "viewer/view_settings.h"

class QPainter;

namespace viewer {

/// Where a legend's parts go in `view` (logical pixels): the bar at the bottom left, `kLegendMargin` from the view's
/// edges, kLegendBarWidth wide or as wide as the view allows; its labels on the line under it; the key (a swatch and
/// `keyText`) on the bar's line when the full bar leaves room for it, else on the line above the bar, right-aligned
/// with it. Every rect lies
/// inside `view` shrunk by the margin, unless the view is too small to hold a legend at all (then `fits` is false and
/// nothing should be drawn).
struct LegendLayout {
    QRect bar;
    QRect labels;      ///< the line under the bar, as wide as the bar
    QRect keySwatch;
    QRect keyLabel;
    bool fits = false;
};

inline constexpr int kLegendMargin = 12;
inline constexpr int kLegendBarWidth = 200;
inline constexpr int kLegendBarHeight = 10;
inline constexpr int kLegendMinBarWidth = 60;

LegendLayout legendLayout(QRect view, const QFontMetrics& fm, const QString& keyText);

/// The heatmap legend (shaders/render/mesh.frag's heat()): 0 to ≥ maxValue in `unit`, and the undefined key.
void drawHeatLegend(QPainter& p, QRect view, float maxValue, const QString& unit = QStringLiteral("°"));

/// The candy-wrapper view's legend (mesh.frag, mode 11): scale 1 green to 0.7 and below red, and the undefined key.
void drawScaleLegend(QPainter& p, QRect view);

/// The legend of a weight view (shaders/render/mesh.frag's weightRamp and countColor), and the NaN-weight key.
void drawWeightLegend(QPainter& p, QRect view, Shading s);

} // namespace viewer
