// Blend-inverse-transpose and dual-quaternion with AVX-512: the methods that blend a second table beside the
// matrices (the joints' R^{-T}; their dual quaternions and stretches). Their blocks: skinning_methods_avx512.h; the
// entry point: skinning_methods_avx512.cpp. Built with its flags only.
#include "rig/deform/kernels/skinning_methods_avx512.h"

namespace rig::detail::avx512m {

template void runBlocks<Method::BlendInverseTranspose>(const SkinJob&, const Context&, size_t, size_t);
template void runBlocks<Method::DualQuaternion>(const SkinJob&, const Context&, size_t, size_t);

} // namespace rig::detail::avx512m
