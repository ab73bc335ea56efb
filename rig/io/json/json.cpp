#include "rig/io/json/json.h"
#include "rig/io/json/json_write.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cmath>
#include <cstdlib>
#include <new>

namespace rig::json {

namespace detail {

struct ThrowingAllocator {
    static const bool kNeedFree = true;
    void* Malloc(size_t size)
    {
        if (size == 0)
            return nullptr;
        if (void* p = std::malloc(size))
            return p;
        throw std::bad_alloc();
    }
    void* Realloc(void* original, size_t, size_t newSize)
    {
        if (newSize == 0) {
            std::free(original);
            return nullptr;
        }
        if (void* p = std::realloc(original, newSize))
            return p;
        throw std::bad_alloc();
    }
    static void Free(void* ptr) { std::free(ptr); }
};

} // namespace detail

namespace {

using detail::RjDocument;

constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag |
                            rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseFullPrecisionFlag;

/// Forwards SAX events to the document while counting values and nesting; stops the parse past a limit.
class LimitedHandler {
public:
    LimitedHandler(RjDocument& doc, const ParseLimits& limits) : m_doc(doc), m_limits(limits) {}

    bool Null() { return value() && m_doc.Null(); }
    bool Bool(bool b) { return value() && m_doc.Bool(b); }
    bool Int(int i) { return value() && m_doc.Int(i); }
    bool Uint(unsigned u) { return value() && m_doc.Uint(u); }
    bool Int64(int64_t i) { return value() && m_doc.Int64(i); }
    bool Uint64(uint64_t u) { return value() && m_doc.Uint64(u); }
    bool Double(double d) { return value() && m_doc.Double(d); }
    bool RawNumber(const char* s, rapidjson::SizeType n, bool copy) { return value() && m_doc.RawNumber(s, n, copy); }
    bool String(const char* s, rapidjson::SizeType n, bool copy) { return value() && m_doc.String(s, n, copy); }
    bool Key(const char* s, rapidjson::SizeType n, bool copy) { return value() && m_doc.Key(s, n, copy); }
    bool StartObject() { return value() && deeper() && m_doc.StartObject(); }
    bool EndObject(rapidjson::SizeType members)
    {
        --m_depth;
        return m_doc.EndObject(members);
    }
    bool StartArray() { return value() && deeper() && m_doc.StartArray(); }
    bool EndArray(rapidjson::SizeType elements)
    {
        --m_depth;
        return m_doc.EndArray(elements);
    }

    size_t values() const { return m_values; }
    /// Why the handler stopped the parse (empty: it did not).
    const std::string& stopped() const { return m_stopped; }

private:
    bool value()
    {
        if (++m_values > m_limits.maxValues) {
            m_stopped = "more than " + std::to_string(m_limits.maxValues) + " values";
            return false;
        }
        return true;
    }
    bool deeper()
    {
        if (++m_depth > m_limits.maxDepth) {
            m_stopped = "nesting deeper than " + std::to_string(m_limits.maxDepth) + " levels";
            return false;
        }
        return true;
    }

    RjDocument& m_doc;
    const ParseLimits& m_limits;
    size_t m_values = 0;
    size_t m_depth = 0;
    std::string m_stopped;
};

bool isJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// Length of the well-formed UTF-8 sequence at s[i] (lead byte >= 0x80), or 0 when it is not one.
size_t utf8SequenceLength(std::string_view s, size_t i)
{
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF; // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (i + len > s.size())
        return 0;
    for (size_t k = 1; k < len; ++k) {
        const unsigned char b = static_cast<unsigned char>(s[i + k]);
        if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF))
            return 0;
    }
    return len;
}

} // namespace

std::string validUtf8(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            out.push_back(s[i++]);
            continue;
        }
        const size_t len = utf8SequenceLength(s, i);
        if (len == 0) {
            out += "\xEF\xBF\xBD"; // U+FFFD
            ++i;
        } else {
            out.append(s.data() + i, len);
            i += len;
        }
    }
    return out;
}

// ---- Value ------------------------------------------------------------------------------------------------------

Type Value::type() const
{
    if (!m_v)
        return Type::Null;
    switch (m_v->GetType()) {
    case rapidjson::kNullType: return Type::Null;
    case rapidjson::kFalseType:
    case rapidjson::kTrueType: return Type::Bool;
    case rapidjson::kObjectType: return Type::Object;
    case rapidjson::kArrayType: return Type::Array;
    case rapidjson::kStringType: return Type::String;
    case rapidjson::kNumberType: return Type::Number;
    }
    return Type::Null;
}

bool Value::boolean(bool fallback) const { return m_v && m_v->IsBool() ? m_v->GetBool() : fallback; }

double Value::number(double fallback) const { return m_v && m_v->IsNumber() ? m_v->GetDouble() : fallback; }

std::string_view Value::string() const
{
    return m_v && m_v->IsString() ? std::string_view(m_v->GetString(), m_v->GetStringLength()) : std::string_view();
}

size_t Value::size() const
{
    if (!m_v)
        return 0;
    if (m_v->IsArray())
        return m_v->Size();
    if (m_v->IsObject())
        return m_v->MemberCount();
    return 0;
}

Value Value::operator[](size_t i) const
{
    if (!m_v || !m_v->IsArray() || i >= m_v->Size())
        return Value();
    return Value(&(*m_v)[rapidjson::SizeType(i)]);
}

Value Value::get(std::string_view key) const
{
    if (!m_v || !m_v->IsObject())
        return Value();
    for (auto it = m_v->MemberBegin(); it != m_v->MemberEnd(); ++it)
        if (std::string_view(it->name.GetString(), it->name.GetStringLength()) == key)
            return Value(&it->value);
    return Value();
}

std::string_view Value::keyAt(size_t i) const
{
    if (!m_v || !m_v->IsObject() || i >= m_v->MemberCount())
        return {};
    const auto& name = (m_v->MemberBegin() + ptrdiff_t(i))->name;
    return std::string_view(name.GetString(), name.GetStringLength());
}

Value Value::valueAt(size_t i) const
{
    if (!m_v || !m_v->IsObject() || i >= m_v->MemberCount())
        return Value();
    return Value(&(m_v->MemberBegin() + ptrdiff_t(i))->value);
}

bool Value::asIndex(uint64_t& out, uint64_t max) const
{
    if (!m_v || !m_v->IsNumber())
        return false;
    uint64_t v = 0;
    if (m_v->IsUint64()) {
        v = m_v->GetUint64();
    } else if (m_v->IsInt64()) {
        return false; // negative
    } else {
        const double d = m_v->GetDouble();
        if (!(d >= 0.0) || d > 18446744073709549568.0 || std::floor(d) != d)
            return false;
        v = uint64_t(d);
    }
    if (v > max)
        return false;
    out = v;
    return true;
}

// ---- Document -----------------------------------------------------------------------------------------------------

Document::Document() = default;
Document::~Document() = default;
Document::Document(Document&&) noexcept = default;
Document& Document::operator=(Document&&) noexcept = default;

Value Document::root() const { return m_doc ? Value(m_doc.get()) : Value(); }

Result<Document> parse(std::string_view text, const ParseLimits& limits)
{
    if (text.size() > limits.maxBytes)
        return fail("offset 0: the document is larger than " + std::to_string(limits.maxBytes) + " bytes");
    size_t start = 0;
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        start = 3;
    // A NUL byte ends the input (Assimp parses its copy of the file in place, NUL-terminated).
    const size_t nul = text.find('\0', start);
    const size_t end = nul == std::string_view::npos ? text.size() : nul;
    try {
        Document result;
        result.m_doc = std::make_unique<RjDocument>();
        rapidjson::MemoryStream stream(text.data() + start, end - start);
        rapidjson::GenericReader<rapidjson::UTF8<char>, rapidjson::UTF8<char>, detail::ThrowingAllocator> reader;
        LimitedHandler handler(*result.m_doc, limits);
        auto generate = [&](RjDocument&) { return !reader.Parse<kFlags>(stream, handler).IsError(); };
        result.m_doc->Populate(generate);
        if (reader.HasParseError()) {
            const size_t at = start + reader.GetErrorOffset();
            if (reader.GetParseErrorCode() == rapidjson::kParseErrorTermination && !handler.stopped().empty())
                return fail("offset " + std::to_string(at) + ": " + handler.stopped());
            return fail("offset " + std::to_string(at) + ": " + rapidjson::GetParseError_En(reader.GetParseErrorCode()));
        }
        for (size_t i = start + stream.Tell(); i < end; ++i)
            if (!isJsonSpace(text[i]))
                return fail("offset " + std::to_string(i) + ": unexpected content after the JSON value");
        result.m_values = handler.values();
        return result;
    } catch (const std::bad_alloc&) {
        return fail("offset 0: out of memory while parsing");
    }
}

} // namespace rig::json
