#include "morph_panel.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>

#include <cmath>
#include <set>

#include "app/document.h"

namespace panels {

namespace {
constexpr int kSliderSteps = 1000;
}

MorphPanel::MorphPanel(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("morphPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("morphFilter"));
    m_filter->setPlaceholderText(tr("Filter targets…"));
    m_filter->setClearButtonEnabled(true);
    m_count = new QLabel(this);
    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_count);
    layout->addLayout(top);

    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_list = new QWidget(scroll);
    m_listLayout = new QVBoxLayout(m_list);
    m_listLayout->setContentsMargins(0, 0, 0, 0);
    m_listLayout->setSpacing(1);
    m_listLayout->addStretch(1);
    scroll->setWidget(m_list);
    layout->addWidget(scroll, 1);

    auto* bottom = new QHBoxLayout;
    auto* reset = new QPushButton(tr("Reset All"), this);
    reset->setObjectName(QStringLiteral("resetMorphs"));
    reset->setToolTip(tr("Clears every morph weight set here (back to the file's default or the clip's)"));
    m_normals = new QCheckBox(tr("Normal/tangent deltas"), this);
    m_normals->setObjectName(QStringLiteral("morphNormals"));
    m_normals->setToolTip(tr("Add the targets' normal and tangent deltas (off: morph positions only, as engines that drop them)"));
    bottom->addWidget(reset);
    bottom->addStretch(1);
    bottom->addWidget(m_normals);
    layout->addLayout(bottom);

    connect(reset, &QPushButton::clicked, this, [this] {
        rig::Pose p = m_doc->pose();
        if (p.morphs.empty())
            return;
        p.morphs.clear();
        m_doc->editPose(p, tr("Reset Morph Targets"));
    });
    connect(m_normals, &QCheckBox::toggled, this, [this](bool on) {
        app::DisplaySettings d = m_doc->display();
        d.morphNormals = on;
        m_doc->setDisplay(d);
    });
    connect(m_filter, &QLineEdit::textChanged, this, &MorphPanel::applyFilter);
    connect(doc, &app::Document::rigChanged, this, &MorphPanel::rebuild);
    connect(doc, &app::Document::poseChanged, this, &MorphPanel::sync);
    connect(doc, &app::Document::displayChanged, this, [this] {
        const QSignalBlocker b(m_normals);
        m_normals->setChecked(m_doc->display().morphNormals);
    });
    m_normals->setChecked(doc->display().morphNormals);
    rebuild();
}

void MorphPanel::rebuild()
{
    for (Row& r : m_rows)
        delete r.widget;
    m_rows.clear();
    m_spinRow = -1;
    const app::LoadedRig* l = m_doc->loaded();
    if (l) {
        std::set<std::string> seen;
        for (size_t m = 0; m < l->rig.meshes.size(); ++m)
            for (size_t t = 0; t < l->rig.meshes[m].morphTargets.size(); ++t) {
                const std::string& name = l->rig.meshes[m].morphTargets[t].name;
                if (!seen.insert(name).second)
                    continue;
                Row r;
                r.name = name;
                r.mesh = int(m);
                r.target = int(t);
                m_rows.push_back(r);
            }
    }
    for (size_t i = 0; i < m_rows.size(); ++i) {
        Row& r = m_rows[i];
        r.widget = new QWidget(m_list);
        auto* h = new QHBoxLayout(r.widget);
        h->setContentsMargins(0, 0, 0, 0);
        r.label = new QLabel(r.name.empty() ? tr("(unnamed)") : QString::fromStdString(r.name), r.widget);
        r.label->setMinimumWidth(90);
        r.label->setToolTip(QString::fromStdString(r.name));
        r.slider = new QSlider(Qt::Horizontal, r.widget);
        r.slider->setRange(0, kSliderSteps);
        r.slider->setObjectName(QStringLiteral("morphSlider%1").arg(i));
        r.spin = new QDoubleSpinBox(r.widget);
        r.spin->setRange(-1.0, 2.0);
        r.spin->setDecimals(3);
        r.spin->setSingleStep(0.05);
        r.spin->setKeyboardTracking(false);
        r.spin->setObjectName(QStringLiteral("morphSpin%1").arg(i));
        h->addWidget(r.label, 2);
        h->addWidget(r.slider, 3);
        h->addWidget(r.spin);
        m_listLayout->insertWidget(int(i), r.widget);
        connect(r.slider, &QSlider::sliderPressed, this, [this] { m_sliderGesture = m_doc->beginGesture(); });
        connect(r.slider, &QSlider::sliderReleased, this, [this] { m_sliderGesture = 0; });
        connect(r.slider, &QSlider::valueChanged, this, [this, i](int v) { edit(i, double(v) / kSliderSteps, m_sliderGesture); });
        connect(r.spin, &QDoubleSpinBox::valueChanged, this, [this, i](double v) {
            if (m_spinRow != int(i)) {
                m_spinRow = int(i);
                m_spinGesture = m_doc->beginGesture();
            }
            edit(i, v, m_spinGesture);
        });
        connect(r.spin, &QDoubleSpinBox::editingFinished, this, [this] { m_spinRow = -1; });
    }
    m_count->setText(m_rows.empty() ? tr("no morph targets") : tr("%1 targets").arg(m_rows.size()));
    applyFilter();
    sync();
}

void MorphPanel::sync()
{
    const rig::ResolvedPose& rp = m_doc->resolvedPose();
    const rig::Pose& pose = m_doc->pose();
    for (Row& r : m_rows) {
        double w = 0.0;
        if (size_t(r.mesh) < rp.morphWeights.size() && size_t(r.target) < rp.morphWeights[size_t(r.mesh)].size())
            w = double(rp.morphWeights[size_t(r.mesh)][size_t(r.target)]);
        const QSignalBlocker bs(r.slider), bp(r.spin);
        r.spin->setValue(w);
        r.slider->setValue(int(std::lround(std::clamp(w, 0.0, 1.0) * kSliderSteps)));
        // Set here (bold) or in effect from the file / the clip.
        QFont f = r.label->font();
        f.setBold(pose.morphs.count(r.name) > 0);
        r.label->setFont(f);
    }
}

void MorphPanel::applyFilter()
{
    const QString f = m_filter->text();
    for (Row& r : m_rows)
        r.widget->setVisible(f.isEmpty() || QString::fromStdString(r.name).contains(f, Qt::CaseInsensitive));
}

bool MorphPanel::isRowVisible(int i) const { return !m_rows[size_t(i)].widget->isHidden(); }

void MorphPanel::edit(size_t row, double value, int gesture)
{
    m_doc->editMorph(m_rows[row].name, float(value), tr("Morph %1").arg(QString::fromStdString(m_rows[row].name)), gesture);
}

} // namespace panels
