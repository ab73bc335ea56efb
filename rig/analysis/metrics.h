// Angular error of a method against the reference, and its statistics.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

namespace rig {

/// Marks an undefined per-vertex error (either direction undefined). Never NaN.
inline constexpr float kUndefinedError = -1.0f;

/// errors[v] = angle in degrees between a[v] and b[v] (atan2(|a × b|, a · b) in float, within 2e-5° of the
/// double-precision angleDeg), or kUndefinedError when either is undefined (|v|² <= 0.25 or not finite). All spans hold
/// the same count. Vectorised (AVX-512, AVX2 or the baseline, picked at load time); allocates nothing.
void angularErrors(std::span<const glm::vec3> a, std::span<const glm::vec3> b, std::span<float> errors);
/// Same for the xyz of tangents.
void angularErrors(std::span<const glm::vec4> a, std::span<const glm::vec4> b, std::span<float> errors);
void angularErrors(std::span<const glm::vec4> a, std::span<const glm::vec3> b, std::span<float> errors);
/// angularErrors(a, b, errorsB) and angularErrors(a, c, errorsC), the same bits, in one pass: a's components are loaded
/// and its length tested once for both (a method's directions against the reference and the carried reference).
void angularErrors(std::span<const glm::vec3> a, std::span<const glm::vec3> b, std::span<float> errorsB,
                   std::span<const glm::vec3> c, std::span<float> errorsC);
void angularErrors(std::span<const glm::vec4> a, std::span<const glm::vec4> b, std::span<float> errorsB,
                   std::span<const glm::vec3> c, std::span<float> errorsC);

/// How many of the pairs (a[v], b[v]) have both tangents defined (isDefined of their xyz) and opposite handedness (the
/// sign of w). Vectorised like angularErrors. The spans hold the same count.
size_t handednessMismatches(std::span<const glm::vec4> a, std::span<const glm::vec4> b);

/// Histogram: 45 one-degree bins [0,1) ... [44,45) and a last bin for >= 45°.
inline constexpr int kHistogramBins = 46;

struct ErrorStats {
    size_t defined = 0;
    size_t undefined = 0;
    double max = 0.0;
    double mean = 0.0;
    double p95 = 0.0; ///< nearest-rank 95th percentile
    std::array<uint32_t, kHistogramBins> histogram{};
};

/// Statistics over the defined entries (>= 0) of errors; all zeros when none is defined. The 95th percentile is exact
/// (nearest rank), found by a bucket count and a selection within one bucket. `scratch` (grown to errors.size() + 16)
/// holds that bucket's values; reuse it to avoid allocating.
ErrorStats errorStats(std::span<const float> errors, std::vector<float>& scratch);
ErrorStats errorStats(std::span<const float> errors);

} // namespace rig
