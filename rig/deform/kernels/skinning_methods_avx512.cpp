// The entry point of the AVX-512 kernels of the normal-correct methods (runMethodAvx512): the context of one run, and
// the method's blocks (skinning_methods_avx512.h, instantiated per method in skinning_cofactor_avx512.cpp,
// skinning_blends_avx512.cpp and skinning_jacobian_avx512.cpp). Compiled with AVX-512 F + DQ + BW + VL (and AVX2, FMA)
// only; called only when the CPU and the OS support them (cpuHasAvx512), through methodKernel().
#include "rig/deform/kernels/skinning_methods_avx512.h"

namespace rig::detail {

bool hasMethodAvx512(Method m)
{
    return m == Method::PositionsOnly || m == Method::Cofactor || m == Method::InverseTranspose ||
           m == Method::BlendInverseTranspose || m == Method::DualQuaternion || m == Method::Jacobian;
}

void runMethodAvx512(const SkinJob& job, const PaletteMatrix* pal, const MethodTables& tables, size_t first, size_t last)
{
    using namespace avx512m;
    assert(hasMethodAvx512(job.method));
    if (job.method == Method::PositionsOnly) {
        // Positions alone, sixteen at a time beside the linear kernel (with the rest frames copied the AVX2 kernel runs
        // the job: skinning.cpp's avx512Runs).
        assert(job.outNormals.empty() && job.outTangents.empty());
        runPositionsAvx512(job, pal, first, last);
        return;
    }
    const bool tangents = !job.tangents.empty() && !job.outTangents.empty();
    uint8_t fallback = 0;
    if (job.method == Method::BlendInverseTranspose && tables.anySingular)
        fallback = MethodTables::Singular;
    if (job.method == Method::DualQuaternion && (tables.anySingular || tables.anyMirrored))
        fallback = MethodTables::Singular | MethodTables::Mirrored;
    const Context c{constants(),
                    pal,
                    tables,
                    job.joints.data(),
                    job.weights.data(),
                    reinterpret_cast<const float*>(job.positions.data()),
                    reinterpret_cast<const float*>(job.normals.data()),
                    tangents ? reinterpret_cast<const float*>(job.tangents.data()) : nullptr,
                    job.outPositions.empty() ? nullptr : reinterpret_cast<float*>(job.outPositions.data()),
                    reinterpret_cast<float*>(job.outNormals.data()),
                    tangents ? reinterpret_cast<float*>(job.outTangents.data()) : nullptr,
                    job.outFlags.empty() ? nullptr : job.outFlags.data(),
                    job.gradients.offsets.data(),
                    job.gradients.joints.data(),
                    reinterpret_cast<const float*>(job.gradients.gradients.data()),
                    fallback,
                    job.gradients.blockSlots.empty() ? nullptr : job.gradients.blockSlots.data(),
                    job.gradients.blockData.data(),
                    job.gradients.slotEntries.data(),
                    job.gradients.slotGradients.data(),
                    job.gradients.slotWeights.empty() ? nullptr : job.gradients.slotWeights.data(),
                    job.gradients.slotWeights.empty() ? nullptr : job.gradients.blockFolded.data()};
    switch (job.method) {
    case Method::Cofactor: runBlocks<Method::Cofactor>(job, c, first, last); break;
    case Method::InverseTranspose: runBlocks<Method::InverseTranspose>(job, c, first, last); break;
    case Method::BlendInverseTranspose: runBlocks<Method::BlendInverseTranspose>(job, c, first, last); break;
    case Method::DualQuaternion: runBlocks<Method::DualQuaternion>(job, c, first, last); break;
    case Method::Jacobian: runBlocks<Method::Jacobian>(job, c, first, last); break;
    default: assert(false && "no AVX-512 kernel for this method"); break;
    }
}

} // namespace rig::detail
