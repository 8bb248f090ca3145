#pragma once
// A small JSON writer for --json output (RFC 8259): objects, arrays, numbers (17 digits; a value
// that is not finite is null), strings, booleans and null. Strings are escaped as the RFC
// requires (quote, backslash and every control character, the latter as \n, \t ... or \u00XX),
// and bytes that are not valid UTF-8 become U+FFFD, so that any name, a case name read from a
// file included, gives a file that parses.

#include <string>
#include <vector>

namespace adimg::cli {

/// `s` as a JSON string literal, quotes included (see the file comment).
std::string json_quoted(const std::string& s);

class JsonWriter {
public:
    JsonWriter& begin_object(const std::string& key = {});
    JsonWriter& end_object();
    JsonWriter& begin_array(const std::string& key = {});
    JsonWriter& end_array();
    JsonWriter& value(const std::string& key, double v);
    JsonWriter& value(const std::string& key, long long v);
    JsonWriter& value(const std::string& key, int v) { return value(key, static_cast<long long>(v)); }
    JsonWriter& value(const std::string& key, bool v);
    JsonWriter& value(const std::string& key, const std::string& v);
    JsonWriter& value(const std::string& key, const char* v) { return value(key, std::string(v)); }
    JsonWriter& null(const std::string& key);
    const std::string& text() const { return text_; }
    /// Writes the text to a file whole or not at all (adimg::write_text_file); throws
    /// adimg::write_error naming the file if it cannot, and std::logic_error if a container is
    /// still open.
    void save(const std::string& path) const;

private:
    void key(const std::string& k);
    void new_line();  ///< a line break and the indent of the open containers
    std::string text_;
    std::vector<bool> first_;  ///< per open container: no element written yet
};

}  // namespace adimg::cli
