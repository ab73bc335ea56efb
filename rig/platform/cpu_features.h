// What this CPU (and its OS) can run, detected once: every run-time choice of a SIMD path asks here.
//
// The environment variable RIGSCOPE_ISA caps it, read once at the first question: `avx2` (no AVX-512 path: what an
// AVX2-only machine runs, measured on an AVX-512 one), `baseline` (no AVX2 either: the scalar paths), `avx512` or
// unset (whatever the CPU has). A cap never adds what the CPU lacks; another value is ignored, and cpuDescription says
// so, as it says which cap applies.
#pragma once

#include <string>
#include <string_view>

namespace rig {

/// AVX2 (the error loops need no FMA).
bool cpuHasAvx2();
/// AVX2 and FMA: the AVX2 skinning kernels.
bool cpuHasAvx2Fma();
/// AVX-512 F, DQ, BW and VL with OS support of the zmm state, and AVX2 + FMA (every AVX-512 path here hands
/// remainders to AVX2 code).
bool cpuHasAvx512();

/// True where the CPU has AVX-512 (cpuHasAvx512) but runs each 512-bit operation as two 256-bit halves: AMD's
/// family 25 (Zen 4). There a kernel bound by its arithmetic gains nothing from the wider registers and can lose to
/// its AVX2 form through the extra shuffles the 16-lane layout needs (positions alone; BENCHMARKS.md, "Lessons").
bool cpuHasHalfWidthAvx512();
/// The rule behind cpuHasHalfWidthAvx512 for a cpuid vendor string ("AuthenticAMD", "GenuineIntel") and display
/// family (as `lscpu` shows it), whatever this CPU is.
bool isHalfWidthAvx512(std::string_view vendor, unsigned family);

/// The processor as a user quotes it: the kernel's model name (/proc/cpuinfo, what `lscpu` shows), else the cpuid
/// brand string, else "unknown processor"; then the display family and model; and the cpuid brand string too where
/// both are known and differ (a hypervisor may name the processor to the kernel otherwise than cpuid does), e.g.
/// `AMD EPYC (family 26, model 2; cpuid brand string "Oxide Virtual Turin-like Processor")`.
std::string processorName(std::string_view kernelName, std::string_view cpuidBrand, unsigned family, unsigned model);

/// The processor as benchmarks name it (processorName of this machine) and which of the instruction sets above it
/// runs, e.g. "AMD EPYC (family 26, model 2): AVX-512 F/DQ/BW/VL, AVX2, FMA", with the RIGSCOPE_ISA cap if any.
std::string cpuDescription();

} // namespace rig
