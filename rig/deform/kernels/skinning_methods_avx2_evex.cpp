// The AVX2 method kernels (skinning_methods_avx2.cpp) built once more with AVX-512VL allowed (-mavx512f -mavx512vl,
// rig/CMakeLists.txt): the same source and 256-bit operations, which GCC then allocates over 32 vector registers
// (EVEX encodings) instead of 16. The register-heavy blocks stop spilling their sums to the stack: on Zen 4 the
// jacobian x1.11, inverse-transpose x1.09, cofactor x1.08, dual quaternions x1.055 at 100k vertices; linear and
// blend-inverse-transpose neutral, positions alone x0.97-0.98 (BENCHMARKS.md). Called only where the CPU has AVX-512
// (F/DQ/BW/VL) and nothing caps it (avx2KernelsUseEvex, runMethodSimd in skinning.cpp).
#define RIG_AVX2_METHODS_ENTRY runMethodAvx2Evex
#include "rig/deform/kernels/skinning_methods_avx2.cpp"
