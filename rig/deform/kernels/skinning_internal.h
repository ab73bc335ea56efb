// Internal to the skinning code: the compact palette the SIMD kernels read, and the kernel entry points.
#pragma once

#include <cassert>
#include <cstddef>
#include <span>
#include <type_traits>

#include "rig/deform/skinning.h"
#include "rig/deform/weight_gradients.h"

// The SIMD kernels' blocks are meant to live in registers: GCC would otherwise outline the big helpers and pass vector
// registers through memory.
#define RS_INLINE inline __attribute__((always_inline))
#define RS_INLINE_LAMBDA __attribute__((always_inline)) ///< the same for a lambda ([&](...) RS_INLINE_LAMBDA { })

namespace rig::detail {

/// f(a) with a as a compile-time constant (std::bool_constant): for a kernel instantiated for both values of a flag
/// that holds for a whole call (its outputs, whether the mesh has UVs), so that its loops test nothing per element.
template <typename F>
RS_INLINE auto withFlag(bool a, F f)
{
    return a ? f(std::true_type{}) : f(std::false_type{});
}

/// f(a, b) with both as compile-time constants, as withFlag.
template <typename F>
RS_INLINE auto withFlags(bool a, bool b, F f)
{
    return withFlag(a, [&](auto ca) RS_INLINE_LAMBDA { return withFlag(b, [&](auto cb) RS_INLINE_LAMBDA { return f(ca, cb); }); });
}

/// One palette entry as the SIMD kernels read it: the 3x4 affine part of JointFrame::matrix, column-major, each
/// column padded to four floats with 0 — (c0 | c1 | c2 | t), exactly one 64-byte cache line.
struct alignas(64) PaletteMatrix {
    float m[16];
};
static_assert(sizeof(PaletteMatrix) == 64);

/// A per-thread buffer of at least `count` entries (grows, never shrinks: the vertex loops allocate nothing).
PaletteMatrix* compactPaletteBuffer(size_t count);

/// Fills out[i] from palette[i].matrix. Returns false when an entry is not finite: the SIMD kernels multiply
/// zero-weight slots (joint 0, weight 0) instead of skipping them, so they must not meet inf or NaN there.
bool buildCompactPalette(std::span<const JointFrame> palette, PaletteMatrix* out);

/// Software prefetch of [start, start + bytes) into L1, a 64-byte line at a time, reading from `start` (not from its
/// line). Always inlined: the kernels call it in their block loops, where an ordinary call (or an inline function GCC
/// chose not to inline) cost a quarter of the jacobian kernel's speed.
[[gnu::always_inline]] inline void prefetchLines(const void* start, size_t bytes)
{
    const char* a = static_cast<const char*>(start);
    for (size_t l = 0; l < bytes; l += 64)
        __builtin_prefetch(a + l, 0, 3);
}

/// How far ahead the kernels prefetch their inputs: kPrefetchBlocks blocks of 16 vertices (about 8 KB), into L1. On the
/// benchmark machines +12% on one thread for the AVX-512 linear kernel over the hardware prefetchers alone, +3–10% for
/// the AVX2 kernels: the hardware's stream prefetch restarts at every 4 KB boundary of each input stream.
inline constexpr size_t kPrefetchBlocks = 8;

/// Software prefetch of the inputs of the 16 vertices from u: their joints and weights (K a vertex) where joints is
/// not null, positions, and normals and tangents where n and t are not null.
template <int K>
[[gnu::always_inline]] inline void prefetchInputs16(const uint16_t* joints, const float* weights, const float* p, const float* n,
                                                    const float* t, size_t u)
{
    if (joints) {
        prefetchLines(joints + K * u, 16 * K * sizeof(uint16_t));
        prefetchLines(weights + K * u, 16 * K * sizeof(float));
    }
    prefetchLines(p + 3 * u, 16 * 12);
    if (n)
        prefetchLines(n + 3 * u, 16 * 12);
    if (t)
        prefetchLines(t + 4 * u, 16 * 16);
}

/// The jacobian's block plan of block b (WeightGradientsView: its slot entries and their gradients, ~0.8 KB a block at
/// 1M vertices on the benchmark rig, ~0.9 at 100k): without it the kernels waited on the gradient loads at 1M vertices
/// (a third of the AVX-512 kernel's samples). Lines [first, first + Count) of a fixed 1 KB from the block's first
/// gradient (an AVX2 kernel's two halves take eight each; the slot entries with line 0), not the block's own size:
/// a loop of a data-dependent count ran each block and its exit mispredicted (with the fixed lines the AVX2 jacobian
/// at 1M ran ×1.00–1.07 in four paired series, the AVX-512 one ×1.03; Zen 4). Lines past the plan's end are not read
/// (a prefetch does not fault). b + 1 must be a block of the plan (blockSlots and blockData have blocks + 1 entries).
inline constexpr int kGradientPrefetchLines = 16;

/// Bytes of a block's slot weights (WeightGradients::slotWeights, one float per gradient triple) the AVX-512 jacobian's
/// folded blocks prefetch ahead: a third of kGradientPrefetchLines' 1 KB of gradients, rounded up to whole lines — the
/// benchmark rig's 100k plan holds ~295 bytes a block (9.3 slots of ~8 vertices). Fixed, like the gradients' lines, so
/// the loop unrolls into five prefetches with no branch on the block's own size.
inline constexpr size_t kSlotWeightPrefetchBytes = 5 * 64;

template <int Count = kGradientPrefetchLines>
[[gnu::always_inline]] inline void prefetchGradientBlock(const uint32_t* blockSlots, const uint32_t* blockData,
                                                         const uint32_t* slotEntries, const float* slotGradients,
                                                         size_t b, int first = 0)
{
    static_assert(Count > 0 && Count <= kGradientPrefetchLines);
    assert(first >= 0 && first + Count <= kGradientPrefetchLines);
    if (first == 0)
        __builtin_prefetch(slotEntries + (blockSlots[b] & ~WeightGradients::kUnplanned), 0, 3);
    const char* g = reinterpret_cast<const char*>(slotGradients + blockData[b]) + 64 * first;
    for (int l = 0; l < Count; ++l)
        __builtin_prefetch(g + 64 * l, 0, 3);
}

/// Output bytes of one job above which the kernels write with non-temporal stores (the result cannot stay in
/// the caches anyway, and streaming saves the read-for-ownership of every output line).
inline constexpr size_t kStreamingOutputBytes = size_t(8) << 20;

/// The output bytes of a job of `vertices` whose outputs are the positions, normals and tangents asked for (12, 12
/// and 16 bytes a vertex).
constexpr size_t outputBytes(size_t vertices, bool positions, bool normals, bool tangents)
{
    return vertices * ((positions ? 12 : 0) + (normals ? 12 : 0) + (tangents ? 16 : 0));
}

/// Whether such a job's outputs pass kStreamingOutputBytes: the AVX-512 kernels then stream their outputs, the AVX2
/// ones fetch their output lines for writing ahead.
constexpr bool outputsPassStreamingBytes(size_t vertices, bool positions, bool normals, bool tangents)
{
    return outputBytes(vertices, positions, normals, tangents) >= kStreamingOutputBytes;
}

/// Fetches the lines of [start, start + bytes) for writing (PREFETCHW: the read-for-ownership starts ahead of the
/// stores, which otherwise wait for it in the store buffer). Every x86-64 CPU with AVX2 executes it; Intel's before
/// Broadwell decode it as a no-op. Only on lines of the caller's own range: a line fetched for ownership is taken
/// from the other cores' caches.
[[gnu::always_inline]] inline void prefetchLinesForWrite(const void* start, size_t bytes)
{
    const char* a = static_cast<const char*>(start);
    for (size_t l = 0; l < bytes; l += 64)
        __asm__ volatile("prefetchw %0" ::"m"(a[l]));
}


/// Method::Linear, K = 4 or 8, on [first, last); `pal` from buildCompactPalette.
void runLinearAvx2(const SkinJob& job, const PaletteMatrix* pal, size_t first, size_t last);
void runLinearAvx512(const SkinJob& job, const PaletteMatrix* pal, size_t first, size_t last);
/// Method::PositionsOnly without normal and tangent outputs (positions alone), AVX-512.
void runPositionsAvx512(const SkinJob& job, const PaletteMatrix* pal, size_t first, size_t last);

/// What the other methods read besides the compact palette, per palette entry, in per-thread buffers.
struct MethodTables {
    enum : uint8_t { Singular = 1, Mirrored = 2 };
    const PaletteMatrix* inverseTranspose = nullptr; ///< R^{-T} as c0 c1 c2 (translation 0): blend-inverse-transpose
    const PaletteMatrix* stretch = nullptr;          ///< S as c0 c1 c2: dual-quaternion
    const float* dualQuaternions = nullptr;          ///< real (x y z w), dual (x y z w), 32-byte aligned: dual-quaternion
    const uint8_t* jointFlags = nullptr;             ///< Singular | Mirrored
    bool anySingular = false;                        ///< some entry has the Singular flag
    bool anyMirrored = false;                        ///< some entry has the Mirrored flag
    /// dual-quaternion: every stretch within kUnitStretchTolerance of the identity, entry by entry (joints that only
    /// rotate and translate): the AVX-512 kernel then takes S = (Σ w) I instead of blending the stretches.
    bool unitStretch = false;
};

/// The polar decomposition of a joint that only rotates and translates still leaves float noise in its stretch: the
/// float matrices composed down a chain are orthonormal to a few units in the last place only (up to 6e-7 measured on
/// 30-joint chains in random poses). Within this of the identity in every entry, the stretch is taken as the identity;
/// positions then differ from the blended stretch's by at most 3 x 2e-6 relative (a 2 m character: 12 µm), normals
/// and tangents by at most 1e-4 degrees.
inline constexpr float kUnitStretchTolerance = 2e-6f;

/// The tables method `m` needs (the others are left null). False when an entry it reads is not finite (the kernels
/// multiply zero-weight slots: they must not meet inf or NaN there): the scalar path runs instead.
bool buildMethodTables(std::span<const JointFrame> palette, Method m, MethodTables& out);

/// Every method but Linear and Rebuilt, K = 4 or 8, on [first, last), AVX2 + FMA.
void runMethodAvx2(const SkinJob& job, const PaletteMatrix* pal, const MethodTables& tables, size_t first, size_t last);
/// The same kernels built for AVX-512VL's 32 vector registers (skinning_methods_avx2_evex.cpp): the same operations,
/// fewer spills. Call only when the CPU has AVX-512 (cpuHasAvx512()).
void runMethodAvx2Evex(const SkinJob& job, const PaletteMatrix* pal, const MethodTables& tables, size_t first,
                       size_t last);

/// Whether `m` has an AVX-512 kernel (positions-only, cofactor, inverse-transpose, blend-inverse-transpose,
/// dual-quaternion, jacobian).
bool hasMethodAvx512(Method m);

/// Those methods, K = 4 or 8, on [first, last), AVX-512 (16-vertex blocks; the blocks with a flagged vertex and the
/// last partial block through runMethodAvx2, so the CPU needs AVX2 + FMA too).
void runMethodAvx512(const SkinJob& job, const PaletteMatrix* pal, const MethodTables& tables, size_t first, size_t last);

} // namespace rig::detail
