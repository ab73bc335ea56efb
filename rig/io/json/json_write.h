// Helpers for writing JSON with RapidJSON's Writer: floats as their shortest round-trip text, text from users' files
// made valid UTF-8, and an output stream that buffers for a std::ostream.
#pragma once

#include <charconv>
#include <cmath>
#include <ostream>
#include <string>
#include <string_view>

#include <rapidjson/writer.h>

namespace rig::json {

/// Bytes that are not well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF) become
/// U+FFFD, so that names and messages from a user's file keep the JSON text valid whatever the file holds.
std::string validUtf8(std::string_view s);

/// RapidJSON output stream over a std::ostream, with a buffer of its own (the wrapper RapidJSON ships writes byte by
/// byte). Flush() (or the destructor) writes what is buffered.
class OStream {
public:
    using Ch = char;
    explicit OStream(std::ostream& out) : m_out(out) {}
    ~OStream() { Flush(); }
    OStream(const OStream&) = delete;
    OStream& operator=(const OStream&) = delete;
    void Put(char c)
    {
        if (m_used == sizeof m_buffer)
            Flush();
        m_buffer[m_used++] = c;
    }
    void Flush()
    {
        if (m_used)
            m_out.write(m_buffer, std::streamsize(m_used));
        m_used = 0;
    }

private:
    std::ostream& m_out;
    char m_buffer[1 << 16];
    size_t m_used = 0;
};

/// Writes `v` as the shortest decimal that reads back as the same float (0 for -0), or null when it is not finite.
template <typename Writer>
bool writeFloat(Writer& w, float v)
{
    if (!std::isfinite(v))
        return w.Null();
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v == 0.0f ? 0.0f : v);
    return w.RawValue(buf, size_t(r.ptr - buf), rapidjson::kNumberType);
}

/// Writes a string from a user's file (validUtf8 first).
template <typename Writer>
bool writeText(Writer& w, std::string_view s)
{
    const std::string valid = validUtf8(s);
    return w.String(valid.data(), rapidjson::SizeType(valid.size()));
}

} // namespace rig::json
