// JSON reading for glTF files and pose files: RapidJSON (the parser Assimp's own glTF importer uses) behind a small
// view type whose lookups never assert or crash on a hostile document, with limits that turn one into an error.
//
// - RFC 8259 JSON, parsed iteratively (no recursion, whatever the nesting), strings validated as UTF-8: no comments, no
//   trailing commas, no NaN/Infinity, no single quotes. A UTF-8 byte order mark is skipped; after the value only
//   whitespace may follow (or a NUL byte, which ends the input as it does for Assimp's in-place parser).
// - Size, depth and value-count limits: a document past one is refused, however it is shaped.
// - Every failure is "offset N: reason" (N = byte offset in the input, the byte order mark included).
// - Value is a cheap view into a Document; it stays valid while the Document lives (moving a Document keeps it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <rapidjson/fwd.h>

#include "rig/model/result.h"

namespace rig::json {

namespace detail {
/// RapidJSON's allocator, but an allocation that fails throws std::bad_alloc (parse() turns it into an error) instead
/// of handing RapidJSON a null pointer.
struct ThrowingAllocator;
using RjValue = rapidjson::GenericValue<rapidjson::UTF8<char>, rapidjson::MemoryPoolAllocator<ThrowingAllocator>>;
using RjDocument =
    rapidjson::GenericDocument<rapidjson::UTF8<char>, rapidjson::MemoryPoolAllocator<ThrowingAllocator>, ThrowingAllocator>;
} // namespace detail

enum class Type : uint8_t { Null, Bool, Number, String, Array, Object };

struct ParseLimits {
    size_t maxBytes = size_t(1) << 30;  ///< input size
    size_t maxDepth = 512;              ///< nesting of arrays and objects
    size_t maxValues = size_t(1) << 24; ///< values of every kind, object keys included
};

/// A view of one value. A default-constructed Value is "missing" (what lookups return when there is nothing there):
/// it is falsy and every accessor returns its fallback.
class Value {
public:
    Value() = default;

    bool exists() const { return m_v != nullptr; }
    explicit operator bool() const { return exists(); }
    Type type() const;
    bool isNull() const { return exists() && type() == Type::Null; }
    bool isBool() const { return exists() && type() == Type::Bool; }
    bool isNumber() const { return exists() && type() == Type::Number; }
    bool isString() const { return exists() && type() == Type::String; }
    bool isArray() const { return exists() && type() == Type::Array; }
    bool isObject() const { return exists() && type() == Type::Object; }

    bool boolean(bool fallback = false) const;
    double number(double fallback = 0.0) const;
    /// The decoded string (may contain NUL bytes); empty for anything that is not a string.
    std::string_view string() const;

    /// Elements of an array or members of an object; 0 for anything else.
    size_t size() const;
    /// Array element i, or missing.
    Value operator[](size_t i) const;
    /// The first member named `key` of an object, or missing.
    Value get(std::string_view key) const;
    /// Member i of an object, in document order (key empty / value missing when out of range).
    std::string_view keyAt(size_t i) const;
    Value valueAt(size_t i) const;

    /// An exactly integral number in [0, max]; false (out untouched) for anything else.
    bool asIndex(uint64_t& out, uint64_t max = (uint64_t(1) << 53)) const;

private:
    friend class Document;
    explicit Value(const detail::RjValue* v) : m_v(v) {}
    const detail::RjValue* m_v = nullptr;
};

class Document {
public:
    Document();
    ~Document();
    Document(Document&&) noexcept;
    Document& operator=(Document&&) noexcept;
    Document(const Document&) = delete;
    Document& operator=(const Document&) = delete;

    /// The root value (missing for a default-constructed document).
    Value root() const;
    /// Values parsed (object keys included).
    size_t valueCount() const { return m_values; }

private:
    friend Result<Document> parse(std::string_view, const ParseLimits&);
    std::unique_ptr<detail::RjDocument> m_doc;
    size_t m_values = 0;
};

/// Parses one JSON document. Never throws.
Result<Document> parse(std::string_view text, const ParseLimits& limits = {});

} // namespace rig::json
