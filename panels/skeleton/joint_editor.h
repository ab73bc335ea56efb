// The selected joint's transform: rotate X/Y/Z (degrees, Euler angles in the joint's rotate order), translate and scale per axis
// (non-uniform allowed), each a slider with a spin box; reset joint; the lesson presets. Every change is an undoable
// pose edit; a slider drag is one undo step. Above them, read-only, the rotation a playing clip gives the joint.
#pragma once

#include <QWidget>

#include <array>

#include <glm/glm.hpp>

#include "rig/model/pose.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;
class QToolButton;
class QPushButton;
class QTimer;

namespace app {
class Document;
}

namespace panels {

class JointEditor : public QWidget {
    Q_OBJECT
public:
    explicit JointEditor(app::Document* doc, QWidget* parent = nullptr);

    /// The nine fields in order: rotate x, y, z; translate x, y, z; scale x, y, z.
    enum Field { RotateX, RotateY, RotateZ, TranslateX, TranslateY, TranslateZ, ScaleX, ScaleY, ScaleZ, FieldCount };
    QSlider* slider(Field f) const { return m_rows[size_t(f)].slider; }
    QDoubleSpinBox* spinBox(Field f) const { return m_rows[size_t(f)].spin; }
    /// The rotate order (xyz, yzx, zxy, xzy, yxz, zyx, as Maya lists them); a change keeps the angles, as Maya does.
    QComboBox* rotateOrderBox() const { return m_order; }

    /// The joint the editor and presets act on: the selected one, else the sample's lesson joint, else -1.
    int targetJoint() const;
    /// Presets (also on the Presets button's menu).
    void twist(float degrees);
    void bend(float degrees);
    void squash(float along, float across);
    /// The candy-wrapper sweep: the target joint twisted 0→180° about its bone over `seconds` (one undo step).
    void candyWrapperSweep(double seconds = 1.5);
    bool sweepRunning() const;
    /// The clip's rotation of the selected joint as shown (Euler degrees in its rotate order, each continuing from the
    /// last shown), or NaN when the clip does not rotate it.
    glm::vec3 clipRotation() const;

private:
    struct Row {
        QSlider* slider = nullptr;
        QDoubleSpinBox* spin = nullptr;
    };
    void sync();
    void syncClipRotation(int joint, rig::RotateOrder order);
    void onSlider(Field f, int value);
    void onSpin(Field f, double value);
    void apply(Field f, double value, int gesture);
    double sliderScale(Field f) const;

    app::Document* m_doc;
    QLabel* m_title = nullptr;
    QLabel* m_clip = nullptr;       ///< the clip's rotation of the joint (read-only)
    glm::vec3 m_clipEuler{0.0f};    ///< as shown last
    int m_clipJoint = -1, m_clipClip = -1;
    rig::RotateOrder m_clipOrder = rig::RotateOrder::XYZ;
    QComboBox* m_order = nullptr;
    QWidget* m_fields = nullptr;
    std::array<Row, FieldCount> m_rows;
    QPushButton* m_reset = nullptr;
    QToolButton* m_presets = nullptr;
    int m_sliderGesture = 0;
    int m_spinGesture = 0;
    int m_spinField = -1;
    double m_translateRange = 1.0;
    QTimer* m_sweep = nullptr;
    double m_sweepSeconds = 1.5;
    qint64 m_sweepStart = 0;
    int m_sweepGesture = 0;
    int m_sweepJoint = -1;
};

} // namespace panels
