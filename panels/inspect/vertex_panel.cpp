#include "vertex_panel.h"

#include <QTextBrowser>
#include <QVBoxLayout>

#include "app/document.h"
#include "rig/analysis/diagnosis/causes.h"
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
    connect(doc, &app::Document::displayChanged, this, &VertexPanel::refresh); // the method shown, its cause
    refresh();
}

QString VertexPanel::text() const { return m_view->toPlainText(); }

QString VertexPanel::whyText(size_t mesh, size_t v) const
{
    // Why the current method's normal is wrong here (README "Error causes"): the cause and the numbers behind it.
    const auto result = m_doc->evaluationResult();
    if (!result || result->rig != m_doc->loadedShared())
        return QString();
    const rig::Method method = m_doc->display().method;
    const rig::VertexCause c = rig::explainVertexError(result->rig->rig, result->rig->runtime, result->eval, result->candyWrapper,
                                                       method, result->settings, mesh, v);
    const QString id = QString::fromLatin1(rig::methodId(method).data(), int(rig::methodId(method).size()));
    QString why;
    switch (c.cause) {
    case rig::ErrorCause::None:
        why = c.errorDeg < 0.0f ? tr("the error is undefined here") : tr("within 5°: nothing to explain");
        break;
    case rig::ErrorCause::AuthoringBaseline:
        why = tr("<b>authoring baseline</b>: the authored normal was already %1 off at the bind pose; skinning adds at "
                 "most half the error").arg(err(c.baselineDeg));
        break;
    case rig::ErrorCause::Collapse:
        why = tr("<b>collapse</b>: linear blending keeps %1 of the neighbourhood (below 0.7), the candy wrapper; "
                 "dual-quaternion and center-of-rotation keep it").arg(double(c.scale), 0, 'f', 3);
        break;
    case rig::ErrorCause::MorphWithoutDeltas:
        why = tr("<b>morph without normal deltas</b>: a morph target moves this vertex and nothing turns its normal");
        break;
    case rig::ErrorCause::NonRigid:
        why = tr("<b>non-rigid</b>: the blended 3×3 scales or shears unevenly (σmin/σmax %1, below 0.98): what "
                 "inverse-transpose and cofactor correct").arg(double(c.isotropy), 0, 'f', 3);
        break;
    case rig::ErrorCause::WeightGradient:
        why = tr("<b>weight gradient</b>: %1 influences change across its triangles: the term jacobian adds").arg(c.influences);
        break;
    case rig::ErrorCause::Other:
        why = tr("<b>other</b>: none of the rule's causes holds");
        break;
    }
    auto scale = [](float x) { return x < 0.0f ? tr("undefined") : QString::number(double(x), 'f', 3); };
    // How far dual quaternions move it from linear blending's position, and its limb radius (dq_displacement.h).
    QString displacement = tr("undefined");
    const rig::MeshEvaluation& me = result->eval.meshes[mesh];
    const std::vector<float>& radii = result->rig->runtime.meshes[mesh].limbRadius;
    if (v < me.linear.positions.size() && v < me.dualQuaternion.positions.size() && v < radii.size()) {
        const float d = glm::length(me.dualQuaternion.positions[v] - me.linear.positions[v]);
        displacement = radii[v] > 0.0f ? tr("%1 / %2 (%3 of it)").arg(double(d), 0, 'g', 4).arg(double(radii[v]), 0, 'g', 4)
                                                .arg(double(d / radii[v]), 0, 'f', 3)
                                        : tr("%1 / none").arg(double(d), 0, 'g', 4);
    }
    return tr("<b>Why (%1)</b>: %2<table cellspacing=0 cellpadding=1>"
              "<tr><td>&nbsp;&nbsp;error / from skinning</td><td align=right>%3 / %4</td></tr>"
              "<tr><td>&nbsp;&nbsp;authored vs rebuilt at bind</td><td align=right>%5</td></tr>"
              "<tr><td>&nbsp;&nbsp;linear-blend scale / isotropy</td><td align=right>%6 / %7</td></tr>"
              "<tr><td>&nbsp;&nbsp;influences / morph without deltas</td><td align=right>%8 / %9</td></tr>"
              "<tr><td>&nbsp;&nbsp;dual-quaternion − linear / limb radius</td><td align=right>%10</td></tr></table>")
        .arg(id, why, err(c.errorDeg), err(c.skinningErrorDeg), err(c.baselineDeg), scale(c.scale), scale(c.isotropy))
        .arg(c.influences)
        .arg(c.morphWithoutDeltas ? tr("yes") : tr("no"))
        .arg(displacement);
}

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
    auto jointName = [&](uint32_t skinJoint) -> QString {
        if (!m.isSkinned())
            return tr("node");
        const rig::Skin& skin = l->rig.skins[size_t(m.skin)];
        if (skinJoint < skin.joints.size() && skin.joints[skinJoint] >= 0)
            return QString::fromStdString(l->rig.skeleton.nodes[size_t(skin.joints[skinJoint])].name).toHtmlEscaped();
        if (skinJoint == skin.joints.size())
            return tr("<i>(unbound: bind position)</i>");
        return tr("<span style='color:#c00'>joint %1 (out of range)</span>").arg(skinJoint);
    };
    QString html;
    html += tr("<b>Vertex %1</b> (mesh '%2', local %3)<br>").arg(global).arg(QString::fromStdString(m.name).toHtmlEscaped()).arg(v);
    html += tr("bind position %1<br>").arg(vec(m.positions[v]));
    if (m.isSkinned() && v + 1 < m.influenceOffsets.size()) {
        // As authored: every entry, in file order.
        html += tr("<b>Raw influences</b> (as authored)<table cellspacing=0 cellpadding=1>");
        double sum = 0.0;
        for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i) {
            const rig::Influence in = m.influences[i];
            html += QStringLiteral("<tr><td>&nbsp;&nbsp;%1</td><td align=right>%2</td></tr>")
                        .arg(jointName(in.joint))
                        .arg(double(in.weight), 0, 'g', 7);
            sum += double(in.weight);
        }
        html += tr("<tr><td>&nbsp;&nbsp;<i>sum</i></td><td align=right><i>%1</i></td></tr></table>").arg(sum, 0, 'g', 7);
        // What the runtime skins with: the K largest valid ones, normalised.
        const rig::InfluenceStream& stream = l->runtime.meshes[mesh].stream;
        const size_t k = size_t(stream.perVertex);
        html += tr("<b>Runtime</b> (%1 largest valid, normalised)<table cellspacing=0 cellpadding=1>").arg(k);
        double runtimeSum = 0.0;
        for (size_t i = 0; i < k; ++i) {
            const float w = stream.weights[v * k + i];
            if (w == 0.0f)
                continue;
            html += QStringLiteral("<tr><td>&nbsp;&nbsp;%1</td><td align=right>%2</td></tr>")
                        .arg(jointName(stream.joints[v * k + i]))
                        .arg(double(w), 0, 'g', 7);
            runtimeSum += double(w);
        }
        html += tr("<tr><td>&nbsp;&nbsp;<i>sum</i></td><td align=right><i>%1</i></td></tr></table>").arg(runtimeSum, 0, 'g', 7);
    }
    if (mesh < ev.meshes.size() && ev.has(method)) {
        const rig::MeshEvaluation& me = ev.meshes[mesh];
        const rig::MethodFrames& f = me.methods[size_t(method)];
        const rig::Surface& s = me.surfaceOf(method);
        if (v < f.normals.size() && v < s.positions.size()) {
            html += tr("<b>%1</b>%2<br>").arg(QString::fromLatin1(rig::methodId(method).data()),
                                              m_doc->evaluationCurrent() ? QString() : tr(" <i>(updating…)</i>"));
            html += tr("position %1<br>").arg(vec(s.positions[v]));
            html += tr("normal %1<br>reference %2<br>").arg(vec(f.normals[v]), vec(s.referenceNormals[v]));
            if (!f.tangents.empty())
                html += tr("tangent %1 w=%2<br>reference %3 w=%4<br>")
                            .arg(vec(glm::vec3(f.tangents[v])))
                            .arg(double(f.tangents[v].w))
                            .arg(vec(glm::vec3(s.referenceTangents[v])))
                            .arg(double(s.referenceTangents[v].w));
            else
                html += tr("no tangents (no UV0)<br>");
        }
        // Every method's errors at this vertex.
        html += tr("<b>Errors here</b><table cellspacing=0 cellpadding=1><tr><th align=left>method</th><th>normal</th>"
                   "<th>tangent</th><th>skin N</th><th>skin T</th></tr>");
        for (rig::Method mm : ev.methods) {
            const rig::MethodFrames& g = me.methods[size_t(mm)];
            if (v >= g.normalErrorDeg.size())
                continue;
            const bool current = mm == method;
            html += QStringLiteral("<tr><td>%1%2%3</td><td align=right>%4</td><td align=right>%5</td><td align=right>%6</td>"
                                   "<td align=right>%7</td></tr>")
                        .arg(current ? QStringLiteral("<b>") : QString(),
                             QString::fromLatin1(rig::methodId(mm).data(), int(rig::methodId(mm).size())),
                             current ? QStringLiteral("</b>") : QString(), err(g.normalErrorDeg[v]), err(g.tangentErrorDeg[v]),
                             err(g.skinningNormalErrorDeg[v]), err(g.skinningTangentErrorDeg[v]));
        }
        html += QStringLiteral("</table>");
        html += whyText(mesh, v);
    }
    m_view->setHtml(html);
}

} // namespace panels
