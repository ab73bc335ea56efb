#include "error_histogram.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>

namespace panels {

ErrorHistogram::ErrorHistogram(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("errorHistogram"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_chart = new QChart();
    m_chart->setMargins(QMargins(2, 2, 2, 2));
    m_chart->legend()->setAlignment(Qt::AlignRight);
    m_normal = new QBarSet(tr("normal"));
    m_tangent = new QBarSet(tr("tangent"));
    m_normal->setColor(QColor(230, 180, 40));
    m_tangent->setColor(QColor(40, 170, 220));
    auto* series = new QBarSeries();
    series->append(m_normal);
    series->append(m_tangent);
    series->setBarWidth(0.9);
    m_chart->addSeries(series);
    // A value axis over the bar indices (bin b holds [b, b + 1)°; the last one ≥ 45°): readable tick labels every 5°
    // where 46 category labels would be elided.
    auto* x = new QValueAxis();
    x->setRange(-0.5, rig::kHistogramBins - 0.5);
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0.0);
    x->setTickInterval(5.0);
    x->setLabelFormat(QStringLiteral("%d"));
    x->setTitleVisible(false); // the chart's title says what it shows: the labels need the room
    x->setLabelsAngle(0);
    m_y = new QValueAxis();
    m_y->setLabelFormat(QStringLiteral("%d"));
    m_y->setTitleVisible(false);
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(m_y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(m_y);
    auto* view = new QChartView(m_chart, this);
    view->setRenderHint(QPainter::Antialiasing, false);
    view->setMinimumHeight(150);
    QFont small = x->labelsFont();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    x->setLabelsFont(small);
    m_y->setLabelsFont(small);
    x->setTitleFont(small);
    m_y->setTitleFont(small);
    layout->addWidget(view);
    clear();
}

void ErrorHistogram::clear()
{
    m_normal->remove(0, m_normal->count());
    m_tangent->remove(0, m_tangent->count());
    m_chart->setTitle(QString());
}

void ErrorHistogram::show(const rig::Evaluation& eval, rig::Method method, viewer::ErrorMeasure measure)
{
    clear();
    if (!eval.has(method))
        return;
    const rig::MethodStats& st = eval.stats[size_t(method)];
    const bool skinning = measure == viewer::ErrorMeasure::Skinning;
    const rig::ErrorStats& n = skinning ? st.skinningNormal : st.normal;
    const rig::ErrorStats& t = skinning ? st.skinningTangent : st.tangent;
    double top = 1.0;
    for (int b = 0; b < rig::kHistogramBins; ++b) {
        m_normal->append(double(n.histogram[size_t(b)]));
        m_tangent->append(double(t.histogram[size_t(b)]));
        top = std::max({top, double(n.histogram[size_t(b)]), double(t.histogram[size_t(b)])});
    }
    m_y->setRange(0.0, top * 1.05);
    m_chart->setTitle(tr("%1 · %2 (vertices per 1° bin; the last ≥ 45°)").arg(QString::fromLatin1(rig::methodId(method).data(), int(rig::methodId(method).size())),
                                         skinning ? tr("error from skinning") : tr("error")));
}

std::vector<double> ErrorHistogram::normalCounts() const
{
    std::vector<double> v;
    for (int i = 0; i < m_normal->count(); ++i)
        v.push_back(m_normal->at(i));
    return v;
}

std::vector<double> ErrorHistogram::tangentCounts() const
{
    std::vector<double> v;
    for (int i = 0; i < m_tangent->count(); ++i)
        v.push_back(m_tangent->at(i));
    return v;
}

QString ErrorHistogram::title() const { return m_chart->title(); }

} // namespace panels
