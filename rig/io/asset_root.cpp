#include "rig/io/asset_root.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace rig {

namespace fs = std::filesystem;

namespace {

/// Absolute and lexically normal (no "." or "..", no symbolic links resolved), without touching the file system but
/// for the working directory.
std::string lexicalAbsolute(const std::string& p)
{
    std::error_code ec;
    fs::path a = fs::path(p);
    if (!a.is_absolute()) {
        const fs::path cwd = fs::current_path(ec);
        a = ec ? a : cwd / a;
    }
    std::string s = a.lexically_normal().string();
    while (s.size() > 1 && s.back() == '/')
        s.pop_back();
    return s;
}

/// realpath(), or "" when some component does not exist.
std::string resolved(const std::string& p)
{
    char buf[PATH_MAX];
    if (!::realpath(p.c_str(), buf))
        return {};
    return buf;
}

} // namespace

std::string percentDecode(const std::string& s)
{
    auto hex = [](char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            out.push_back(char(hex(s[i + 1]) * 16 + hex(s[i + 2])));
            i += 2;
        } else {
            out.push_back(s[i]);
        }
    }
    return out;
}

Result<AssetRoot> AssetRoot::make(const std::string& root)
{
    if (root.empty())
        return fail("the asset root is empty");
    const std::string r = resolved(root);
    struct stat st {};
    if (r.empty() || ::stat(r.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return fail(root + ": the asset root is not a folder");
    AssetRoot a;
    a.m_root = r;
    a.m_lexicalRoot = lexicalAbsolute(root);
    a.m_base = a.m_lexicalRoot;
    return a;
}

Result<AssetRoot> AssetRoot::forFile(const std::string& modelPath)
{
    std::string folder = fs::path(lexicalAbsolute(modelPath)).parent_path().string();
    if (folder.empty())
        folder = "/";
    auto r = make(folder);
    if (!r)
        return r;
    return r;
}

namespace {
bool within(const std::string& folder, const std::string& p)
{
    if (folder.empty())
        return false;
    if (folder == "/")
        return !p.empty() && p.front() == '/';
    return p == folder || (p.size() > folder.size() && p.compare(0, folder.size(), folder) == 0 && p[folder.size()] == '/');
}
} // namespace

bool AssetRoot::contains(const std::string& canonical) const { return within(m_root, canonical); }

AssetRoot::Check AssetRoot::check(const std::string& path) const
{
    Check c;
    const std::string lexical = lexicalAbsolute(path);
    auto refuse = [&](std::string where, std::string reason, RefusedReference::Kind kind) {
        c.refused = true;
        c.refusal.kind = kind;
        c.refusal.resolved = std::move(where);
        c.refusal.reason = std::move(reason);
        std::error_code ec;
        const fs::path rel = fs::path(lexical).lexically_relative(m_base.empty() ? fs::path("/") : fs::path(m_base));
        c.refusal.reference = !rel.empty() ? rel.string() : path;
        c.why = c.refusal.reason;
        return c;
    };
    if (m_root.empty())
        return refuse(lexical, "no asset root allows reading files", RefusedReference::Kind::NoRoot);
    // The root as given may itself be reached through a symbolic link (a temporary folder, /home): the lexical path
    // is compared with the root both as given and as resolved; the resolved path below only with the resolved root.
    auto inside = [this](const std::string& p) { return within(m_root, p) || within(m_lexicalRoot, p); };
    if (!inside(lexical))
        return refuse(lexical, "outside the asset root", RefusedReference::Kind::Outside);
    const std::string decoded = percentDecode(path);
    if (decoded != path && !inside(lexicalAbsolute(decoded)))
        return refuse(lexicalAbsolute(decoded), "outside the asset root once percent-decoded", RefusedReference::Kind::Outside);
    const std::string real = resolved(lexical);
    if (real.empty()) {
        c.why = "not found";
        return c;
    }
    if (!contains(real))
        return refuse(real, "outside the asset root through a symbolic link", RefusedReference::Kind::Outside);
    struct stat st {};
    if (::stat(real.c_str(), &st) != 0) {
        c.why = std::strerror(errno);
        return c;
    }
    if (!S_ISREG(st.st_mode))
        return refuse(real, "not a regular file", RefusedReference::Kind::NotRegular);
    c.ok = true;
    c.canonical = real;
    return c;
}

int AssetRoot::open(const std::string& path, Check& out) const
{
    out = check(path);
    if (!out.ok)
        return -1;
    struct stat before {};
    if (::stat(out.canonical.c_str(), &before) != 0) {
        out.ok = false;
        out.why = std::strerror(errno);
        return -1;
    }
    // The canonical path has no symbolic link left; O_NOFOLLOW refuses one swapped in since, O_NONBLOCK keeps a FIFO
    // swapped in from blocking the open.
    const int fd = ::open(out.canonical.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        out.ok = false;
        out.why = std::strerror(errno);
        return -1;
    }
    struct stat after {};
    if (::fstat(fd, &after) != 0 || !S_ISREG(after.st_mode) || after.st_dev != before.st_dev || after.st_ino != before.st_ino) {
        ::close(fd);
        out.ok = false;
        out.refused = true;
        out.refusal.resolved = out.canonical;
        out.refusal.reason = "changed while it was being opened";
        out.refusal.kind = RefusedReference::Kind::Changed;
        out.refusal.reference = path;
        out.why = out.refusal.reason;
        return -1;
    }
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

std::string refusalMessage(const std::string& model, const RefusedReference& r, const std::string& root)
{
    std::string m = model + ": refers to '" + r.reference + "'";
    if (!r.resolved.empty() && r.resolved != r.reference)
        m += " (" + r.resolved + ")";
    m += ", " + r.reason;
    if (r.outsideRoot())
        m += " " + (root.empty() ? std::string("(none)") : root) + " (give --asset-root to allow a wider folder)";
    return m;
}

} // namespace rig
