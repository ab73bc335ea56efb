// Shows the picked vertex: its raw influences, the runtime stream, and every direction the method and the reference
// give it, with their angular errors.
#pragma once

#include <QWidget>

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
    app::Document* m_doc;
    QTextBrowser* m_view;
};

} // namespace panels
