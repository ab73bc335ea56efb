// Shows the picked vertex: its raw influences, the runtime stream, and every direction the method and the reference
// give it, with their angular errors, and why the current method's normal is wrong there (its error cause, with the
// numbers the rule chose it from).
#pragma once

#include <QWidget>

#include <cstddef>

class QTextBrowser;

namespace app {
class Document;
}

namespace panels {

class VertexPanel : public QWidget {
    Q_OBJECT
public:
    explicit VertexPanel(app::Document* doc, QWidget* parent = nullptr);
    QString text() const;

private:
    void refresh();
    QString whyText(size_t mesh, size_t vertex) const;
    app::Document* m_doc;
    QTextBrowser* m_view;
};

} // namespace panels
