// A test double of rigscope-import: the real worker body (worker/serve.h) with faults chosen by the display name, so
// that the tests see what the client makes of a worker that crashes, aborts, hangs, spins, lies or overreaches.
// Any other name is imported for real.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "rig/io/worker/rig_serialize.h"
#include "rig/io/worker/worker_protocol.h"
#include "worker/serve.h"

extern char** environ;

namespace {

void writeRaw(const void* data, size_t size)
{
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::write(rig::worker::kReplyFd, p, size);
        if (n <= 0)
            std::_Exit(9);
        p += n;
        size -= size_t(n);
    }
}

void reply(uint32_t version, uint32_t kind, const std::string& payload)
{
    rig::worker::ReplyHeader h;
    h.version = version;
    h.kind = kind;
    h.payloadBytes = payload.size();
    writeRaw(&h, sizeof h);
    writeRaw(payload.data(), payload.size());
}

std::string limit(int resource)
{
    rlimit l{};
    ::getrlimit(resource, &l);
    return l.rlim_cur == RLIM_INFINITY ? std::string("unlimited") : std::to_string(l.rlim_cur);
}

/// The open descriptors, "0,1,2,3" (probed with fcntl: /proc is closed inside the sandbox).
std::string openFds()
{
    std::string s;
    for (int fd = 0; fd < 1024; ++fd)
        if (::fcntl(fd, F_GETFD) != -1)
            s += (s.empty() ? "" : ",") + std::to_string(fd);
    return s;
}

/// "denied" when the call failed with one of the sandbox's errors, else what happened.
std::string outcome(int result, int error)
{
    if (result >= 0)
        return "ALLOWED";
    return error == EPERM || error == EACCES || error == ENOSYS ? "denied" : std::string("failed-") + std::strerror(error);
}

/// Tries what the sandbox must stop, from inside it, and reports each outcome.
std::string trySandbox(const rig::worker::Request& r)
{
    const std::string folder = r.path.substr(0, r.path.rfind('/'));
    std::string out;
    auto add = [&out](const char* what, const std::string& result) { out += std::string(out.empty() ? "" : " ") + what + "=" + result; };
    int fd = ::open(r.path.c_str(), O_RDONLY | O_CLOEXEC);
    add("read-inside", fd >= 0 ? "ok" : outcome(fd, errno));
    if (fd >= 0)
        ::close(fd);
    fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); // listing the model's folder is reading it
    add("list-inside", fd >= 0 ? "ok" : outcome(fd, errno));
    if (fd >= 0)
        ::close(fd);
    fd = ::open((folder + "/../outside-secret.txt").c_str(), O_RDONLY | O_CLOEXEC);
    add("read-outside", outcome(fd, errno));
    if (fd >= 0)
        ::close(fd);
    fd = ::open("/etc/passwd", O_RDONLY | O_CLOEXEC);
    add("read-etc", outcome(fd, errno));
    if (fd >= 0)
        ::close(fd);
    fd = ::open((folder + "/written.txt").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    add("write", outcome(fd, errno));
    if (fd >= 0)
        ::close(fd);
    add("mkdir", outcome(::mkdir((folder + "/made").c_str(), 0755), errno));
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    add("socket-inet", outcome(fd, errno));
    if (fd >= 0)
        ::close(fd);
    fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    add("socket-unix", outcome(fd, errno));
    if (fd >= 0)
        ::close(fd);
    pid_t child = -1;
    char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
    const int spawned = ::posix_spawn(&child, "/bin/true", nullptr, nullptr, argv, environ);
    if (spawned == 0) {
        int status = 0;
        ::waitpid(child, &status, 0);
        add("spawn", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ALLOWED" : "denied");
    } else {
        add("spawn", outcome(-1, spawned));
    }
    const pid_t forked = ::fork();
    if (forked == 0)
        std::_Exit(0);
    if (forked > 0)
        ::waitpid(forked, nullptr, 0);
    add("fork", outcome(forked, errno));
    add("signal-parent", outcome(::kill(::getppid(), 0), errno));
    return out;
}

rig::Result<rig::Rig> faulty(const rig::worker::Request& r)
{
    const std::string& n = r.displayName;
    if (n == "crash.gltf")
        ::raise(SIGSEGV);
    if (n == "abort.dae")
        std::abort();
    if (n == "hang.fbx")
        for (;;)
            ::pause();
    if (n == "spin.x") {
        volatile unsigned long x = 0;
        for (;;)
            x = x + 1;
    }
    if (n == "garbage.obj") {
        writeRaw("not a reply at all, but long enough", 36);
        std::_Exit(0);
    }
    if (n == "silent.obj")
        std::_Exit(0);
    if (n == "exit3.obj")
        std::_Exit(3);
    if (n == "oldprotocol.gltf") {
        reply(0, uint32_t(rig::worker::ReplyKind::Error), "oldprotocol.gltf: from an old worker");
        std::_Exit(0);
    }
    if (n == "truncated.gltf") {
        rig::worker::ReplyHeader h;
        h.kind = uint32_t(rig::worker::ReplyKind::Error);
        h.payloadBytes = 1000;
        writeRaw(&h, sizeof h);
        writeRaw("short", 5);
        std::_Exit(0);
    }
    if (n == "badrig.gltf") {
        // A rig that breaks a structural invariant: a triangle index past the vertices.
        rig::Rig bad;
        bad.meshes.resize(1);
        bad.meshes[0].positions.assign(3, glm::vec3(0.0f));
        bad.meshes[0].normals.assign(3, glm::vec3(0, 0, 1));
        bad.meshes[0].indices = {0, 1, 7};
        std::string payload;
        rig::serializeRig(bad, payload);
        reply(rig::worker::kProtocolVersion, uint32_t(rig::worker::ReplyKind::Rig), payload);
        std::_Exit(0);
    }
    if (n == "alloc.bin") {
        // Grows one allocation until the process limit refuses it.
        std::vector<char> v;
        for (size_t size = size_t(1) << 20;; size *= 2) {
            v.resize(size);
            std::memset(v.data(), 1, v.size());
        }
    }
    if (n.size() >= 12 && n.compare(n.size() - 12, 12, "/sandbox.txt") == 0) // a file: the sandbox has a root
        return rig::fail("sandbox: " + trySandbox(r));
    if (n == "limits.txt")
        return rig::fail("limits: as=" + limit(RLIMIT_AS) + " cpu=" + limit(RLIMIT_CPU) + " fsize=" + limit(RLIMIT_FSIZE) +
                         " core=" + limit(RLIMIT_CORE) + " fds=" + openFds());
    return rig::worker::importRequest(r);
}

} // namespace

int main(int argc, char** argv)
{
    return rig::worker::serve(argc, argv, faulty);
}
