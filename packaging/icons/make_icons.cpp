// rigscope-make-icons OUTDIR: draws RigScope's icon — a bent limb (two bones, the elbow joint) in a heat-coloured skin
// with gold normal lines — from one set of shapes into OUTDIR/rigscope.svg and OUTDIR/rigscope-<N>.png (N = 16 … 512),
// the files committed in resources/icons. Run it after changing the shapes below.
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QLinearGradient>
#include <QPainter>
#include <QPainterPath>

#include <cstdio>

namespace {

// The design, on a 256 × 256 canvas.
const QPointF kBones[] = {{52, 206}, {112, 122}, {196, 70}};
const qreal kJointRadius[] = {14, 16, 14};
const QLineF kNormals[] = {{68, 150, 46, 134}, {98, 110, 78, 90}, {136, 84, 124, 58}, {170, 62, 160, 36}};
const char* kBackground = "#23262e";
const char* kHeat[] = {"#2fb344", "#f2c624", "#e2412b"};
const char* kGold = "#ffc71f";
const char* kBone = "#d9e6ff";

QString svg()
{
    QString bones;
    for (const QPointF& p : kBones)
        bones += QStringLiteral("%1 %2 %3 ").arg(bones.isEmpty() ? "M" : "L").arg(p.x()).arg(p.y());
    QString s = QStringLiteral(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<!-- RigScope's icon (packaging/icons/make_icons.cpp draws it). -->\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"256\" height=\"256\" viewBox=\"0 0 256 256\">\n"
        "  <defs><linearGradient id=\"heat\" x1=\"0\" y1=\"1\" x2=\"1\" y2=\"0\">"
        "<stop offset=\"0\" stop-color=\"%1\"/><stop offset=\"0.55\" stop-color=\"%2\"/><stop offset=\"1\" stop-color=\"%3\"/>"
        "</linearGradient></defs>\n"
        "  <rect x=\"8\" y=\"8\" width=\"240\" height=\"240\" rx=\"44\" fill=\"%4\"/>\n"
        "  <path d=\"%5\" fill=\"none\" stroke=\"url(#heat)\" stroke-width=\"58\" stroke-linecap=\"round\" stroke-linejoin=\"round\"/>\n")
                    .arg(kHeat[0], kHeat[1], kHeat[2], kBackground, bones.trimmed());
    s += QStringLiteral("  <g stroke=\"%1\" stroke-width=\"7\" stroke-linecap=\"round\">\n").arg(kGold);
    for (const QLineF& l : kNormals)
        s += QStringLiteral("    <line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%4\"/>\n").arg(l.x1()).arg(l.y1()).arg(l.x2()).arg(l.y2());
    s += QStringLiteral("  </g>\n  <path d=\"%1\" fill=\"none\" stroke=\"%2\" stroke-width=\"10\" stroke-linecap=\"round\" "
                        "stroke-linejoin=\"round\"/>\n  <g fill=\"%2\" stroke=\"%3\" stroke-width=\"5\">\n")
             .arg(bones.trimmed(), kBone, kBackground);
    for (int i = 0; i < 3; ++i)
        s += QStringLiteral("    <circle cx=\"%1\" cy=\"%2\" r=\"%3\"/>\n").arg(kBones[i].x()).arg(kBones[i].y()).arg(kJointRadius[i]);
    s += QStringLiteral("  </g>\n</svg>\n");
    return s;
}

QImage png(int size)
{
    QImage img(size, size, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::transparent);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    p.scale(size / 256.0, size / 256.0);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(kBackground));
    p.drawRoundedRect(QRectF(8, 8, 240, 240), 44, 44);
    QPainterPath limb(kBones[0]);
    limb.lineTo(kBones[1]);
    limb.lineTo(kBones[2]);
    QLinearGradient heat(QPointF(8, 248), QPointF(248, 8));
    heat.setColorAt(0.0, QColor(kHeat[0]));
    heat.setColorAt(0.55, QColor(kHeat[1]));
    heat.setColorAt(1.0, QColor(kHeat[2]));
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QBrush(heat), 58, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p.drawPath(limb);
    p.setPen(QPen(QColor(kGold), 7, Qt::SolidLine, Qt::RoundCap));
    for (const QLineF& l : kNormals)
        p.drawLine(l);
    p.setPen(QPen(QColor(kBone), 10, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p.drawPath(limb);
    p.setPen(QPen(QColor(kBackground), 5));
    p.setBrush(QColor(kBone));
    for (int i = 0; i < 3; ++i)
        p.drawEllipse(kBones[i], kJointRadius[i], kJointRadius[i]);
    p.end();
    return img;
}

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: rigscope-make-icons OUTDIR\n");
        return 2;
    }
    const QDir out(QString::fromLocal8Bit(argv[1]));
    if (!out.exists() && !QDir().mkpath(out.path())) {
        std::fprintf(stderr, "rigscope-make-icons: cannot create %s\n", argv[1]);
        return 2;
    }
    QFile f(out.filePath(QStringLiteral("rigscope.svg")));
    if (!f.open(QIODevice::WriteOnly) || f.write(svg().toUtf8()) < 0)
        return 2;
    for (int size : {16, 24, 32, 48, 64, 128, 256, 512})
        if (!png(size).save(out.filePath(QStringLiteral("rigscope-%1.png").arg(size))))
            return 2;
    return 0;
}
