// The runtime format chooser: an engine profile (rig/deform/engine_profiles.h) for every method's skinning, and the
// bytes the current method's skinning pass reads per vertex with it. Choosing one sets the document's display format
// (the runtime is rebuilt off the GUI thread); each item's tooltip gives the profile's facts and their source.
#pragma once

#include <QWidget>

class QComboBox;
class QLabel;

namespace app {
class Document;
}

namespace panels {

class FormatChooser : public QWidget {
    Q_OBJECT
public:
    explicit FormatChooser(app::Document* doc, QWidget* parent = nullptr);
    QComboBox* combo() const { return m_combo; }
    /// "240 bytes per vertex (linear)" for the loaded rig, the chosen profile and the current method.
    QString bytesText() const;

private:
    void sync();
    app::Document* m_doc;
    QComboBox* m_combo;
    QLabel* m_bytes;
};

} // namespace panels
