// The Converter's materials: each mesh's base colour factor and base colour texture (for the lit view). Images are
// collected once per distinct source, as the file's encoded bytes (or an embedded texture's raw texels); decoding is
// the import worker's job (worker/decode_image.h), inside its sandbox.
#include "rig/io/assimp/converter.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <assimp/material.h>
#include <assimp/texture.h>

#include "rig/model/structure.h"

namespace rig::assimp_import {

namespace {

std::string lowerExtension(const std::string& path)
{
    const size_t dot = path.find_last_of('.');
    const size_t slash = path.find_last_of("/\\");
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        return {};
    const std::string e = lowerCase(path.substr(dot + 1));
    return e.size() <= 8 ? e : std::string();
}

std::string baseName(const std::string& path)
{
    const size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// Reads at most `limit` bytes of an open file; false when it is larger or a read fails.
bool readFile(int fd, size_t limit, std::vector<uint8_t>& out, std::string& why)
{
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        why = std::strerror(errno);
        return false;
    }
    if (st.st_size < 0 || uint64_t(st.st_size) > limit) {
        why = "it is " + std::to_string(uint64_t(st.st_size) >> 20) + " MiB, over the limit of " +
              std::to_string(limit >> 20) + " MiB";
        return false;
    }
    out.resize(size_t(st.st_size));
    size_t done = 0;
    while (done < out.size()) {
        const ssize_t n = ::read(fd, out.data() + done, out.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            why = n < 0 ? std::strerror(errno) : "the file is shorter than its size";
            return false;
        }
        done += size_t(n);
    }
    return true;
}

} // namespace

void Converter::readMaterial(unsigned materialIndex, Mesh& mesh)
{
    if (!m_scene.mMaterials || materialIndex >= m_scene.mNumMaterials || !m_scene.mMaterials[materialIndex])
        return;
    const aiMaterial& mat = *m_scene.mMaterials[materialIndex];
    aiColor4D c;
    if (mat.Get(AI_MATKEY_BASE_COLOR, c) == aiReturn_SUCCESS || mat.Get(AI_MATKEY_COLOR_DIFFUSE, c) == aiReturn_SUCCESS) {
        const glm::vec4 color(c.r, c.g, c.b, c.a);
        if (std::isfinite(color.x + color.y + color.z + color.w))
            mesh.baseColor = color; // as the file gives it (the viewport clamps what it shows)
    }
    auto cached = m_materialImage.find(materialIndex);
    if (cached == m_materialImage.end())
        cached = m_materialImage.emplace(materialIndex, materialImage(mat, materialIndex)).first;
    mesh.baseColorImage = cached->second;
    if (mesh.baseColorImage >= 0 && mesh.baseColor.w < 0.0f)
        mesh.baseColor = glm::vec4(1.0f); // glTF's default factor: the texture alone
}

int Converter::materialImage(const aiMaterial& mat, unsigned materialIndex)
{
    aiString path;
    unsigned uvIndex = 0;
    aiTextureType type = aiTextureType_BASE_COLOR;
    if (mat.GetTexture(type, 0, &path, nullptr, &uvIndex) != aiReturn_SUCCESS) {
        type = aiTextureType_DIFFUSE;
        uvIndex = 0;
        if (mat.GetTexture(type, 0, &path, nullptr, &uvIndex) != aiReturn_SUCCESS)
            return -1;
    }
    const std::string reference = str(path);
    aiString matName;
    const std::string label = mat.Get(AI_MATKEY_NAME, matName) == aiReturn_SUCCESS && matName.length > 0
                                  ? "material '" + oneLine(str(matName)) + "'"
                                  : "material " + std::to_string(materialIndex);
    const std::string shown = "'" + oneLine(reference) + "'";
    // One note per image that cannot be shown, on the first material that uses it.
    std::string key = reference;
    auto skip = [&](const std::string& why) {
        note(Severity::Warning, label + ": base colour texture " + shown + " " + why +
                                    "; the lit view shows the base colour factor alone");
        m_imageByKey.emplace(key, -1);
        return -1;
    };
    if (reference.empty())
        return -1;
    if (uvIndex != 0) {
        note(Severity::Warning, label + ": base colour texture " + shown + " uses UV set " + std::to_string(uvIndex) +
                                    " (RigScope reads UV0 only); the lit view shows the base colour factor alone");
        return -1;
    }

    if (auto it = m_imageByKey.find(key); it != m_imageByKey.end())
        return it->second;

    // Embedded: "*N" (glTF's images in the binary chunk or data: URIs), or a texture Assimp keeps under a file name
    // (FBX's embedded media).
    const aiTexture* embedded = nullptr;
    if (reference[0] == '*') {
        char* end = nullptr;
        const unsigned long n = std::strtoul(reference.c_str() + 1, &end, 10);
        if (!end || *end || !m_scene.mTextures || n >= m_scene.mNumTextures || !m_scene.mTextures[n])
            return skip("names an embedded image the file does not have");
        embedded = m_scene.mTextures[n];
        key = "*" + std::to_string(n);
    } else if (m_scene.mTextures) {
        const std::string want = baseName(reference);
        for (unsigned i = 0; i < m_scene.mNumTextures && !embedded; ++i)
            if (m_scene.mTextures[i] && m_scene.mTextures[i]->mFilename.length > 0 &&
                baseName(str(m_scene.mTextures[i]->mFilename)) == want) {
                embedded = m_scene.mTextures[i];
                key = "*" + std::to_string(i);
            }
    }
    if (auto it = m_imageByKey.find(key); it != m_imageByKey.end())
        return it->second;

    Image image;
    if (embedded) {
        image.name = "embedded image " + key.substr(1);
        if (embedded->mHeight == 0) {
            // Compressed: mWidth bytes of a PNG, JPEG, ... file.
            if (!embedded->pcData || embedded->mWidth == 0)
                return skip("is empty");
            if (embedded->mWidth > kMaxEncodedImageBytes)
                return skip("is " + std::to_string(embedded->mWidth >> 20) + " MiB, over the limit of " +
                            std::to_string(kMaxEncodedImageBytes >> 20) + " MiB");
            const auto* bytes = reinterpret_cast<const uint8_t*>(embedded->pcData);
            image.encoded.assign(bytes, bytes + embedded->mWidth);
            image.formatHint =
                lowerCase(std::string(embedded->achFormatHint, strnlen(embedded->achFormatHint, sizeof embedded->achFormatHint)));
        } else {
            // Raw texels (BGRA8), already decoded.
            if (!embedded->pcData || embedded->mWidth > kMaxImageSide || embedded->mHeight > kMaxImageSide)
                return skip("has a size over the limit of " + std::to_string(kMaxImageSide) + " texels a side");
            image.width = embedded->mWidth;
            image.height = embedded->mHeight;
            const size_t texels = size_t(image.width) * image.height;
            image.rgba.resize(texels * 4);
            for (size_t t = 0; t < texels; ++t) {
                const aiTexel& x = embedded->pcData[t];
                uint8_t* o = &image.rgba[4 * t];
                o[0] = x.r, o[1] = x.g, o[2] = x.b, o[3] = x.a;
            }
            image.formatHint = "raw";
        }
    } else {
        // An external file, read through the asset root: relative to the model's folder, as the file names it, else
        // (a path from another machine, as FBX files often carry) its file name alone beside the model.
        image.name = oneLine(reference);
        image.formatHint = lowerExtension(reference);
        if (!m_root || !m_root->valid() || m_modelFolder.empty())
            return skip("is an external file, which cannot be read when the model comes from memory");
        std::string spelled = reference;
        std::replace(spelled.begin(), spelled.end(), '\\', '/');
        std::vector<std::string> candidates;
        try {
            namespace fs = std::filesystem;
            const fs::path folder(m_modelFolder);
            for (const std::string& s : {spelled, percentDecode(spelled)}) {
                const fs::path p(s);
                candidates.push_back((p.is_absolute() ? p : folder / p).lexically_normal().string());
            }
            candidates.push_back((folder / baseName(spelled)).lexically_normal().string());
        } catch (...) {
            return skip("has a path that cannot be read");
        }
        std::string why = "was not found beside the model";
        bool read = false;
        for (size_t i = 0; i < candidates.size() && !read; ++i) {
            if (i > 0 && candidates[i] == candidates[i - 1])
                continue;
            AssetRoot::Check check;
            const int fd = m_root->open(candidates[i], check);
            if (fd < 0) {
                if (check.refused) {
                    why = "lies outside the asset root " + m_root->path() + " (" + check.refusal.reason +
                          "); open the model with a wider asset root to show it";
                    break;
                }
                continue;
            }
            std::string readWhy;
            read = readFile(fd, kMaxEncodedImageBytes, image.encoded, readWhy);
            ::close(fd);
            if (!read) {
                why = "could not be read (" + readWhy + ")";
                break;
            }
            if (i == candidates.size() - 1 && candidates.size() > 1)
                note(Severity::Info, label + ": base colour texture " + shown + " found by its file name beside the model");
        }
        if (!read)
            return skip(why);
    }
    const int index = int(m_rig.images.size());
    m_rig.images.push_back(std::move(image));
    m_imageByKey.emplace(key, index);
    return index;
}

} // namespace rig::assimp_import
