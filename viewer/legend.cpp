#include "viewer/legend.h"

#include <QLinearGradient>
#include <QPainter>

#include <algorithm>

namespace viewer {

LegendLayout legendLayout(QRect view, const QFontMetrics& fm, const QString& keyText)
{
    LegendLayout l;
    const int lineHeight = fm.height();
    const int available = view.width() - 2 * kLegendMargin;
    // Bar, the label line under it and a line above it for the key, with the margin under all.
    if (available < kLegendMinBarWidth || view.height() < 2 * kLegendMargin + kLegendBarHeight + 2 * (lineHeight + 4))
        return l;
    const int keyWidth = 8 + kLegendBarHeight + 4 + fm.horizontalAdvance(keyText) + 2;
    const int barTop = view.bottom() - kLegendMargin - lineHeight - 2 - kLegendBarHeight + 1;
    // The key beside the bar when the bar keeps its full width there; else above it (a long bar reads better).
    const bool keyInline = available - keyWidth >= kLegendBarWidth;
    const int barWidth = std::min(kLegendBarWidth, available);
    l.bar = QRect(view.left() + kLegendMargin, barTop, barWidth, kLegendBarHeight);
    l.labels = QRect(l.bar.left(), l.bar.bottom() + 3, barWidth, lineHeight);
    const int textWidth = keyWidth - 8 - kLegendBarHeight - 4;
    if (keyInline) {
        l.keySwatch = QRect(l.bar.right() + 9, l.bar.top(), kLegendBarHeight, kLegendBarHeight);
        l.keyLabel = QRect(l.keySwatch.right() + 5, l.bar.center().y() - lineHeight / 2, textWidth, lineHeight);
    } else {
        const int label = std::min(textWidth, available - kLegendBarHeight - 4);
        l.keyLabel = QRect(l.bar.right() + 1 - label, l.bar.top() - 4 - lineHeight, label, lineHeight);
        l.keySwatch = QRect(l.keyLabel.left() - 4 - kLegendBarHeight, l.keyLabel.center().y() - kLegendBarHeight / 2,
                            kLegendBarHeight, kLegendBarHeight);
    }
    l.fits = true;
    return l;
}

namespace {

const QColor kText(230, 230, 230);

void drawKey(QPainter& p, const LegendLayout& l, const QColor& colour, const QString& text)
{
    p.fillRect(l.keySwatch, colour);
    p.setPen(kText);
    p.drawText(l.keyLabel, Qt::AlignLeft | Qt::AlignVCenter, p.fontMetrics().elidedText(text, Qt::ElideRight, l.keyLabel.width()));
}

/// `text` on the label line centred at x, moved inwards where it would pass the line's ends.
void drawLabelAt(QPainter& p, const LegendLayout& l, int x, const QString& text)
{
    const int w = p.fontMetrics().horizontalAdvance(text) + 2;
    const int left = std::max(l.labels.left(), std::min(x - w / 2, l.labels.right() + 1 - w)); // the left end wins
    p.drawText(QRect(left, l.labels.top(), w, l.labels.height()), Qt::AlignCenter, text);
}

} // namespace

void drawHeatLegend(QPainter& p, QRect view, float maxValue, const QString& unit)
{
    const LegendLayout l = legendLayout(view, p.fontMetrics(), QStringLiteral("undefined"));
    if (!l.fits)
        return;
    p.save();
    p.setClipRect(view);
    // green -> yellow -> red, as shaders/render/mesh.frag's heat()
    QLinearGradient g(l.bar.topLeft(), l.bar.topRight());
    g.setColorAt(0.0, QColor::fromRgbF(0.1f, 0.75f, 0.2f));
    g.setColorAt(0.5, QColor::fromRgbF(0.95f, 0.85f, 0.1f));
    g.setColorAt(1.0, QColor::fromRgbF(0.9f, 0.12f, 0.1f));
    p.fillRect(l.bar, g);
    p.setPen(kText);
    p.drawText(l.labels, Qt::AlignLeft | Qt::AlignTop, QStringLiteral("0") + unit);
    p.drawText(l.labels, Qt::AlignRight | Qt::AlignTop, QStringLiteral("≥ %1%2").arg(double(maxValue), 0, 'g', 3).arg(unit));
    drawKey(p, l, QColor::fromRgbF(0.55f, 0.25f, 0.6f), QStringLiteral("undefined"));
    p.restore();
}

void drawScaleLegend(QPainter& p, QRect view)
{
    const LegendLayout l = legendLayout(view, p.fontMetrics(), QStringLiteral("undefined"));
    if (!l.fits)
        return;
    p.save();
    p.setClipRect(view);
    QLinearGradient g(l.bar.topLeft(), l.bar.topRight());
    g.setColorAt(0.0, QColor::fromRgbF(0.1f, 0.75f, 0.2f));
    g.setColorAt(0.5, QColor::fromRgbF(0.95f, 0.85f, 0.1f));
    g.setColorAt(1.0, QColor::fromRgbF(0.9f, 0.12f, 0.1f));
    p.fillRect(l.bar, g);
    p.setPen(kText);
    p.drawText(l.labels, Qt::AlignLeft | Qt::AlignTop, QStringLiteral("scale 1"));
    drawLabelAt(p, l, l.bar.left() + l.bar.width() / 2, QStringLiteral("0.85"));
    p.drawText(l.labels, Qt::AlignRight | Qt::AlignTop, QStringLiteral("≤ 0.7"));
    drawKey(p, l, QColor::fromRgbF(0.55f, 0.25f, 0.6f), QStringLiteral("undefined"));
    p.restore();
}

void drawWeightLegend(QPainter& p, QRect view, Shading s)
{
    if (s == Shading::WeightSum) { // a heatmap of |Σw − 1| from 0 to 0.1
        drawHeatLegend(p, view, 0.1f, QString());
        return;
    }
    const LegendLayout l = legendLayout(view, p.fontMetrics(), QStringLiteral("NaN weight"));
    if (!l.fits)
        return;
    p.save();
    p.setClipRect(view);
    p.setPen(kText);
    const QRect& r = l.bar;
    const QColor ramp[5] = {QColor::fromRgbF(0.05f, 0.08f, 0.35f), QColor::fromRgbF(0.1f, 0.65f, 0.9f),
                            QColor::fromRgbF(0.15f, 0.8f, 0.25f), QColor::fromRgbF(0.95f, 0.85f, 0.1f),
                            QColor::fromRgbF(0.9f, 0.12f, 0.1f)};
    if (s == Shading::JointWeight) {
        QLinearGradient g(r.topLeft(), r.topRight());
        for (int i = 0; i < 5; ++i)
            g.setColorAt(i / 4.0, ramp[i]);
        p.fillRect(r, g);
        for (int i = 0; i <= 4; ++i)
            drawLabelAt(p, l, r.left() + r.width() * i / 4, QString::number(i / 4.0));
    } else if (s == Shading::JointWeightBands) {
        // Bands as mesh.frag draws them: the ramp at each band's middle.
        auto mid = [&](double t) {
            const double x = t * 4.0;
            const int i = std::min(int(x), 3);
            const double f = x - i;
            const QColor a = ramp[i], b = ramp[i + 1];
            return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * f), float(a.greenF() + (b.greenF() - a.greenF()) * f),
                                    float(a.blueF() + (b.blueF() - a.blueF()) * f));
        };
        for (int i = 0; i < 4; ++i)
            p.fillRect(QRect(r.left() + r.width() * i / 4, r.top(), r.width() / 4, r.height()), mid((i + 0.5) / 4.0));
        for (int i = 1; i < 4; ++i)
            p.fillRect(QRect(r.left() + r.width() * i / 4 - 1, r.top(), 2, r.height()), QColor(5, 5, 5));
        for (int i = 0; i <= 4; ++i)
            drawLabelAt(p, l, r.left() + r.width() * i / 4, QString::number(i / 4.0));
    } else if (s == Shading::InfluenceCount) {
        const QColor c[7] = {QColor(20, 20, 20), QColor::fromRgbF(0.15f, 0.3f, 0.85f), QColor::fromRgbF(0.1f, 0.7f, 0.85f),
                             QColor::fromRgbF(0.15f, 0.75f, 0.25f), QColor::fromRgbF(0.92f, 0.85f, 0.15f),
                             QColor::fromRgbF(0.9f, 0.35f, 0.1f), QColor::fromRgbF(0.95f, 0.2f, 0.9f)};
        const QString t[7] = {QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("3"),
                              QStringLiteral("4"), QStringLiteral("5–8"), QStringLiteral(">8")};
        const int w = r.width() / 7;
        for (int i = 0; i < 7; ++i) {
            p.fillRect(QRect(r.left() + i * w, r.top(), w - 2, r.height()), c[i]);
            drawLabelAt(p, l, r.left() + i * w + w / 2, t[i]);
        }
    }
    drawKey(p, l, QColor::fromRgbF(0.55f, 0.25f, 0.6f), QStringLiteral("NaN weight"));
    p.restore();
}

} // namespace viewer
