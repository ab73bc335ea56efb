// A test double of rigscope-import: the real worker body (worker/serve.h) with faults chosen by the display name, so
// that the tests see what the client makes of a worker that crashes, aborts, hangs, spins, lies or overreaches.
// Any other name is imported for real.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <string>
#include <vector>

#include "rig/io/rig_serialize.h"
#include "rig/io/worker_protocol.h"
#include "worker/serve.h"

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

/// The open descriptors, "0,1,2,3".
std::string openFds()
{
    std::vector<int> fds;
    if (DIR* d = ::opendir("/proc/self/fd")) {
        const int own = ::dirfd(d);
        while (dirent* e = ::readdir(d))
            if (e->d_name[0] != '.' && std::atoi(e->d_name) != own)
                fds.push_back(std::atoi(e->d_name));
        ::closedir(d);
    }
    std::sort(fds.begin(), fds.end());
    std::string s;
    for (int fd : fds)
        s += (s.empty() ? "" : ",") + std::to_string(fd);
    return s;
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
