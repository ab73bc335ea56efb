// The Assimp import's entry points (rig/io/import.h): the worker hop, the Assimp importer and its settings, the
// conversion (converter.h) and the error messages.
#include "rig/io/import.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <filesystem>
#include <new>

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/version.h>

#include "rig/io/assimp/converter.h"
#include "rig/io/assimp/io_system.h"
#include "rig/io/worker/import_worker.h"

namespace rig {

namespace {

using namespace assimp_import;

// Only these two steps. Never add JoinIdenticalVertices, LimitBoneWeights, Gen(Smooth)Normals, CalcTangentSpace,
// or anything else that merges vertices or touches weights: they hide the problems this tool exists to show.
constexpr unsigned kPostProcess = aiProcess_Triangulate | aiProcess_ValidateDataStructure;

/// Runs `read` (which returns the scene or null) and converts its result; no exception escapes.
template <typename Read>
Result<Rig> importWith(const std::string& displayName, const ImportOptions& options, RawGltfSource raw,
                       const std::string& format, const AssetRoot& root, Read read)
{
    // Out of memory: in the worker (addressSpaceLimited) that means the file needs more than the allocation cap, a
    // corrupted count in a text format can make a parser reserve tens of GiB before it fails; the precise check of
    // what the rig needs (the estimate in Converter) gives the usual "needs N MiB" message before that.
    auto outOfMemory = [&](const char* when) {
        if (options.addressSpaceLimited)
            return fail(displayName + ": " + allocationCapReason(options.memoryBudgetBytes));
        return fail(displayName + ": out of memory while " + when);
    };
    // A reference outside the asset root fails the import, whether or not the reader could do without the file.
    RefusedReference rawRefused;
    auto refusal = [&](const RefusedReference& r) {
        if (options.refused)
            *options.refused = r;
        return fail(refusalMessage(displayName, r, root.path()));
    };
    try {
        Assimp::Importer importer;
        auto* io = new RootedIOSystem(root); // every file Assimp opens, the model's included; the importer owns it
        importer.SetIOHandler(io);
        // Keep every bone, also ones without weights (FBX clusters): the skin lists what the file lists.
        importer.SetPropertyBool(AI_CONFIG_IMPORT_REMOVE_EMPTY_BONES, false);
        const aiScene* scene = read(importer);
        if (io->refused())
            return refusal(*io->refused());
        if (!scene) {
            std::string reason = oneLine(importer.GetErrorString());
            if (reason == "std::bad_alloc") // Assimp catches its own allocation failures and reports what()
                return outOfMemory("reading the file");
            if (reason.empty())
                reason = "Assimp could not read the file";
            return fail(displayName + ": " + reason);
        }
        // Assimp picks its reader by the extension (the hint) first: the one that flips V for these formats.
        raw.root = &root;
        raw.refused = &rawRefused;
        Converter converter(*scene, displayName, options, raw, assimpFlipsV(format));
        converter.setAssetAccess(&root, root.referenceBase());
        Result<Rig> rig = converter.run();
        if (!rawRefused.reason.empty())
            return refusal(rawRefused);
        return rig;
    } catch (const std::bad_alloc&) {
        return outOfMemory("importing");
    } catch (const std::exception& e) {
        const std::string reason = oneLine(e.what());
        return fail(displayName + ": " + (reason.empty() ? std::string("import failed") : reason));
    } catch (...) {
        return fail(displayName + ": import failed (unknown exception)");
    }
}

} // namespace

Result<Rig> importFile(const std::string& path, const ImportOptions& options)
{
    if (options.isolate) {
        WorkerJob job;
        job.displayName = path;
        job.path = path;
        return importInWorker(job, options);
    }
    try {
        std::error_code ec;
        const std::filesystem::file_status status = std::filesystem::status(path, ec);
        if (path.empty() || ec || !std::filesystem::exists(status))
            return fail(path + ": no such file");
        if (!std::filesystem::is_regular_file(status))
            return fail(path + ": not a regular file");
    } catch (...) {
        return fail(path + ": no such file");
    }
    Result<AssetRoot> root = options.assetRoot.empty() ? AssetRoot::forFile(path) : AssetRoot::make(options.assetRoot);
    if (!root)
        return fail(path + ": " + root.error());
    {
        const AssetRoot::Check self = root.value().check(path);
        if (self.refused)
            return fail(path + ": the file lies outside the asset root " + root.value().path() + " (" + self.refusal.reason + ")");
        if (!self.ok)
            return fail(path + ": " + (self.why == "not found" ? std::string("no such file") : self.why));
    }
    try {
        std::string folder = std::filesystem::absolute(path).parent_path().lexically_normal().string();
        root.value().setReferenceBase(folder);
    } catch (...) {
    }
    RawGltfSource raw;
    std::string extension;
    try {
        extension = std::filesystem::path(path).extension().string();
        if (!extension.empty())
            extension.erase(0, 1);
        if (isGltfFormat(extension)) {
            raw.kind = RawGltfSource::Kind::File;
            raw.path = path;
        }
    } catch (...) {
    }
    return importWith(path, options, raw, extension, root.value(),
                      [&path](Assimp::Importer& importer) { return importer.ReadFile(path, kPostProcess); });
}

Result<Rig> importMemory(const void* data, size_t size, const std::string& formatHint, const std::string& displayName,
                         const ImportOptions& options)
{
    if (!data || size == 0)
        return fail(displayName + ": empty buffer");
    if (options.isolate) {
        WorkerJob job;
        job.displayName = displayName;
        job.data = data;
        job.size = size;
        job.formatHint = formatHint;
        return importInWorker(job, options);
    }
    std::string hint = formatHint;
    if (!hint.empty() && hint.front() == '.')
        hint.erase(0, 1);
    const bool hintOk = hint.size() <= 16 && std::all_of(hint.begin(), hint.end(), [](char c) {
                            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
                        });
    if (!hintOk)
        return fail(displayName + ": invalid format hint '" + oneLine(formatHint) + "'");
    RawGltfSource raw;
    if (isGltfFormat(hint)) {
        raw.kind = RawGltfSource::Kind::Memory;
        raw.data = data;
        raw.size = size;
    }
    // From memory there is no folder: external references are refused unless the caller names a root.
    AssetRoot root;
    if (!options.assetRoot.empty()) {
        auto r = AssetRoot::make(options.assetRoot);
        if (!r)
            return fail(displayName + ": " + r.error());
        root = std::move(r.value());
    }
    return importWith(displayName, options, raw, hint, root, [&](Assimp::Importer& importer) {
        return importer.ReadFileFromMemory(data, size, kPostProcess, hint.c_str());
    });
}

namespace {
// Formats that carry skins and that Assimp 5.2 reads: glTF 2, FBX, Collada, DirectX X, Valve SMD, Doom 3 MD5,
// MilkShape 3D, Blitz3D.
constexpr std::string_view kRigExtensions[] = {"gltf", "glb", "fbx", "dae", "x", "smd", "md5mesh", "ms3d", "b3d"};
} // namespace

bool isRigFileName(const std::string& path)
{
    const size_t dot = path.find_last_of('.');
    const size_t slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        return false;
    std::string ext = path.substr(dot + 1);
    for (char& c : ext)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return std::find(std::begin(kRigExtensions), std::end(kRigExtensions), ext) != std::end(kRigExtensions);
}

std::string rigFileExtensions()
{
    std::string s;
    for (std::string_view e : kRigExtensions)
        s += (s.empty() ? "" : ", ") + std::string(e);
    return s;
}

std::string assimpVersion()
{
    return std::to_string(aiGetVersionMajor()) + "." + std::to_string(aiGetVersionMinor()) + "." +
           std::to_string(aiGetVersionPatch());
}

} // namespace rig
