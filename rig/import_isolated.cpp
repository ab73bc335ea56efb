#include "import_isolated.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "parallel.h"
#include "rig_serialize.h"

namespace rig {

namespace {

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

} // namespace

Result<Rig> runIsolated(const std::string& displayName, double timeoutSeconds,
                        const std::function<Result<Rig>()>& importInProcess)
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return importInProcess();
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return importInProcess();
    }
    if (pid == 0) {
        // Child: import, send [1][serialized rig] or [0][message], leave without running the parent's atexit code.
        // A crash must simply end the child: drop crash handlers inherited from the parent (Qt Test's, a debugger's).
        for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGTRAP})
            ::signal(sig, SIG_DFL);
        // Die with the parent: an orphaned child would run on (and hold the parent's stdout/stderr pipes open).
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) // the parent died before prctl took effect
            ::_exit(4);
        ::close(fds[0]);
        // Only the forking thread exists here: parallelFor's pool threads (started in the parent) are gone, and a
        // parallel normal/tangent rebuild would wait for them forever. Run everything on this thread.
        ScopedThreadLimit serial(1);
        std::string out;
        try {
            Result<Rig> r = importInProcess();
            if (r.ok()) {
                out.push_back('\1');
                serializeRig(r.value(), out);
            } else {
                out.push_back('\0');
                out += r.error();
            }
        } catch (...) {
            out.assign(1, '\0');
            out += displayName + ": import failed";
        }
        ::_exit(writeAll(fds[1], out.data(), out.size()) ? 0 : 3);
    }

    // Parent: read until the child closes the pipe (or the time runs out), then reap it.
    ::close(fds[1]);
    std::string data;
    char buf[1 << 16];
    bool timedOut = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timedOut = true;
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        const int ready = ::poll(&p, 1, int(std::min<long long>(left.count(), 1000)));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            continue;
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; // EOF: the child is done (or dead)
        data.append(buf, size_t(n));
    }
    ::close(fds[0]);
    if (timedOut)
        ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timedOut)
        return fail(displayName + ": the importer did not finish within " + std::to_string(int(timeoutSeconds)) + " s");
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = ::strsignal(sig);
        return fail(displayName + ": the importer crashed on this file (" + (name ? name : "signal") + ", signal " +
                    std::to_string(sig) + ")");
    }
    if (data.empty() || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return fail(displayName + ": the import process failed");
    if (data[0] == '\0')
        return fail(data.substr(1));
    auto rig = deserializeRig(std::string_view(data).substr(1));
    if (!rig)
        return fail(displayName + ": " + rig.error());
    return rig;
}

} // namespace rig
