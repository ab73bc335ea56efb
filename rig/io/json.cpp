// The JSON reader of json.h: one pass, iterative, every byte checked before it is read.
#include "rig/io/json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <new>
#include <stdexcept>

namespace rig::json {

// ---------------------------------------------------------------------------------------------------------------
// Value

Type Value::type() const { return m_doc ? m_doc->m_nodes[m_index].type : Type::Null; }

bool Value::boolean(bool fallback) const { return isBool() ? m_doc->m_nodes[m_index].boolean : fallback; }

double Value::number(double fallback) const { return isNumber() ? m_doc->m_nodes[m_index].number : fallback; }

std::string_view Value::string() const
{
    if (!isString())
        return {};
    const Document::Node& n = m_doc->m_nodes[m_index];
    return std::string_view(m_doc->m_strings).substr(n.first, n.count);
}

size_t Value::size() const
{
    if (!m_doc)
        return 0;
    const Document::Node& n = m_doc->m_nodes[m_index];
    return (n.type == Type::Array || n.type == Type::Object) ? n.count : 0;
}

Value Value::operator[](size_t i) const
{
    if (!isArray())
        return {};
    const Document::Node& n = m_doc->m_nodes[m_index];
    if (i >= n.count)
        return {};
    return Value(m_doc, m_doc->m_links[size_t(n.first) + i]);
}

Value Value::get(std::string_view key) const
{
    if (!isObject())
        return {};
    const Document::Node& n = m_doc->m_nodes[m_index];
    for (size_t i = 0; i < n.count; ++i) {
        const Value k(m_doc, m_doc->m_links[size_t(n.first) + 2 * i]);
        if (k.string() == key)
            return Value(m_doc, m_doc->m_links[size_t(n.first) + 2 * i + 1]);
    }
    return {};
}

std::string_view Value::keyAt(size_t i) const
{
    if (!isObject() || i >= m_doc->m_nodes[m_index].count)
        return {};
    return Value(m_doc, m_doc->m_links[size_t(m_doc->m_nodes[m_index].first) + 2 * i]).string();
}

Value Value::valueAt(size_t i) const
{
    if (!isObject() || i >= m_doc->m_nodes[m_index].count)
        return {};
    return Value(m_doc, m_doc->m_links[size_t(m_doc->m_nodes[m_index].first) + 2 * i + 1]);
}

bool Value::asIndex(uint64_t& out, uint64_t max) const
{
    if (!isNumber())
        return false;
    const double d = m_doc->m_nodes[m_index].number;
    // 2^64 is exactly representable; anything below it converts without undefined behaviour.
    if (!(d >= 0.0) || !(d < 18446744073709551616.0) || d != std::floor(d))
        return false;
    const uint64_t v = uint64_t(d);
    if (v > max)
        return false;
    out = v;
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Parser

class Parser {
public:
    Parser(std::string_view text, const ParseLimits& limits) : m_text(text), m_limits(limits) {}

    Result<Document> run()
    {
        try {
            return parseDocument();
        } catch (const std::bad_alloc&) {
            return fail(at(m_pos) + "out of memory");
        } catch (const std::length_error&) {
            return fail(at(m_pos) + "out of memory");
        }
    }

private:
    struct Frame {
        uint32_t node;
        size_t pendingStart; ///< where this container's children start in m_pending
        bool object;
    };

    static std::string at(size_t offset) { return "offset " + std::to_string(offset) + ": "; }
    Error error(size_t offset, const std::string& reason) const { return fail(at(offset) + reason); }

    bool atEnd() const { return m_pos >= m_text.size(); }
    unsigned char peek() const { return static_cast<unsigned char>(m_text[m_pos]); }

    void skipWhitespace()
    {
        while (!atEnd()) {
            const char c = m_text[m_pos];
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
                break;
            ++m_pos;
        }
    }

    /// Where the input ends for the parser: the first NUL byte outside a string ends it (Assimp parses in place).
    std::string describe(size_t offset) const
    {
        if (offset >= m_text.size())
            return "unexpected end of input";
        const unsigned char c = static_cast<unsigned char>(m_text[offset]);
        if (c >= 0x21 && c < 0x7f)
            return std::string("unexpected character '") + char(c) + "'";
        char hex[8];
        static const char digits[] = "0123456789abcdef";
        hex[0] = '0';
        hex[1] = 'x';
        hex[2] = digits[c >> 4];
        hex[3] = digits[c & 15];
        hex[4] = 0;
        return std::string("unexpected byte ") + hex;
    }

    Result<uint32_t> newNode(Type type)
    {
        if (m_doc.m_nodes.size() >= m_limits.maxValues)
            return error(m_pos, "more than " + std::to_string(m_limits.maxValues) + " values");
        m_doc.m_nodes.push_back({});
        m_doc.m_nodes.back().type = type;
        return uint32_t(m_doc.m_nodes.size() - 1);
    }

    Result<Document> parseDocument()
    {
        const size_t maxBytes = std::min<size_t>(m_limits.maxBytes, std::numeric_limits<uint32_t>::max());
        if (m_text.size() > maxBytes)
            return error(0, "input of " + std::to_string(m_text.size()) + " bytes is over the limit of " +
                                std::to_string(maxBytes));
        if (m_text.size() >= 3 && m_text.compare(0, 3, "\xEF\xBB\xBF") == 0)
            m_pos = 3;

        // The main loop: parse a value; then, while containers are open, expect ',' or the closing bracket.
        bool needValue = true;
        while (true) {
            if (needValue) {
                auto v = parseValue();
                if (!v.ok())
                    return Error{v.error()};
                if (v.value() == kOpened) { // a container was opened: its first element or its end follows
                    skipWhitespace();
                    const Frame& f = m_frames.back();
                    if (!atEnd() && peek() == (f.object ? '}' : ']')) {
                        ++m_pos;
                        closeContainer();
                    } else if (f.object) {
                        if (auto r = parseKey(); !r.ok())
                            return Error{r.error()};
                        continue;
                    } else {
                        continue;
                    }
                } else if (!m_frames.empty()) {
                    m_pending.push_back(v.value());
                }
            }
            // A value is complete (or a container was just closed).
            if (m_frames.empty())
                break;
            skipWhitespace();
            const Frame& f = m_frames.back();
            if (atEnd())
                return error(m_pos, "unexpected end of input (unclosed " + std::string(f.object ? "object" : "array") + ")");
            const char c = m_text[m_pos];
            if (c == ',') {
                ++m_pos;
                if (f.object) {
                    skipWhitespace();
                    if (auto r = parseKey(); !r.ok())
                        return Error{r.error()};
                }
                needValue = true;
            } else if (c == (f.object ? '}' : ']')) {
                ++m_pos;
                closeContainer();
                needValue = false;
            } else {
                return error(m_pos, describe(m_pos) + (f.object ? " (expected ',' or '}')" : " (expected ',' or ']')"));
            }
        }

        skipWhitespace();
        if (!atEnd() && m_text[m_pos] != '\0')
            return error(m_pos, describe(m_pos) + " after the JSON value");
        return std::move(m_doc);
    }

    /// Completes the innermost container: its children move to the link table.
    void closeContainer()
    {
        const Frame f = m_frames.back();
        m_frames.pop_back();
        Document::Node& n = m_doc.m_nodes[f.node];
        const size_t children = m_pending.size() - f.pendingStart;
        n.first = uint32_t(m_doc.m_links.size());
        n.count = uint32_t(f.object ? children / 2 : children);
        m_doc.m_links.insert(m_doc.m_links.end(), m_pending.begin() + ptrdiff_t(f.pendingStart), m_pending.end());
        m_pending.resize(f.pendingStart);
        if (!m_frames.empty())
            m_pending.push_back(f.node);
    }

    /// An object key and its ':' (the value follows).
    Result<void> parseKey()
    {
        if (atEnd() || peek() != '"')
            return error(m_pos, describe(m_pos) + " (expected a string key)");
        auto k = parseString();
        if (!k.ok())
            return Error{k.error()};
        m_pending.push_back(k.value());
        skipWhitespace();
        if (atEnd() || peek() != ':')
            return error(m_pos, describe(m_pos) + " (expected ':')");
        ++m_pos;
        return {};
    }

    static constexpr uint32_t kOpened = std::numeric_limits<uint32_t>::max();

    /// A scalar (returns its node) or the start of a container (pushes a frame, returns kOpened).
    Result<uint32_t> parseValue()
    {
        skipWhitespace();
        if (atEnd() || peek() == '\0')
            return error(m_pos, "unexpected end of input (expected a value)");
        const char c = m_text[m_pos];
        switch (c) {
        case '{':
        case '[': {
            if (m_frames.size() >= m_limits.maxDepth)
                return error(m_pos, "nesting deeper than " + std::to_string(m_limits.maxDepth) + " levels");
            auto n = newNode(c == '{' ? Type::Object : Type::Array);
            if (!n.ok())
                return n;
            ++m_pos;
            m_frames.push_back({n.value(), m_pending.size(), c == '{'});
            return kOpened;
        }
        case '"':
            return parseString();
        case 't':
            return parseLiteral("true", Type::Bool, true);
        case 'f':
            return parseLiteral("false", Type::Bool, false);
        case 'n':
            return parseLiteral("null", Type::Null, false);
        default:
            if (c == '-' || (c >= '0' && c <= '9'))
                return parseNumber();
            return error(m_pos, describe(m_pos) + " (expected a value)");
        }
    }

    Result<uint32_t> parseLiteral(std::string_view word, Type type, bool value)
    {
        const size_t start = m_pos;
        for (size_t i = 0; i < word.size(); ++i) {
            if (m_pos + i >= m_text.size() || m_text[m_pos + i] != word[i])
                return error(m_pos + i, describe(m_pos + i) + " (in literal '" + std::string(word) + "' at offset " +
                                            std::to_string(start) + ")");
        }
        auto n = newNode(type);
        if (!n.ok())
            return n;
        m_doc.m_nodes[n.value()].boolean = value;
        m_pos += word.size();
        return n;
    }

    static bool isDigit(char c) { return c >= '0' && c <= '9'; }

    Result<uint32_t> parseNumber()
    {
        const size_t start = m_pos;
        size_t p = m_pos;
        const size_t end = m_text.size();
        if (p < end && m_text[p] == '-')
            ++p;
        if (p >= end || !isDigit(m_text[p]))
            return error(p, describe(p) + " (expected a digit)");
        // Decimal magnitude estimate (for telling overflow from underflow): position of the first significant digit.
        long long magnitude = 0;
        bool significant = false;
        if (m_text[p] == '0') {
            ++p;
            if (p < end && isDigit(m_text[p]))
                return error(p, "leading zeros are not allowed");
        } else {
            while (p < end && isDigit(m_text[p])) {
                if (!significant)
                    significant = true;
                else
                    ++magnitude;
                ++p;
            }
        }
        if (p < end && m_text[p] == '.') {
            ++p;
            if (p >= end || !isDigit(m_text[p]))
                return error(p, describe(p) + " (expected a digit after '.')");
            long long position = 0;
            while (p < end && isDigit(m_text[p])) {
                --position;
                if (!significant && m_text[p] != '0') {
                    significant = true;
                    magnitude = position;
                }
                ++p;
            }
        }
        long long exponent = 0;
        bool negativeExponent = false;
        if (p < end && (m_text[p] == 'e' || m_text[p] == 'E')) {
            ++p;
            if (p < end && (m_text[p] == '+' || m_text[p] == '-'))
                negativeExponent = m_text[p++] == '-';
            if (p >= end || !isDigit(m_text[p]))
                return error(p, describe(p) + " (expected a digit in the exponent)");
            while (p < end && isDigit(m_text[p])) {
                if (exponent < 1000000000)
                    exponent = exponent * 10 + (m_text[p] - '0');
                ++p;
            }
        }
        double value = 0.0;
        const char* first = m_text.data() + start;
        const char* last = m_text.data() + p;
        const std::from_chars_result r = std::from_chars(first, last, value);
        if (r.ec == std::errc::result_out_of_range) {
            const long long e = magnitude + (negativeExponent ? -exponent : exponent);
            if (significant && e > 0)
                return error(start, "number out of range: " + std::string(m_text.substr(start, std::min<size_t>(p - start, 40))));
            value = m_text[start] == '-' ? -0.0 : 0.0; // underflow: as RapidJSON, the nearest value (zero)
        } else if (r.ec != std::errc() || r.ptr != last) {
            return error(start, "invalid number");
        }
        auto n = newNode(Type::Number);
        if (!n.ok())
            return n;
        m_doc.m_nodes[n.value()].number = value;
        m_pos = p;
        return n;
    }

    static int hexValue(char c)
    {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
            return c - 'A' + 10;
        return -1;
    }

    /// Four hex digits at p (p points past "\u").
    Result<uint32_t> hex4(size_t p) const
    {
        uint32_t v = 0;
        for (size_t i = 0; i < 4; ++i) {
            if (p + i >= m_text.size())
                return error(p + i, "unexpected end of input (in a \\u escape)");
            const int h = hexValue(m_text[p + i]);
            if (h < 0)
                return error(p + i, describe(p + i) + " (expected a hex digit in a \\u escape)");
            v = v * 16 + uint32_t(h);
        }
        return v;
    }

    static void appendUtf8(std::string& out, uint32_t cp)
    {
        if (cp < 0x80) {
            out.push_back(char(cp));
        } else if (cp < 0x800) {
            out.push_back(char(0xC0 | (cp >> 6)));
            out.push_back(char(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            out.push_back(char(0xE0 | (cp >> 12)));
            out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(char(0x80 | (cp & 0x3F)));
        } else {
            out.push_back(char(0xF0 | (cp >> 18)));
            out.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
            out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(char(0x80 | (cp & 0x3F)));
        }
    }

    /// A string at m_pos (which holds the opening quote); appended to the pool.
    Result<uint32_t> parseString()
    {
        const size_t start = m_pos;
        size_t p = m_pos + 1;
        std::string& pool = m_doc.m_strings;
        const size_t offset = pool.size();
        while (true) {
            // Copy the run of plain characters in one go.
            size_t q = p;
            while (q < m_text.size()) {
                const unsigned char c = static_cast<unsigned char>(m_text[q]);
                if (c == '"' || c == '\\' || c < 0x20)
                    break;
                ++q;
            }
            pool.append(m_text.data() + p, q - p);
            p = q;
            if (p >= m_text.size())
                return error(p, "unexpected end of input (unterminated string starting at offset " + std::to_string(start) + ")");
            const unsigned char c = static_cast<unsigned char>(m_text[p]);
            if (c == '"') {
                ++p;
                break;
            }
            if (c < 0x20)
                return error(p, "control character in a string (must be escaped)");
            // An escape.
            if (p + 1 >= m_text.size())
                return error(p + 1, "unexpected end of input (in an escape)");
            const char e = m_text[p + 1];
            switch (e) {
            case '"': pool.push_back('"'); p += 2; break;
            case '\\': pool.push_back('\\'); p += 2; break;
            case '/': pool.push_back('/'); p += 2; break;
            case 'b': pool.push_back('\b'); p += 2; break;
            case 'f': pool.push_back('\f'); p += 2; break;
            case 'n': pool.push_back('\n'); p += 2; break;
            case 'r': pool.push_back('\r'); p += 2; break;
            case 't': pool.push_back('\t'); p += 2; break;
            case 'u': {
                auto hi = hex4(p + 2);
                if (!hi.ok())
                    return hi;
                uint32_t cp = hi.value();
                if (cp >= 0xDC00 && cp <= 0xDFFF)
                    return error(p, "unpaired low surrogate in a \\u escape");
                p += 6;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (p + 1 >= m_text.size() || m_text[p] != '\\' || m_text[p + 1] != 'u')
                        return error(p, "high surrogate not followed by a \\u low surrogate");
                    auto lo = hex4(p + 2);
                    if (!lo.ok())
                        return lo;
                    if (lo.value() < 0xDC00 || lo.value() > 0xDFFF)
                        return error(p, "high surrogate not followed by a low surrogate");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo.value() - 0xDC00);
                    p += 6;
                }
                appendUtf8(pool, cp);
                break;
            }
            default:
                return error(p + 1, describe(p + 1) + " (invalid escape)");
            }
        }
        auto n = newNode(Type::String);
        if (!n.ok())
            return n;
        m_doc.m_nodes[n.value()].first = uint32_t(offset);
        m_doc.m_nodes[n.value()].count = uint32_t(pool.size() - offset);
        m_pos = p;
        return n;
    }

    std::string_view m_text;
    const ParseLimits& m_limits;
    size_t m_pos = 0;
    Document m_doc;
    std::vector<Frame> m_frames;
    std::vector<uint32_t> m_pending; ///< children (objects: key, value, key, value...) of the open containers
};

Result<Document> parse(std::string_view text, const ParseLimits& limits)
{
    try {
        Parser parser(text, limits);
        return parser.run();
    } catch (...) {
        return fail("offset 0: out of memory");
    }
}

} // namespace rig::json
