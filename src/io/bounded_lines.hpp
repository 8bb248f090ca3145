#pragma once
// Lines of a text input with bounds, for the readers of case files and Matrix Market files: a
// line longer than its limit, or more bytes in all than the reader allows, ends the reading
// with a message instead of growing memory (`--matrix /dev/zero` is one line without end).

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace adimg {

class BoundedLines {
public:
    /// What next() found.
    enum class Read {
        line,      ///< a line (without its '\n')
        end,       ///< the end of the input
        too_long,  ///< a line of more than max_line bytes
        too_much,  ///< the input holds more than the byte budget
    };

    /// Lines of `in`, each at most `max_line` bytes, `budget` bytes in all (raise_budget() may
    /// raise it once the input has said how much it holds).
    BoundedLines(std::istream& in, std::size_t max_line, std::uint64_t budget)
        : in_(in), buffer_(max_line + 2), budget_(budget) {}

    /// The next line into `text`. A read error of the stream is Read::end with bad() set.
    Read next(std::string& text) {
        if (bytes_ > budget_) return Read::too_much;
        in_.getline(buffer_.data(), static_cast<std::streamsize>(buffer_.size() - 1));
        const std::uint64_t extracted = static_cast<std::uint64_t>(in_.gcount());
        bytes_ += extracted;
        if (in_.bad()) return Read::end;
        if (in_.fail() && !in_.eof()) return Read::too_long;  // max_line + 1 bytes without a '\n'
        if (extracted == 0 && in_.eof()) return Read::end;
        const bool ended_by_newline = !in_.eof();
        text.assign(buffer_.data(), extracted - (ended_by_newline ? 1 : 0));
        in_.clear(in_.rdstate() & ~std::ios::failbit);  // a last line without '\n' is a line
        if (bytes_ > budget_) return Read::too_much;
        return Read::line;
    }

    bool bad() const { return in_.bad(); }
    std::size_t max_line() const { return buffer_.size() - 2; }
    std::uint64_t budget() const { return budget_; }
    std::uint64_t bytes() const { return bytes_; }
    void raise_budget(std::uint64_t budget) {
        if (budget > budget_) budget_ = budget;
    }

private:
    std::istream& in_;
    std::vector<char> buffer_;
    std::uint64_t budget_;
    std::uint64_t bytes_ = 0;
};

}  // namespace adimg
