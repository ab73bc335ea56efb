#include "rig/analysis/metrics.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "rig/model/math.h"

namespace rig {

namespace {

template <typename V>
void errorsImpl(std::span<const V> a, std::span<const V> b, std::span<float> errors)
{
    assert(a.size() == b.size() && a.size() == errors.size());
    for (size_t i = 0; i < a.size(); ++i) {
        const glm::vec3 x(a[i]), y(b[i]);
        errors[i] = isDefined(x) && isDefined(y) ? float(angleDeg(x, y)) : kUndefinedError;
    }
}

} // namespace

void angularErrors(std::span<const glm::vec3> a, std::span<const glm::vec3> b, std::span<float> errors)
{
    errorsImpl(a, b, errors);
}

void angularErrors(std::span<const glm::vec4> a, std::span<const glm::vec4> b, std::span<float> errors)
{
    errorsImpl(a, b, errors);
}

ErrorStats errorStats(std::span<const float> errors)
{
    std::vector<float> scratch;
    return errorStats(errors, scratch);
}

ErrorStats errorStats(std::span<const float> errors, std::vector<float>& defined)
{
    ErrorStats s;
    defined.clear();
    defined.reserve(errors.size());
    double sum = 0.0;
    for (float e : errors) {
        if (!(e >= 0.0f)) {
            ++s.undefined;
            continue;
        }
        defined.push_back(e);
        sum += e;
        s.max = std::max(s.max, double(e));
        const int bin = std::min(int(e), kHistogramBins - 1);
        ++s.histogram[size_t(bin)];
    }
    s.defined = defined.size();
    if (defined.empty())
        return s;
    s.mean = sum / double(defined.size());
    // Nearest rank: the smallest value with at least 95% of the values at or below it.
    const size_t rank = size_t(std::ceil(0.95 * double(defined.size())));
    const size_t idx = std::min(defined.size() - 1, rank == 0 ? 0 : rank - 1);
    std::nth_element(defined.begin(), defined.begin() + ptrdiff_t(idx), defined.end());
    s.p95 = defined[idx];
    return s;
}

} // namespace rig
