#include "rig/io/worker/import_worker.h"
#include "rig/io/worker/sanitizer_build.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "rig/io/import.h"
#include "rig/io/worker/rig_serialize.h"
#include "rig/io/worker/worker_protocol.h"
#include "rig/model/structure.h"

extern char** environ;

namespace rig {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t MiB = size_t(1) << 20;
constexpr size_t kDiagnosticsKeep = 32 * 1024; // bytes kept of the worker's stderr, head and tail each


/// A file descriptor closed when it goes out of scope.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : m_fd(fd) {}
    ~Fd() { reset(); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd(Fd&& o) noexcept : m_fd(o.m_fd) { o.m_fd = -1; }
    int get() const { return m_fd; }
    int release()
    {
        const int fd = m_fd;
        m_fd = -1;
        return fd;
    }
    void reset(int fd = -1)
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }

private:
    int m_fd = -1;
};

/// Moves a new descriptor above the ones the worker expects (0..4), so that posix_spawn's dup2 never maps a
/// descriptor onto itself (which would keep its close-on-exec flag on some C libraries).
int highFd(int fd)
{
    if (fd < 0 || fd >= 10)
        return fd;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
    ::close(fd);
    return moved;
}

bool makePipe(Fd& readEnd, Fd& writeEnd)
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return false;
    readEnd.reset(highFd(fds[0]));
    writeEnd.reset(highFd(fds[1]));
    return readEnd.get() >= 0 && writeEnd.get() >= 0;
}

bool writeAll(int fd, const char* data, size_t size)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        size -= size_t(n);
    }
    return true;
}

/// A sealed, read-only in-memory file holding the bytes to import (the worker's fd 4).
Fd memoryFile(const void* data, size_t size)
{
    Fd fd(highFd(::memfd_create("rigscope-import-input", MFD_CLOEXEC | MFD_ALLOW_SEALING)));
    if (fd.get() < 0)
        return Fd();
    if (!writeAll(fd.get(), static_cast<const char*>(data), size) ||
        ::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0 ||
        ::lseek(fd.get(), 0, SEEK_SET) != 0)
        return Fd();
    return fd;
}

bool isExecutableFile(const std::string& path)
{
    struct stat st {};
    return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string executableFolder()
{
    std::string buf(4096, '\0');
    const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
    if (n <= 0)
        return {};
    buf.resize(size_t(n));
    const size_t slash = buf.rfind('/');
    return slash == std::string::npos ? std::string() : buf.substr(0, slash);
}

/// The worker's stderr: the beginning and the end are kept (a sanitizer names the error first and sums it up last).
class Diagnostics {
public:
    void add(const char* data, size_t n)
    {
        m_total += n;
        const size_t headRoom = kDiagnosticsKeep - std::min(kDiagnosticsKeep, m_head.size());
        const size_t toHead = std::min(headRoom, n);
        m_head.append(data, toHead);
        data += toHead;
        n -= toHead;
        if (n == 0)
            return;
        m_tail.append(data, n);
        if (m_tail.size() > 2 * kDiagnosticsKeep)
            m_tail.erase(0, m_tail.size() - kDiagnosticsKeep);
    }
    std::string text() const
    {
        if (m_total == m_head.size() + m_tail.size())
            return m_head + m_tail;
        return m_head + "\n[... " + std::to_string(m_total - m_head.size() - m_tail.size()) + " bytes ...]\n" + m_tail;
    }
    bool contains(std::string_view s) const
    {
        return m_head.find(s) != std::string::npos || m_tail.find(s) != std::string::npos;
    }
    bool empty() const { return m_total == 0; }

private:
    std::string m_head, m_tail;
    size_t m_total = 0;
};

/// "the importer crashed on this file (Segmentation fault, signal 11)".
std::string crashReason(int sig)
{
    const char* signalName = ::sigdescr_np(sig); // thread-safe, unlike strsignal
    return std::string("the importer crashed on this file (") + (signalName ? signalName : "signal") + ", signal " +
           std::to_string(sig) + ")";
}

/// What a sanitizer report in the worker's stderr says, as the reason of a message; empty when there is none.
std::string sanitizerReason(const Diagnostics& d, size_t budget)
{
    if (d.contains("exceeds maximum supported size") || d.contains("allocation-size-too-big") ||
        d.contains("rss limit exhausted") || d.contains("AddressSanitizer: out of memory") ||
        d.contains("AddressSanitizer: requested allocation size"))
        return allocationCapReason(budget);
    // A signal the sanitizer caught reads as the signal would have in a normal build.
    static const std::pair<const char*, int> signals[] = {{"SEGV", SIGSEGV}, {"BUS", SIGBUS}, {"FPE", SIGFPE}, {"ILL", SIGILL}};
    for (const auto& [what, sig] : signals)
        if (d.contains(std::string("AddressSanitizer: ") + what + " "))
            return crashReason(sig);
    static const char* const kinds[] = {"heap-buffer-overflow", "stack-buffer-overflow", "global-buffer-overflow",
                                        "heap-use-after-free", "stack-use-after-return", "stack-overflow", "double-free",
                                        "bad-free", "alloc-dealloc-mismatch", "container-overflow", "memcpy-param-overlap"};
    for (const char* k : kinds)
        if (d.contains(std::string("AddressSanitizer: ") + k))
            return std::string("the importer crashed on this file (") + k + ", found by AddressSanitizer)";
    if (d.contains("runtime error:"))
        return "the importer crashed on this file (undefined behaviour, found by UndefinedBehaviorSanitizer)";
    if (d.contains("LeakSanitizer: detected memory leaks"))
        return "the import worker leaked memory (found by LeakSanitizer)";
    if (d.contains("ERROR: AddressSanitizer"))
        return "the importer crashed on this file (found by AddressSanitizer)";
    return {};
}

/// The environment of the worker: ours, plus (in sanitizer builds, where an address-space limit cannot work beside the
/// sanitizer's shadow memory) the sanitizer's own per-allocation and resident-set limits.
std::vector<std::string> workerEnvironment(size_t cap)
{
    std::vector<std::string> env;
    std::string asan;
    for (char** e = environ; e && *e; ++e) {
        const std::string_view kv(*e);
        if (kSanitizerBuild && kv.substr(0, 13) == "ASAN_OPTIONS=")
            asan = std::string(kv.substr(13));
        else
            env.emplace_back(kv);
    }
    if (kSanitizerBuild) {
        const size_t capMb = std::max<size_t>(cap / MiB, 1);
        // Flags given later override earlier ones. allocator_may_return_null=0: a refused allocation is a report
        // (sanitizer operator new cannot throw), which the client recognises as over the limit.
        asan += (asan.empty() ? "" : ":") + std::string("max_allocation_size_mb=") + std::to_string(capMb) +
                ":hard_rss_limit_mb=" + std::to_string(capMb + 1024) + ":allocator_may_return_null=0";
        env.push_back("ASAN_OPTIONS=" + asan);
    }
    return env;
}

std::string formatSeconds(double s)
{
    if (s >= 1.0 && s == double(int64_t(s)))
        return std::to_string(int64_t(s));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", s);
    return buf;
}

} // namespace

size_t importAllocationCap(size_t memoryBudgetBytes)
{
    const size_t headroom = size_t(256) << 20;
    return memoryBudgetBytes > (SIZE_MAX - headroom) / 2 ? SIZE_MAX : 2 * memoryBudgetBytes + headroom;
}

std::string allocationCapReason(size_t memoryBudgetBytes)
{
    return "reading it allocates more than " + std::to_string(importAllocationCap(memoryBudgetBytes) / MiB) +
           " MiB (twice the memory budget plus headroom); refused";
}

std::string findImportWorker(const ImportOptions& options)
{
    if (!options.workerPath.empty())
        return isExecutableFile(options.workerPath) ? options.workerPath : std::string();
    if (const char* env = std::getenv("RIGSCOPE_IMPORT_WORKER"); env && *env)
        return isExecutableFile(env) ? std::string(env) : std::string();
    const std::string folder = executableFolder();
    const std::string beside = folder + "/" + worker::kExecutableName;
    return !folder.empty() && isExecutableFile(beside) ? beside : std::string();
}

Result<Rig> importInWorker(const WorkerJob& job, const ImportOptions& options)
{
    const std::string& name = job.displayName;
    const bool fromMemory = job.data != nullptr;
    if (fromMemory && job.size == 0)
        return fail(name + ": empty buffer");
    const std::string exe = findImportWorker(options);
    if (exe.empty())
        return fail(name + ": the import worker '" + std::string(worker::kExecutableName) +
                    "' was not found next to the program (or at $RIGSCOPE_IMPORT_WORKER); it must be installed with it");
    const size_t cap = importAllocationCap(options.memoryBudgetBytes);
    const double timeout = std::max(options.timeoutSeconds, 0.001);

    Fd replyRead, replyWrite, diagRead, diagWrite, input;
    if (!makePipe(replyRead, replyWrite) || !makePipe(diagRead, diagWrite))
        return fail(name + ": could not start the import worker (pipe: " + std::strerror(errno) + ")");
    if (fromMemory) {
        input.reset(memoryFile(job.data, job.size).release());
        if (input.get() < 0)
            return fail(name + ": could not hand the data to the import worker (" + std::strerror(errno) + ")");
    }

    std::vector<std::string> args = {exe,
                                     "--protocol", std::to_string(worker::kProtocolVersion),
                                     "--parent", std::to_string(::getpid()),
                                     "--name", name,
                                     "--budget", std::to_string(options.memoryBudgetBytes),
                                     "--timeout", formatSeconds(timeout)};
    if (!options.assetRoot.empty())
        args.insert(args.end(), {"--asset-root", options.assetRoot});
    if (fromMemory) {
        args.insert(args.end(), {"--memory", job.formatHint});
    } else {
        args.insert(args.end(), {"--file", job.path});
    }
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> envStrings = workerEnvironment(cap);
    std::vector<char*> envp;
    for (std::string& e : envStrings)
        envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, diagWrite.get(), 1);
    posix_spawn_file_actions_adddup2(&actions, diagWrite.get(), 2);
    posix_spawn_file_actions_adddup2(&actions, replyWrite.get(), worker::kReplyFd);
    if (fromMemory)
        posix_spawn_file_actions_adddup2(&actions, input.get(), worker::kMemoryFd);
    posix_spawn_file_actions_addclosefrom_np(&actions, fromMemory ? worker::kMemoryFd + 1 : worker::kReplyFd + 1);
    // Every signal at its default and none blocked: whatever the calling thread (a Qt or test thread) had set.
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid = -1;
    const int spawnError = ::posix_spawn(&pid, exe.c_str(), &actions, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (spawnError != 0)
        return fail(name + ": could not start the import worker " + exe + " (" + std::strerror(spawnError) + ")");
    replyWrite.reset();
    diagWrite.reset();
    input.reset();

    // Read both pipes until both close, the time runs out or the caller cancels.
    const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout));
    std::string reply;
    Diagnostics diagnostics;
    const size_t maxReply = cap + 64 * MiB; // a worker cannot produce more than it may allocate
    bool timedOut = false, cancelled = false, oversized = false;
    bool replyOpen = true, diagOpen = true;
    char buf[1 << 16];
    while (replyOpen || diagOpen) {
        if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
            cancelled = true;
            break;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
            timedOut = true;
            break;
        }
        pollfd fds[2];
        nfds_t count = 0;
        if (replyOpen)
            fds[count++] = {replyRead.get(), POLLIN, 0};
        if (diagOpen)
            fds[count++] = {diagRead.get(), POLLIN, 0};
        const int ready = ::poll(fds, count, int(std::min<long long>(left, options.cancel ? 50 : 1000)));
        if (ready < 0 && errno != EINTR)
            break;
        for (nfds_t i = 0; ready > 0 && i < count; ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
            if (n < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            const bool isReply = fds[i].fd == replyRead.get();
            if (n <= 0) {
                (isReply ? replyOpen : diagOpen) = false;
                continue;
            }
            if (isReply) {
                if (reply.size() + size_t(n) > maxReply) {
                    oversized = true;
                    replyOpen = diagOpen = false;
                    break;
                }
                reply.append(buf, size_t(n));
            } else {
                diagnostics.add(buf, size_t(n));
            }
        }
    }
    replyRead.reset();
    diagRead.reset();

    // Reap the worker: kill it when we stopped early; otherwise wait (it may close its pipes and still run).
    int status = 0;
    bool killed = timedOut || cancelled || oversized;
    if (killed)
        ::kill(pid, SIGKILL);
    for (;;) {
        const pid_t r = ::waitpid(pid, &status, killed ? 0 : WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR) {
            status = 0;
            break;
        }
        if (r == 0) {
            if (Clock::now() >= deadline || (options.cancel && options.cancel->load(std::memory_order_relaxed))) {
                timedOut = Clock::now() >= deadline;
                cancelled = !timedOut;
                ::kill(pid, SIGKILL);
                killed = true;
                continue;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }

    if (cancelled)
        return fail(name + ": cancelled");
    if (timedOut)
        return fail(name + ": the importer did not finish within " + formatSeconds(timeout) + " s");
    if (oversized)
        return fail(name + ": the import worker sent more than " + std::to_string(maxReply / MiB) + " MiB; refused");
    const bool exitedCleanly = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!exitedCleanly && !diagnostics.empty())
        std::fprintf(stderr, "rigscope: the import worker for %s reported:\n%s\n", name.c_str(), diagnostics.text().c_str());
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        if (sig == SIGXCPU)
            return fail(name + ": the importer did not finish within " + formatSeconds(timeout) + " s of processor time");
        return fail(name + ": " + crashReason(sig));
    }
    if (!exitedCleanly) {
        if (const std::string reason = sanitizerReason(diagnostics, options.memoryBudgetBytes); !reason.empty())
            return fail(name + ": " + reason);
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (code == worker::ExitUsage)
            return fail(name + ": the import worker refused its command line (protocol mismatch?)");
        return fail(name + ": the import worker failed (exit status " + std::to_string(code) + ")");
    }

    worker::ReplyHeader header;
    if (reply.size() < sizeof header)
        return fail(name + ": the import worker sent no reply");
    std::memcpy(&header, reply.data(), sizeof header);
    if (header.magic != worker::kReplyMagic)
        return fail(name + ": the import worker sent an invalid reply");
    if (header.version != worker::kProtocolVersion)
        return fail(name + ": the import worker speaks protocol " + std::to_string(header.version) + ", expected " +
                    std::to_string(worker::kProtocolVersion) + " (a mismatched installation)");
    if (header.payloadBytes != reply.size() - sizeof header)
        return fail(name + ": the import worker's reply is truncated");
    const std::string_view payload = std::string_view(reply).substr(sizeof header);
    if (header.kind == uint32_t(worker::ReplyKind::Error)) {
        const bool oneLine = !payload.empty() && payload.find_first_of("\n\r") == std::string_view::npos;
        return fail(oneLine ? std::string(payload) : name + ": the import failed");
    }
    if (header.kind == uint32_t(worker::ReplyKind::Refused)) {
        // message \0 reference \0 resolved \0 reason \0 kind (one decimal digit)
        std::vector<std::string_view> fields;
        size_t start = 0;
        for (size_t i = 0; i <= payload.size(); ++i)
            if (i == payload.size() || payload[i] == '\0') {
                fields.push_back(payload.substr(start, i - start));
                start = i + 1;
            }
        if (fields.size() != 5 || fields[0].empty() || fields[0].find_first_of("\n\r") != std::string_view::npos ||
            fields[4].size() != 1 || fields[4][0] < '1' || fields[4][0] >= char('0' + RefusedReference::kKindCount))
            return fail(name + ": the import worker sent an invalid reply");
        if (options.refused)
            *options.refused = RefusedReference{std::string(fields[1]), std::string(fields[2]), std::string(fields[3]),
                                                RefusedReference::Kind(fields[4][0] - '0')};
        return fail(std::string(fields[0]));
    }
    if (header.kind != uint32_t(worker::ReplyKind::Rig))
        return fail(name + ": the import worker sent an invalid reply");
    Result<Rig> rig = deserializeRig(payload);
    if (!rig)
        return fail(name + ": the import worker's reply is invalid (" + rig.error() + ")");
    return rig;
}

} // namespace rig
