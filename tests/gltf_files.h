// glTF files for the tests, written and read here with Qt's JSON, independently of RigScope's own reader:
// - Builder writes hand-made cases (one buffer, as a base64 data URI in .gltf or the BIN chunk of .glb), every part
//   reachable for editing before it is written;
// - File reads accessors of any glTF/GLB (data URIs or external .bin) as doubles, for ground truth.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

namespace testgltf {

constexpr int kFloat = 5126, kUbyte = 5121, kUshort = 5123, kUint = 5125;

inline int componentsOf(const QString& type)
{
    static const std::map<QString, int> n{{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT4", 16}};
    auto it = n.find(type);
    return it == n.end() ? 0 : it->second;
}

template <typename T>
QByteArray bytesOf(const std::vector<T>& v)
{
    return QByteArray(reinterpret_cast<const char*>(v.data()), qsizetype(v.size() * sizeof(T)));
}

class Builder {
public:
    /// The document's other members (scene, nodes, meshes, skins, animations...); asset, buffers, bufferViews and
    /// accessors are written from the fields below.
    QJsonObject root;
    QByteArray bin;
    QJsonArray views, accessors;
    int declaredLength = -1; ///< the buffer's byteLength as written; -1: the real length

    template <typename T>
    static QByteArray bytesOf(const std::vector<T>& v)
    {
        return testgltf::bytesOf(v);
    }

    /// A buffer view over `data` (appended at a 4-byte boundary); returns its index.
    int view(const QByteArray& data)
    {
        while (bin.size() % 4)
            bin.append('\0');
        views.append(QJsonObject{{"buffer", 0}, {"byteOffset", int(bin.size())}, {"byteLength", int(data.size())}});
        bin.append(data);
        return int(views.size() - 1);
    }
    /// An accessor over a new view of `data`; `extra` adds members (normalized, min, max, sparse...).
    int accessor(const QByteArray& data, int componentType, const char* type, int count, QJsonObject extra = {})
    {
        extra["bufferView"] = view(data);
        extra["componentType"] = componentType;
        extra["count"] = count;
        extra["type"] = type;
        accessors.append(extra);
        return int(accessors.size() - 1);
    }
    /// A FLOAT accessor; with minMax, the per-component min/max that POSITION needs.
    int floats(const std::vector<float>& v, const char* type, bool minMax = false)
    {
        const int comps = componentsOf(type);
        QJsonObject extra;
        if (minMax) {
            QJsonArray mn, mx;
            for (int c = 0; c < comps; ++c) {
                float lo = std::numeric_limits<float>::max(), hi = -lo;
                for (size_t i = size_t(c); i < v.size(); i += size_t(comps))
                    lo = std::min(lo, v[i]), hi = std::max(hi, v[i]);
                mn.append(lo);
                mx.append(hi);
            }
            extra["min"] = mn;
            extra["max"] = mx;
        }
        return accessor(bytesOf(v), kFloat, type, int(v.size()) / comps, extra);
    }
    int u16(const std::vector<uint16_t>& v, const char* type)
    {
        return accessor(bytesOf(v), kUshort, type, int(v.size()) / componentsOf(type));
    }
    int u32(const std::vector<uint32_t>& v, const char* type)
    {
        return accessor(bytesOf(v), kUint, type, int(v.size()) / componentsOf(type));
    }

    /// Replaces (or, with an undefined value, removes) member `key` of element i of one of the arrays.
    static void set(QJsonArray& array, int i, const char* key, const QJsonValue& value)
    {
        QJsonObject o = array[i].toObject();
        if (value.isUndefined())
            o.remove(key);
        else
            o[key] = value;
        array[i] = o;
    }

    QJsonObject document(bool glb) const
    {
        QJsonObject r = root;
        r["asset"] = QJsonObject{{"version", "2.0"}};
        QJsonObject buffer{{"byteLength", declaredLength >= 0 ? declaredLength : int(bin.size())}};
        if (!glb)
            buffer["uri"] = QString("data:application/octet-stream;base64,") + QString::fromLatin1(bin.toBase64());
        r["buffers"] = QJsonArray{buffer};
        r["bufferViews"] = views;
        r["accessors"] = accessors;
        return r;
    }
    QByteArray gltf() const { return QJsonDocument(document(false)).toJson(QJsonDocument::Compact); }
    /// `root` replaced by `r`, then gltf().
    QByteArray gltf(const QJsonObject& r)
    {
        root = r;
        return gltf();
    }
    QByteArray glb() const
    {
        QByteArray json = QJsonDocument(document(true)).toJson(QJsonDocument::Compact);
        while (json.size() % 4)
            json.append(' ');
        QByteArray body = bin;
        while (body.size() % 4)
            body.append('\0');
        QByteArray out;
        auto u32le = [&out](uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
        out.append("glTF", 4);
        u32le(2);
        u32le(uint32_t(12 + 8 + json.size() + 8 + body.size()));
        u32le(uint32_t(json.size()));
        u32le(0x4E4F534Au); // JSON
        out.append(json);
        u32le(uint32_t(body.size()));
        u32le(0x004E4942u); // BIN
        out.append(body);
        return out;
    }
};

/// A document with one quad in z = 0 (x, y in [-1, 1], normals +z) whose UV0 puts (0, 0) at its top-left corner
/// (glTF's convention: the image's first row at y = 1), drawn with material 0 = `material`; the caller adds images
/// and textures.
inline QJsonObject texturedQuad(Builder& b, const QJsonObject& material)
{
    const int pos = b.floats({-1, 1, 0, 1, 1, 0, 1, -1, 0, -1, -1, 0}, "VEC3", true);
    const int nrm = b.floats({0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3");
    const int uv = b.floats({0, 0, 1, 0, 1, 1, 0, 1}, "VEC2");
    const int idx = b.u16({0, 2, 1, 0, 3, 2}, "SCALAR");
    QJsonObject root;
    root["scene"] = 0;
    root["scenes"] = QJsonArray{QJsonObject{{"nodes", QJsonArray{0}}}};
    root["nodes"] = QJsonArray{QJsonObject{{"name", "quad"}, {"mesh", 0}}};
    root["meshes"] = QJsonArray{QJsonObject{
        {"name", "quad"},
        {"primitives", QJsonArray{QJsonObject{{"attributes", QJsonObject{{"POSITION", pos}, {"NORMAL", nrm}, {"TEXCOORD_0", uv}}},
                                              {"indices", idx},
                                              {"material", 0}}}}}};
    root["materials"] = QJsonArray{material};
    return root;
}

/// The broken corpus's strip (tests/data/broken/make_broken.py): 8 vertices in two rows of four, joints root and tip
/// (1.5 along x), JOINTS_0 as bytes and WEIGHTS_0 as floats from `d`.
struct StripData {
    std::vector<uint8_t> joints;  // 8 x 4
    std::vector<float> weights;   // 8 x 4
};

inline StripData cleanStrip()
{
    StripData d;
    for (int v = 0; v < 8; ++v) {
        const bool tip = (v % 4) >= 2;
        d.joints.insert(d.joints.end(), {uint8_t(tip ? 1 : 0), 0, 0, 0});
        d.weights.insert(d.weights.end(), {1.0f, 0.0f, 0.0f, 0.0f});
    }
    return d;
}

/// Accessors: 0 POSITION, 1 NORMAL, 2 indices, 3 inverse binds, then JOINTS_0, WEIGHTS_0 (4, 5) unless told not to.
inline Builder strip(const StripData& d, bool skinAttributes = true)
{
    Builder g;
    std::vector<float> pos, nrm;
    for (int v = 0; v < 8; ++v) {
        pos.insert(pos.end(), {float(v % 4), float(v / 4), 0.0f});
        nrm.insert(nrm.end(), {0.0f, 0.0f, 1.0f});
    }
    std::vector<uint16_t> idx;
    for (uint16_t c = 0; c < 3; ++c)
        idx.insert(idx.end(), {c, uint16_t(c + 1), uint16_t(c + 5), c, uint16_t(c + 5), uint16_t(c + 4)});
    const std::vector<float> ibm = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                    1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1.5f, 0, 0, 1};
    const int p = g.accessor(Builder::bytesOf(pos), kFloat, "VEC3", 8,
                             QJsonObject{{"min", QJsonArray{0, 0, 0}}, {"max", QJsonArray{3, 1, 0}}});
    const int n = g.accessor(Builder::bytesOf(nrm), kFloat, "VEC3", 8);
    const int i = g.accessor(Builder::bytesOf(idx), kUshort, "SCALAR", int(idx.size()));
    const int m = g.accessor(Builder::bytesOf(ibm), kFloat, "MAT4", 2);
    QJsonObject attributes{{"POSITION", p}, {"NORMAL", n}};
    if (skinAttributes) {
        attributes["JOINTS_0"] = g.accessor(Builder::bytesOf(d.joints), kUbyte, "VEC4", 8);
        attributes["WEIGHTS_0"] = g.accessor(Builder::bytesOf(d.weights), kFloat, "VEC4", 8);
    }
    g.root["scene"] = 0;
    g.root["scenes"] = QJsonArray{QJsonObject{{"nodes", QJsonArray{0, 1}}}};
    g.root["nodes"] = QJsonArray{QJsonObject{{"name", "strip"}, {"mesh", 0}, {"skin", 0}},
                                 QJsonObject{{"name", "root"}, {"children", QJsonArray{2}}},
                                 QJsonObject{{"name", "tip"}, {"translation", QJsonArray{1.5, 0, 0}}}};
    g.root["meshes"] = QJsonArray{QJsonObject{
        {"name", "strip"}, {"primitives", QJsonArray{QJsonObject{{"attributes", attributes}, {"indices", i}, {"mode", 4}}}}}};
    g.root["skins"] = QJsonArray{QJsonObject{{"joints", QJsonArray{1, 2}}, {"inverseBindMatrices", m}}};
    return g;
}

/// A minimal glTF 2.0 accessor reader (JSON or GLB; data URIs or external .bin), no sparse support.
class File {
public:
    bool load(const QString& path)
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return false;
        return loadBytes(f.readAll(), QFileInfo(path).absolutePath());
    }
    /// `dir`: where external buffers are looked for.
    bool loadBytes(const QByteArray& bytes, const QString& dir = QString())
    {
        QByteArray jsonBytes;
        if (bytes.startsWith("glTF")) {
            auto u32 = [&](qsizetype at) {
                uint32_t v = 0;
                std::memcpy(&v, bytes.constData() + at, 4);
                return v;
            };
            qsizetype at = 12;
            while (at + 8 <= bytes.size()) {
                const uint32_t len = u32(at), type = u32(at + 4);
                const QByteArray chunk = bytes.mid(at + 8, len);
                if (type == 0x4E4F534Au)
                    jsonBytes = chunk;
                else if (type == 0x004E4942u)
                    m_glbBin = chunk;
                at += 8 + len;
            }
        } else {
            jsonBytes = bytes;
        }
        m_json = QJsonDocument::fromJson(jsonBytes).object();
        if (m_json.isEmpty())
            return false;
        for (const QJsonValue b : m_json["buffers"].toArray()) {
            const QString uri = b.toObject()["uri"].toString();
            if (uri.isEmpty()) {
                m_buffers.push_back(m_glbBin);
            } else if (uri.startsWith("data:")) {
                m_buffers.push_back(QByteArray::fromBase64(uri.mid(uri.indexOf("base64,") + 7).toLatin1()));
            } else {
                QFile bf(dir + "/" + uri);
                if (!bf.open(QIODevice::ReadOnly))
                    return false;
                m_buffers.push_back(bf.readAll());
            }
        }
        return true;
    }

    const QJsonObject& json() const { return m_json; }
    QJsonObject at(const char* array, int i) const { return m_json[array].toArray()[i].toObject(); }
    int components(int accessor) const { return componentsOf(at("accessors", accessor)["type"].toString()); }
    int count(int accessor) const { return at("accessors", accessor)["count"].toInt(); }

    /// All components of an accessor as doubles (normalised integers mapped to [0, 1] or [-1, 1]).
    std::vector<double> read(int accessor) const
    {
        const QJsonObject a = at("accessors", accessor);
        const QJsonObject view = at("bufferViews", a["bufferView"].toInt());
        const QByteArray& buffer = m_buffers.at(size_t(view["buffer"].toInt()));
        const int type = a["componentType"].toInt();
        const int size = (type == 5126 || type == 5125) ? 4 : (type == 5122 || type == 5123) ? 2 : 1;
        const int comps = components(accessor);
        const int stride = view["byteStride"].toInt(size * comps);
        const bool normalized = a["normalized"].toBool();
        const qsizetype base = view["byteOffset"].toInt() + a["byteOffset"].toInt();
        std::vector<double> out;
        out.reserve(size_t(count(accessor) * comps));
        for (int i = 0; i < count(accessor); ++i)
            for (int c = 0; c < comps; ++c) {
                const char* p = buffer.constData() + base + qsizetype(i) * stride + c * size;
                double v = 0;
                switch (type) {
                case 5126: { float f; std::memcpy(&f, p, 4); v = f; break; }
                case 5125: { uint32_t u; std::memcpy(&u, p, 4); v = u; break; }
                case 5123: { uint16_t u; std::memcpy(&u, p, 2); v = normalized ? u / 65535.0 : u; break; }
                case 5122: { int16_t s; std::memcpy(&s, p, 2); v = normalized ? std::max(s / 32767.0, -1.0) : s; break; }
                case 5121: { uint8_t u; std::memcpy(&u, p, 1); v = normalized ? u / 255.0 : u; break; }
                case 5120: { int8_t s; std::memcpy(&s, p, 1); v = normalized ? std::max(s / 127.0, -1.0) : s; break; }
                }
                out.push_back(v);
            }
        return out;
    }

    /// Assimp's name for glTF node i ("nodes[i]" when unnamed).
    QString nodeName(int i) const
    {
        const QString n = at("nodes", i)["name"].toString();
        return n.isEmpty() ? QStringLiteral("nodes[%1]").arg(i) : n;
    }

private:
    QJsonObject m_json;
    QByteArray m_glbBin;
    std::vector<QByteArray> m_buffers;
};

} // namespace testgltf
