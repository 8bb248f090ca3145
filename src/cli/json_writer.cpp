#include "json_writer.hpp"

#include <adimg/io.hpp>

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace adimg::cli {

namespace {

/// The length of the valid UTF-8 sequence at s[at] (1 to 4), or 0 if the bytes there are not
/// one: a stray continuation byte, a truncated sequence, an overlong form, a surrogate or a
/// code point beyond U+10FFFF.
std::size_t utf8_length(const std::string& s, std::size_t at) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[at + k]); };
    const unsigned char lead = byte(0);
    std::size_t length = 0;
    unsigned lowest = 0, highest = 0xBF;  // the allowed range of the second byte
    if (lead < 0x80) return 1;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2, lowest = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        lowest = lead == 0xE0 ? 0xA0 : 0x80;   // no overlong forms
        highest = lead == 0xED ? 0x9F : 0xBF;  // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        lowest = lead == 0xF0 ? 0x90 : 0x80;
        highest = lead == 0xF4 ? 0x8F : 0xBF;  // at most U+10FFFF
    } else {
        return 0;
    }
    if (at + length > s.size() || byte(1) < lowest || byte(1) > highest) return 0;
    for (std::size_t k = 2; k < length; ++k)
        if (byte(k) < 0x80 || byte(k) > 0xBF) return 0;
    return length;
}

}  // namespace

std::string json_quoted(const std::string& s) {
    std::string out = "\"";
    for (std::size_t at = 0; at < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[at]);
        const std::size_t length = utf8_length(s, at);
        if (length == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER for one invalid byte
            ++at;
            continue;
        }
        if (length > 1) {
            out.append(s, at, length);
            at += length;
            continue;
        }
        ++at;
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20 || c == 0x7F) {  // DEL is allowed raw, but escaped reads better
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                out += escaped;
            } else {
                out += static_cast<char>(c);
            }
        }
    }
    return out + "\"";
}

void JsonWriter::new_line() {
    text_ += '\n';
    text_.append(2 * first_.size(), ' ');  // the indent of the depth (appended, not added: GCC 12's -Wrestrict)
}

void JsonWriter::key(const std::string& k) {
    if (!first_.empty()) {
        if (!first_.back()) text_ += ",";
        first_.back() = false;
        new_line();
    }
    if (!k.empty()) text_ += json_quoted(k) + ": ";
}

JsonWriter& JsonWriter::begin_object(const std::string& k) {
    key(k);
    text_ += "{";
    first_.push_back(true);
    return *this;
}
JsonWriter& JsonWriter::end_object() {
    first_.pop_back();
    new_line();
    text_ += "}";
    return *this;
}
JsonWriter& JsonWriter::begin_array(const std::string& k) {
    key(k);
    text_ += "[";
    first_.push_back(true);
    return *this;
}
JsonWriter& JsonWriter::end_array() {
    first_.pop_back();
    text_ += "]";
    return *this;
}
JsonWriter& JsonWriter::value(const std::string& k, double v) {
    key(k);
    if (!std::isfinite(v)) {
        text_ += "null";
        return *this;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", v);
    text_ += buffer;
    return *this;
}
JsonWriter& JsonWriter::value(const std::string& k, long long v) {
    key(k);
    text_ += std::to_string(v);
    return *this;
}
JsonWriter& JsonWriter::value(const std::string& k, bool v) {
    key(k);
    text_ += v ? "true" : "false";
    return *this;
}
JsonWriter& JsonWriter::value(const std::string& k, const std::string& v) {
    key(k);
    text_ += json_quoted(v);
    return *this;
}
JsonWriter& JsonWriter::null(const std::string& k) {
    key(k);
    text_ += "null";
    return *this;
}

void JsonWriter::save(const std::string& path) const {
    if (!first_.empty()) throw std::logic_error("JsonWriter::save: an object or array is still open");
    write_text_file(path, text_ + "\n");
}

}  // namespace adimg::cli
