#pragma once
// How the parsers quote what they read in their error messages.

#include <cstdio>
#include <string>

namespace adimg {

/// Text for a message: printable ASCII as is, other bytes escaped (\xNN), long text cut short.
inline std::string shown(const std::string& s, std::size_t longest = 40) {
    std::string out;
    for (unsigned char c : s) {
        if (out.size() > longest) return out + "...";
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            out += hex;
        }
    }
    return out;
}

}  // namespace adimg
