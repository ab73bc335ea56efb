// The asset root: the one folder a model file's external references (glTF buffers and images, OBJ .mtl files and
// textures, anything an importer opens besides the file itself) may be read from. Every opener in the import goes
// through AssetRoot::open — Assimp through RootedIOSystem (rig/io/assimp/io_system.h), the raw glTF reader directly —
// so that no format can get around it by how it spells a path.
//
// A path is refused when
//   - it is lexically outside the root once made absolute and normalised ("..", or absolute paths elsewhere),
//   - its percent-decoded form is ("%2e%2e%2f": importers differ in whether they decode URIs; both readings must stay
//     inside),
//   - it resolves (symbolic links followed, every component) to a place outside the root,
//   - it is not a regular file (devices, FIFOs, sockets, directories),
// and the file is opened without following a final symbolic link and checked to be the file that was resolved (no
// swap between the check and the open). A symbolic link inside the root that points inside it is fine.
#pragma once

#include <string>
#include <vector>

#include "rig/model/result.h"

namespace rig {

/// A reference the import was not allowed to read.
struct RefusedReference {
    /// Why, for the code that acts on it: only Outside is one a wider asset root would allow.
    enum class Kind : uint8_t {
        None,       ///< nothing refused
        NoRoot,     ///< no asset root allows reading files (read from memory)
        Outside,    ///< outside the asset root (as written, once percent-decoded, or through a symbolic link)
        NotRegular, ///< not a regular file
        Changed,    ///< the file changed while it was being opened
        Absolute,   ///< an absolute path or a URI with a scheme: never part of the asset
    };
    static constexpr uint8_t kKindCount = 6;
    std::string reference; ///< as the importer asked for it, relative to the model's folder where it can be
    std::string resolved;  ///< the absolute, normalised (and, if it exists, resolved) path
    std::string reason;    ///< e.g. "outside the asset root", "not a regular file"
    Kind kind = Kind::None;
    bool outsideRoot() const { return kind == Kind::Outside; }
};

class AssetRoot {
public:
    /// No root: every open is refused.
    AssetRoot() = default;
    /// The folder `root` (made absolute and canonical); fails when it is not an existing folder.
    static Result<AssetRoot> make(const std::string& root);
    /// The default root of a model file: its folder.
    static Result<AssetRoot> forFile(const std::string& modelPath);

    bool valid() const { return !m_root.empty(); }
    /// The canonical root folder ("" for none).
    const std::string& path() const { return m_root; }
    /// True when `canonical` (absolute and normalised) lies in the root.
    bool contains(const std::string& canonical) const;

    /// Checks `path` (absolute, or relative to the working directory, as an opener asks for it) and returns its
    /// canonical path to open, or the refusal. A file that does not exist inside the root is not a refusal: the
    /// result then fails with reason "not found" and `refused` false.
    struct Check {
        bool ok = false;
        bool refused = false;
        std::string canonical;
        RefusedReference refusal; ///< when refused
        std::string why;          ///< when not ok
    };
    Check check(const std::string& path) const;

    /// Opens `path` read-only after check(): returns a file descriptor (O_CLOEXEC), or -1 with `out` saying why.
    int open(const std::string& path, Check& out) const;

    /// Where references are named relative to (the model's folder), for messages.
    void setReferenceBase(const std::string& folder) { m_base = folder; }
    /// That folder ("" when none was set: an import from memory).
    const std::string& referenceBase() const { return m_base; }

private:
    std::string m_root;        ///< canonical
    std::string m_lexicalRoot; ///< absolute, as given (before symbolic links)
    std::string m_base;        ///< references in messages are relative to this
};

/// Percent-decodes %XX escapes (invalid escapes are kept as they are).
std::string percentDecode(const std::string& s);

/// The one-line message for a refusal: "<model>: refers to '<reference>' (<resolved>), <reason> <root>".
std::string refusalMessage(const std::string& model, const RefusedReference& r, const std::string& root);

} // namespace rig
