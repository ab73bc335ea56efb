#include "rig/io/worker/rig_serialize.h"

#include "rig/model/structure.h"

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace rig {

namespace {

constexpr uint32_t kMagic = 0x52494731; // "RIG1"

// The layout of the types written below, as of kRigFormatVersion: a change to one of them must change the writer, the
// reader, the field-by-field round-trip test (tests/io/test_import_worker.cpp) and the version.
static_assert(sizeof(Transform) == 40 && sizeof(Node) == 144 && sizeof(Skin) == 80 && sizeof(Influence) == 8 &&
                  sizeof(MorphTarget) == 104 && sizeof(Mesh) == 304 && sizeof(JointChannel) == 176 &&
                  sizeof(MorphChannel) == 56 && sizeof(Clip) == 88 && sizeof(ImportNote) == 40 && sizeof(Rig) == 176 &&
                  sizeof(Image) == 120,
              "rig::Rig changed: update serializeRig, deserializeRig, their round-trip test and kRigFormatVersion");

class Writer {
public:
    explicit Writer(std::string& out) : m_out(out) {}
    template <typename T>
    void pod(const T& v)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        m_out.append(reinterpret_cast<const char*>(&v), sizeof(T));
    }
    void str(const std::string& s)
    {
        pod(uint64_t(s.size()));
        m_out.append(s);
    }
    template <typename T>
    void vec(const std::vector<T>& v)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        pod(uint64_t(v.size()));
        m_out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
    }
    void flag(bool b) { pod(uint8_t(b ? 1 : 0)); }
    template <typename E>
    void enumeration(E e)
    {
        pod(uint8_t(e));
    }
    template <typename T>
    void track(const Track<T>& t)
    {
        enumeration(t.interpolation);
        vec(t.times);
        vec(t.values);
    }

private:
    std::string& m_out;
};

class Reader {
public:
    explicit Reader(std::string_view in) : m_in(in) {}
    bool ok() const { return m_ok; }
    template <typename T>
    void pod(T& v)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        if (!take(sizeof(T)))
            return;
        std::memcpy(&v, m_in.data() + m_pos - sizeof(T), sizeof(T));
    }
    void str(std::string& s)
    {
        uint64_t n = 0;
        pod(n);
        if (!m_ok || n > m_in.size() - m_pos) {
            m_ok = false;
            return;
        }
        s.assign(m_in.data() + m_pos, size_t(n));
        m_pos += size_t(n);
    }
    template <typename T>
    void vec(std::vector<T>& v)
    {
        uint64_t n = 0;
        pod(n);
        if (!m_ok || n > (m_in.size() - m_pos) / sizeof(T)) {
            m_ok = false;
            return;
        }
        v.resize(size_t(n));
        if (n != 0) // an empty vector's data() may be null: memcpy(nullptr, ..., 0) is undefined (UBSan stops on it)
            std::memcpy(v.data(), m_in.data() + m_pos, size_t(n) * sizeof(T));
        m_pos += size_t(n) * sizeof(T);
    }
    void flag(bool& b)
    {
        uint8_t v = 0;
        pod(v);
        if (v > 1)
            m_ok = false;
        b = v == 1;
    }
    /// An enumeration stored as a byte, valid up to `last`.
    template <typename E>
    void enumeration(E& e, E last)
    {
        uint8_t v = 0;
        pod(v);
        if (v > uint8_t(last))
            m_ok = false;
        e = m_ok ? E(v) : E(0);
    }
    template <typename T>
    void track(Track<T>& t)
    {
        enumeration(t.interpolation, Interpolation::CubicSpline);
        vec(t.times);
        vec(t.values);
    }
    /// A count of items that each take at least `minBytes` more: refuses counts the data cannot hold.
    bool count(uint64_t& n, size_t minBytes)
    {
        pod(n);
        if (m_ok && n > (m_in.size() - m_pos) / std::max<size_t>(minBytes, 1))
            m_ok = false;
        return m_ok;
    }
    bool atEnd() const { return m_pos == m_in.size(); }

private:
    bool take(size_t n)
    {
        if (!m_ok || n > m_in.size() - m_pos) {
            m_ok = false;
            return false;
        }
        m_pos += n;
        return true;
    }
    std::string_view m_in;
    size_t m_pos = 0;
    bool m_ok = true;
};

} // namespace

void serializeRig(const Rig& r, std::string& out)
{
    Writer w(out);
    w.pod(kMagic);
    w.pod(kRigFormatVersion);
    w.str(r.source);
    w.pod(uint64_t(r.skeleton.nodes.size()));
    for (const Node& n : r.skeleton.nodes) {
        w.str(n.name);
        w.pod(n.parent);
        w.pod(n.rest);
        w.pod(n.restMatrix);
        w.flag(n.restHasShear);
    }
    w.pod(uint64_t(r.skins.size()));
    for (const Skin& s : r.skins) {
        w.str(s.name);
        w.vec(s.joints);
        w.vec(s.inverseBind);
    }
    w.pod(uint64_t(r.meshes.size()));
    for (const Mesh& m : r.meshes) {
        w.str(m.name);
        w.pod(m.node);
        w.pod(m.skin);
        w.vec(m.positions);
        w.vec(m.normals);
        w.vec(m.tangents);
        w.vec(m.uvs);
        w.vec(m.indices);
        w.vec(m.influenceOffsets);
        w.vec(m.influences);
        w.vec(m.zeroWeightJointVertices);
        w.pod(uint64_t(m.morphTargets.size()));
        for (const MorphTarget& t : m.morphTargets) {
            w.str(t.name);
            w.vec(t.positionDeltas);
            w.vec(t.normalDeltas);
            w.vec(t.tangentDeltas);
        }
        w.vec(m.defaultMorphWeights);
        w.pod(m.baseColor);
        w.pod(m.baseColorImage);
        w.flag(m.uvOriginTopLeft);
        w.flag(m.normalsGenerated);
        w.flag(m.tangentsGenerated);
    }
    w.pod(uint64_t(r.clips.size()));
    for (const Clip& c : r.clips) {
        w.str(c.name);
        w.pod(c.duration);
        w.pod(uint64_t(c.joints.size()));
        for (const JointChannel& ch : c.joints) {
            w.pod(ch.node);
            w.track(ch.translation);
            w.track(ch.rotation);
            w.track(ch.scale);
        }
        w.pod(uint64_t(c.morphs.size()));
        for (const MorphChannel& ch : c.morphs) {
            w.pod(ch.mesh);
            w.enumeration(ch.interpolation);
            w.vec(ch.times);
            w.vec(ch.weights);
        }
    }
    // Images: decoded pixels only. Encoded bytes are never carried: the worker decodes them in its sandbox.
    w.pod(uint64_t(r.images.size()));
    for (const Image& im : r.images) {
        w.str(im.name);
        w.str(im.formatHint);
        w.pod(im.width);
        w.pod(im.height);
        w.vec(im.rgba);
    }
    w.pod(uint64_t(r.notes.size()));
    for (const ImportNote& n : r.notes) {
        w.enumeration(n.severity);
        w.str(n.message);
    }
    w.pod(kMagic);
}

Result<Rig> deserializeRig(std::string_view data)
{
    Reader rd(data);
    Rig r;
    uint32_t magic = 0;
    rd.pod(magic);
    if (!rd.ok() || magic != kMagic)
        return fail("not a serialized rig");
    uint32_t version = 0;
    rd.pod(version);
    if (!rd.ok() || version != kRigFormatVersion)
        return fail("serialized rig format " + std::to_string(version) + ", expected " + std::to_string(kRigFormatVersion));
    rd.str(r.source);
    uint64_t n = 0;
    if (rd.count(n, 8)) {
        r.skeleton.nodes.resize(size_t(n));
        for (Node& node : r.skeleton.nodes) {
            rd.str(node.name);
            rd.pod(node.parent);
            rd.pod(node.rest);
            rd.pod(node.restMatrix);
            rd.flag(node.restHasShear);
        }
    }
    if (rd.count(n, 8)) {
        r.skins.resize(size_t(n));
        for (Skin& s : r.skins) {
            rd.str(s.name);
            rd.vec(s.joints);
            rd.vec(s.inverseBind);
        }
    }
    if (rd.count(n, 8)) {
        r.meshes.resize(size_t(n));
        for (Mesh& m : r.meshes) {
            rd.str(m.name);
            rd.pod(m.node);
            rd.pod(m.skin);
            rd.vec(m.positions);
            rd.vec(m.normals);
            rd.vec(m.tangents);
            rd.vec(m.uvs);
            rd.vec(m.indices);
            rd.vec(m.influenceOffsets);
            rd.vec(m.influences);
            rd.vec(m.zeroWeightJointVertices);
            uint64_t targets = 0;
            if (rd.count(targets, 8)) {
                m.morphTargets.resize(size_t(targets));
                for (MorphTarget& t : m.morphTargets) {
                    rd.str(t.name);
                    rd.vec(t.positionDeltas);
                    rd.vec(t.normalDeltas);
                    rd.vec(t.tangentDeltas);
                }
            }
            rd.vec(m.defaultMorphWeights);
            rd.pod(m.baseColor);
            rd.pod(m.baseColorImage);
            rd.flag(m.uvOriginTopLeft);
            rd.flag(m.normalsGenerated);
            rd.flag(m.tangentsGenerated);
        }
    }
    if (rd.count(n, 8)) {
        r.clips.resize(size_t(n));
        for (Clip& c : r.clips) {
            rd.str(c.name);
            rd.pod(c.duration);
            uint64_t channels = 0;
            if (rd.count(channels, 4)) {
                c.joints.resize(size_t(channels));
                for (JointChannel& ch : c.joints) {
                    rd.pod(ch.node);
                    rd.track(ch.translation);
                    rd.track(ch.rotation);
                    rd.track(ch.scale);
                }
            }
            if (rd.count(channels, 4)) {
                c.morphs.resize(size_t(channels));
                for (MorphChannel& ch : c.morphs) {
                    rd.pod(ch.mesh);
                    rd.enumeration(ch.interpolation, Interpolation::CubicSpline);
                    rd.vec(ch.times);
                    rd.vec(ch.weights);
                }
            }
        }
    }
    if (rd.count(n, 8 + 8 + 4 + 4 + 8)) {
        r.images.resize(size_t(n));
        for (Image& im : r.images) {
            rd.str(im.name);
            rd.str(im.formatHint);
            rd.pod(im.width);
            rd.pod(im.height);
            rd.vec(im.rgba);
        }
    }
    if (rd.count(n, 8)) {
        r.notes.resize(size_t(n));
        for (ImportNote& note : r.notes) {
            rd.enumeration(note.severity, ImportNote::Severity::Error);
            rd.str(note.message);
        }
    }
    rd.pod(magic);
    if (!rd.ok() || magic != kMagic || !rd.atEnd())
        return fail("truncated or inconsistent serialized rig");
    if (Result<void> structure = checkStructure(r); !structure)
        return fail("serialized rig breaks an invariant: " + structure.error());
    return r;
}

} // namespace rig
