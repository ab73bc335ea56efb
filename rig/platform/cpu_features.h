// What this CPU (and its OS) can run, detected once: every run-time choice of a SIMD path asks here.
#pragma once

namespace rig {

/// AVX2 (the error loops need no FMA).
bool cpuHasAvx2();
/// AVX2 and FMA: the AVX2 skinning kernels.
bool cpuHasAvx2Fma();
/// AVX-512 F, DQ, BW and VL with OS support of the zmm state, and AVX2 + FMA (every AVX-512 path here hands
/// remainders to AVX2 code).
bool cpuHasAvx512();

} // namespace rig
