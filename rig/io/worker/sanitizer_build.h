// Whether this build runs under AddressSanitizer (GCC defines __SANITIZE_ADDRESS__, clang has the feature test): the
// import worker and its client then trade the address-space limit for the sanitizer's own limits, and the worker's
// sandbox keeps what LeakSanitizer needs.
#pragma once

namespace rig {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizerBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizerBuild = true;
#else
inline constexpr bool kSanitizerBuild = false;
#endif
#else
inline constexpr bool kSanitizerBuild = false;
#endif

} // namespace rig
