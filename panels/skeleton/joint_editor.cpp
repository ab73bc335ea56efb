#include "joint_editor.h"

#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include <glm/gtc/quaternion.hpp>

#include "app/document.h"
#include "rig/model/joint_tools.h"
#include "rig/model/samples.h"

namespace panels {

namespace {

constexpr int kSliderSteps = 1000; // translate and scale sliders: steps over their range

float& component(rig::JointEdit& e, JointEditor::Field f)
{
    switch (f / 3) {
    case 0: return e.rotateDeg[f % 3];
    case 1: return e.translate[f % 3];
    default: return e.scale[f % 3];
    }
}

float component(const rig::JointEdit& e, JointEditor::Field f)
{
    rig::JointEdit copy = e;
    return component(copy, f);
}

} // namespace

JointEditor::JointEditor(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("jointEditor"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("jointTitle"));
    m_title->setWordWrap(true);
    // The joint's name, Reset Joint and Presets on one line: the tree above keeps the height (Maya's channel box
    // likewise heads its fields with the node's name alone).
    auto* head = new QHBoxLayout;
    head->addWidget(m_title, 1);
    layout->addLayout(head);
    m_clip = new QLabel(this);
    m_clip->setObjectName(QStringLiteral("clipRotation"));
    m_clip->setToolTip(tr("The rotation the clip gives this joint now, in its rotate order; the edit below applies after "
                          "it. While the clip plays each angle follows on from the last, as Maya's curves do."));
    m_clip->hide();
    layout->addWidget(m_clip);

    m_fields = new QWidget(this);
    auto* grid = new QGridLayout(m_fields);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setVerticalSpacing(0);
    const char* groups[3] = {"Rotate", "Translate", "Scale"};
    const char* axes[3] = {"X", "Y", "Z"};
    const char* names[FieldCount] = {"rotateX", "rotateY", "rotateZ", "translateX", "translateY",
                                     "translateZ", "scaleX", "scaleY", "scaleZ"};
    for (int f = 0; f < FieldCount; ++f) {
        const Field field = Field(f);
        const int row = f + f / 3; // a header row per group
        if (f % 3 == 0) {
            auto* header = new QLabel(QStringLiteral("<b>%1</b>").arg(tr(groups[f / 3])), m_fields);
            grid->addWidget(header, row - 0, 0, 1, f == RotateX ? 2 : 3);
        }
        if (f == RotateX) {
            m_order = new QComboBox(m_fields);
            m_order->setObjectName(QStringLiteral("rotateOrder"));
            for (int o = 0; o < rig::kRotateOrderCount; ++o)
                m_order->addItem(QString::fromLatin1(rig::rotateOrderName(rig::RotateOrder(o))));
            m_order->setToolTip(tr("Rotate order: the first letter turns first (xyz: X, then Y, then Z), as Maya's. "
                                   "Changing it keeps the angles, so the rotation changes."));
            grid->addWidget(m_order, row, 2);
            connect(m_order, &QComboBox::activated, this, [this](int o) {
                const int joint = m_doc->selectedJoint();
                if (!m_doc->isAddressable(joint))
                    return;
                rig::JointEdit e = m_doc->jointEdit(joint);
                if (e.rotateOrder == rig::RotateOrder(o))
                    return;
                e.rotateOrder = rig::RotateOrder(o);
                m_doc->editJoint(joint, e,
                                 tr("Rotate Order %1 of %2")
                                     .arg(QString::fromLatin1(rig::rotateOrderName(e.rotateOrder)),
                                          QString::fromStdString(m_doc->loaded()->rig.skeleton.nodes[size_t(joint)].name)));
            });
        }
        auto* label = new QLabel(QString::fromLatin1(axes[f % 3]), m_fields);
        auto* slider = new QSlider(Qt::Horizontal, m_fields);
        slider->setObjectName(QStringLiteral("%1Slider").arg(QString::fromLatin1(names[f])));
        auto* spin = new QDoubleSpinBox(m_fields);
        spin->setObjectName(QStringLiteral("%1Spin").arg(QString::fromLatin1(names[f])));
        spin->setKeyboardTracking(false); // a typed number applies on Enter / focus out, not per keystroke
        spin->setAccelerated(true);
        if (f < TranslateX) {
            slider->setRange(-1800, 1800); // tenths of a degree
            spin->setRange(-720.0, 720.0);
            spin->setDecimals(1);
            spin->setSuffix(QStringLiteral("°"));
            spin->setSingleStep(1.0);
        } else if (f < ScaleX) {
            slider->setRange(-kSliderSteps, kSliderSteps);
            spin->setRange(-1e5, 1e5);
            spin->setDecimals(4);
            spin->setSingleStep(0.01);
        } else {
            slider->setRange(1, 400); // 0.01 .. 4
            spin->setRange(-100.0, 100.0); // negative: a mirror, as a file may hold
            spin->setDecimals(3);
            spin->setSingleStep(0.05);
        }
        grid->addWidget(label, row + 1, 0);
        grid->addWidget(slider, row + 1, 1);
        grid->addWidget(spin, row + 1, 2);
        m_rows[size_t(f)] = {slider, spin};
        connect(slider, &QSlider::sliderPressed, this, [this] { m_sliderGesture = m_doc->beginGesture(); });
        connect(slider, &QSlider::sliderReleased, this, [this] { m_sliderGesture = 0; });
        connect(slider, &QSlider::valueChanged, this, [this, field](int v) { onSlider(field, v); });
        connect(spin, &QDoubleSpinBox::valueChanged, this, [this, field](double v) { onSpin(field, v); });
        connect(spin, &QDoubleSpinBox::editingFinished, this, [this] { m_spinField = -1; });
    }
    grid->setColumnStretch(1, 1);
    layout->addWidget(m_fields);

    m_reset = new QPushButton(tr("Reset"), this);
    m_reset->setObjectName(QStringLiteral("resetJoint"));
    m_reset->setToolTip(tr("Reset Joint: removes this joint's edit (back to the rest or sampled pose); its rotate order stays"));
    connect(m_reset, &QPushButton::clicked, this, [this] {
        const int j = targetJoint();
        if (j >= 0) {
            rig::JointEdit reset;
            reset.rotateOrder = m_doc->jointEdit(j).rotateOrder;
            m_doc->editJoint(j, reset, tr("Reset Joint"));
        }
    });
    m_presets = new QToolButton(this);
    m_presets->setObjectName(QStringLiteral("presets"));
    m_presets->setText(tr("Presets"));
    m_presets->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(m_presets);
    menu->addAction(tr("Bone Twist 90°"), this, [this] { twist(90.0f); });
    menu->addAction(tr("Bone Bend 90°"), this, [this] { bend(90.0f); });
    menu->addAction(tr("Squash (0.6 along, 1.3 across)"), this, [this] { squash(0.6f, 1.3f); });
    menu->addAction(tr("Stretch (1.6 along, 0.8 across)"), this, [this] { squash(1.6f, 0.8f); });
    menu->addSeparator();
    menu->addAction(tr("Candy-Wrapper Twist 0→180°"), this, [this] { candyWrapperSweep(); });
    m_presets->setMenu(menu);
    head->addWidget(m_reset, 0, Qt::AlignTop);
    head->addWidget(m_presets, 0, Qt::AlignTop);

    m_sweep = new QTimer(this);
    m_sweep->setInterval(16);
    connect(m_sweep, &QTimer::timeout, this, [this] {
        const double t = std::min(1.0, double(QDateTime::currentMSecsSinceEpoch() - m_sweepStart) / (1000.0 * m_sweepSeconds));
        if (m_sweepJoint >= 0 && m_doc->loaded()) {
            const glm::vec3 axis = rig::boneAxis(m_doc->loaded()->rig, m_sweepJoint);
            rig::JointEdit e = m_doc->jointEdit(m_sweepJoint);
            e.rotateDeg = rig::twistEdit(axis, float(180.0 * t), e.rotateOrder).rotateDeg;
            m_doc->editJoint(m_sweepJoint, e, tr("Candy-Wrapper Twist"), m_sweepGesture);
        }
        if (t >= 1.0)
            m_sweep->stop();
    });

    connect(doc, &app::Document::rigChanged, this, [this] {
        m_sweep->stop();
        double extent = 0.0;
        if (const app::LoadedRig* l = m_doc->loaded())
            for (const rig::Node& n : l->rig.skeleton.nodes)
                extent = std::max(extent, double(glm::length(n.rest.translation)));
        m_translateRange = extent > 0.0 && std::isfinite(extent) ? 2.0 * extent : 1.0;
        sync();
    });
    connect(doc, &app::Document::poseChanged, this, &JointEditor::sync);
    connect(doc, &app::Document::jointSelectionChanged, this, [this] {
        m_spinField = -1;
        m_clipJoint = -1;
        sync();
    });
    sync();
}

int JointEditor::targetJoint() const
{
    if (m_doc->selectedJoint() >= 0)
        return m_doc->selectedJoint();
    const app::LoadedRig* l = m_doc->loaded();
    if (l && !l->sampleName.isEmpty()) {
        const std::string joint = rig::sampleLesson(l->sampleName.toStdString()).joint;
        return joint.empty() ? -1 : l->rig.skeleton.find(joint);
    }
    return -1;
}

double JointEditor::sliderScale(Field f) const
{
    if (f < TranslateX)
        return 0.1;
    if (f < ScaleX)
        return m_translateRange / kSliderSteps;
    return 0.01;
}

void JointEditor::sync()
{
    const int joint = m_doc->selectedJoint();
    const app::LoadedRig* l = m_doc->loaded();
    const bool editable = m_doc->isAddressable(joint);
    if (!l || joint < 0)
        m_title->setText(tr("No joint selected"));
    else if (!editable)
        m_title->setText(tr("<b>%1</b> cannot be posed: its name is empty or repeats an earlier node's, so a pose file "
                            "cannot name it.")
                             .arg(QString::fromStdString(l->rig.skeleton.nodes[size_t(joint)].name).toHtmlEscaped()));
    else
        m_title->setText(tr("<b>%1</b>").arg(QString::fromStdString(l->rig.skeleton.nodes[size_t(joint)].name).toHtmlEscaped()));
    m_title->setToolTip(l && joint >= 0 ? tr("Edits apply in the joint's local frame, after its rest (or sampled) transform.")
                                        : tr("Select a joint in the tree or click a bone in the viewport (skeleton shown: K)"));
    m_fields->setEnabled(editable);
    m_reset->setEnabled(editable);
    m_presets->setEnabled(targetJoint() >= 0 && m_doc->isAddressable(targetJoint()));
    const rig::JointEdit e = m_doc->jointEdit(joint);
    syncClipRotation(joint, e.rotateOrder);
    {
        const QSignalBlocker bo(m_order);
        m_order->setCurrentIndex(int(e.rotateOrder));
    }
    for (int f = 0; f < FieldCount; ++f) {
        const Row& r = m_rows[size_t(f)];
        const double v = double(component(e, Field(f)));
        const QSignalBlocker bs(r.slider), bp(r.spin);
        r.spin->setValue(v);
        r.slider->setValue(int(std::lround(std::clamp(v / sliderScale(Field(f)), double(r.slider->minimum()),
                                                      double(r.slider->maximum())))));
    }
}

void JointEditor::syncClipRotation(int joint, rig::RotateOrder order)
{
    // The clip's sampled rotation of the joint, as Euler angles nearest the last shown (a joint spinning past 180°
    // reads 190°, not −170°); a new joint, clip or order starts from the decomposition nearest zero.
    const app::LoadedRig* l = m_doc->loaded();
    const rig::ResolvedPose& pose = m_doc->resolvedPose();
    const rig::JointChannel* channel = nullptr;
    if (l && joint >= 0 && pose.clip >= 0 && size_t(pose.clip) < l->rig.clips.size())
        for (const rig::JointChannel& ch : l->rig.clips[size_t(pose.clip)].joints)
            if (ch.node == joint && !ch.rotation.empty())
                channel = &ch;
    if (!channel) {
        m_clip->hide();
        m_clipJoint = -1;
        return;
    }
    const glm::mat3 r = glm::mat3_cast(rig::sampleTrack(channel->rotation, pose.time));
    if (m_clipJoint != joint || m_clipClip != pose.clip || m_clipOrder != order)
        m_clipEuler = glm::vec3(0.0f);
    m_clipEuler = rig::eulerFromMatrix(r, order, m_clipEuler);
    m_clipJoint = joint;
    m_clipClip = pose.clip;
    m_clipOrder = order;
    m_clip->setText(tr("Clip: rotate %1°, %2°, %3° (%4)")
                        .arg(double(m_clipEuler.x), 0, 'f', 1)
                        .arg(double(m_clipEuler.y), 0, 'f', 1)
                        .arg(double(m_clipEuler.z), 0, 'f', 1)
                        .arg(QString::fromLatin1(rig::rotateOrderName(order))));
    m_clip->show();
}

glm::vec3 JointEditor::clipRotation() const { return m_clipJoint >= 0 ? m_clipEuler : glm::vec3(NAN); }

void JointEditor::onSlider(Field f, int value)
{
    // A drag (pressed .. released) is one gesture; a keyboard step on the slider is its own step.
    apply(f, double(value) * sliderScale(f), m_sliderGesture);
}

void JointEditor::onSpin(Field f, double value)
{
    // Consecutive changes of one spin box (arrows held, wheel) are one step until it loses focus or another field.
    if (m_spinField != f) {
        m_spinField = f;
        m_spinGesture = m_doc->beginGesture();
    }
    apply(f, value, m_spinGesture);
}

void JointEditor::apply(Field f, double value, int gesture)
{
    const int joint = m_doc->selectedJoint();
    if (!m_doc->isAddressable(joint))
        return;
    rig::JointEdit e = m_doc->jointEdit(joint);
    component(e, f) = float(value);
    static const char* what[3] = {"Rotate", "Translate", "Scale"};
    m_doc->editJoint(joint, e, tr("%1 %2").arg(tr(what[f / 3]), QString::fromStdString(m_doc->loaded()->rig.skeleton.nodes[size_t(joint)].name)),
                     gesture);
}

void JointEditor::twist(float degrees)
{
    const int j = targetJoint();
    if (!m_doc->isAddressable(j))
        return;
    rig::JointEdit e = m_doc->jointEdit(j);
    e.rotateDeg = rig::twistEdit(rig::boneAxis(m_doc->loaded()->rig, j), degrees, e.rotateOrder).rotateDeg;
    m_doc->editJoint(j, e, tr("Bone Twist"));
}

void JointEditor::bend(float degrees)
{
    const int j = targetJoint();
    if (!m_doc->isAddressable(j))
        return;
    rig::JointEdit e = m_doc->jointEdit(j);
    e.rotateDeg = rig::bendEdit(rig::boneAxis(m_doc->loaded()->rig, j), degrees, e.rotateOrder).rotateDeg;
    m_doc->editJoint(j, e, tr("Bone Bend"));
}

void JointEditor::squash(float along, float across)
{
    const int j = targetJoint();
    if (!m_doc->isAddressable(j))
        return;
    rig::JointEdit e = m_doc->jointEdit(j);
    e.scale = rig::squashEdit(rig::boneAxis(m_doc->loaded()->rig, j), along, across).scale;
    m_doc->editJoint(j, e, along < 1.0f ? tr("Squash") : tr("Stretch"));
}

void JointEditor::candyWrapperSweep(double seconds)
{
    const int j = targetJoint();
    if (!m_doc->isAddressable(j))
        return;
    m_sweepJoint = j;
    m_sweepSeconds = std::max(seconds, 0.05);
    m_sweepGesture = m_doc->beginGesture();
    m_sweepStart = QDateTime::currentMSecsSinceEpoch();
    m_sweep->start();
}

bool JointEditor::sweepRunning() const { return m_sweep->isActive(); }

} // namespace panels
