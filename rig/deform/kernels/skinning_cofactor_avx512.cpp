// Cofactor and inverse-transpose with AVX-512, one vertex per lane (normalBlockSoa in skinning_methods_avx512.h,
// which says how; the entry point is skinning_methods_avx512.cpp). Built with its flags only.
#include "rig/deform/kernels/skinning_methods_avx512.h"

namespace rig::detail::avx512m {

template void runBlocks<Method::Cofactor>(const SkinJob&, const Context&, size_t, size_t);
template void runBlocks<Method::InverseTranspose>(const SkinJob&, const Context&, size_t, size_t);

} // namespace rig::detail::avx512m
