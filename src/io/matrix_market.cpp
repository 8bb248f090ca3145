#include "../common/shown.hpp"
#include "bounded_lines.hpp"

#include <adimg/error.hpp>
#include <adimg/io.hpp>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <tuple>
#include <vector>

// What the readers accept (a malformed file is an input_error naming file:line):
//   - the banner "%%MatrixMarket matrix coordinate|array real|integer|double general|symmetric";
//     comment lines (starting with '%') and blank lines may appear anywhere after it;
//   - a matrix: coordinate format, square, 1 .. 2^31-1 rows, at least one entry per row (a
//     system matrix has its diagonal) and at most nine non-zero ones (five stored in a symmetric
//     file) on average; an explicit zero is no entry, wherever it stands (assemblers store zeros
//     of a wider pattern or of eliminated couplings), so it is checked and then dropped;
//   - a vector: one column, array format or coordinate;
//   - every size, index and value is one token; a line holds nothing else; no data may follow
//     the announced entries; values must be finite (integers in an integer file);
//   - duplicate non-zero entries are rejected, not summed: Matrix Market stores each entry once,
//     and a duplicate usually means concatenated or mis-merged files. In a symmetric file an
//     entry (i, j) and its mirror (j, i) are duplicates too (store the lower triangle only).
// Memory is bounded by what the file holds, and for a matrix by nine non-zero entries per row:
// nothing is reserved from the size line alone, except the dense vector of a coordinate-format
// vector, which must fit in half the host memory. Reading is bounded too: a line holds at most
// max_matrix_market_line bytes, the file at most 1 MiB before its size line and 1 MiB plus 256
// bytes per announced entry in all (comments included), so that an endless input (/dev/zero, a
// pipe) ends with a message.

namespace adimg {
namespace {

/// Bytes a reader may allocate beyond what the file holds: half the host memory (a fuzzing build
/// caps it at 256 MiB, below libFuzzer's malloc limit).
double allocation_budget() {
    const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
    double budget = physical > 0.0 ? 0.5 * physical : 4.0 * (1 << 30);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    budget = std::min(budget, 256.0 * (1 << 20));
#endif
    return budget;
}

std::string gib(double bytes) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g GiB", bytes / (1 << 30));
    return buffer;
}

class Reader {
public:
    Reader(const std::filesystem::path& path, const char* what) : name_(path.string()) {
        std::error_code ec;
        const auto status = std::filesystem::status(path, ec);
        if (!std::filesystem::exists(status))
            throw input_error("cannot read " + std::string(what) + " file '" + name_ + "': it does not exist; check the path");
        if (std::filesystem::is_directory(status))
            throw input_error("cannot read " + std::string(what) + " file '" + name_ + "': it is a directory");
        errno = 0;
        in_.open(path, std::ios::binary);
        if (!in_) {
            const std::string why = errno ? std::generic_category().message(errno) : "it cannot be opened";
            throw input_error("cannot read " + std::string(what) + " file '" + name_ + "': " + why +
                              "; check the permissions");
        }
    }

    const std::string& name() const { return name_; }
    long long line() const { return line_; }
    std::string at() const { return name_ + ":" + std::to_string(line_); }
    [[noreturn]] void fail(const std::string& what) const { throw input_error(at() + ": " + what); }

    /// The banner line.
    std::string first_line() {
        std::string text;
        if (!next_line(text)) throw input_error(name_ + ":1: the file is empty; expected a Matrix Market banner");
        return text;
    }

    /// After the size line: the file may hold `items` lines of data, each of at most
    /// bytes_per_item bytes, besides header_budget bytes of banner, comments and blank lines.
    void expect_items(long long items) {
        const double budget = static_cast<double>(header_budget) + static_cast<double>(items) * bytes_per_item;
        lines_.raise_budget(static_cast<std::uint64_t>(std::min(budget, 9e18)));
        items_ = items;
    }

    /// The whitespace-separated tokens of the next line that is neither a comment nor blank;
    /// false at the end of the file.
    bool next_data_line(std::vector<std::string>& tokens) {
        while (next_line(text_)) {
            const auto first = text_.find_first_not_of(" \t\r\v\f");
            if (first == std::string::npos || text_[first] == '%') continue;
            tokens.clear();
            std::size_t p = first;
            while (p < text_.size()) {
                const auto end = text_.find_first_of(" \t\r\v\f", p);
                tokens.push_back(text_.substr(p, end == std::string::npos ? std::string::npos : end - p));
                if (end == std::string::npos) break;
                p = text_.find_first_not_of(" \t\r\v\f", end);
                if (p == std::string::npos) break;
            }
            return true;
        }
        return false;
    }

    /// The next data line, which must exist: item `index` of `count` that line `announced_at`
    /// announces (`what`: "entries", "values").
    void next_item(std::vector<std::string>& tokens, long long index, long long count, const char* what,
                   long long announced_at) {
        if (!next_data_line(tokens))
            throw input_error(name_ + ": the file ends after " + std::to_string(index) + " of the " + std::to_string(count) +
                              " " + what + " that line " + std::to_string(announced_at) + " announces");
    }

    /// After the last announced entry: only comments and blank lines may follow.
    void expect_end(long long announced, const char* what) {
        std::vector<std::string> tokens;
        if (next_data_line(tokens))
            fail("more data after the " + std::to_string(announced) + " " + what +
                 " that the size line announces; fix the count or remove the extra lines");
    }

private:
    /// Bytes the banner, the comments and the blank lines may take, and bytes per announced item.
    static constexpr std::uint64_t header_budget = 1 << 20;
    static constexpr double bytes_per_item = 256.0;

    /// The next line (counted); false at the end of the file. Throws input_error for a line
    /// beyond max_matrix_market_line, for more bytes than the file may hold, and for a read error.
    bool next_line(std::string& text) {
        const BoundedLines::Read read = lines_.next(text);
        if (read == BoundedLines::Read::end) {
            if (lines_.bad()) throw input_error(name_ + ": reading failed after line " + std::to_string(line_));
            return false;
        }
        ++line_;
        if (read == BoundedLines::Read::too_long)
            fail("the line is longer than " + std::to_string(lines_.max_line()) +
                 " bytes; a Matrix Market line holds a banner, a comment, a size line or one entry (is this a Matrix "
                 "Market file?)");
        if (read == BoundedLines::Read::too_much) {
            if (items_ < 0)
                fail("more than " + std::to_string(header_budget) +
                     " bytes of banner, comments and blank lines before the size line; is this a Matrix Market file?");
            fail("the file goes on beyond the " + std::to_string(lines_.budget()) + " bytes that its " +
                 std::to_string(items_) + " announced entries may take (" + std::to_string(int(bytes_per_item)) +
                 " bytes each, and " + std::to_string(header_budget) +
                 " bytes of comments); remove the extra lines or fix the count in the size line");
        }
        return true;
    }

    std::string name_;
    std::ifstream in_;
    BoundedLines lines_{in_, max_matrix_market_line, header_budget};
    std::string text_;
    long long line_ = 0;
    long long items_ = -1;  ///< announced by the size line (-1 before it)
};

struct Header {
    bool coordinate = false;
    bool symmetric = false;
    bool integer = false;
};

/// The banner, checked for what the caller reads: a matrix must be in coordinate format, a vector
/// may be in either. A format refused is named with the banner as read.
Header read_header(Reader& in, bool matrix) {
    std::string banner = in.first_line();
    std::istringstream words(banner);
    std::string tag, object, format, field, symmetry;
    words >> tag >> object >> format >> field >> symmetry;
    for (auto* s : {&object, &format, &field, &symmetry})
        for (char& c : *s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (tag != "%%MatrixMarket" || object != "matrix")
        in.fail("not a Matrix Market file (the first line must start with '%%MatrixMarket matrix')");
    banner.erase(banner.find_last_not_of(" \t\r") + 1);  // a CRLF line's '\r' is not part of what it says
    std::string quoted(1, '\'');  // not "'" + ...: GCC 12 warns of a memcpy overlap there (-Wrestrict)
    quoted += shown(banner, 100) + "'";
    const std::string accepted = matrix ? "a matrix must be in coordinate format (array is accepted for vectors only)"
                                        : "a vector must be in coordinate or array format";
    if (format != "coordinate" && format != "array")
        in.fail("format '" + shown(format) + "' is not supported (the banner reads " + quoted + "); " + accepted);
    if (matrix && format == "array")
        in.fail("the banner " + quoted + " declares a dense (array) matrix, but " + accepted +
                ": write the matrix in coordinate format, '%%MatrixMarket matrix coordinate real general' and one "
                "'row column value' line per non-zero entry (scipy.io.mmwrite writes a scipy.sparse matrix so)");
    if (field != "real" && field != "integer" && field != "double")
        in.fail("field '" + shown(field) + "' is not supported; use real (or integer)");
    if (symmetry != "general" && symmetry != "symmetric")
        in.fail("symmetry '" + shown(symmetry) + "' is not supported; use general or symmetric");
    std::string extra;
    if (words >> extra) in.fail("unexpected '" + shown(extra) + "' after the symmetry in the banner");
    return {format == "coordinate", symmetry == "symmetric", field == "integer"};
}

/// A whole token as an integer in [lo, hi].
long long parse_integer(const Reader& in, const std::string& token, const std::string& what, long long lo, long long hi) {
    const char* begin = token.c_str();
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(begin, &end, 10);
    if (end == begin || end != begin + token.size()) in.fail(what + " '" + shown(token) + "' is not a whole number");
    if (errno == ERANGE || v < lo || v > hi)
        in.fail(what + " " + shown(token) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    return v;
}

/// A whole token as a finite double (an integer in an integer file).
double parse_value(const Reader& in, const std::string& token, bool integer) {
    const char* begin = token.c_str();
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(begin, &end);
    if (end == begin || end != begin + token.size()) in.fail("the value '" + shown(token) + "' is not a number");
    if (!std::isfinite(v)) in.fail("the value " + shown(token) + " is not finite");
    if (errno == ERANGE && std::abs(v) > 1.0) in.fail("the value " + shown(token) + " is beyond the range of double");
    if (integer && v != std::nearbyint(v))
        in.fail("the value " + shown(token) + " is not an integer, but the banner declares the field integer");
    return v;
}

void expect_tokens(const Reader& in, const std::vector<std::string>& tokens, std::size_t count, const char* what) {
    if (tokens.size() < count) in.fail("expected " + std::string(what) + ", found only " + std::to_string(tokens.size()) + " value(s)");
    if (tokens.size() > count)
        in.fail("expected " + std::string(what) + ", found '" + shown(tokens[count]) + "' after them");
}

constexpr long long max_rows = INT_MAX;  // Eigen's (and the grid's) int indices

struct Entry {
    int row, col;
    double value;
    long long line;
};

/// Sorts the entries by (row, col) and rejects the first duplicate.
void reject_duplicates(std::vector<Entry>& entries, const std::string& name, bool symmetric) {
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return std::tie(a.row, a.col, a.line) < std::tie(b.row, b.col, b.line);
    });
    for (std::size_t k = 1; k < entries.size(); ++k) {
        const Entry& a = entries[k - 1];
        const Entry& b = entries[k];
        if (a.row != b.row || a.col != b.col) continue;
        char what[160];
        std::snprintf(what, sizeof what, ":%lld: entry (%d, %d) appears twice (lines %lld and %lld)", std::max(a.line, b.line),
                      a.row + 1, a.col + 1, std::min(a.line, b.line), std::max(a.line, b.line));
        throw input_error(name + what +
                          (symmetric && a.row != a.col ? "; in a symmetric file (i, j) and (j, i) are the same entry: store only the "
                                       "lower triangle"
                                     : "; duplicates are not summed: give each entry once"));
    }
}

}  // namespace

void write_matrix_market(const std::filesystem::path& path, const Eigen::SparseMatrix<double>& A) {
    OutputFile file(path);
    std::ostream& out = file.stream();
    out << "%%MatrixMarket matrix coordinate real general\n% written by adimg\n";
    out << A.rows() << ' ' << A.cols() << ' ' << A.nonZeros() << '\n';
    for (int col = 0; col < A.outerSize() && out; ++col)
        for (Eigen::SparseMatrix<double>::InnerIterator it(A, col); it; ++it)
            out << it.row() + 1 << ' ' << it.col() + 1 << ' ' << it.value() << '\n';
    file.commit();
}

void write_matrix_market(const std::filesystem::path& path, const std::vector<double>& v, const std::string& comment) {
    std::string line = comment;
    std::replace_if(line.begin(), line.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
    OutputFile file(path);
    std::ostream& out = file.stream();
    out << "%%MatrixMarket matrix array real general\n% " << line << "\n" << v.size() << " 1\n";
    for (std::size_t p = 0; p < v.size() && out; ++p) out << v[p] << '\n';
    file.commit();
}

Eigen::SparseMatrix<double> read_matrix_market_matrix(const std::filesystem::path& path) {
    Reader in(path, "matrix");
    const Header header = read_header(in, true);
    std::vector<std::string> tokens;
    if (!in.next_data_line(tokens)) throw input_error(in.name() + ": the size line 'rows columns entries' is missing");
    expect_tokens(in, tokens, 3, "the size line 'rows columns entries'");
    const long long rows = parse_integer(in, tokens[0], "the row count", 1, max_rows);
    const long long cols = parse_integer(in, tokens[1], "the column count", 1, max_rows);
    const long long nnz = parse_integer(in, tokens[2], "the entry count", 0, max_rows * max_rows);
    if (rows != cols)
        in.fail("the matrix is " + std::to_string(rows) + "x" + std::to_string(cols) + ", not square");
    if (nnz < rows)
        in.fail(std::to_string(nnz) + " entries for " + std::to_string(rows) +
                " rows: some rows are empty, but every row of a system matrix holds its diagonal entry");
    // Explicit zeros may stand anywhere: the count is bounded by the matrix's size (its lower
    // triangle in a symmetric file), the non-zero entries by the nine bands while reading.
    const std::string size = std::to_string(rows) + "x" + std::to_string(cols);
    const long long most = header.symmetric ? rows * (rows + 1) / 2 : rows * cols;
    if (nnz > most)
        in.fail(std::to_string(nnz) + " entries for " + std::to_string(rows) + " rows is more than " +
                (header.symmetric ? "the lower triangle of a " + size + " matrix holds" : "a " + size + " matrix has") +
                " (" + std::to_string(most) + (header.symmetric ? ", all that a symmetric file stores" : "") +
                "); fix the entry count in the size line");

    const long long line_of_size = in.line();
    in.expect_items(nnz);
    std::vector<Entry> entries;
    // Reserve no more than the file has shown to hold; the vector grows with what is read.
    entries.reserve(static_cast<std::size_t>(std::min<long long>(nnz, 1 << 16)));
    const long long per_row = header.symmetric ? 5 : 9;
    long long nonzeros = 0;
    for (long long e = 0; e < nnz; ++e) {
        in.next_item(tokens, e, nnz, "entries", line_of_size);
        expect_tokens(in, tokens, 3, "an entry 'row column value'");
        const long long r = parse_integer(in, tokens[0], "the row index", 1, rows);
        const long long c = parse_integer(in, tokens[1], "the column index", 1, cols);
        const double v = parse_value(in, tokens[2], header.integer);
        if (v == 0.0) continue;  // no entry (see the top of this file)
        if (++nonzeros > per_row * rows)
            in.fail("the file holds more than " + std::to_string(per_row * rows) + " non-zero entries for " +
                    std::to_string(rows) + " rows, more than a nine-band matrix has (" + std::to_string(per_row) + " per row" +
                    (header.symmetric ? " stored in a symmetric file)" : ")") +
                    "; adimg solves the matrices of Q1 elements on a structured grid");
        entries.push_back({static_cast<int>(r - 1), static_cast<int>(c - 1), v, in.line()});
        if (header.symmetric && r != c) entries.push_back({static_cast<int>(c - 1), static_cast<int>(r - 1), v, in.line()});
    }
    in.expect_end(nnz, "entries");
    reject_duplicates(entries, in.name(), header.symmetric);

    std::vector<Eigen::Triplet<double>> triplets;
    triplets.reserve(entries.size());
    for (const Entry& e : entries) triplets.emplace_back(e.row, e.col, e.value);
    Eigen::SparseMatrix<double> A(static_cast<int>(rows), static_cast<int>(cols));
    A.setFromTriplets(triplets.begin(), triplets.end());
    return A;
}

std::vector<double> read_matrix_market_vector(const std::filesystem::path& path) {
    Reader in(path, "vector");
    const Header header = read_header(in, false);
    if (header.symmetric) in.fail("a vector must be 'general', not 'symmetric'");
    std::vector<std::string> tokens;
    const char* size_line = header.coordinate ? "the size line 'rows 1 entries'" : "the size line 'rows 1'";
    if (!in.next_data_line(tokens)) throw input_error(in.name() + ": " + size_line + " is missing");
    expect_tokens(in, tokens, header.coordinate ? 3 : 2, size_line);
    const long long rows = parse_integer(in, tokens[0], "the row count", 1, max_rows);
    const long long cols = parse_integer(in, tokens[1], "the column count", 0, max_rows);
    if (cols != 1) in.fail("a vector must have one column, this has " + std::to_string(cols));
    const long long line_of_size = in.line();
    in.expect_items(header.coordinate ? 0 : rows);

    if (!header.coordinate) {
        std::vector<double> v;
        v.reserve(static_cast<std::size_t>(std::min<long long>(rows, 1 << 16)));
        for (long long r = 0; r < rows; ++r) {
            in.next_item(tokens, r, rows, "values", line_of_size);
            expect_tokens(in, tokens, 1, "one value per line");
            v.push_back(parse_value(in, tokens[0], header.integer));
        }
        in.expect_end(rows, "values");
        return v;
    }

    const long long nnz = parse_integer(in, tokens[2], "the entry count", 0, rows);
    in.expect_items(nnz);
    std::vector<Entry> entries;
    entries.reserve(static_cast<std::size_t>(std::min<long long>(nnz, 1 << 16)));
    for (long long e = 0; e < nnz; ++e) {
        in.next_item(tokens, e, nnz, "entries", line_of_size);
        expect_tokens(in, tokens, 3, "an entry 'row 1 value'");
        const long long r = parse_integer(in, tokens[0], "the row index", 1, rows);
        parse_integer(in, tokens[1], "the column index", 1, 1);
        entries.push_back({static_cast<int>(r - 1), 0, parse_value(in, tokens[2], header.integer), in.line()});
    }
    in.expect_end(nnz, "entries");
    reject_duplicates(entries, in.name(), false);
    // The one allocation the file does not back: the zeros of a sparse vector.
    const double bytes = static_cast<double>(rows) * sizeof(double);
    if (bytes > allocation_budget())
        throw input_error(in.name() + ":" + std::to_string(line_of_size) + ": a vector of " + std::to_string(rows) +
                          " rows needs " + gib(bytes) + ", more than the " + gib(allocation_budget()) +
                          " this reader may allocate (half the host memory)");
    std::vector<double> v(static_cast<std::size_t>(rows), 0.0);
    for (const Entry& e : entries) v[static_cast<std::size_t>(e.row)] = e.value;
    return v;
}

}  // namespace adimg
