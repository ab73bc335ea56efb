// A histogram of one method's per-vertex normal and tangent errors (1° bins to 45°, then ≥ 45°: rig::ErrorStats), drawn
// with Qt Charts.
#pragma once

#include <QWidget>

#include "rig/deform/deform.h"
#include "viewer/view_settings.h"

class QChart;
class QBarSet;
class QBarSeries;
class QValueAxis;
class QBarCategoryAxis;

namespace panels {

class ErrorHistogram : public QWidget {
    Q_OBJECT
public:
    explicit ErrorHistogram(QWidget* parent = nullptr);
    /// Shows `method` of `eval` (total or skinning measure); clears when the method was not evaluated.
    void show(const rig::Evaluation& eval, rig::Method method, viewer::ErrorMeasure measure);
    void clear();
    /// The counts shown (normal, tangent), for tests.
    std::vector<double> normalCounts() const;
    std::vector<double> tangentCounts() const;
    QString title() const;

private:
    QChart* m_chart;
    QBarSet* m_normal;
    QBarSet* m_tangent;
    QValueAxis* m_y;
};

} // namespace panels
