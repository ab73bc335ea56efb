#include "vertex_panel.h"

#include <QTextBrowser>
#include <QVBoxLayout>

#include "app/document.h"
#include "rig/model/math.h"

namespace panels {

namespace {

QString vec(const glm::vec3& v)
{
    if (!rig::isDefined(v) && v == glm::vec3(0.0f))
        return QStringLiteral("undefined");
    return QStringLiteral("(%1, %2, %3)").arg(v.x, 0, 'f', 4).arg(v.y, 0, 'f', 4).arg(v.z, 0, 'f', 4);
}

QString err(float e)
{
    return e < 0.0f ? QStringLiteral("undefined") : QStringLiteral("%1°").arg(double(e), 0, 'f', 3);
}

} // namespace

VertexPanel::VertexPanel(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("vertexPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_view = new QTextBrowser(this);
    layout->addWidget(m_view);
    connect(doc, &app::Document::selectionChanged, this, &VertexPanel::refresh);
    connect(doc, &app::Document::evaluationChanged, this, &VertexPanel::refresh);
    refresh();
}

QString VertexPanel::text() const { return m_view->toPlainText(); }

void VertexPanel::refresh()
{
    const app::LoadedRig* l = m_doc->loaded();
    const int global = m_doc->selectedVertex();
    if (!l || global < 0) {
        m_view->setHtml(tr("<i>Click the mesh to pick a vertex.</i>"));
        return;
    }
    // Global index -> mesh, local vertex.
    size_t mesh = 0, v = size_t(global);
    while (mesh < l->rig.meshes.size() && v >= l->rig.meshes[mesh].vertexCount())
        v -= l->rig.meshes[mesh++].vertexCount();
    if (mesh >= l->rig.meshes.size())
        return;
    const rig::Mesh& m = l->rig.meshes[mesh];
    const rig::Evaluation& ev = m_doc->evaluation();
    const rig::Method method = m_doc->display().method;
    QString html;
    html += tr("<b>Vertex %1</b> (mesh '%2', local %3)<br>").arg(global).arg(QString::fromStdString(m.name)).arg(v);
    html += tr("bind position %1<br>").arg(vec(m.positions[v]));
    if (m.isSkinned() && v + 1 < m.influenceOffsets.size()) {
        const rig::Skin& skin = l->rig.skins[size_t(m.skin)];
        html += tr("<b>Raw influences</b><br>");
        float sum = 0.0f;
        for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i) {
            const rig::Influence in = m.influences[i];
            const QString name = in.joint < skin.joints.size() && skin.joints[in.joint] >= 0
                                     ? QString::fromStdString(l->rig.skeleton.nodes[size_t(skin.joints[in.joint])].name)
                                     : tr("<span style='color:#c00'>joint %1 (out of range)</span>").arg(in.joint);
            html += QStringLiteral("&nbsp;&nbsp;%1: %2<br>").arg(name).arg(double(in.weight), 0, 'g', 6);
            sum += in.weight;
        }
        html += tr("&nbsp;&nbsp;sum %1<br>").arg(double(sum), 0, 'g', 6);
    }
    if (mesh < ev.meshes.size() && ev.has(method)) {
        const rig::MeshEvaluation& me = ev.meshes[mesh];
        const rig::MethodFrames& f = me.methods[size_t(method)];
        const rig::Surface& s = me.surfaceOf(method);
        if (v < f.normals.size() && v < s.positions.size()) {
            html += tr("<b>%1</b><br>").arg(QString::fromLatin1(rig::methodId(method).data()));
            html += tr("position %1<br>").arg(vec(s.positions[v]));
            html += tr("normal %1<br>reference %2<br>normal error %3<br>")
                        .arg(vec(f.normals[v]), vec(s.referenceNormals[v]), err(f.normalErrorDeg[v]));
            if (!f.tangents.empty())
                html += tr("tangent %1 w=%2<br>reference %3<br>tangent error %4<br>")
                            .arg(vec(glm::vec3(f.tangents[v])))
                            .arg(double(f.tangents[v].w))
                            .arg(vec(glm::vec3(s.referenceTangents[v])), err(f.tangentErrorDeg[v]));
            else
                html += tr("no tangents (no UV0)<br>");
        }
    }
    m_view->setHtml(html);
}

} // namespace panels
