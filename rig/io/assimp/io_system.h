// Assimp's file access, through the asset root (rig/io/asset_root.h): the model file and every file Assimp's readers
// open besides it (glTF buffers, OBJ .mtl files, ...). A path outside the root is refused — Open() returns null, as for
// a missing file — and the first refusal is kept for the import's error message. Without a root (from memory) every
// file is missing and nothing is recorded. Nothing is written: Open() for writing, CreateDirectory and DeleteFile fail.
#pragma once

#include <optional>

#include <assimp/IOStream.hpp>
#include <assimp/IOSystem.hpp>

#include "rig/io/asset_root.h"

namespace rig::assimp_import {

class RootedIOSystem : public Assimp::IOSystem {
public:
    explicit RootedIOSystem(AssetRoot root) : m_root(std::move(root)) {}

    bool Exists(const char* file) const override;
    char getOsSeparator() const override { return '/'; }
    Assimp::IOStream* Open(const char* file, const char* mode = "rb") override;
    void Close(Assimp::IOStream* stream) override;
    bool CreateDirectory(const std::string&) override { return false; }
    bool DeleteFile(const std::string&) override { return false; }

    /// The first reference refused (Exists or Open of a path outside the root), if any.
    const std::optional<RefusedReference>& refused() const { return m_refused; }
    const AssetRoot& root() const { return m_root; }

private:
    void note(const AssetRoot::Check& c) const;
    AssetRoot m_root;
    mutable std::optional<RefusedReference> m_refused;
};

} // namespace rig::assimp_import
