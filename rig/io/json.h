// A minimal, robust JSON reader: what glTF needs and nothing more (Qt-free, no exceptions past its API).
//
// - RFC 8259 JSON: objects, arrays, numbers, strings (every escape, \u surrogate pairs to UTF-8), true/false/null.
//   No comments, no trailing commas, no NaN/Infinity, no single quotes. A UTF-8 byte order mark is skipped; after the
//   value only whitespace may follow (or a NUL byte, which ends the input as it does for Assimp's in-place parser).
// - Iterative (no recursion): the depth limit is a limit, not a stack guard. Size, depth and value-count limits turn a
//   hostile document into an error instead of gigabytes.
// - Every failure is "offset N: reason" (N = byte offset in the input). Out of memory is reported the same way.
// - The document is compact (one 24-byte node per value, strings in one pool) and immutable; Value is a cheap view
//   into it that stays valid as long as the Document object itself is alive and not moved.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rig/model/result.h"

namespace rig::json {

enum class Type : uint8_t { Null, Bool, Number, String, Array, Object };

struct ParseLimits {
    size_t maxBytes = size_t(1) << 30;  ///< input size (clamped to 4 GiB - 1: offsets are 32-bit)
    size_t maxDepth = 512;              ///< nesting of arrays and objects
    size_t maxValues = size_t(1) << 24; ///< values of every kind, object keys included
};

class Document;

/// A view of one value of a Document. A default-constructed Value is "missing" (what lookups return when there is
/// nothing there): it is falsy and every accessor returns its fallback.
class Value {
public:
    Value() = default;

    bool exists() const { return m_doc != nullptr; }
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
    /// The first member named `key` of an object (as RapidJSON's FindMember), or missing.
    Value get(std::string_view key) const;
    /// Member i of an object, in document order (key empty / value missing when out of range).
    std::string_view keyAt(size_t i) const;
    Value valueAt(size_t i) const;

    /// An exactly integral number in [0, max]; false (out untouched) for anything else.
    bool asIndex(uint64_t& out, uint64_t max = (uint64_t(1) << 53)) const;

private:
    friend class Document;
    Value(const Document* doc, uint32_t index) : m_doc(doc), m_index(index) {}
    const Document* m_doc = nullptr;
    uint32_t m_index = 0;
};

class Document {
public:
    Document() = default;
    Document(Document&&) = default;
    Document& operator=(Document&&) = default;
    Document(const Document&) = delete;
    Document& operator=(const Document&) = delete;

    /// The root value (missing for a default-constructed document).
    Value root() const { return m_nodes.empty() ? Value() : Value(this, 0); }
    size_t valueCount() const { return m_nodes.size(); }

private:
    friend class Value;
    friend class Parser;
    struct Node {
        double number = 0.0;
        uint32_t first = 0; ///< strings: offset in m_strings; containers: offset in m_links
        uint32_t count = 0; ///< strings: bytes; arrays: elements; objects: members (2 links each: key, value)
        Type type = Type::Null;
        bool boolean = false;
    };
    std::vector<Node> m_nodes;   ///< m_nodes[0] is the root
    std::vector<uint32_t> m_links;
    std::string m_strings;
};

/// Parses one JSON document. Never throws.
Result<Document> parse(std::string_view text, const ParseLimits& limits = {});

} // namespace rig::json
