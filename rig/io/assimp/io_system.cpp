#include "rig/io/assimp/io_system.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rig::assimp_import {

namespace {

/// A read-only stream over a file descriptor.
class FdStream : public Assimp::IOStream {
public:
    FdStream(int fd, size_t size) : m_fd(fd), m_size(size) {}
    ~FdStream() override { ::close(m_fd); }
    size_t Read(void* buffer, size_t size, size_t count) override
    {
        if (size == 0 || count == 0)
            return 0;
        if (count > SIZE_MAX / size)
            return 0;
        const size_t want = size * count;
        size_t got = 0;
        char* out = static_cast<char*>(buffer);
        while (got < want) {
            const ssize_t n = ::pread(m_fd, out + got, want - got, off_t(m_pos + got));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += size_t(n);
        }
        m_pos += got;
        return got / size;
    }
    size_t Write(const void*, size_t, size_t) override { return 0; }
    aiReturn Seek(size_t offset, aiOrigin origin) override
    {
        size_t target = 0;
        switch (origin) {
        case aiOrigin_SET: target = offset; break;
        case aiOrigin_CUR:
            if (offset > SIZE_MAX - m_pos)
                return aiReturn_FAILURE;
            target = m_pos + offset;
            break;
        case aiOrigin_END:
            if (offset > m_size)
                return aiReturn_FAILURE;
            target = m_size - offset;
            break;
        default: return aiReturn_FAILURE;
        }
        if (target > m_size)
            return aiReturn_FAILURE;
        m_pos = target;
        return aiReturn_SUCCESS;
    }
    size_t Tell() const override { return m_pos; }
    size_t FileSize() const override { return m_size; }
    void Flush() override {}

private:
    int m_fd;
    size_t m_size;
    size_t m_pos = 0;
};

bool forWriting(const char* mode)
{
    for (const char* m = mode; m && *m; ++m)
        if (*m == 'w' || *m == 'a' || *m == '+')
            return true;
    return false;
}

} // namespace

void RootedIOSystem::note(const AssetRoot::Check& c) const
{
    // Without a root (an import from memory) nothing is "outside": every other file is simply not there, and the
    // reader goes on as it does for a missing file.
    if (c.refused && !m_refused && m_root.valid())
        m_refused = c.refusal;
}

bool RootedIOSystem::Exists(const char* file) const
{
    if (!file)
        return false;
    const AssetRoot::Check c = m_root.check(file);
    note(c);
    return c.ok;
}

Assimp::IOStream* RootedIOSystem::Open(const char* file, const char* mode)
{
    if (!file || forWriting(mode))
        return nullptr;
    AssetRoot::Check c;
    const int fd = m_root.open(file, c);
    note(c);
    if (fd < 0)
        return nullptr;
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        ::close(fd);
        return nullptr;
    }
    return new FdStream(fd, size_t(st.st_size));
}

void RootedIOSystem::Close(Assimp::IOStream* stream)
{
    delete stream;
}

} // namespace rig::assimp_import
