// The import worker's sandbox: what the operating system still lets `rigscope-import` do once it starts reading a
// user's file, so that a memory bug in a third-party importer cannot reach the user's files, the network or other
// programs. Entered once, after the limits (serve.cpp) and before the import; it cannot be left.
//
// - Landlock (Linux 5.13+; ABI 1-7): the file system is read-only beneath the asset root and closed everywhere else
//   (no writes, no new files, no renames, no reads outside); with ABI 4+ no TCP bind or connect; with ABI 6+ no
//   signals to processes outside the sandbox and no abstract UNIX sockets.
// - seccomp (a filter of our own, no library): no sockets at all, no execve, no new processes (threads are allowed),
//   no ptrace, no opening files for writing, no file-system changes, no io_uring, no kernel-module or mount calls,
//   signals only to itself. Denied calls fail with EPERM (clone3 with ENOSYS, so that the C library falls back to
//   clone, whose flags the filter can read).
// - Sanitizer builds keep what the sanitizer runtime needs: /proc readable and process creation and ptrace (the
//   LeakSanitizer's tracer) — never execve.
// Where the kernel has no Landlock the seccomp filter and the resolver (rig/io/asset_root.h) still hold; the status
// says which layers are on.
#pragma once

#include <string>

#include "worker/serve.h"

namespace rig::worker {

struct SandboxStatus {
    bool ok = false;        ///< false: the sandbox could not be entered (the worker refuses to import)
    int landlockAbi = 0;    ///< 0: the kernel has no Landlock
    bool seccomp = false;
    std::string message;    ///< why not ok, or what is on ("landlock ABI 7, seccomp")
};

/// The folder the worker may read: the request's asset root, else the file's folder, else none (--memory).
std::string sandboxRoot(const Request& request);

/// Enters the sandbox with read access beneath `readableRoot` (canonical; empty: no file may be opened).
SandboxStatus enterSandbox(const std::string& readableRoot);

} // namespace rig::worker
