#include <adimg/error.hpp>
#include <adimg/matrix_market.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace adimg {
namespace {

std::ofstream open_for_writing(const std::filesystem::path& path) {
    std::ofstream out(path);
    if (!out) throw input_error("cannot write '" + path.string() + "': check that the directory exists and is writable");
    out.precision(17);
    return out;
}

struct Header {
    bool coordinate = false;
    bool symmetric = false;
};

/// Reads the banner and skips comments; `line` counts lines for messages.
Header read_header(std::istream& in, const std::string& name, int& line) {
    std::string banner;
    if (!std::getline(in, banner)) throw input_error(name + ": the file is empty");
    line = 1;
    std::istringstream words(banner);
    std::string tag, object, format, field, symmetry;
    words >> tag >> object >> format >> field >> symmetry;
    for (auto* s : {&object, &format, &field, &symmetry})
        for (char& c : *s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (tag != "%%MatrixMarket" || object != "matrix")
        throw input_error(name + ":1: not a Matrix Market file (the first line must start with '%%MatrixMarket matrix')");
    if (field != "real" && field != "integer" && field != "double")
        throw input_error(name + ":1: field '" + field + "' is not supported; use real");
    if (format != "coordinate" && format != "array")
        throw input_error(name + ":1: format '" + format + "' is not supported; use coordinate or array");
    if (symmetry != "general" && symmetry != "symmetric")
        throw input_error(name + ":1: symmetry '" + symmetry + "' is not supported; use general or symmetric");
    return {format == "coordinate", symmetry == "symmetric"};
}

/// The next line that is not a comment or blank.
bool next_data_line(std::istream& in, std::string& text, int& line) {
    while (std::getline(in, text)) {
        ++line;
        const auto first = text.find_first_not_of(" \t\r");
        if (first != std::string::npos && text[first] != '%') return true;
    }
    return false;
}

double parse_value(std::istringstream& words, const std::string& where) {
    std::string token;
    if (!(words >> token)) throw input_error(where + ": missing value");
    char* end = nullptr;
    const double v = std::strtod(token.c_str(), &end);
    if (end == token.c_str() || *end != '\0') throw input_error(where + ": '" + token + "' is not a number");
    if (!std::isfinite(v)) throw input_error(where + ": the value " + token + " is not finite");
    return v;
}

long long parse_count(std::istringstream& words, const std::string& where, const char* what) {
    long long v = 0;
    if (!(words >> v) || v < 0) throw input_error(where + ": expected " + std::string(what) + " as a non-negative integer");
    return v;
}

}  // namespace

void write_matrix_market(const std::filesystem::path& path, const Eigen::SparseMatrix<double>& A) {
    std::ofstream out = open_for_writing(path);
    out << "%%MatrixMarket matrix coordinate real general\n% written by adimg\n";
    out << A.rows() << ' ' << A.cols() << ' ' << A.nonZeros() << '\n';
    for (int col = 0; col < A.outerSize(); ++col)
        for (Eigen::SparseMatrix<double>::InnerIterator it(A, col); it; ++it)
            out << it.row() + 1 << ' ' << it.col() + 1 << ' ' << it.value() << '\n';
    if (!out) throw input_error("writing '" + path.string() + "' failed (disk full?)");
}

void write_matrix_market(const std::filesystem::path& path, const std::vector<double>& v) {
    std::ofstream out = open_for_writing(path);
    out << "%%MatrixMarket matrix array real general\n% written by adimg\n" << v.size() << " 1\n";
    for (double x : v) out << x << '\n';
    if (!out) throw input_error("writing '" + path.string() + "' failed (disk full?)");
}

Eigen::SparseMatrix<double> read_matrix_market_matrix(const std::filesystem::path& path) {
    std::ifstream in(path);
    const std::string name = path.string();
    if (!in) throw input_error("cannot read matrix file '" + name + "': check the path and permissions");
    int line = 0;
    const Header header = read_header(in, name, line);
    if (!header.coordinate) throw input_error(name + ":1: a matrix must be in coordinate format");
    std::string text;
    if (!next_data_line(in, text, line)) throw input_error(name + ": the size line is missing");
    std::istringstream size_words(text);
    const std::string where = name + ":" + std::to_string(line);
    const long long rows = parse_count(size_words, where, "the row count");
    const long long cols = parse_count(size_words, where, "the column count");
    const long long nnz = parse_count(size_words, where, "the entry count");
    if (rows != cols) throw input_error(where + ": the matrix is " + std::to_string(rows) + "x" + std::to_string(cols) + ", not square");
    if (rows > (1LL << 31) - 1 || nnz > 16 * rows + 16)
        throw input_error(where + ": " + std::to_string(nnz) + " entries for " + std::to_string(rows) +
                          " rows is more than a nine-band matrix has");
    std::vector<Eigen::Triplet<double>> entries;
    entries.reserve(static_cast<std::size_t>(header.symmetric ? 2 * nnz : nnz));
    for (long long e = 0; e < nnz; ++e) {
        if (!next_data_line(in, text, line))
            throw input_error(name + ": the file ends after " + std::to_string(e) + " of " + std::to_string(nnz) + " entries");
        std::istringstream words(text);
        const std::string at = name + ":" + std::to_string(line);
        const long long r = parse_count(words, at, "a row index"), c = parse_count(words, at, "a column index");
        if (r < 1 || r > rows || c < 1 || c > cols)
            throw input_error(at + ": entry (" + std::to_string(r) + ", " + std::to_string(c) + ") is outside the " +
                              std::to_string(rows) + "x" + std::to_string(cols) + " matrix");
        const double v = parse_value(words, at);
        entries.emplace_back(static_cast<int>(r - 1), static_cast<int>(c - 1), v);
        if (header.symmetric && r != c) entries.emplace_back(static_cast<int>(c - 1), static_cast<int>(r - 1), v);
    }
    Eigen::SparseMatrix<double> A(static_cast<int>(rows), static_cast<int>(cols));
    A.setFromTriplets(entries.begin(), entries.end());
    return A;
}

std::vector<double> read_matrix_market_vector(const std::filesystem::path& path) {
    std::ifstream in(path);
    const std::string name = path.string();
    if (!in) throw input_error("cannot read vector file '" + name + "': check the path and permissions");
    int line = 0;
    const Header header = read_header(in, name, line);
    std::string text;
    if (!next_data_line(in, text, line)) throw input_error(name + ": the size line is missing");
    std::istringstream size_words(text);
    const std::string where = name + ":" + std::to_string(line);
    const long long rows = parse_count(size_words, where, "the row count");
    const long long cols = parse_count(size_words, where, "the column count");
    if (cols != 1) throw input_error(where + ": a vector must have one column, this has " + std::to_string(cols));
    if (rows > (1LL << 31)) throw input_error(where + ": " + std::to_string(rows) + " rows is too many");
    std::vector<double> v(static_cast<std::size_t>(rows), 0.0);
    if (!header.coordinate) {
        for (long long r = 0; r < rows; ++r) {
            if (!next_data_line(in, text, line))
                throw input_error(name + ": the file ends after " + std::to_string(r) + " of " + std::to_string(rows) + " values");
            std::istringstream words(text);
            v[static_cast<std::size_t>(r)] = parse_value(words, name + ":" + std::to_string(line));
        }
        return v;
    }
    const long long nnz = parse_count(size_words, where, "the entry count");
    for (long long e = 0; e < nnz; ++e) {
        if (!next_data_line(in, text, line)) throw input_error(name + ": the file ends before all " + std::to_string(nnz) + " entries");
        std::istringstream words(text);
        const std::string at = name + ":" + std::to_string(line);
        const long long r = parse_count(words, at, "a row index"), c = parse_count(words, at, "a column index");
        if (r < 1 || r > rows || c != 1) throw input_error(at + ": entry (" + std::to_string(r) + ", " + std::to_string(c) + ") is outside the vector");
        v[static_cast<std::size_t>(r - 1)] = parse_value(words, at);
    }
    return v;
}

}  // namespace adimg
