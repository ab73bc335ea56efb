#include "worker/serve.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "rig/platform/parallel.h"
#include "rig/io/import.h"
#include "rig/io/worker/import_worker.h"
#include "rig/io/worker/rig_serialize.h"
#include "rig/io/worker/worker_protocol.h"
#include "rig/io/worker/sanitizer_build.h"
#include "worker/decode_image.h"
#include "worker/sandbox.h"

namespace rig::worker {

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

int usage(const char* what)
{
    std::fprintf(stderr,
                 "%s: %s\nusage: %s --protocol %u --parent PID --name NAME --budget BYTES --timeout SECONDS "
                 "(--file PATH | --memory FORMAT)\n(started by RigScope for each import; not meant to be run by hand)\n",
                 kExecutableName, what, kExecutableName, kProtocolVersion);
    return ExitUsage;
}

bool parseSize(std::string_view s, size_t& out)
{
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
}

/// The process's mapped size now (VmSize), in bytes; 0 when unknown.
size_t mappedBytes()
{
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    unsigned long pages = 0;
    const int n = std::fscanf(f, "%lu", &pages);
    std::fclose(f);
    return n == 1 ? size_t(pages) * size_t(::sysconf(_SC_PAGESIZE)) : 0;
}

void setLimit(int resource, rlim_t soft, rlim_t hard)
{
    const rlimit l{soft, hard};
    ::setrlimit(resource, &l);
}

bool sendReply(ReplyKind kind, const std::string& payload)
{
    ReplyHeader h;
    h.kind = uint32_t(kind);
    h.payloadBytes = payload.size();
    return writeAll(kReplyFd, reinterpret_cast<const char*>(&h), sizeof h) && writeAll(kReplyFd, payload.data(), payload.size());
}

} // namespace

Result<Rig> importRequest(const Request& request)
{
    ImportOptions options;
    options.isolate = false; // this process is the isolation
    options.memoryBudgetBytes = request.memoryBudget;
    options.addressSpaceLimited = !kSanitizerBuild;
    options.assetRoot = request.assetRoot;
    options.refused = request.refused;
    if (request.fromMemory)
        return importMemory(request.data, request.size, request.formatHint, request.displayName, options);
    return importFile(request.path, options);
}

int serve(int argc, char** argv, const std::function<Result<Rig>(const Request&)>& import)
{
    Request request;
    long long parent = -1;
    unsigned protocol = 0;
    bool haveName = false, haveBudget = false, haveSource = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view flag = argv[i];
        if (i + 1 >= argc)
            return usage("a flag without its value");
        const char* value = argv[++i];
        if (flag == "--protocol") {
            size_t v = 0;
            if (!parseSize(value, v))
                return usage("bad --protocol");
            protocol = unsigned(v);
        } else if (flag == "--parent") {
            size_t v = 0;
            if (!parseSize(value, v))
                return usage("bad --parent");
            parent = (long long)v;
        } else if (flag == "--name") {
            request.displayName = value;
            haveName = true;
        } else if (flag == "--budget") {
            if (!parseSize(value, request.memoryBudget))
                return usage("bad --budget");
            haveBudget = true;
        } else if (flag == "--timeout") {
            char* end = nullptr;
            request.timeoutSeconds = std::strtod(value, &end);
            if (!end || *end || !(request.timeoutSeconds > 0.0) || !std::isfinite(request.timeoutSeconds))
                return usage("bad --timeout");
        } else if (flag == "--asset-root") {
            request.assetRoot = value;
        } else if (flag == "--file" && !haveSource) {
            request.path = value;
            haveSource = true;
        } else if (flag == "--memory" && !haveSource) {
            request.formatHint = value;
            request.fromMemory = true;
            haveSource = true;
        } else {
            return usage("unknown or repeated flag");
        }
    }
    if (protocol != kProtocolVersion)
        return usage("protocol version mismatch");
    if (!haveName || !haveBudget || !haveSource || parent <= 0 || request.timeoutSeconds <= 0.0)
        return usage("missing flags");

    // Die with the parent; if it is already gone, do nothing.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if ((long long)::getppid() != parent)
        return ExitParentGone;

    // The limits. Processor time: a busy loop ends at the timeout even if the parent's timer is late. No core files,
    // no writes to files (pipes are not files). Address space: what is mapped now (program, libraries, stacks) plus
    // the allocation cap; under a sanitizer the client has set the sanitizer's own limits instead.
    const rlim_t cpu = rlim_t(std::ceil(request.timeoutSeconds));
    setLimit(RLIMIT_CPU, cpu, cpu + 5);
    setLimit(RLIMIT_CORE, 0, 0);
    setLimit(RLIMIT_FSIZE, 0, 0);
    if (!kSanitizerBuild) {
        const size_t cap = importAllocationCap(request.memoryBudget);
        const size_t base = mappedBytes();
        if (base > 0 && cap < SIZE_MAX - base)
            setLimit(RLIMIT_AS, rlim_t(base + cap), rlim_t(base + cap));
    }

    void* mapped = nullptr;
    if (request.fromMemory) {
        struct stat st {};
        if (::fstat(kMemoryFd, &st) != 0 || st.st_size <= 0)
            return sendReply(ReplyKind::Error, request.displayName + ": empty buffer") ? 0 : ExitReplyFailed;
        request.size = size_t(st.st_size);
        mapped = ::mmap(nullptr, request.size, PROT_READ, MAP_PRIVATE, kMemoryFd, 0);
        if (mapped == MAP_FAILED)
            return sendReply(ReplyKind::Error, request.displayName + ": the data could not be mapped (" +
                                                   std::strerror(errno) + ")")
                       ? 0
                       : ExitReplyFailed;
        request.data = mapped;
    }

    // The sandbox: from here on this process can read only beneath the asset root, write nothing but its open pipes,
    // reach no network and start no program (worker/sandbox.h).
    const SandboxStatus sandbox = enterSandbox(sandboxRoot(request));
    if (!sandbox.ok)
        return sendReply(ReplyKind::Error, request.displayName + ": the import worker could not enter its sandbox (" +
                                               sandbox.message + ")")
                   ? 0
                   : ExitReplyFailed;

    // Serially: this process is one import, and its limits are easier to reason about with one thread.
    ScopedThreadLimit serial(1);
    std::string payload;
    ReplyKind kind = ReplyKind::Error;
    RefusedReference refused;
    request.refused = &refused;
    try {
        Result<Rig> r = import(request);
        if (r.ok()) {
            decodeImages(r.value(), request.memoryBudget / 4);
            serializeRig(r.value(), payload);
            kind = ReplyKind::Rig;
        } else if (!refused.reason.empty()) {
            kind = ReplyKind::Refused;
            payload = r.error();
            for (const std::string* f : {&refused.reference, &refused.resolved, &refused.reason}) {
                payload.push_back('\0');
                payload += *f;
            }
            payload.push_back('\0');
            payload.push_back(char('0' + uint8_t(refused.kind)));
        } else {
            payload = r.error();
        }
    } catch (const std::bad_alloc&) {
        payload.clear();
        payload = request.displayName + ": " + (kSanitizerBuild ? std::string("out of memory while importing")
                                                                : allocationCapReason(request.memoryBudget));
    } catch (...) {
        payload = request.displayName + ": import failed";
    }
    if (mapped)
        ::munmap(mapped, request.size);
    return sendReply(kind, payload) ? 0 : ExitReplyFailed;
}

} // namespace rig::worker
