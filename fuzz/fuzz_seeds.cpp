// Writes the fuzzer's seed corpus: fuzz_seeds OUT_DIR MAX_BYTES FILE...
//
// For every model file: the file itself (when it is at most MAX_BYTES), and the same scene re-exported by Assimp to
// every format the fuzzer feeds (GLB, Collada, X, binary and ASCII FBX, OBJ), each at most MAX_BYTES. Re-exporting
// gives small seeds of every format from the small glTF rigs, and self-contained GLBs from .gltf files whose buffers
// live in separate .bin files. Each seed starts with the hint byte of its format (hostile::kHints: '0' = gltf,
// '1' = glb, '2' = fbx, '3' = dae, '4' = x, '5' = obj), the layout fuzz_import.cpp reads.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <assimp/Exporter.hpp>
#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include "hostile_pipeline.h"

namespace fs = std::filesystem;

namespace {

int hintIndex(const std::string& ext)
{
    for (size_t i = 0; i < hostile::kHintCount; ++i)
        if (ext == hostile::kHints[i])
            return int(i);
    return -1;
}

bool writeSeed(const fs::path& out, int hint, const void* data, size_t size)
{
    std::ofstream f(out, std::ios::binary);
    const char prefix = char('0' + hint);
    f.put(prefix);
    f.write(static_cast<const char*>(data), std::streamsize(size));
    return bool(f);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: fuzz_seeds OUT_DIR MAX_BYTES FILE...\n");
        return 2;
    }
    const fs::path outDir = argv[1];
    const size_t maxBytes = std::stoul(argv[2]);
    fs::create_directories(outDir);

    // Assimp exporter id, extension (= fuzz hint).
    const std::pair<const char*, const char*> exports[] = {
        {"glb2", "glb"}, {"collada", "dae"}, {"x", "x"}, {"fbx", "fbx"}, {"fbxa", "fbx"}, {"obj", "obj"},
    };

    size_t copied = 0;
    for (int a = 3; a < argc; ++a) {
        const fs::path path = argv[a];
        std::string ext = path.extension().string();
        if (!ext.empty())
            ext.erase(0, 1);
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        const int hint = hintIndex(ext);
        if (hint < 0)
            continue;
        const std::string stem = path.parent_path().filename().string() + "__" + path.stem().string();

        std::ifstream in(path, std::ios::binary);
        const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (!bytes.empty() && bytes.size() <= maxBytes && writeSeed(outDir / (stem + "." + ext), hint, bytes.data(), bytes.size()))
            ++copied;

        // Assimp's exporters hit their own ai_assert (an abort in Debian's build) on some scenes: export in a child
        // process so that one such scene costs only its own seeds.
        std::fflush(stdout);
        const pid_t child = fork();
        if (child == 0) {
            Assimp::Importer importer;
            const aiScene* scene = importer.ReadFile(path.string(), aiProcess_Triangulate);
            if (!scene)
                _exit(0); // the broken corpus: kept as is above
            Assimp::Exporter exporter;
            for (const auto& [id, extension] : exports) {
                // Only the main file of an export (the .mtl of OBJ or textures come as further blobs: not needed).
                const aiExportDataBlob* blob = exporter.ExportToBlob(scene, id);
                if (blob && blob->size > 0 && blob->size <= maxBytes)
                    writeSeed(outDir / (stem + "." + id + "." + extension), hintIndex(extension), blob->data, blob->size);
            }
            _exit(0);
        }
        int status = 0;
        if (child > 0)
            waitpid(child, &status, 0);
        if (child < 0 || !WIFEXITED(status))
            std::fprintf(stderr, "fuzz_seeds: exporting %s stopped early (Assimp exporter failure); its other seeds are kept\n",
                         path.string().c_str());
    }
    size_t total = 0;
    for (const auto& entry : fs::directory_iterator(outDir))
        total += entry.is_regular_file() ? 1 : 0;
    std::printf("fuzz_seeds: %zu files copied, %zu seeds in %s (each at most %zu bytes)\n", copied, total,
                outDir.string().c_str(), maxBytes);
    return 0;
}
