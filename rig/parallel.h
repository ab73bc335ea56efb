// A minimal fork-join over index ranges (std::thread), for the vertex loops.
#pragma once

#include <cstddef>
#include <functional>

namespace rig {

/// Number of worker threads parallelFor uses by default (hardware concurrency, at least 1).
unsigned defaultThreadCount();

/// Calls fn(first, last) on disjoint chunks covering [0, count), on up to `threads` threads (0 = default),
/// and returns when all are done. Chunks are at least `grain` long. fn must not throw.
void parallelFor(size_t count, size_t grain, unsigned threads, const std::function<void(size_t, size_t)>& fn);

} // namespace rig
