// The contract between RigScope and its import worker (`rigscope-import`, worker/), shared by both sides.
//
// Every import of a user's file runs in that separate process, started with posix_spawn (never a bare fork of the
// multi-threaded caller), so that a crash, an abort, a hang or a runaway allocation inside the third-party importer
// becomes a message instead of taking the application down.
//
// Command line (all values required unless marked):
//   rigscope-import --protocol 2 --parent PID --name DISPLAY_NAME --budget BYTES --timeout SECONDS
//                   [--asset-root DIR] (--file PATH | --memory FORMAT_HINT)
// The asset root (rig/io/asset_root.h) defaults to the file's folder (none for --memory). The worker reads files only
// through it, and the OS holds it to that (worker/sandbox.h): read-only access beneath the root, no writes, no
// network, no new programs.
// File descriptors: 0 /dev/null; 1 and 2 the diagnostics pipe (anything a library prints, sanitizer reports); 3 the
// reply pipe; with --memory, 4 a sealed read-only memfd holding the file's bytes. Every other descriptor is closed.
//
// Reply, on fd 3, once: a 24-byte header {magic 'RSIW', protocol version, kind, 0, payload bytes (u64)} then the
// payload: a serialized rig (rig_serialize.h) for kind Rig, the one-line message for kind Error, and for kind Refused
// (a reference the asset root refused) five NUL-separated fields: the message, the reference, the resolved path, the
// reason, and RefusedReference::Kind as one decimal digit. The worker then
// exits with status 0. Anything else (no reply, a short or malformed one, a signal, another exit status) is a failed
// import; the client turns each case into one line naming the file.
#pragma once

#include <cstdint>

namespace rig::worker {

inline constexpr uint32_t kReplyMagic = 0x57495352u; // "RSIW" little-endian
inline constexpr uint32_t kProtocolVersion = 3; ///< 3: the refusal's kind
inline constexpr int kReplyFd = 3;
inline constexpr int kMemoryFd = 4;
inline constexpr const char* kExecutableName = "rigscope-import";

enum class ReplyKind : uint32_t { Rig = 1, Error = 2, Refused = 3 };

struct ReplyHeader {
    uint32_t magic = kReplyMagic;
    uint32_t version = kProtocolVersion;
    uint32_t kind = 0;
    uint32_t reserved = 0;
    uint64_t payloadBytes = 0;
};
static_assert(sizeof(ReplyHeader) == 24);

/// Exit statuses of the worker besides 0 (reply sent).
enum ExitStatus : int {
    ExitUsage = 64,        ///< bad command line (a RigScope bug: the client builds it)
    ExitParentGone = 65,   ///< the parent died before the worker started
    ExitReplyFailed = 74,  ///< the reply could not be written
};

} // namespace rig::worker
