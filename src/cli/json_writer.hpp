#pragma once
// A small JSON writer for --json output: objects, arrays, numbers (17 digits), strings, booleans.

#include <string>
#include <vector>

namespace adimg::cli {

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
    const std::string& text() const { return text_; }
    /// Writes the text to a file; throws input_error if it cannot.
    void save(const std::string& path) const;

private:
    void key(const std::string& k);
    std::string text_;
    std::vector<bool> first_;  ///< per open container: no element written yet
};

}  // namespace adimg::cli
