// libFuzzer target: the JSON string escaping of the CLI's --json report (src/cli/json_writer.cpp)
// on arbitrary bytes.
//
// Whatever a name holds (control characters, invalid UTF-8), its JSON literal must be what RFC
// 8259 allows: a quote, then unescaped characters (no control character, no quote, no
// backslash) or the escapes \" \\ \/ \b \f \n \r \t \uXXXX, then a quote, all valid UTF-8. Decoded
// (by the independent decoder here), it must give the input back where the input is valid UTF-8,
// and otherwise the input with each byte that is not part of a valid sequence replaced by U+FFFD.

#include "cli/json_writer.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void property_failed(const char* what) {
    std::fprintf(stderr, "fuzz_json: property failed: %s\n", what);
    std::abort();
}

/// The code point of the UTF-8 sequence at s[at], its length in `length`; -1 if the bytes there are
/// not a valid sequence (decoded arithmetically: overlong forms, surrogates and values above
/// U+10FFFF are invalid).
long decode_utf8(const std::string& s, std::size_t at, std::size_t& length) {
    const unsigned lead = static_cast<unsigned char>(s[at]);
    long value = 0;
    long smallest = 0;
    if (lead < 0x80) {
        length = 1;
        return static_cast<long>(lead);
    }
    if ((lead & 0xE0) == 0xC0) {
        length = 2, value = lead & 0x1F, smallest = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3, value = lead & 0x0F, smallest = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4, value = lead & 0x07, smallest = 0x10000;
    } else {
        return -1;
    }
    if (at + length > s.size()) return -1;
    for (std::size_t k = 1; k < length; ++k) {
        const unsigned c = static_cast<unsigned char>(s[at + k]);
        if ((c & 0xC0) != 0x80) return -1;
        value = (value << 6) | (c & 0x3F);
    }
    if (value < smallest || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return -1;
    return value;
}

void append_utf8(std::string& out, long cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

/// The string that a JSON string literal denotes, checking the grammar of RFC 8259 on the way.
std::string decode_json(const std::string& literal) {
    if (literal.size() < 2 || literal.front() != '"' || literal.back() != '"') property_failed("not quoted");
    std::string out;
    for (std::size_t at = 1; at + 1 < literal.size();) {
        std::size_t length = 0;
        const long cp = decode_utf8(literal, at, length);
        if (cp < 0) property_failed("the literal is not valid UTF-8");
        if (cp < 0x20) property_failed("a raw control character in the literal");
        if (cp == '"') property_failed("a raw quote inside the literal");
        if (cp != '\\') {
            out.append(literal, at, length);
            at += length;
            continue;
        }
        if (at + 2 >= literal.size()) property_failed("a backslash at the end");
        const char e = literal[at + 1];
        at += 2;
        switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
            if (at + 4 >= literal.size()) property_failed("a short \\u escape");
            const std::string hex = literal.substr(at, 4);
            if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) property_failed("a bad \\u escape");
            const long cp16 = std::strtol(hex.c_str(), nullptr, 16);
            if (cp16 >= 0xD800 && cp16 <= 0xDFFF) property_failed("a surrogate escape (the writer escapes only controls)");
            append_utf8(out, cp16);
            at += 4;
            break;
        }
        default: property_failed("an escape that RFC 8259 does not define");
        }
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const std::string literal = adimg::cli::json_quoted(input);
    const std::string decoded = decode_json(literal);
    // The input with every byte outside a valid sequence replaced by U+FFFD.
    std::string expected;
    for (std::size_t at = 0; at < input.size();) {
        std::size_t length = 0;
        if (decode_utf8(input, at, length) < 0) {
            expected += "\xEF\xBF\xBD";
            ++at;
        } else {
            expected.append(input, at, length);
            at += length;
        }
    }
    if (decoded != expected) property_failed("the literal does not decode to the input (invalid bytes as U+FFFD)");
    return 0;
}
