// Skinning of positions, normals and tangents by every method (the CPU reference implementation).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>

#include "rig/deform/joint_frames.h"

namespace rig {

/// The deformation methods. Ids (methodId) are stable: the command line, the report and the GPU use them.
enum class Method : uint8_t {
    PositionsOnly,         ///< "positions-only": rest normals/tangents
    Linear,                ///< "linear": blended 3x3 for normals and tangents
    BlendInverseTranspose, ///< "blend-inverse-transpose": Σ w R^{-T} for normals
    InverseTranspose,      ///< "inverse-transpose": (Σ w R)^{-T}
    Cofactor,              ///< "cofactor": cof(Σ w R)
    DualQuaternion,        ///< "dual-quaternion": two-phase DQS (scale/shear blended linearly)
    Jacobian,              ///< "jacobian": blended matrix + weight-gradient term, normal by its cofactor
    CenterOfRotation,      ///< "center-of-rotation": blended rotation about a precomputed centre (Le & Hodgins 2016)
    Rebuilt,               ///< "rebuilt": the reference, from the final triangles
};
inline constexpr int kMethodCount = 9;

std::string_view methodId(Method m);
std::optional<Method> methodFromId(std::string_view id);
const std::vector<Method>& allMethods();
/// The methods whose positions are their own, not the linear blend's: dual-quaternion and center-of-rotation. Every
/// other method shares the linear positions (and so their rebuilt reference).
constexpr bool ownPositions(Method m)
{
    return m == Method::DualQuaternion || m == Method::CenterOfRotation;
}

/// Per-vertex flags written by a skin job.
enum SkinFlag : uint8_t {
    SkinFlagNone = 0,
    SkinFlagDqFallback = 1,  ///< dual-quaternion, center-of-rotation: a mirrored or singular joint influences the
                             ///< vertex (no rotation to blend): the linear blend is used
    SkinFlagSingular = 2,    ///< the normal transform was singular: the normal is undefined (zero)
};

/// Weight gradients for the jacobian method, CSR per vertex: for vertex v, entries [offsets[v], offsets[v+1])
/// hold (palette joint, ∇w of that joint) for every joint whose weight varies around v (see weight_gradients.h).
/// The same terms by blocks of 16 vertices (WeightGradients' block plan, read by the SIMD kernels) may come with them;
/// empty: the kernels read the lists above. Its slot weights (and blockFolded) must come from the job's own joints
/// and weights (planGradientBlocks with them, as buildRuntime does): the AVX-512 kernel blends a folded block's A from
/// them instead of from job.weights.
struct WeightGradientsView {
    std::span<const uint32_t> offsets;
    std::span<const uint16_t> joints;
    std::span<const glm::vec3> gradients;
    std::span<const uint32_t> blockSlots;
    std::span<const uint32_t> blockData;
    std::span<const uint32_t> slotEntries;
    std::span<const float> slotGradients;
    std::span<const uint32_t> blockHalves;
    std::span<const float> slotWeights;
    std::span<const uint8_t> blockFolded;
    size_t unplannedBlocks = 0; ///< the kUnplanned blocks of blockSlots: a hint for jobKernel, no result depends on it
};

/// Skins vertices [first, last) of one mesh with one method. A stateless job: validate(), then run().
/// Inputs are the morphed bind-space attributes. Normals and tangents come out normalised; an undefined direction
/// (zero length, or singular transform) is the zero vector. Tangent w is copied from the input.
struct SkinJob {
    Method method = Method::Linear;
    std::span<const JointFrame> palette;  ///< paletteSize entries (see InfluenceStream)
    int influencesPerVertex = 4;
    std::span<const uint16_t> joints;     ///< vertexCount * K, every value < palette.size()
    std::span<const float> weights;       ///< vertexCount * K
    WeightGradientsView gradients;        ///< required by Method::Jacobian only
    /// Required by Method::CenterOfRotation only: each vertex's centre of rotation (centers_of_rotation.h), in the
    /// bind space of `positions`.
    std::span<const glm::vec3> centers;

    std::span<const glm::vec3> positions;
    std::span<const glm::vec3> normals;
    std::span<const glm::vec4> tangents;  ///< may be empty (no tangents)

    std::span<glm::vec3> outPositions;    ///< may be empty (not written) for every method but linear and ownPositions()
    std::span<glm::vec3> outNormals;      ///< may be empty for positions-only (the rest normals are the inputs)
    std::span<glm::vec4> outTangents;     ///< empty when tangents is empty; may be empty for positions-only
    std::span<uint8_t> outFlags;          ///< optional: SkinFlag per vertex

    size_t first = 0;
    size_t last = SIZE_MAX;               ///< clamped to the vertex count

    /// Returns false when sizes disagree or a required input is missing. Method::Rebuilt is not a skin job.
    bool validate() const;
    void run() const;
};

/// The implementations of Method::Linear (K = 4 or 8). SkinJob::run picks the best this CPU has, once per process;
/// the SIMD ones equal the scalar path within float rounding (FMA, rsqrt + Newton) — tested to 1e-5 relative for
/// positions, 0.01° and unit length to 1e-5 for directions, tangent w exactly.
enum class LinearKernel : uint8_t {
    Scalar,
    Avx2,   ///< AVX2 + FMA, one vertex per 256-bit pair of registers
    Avx512, ///< AVX-512 F/DQ/BW/VL, four vertices per group, whole-line (non-temporal for large jobs) stores
};

/// True when this CPU (and OS) can run `k`.
bool linearKernelAvailable(LinearKernel k);
/// The best kernel family for Method::Linear on this CPU: AVX-512, else AVX2+FMA, else scalar. What a given job runs:
/// jobKernel (where the CPU runs AVX-512 at half width, most linear jobs run AVX2).
LinearKernel linearKernel();
std::string_view linearKernelName(LinearKernel k); ///< "scalar", "AVX2+FMA", "AVX-512"

/// Runs the job's range as Method::Linear with kernel `k` (which must be available), whatever job.method says.
/// For tests and the benchmark; it falls back to the scalar path, as run() does, when a palette matrix is not finite.
void runLinearKernel(const SkinJob& job, LinearKernel k);

/// The best kernel family for method `m` on this CPU: linearKernel() for Linear; AVX-512 for positions-only, cofactor,
/// inverse-transpose, blend-inverse-transpose, dual-quaternion and the jacobian when the CPU has it (and AVX2+FMA);
/// else AVX2+FMA when the CPU has it; else scalar. (The enum is LinearKernel for history: it names the kernels of every
/// method.) What a given job runs: jobKernel.
LinearKernel methodKernel(Method m);
/// The kernel SkinJob::run runs for `job` on this CPU: methodKernel(job.method), except for positions-only on an
/// AVX-512 machine, which runs AVX2+FMA when it copies the rest frames (the copy and normalisation bound it, not the
/// blend), and for positions alone, blend-inverse-transpose, linear and the jacobian where the CPU runs AVX-512 as two
/// 256-bit halves (cpuHasHalfWidthAvx512: there their AVX2 loops are the faster, measured in BENCHMARKS.md; for linear
/// up to the size where halfWidthLinearKernel takes AVX-512, for the jacobian as halfWidthJacobianKernel says).
LinearKernel jobKernel(const SkinJob& job);

/// Output bytes of a linear job past which, where the CPU runs AVX-512 at half width, the AVX-512 kernel is the faster
/// one: its non-temporal stores pay once memory bandwidth bounds the job (on Zen 4: AVX2 x1.04-1.06 at 100k and 1M
/// vertices, 40 MB of outputs; AVX-512 x1.1 on two threads from 2M, 80 MB).
inline constexpr size_t kHalfWidthLinearStreamingBytes = size_t(48) << 20;
/// The linear kernel for a job of `vertices` vertices with those outputs (12, 12 and 16 bytes a vertex) on a CPU that
/// runs AVX-512 at half width: AVX2, or AVX-512 where the outputs pass kHalfWidthLinearStreamingBytes. The rule alone,
/// whatever this CPU is (jobKernel applies it where cpuHasHalfWidthAvx512).
LinearKernel halfWidthLinearKernel(size_t vertices, bool positions, bool normals, bool tangents);
/// Vertices below which, where the CPU runs AVX-512 at half width, the jacobian's AVX2 kernel is the faster one for a
/// job its weight gradients' plan covers: on Zen 4 (the benchmark rig, one thread) AVX2 x1.18 at 25k vertices, x1.11
/// at 50k, x1.03-1.07 at 100k-400k, x0.99 at 600k, x0.98 at 1M. At 16k, where three of its blocks in four are
/// unplanned, x0.84: the AVX2 kernel runs an unplanned block vertex by vertex, the AVX-512 one in its group layout.
inline constexpr size_t kHalfWidthJacobianAvx2Vertices = size_t(1) << 19;
/// The jacobian kernel for a job of `vertices` vertices whose plan has `blocks` blocks, `unplannedBlocks` of them
/// unplanned, on a CPU that runs AVX-512 at half width: AVX2 below kHalfWidthJacobianAvx2Vertices where at most one
/// block in sixteen is unplanned (and there is a plan); else AVX-512. The rule alone, whatever this CPU is (jobKernel
/// applies it where cpuHasHalfWidthAvx512, to the job's whole arrays).
LinearKernel halfWidthJacobianKernel(size_t vertices, size_t blocks, size_t unplannedBlocks);
/// Whether method `m`'s AVX2 kernel runs here as its build over AVX-512VL's 32 vector registers (the same 256-bit code,
/// fewer spills: skinning_methods_avx2_evex.cpp): where the CPU has AVX-512 and nothing caps it (RIGSCOPE_ISA), for
/// every method but linear (its own kernels) and positions-only (x0.97-0.98 so on Zen 4). An AVX2-only machine runs
/// the plain build.
bool avx2KernelsUseEvex(Method m);
/// Kernel `k`'s name for method `m` as this CPU runs it: linearKernelName(k), with ", 32 registers" for the AVX2
/// kernel where avx2KernelsUseEvex(m).
std::string methodKernelName(Method m, LinearKernel k);
/// Runs the job's range with kernel `k` (which must be available; AVX-512 means AVX2 for the methods without an
/// AVX-512 kernel). Falls back to the scalar path, as run() does, when an entry of the palette is not finite.
void runMethodKernel(const SkinJob& job, LinearKernel k);

/// True when this CPU runs a SIMD fast path of Method::Linear (linearKernel() != Scalar).
bool linearFastPathAvailable();

/// The scalar linear path, for tests that compare it with the fast path.
void runLinearScalar(const SkinJob& job);

} // namespace rig
