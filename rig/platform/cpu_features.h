// What this CPU (and its OS) can run, detected once: every run-time choice of a SIMD path asks here.
#pragma once

#include <string>

namespace rig {

/// AVX2 (the error loops need no FMA).
bool cpuHasAvx2();
/// AVX2 and FMA: the AVX2 skinning kernels.
bool cpuHasAvx2Fma();
/// AVX-512 F, DQ, BW and VL with OS support of the zmm state, and AVX2 + FMA (every AVX-512 path here hands
/// remainders to AVX2 code).
bool cpuHasAvx512();

/// The processor as benchmarks should name it: its brand string, family and model (from cpuid, as `lscpu` shows them),
/// and which of the instruction sets above it runs, e.g. "AMD EPYC (family 26, model 2): AVX-512 F/DQ/BW/VL, AVX2,
/// FMA". "unknown processor" where cpuid has no brand string.
std::string cpuDescription();

} // namespace rig
