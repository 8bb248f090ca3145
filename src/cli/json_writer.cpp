#include "json_writer.hpp"

#include <adimg/error.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>

namespace adimg::cli {

namespace {
std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}
}  // namespace

void JsonWriter::key(const std::string& k) {
    if (!first_.empty()) {
        if (!first_.back()) text_ += ",";
        first_.back() = false;
        text_ += "\n" + std::string(2 * first_.size(), ' ');
    }
    if (!k.empty()) text_ += quoted(k) + ": ";
}

JsonWriter& JsonWriter::begin_object(const std::string& k) {
    key(k);
    text_ += "{";
    first_.push_back(true);
    return *this;
}
JsonWriter& JsonWriter::end_object() {
    first_.pop_back();
    text_ += "\n" + std::string(2 * first_.size(), ' ') + "}";
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
    text_ += quoted(v);
    return *this;
}

void JsonWriter::save(const std::string& path) const {
    std::ofstream out(path);
    if (!out) throw input_error("cannot write JSON to '" + path + "': check that the directory exists");
    out << text_ << "\n";
}

}  // namespace adimg::cli
