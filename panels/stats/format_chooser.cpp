#include "format_chooser.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>

#include "app/document.h"
#include "rig/analysis/format_difference.h"
#include "rig/deform/engine_profiles.h"

namespace panels {

namespace {
QString text(std::string_view s) { return QString::fromUtf8(s.data(), int(s.size())); }
} // namespace

FormatChooser::FormatChooser(app::Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc)
{
    setObjectName(QStringLiteral("formatChooser"));
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    auto* label = new QLabel(tr("Format:"), this);
    m_combo = new QComboBox(this);
    m_combo->setObjectName(QStringLiteral("formatBox"));
    m_combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_combo->setMinimumContentsLength(16);
    for (const rig::EngineProfile& p : rig::engineProfiles()) {
        m_combo->addItem(text(p.label),
                         text(p.id));
        m_combo->setItemData(m_combo->count() - 1,
                             tr("%1: %2 influences, %3 weights. %4.\nSource: %5")
                                 .arg(text(p.id))
                                 .arg(p.format.influences)
                                 .arg(text(rig::weightEncodingId(p.format.weights)))
                                 .arg(text(p.facts))
                                 .arg(text(p.source)),
                             Qt::ToolTipRole);
    }
    m_combo->setToolTip(tr("What every method skins with: an engine's influence limit and weight encoding, applied to "
                           "the runtime stream (the audit reads the raw weights either way). Shading ▸ Format "
                           "Difference shows what it changes against float weights at 8 influences."));
    label->setBuddy(m_combo);
    m_bytes = new QLabel(this);
    m_bytes->setObjectName(QStringLiteral("formatBytes"));
    m_bytes->setToolTip(tr("Bytes the current method's skinning pass reads per vertex with this format: attributes, "
                           "weights, indices and the palette entries it gathers (README \"Runtime formats\")"));
    row->addWidget(label);
    row->addWidget(m_combo);
    row->addWidget(m_bytes);
    connect(m_combo, &QComboBox::activated, this, [this](int i) {
        const rig::EngineProfile* p = rig::findEngineProfile(m_combo->itemData(i).toString().toStdString());
        if (!p)
            return; // "Custom": nothing to set
        app::DisplaySettings d = m_doc->display();
        d.format = p->format;
        d.profile = std::string(p->id);
        m_doc->setDisplay(d);
    });
    connect(doc, &app::Document::displayChanged, this, &FormatChooser::sync);
    connect(doc, &app::Document::rigChanged, this, &FormatChooser::sync);
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed); // a toolbar item: as wide as its longest label
    sync();
}

QString FormatChooser::bytesText() const
{
    const app::LoadedRig* loaded = m_doc->loaded();
    if (!loaded)
        return QString();
    const app::DisplaySettings& d = m_doc->display();
    const rig::EngineProfile* found = rig::findEngineProfile(d.profile);
    const rig::EngineProfile p = found && found->format == d.format ? *found : rig::customProfile(d.format);
    const double bytes = rig::bytesPerVertex(p, d.method, rig::vertexStreamShape(loaded->rig, loaded->runtime));
    return tr("%1 B/vertex").arg(bytes, 0, 'f', 0);
}

void FormatChooser::sync()
{
    const app::DisplaySettings& d = m_doc->display();
    int at = m_combo->findData(QString::fromStdString(d.profile));
    const rig::EngineProfile* p = rig::findEngineProfile(d.profile);
    if (at < 0 || !p || !(p->format == d.format)) {
        // Set by hand (the command line's --influences, a test): shown as Custom.
        at = m_combo->findData(QStringLiteral("custom"));
        if (at < 0) {
            m_combo->addItem(tr("Custom"), QStringLiteral("custom"));
            at = m_combo->count() - 1;
        }
        m_combo->setItemText(at, tr("Custom: %1 × %2")
                                     .arg(d.format.influences)
                                     .arg(text(rig::weightEncodingId(d.format.weights))));
    }
    m_combo->setCurrentIndex(at);
    m_bytes->setText(bytesText());
}

} // namespace panels
