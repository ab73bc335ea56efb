#include "rig/platform/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace rig {

namespace {

thread_local unsigned t_threadLimit = 0; // 0: none

constexpr unsigned kMaxThreads = 256;

// One parallelFor call: chunks are claimed from `next`.
struct Task {
    size_t count = 0;
    size_t chunk = 1;
    std::atomic<size_t> next{0};
    const std::function<void(size_t, size_t)>* fn = nullptr;

    void work()
    {
        for (;;) {
            const size_t b = next.fetch_add(chunk, std::memory_order_relaxed);
            if (b >= count)
                return;
            (*fn)(b, std::min(count, b + chunk));
        }
    }
};

class Pool {
public:
    static Pool& instance()
    {
        static Pool pool;
        return pool;
    }

    // Runs `task` on `helpers` pool threads plus the caller. False (nothing run) when the pool is already in use.
    bool run(unsigned helpers, Task& task)
    {
        std::unique_lock<std::mutex> use(m_use, std::try_to_lock);
        if (!use.owns_lock())
            return false;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            while (m_threads.size() < helpers) {
                const size_t index = m_threads.size();
                m_threads.emplace_back([this, index] { worker(index); });
            }
            m_task = &task;
            m_wanted = helpers;
            m_pending = helpers;
            ++m_generation;
        }
        m_wake.notify_all();
        task.work();
        std::unique_lock<std::mutex> lock(m_mutex);
        m_done.wait(lock, [this] { return m_pending == 0; });
        m_task = nullptr;
        return true;
    }

    ~Pool()
    {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        for (std::thread& t : m_threads)
            t.join();
    }

private:
    Pool() = default;

    void worker(size_t index)
    {
        uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop)
                return;
            seen = m_generation;
            if (index >= m_wanted)
                continue; // this call wants fewer helpers
            Task* task = m_task;
            lock.unlock();
            task->work();
            lock.lock();
            if (--m_pending == 0)
                m_done.notify_one();
        }
    }

    std::mutex m_use;   // held by the parallelFor that owns the pool
    std::mutex m_mutex; // guards everything below
    std::condition_variable m_wake, m_done;
    std::vector<std::thread> m_threads;
    uint64_t m_generation = 0;
    size_t m_wanted = 0;
    size_t m_pending = 0;
    Task* m_task = nullptr;
    bool m_stop = false;
};

} // namespace

unsigned defaultThreadCount()
{
    const unsigned n = std::thread::hardware_concurrency();
    return n ? n : 1;
}

unsigned resolveThreadCount(unsigned threads)
{
    if (threads == 0)
        threads = t_threadLimit ? t_threadLimit : defaultThreadCount();
    return std::min(threads, kMaxThreads);
}

ScopedThreadLimit::ScopedThreadLimit(unsigned threads) : m_previous(t_threadLimit)
{
    t_threadLimit = std::max(1u, threads);
}

ScopedThreadLimit::~ScopedThreadLimit()
{
    t_threadLimit = m_previous;
}

void parallelFor(size_t count, size_t grain, unsigned threads, const std::function<void(size_t, size_t)>& fn)
{
    if (count == 0)
        return;
    threads = resolveThreadCount(threads);
    grain = std::max<size_t>(grain, 1);
    const size_t maxChunks = (count + grain - 1) / grain;
    const size_t used = std::min<size_t>(threads, maxChunks);
    if (used <= 1) {
        fn(0, count);
        return;
    }
    // About 8 chunks per thread, at least `grain`; ranges of vertices (grain of 64 or more) rounded to 64 items (whole
    // cache lines of 4-byte attributes), not lists of a few tasks (which would become one chunk).
    Task task;
    task.count = count;
    task.chunk = std::max(grain, (count + 8 * used - 1) / (8 * used));
    if (grain >= 64)
        task.chunk = std::min(count, (task.chunk + 63) / 64 * 64);
    task.fn = &fn;
    const unsigned helpers = unsigned(std::min<size_t>(used, (count + task.chunk - 1) / task.chunk)) - 1;
    if (helpers == 0) {
        fn(0, count);
        return;
    }
    if (Pool::instance().run(helpers, task))
        return;
    // The pool is busy (a nested or concurrent call): threads of our own.
    std::vector<std::thread> own;
    own.reserve(helpers);
    for (unsigned i = 0; i < helpers; ++i)
        own.emplace_back([&task] { task.work(); });
    task.work();
    for (std::thread& t : own)
        t.join();
}

} // namespace rig
