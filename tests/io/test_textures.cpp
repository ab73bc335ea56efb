// Base colour textures: what the importer collects (embedded, external through the asset root), what the worker's
// decoders make of them (against QImage's own decoders, a separate code path), and every way an image can be bad —
// damaged, truncated, oversized, of another format, missing, outside the root — becoming a note, never a crash, with
// the material's factor kept.
#include <QBuffer>
#include <QImage>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <cmath>

#include "gltf_files.h"
#include "rig/io/import.h"
#include "rig/io/worker/rig_serialize.h"
#include "rig/model/structure.h"
#include "testutil.h"
#include "worker/decode_image.h"

using testgltf::Builder;

namespace {

/// The encoded bytes of a file's images as this process's importer collects them (no worker: not decoded).
rig::Rig importUndecoded(const std::string& path)
{
    rig::ImportOptions o;
    o.isolate = false;
    auto r = rig::importFile(path, o);
    if (!r.ok())
        qFatal("%s", r.error().c_str());
    return std::move(r.value());
}

/// QImage's decode of `bytes`, as RGBA8888.
QImage qtDecode(const std::vector<uint8_t>& bytes)
{
    QImage img;
    img.loadFromData(bytes.data(), int(bytes.size()));
    return img.convertToFormat(QImage::Format_RGBA8888);
}

struct PixelDiff {
    int max = 0;
    double mean = 0.0;
};

PixelDiff compare(const rig::Image& im, const QImage& q)
{
    PixelDiff d;
    double sum = 0.0;
    for (int y = 0; y < q.height(); ++y) {
        const uchar* row = q.constScanLine(y);
        for (int x = 0; x < q.width() * 4; ++x) {
            const int e = std::abs(int(row[x]) - int(im.rgba[size_t(y) * im.width * 4 + size_t(x)]));
            d.max = std::max(d.max, e);
            sum += e;
        }
    }
    d.mean = sum / (double(q.width()) * q.height() * 4);
    return d;
}

QByteArray pngBytes(const QImage& img)
{
    QByteArray out;
    QBuffer buf(&out);
    buf.open(QIODevice::WriteOnly);
    img.save(&buf, "PNG");
    return out;
}

uint32_t crc32(const uint8_t* p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int k = 0; k < 8; ++k)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/// A PNG signature, an IHDR chunk declaring width x height RGBA8 and an empty IDAT chunk (valid CRCs): a header a
/// decoder accepts, with no pixel data.
std::vector<uint8_t> pngHeaderOnly(uint32_t width, uint32_t height)
{
    std::vector<uint8_t> v = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    auto be32 = [&v](uint32_t x) {
        for (int s = 24; s >= 0; s -= 8)
            v.push_back(uint8_t(x >> s));
    };
    be32(width);
    be32(height);
    v.insert(v.end(), {8, 6, 0, 0, 0});
    be32(crc32(v.data() + 12, 17));
    be32(0);
    const size_t idat = v.size();
    v.insert(v.end(), {'I', 'D', 'A', 'T'});
    be32(crc32(v.data() + idat, 4));
    return v;
}

QJsonObject texturedMaterial(QJsonArray factor = {})
{
    QJsonObject pbr{{"baseColorTexture", QJsonObject{{"index", 0}}}};
    if (!factor.isEmpty())
        pbr["baseColorFactor"] = factor;
    return QJsonObject{{"name", "skin"}, {"pbrMetallicRoughness", pbr}};
}

bool hasNote(const rig::Rig& r, const std::string& part)
{
    for (const rig::ImportNote& n : r.notes)
        if (n.message.find(part) != std::string::npos)
            return true;
    return false;
}

std::string notes(const rig::Rig& r)
{
    std::string s;
    for (const rig::ImportNote& n : r.notes)
        s += n.message + "\n";
    return s;
}

} // namespace

class TestTextures : public QObject {
    Q_OBJECT
private slots:
    void cesiumManJpegDecodesAsQImageDoes();
    void foxPngDecodesExactlyAsQImageDoes();
    void truncatedImagesFailWithoutReadingPastTheirEnd();
    void oversizedImageIsRefusedFromItsHeader();
    void imagesBeyondTheBudgetAreRefused();
    void otherFormatsAreNamedNotGuessed();
    void damagedEmbeddedTextureIsANoteAndTheFactorStays();
    void externalTextureIsReadThroughTheAssetRoot();
    void textureOutsideTheAssetRootOrMissingIsANote();
    void aReplyWhosePixelsDisagreeWithItsSizeIsRefused();
};

void TestTextures::cesiumManJpegDecodesAsQImageDoes()
{
    REQUIRE_ASSETS();
    const std::string path = testutil::assetPath("CesiumMan/cesium_man.gltf");
    const rig::Rig local = importUndecoded(path);
    QCOMPARE(local.images.size(), size_t(1));
    QVERIFY(!local.images[0].encoded.empty());
    QCOMPARE(local.images[0].formatHint, std::string("jpg"));
    const QImage expected = qtDecode(local.images[0].encoded);
    QCOMPARE(expected.size(), QSize(1024, 1024));

    auto viaWorker = rig::importFile(path);
    QVERIFY2(viaWorker.ok(), viaWorker.ok() ? "" : viaWorker.error().c_str());
    const rig::Rig& r = viaWorker.value();
    QCOMPARE(r.images.size(), size_t(1));
    const rig::Image& im = r.images[0];
    QVERIFY(im.decoded());
    QVERIFY(im.encoded.empty()); // pixels only reach this process
    QCOMPARE(int(im.width), 1024);
    QCOMPARE(int(im.height), 1024);
    // The same libjpeg-turbo behind both, with possibly different IDCT / upsampling choices: within a few levels.
    const PixelDiff d = compare(im, expected);
    qInfo("CesiumMan: max %d, mean %.4f levels from QImage", d.max, d.mean);
    QVERIFY2(d.max <= 2 && d.mean < 0.1, qPrintable(QStringLiteral("max %1 mean %2").arg(d.max).arg(d.mean)));
    // The mesh uses it, with glTF's default factor (the file gives none), UV origin at the image's top left.
    QCOMPARE(r.meshes[0].baseColorImage, 0);
    QCOMPARE(r.meshes[0].baseColor, glm::vec4(1.0f));
    QVERIFY(r.meshes[0].uvOriginTopLeft);
}

void TestTextures::foxPngDecodesExactlyAsQImageDoes()
{
    REQUIRE_ASSETS();
    const std::string path = testutil::assetPath("Fox/Fox.glb");
    const rig::Rig local = importUndecoded(path);
    QCOMPARE(local.images.size(), size_t(1));
    QCOMPARE(local.images[0].formatHint, std::string("png"));
    const QImage expected = qtDecode(local.images[0].encoded);
    auto viaWorker = rig::importFile(path);
    QVERIFY(viaWorker.ok());
    const rig::Image& im = viaWorker.value().images[0];
    QCOMPARE(QSize(int(im.width), int(im.height)), expected.size());
    const PixelDiff d = compare(im, expected);
    QCOMPARE(d.max, 0); // PNG is lossless: every byte the same
}

void TestTextures::truncatedImagesFailWithoutReadingPastTheirEnd()
{
    REQUIRE_ASSETS();
    // Every prefix is copied into a buffer of exactly its size, so that a read past its end is a heap overflow the
    // sanitizer build reports.
    const rig::Rig fox = importUndecoded(testutil::assetPath("Fox/Fox.glb"));
    const rig::Rig cesium = importUndecoded(testutil::assetPath("CesiumMan/cesium_man.gltf"));
    const std::vector<uint8_t>& png = fox.images[0].encoded;
    const std::vector<uint8_t>& jpg = cesium.images[0].encoded;
    auto prefixes = [](size_t size) {
        std::vector<size_t> at;
        for (size_t n = 0; n < std::min<size_t>(size, 400); ++n)
            at.push_back(n);
        for (size_t n = 400; n < size; n += 1531)
            at.push_back(n);
        return at;
    };
    uint32_t w = 0, h = 0;
    std::vector<uint8_t> out;
    for (size_t n : prefixes(png.size())) {
        std::vector<uint8_t> cut(png.begin(), png.begin() + ptrdiff_t(n));
        const auto r = rig::worker::decodeImage(cut.data(), cut.size(), size_t(64) << 20, w, h, out);
        QVERIFY2(!r.ok(), qPrintable(QStringLiteral("a PNG cut at %1 of %2 bytes decoded").arg(n).arg(png.size())));
        QVERIFY(out.empty() && w == 0 && h == 0);
    }
    // libjpeg fills a JPEG cut inside its scans with grey (with a warning): such a prefix decodes at full size; one
    // cut in its headers fails.
    int failed = 0, decoded = 0;
    for (size_t n : prefixes(jpg.size())) {
        std::vector<uint8_t> cut(jpg.begin(), jpg.begin() + ptrdiff_t(n));
        const auto r = rig::worker::decodeImage(cut.data(), cut.size(), size_t(64) << 20, w, h, out);
        if (r.ok()) {
            QCOMPARE(int(w), 1024);
            QCOMPARE(out.size(), size_t(1024) * 1024 * 4);
            ++decoded;
        } else {
            QVERIFY2(r.error().rfind("damaged JPEG (", 0) == 0 || r.error().rfind("not a PNG or JPEG", 0) == 0,
                     r.error().c_str());
            ++failed;
        }
    }
    QVERIFY(failed >= 400); // every cut in the first 400 bytes (headers, the EXIF and ICC blocks)
    QVERIFY(decoded > 0);
}

void TestTextures::oversizedImageIsRefusedFromItsHeader()
{
    uint32_t w = 0, h = 0;
    std::vector<uint8_t> out;
    const std::vector<uint8_t> huge = pngHeaderOnly(20000, 16);
    const auto r = rig::worker::decodeImage(huge.data(), huge.size(), size_t(1) << 40, w, h, out);
    QVERIFY(!r.ok());
    QVERIFY2(r.error() == "it is 20000 x 16, over the limit of 16384 pixels a side", r.error().c_str());
    QVERIFY(out.empty());
    // At the limit the header is accepted and the missing pixel data is what fails.
    const std::vector<uint8_t> edge = pngHeaderOnly(16384, 1);
    const auto e = rig::worker::decodeImage(edge.data(), edge.size(), size_t(1) << 40, w, h, out);
    QVERIFY(!e.ok());
    QVERIFY2(e.error().rfind("damaged PNG (", 0) == 0, e.error().c_str());
}

void TestTextures::imagesBeyondTheBudgetAreRefused()
{
    REQUIRE_ASSETS();
    // Two 1024 x 1024 textures (4 MiB of pixels each) under a 6 MiB budget: the first decodes, the second is refused
    // with a note, and the rig still loads.
    rig::Rig fox = importUndecoded(testutil::assetPath("Fox/Fox.glb"));
    fox.images.push_back(fox.images[0]);
    fox.images[1].name = "second";
    rig::worker::decodeImages(fox, size_t(6) << 20);
    QVERIFY(fox.images[0].decoded());
    QVERIFY(!fox.images[1].decoded());
    QVERIFY(fox.images[1].encoded.empty() && fox.images[1].rgba.empty() && fox.images[1].width == 0);
    QVERIFY2(hasNote(fox, "base colour texture 'second': its 1024 x 1024 pixels exceed what is left of the texture "
                          "budget (2 MiB); the lit view shows the base colour factor alone"),
             notes(fox).c_str());
}

void TestTextures::otherFormatsAreNamedNotGuessed()
{
    uint32_t w = 0, h = 0;
    std::vector<uint8_t> out;
    const std::string gif = "GIF89a\x01\x00\x01\x00";
    const auto r = rig::worker::decodeImage(reinterpret_cast<const uint8_t*>(gif.data()), gif.size(), 1 << 20, w, h, out);
    QVERIFY(!r.ok());
    QCOMPARE(r.error(), std::string("not a PNG or JPEG file (RigScope decodes those two, the formats glTF allows)"));
}

void TestTextures::damagedEmbeddedTextureIsANoteAndTheFactorStays()
{
    // A PNG signature followed by junk, in the GLB's binary chunk, used by a material with a factor.
    Builder b;
    QByteArray junk("\x89PNG\r\n\x1a\n", 8);
    junk.append(QByteArray(64, 'x'));
    QJsonObject root = testgltf::texturedQuad(b, texturedMaterial(QJsonArray{0.5, 0.25, 1.0, 1.0}));
    const int view = b.view(junk);
    root["images"] = QJsonArray{QJsonObject{{"bufferView", view}, {"mimeType", "image/png"}}};
    root["textures"] = QJsonArray{QJsonObject{{"source", 0}}};
    b.root = root;
    const QByteArray glb = b.glb();
    auto r = rig::importMemory(glb.constData(), size_t(glb.size()), "glb", "damaged.glb");
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
    const rig::Rig& rig = r.value();
    QCOMPARE(rig.images.size(), size_t(1));
    QVERIFY(!rig.images[0].decoded());
    QCOMPARE(rig.meshes[0].baseColor, glm::vec4(0.5f, 0.25f, 1.0f, 1.0f));
    QVERIFY2(hasNote(rig, "base colour texture 'embedded image 0': damaged PNG ("), notes(rig).c_str());
    QVERIFY2(hasNote(rig, "the lit view shows the base colour factor alone"), notes(rig).c_str());
}

void TestTextures::externalTextureIsReadThroughTheAssetRoot()
{
    // A .gltf beside a 2 x 2 PNG (red, green / blue, white): the pixels come back as written, top row first.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QImage tex(2, 2, QImage::Format_RGBA8888);
    tex.setPixelColor(0, 0, QColor(255, 0, 0));
    tex.setPixelColor(1, 0, QColor(0, 255, 0));
    tex.setPixelColor(0, 1, QColor(0, 0, 255));
    tex.setPixelColor(1, 1, QColor(255, 255, 255));
    QVERIFY(tex.save(dir.filePath("skin texture.png")));
    Builder b;
    QJsonObject root = testgltf::texturedQuad(b, texturedMaterial());
    root["images"] = QJsonArray{QJsonObject{{"uri", "skin%20texture.png"}}};
    root["textures"] = QJsonArray{QJsonObject{{"source", 0}}};
    QFile f(dir.filePath("quad.gltf"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(b.gltf(root));
    f.close();
    auto r = rig::importFile(dir.filePath("quad.gltf").toStdString());
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
    const rig::Rig& rig = r.value();
    QCOMPARE(rig.images.size(), size_t(1));
    const rig::Image& im = rig.images[0];
    QVERIFY2(im.decoded(), notes(rig).c_str());
    QCOMPARE(int(im.width), 2);
    const std::vector<uint8_t> expected = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255};
    QCOMPARE(im.rgba, expected);
    QCOMPARE(rig.meshes[0].baseColorImage, 0);
}

void TestTextures::textureOutsideTheAssetRootOrMissingIsANote()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkdir("model"));
    QImage tex(2, 2, QImage::Format_RGBA8888);
    tex.fill(Qt::red);
    QVERIFY(tex.save(dir.filePath("outside.png")));
    for (const char* uri : {"../outside.png", "missing.png"}) {
        Builder b;
        QJsonObject root = testgltf::texturedQuad(b, texturedMaterial(QJsonArray{0.2, 0.4, 0.6, 1.0}));
        root["images"] = QJsonArray{QJsonObject{{"uri", uri}}};
        root["textures"] = QJsonArray{QJsonObject{{"source", 0}}};
        const QString path = dir.filePath("model/quad.gltf");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(b.gltf(root));
        f.close();
        auto r = rig::importFile(path.toStdString()); // the root: the model's folder
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().c_str());
        const rig::Rig& rig = r.value();
        QVERIFY(rig.images.empty());
        QCOMPARE(rig.meshes[0].baseColorImage, -1);
        QCOMPARE(rig.meshes[0].baseColor, glm::vec4(0.2f, 0.4f, 0.6f, 1.0f));
        const std::string expected = std::string(uri) == "missing.png"
                                         ? "material 'skin': base colour texture 'missing.png' was not found beside the model"
                                         : "material 'skin': base colour texture '../outside.png' lies outside the asset root";
        QVERIFY2(hasNote(rig, expected), notes(rig).c_str());
    }
}

void TestTextures::aReplyWhosePixelsDisagreeWithItsSizeIsRefused()
{
    // The application checks what a worker sends: pixels that do not fill width x height x 4, a side over the limit,
    // or a mesh naming an image that is not there, fail the import instead of reaching the GPU upload.
    rig::Rig base = testutil::sample("elbow");
    rig::Image im;
    im.name = "t";
    im.width = 4;
    im.height = 4;
    im.rgba.assign(4 * 4 * 4, 255);
    base.images.push_back(im);
    base.meshes[0].baseColorImage = 0;
    std::string bytes;
    rig::serializeRig(base, bytes);
    QVERIFY(rig::deserializeRig(bytes).ok());

    rig::Rig shortPixels = base;
    shortPixels.images[0].rgba.pop_back();
    bytes.clear();
    rig::serializeRig(shortPixels, bytes);
    auto r = rig::deserializeRig(bytes);
    QVERIFY(!r.ok());
    QCOMPARE(r.error(), std::string("serialized rig breaks an invariant: image 0: its size and its pixels disagree or exceed "
                                    "the limit"));

    rig::Rig tooWide = base;
    tooWide.images[0].width = rig::kMaxImageSide + 1;
    tooWide.images[0].height = 1;
    tooWide.images[0].rgba.assign(size_t(rig::kMaxImageSide + 1) * 4, 0);
    bytes.clear();
    rig::serializeRig(tooWide, bytes);
    QVERIFY(!rig::deserializeRig(bytes).ok());

    rig::Rig dangling = base;
    dangling.meshes[0].baseColorImage = 1;
    bytes.clear();
    rig::serializeRig(dangling, bytes);
    r = rig::deserializeRig(bytes);
    QVERIFY(!r.ok());
    QVERIFY2(r.error().find("base colour image out of range") != std::string::npos, r.error().c_str());
}

QTEST_GUILESS_MAIN(TestTextures)
#include "test_textures.moc"
