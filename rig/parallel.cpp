#include "parallel.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace rig {

unsigned defaultThreadCount()
{
    const unsigned n = std::thread::hardware_concurrency();
    return n ? n : 1;
}

void parallelFor(size_t count, size_t grain, unsigned threads, const std::function<void(size_t, size_t)>& fn)
{
    if (count == 0)
        return;
    if (threads == 0)
        threads = defaultThreadCount();
    grain = std::max<size_t>(grain, 1);
    const size_t chunks = std::min<size_t>(threads, (count + grain - 1) / grain);
    if (chunks <= 1) {
        fn(0, count);
        return;
    }
    const size_t per = (count + chunks - 1) / chunks;
    std::vector<std::thread> pool;
    pool.reserve(chunks - 1);
    for (size_t c = 1; c < chunks; ++c) {
        const size_t b = c * per, e = std::min(count, b + per);
        if (b < e)
            pool.emplace_back([&fn, b, e] { fn(b, e); });
    }
    fn(0, std::min(count, per));
    for (std::thread& t : pool)
        t.join();
}

} // namespace rig
