// The raw glTF skinning reader of gltf_skin.h.
//
// Safety rules followed throughout: every size is a uint64_t computed with overflow checks before it is compared
// with what is actually there; nothing is read through a pointer before its whole extent has been checked against
// the bytes that exist; every allocation is charged to a byte budget first; nothing throws past the API.
#include "rig/io/gltf_skin.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <string_view>
#include <type_traits>

#include "rig/io/json/json.h"

namespace rig {

const GltfPrimitiveSkin* GltfSkinData::primitive(std::pair<int, int> at) const
{
    if (at.first < 0 || size_t(at.first) >= meshes.size())
        return nullptr;
    const auto& prims = meshes[size_t(at.first)];
    if (at.second < 0 || size_t(at.second) >= prims.size())
        return nullptr;
    return &prims[size_t(at.second)];
}

namespace {

constexpr uint32_t kGlbMagic = 0x46546C67u; // "glTF"
constexpr uint32_t kChunkJson = 0x4E4F534Au; // "JSON"
constexpr uint32_t kChunkBin = 0x004E4942u;  // "BIN\0"

constexpr int kByte = 5120, kUnsignedByte = 5121, kShort = 5122, kUnsignedShort = 5123, kUnsignedInt = 5125,
              kFloat = 5126;

constexpr uint64_t kMaxIndex = 0xFFFFFFFFull; // indices and counts: 32-bit
constexpr size_t kMaxSkinSets = 64;           // JOINTS_0 .. JOINTS_63: far beyond any real file

uint32_t le32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }
uint16_t le16(const uint8_t* p) { return uint16_t(p[0] | p[1] << 8); }

int componentSize(int type)
{
    switch (type) {
    case kByte:
    case kUnsignedByte: return 1;
    case kShort:
    case kUnsignedShort: return 2;
    case kUnsignedInt:
    case kFloat: return 4;
    default: return 0;
    }
}

const char* componentName(int type)
{
    switch (type) {
    case kByte: return "BYTE";
    case kUnsignedByte: return "UNSIGNED_BYTE";
    case kShort: return "SHORT";
    case kUnsignedShort: return "UNSIGNED_SHORT";
    case kUnsignedInt: return "UNSIGNED_INT";
    case kFloat: return "FLOAT";
    default: return "unknown";
    }
}

int componentsOf(std::string_view type)
{
    if (type == "SCALAR") return 1;
    if (type == "VEC2") return 2;
    if (type == "VEC3") return 3;
    if (type == "VEC4") return 4;
    if (type == "MAT2") return 4;
    if (type == "MAT3") return 9;
    if (type == "MAT4") return 16;
    return 0;
}

/// a * b + c without wrap-around; false on overflow.
bool mulAdd(uint64_t a, uint64_t b, uint64_t c, uint64_t& out)
{
    uint64_t p = 0;
    return !__builtin_mul_overflow(a, b, &p) && !__builtin_add_overflow(p, c, &out);
}

/// A name as Assimp ends up holding it in an aiString: cut at the first NUL and at 1023 bytes.
std::string assimpString(std::string_view s)
{
    s = s.substr(0, s.find('\0'));
    return std::string(s.substr(0, 1023));
}

std::string nameOr(const json::Value& object, const char* fallbackPrefix, size_t index)
{
    const std::string_view n = object.get("name").string();
    if (!n.empty())
        return assimpString(n);
    return std::string(fallbackPrefix) + "[" + std::to_string(index) + "]";
}

/// Counts bytes held against the budget.
class Budget {
public:
    explicit Budget(uint64_t max) : m_max(max) {}
    bool take(uint64_t bytes)
    {
        if (bytes > m_max || m_used > m_max - bytes)
            return false;
        m_used += bytes;
        return true;
    }
    void give(uint64_t bytes) { m_used -= std::min(bytes, m_used); }
    uint64_t max() const { return m_max; }

private:
    uint64_t m_max;
    uint64_t m_used = 0;
};

/// A bounded byte range.
struct Bytes {
    const uint8_t* data = nullptr;
    uint64_t size = 0;
};

/// What an error of a primitive says, and whether it is an unresolved external buffer.
struct Failure {
    std::string message;
    bool external = false;
};

template <typename T>
struct Outcome {
    T value{};
    Failure failure;
    bool ok() const { return failure.message.empty(); }
};

Failure failure(std::string message, bool external = false) { return Failure{std::move(message), external}; }

int base64Value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

/// Standard (or URL-safe) base64, '=' padding optional; anything else is an error.
bool decodeBase64(std::string_view in, std::vector<uint8_t>& out)
{
    while (!in.empty() && in.back() == '=')
        in.remove_suffix(1);
    if (in.size() % 4 == 1)
        return false;
    out.clear();
    out.reserve(in.size() / 4 * 3 + 3);
    uint32_t acc = 0;
    int bits = 0;
    for (unsigned char c : in) {
        const int v = base64Value(c);
        if (v < 0)
            return false;
        acc = (acc << 6) | uint32_t(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(uint8_t((acc >> bits) & 0xFF));
        }
    }
    return true;
}

/// Reads a whole file through the asset root, refusing more than `limit` bytes.
bool readWholeFile(const AssetRoot& root, const std::string& path, uint64_t limit, std::vector<uint8_t>& out, std::string& why,
                   RefusedReference* refused)
{
    AssetRoot::Check c;
    const int fd = root.open(path, c);
    if (fd < 0) {
        if (c.refused && refused && refused->reason.empty())
            *refused = c.refusal;
        why = c.refused ? c.refusal.reason : c.why;
        return false;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        ::close(fd);
        why = "cannot read its size";
        return false;
    }
    const uint64_t size = uint64_t(st.st_size);
    if (size > limit) {
        ::close(fd);
        why = std::to_string(size) + " bytes, over the limit of " + std::to_string(limit);
        return false;
    }
    out.resize(size_t(size));
    size_t got = 0;
    while (got < size) {
        const ssize_t n = ::read(fd, out.data() + got, size_t(size) - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += size_t(n);
    }
    ::close(fd);
    if (got != size) {
        why = "read failed";
        return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------------------------

class Reader {
public:
    Reader(const uint8_t* data, size_t size, const GltfSkinOptions& options)
        : m_data(data), m_size(size), m_options(options), m_budget(options.maxBytes)
    {
    }

    Result<GltfSkinData> run()
    {
        if (!m_budget.take(m_size))
            return fail("the file (" + std::to_string(m_size) + " bytes) is over the reader's limit of " +
                        std::to_string(m_budget.max()) + " bytes");
        if (auto r = splitContainer(); !r.ok())
            return Error{r.error()};
        json::ParseLimits limits;
        limits.maxBytes = std::min<uint64_t>(limits.maxBytes, m_budget.max());
        auto parsed = json::parse(m_json, limits);
        if (!parsed.ok())
            return fail("JSON" + std::string(m_glb ? " chunk" : "") + ": " + parsed.error());
        m_doc = std::move(parsed.value());
        m_root = m_doc.root();
        if (!m_root.isObject())
            return fail("the JSON root is not an object");
        if (auto r = checkVersion(); !r.ok())
            return Error{r.error()};
        return readEverything();
    }

private:
    // ---- container ---------------------------------------------------------------------------------------------

    Result<void> splitContainer()
    {
        if (m_size >= 4 && le32(m_data) == kGlbMagic)
            return splitGlb();
        m_json = std::string_view(reinterpret_cast<const char*>(m_data), m_size);
        return {};
    }

    Result<void> splitGlb()
    {
        m_glb = true;
        if (m_size < 12)
            return fail("GLB: " + std::to_string(m_size) + " bytes, shorter than the 12-byte header");
        const uint32_t version = le32(m_data + 4);
        const uint32_t length = le32(m_data + 8);
        if (version != 2)
            return fail("GLB: container version " + std::to_string(version) + ", not 2");
        if (length > m_size)
            return fail("GLB: the header declares " + std::to_string(length) + " bytes, the data has " + std::to_string(m_size) +
                        " (truncated)");
        if (length < 20)
            return fail("GLB: declared length " + std::to_string(length) + " leaves no room for the JSON chunk");
        uint64_t at = 12;
        bool first = true;
        while (at + 8 <= length) {
            const uint32_t chunkLength = le32(m_data + at);
            const uint32_t chunkType = le32(m_data + at + 4);
            const uint64_t begin = at + 8;
            if (uint64_t(chunkLength) > length - begin)
                return fail("GLB: chunk at offset " + std::to_string(at) + " declares " + std::to_string(chunkLength) +
                            " bytes, past the end of the container (" + std::to_string(length) + " bytes)");
            if (first) {
                if (chunkType != kChunkJson)
                    return fail("GLB: the first chunk is not JSON");
                m_json = std::string_view(reinterpret_cast<const char*>(m_data + begin), chunkLength);
                first = false;
            } else if (chunkType == kChunkBin && !m_bin.data) {
                m_bin = Bytes{m_data + begin, chunkLength};
            }
            // Chunks are 4-byte aligned; the padding after the last one may be missing.
            at = begin + ((uint64_t(chunkLength) + 3) & ~uint64_t(3));
        }
        if (first)
            return fail("GLB: no JSON chunk");
        return {};
    }

    Result<void> checkVersion()
    {
        const json::Value asset = m_root.get("asset");
        const json::Value version = asset.get("version");
        std::string v;
        if (version.isString())
            v = std::string(version.string());
        else if (version.isNumber())
            v = std::to_string(version.number()); // "2.000000": Assimp formats numbers as "%.1f"; only [0] matters
        if (v.empty() || v[0] != '2')
            return fail("asset.version is '" + v.substr(0, 20) + "', not glTF 2.0");
        return {};
    }

    // ---- document ----------------------------------------------------------------------------------------------

    Result<GltfSkinData> readEverything()
    {
        GltfSkinData out;
        const json::Value meshes = m_root.get("meshes");
        const json::Value nodes = m_root.get("nodes");
        const json::Value skins = m_root.get("skins");
        if (meshes && !meshes.isArray())
            return fail("'meshes' is not an array");
        if (nodes && !nodes.isArray())
            return fail("'nodes' is not an array");
        if (skins && !skins.isArray())
            return fail("'skins' is not an array");
        m_accessors = m_root.get("accessors");
        m_views = m_root.get("bufferViews");
        m_buffers = m_root.get("buffers");
        m_bufferCache.resize(m_buffers.size());

        // Skins: joint names as Assimp names their bones.
        out.skinJointNames.resize(skins.size());
        out.skinValid.assign(skins.size(), true);
        for (size_t s = 0; s < skins.size(); ++s) {
            const json::Value joints = skins[s].get("joints");
            if (!joints.isArray()) {
                out.skinValid[s] = false;
                continue;
            }
            for (size_t j = 0; j < joints.size(); ++j) {
                uint64_t node = 0;
                if (!joints[j].asIndex(node, nodes.size() ? nodes.size() - 1 : 0) || node >= nodes.size()) {
                    out.skinValid[s] = false;
                    out.skinJointNames[s].clear();
                    break;
                }
                out.skinJointNames[s].push_back(nameOr(nodes[size_t(node)], "nodes", size_t(node)));
            }
        }

        // Which skins instance which mesh.
        out.meshSkins.resize(meshes.size());
        for (size_t n = 0; n < nodes.size(); ++n) {
            uint64_t mesh = 0, skin = 0;
            if (nodes[n].get("mesh").asIndex(mesh, kMaxIndex) && mesh < meshes.size() &&
                nodes[n].get("skin").asIndex(skin, kMaxIndex) && skin < skins.size()) {
                std::vector<int>& list = out.meshSkins[size_t(mesh)];
                if (std::find(list.begin(), list.end(), int(skin)) == list.end())
                    list.push_back(int(skin));
            }
        }

        // Primitives.
        out.meshes.resize(meshes.size());
        for (size_t m = 0; m < meshes.size(); ++m) {
            const json::Value prims = meshes[m].get("primitives");
            const size_t count = prims.isArray() ? prims.size() : 0;
            const std::string base = nameOr(meshes[m], "meshes", m);
            out.meshes[m].resize(count);
            for (size_t p = 0; p < count; ++p) {
                GltfPrimitiveSkin& prim = out.meshes[m][p];
                prim.mesh = int(m);
                prim.primitive = int(p);
                prim.assimpName = count > 1 ? base + "-" + std::to_string(p) : base;
                readPrimitive(prims[p], prim);
                out.fileOrder.emplace_back(int(m), int(p));
            }
        }

        // Assimp's aiMesh order.
        for (int m : assimpMeshOrder(nodes, meshes.size(), skins))
            for (size_t p = 0; p < out.meshes[size_t(m)].size(); ++p)
                out.assimpOrder.emplace_back(m, int(p));
        return out;
    }

    /// The order in which Assimp 5.2.4's lazy dictionaries first reach each mesh (see gltf_skin.h).
    std::vector<int> assimpMeshOrder(const json::Value& nodes, size_t meshCount, const json::Value& skins)
    {
        std::vector<int> order;
        std::vector<uint8_t> state(nodes.size(), 0); // 0 unseen, 1 being read, 2 read
        std::vector<uint8_t> reached(meshCount, 0);
        struct Frame {
            size_t node;
            size_t child;
        };
        std::vector<Frame> stack;
        auto reach = [&](const json::Value& index) {
            uint64_t root = 0;
            if (!index.asIndex(root, kMaxIndex) || root >= nodes.size() || state[size_t(root)] != 0)
                return;
            state[size_t(root)] = 1;
            stack.push_back({size_t(root), 0});
            while (!stack.empty()) {
                const size_t node = stack.back().node;
                const json::Value children = nodes[node].get("children");
                if (stack.back().child < children.size()) {
                    uint64_t c = 0;
                    const bool valid = children[stack.back().child++].asIndex(c, kMaxIndex) && c < nodes.size();
                    if (valid && state[size_t(c)] == 0) {
                        state[size_t(c)] = 1;
                        stack.push_back({size_t(c), 0});
                    }
                    continue;
                }
                uint64_t mesh = 0;
                if (nodes[node].get("mesh").asIndex(mesh, kMaxIndex) && mesh < meshCount && !reached[size_t(mesh)]) {
                    reached[size_t(mesh)] = 1;
                    order.push_back(int(mesh));
                }
                state[node] = 2;
                stack.pop_back();
            }
        };

        uint64_t sceneIndex = 0;
        if (const json::Value s = m_root.get("scene"); s)
            s.asIndex(sceneIndex, kMaxIndex);
        const json::Value scenes = m_root.get("scenes");
        if (sceneIndex < scenes.size()) {
            const json::Value roots = scenes[size_t(sceneIndex)].get("nodes");
            for (size_t i = 0; i < roots.size(); ++i)
                reach(roots[i]);
        }
        for (size_t s = 0; s < skins.size(); ++s) {
            const json::Value joints = skins[s].get("joints");
            for (size_t j = 0; j < joints.size(); ++j)
                reach(joints[j]);
        }
        const json::Value animations = m_root.get("animations");
        for (size_t a = 0; a < animations.size(); ++a) {
            const json::Value channels = animations[a].get("channels");
            for (size_t c = 0; c < channels.size(); ++c)
                reach(channels[c].get("target").get("node"));
        }
        return order;
    }

    // ---- buffers -----------------------------------------------------------------------------------------------

    struct BufferSlot {
        bool loaded = false;
        Failure failure;
        std::vector<uint8_t> owned;
        Bytes bytes; ///< exactly byteLength bytes
    };

    Outcome<Bytes> buffer(uint64_t index)
    {
        if (index >= m_buffers.size())
            return {{}, failure("buffer " + std::to_string(index) + " does not exist (" + std::to_string(m_buffers.size()) + " buffers)")};
        BufferSlot& slot = m_bufferCache[size_t(index)];
        if (!slot.loaded) {
            slot.loaded = true;
            slot.failure = loadBuffer(index, slot);
        }
        if (!slot.failure.message.empty())
            return {{}, slot.failure};
        return {slot.bytes, {}};
    }

    Failure loadBuffer(uint64_t index, BufferSlot& slot)
    {
        const std::string who = "buffer " + std::to_string(index);
        const json::Value b = m_buffers[size_t(index)];
        uint64_t declared = 0;
        if (!b.get("byteLength").asIndex(declared))
            return failure(who + ": no valid byteLength");
        const json::Value uri = b.get("uri");
        Bytes available;
        if (!uri) {
            if (!m_bin.data)
                return failure(who + ": no uri and no GLB binary chunk");
            available = m_bin;
        } else if (!uri.isString()) {
            return failure(who + ": uri is not a string");
        } else {
            const std::string_view u = uri.string();
            if (u.substr(0, 5) == "data:") {
                const size_t comma = u.find(',');
                if (comma == std::string_view::npos || comma < 12 || u.substr(comma - 7, 7) != ";base64")
                    return failure(who + ": data URI is not base64");
                const std::string_view payload = u.substr(comma + 1);
                if (!m_budget.take(payload.size() / 4 * 3 + 3))
                    return failure(who + ": data URI decodes to more than the reader's byte limit");
                if (!decodeBase64(payload, slot.owned))
                    return failure(who + ": invalid base64 in its data URI");
            } else {
                if (m_options.baseDir.empty())
                    return failure(who + ": external file '" + std::string(u.substr(0, 200)) +
                                       "' cannot be resolved (no folder: read from memory)",
                                   true);
                // A URI with a scheme (file:, http:) or an absolute path is never a file of the asset: refused here,
                // whatever the root (a relative path is checked by the root itself).
                const size_t colon = u.find(':');
                const bool scheme = colon != std::string_view::npos && colon > 0 && u.find('/') > colon;
                if (scheme || (!u.empty() && u.front() == '/') || percentDecode(std::string(u)).rfind('/', 0) == 0) {
                    if (m_options.refused && m_options.refused->reason.empty())
                        *m_options.refused = RefusedReference{std::string(u.substr(0, 200)), std::string(u.substr(0, 200)),
                                                              "an absolute path or URI, never part of the asset",
                                                              RefusedReference::Kind::Absolute};
                    return failure(who + ": external file '" + std::string(u.substr(0, 200)) + "': absolute, refused");
                }
                AssetRoot own;
                const AssetRoot* root = m_options.root;
                if (!root) {
                    auto made = AssetRoot::make(m_options.baseDir);
                    if (made)
                        own = std::move(made.value());
                    root = &own;
                }
                const std::filesystem::path dir(m_options.baseDir);
                std::string why;
                std::string path = (dir / std::string(u)).string();
                if (!root->check(path).ok && !root->check(path).refused)
                    path = (dir / percentDecode(std::string(u))).string(); // the URI-decoded name, when the literal one is absent
                const uint64_t left = m_budget.max(); // charged below, once the size is known
                if (!readWholeFile(*root, path, left, slot.owned, why, m_options.refused))
                    return failure(who + ": external file '" + std::string(u.substr(0, 200)) + "': " + why);
                if (!m_budget.take(slot.owned.size()))
                    return failure(who + ": external file is over the reader's byte limit");
            }
            available = Bytes{slot.owned.data(), slot.owned.size()};
        }
        if (available.size < declared)
            return failure(who + ": declares " + std::to_string(declared) + " bytes, holds " + std::to_string(available.size));
        slot.bytes = Bytes{available.data, declared};
        return {};
    }

    struct View {
        Bytes bytes;
        uint64_t stride = 0; ///< 0: none declared
    };

    Outcome<View> bufferView(uint64_t index)
    {
        const std::string who = "bufferView " + std::to_string(index);
        if (index >= m_views.size())
            return {{}, failure(who + " does not exist (" + std::to_string(m_views.size()) + " buffer views)")};
        const json::Value v = m_views[size_t(index)];
        uint64_t bufferIndex = 0, offset = 0, length = 0, stride = 0;
        if (!v.get("buffer").asIndex(bufferIndex))
            return {{}, failure(who + ": no valid buffer")};
        if (v.get("byteOffset") && !v.get("byteOffset").asIndex(offset))
            return {{}, failure(who + ": invalid byteOffset")};
        if (!v.get("byteLength").asIndex(length))
            return {{}, failure(who + ": no valid byteLength")};
        if (v.get("byteStride") && (!v.get("byteStride").asIndex(stride) || stride == 0))
            return {{}, failure(who + ": invalid byteStride")};
        Outcome<Bytes> b = buffer(bufferIndex);
        if (!b.ok())
            return {{}, b.failure};
        uint64_t end = 0;
        if (!mulAdd(1, offset, length, end) || end > b.value.size)
            return {{}, failure(who + ": bytes " + std::to_string(offset) + " + " + std::to_string(length) + " run past the end of buffer " +
                                std::to_string(bufferIndex) + " (" + std::to_string(b.value.size) + " bytes)")};
        return {View{Bytes{b.value.data + offset, length}, stride}, {}};
    }

    // ---- accessors ---------------------------------------------------------------------------------------------

    enum class Want { Float, Index };

    /// Decodes accessor `index` (components each of `components`, of the allowed component types) into
    /// floats or unsigned integers, `count` elements (out: count). Sparse substitution applied.
    template <typename T>
    Failure decode(uint64_t index, const char* role, int components, Want want, std::vector<T>& out, uint64_t& count,
                   int* componentTypeOut = nullptr)
    {
        const std::string who = "accessor " + std::to_string(index) + " (" + role + ")";
        if (index >= m_accessors.size())
            return failure(who + " does not exist (" + std::to_string(m_accessors.size()) + " accessors)");
        const json::Value a = m_accessors[size_t(index)];
        uint64_t ct = 0, offset = 0;
        if (!a.get("componentType").asIndex(ct) || componentSize(int(ct)) == 0)
            return failure(who + ": invalid componentType");
        const int componentType = int(ct);
        if (componentTypeOut)
            *componentTypeOut = componentType;
        const int declaredComponents = componentsOf(a.get("type").string());
        if (declaredComponents != components)
            return failure(who + ": type '" + std::string(a.get("type").string().substr(0, 20)) + "', expected " +
                           (components == 3 ? "VEC3" : "VEC4"));
        if (want == Want::Index && componentType != kUnsignedByte && componentType != kUnsignedShort && componentType != kUnsignedInt)
            return failure(who + ": component type " + componentName(componentType) + " cannot hold joint indices");
        if (want == Want::Float && componentType == kUnsignedInt)
            return failure(who + ": component type UNSIGNED_INT is not allowed here");
        if (!a.get("count").asIndex(count, kMaxIndex))
            return failure(who + ": no valid count");
        if (a.get("byteOffset") && !a.get("byteOffset").asIndex(offset))
            return failure(who + ": invalid byteOffset");
        const bool normalized = a.get("normalized").boolean(false);
        const uint64_t size = uint64_t(componentSize(componentType));
        const uint64_t elementSize = size * uint64_t(components);

        // Locate the dense data (absent: zeros) and check its whole extent first.
        const uint8_t* base = nullptr;
        uint64_t stride = elementSize;
        if (const json::Value vi = a.get("bufferView"); vi) {
            uint64_t viewIndex = 0;
            if (!vi.asIndex(viewIndex))
                return failure(who + ": invalid bufferView");
            Outcome<View> v = bufferView(viewIndex);
            if (!v.ok())
                return v.failure;
            if (v.value.stride)
                stride = v.value.stride;
            if (stride < elementSize)
                return failure(who + ": byteStride " + std::to_string(stride) + " is smaller than its " + std::to_string(elementSize) +
                               "-byte elements");
            if (count > 0) {
                uint64_t end = 0;
                if (!mulAdd(count - 1, stride, offset, end) || !mulAdd(1, end, elementSize, end) || end > v.value.bytes.size)
                    return failure(who + ": " + std::to_string(count) + " elements from byte " + std::to_string(offset) +
                                   " (stride " + std::to_string(stride) + ") run past the end of bufferView " +
                                   std::to_string(viewIndex) + " (" + std::to_string(v.value.bytes.size) + " bytes)");
            } else if (offset > v.value.bytes.size) {
                return failure(who + ": byteOffset past the end of bufferView " + std::to_string(viewIndex));
            }
            base = v.value.bytes.data + offset;
        }

        // Only now (the extent is real, or there is no data at all) charge the output to the budget.
        uint64_t outBytes = 0;
        if (!mulAdd(count, uint64_t(components) * sizeof(T), 0, outBytes) || !m_budget.take(outBytes))
            return failure(who + ": count " + std::to_string(count) + " needs more memory than the reader's limit allows");
        out.assign(size_t(count) * size_t(components), T{});
        auto convert = [&](const uint8_t* p, T& dst) {
            if constexpr (std::is_same_v<T, float>) {
                switch (componentType) {
                case kFloat: dst = std::bit_cast<float>(le32(p)); break;
                case kUnsignedByte: dst = normalized ? float(p[0]) / 255.0f : float(p[0]); break;
                case kUnsignedShort: dst = normalized ? float(le16(p)) / 65535.0f : float(le16(p)); break;
                case kByte: {
                    const int8_t s = int8_t(p[0]);
                    dst = normalized ? std::max(float(s) / 127.0f, -1.0f) : float(s);
                    break;
                }
                case kShort: {
                    const int16_t s = int16_t(le16(p));
                    dst = normalized ? std::max(float(s) / 32767.0f, -1.0f) : float(s);
                    break;
                }
                default: dst = 0.0f; break;
                }
            } else {
                switch (componentType) {
                case kUnsignedByte: dst = p[0]; break;
                case kUnsignedShort: dst = le16(p); break;
                case kUnsignedInt: dst = le32(p); break;
                default: dst = 0; break;
                }
            }
        };
        if (base)
            for (uint64_t i = 0; i < count; ++i) {
                const uint8_t* element = base + i * stride;
                for (int c = 0; c < components; ++c)
                    convert(element + uint64_t(c) * size, out[size_t(i) * size_t(components) + size_t(c)]);
            }

        // Sparse substitution.
        if (const json::Value sparse = a.get("sparse"); sparse) {
            const std::string sw = who + " sparse";
            uint64_t n = 0, iv = 0, io = 0, ict = 0, vv = 0, vo = 0;
            const json::Value indices = sparse.get("indices"), values = sparse.get("values");
            if (!sparse.get("count").asIndex(n, kMaxIndex))
                return failure(sw + ": no valid count");
            if (!indices.get("bufferView").asIndex(iv) || !values.get("bufferView").asIndex(vv))
                return failure(sw + ": indices or values without a valid bufferView");
            if ((indices.get("byteOffset") && !indices.get("byteOffset").asIndex(io)) ||
                (values.get("byteOffset") && !values.get("byteOffset").asIndex(vo)))
                return failure(sw + ": invalid byteOffset");
            if (!indices.get("componentType").asIndex(ict) ||
                (ict != kUnsignedByte && ict != kUnsignedShort && ict != kUnsignedInt))
                return failure(sw + ": invalid indices componentType");
            if (n > count)
                return failure(sw + ": " + std::to_string(n) + " substitutions for " + std::to_string(count) + " elements");
            const uint64_t indexSize = uint64_t(componentSize(int(ict)));
            Outcome<View> ivw = bufferView(iv);
            if (!ivw.ok())
                return ivw.failure;
            Outcome<View> vvw = bufferView(vv);
            if (!vvw.ok())
                return vvw.failure;
            uint64_t iend = 0, vend = 0;
            if (!mulAdd(n, indexSize, io, iend) || iend > ivw.value.bytes.size)
                return failure(sw + ": indices run past the end of bufferView " + std::to_string(iv));
            if (!mulAdd(n, elementSize, vo, vend) || vend > vvw.value.bytes.size)
                return failure(sw + ": values run past the end of bufferView " + std::to_string(vv));
            const uint8_t* ip = ivw.value.bytes.data + io;
            const uint8_t* vp = vvw.value.bytes.data + vo;
            for (uint64_t k = 0; k < n; ++k) {
                const uint8_t* q = ip + k * indexSize;
                const uint64_t target = indexSize == 1 ? q[0] : indexSize == 2 ? le16(q) : le32(q);
                if (target >= count)
                    return failure(sw + ": index " + std::to_string(target) + " is out of range (" + std::to_string(count) + " elements)");
                for (int c = 0; c < components; ++c)
                    convert(vp + k * elementSize + uint64_t(c) * size, out[size_t(target) * size_t(components) + size_t(c)]);
            }
        }
        return {};
    }

    /// Gives back what decode() charged for temporaries.
    void release(uint64_t bytes) { m_budget.give(bytes); }

    // ---- one primitive -----------------------------------------------------------------------------------------

    void readPrimitive(const json::Value& prim, GltfPrimitiveSkin& out)
    {
        Failure f = decodePrimitive(prim, out);
        if (!f.message.empty()) {
            const std::string keepName = out.assimpName;
            const int mesh = out.mesh, primitive = out.primitive;
            out = GltfPrimitiveSkin{};
            out.mesh = mesh;
            out.primitive = primitive;
            out.assimpName = keepName;
            out.error = "mesh " + std::to_string(mesh) + " primitive " + std::to_string(primitive) + ": " + f.message;
            out.needsExternalBuffer = f.external;
        }
    }

    static bool parseSetName(std::string_view key, std::string_view prefix, size_t& set)
    {
        if (key.substr(0, prefix.size()) != prefix)
            return false;
        const std::string_view digits = key.substr(prefix.size());
        if (digits.empty() || digits.size() > 3 || (digits.size() > 1 && digits[0] == '0'))
            return false;
        size_t v = 0;
        for (char c : digits) {
            if (c < '0' || c > '9')
                return false;
            v = v * 10 + size_t(c - '0');
        }
        set = v;
        return true;
    }

    Failure decodePrimitive(const json::Value& prim, GltfPrimitiveSkin& out)
    {
        const json::Value attributes = prim.get("attributes");
        if (!attributes.isObject())
            return failure("no attributes object");
        uint64_t positionIndex = 0;
        if (!attributes.get("POSITION").asIndex(positionIndex, kMaxIndex))
            return failure("no valid POSITION attribute");

        // POSITION: decoded when FLOAT VEC3 (for matching), otherwise only its count is taken.
        {
            std::vector<float> p;
            uint64_t count = 0;
            int type = 0;
            Failure f = decode(positionIndex, "POSITION", 3, Want::Float, p, count, &type);
            if (!f.message.empty())
                return f;
            out.vertexCount = uint32_t(count);
            if (type == kFloat) {
                const uint64_t bytes = count * sizeof(glm::vec3);
                out.positions.resize(size_t(count));
                std::memcpy(out.positions.data(), p.data(), size_t(bytes));
            } else {
                release(count * 3 * sizeof(float)); // nothing kept
            }
        }

        // Which sets exist: JOINTS_n and WEIGHTS_n, each n once (the first of duplicate keys, as get() does).
        std::map<size_t, std::pair<int64_t, int64_t>> sets;
        for (size_t i = 0; i < attributes.size(); ++i) {
            const std::string_view key = attributes.keyAt(i);
            size_t n = 0;
            const bool joints = parseSetName(key, "JOINTS_", n);
            const bool weights = !joints && parseSetName(key, "WEIGHTS_", n);
            if (!joints && !weights)
                continue;
            if (sets.size() >= kMaxSkinSets && !sets.count(n))
                return failure("more than " + std::to_string(kMaxSkinSets) + " JOINTS/WEIGHTS sets");
            auto& entry = sets.try_emplace(n, -1, -1).first->second;
            int64_t& slot = joints ? entry.first : entry.second;
            if (slot >= 0)
                continue;
            uint64_t accessor = 0;
            if (!attributes.get(key).asIndex(accessor, kMaxIndex))
                return failure(std::string(key) + " is not a valid accessor index");
            slot = int64_t(accessor);
        }
        if (sets.empty())
            return {};

        const uint64_t vertices = out.vertexCount;
        std::vector<std::vector<uint32_t>> joints(sets.size());
        std::vector<std::vector<float>> weights(sets.size());
        uint64_t temporaries = 0;
        size_t k = 0;
        for (const auto& [n, pair] : sets) {
            const std::string jn = "JOINTS_" + std::to_string(n), wn = "WEIGHTS_" + std::to_string(n);
            if (pair.first < 0)
                return failure(wn + " without " + jn);
            if (pair.second < 0)
                return failure(jn + " without " + wn);
            uint64_t jc = 0, wc = 0;
            int weightType = 0;
            Failure f = decode(uint64_t(pair.first), jn.c_str(), 4, Want::Index, joints[k], jc);
            if (!f.message.empty())
                return f;
            f = decode(uint64_t(pair.second), wn.c_str(), 4, Want::Float, weights[k], wc, &weightType);
            if (!f.message.empty())
                return f;
            temporaries += jc * 4 * sizeof(uint32_t) + wc * 4 * sizeof(float);
            if (jc != vertices || wc != vertices)
                return failure(jn + " has " + std::to_string(jc) + " elements, " + wn + " " + std::to_string(wc) + ", POSITION " +
                               std::to_string(vertices));
            if (weightType != kFloat)
                out.floatWeights = false;
            ++k;
        }
        out.skinSets = int(sets.size());

        // CSR, exact zeros skipped (NaN != 0 is kept).
        uint64_t total = 0;
        for (size_t s = 0; s < weights.size(); ++s)
            for (float w : weights[s])
                total += (w != 0.0f) ? 1 : 0;
        uint64_t zeroWeightJointVertices = 0;
        for (uint64_t v = 0; v < vertices; ++v) {
            bool hit = false;
            for (size_t s = 0; s < weights.size(); ++s)
                for (size_t c = 0; c < 4; ++c)
                    hit = hit || (weights[s][size_t(v) * 4 + c] == 0.0f && joints[s][size_t(v) * 4 + c] != 0);
            zeroWeightJointVertices += hit ? 1 : 0;
        }
        const uint64_t csrBytes = (vertices + 1) * sizeof(uint32_t) + total * sizeof(Influence) +
                                  zeroWeightJointVertices * sizeof(uint32_t);
        if (total > kMaxIndex || !m_budget.take(csrBytes))
            return failure(std::to_string(total) + " influences need more memory than the reader's limit allows");
        out.zeroWeightJointVertices.reserve(size_t(zeroWeightJointVertices));
        out.influenceOffsets.assign(size_t(vertices) + 1, 0);
        out.influences.reserve(size_t(total));
        for (uint64_t v = 0; v < vertices; ++v) {
            bool zeroWeightJoint = false;
            for (size_t s = 0; s < weights.size(); ++s)
                for (size_t c = 0; c < 4; ++c) {
                    const float w = weights[s][size_t(v) * 4 + c];
                    const uint32_t j = joints[s][size_t(v) * 4 + c];
                    if (w != 0.0f)
                        out.influences.push_back(Influence{j, w});
                    else if (j != 0)
                        zeroWeightJoint = true;
                }
            if (zeroWeightJoint)
                out.zeroWeightJointVertices.push_back(uint32_t(v)); // within the reserve
            out.influenceOffsets[size_t(v) + 1] = uint32_t(out.influences.size());
        }
        release(temporaries);
        return {};
    }

    const uint8_t* m_data;
    size_t m_size;
    const GltfSkinOptions& m_options;
    Budget m_budget;
    bool m_glb = false;
    std::string_view m_json;
    Bytes m_bin;
    json::Document m_doc;
    json::Value m_root, m_accessors, m_views, m_buffers;
    std::vector<BufferSlot> m_bufferCache;
};

} // namespace

Result<GltfSkinData> readGltfSkins(const void* data, size_t size, const GltfSkinOptions& options)
{
    if (!data && size > 0)
        return fail("no data");
    try {
        Reader reader(static_cast<const uint8_t*>(data), size, options);
        return reader.run();
    } catch (const std::bad_alloc&) {
        return fail("out of memory while reading the skinning data");
    } catch (const std::exception& e) {
        return fail(std::string("reading the skinning data failed: ") + e.what());
    } catch (...) {
        return fail("reading the skinning data failed");
    }
}

Result<GltfSkinData> readGltfSkinsFile(const std::string& path, const GltfSkinOptions& options)
{
    try {
        AssetRoot own;
        const AssetRoot* root = options.root;
        if (!root) {
            auto made = AssetRoot::forFile(path);
            if (!made)
                return fail("cannot read the file: " + made.error());
            own = std::move(made.value());
            root = &own;
        }
        std::vector<uint8_t> bytes;
        std::string why;
        if (!readWholeFile(*root, path, options.maxBytes, bytes, why, options.refused))
            return fail("cannot read the file: " + why);
        GltfSkinOptions local = options;
        local.root = root;
        local.baseDir = std::filesystem::path(path).parent_path().string();
        if (local.baseDir.empty())
            local.baseDir = ".";
        return readGltfSkins(bytes.data(), bytes.size(), local);
    } catch (const std::bad_alloc&) {
        return fail("out of memory while reading the skinning data");
    } catch (...) {
        return fail("cannot read the file");
    }
}

} // namespace rig
