// The jacobian with AVX-512: the weight gradients' block plan one vertex per lane, or the group layout for the
// blocks the plan leaves out (skinning_methods_avx512.h; the entry point: skinning_methods_avx512.cpp). Built with its
// flags only.
#include "rig/deform/kernels/skinning_methods_avx512.h"

namespace rig::detail::avx512m {

template void runBlocks<Method::Jacobian>(const SkinJob&, const Context&, size_t, size_t);

} // namespace rig::detail::avx512m
