// Helpers of the GUI tests (real window, real device): pixel classes of a grabbed viewport image, waiting for frames,
// and where a world point lands in the viewport.
#pragma once

#include <QImage>
#include <QPoint>
#include <QtTest/QtTest>

#include <glm/glm.hpp>

#include "viewer/viewport.h"

namespace guitest {

/// A test's rows for both real backends: column "api", rows "vulkan" (lavapipe) and "opengl" (llvmpipe).
inline void addBackendRows()
{
    QTest::addColumn<QString>("api");
    QTest::newRow("vulkan") << QStringLiteral("vulkan");
    QTest::newRow("opengl") << QStringLiteral("opengl");
}

struct Counts {
    int green = 0, hot = 0, gold = 0, total = 0;
};

/// Classifies pixels of a region of a grabbed viewport image.
inline Counts classify(const QImage& img, QRect region)
{
    Counts c;
    region = region.intersected(img.rect());
    for (int y = region.top(); y <= region.bottom(); ++y)
        for (int x = region.left(); x <= region.right(); ++x) {
            const QColor p = img.pixelColor(x, y);
            ++c.total;
            if (p.green() > 140 && p.red() < 90 && p.blue() < 90)
                ++c.green; // heatmap 0°
            if (p.red() > 180 && p.green() < 140 && p.blue() < 80)
                ++c.hot; // heatmap towards red
            if (p.red() > 220 && p.green() > 160 && p.green() < 225 && p.blue() < 70)
                ++c.gold; // normal lines (1.0, 0.78, 0.12)
        }
    return c;
}

/// Pixels of `img` in `region` for which `pred` holds.
template <typename Pred>
int countPixels(const QImage& img, QRect region, Pred pred)
{
    int n = 0;
    region = region.intersected(img.rect());
    for (int y = region.top(); y <= region.bottom(); ++y)
        for (int x = region.left(); x <= region.right(); ++x)
            n += pred(img.pixelColor(x, y)) ? 1 : 0;
    return n;
}

inline bool waitForFrames(viewer::Viewport* vp, int atLeast)
{
    return QTest::qWaitFor([&] { return vp->framesRendered() >= atLeast; }, 20000);
}

/// Where a world point lands in a single-view viewport, in logical pixels (the camera's own projection).
inline QPoint project(viewer::Viewport* vp, const glm::vec3& p)
{
    const viewer::OrbitCamera& cam = vp->camera();
    const glm::vec4 clip = cam.projection(float(vp->width()) / float(vp->height())) * cam.view() * glm::vec4(p, 1.0f);
    return QPoint(int((clip.x / clip.w * 0.5f + 0.5f) * float(vp->width())), int((0.5f - clip.y / clip.w * 0.5f) * float(vp->height())));
}

} // namespace guitest
