#include "worker/sandbox.h"
#include "rig/io/worker/sanitizer_build.h"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <vector>

namespace rig::worker {

namespace {


// --- Landlock (the uapi, spelled out: Debian 12's headers stop at ABI 3) ------------------------------------------

constexpr uint64_t kFsExecute = 1ull << 0, kFsWriteFile = 1ull << 1, kFsReadFile = 1ull << 2, kFsReadDir = 1ull << 3,
                   kFsRemoveDir = 1ull << 4, kFsRemoveFile = 1ull << 5, kFsMakeChar = 1ull << 6, kFsMakeDir = 1ull << 7,
                   kFsMakeReg = 1ull << 8, kFsMakeSock = 1ull << 9, kFsMakeFifo = 1ull << 10, kFsMakeBlock = 1ull << 11,
                   kFsMakeSym = 1ull << 12, kFsRefer = 1ull << 13, kFsTruncate = 1ull << 14, kFsIoctlDev = 1ull << 15;
constexpr uint64_t kNetBindTcp = 1ull << 0, kNetConnectTcp = 1ull << 1;
constexpr uint64_t kScopeAbstractUnixSocket = 1ull << 0, kScopeSignal = 1ull << 1;
constexpr uint32_t kCreateRulesetVersion = 1u << 0;
constexpr int kRulePathBeneath = 1;

struct RulesetAttr {
    uint64_t handledAccessFs;
    uint64_t handledAccessNet; // ABI 4
    uint64_t scoped;           // ABI 6
};

struct __attribute__((packed)) PathBeneathAttr {
    uint64_t allowedAccess;
    int32_t parentFd;
};

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

int landlockAbi()
{
    const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
    return abi > 0 ? int(abi) : 0;
}

/// Read-only beneath `root` (and /proc in sanitizer builds), nothing else. False with `why` on failure.
bool restrictFileSystem(int abi, const std::string& root, std::string& why)
{
    uint64_t fs = kFsExecute | kFsWriteFile | kFsReadFile | kFsReadDir | kFsRemoveDir | kFsRemoveFile | kFsMakeChar |
                  kFsMakeDir | kFsMakeReg | kFsMakeSock | kFsMakeFifo | kFsMakeBlock | kFsMakeSym;
    if (abi >= 2)
        fs |= kFsRefer;
    if (abi >= 3)
        fs |= kFsTruncate;
    if (abi >= 5)
        fs |= kFsIoctlDev;
    RulesetAttr attr{fs, abi >= 4 ? (kNetBindTcp | kNetConnectTcp) : 0, abi >= 6 ? (kScopeAbstractUnixSocket | kScopeSignal) : 0};
    const size_t size = abi >= 6 ? sizeof(RulesetAttr) : abi >= 4 ? offsetof(RulesetAttr, scoped) : offsetof(RulesetAttr, handledAccessNet);
    const int ruleset = int(::syscall(SYS_landlock_create_ruleset, &attr, size, 0));
    if (ruleset < 0) {
        why = std::string("landlock_create_ruleset: ") + std::strerror(errno);
        return false;
    }
    auto allowRead = [&](const std::string& folder) {
        const int fd = ::open(folder.c_str(), O_PATH | O_CLOEXEC | O_DIRECTORY);
        if (fd < 0)
            return false;
        PathBeneathAttr rule{kFsReadFile | kFsReadDir, fd};
        const long r = ::syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &rule, 0);
        ::close(fd);
        return r == 0;
    };
    bool ok = true;
    if (!root.empty() && !allowRead(root)) {
        why = "landlock_add_rule(" + root + "): " + std::strerror(errno);
        ok = false;
    }
    if (ok && kSanitizerBuild)
        allowRead("/proc"); // the sanitizer runtime reads /proc/self/maps and /proc/self/task
    if (ok && ::syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
        why = std::string("landlock_restrict_self: ") + std::strerror(errno);
        ok = false;
    }
    ::close(ruleset);
    return ok;
}

// --- seccomp ------------------------------------------------------------------------------------------------------

#if defined(__x86_64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#define RIGSCOPE_SECCOMP 1
#elif defined(__aarch64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#define RIGSCOPE_SECCOMP 1
#endif

#ifdef RIGSCOPE_SECCOMP

class Filter {
public:
    void load(uint32_t offset) { m_p.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset)); }
    void ret(uint32_t value) { m_p.push_back(BPF_STMT(BPF_RET | BPF_K, value)); }
    static uint32_t errnoOf(int e) { return SECCOMP_RET_ERRNO | (uint32_t(e) & SECCOMP_RET_DATA); }
    static uint32_t arg(int i) { return uint32_t(offsetof(seccomp_data, args) + 8 * size_t(i)); } // low 32 bits (little endian)

    /// Denies syscall `nr` with `error`.
    void deny(long nr, int error = EPERM)
    {
        m_p.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(nr), 0, 1));
        ret(errnoOf(error));
    }
    /// For syscall `nr`: allowed when argument `a` has any of `bits` set, else denied.
    void allowIfAnyBit(long nr, int a, uint32_t bits) { onArg(nr, a, BPF_JSET, bits, SECCOMP_RET_ALLOW, errnoOf(EPERM)); }
    /// For syscall `nr`: denied when argument `a` has any of `bits` set, else allowed.
    void denyIfAnyBit(long nr, int a, uint32_t bits) { onArg(nr, a, BPF_JSET, bits, errnoOf(EPERM), SECCOMP_RET_ALLOW); }
    /// For syscall `nr`: allowed only when argument `a` equals `value`.
    void allowOnlyIfEquals(long nr, int a, uint32_t value) { onArg(nr, a, BPF_JEQ, value, SECCOMP_RET_ALLOW, errnoOf(EPERM)); }
    std::vector<sock_filter>& program() { return m_p; }

private:
    /// For syscall `nr`: argument `a` tested against `k` with `test` (BPF_JEQ: equal; BPF_JSET: any bit in common)
    /// returns `ifTrue`, else `ifFalse`; other syscalls fall through to the next rule.
    void onArg(long nr, int a, uint16_t test, uint32_t k, uint32_t ifTrue, uint32_t ifFalse)
    {
        m_p.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, uint32_t(nr), 0, 4));
        load(arg(a));
        m_p.push_back(BPF_JUMP(uint16_t(BPF_JMP | test | BPF_K), k, 0, 1));
        ret(ifTrue);
        ret(ifFalse);
    }

    std::vector<sock_filter> m_p;
};

bool installSeccomp(std::string& why)
{
    Filter f;
    f.load(uint32_t(offsetof(seccomp_data, arch)));
    f.program().push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0));
    f.ret(SECCOMP_RET_KILL_PROCESS); // another ABI (e.g. x86 32-bit calls): no filter could vouch for it
    f.load(uint32_t(offsetof(seccomp_data, nr)));
#if defined(__x86_64__)
    f.program().push_back(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1)); // x32 calls
    f.ret(Filter::errnoOf(EPERM));
#endif
    const long denied[] = {
        // network and other processes
        SYS_socket, SYS_socketpair, SYS_connect, SYS_bind, SYS_listen, SYS_accept, SYS_accept4,
        SYS_execve, SYS_execveat, SYS_process_vm_readv, SYS_process_vm_writev, SYS_tkill, SYS_pidfd_open,
        SYS_pidfd_send_signal, SYS_pidfd_getfd,
        // file-system changes
        SYS_unlinkat, SYS_renameat, SYS_renameat2, SYS_mkdirat, SYS_linkat, SYS_symlinkat, SYS_fchmodat, SYS_fchownat,
        SYS_fchmod, SYS_fchown, SYS_truncate, SYS_mknodat, SYS_utimensat, SYS_setxattr, SYS_lsetxattr, SYS_fsetxattr,
        SYS_removexattr, SYS_lremovexattr, SYS_fremovexattr,
#ifdef SYS_unlink
        SYS_unlink, SYS_rename, SYS_mkdir, SYS_rmdir, SYS_link, SYS_symlink, SYS_chmod, SYS_chown, SYS_lchown, SYS_mknod,
        SYS_utime, SYS_utimes, SYS_futimesat, SYS_creat,
#endif
#ifdef SYS_fork
        SYS_fork, SYS_vfork,
#endif
        // the kernel's other doors
        SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register, SYS_bpf, SYS_perf_event_open, SYS_userfaultfd,
        SYS_keyctl, SYS_add_key, SYS_request_key, SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_unshare,
        SYS_setns, SYS_init_module, SYS_finit_module, SYS_delete_module, SYS_kexec_load, SYS_reboot, SYS_swapon,
        SYS_swapoff, SYS_acct, SYS_quotactl, SYS_open_by_handle_at, SYS_name_to_handle_at, SYS_fanotify_init,
    };
    for (long nr : denied)
        f.deny(nr);
    if (!kSanitizerBuild) {
        f.deny(SYS_ptrace);
        f.allowIfAnyBit(SYS_clone, 0, CLONE_THREAD); // threads yes, processes no
    }
    f.deny(SYS_clone3, ENOSYS); // its flags sit behind a pointer: the C library falls back to clone
    f.deny(SYS_openat2, ENOSYS);
    // The kernel's O_TMPFILE bit alone (glibc's __O_TMPFILE includes O_DIRECTORY, which opening a folder to read uses).
    constexpr uint32_t kTmpfileBit = 020000000;
    const uint32_t writes = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | kTmpfileBit;
#ifdef SYS_open
    f.denyIfAnyBit(SYS_open, 1, writes);
#endif
    f.denyIfAnyBit(SYS_openat, 2, writes);
    const uint32_t self = uint32_t(::getpid());
    f.allowOnlyIfEquals(SYS_kill, 0, self);
    f.allowOnlyIfEquals(SYS_tgkill, 0, self);
    f.ret(SECCOMP_RET_ALLOW);

    sock_fprog prog{static_cast<unsigned short>(f.program().size()), f.program().data()};
    if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
        why = std::string("seccomp: ") + std::strerror(errno);
        return false;
    }
    return true;
}

#endif // RIGSCOPE_SECCOMP

} // namespace

std::string sandboxRoot(const Request& request)
{
    std::error_code ec;
    if (!request.assetRoot.empty()) {
        const auto c = std::filesystem::canonical(request.assetRoot, ec);
        return ec ? std::string() : c.string();
    }
    if (request.fromMemory || request.path.empty())
        return {};
    const auto folder = std::filesystem::absolute(request.path, ec).parent_path();
    if (ec)
        return {};
    const auto c = std::filesystem::canonical(folder.empty() ? std::filesystem::path("/") : folder, ec);
    return ec ? std::string() : c.string();
}

SandboxStatus enterSandbox(const std::string& readableRoot)
{
    SandboxStatus s;
    // Needed by both layers (and keeps set-uid programs powerless, were one reachable).
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        s.message = std::string("no_new_privs: ") + std::strerror(errno);
        return s;
    }
    s.landlockAbi = landlockAbi();
    std::string why;
    if (s.landlockAbi > 0 && !restrictFileSystem(s.landlockAbi, readableRoot, why)) {
        s.message = why;
        return s;
    }
#ifdef RIGSCOPE_SECCOMP
    if (!installSeccomp(why)) {
        s.message = why;
        return s;
    }
    s.seccomp = true;
#endif
    s.ok = true;
    s.message = (s.landlockAbi > 0 ? "landlock ABI " + std::to_string(s.landlockAbi) : std::string("no landlock")) +
                (s.seccomp ? ", seccomp" : ", no seccomp");
    return s;
}

} // namespace rig::worker
