#include "rig/analysis/baseline.h"

#include <cassert>
#include <vector>

namespace rig {

Baseline computeBaseline(const Rig& rig, std::span<const BindReference> bind)
{
    assert(bind.size() == rig.meshes.size());
    std::vector<float> normal, tangent, scratch;
    normal.reserve(rig.vertexCount());
    tangent.reserve(rig.vertexCount());
    for (size_t m = 0; m < rig.meshes.size(); ++m) {
        const Mesh& mesh = rig.meshes[m];
        const size_t n = mesh.vertexCount(), at = normal.size();
        normal.resize(at + n);
        tangent.resize(at + n, kUndefinedError);
        angularErrors(mesh.normals, bind[m].normals, std::span<float>(normal).subspan(at, n));
        if (mesh.hasTangents())
            angularErrors(mesh.tangents, bind[m].tangents, std::span<float>(tangent).subspan(at, n));
    }
    Baseline b;
    b.normal = errorStats(normal, scratch);
    b.tangent = errorStats(tangent, scratch);
    return b;
}

} // namespace rig
