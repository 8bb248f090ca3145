// Output files and Matrix Market input at their edges (issue 40, findings 4, 7, 8 and 13): a file
// size limit ends a write with exit 3 and a message instead of SIGXFSZ; a target whose name is
// as long as the file system allows, or that is reached through a symbolic link (dangling
// included), is written; explicit zeros in a Matrix Market matrix are no couplings, wherever they
// stand; a dense (array) matrix file is refused with its banner quoted and what to write instead.
// Each table row is one way it used to fail. The CLI tests run the `adimg` binary beside the test
// executable (or $ADIMG_CLI); without it they are skipped.

#include <adimg/io.hpp>
#include <adimg/problems.hpp>

#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "input_error_of.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
using adimg_test::CliResult;
using adimg_test::have_cli;
using adimg_test::run_cli;
using adimg_test::run_shell;
using adimg_test::TempDir;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// What a folder holds: each name (hidden ones, the temporaries of a write, included) with the
/// text of its file, "-> where" for a symbolic link, "/" for a folder.
using Folder = std::map<std::string, std::string>;
Folder folder(const fs::path& dir) {
    Folder held;
    for (const auto& entry : fs::directory_iterator(dir)) {
        std::string& what = held[entry.path().filename().string()];
        if (entry.is_symlink()) {
            what = "-> " + fs::read_symlink(entry.path()).string();
        } else if (entry.is_directory()) {
            what = "/";
        } else {
            std::ifstream in(entry.path(), std::ios::binary);
            what.assign(std::istreambuf_iterator<char>(in), {});
        }
    }
    return held;
}

/// An empty scratch directory (the one of `dir`, emptied).
void empty(const TempDir& dir) {
    fs::remove_all(dir.path);
    fs::create_directories(dir.path);
}

}  // namespace

TEST_CASE("A file size limit (ulimit -f) ends a write with exit 3 naming the file and the limit, not with SIGXFSZ",
          "[output-faults][cli]") {
    if (!have_cli()) return;
    const TempDir dir("file_size_limit");
    struct Row {
        const char* blocks;     ///< ulimit -f of the shell (blocks of 512 or 1024 bytes)
        std::string arguments;  ///< followed by the target's path
        std::string target;     ///< the file written, in the scratch directory
        bool exists;            ///< whether the target holds an old file to keep
    };
    const Row rows[] = {
        {"16", "assemble --case U1 --level 7 --out", "A.mtx", true},
        {"16", "assemble --case U1 --level 7 --out", "A.mtx", false},
        {"16", "solve --case U1 --level 7 --backend cpu -q --out", "x.mtx", true},
        {"1", "solve --case U1 --level 4 --backend cpu -q --json", "report.json", false},
    };
    for (const Row& row : rows) {
        empty(dir);
        if (row.exists) std::ofstream(dir.file(row.target)) << "old content\n";  // not through the OutputFile under test
        const std::string limit = std::string("ulimit -f ") + row.blocks + ";";
        // The limit in bytes, as the tool's process gets it from this shell.
        std::string bytes = run_shell(limit + " sed -n 's/^Max file size *\\([0-9]*\\).*/\\1/p' /proc/self/limits").output;
        bytes = bytes.substr(0, bytes.find('\n'));
        const std::string arguments = row.arguments + " " + (dir / row.target);
        const CliResult r = run_cli(arguments, adimg_test::Capture::all, 120, limit);
        INFO(limit << " adimg " << arguments << "\n-> exit " << r.status << " (-1: a signal), output:\n" << r.output);
        CHECK(r.status == 3);
        CHECK(contains(r.output, "cannot write '" + dir.file(row.target).string() + "': File too large"));
        CHECK(contains(r.output, "the file size limit of this process is " + bytes + " bytes; raise it with ulimit -f"));
        CHECK_FALSE(contains(r.output, "wrote"));  // no success reported for what was not written
        // The old file as it was (or none), and no temporary left behind.
        CHECK(folder(dir.path) == (row.exists ? Folder{{row.target, "old content\n"}} : Folder{}));
    }
}

TEST_CASE("Output names as long as the file system allows, and symbolic links (dangling too), are written through",
          "[output-faults]") {
    const TempDir dir("long_names_and_links");
    enum class Via { library, cli };
    struct Row {
        const char* what;
        Via via;
        std::vector<std::pair<std::string, std::string>> links;  ///< link name -> what it points to ("/": in the folder)
        std::string written;                                     ///< the name given to the writer
        std::string lands;                                       ///< where the file must be found
        bool exists;                                             ///< whether `lands` holds an old file
    };
    const std::string long_name = std::string(236, 'n') + ".mtx";  // 240 bytes
    const std::string longest = std::string(251, 'm') + ".txt";     // 255 bytes: NAME_MAX of ext4, tmpfs, xfs
    std::string two_byte;                                           // 250 bytes of 125 two-byte characters
    for (int k = 0; k < 125; ++k) two_byte += "\xc3\xa9";
    // What the CLI rows write: the text of `adimg assemble --case U1 --level 3 --out` to a plain name.
    std::string assembled;
    if (have_cli()) {
        empty(dir);
        REQUIRE(run_cli("assemble --case U1 --level 3 --out " + (dir / "A.mtx")).status == 0);
        assembled = folder(dir.path)["A.mtx"];
    }
    const Row rows[] = {
        {"a 240-byte name", Via::library, {}, long_name, long_name, false},
        {"a 255-byte name replacing a file", Via::library, {}, longest, longest, true},
        {"a 250-byte name of two-byte characters", Via::library, {}, two_byte, two_byte, false},
        {"a dangling link", Via::library, {{"link.txt", "new.txt"}}, "link.txt", "new.txt", false},
        {"a dangling link into another folder", Via::library, {{"link.txt", "other/new.txt"}}, "link.txt", "other/new.txt", false},
        {"a dangling absolute link", Via::library, {{"link.txt", "/other/new.txt"}}, "link.txt", "other/new.txt", false},
        {"a chain of links that dangles", Via::library, {{"a.txt", "b.txt"}, {"b.txt", "other/c.txt"}}, "a.txt", "other/c.txt", false},
        {"adimg assemble --out with a 240-byte name", Via::cli, {}, long_name, long_name, false},
        {"adimg assemble --out through a dangling link", Via::cli, {{"link.mtx", "other/A.mtx"}}, "link.mtx", "other/A.mtx", false},
    };
    for (const Row& row : rows) {
        if (row.via == Via::cli && !have_cli()) continue;
        empty(dir);
        fs::create_directories(dir.file("other"));
        // An absolute link points into the scratch folder.
        auto target_of = [&](const std::string& points_to) { return points_to[0] == '/' ? dir.path.string() + points_to : points_to; };
        for (const auto& [link, points_to] : row.links) fs::create_symlink(target_of(points_to), dir.file(link));
        if (row.exists) std::ofstream(dir.file(row.lands)) << "old\n";  // not through the OutputFile under test
        INFO(row.what << ": writing '" << row.written << "' (" << row.written.size() << " bytes)");
        if (row.via == Via::library) {
            try {
                adimg::write_text_file(dir.file(row.written), "new\n");
            } catch (const adimg::write_error& e) {
                FAIL_CHECK(e.what());
            }
        } else {
            const CliResult r = run_cli("assemble --case U1 --level 3 --out " + (dir / row.written));
            INFO("-> exit " << r.status << ", output:\n" << r.output);
            CHECK(r.status == 0);
        }
        // The new text where the links end, every link as it was, nothing else (no temporary).
        Folder top = {{"other", "/"}}, other;
        for (const auto& [link, points_to] : row.links) top[link] = "-> " + target_of(points_to);
        const bool in_other = row.lands.rfind("other/", 0) == 0;
        (in_other ? other[row.lands.substr(6)] : top[row.lands]) = row.via == Via::library ? "new\n" : assembled;
        CHECK(folder(dir.path) == top);
        CHECK(folder(dir.file("other")) == other);
    }
}

namespace {

/// `A` as a Matrix Market file, every entry of A (the lower triangle in a symmetric file) and
/// explicit zeros at `zeros` (1-based row, column).
std::string matrix_market_with_zeros(const Eigen::SparseMatrix<double>& A, bool symmetric,
                                     const std::vector<std::pair<long long, long long>>& zeros) {
    std::ostringstream entries;
    entries.precision(17);
    long long count = 0;
    for (int col = 0; col < A.outerSize(); ++col)
        for (Eigen::SparseMatrix<double>::InnerIterator it(A, col); it; ++it)
            if (!symmetric || it.row() >= it.col()) {
                entries << it.row() + 1 << ' ' << it.col() + 1 << ' ' << it.value() << '\n';
                ++count;
            }
    for (const auto& [row, col] : zeros) entries << row << ' ' << col << " 0\n";
    count += static_cast<long long>(zeros.size());
    return std::string("%%MatrixMarket matrix coordinate real ") + (symmetric ? "symmetric" : "general") + "\n" +
           std::to_string(A.rows()) + " " + std::to_string(A.cols()) + " " + std::to_string(count) + "\n" + entries.str();
}

}  // namespace

TEST_CASE("adimg solve --matrix ignores explicit zeros wherever they stand: the same solution as without them",
          "[output-faults][matrix-market][cli]") {
    if (!have_cli()) return;
    const TempDir dir("stored_zeros");
    // U1 on the 17 x 17 grid (289 rows, about 7 entries per row with the Dirichlet rows).
    const adimg::TensorMesh mesh = adimg::builtin_case("U1").mesh(4);
    const Eigen::SparseMatrix<double> A = adimg::to_eigen(adimg::assemble_stiffness(mesh));
    const long long n = A.rows();
    adimg::write_matrix_market(dir.file("A.mtx"), A);
    adimg::write_matrix_market(dir.file("b.mtx"), adimg::assemble_load(mesh, {1.0, 1.0}));
    auto solve = [&](const std::string& matrix) {
        return run_cli("solve --matrix " + (dir / matrix) + " --grid 17x17 --rhs " + (dir / "b.mtx") + " --backend cpu -q --out " +
                       (dir / "x.mtx"));
    };
    const CliResult plain = solve("A.mtx");
    INFO("without zeros:\n" << plain.output);
    REQUIRE(plain.status == 0);
    const std::vector<double> x_plain = adimg::read_matrix_market_vector(dir.file("x.mtx"));

    // Zeros at column p + k (mod n) of every row p: k >= 2 grid rows (34) away either way, never a
    // neighbour; four per row make 4 n more entries than nine bands have room for (9 n).
    std::vector<std::pair<long long, long long>> everywhere;
    for (long long p = 0; p < n; ++p)
        for (long long k : {40, 80, 120, 160}) everywhere.push_back({p + 1, (p + k) % n + 1});
    struct Row {
        const char* what;
        bool symmetric;
        std::vector<std::pair<long long, long long>> zeros;  ///< 1-based (row, column)
    };
    const Row rows[] = {
        {"a zero coupling nodes 1 and 145 and its mirror", false, {{1, 145}, {145, 1}}},
        {"a zero in one row only", false, {{5, 280}}},
        {"a zero in the lower triangle of a symmetric file", true, {{289, 1}}},
        {"zeros that make the rows hold more than nine entries", false, everywhere},
    };
    for (const Row& row : rows) {
        adimg::write_text_file(dir.file("zeros.mtx"), matrix_market_with_zeros(A, row.symmetric, row.zeros));
        fs::remove(dir.file("x.mtx"));
        const CliResult r = solve("zeros.mtx");
        INFO(row.what << " (" << row.zeros.size() << " zeros): exit " << r.status << ", output:\n" << r.output);
        CHECK(r.status == 0);  // converged (1 would be no convergence)
        if (fs::exists(dir.file("x.mtx"))) CHECK(adimg::read_matrix_market_vector(dir.file("x.mtx")) == x_plain);
    }
}

TEST_CASE("A dense (array) or unknown-format Matrix Market file is refused quoting its banner and saying what is accepted",
          "[output-faults][matrix-market]") {
    const TempDir dir("array_banner");
    enum class Reads { matrix, vector };
    struct Row {
        Reads reads;
        std::string banner;                ///< the first line, as the file holds it
        std::vector<std::string> says;     ///< parts of the message besides the quoted banner
    };
    const std::vector<std::string> matrix_accepts = {"a matrix must be in coordinate format (array is accepted for vectors only)",
                                                     "write the matrix in coordinate format"};
    const Row rows[] = {
        {Reads::matrix, "%%MatrixMarket matrix array real general", matrix_accepts},
        {Reads::matrix, "%%MatrixMarket matrix array real symmetric", matrix_accepts},
        {Reads::matrix, "%%MatrixMarket MATRIX Array Real General", matrix_accepts},
        {Reads::matrix, "%%MatrixMarket  matrix array   integer general", matrix_accepts},
        {Reads::matrix, "%%MatrixMarket matrix dense real general", {"format 'dense' is not supported", matrix_accepts[0]}},
        {Reads::vector, "%%MatrixMarket matrix dense real general",
         {"format 'dense' is not supported", "a vector must be in coordinate or array format"}},
    };
    int index = 0;
    for (const Row& row : rows) {
        const fs::path path = dir.file("m" + std::to_string(index++) + ".mtx");
        adimg::write_text_file(path, row.banner + "\r\n2 2\n4\n-1\n-1\n4\n");
        const std::string message = adimg_test::input_error_of([&] {
            if (row.reads == Reads::matrix)
                adimg::read_matrix_market_matrix(path);
            else
                adimg::read_matrix_market_vector(path);
        });
        INFO((row.reads == Reads::matrix ? "matrix" : "vector") << " file with the banner '" << row.banner << "'\n-> " << message);
        CHECK(contains(message, path.string() + ":1: "));
        CHECK(contains(message, "'" + row.banner + "'"));  // as read: its case and spaces, without the '\r' of CRLF
        for (const std::string& part : row.says) CHECK(contains(message, part));
    }
}

TEST_CASE("Explicit zeros lift the size line's bound to the matrix's size, non-zero entries stay within nine per row",
          "[output-faults][matrix-market]") {
    const TempDir dir("zero_bounds");
    // A 20 x 20 matrix: the tridiagonal (58 entries) and `extra` entries of value `value` beside
    // it, row by row (the lower triangle only in a symmetric file).
    auto file = [](bool symmetric, int extra, const char* value) {
        std::ostringstream entries;
        int count = 0;
        for (int p = 1; p <= 20; ++p)
            for (int q = 1; q <= (symmetric ? p : 20); ++q) {
                const bool band = q >= p - 1 && q <= p + 1;
                if (!band && extra-- <= 0) continue;
                entries << p << ' ' << q << ' ' << (band ? (p == q ? "2" : "-1") : value) << '\n';
                ++count;
            }
        return std::string("%%MatrixMarket matrix coordinate real ") + (symmetric ? "symmetric" : "general") + "\n20 20 " +
               std::to_string(count) + "\n" + entries.str();
    };
    struct Row {
        const char* what;
        std::string text;
        std::string says;  ///< "" if it reads
    };
    const Row rows[] = {
        {"every other entry of a general file an explicit zero (400 entries)", file(false, 342, "0"), ""},
        {"every other entry of a symmetric file an explicit zero (210 entries)", file(true, 171, "0"), ""},
        {"more entries than the matrix has", "%%MatrixMarket matrix coordinate real general\n20 20 401\n",
         "2: 401 entries for 20 rows is more than a 20x20 matrix has (400); fix the entry count"},
        {"more entries than a symmetric file stores", "%%MatrixMarket matrix coordinate real symmetric\n20 20 211\n",
         "2: 211 entries for 20 rows is more than the lower triangle of a 20x20 matrix holds (210, all that a symmetric"},
        {"more non-zero entries than nine bands hold", file(false, 123, "1e-3"),
         "the file holds more than 180 non-zero entries for 20 rows, more than a nine-band matrix has (9 per row)"},
        {"more non-zero entries than a symmetric file of nine bands stores", file(true, 62, "1e-3"),
         "the file holds more than 100 non-zero entries for 20 rows, more than a nine-band matrix has (5 per row stored in a symmetric"},
    };
    for (const Row& row : rows) {
        const fs::path path = dir.file("m.mtx");
        adimg::write_text_file(path, row.text);
        INFO(row.what);
        if (row.says.empty()) {
            Eigen::SparseMatrix<double> A;
            CHECK_NOTHROW(A = adimg::read_matrix_market_matrix(path));
            CHECK(A.nonZeros() == 58);  // the zeros dropped
            if (A.rows() == 20) CHECK((A.coeff(19, 18) == -1.0 && A.coeff(18, 19) == -1.0));  // mirrored if symmetric
        } else {
            const std::string message = adimg_test::input_error_of([&] { adimg::read_matrix_market_matrix(path); });
            INFO("-> " << message);
            CHECK(contains(message, path.string() + ":"));
            CHECK(contains(message, row.says));
        }
    }
}
