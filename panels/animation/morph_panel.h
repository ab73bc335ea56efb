// The Morph Targets dock: one slider (0…1) and spin box (−1…2) per target name (a name drives every mesh's target of
// that name, as the pose file does), a filter for rigs with hundreds of shapes, Reset All, and the normal/tangent-delta
// switch. The sliders show the weights in effect, so a clip that animates them moves them.
#pragma once

#include <QWidget>

#include <string>
#include <vector>

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSlider;
class QVBoxLayout;

namespace app {
class Document;
}

namespace panels {

class MorphPanel : public QWidget {
    Q_OBJECT
public:
    explicit MorphPanel(app::Document* doc, QWidget* parent = nullptr);

    int targetCount() const { return int(m_rows.size()); }
    /// The row widgets of target `i` (in file order of first appearance).
    QSlider* slider(int i) const { return m_rows[size_t(i)].slider; }
    QDoubleSpinBox* spinBox(int i) const { return m_rows[size_t(i)].spin; }
    QString targetName(int i) const { return QString::fromStdString(m_rows[size_t(i)].name); }
    QLineEdit* filter() const { return m_filter; }
    bool isRowVisible(int i) const;

private:
    struct Row {
        std::string name;
        QWidget* widget = nullptr;
        QLabel* label = nullptr;
        QSlider* slider = nullptr;
        QDoubleSpinBox* spin = nullptr;
        int mesh = -1, target = -1; ///< where its weight in effect is read (the first mesh that has it)
    };
    void rebuild();
    void sync();
    void applyFilter();
    void edit(size_t row, double value, int gesture);

    app::Document* m_doc;
    QLineEdit* m_filter = nullptr;
    QLabel* m_count = nullptr;
    QCheckBox* m_normals = nullptr;
    QWidget* m_list = nullptr;
    QVBoxLayout* m_listLayout = nullptr;
    std::vector<Row> m_rows;
    int m_sliderGesture = 0;
    int m_spinGesture = 0;
    int m_spinRow = -1;
};

} // namespace panels
