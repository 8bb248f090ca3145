// Bad input gives a clear error, never a crash, a hang or a silently wrong result. One table per
// class of input: command-line options (run through the built `adimg` binary with a timeout:
// exit status 2 and the message fragment on stderr), case files and Matrix Market files (through
// the library: an input_error naming the file, the line and the problem). Then the solver's
// failure messages: the cause they name and the digits they quote.

#include <adimg/problems.hpp>
#include <adimg/io.hpp>
#include <adimg/error.hpp>
#include <adimg/hierarchy.hpp>
#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "input_error_of.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace adimg;

namespace {

namespace fs = std::filesystem;

/// A fresh directory for this test process's files, removed at exit.
const fs::path& scratch() {
    struct Dir {
        fs::path path;
        Dir() : path(fs::temp_directory_path() / ("adimg_bad_input_" + std::to_string(getpid()))) {
            fs::remove_all(path);
            fs::create_directories(path);
        }
        ~Dir() {
            std::error_code ec;
            fs::remove_all(path, ec);
        }
    };
    static const Dir dir;
    return dir.path;
}

fs::path write_file(const std::string& name, const std::string& text) {
    const fs::path path = scratch() / name;
    std::ofstream out(path, std::ios::binary);
    out << text;
    return path;
}

using adimg_test::input_error_of;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// A string literal with its embedded NUL bytes.
template <std::size_t N>
std::string bytes(const char (&text)[N]) {
    return std::string(text, N - 1);
}

// --- the command-line tool ------------------------------------------------------------------------

// The binary and the runner are in cli_runner.hpp (shared with test_cli.cpp and test_cli_matrix.cpp).
bool have_cli() { return adimg_test::have_cli("rows"); }

using adimg_test::CliResult;

/// Runs `adimg arguments` with a 60 s timeout (status 124 if it hangs), capturing stderr only.
CliResult run_cli(const std::string& arguments) {
    return adimg_test::run_cli(arguments, adimg_test::Capture::stderr_only, 60);
}

struct CliRow {
    std::string arguments;  ///< after `adimg`; {dir} is the scratch directory
    std::string says;       ///< a fragment of the message on stderr
};

std::string expand(std::string text) {
    for (std::size_t at; (at = text.find("{dir}")) != std::string::npos;) text.replace(at, 5, scratch().string());
    return text;
}

}  // namespace

TEST_CASE("Bad command-line options: exit status 2, the option named with what it allows", "[bad-input][cli]") {
    if (!have_cli()) return;
    fs::create_directories(scratch() / "a_directory");
    const std::string u1 = "solve --case U1 --level 3 ";
    const CliRow rows[] = {
        // wrong types
        {"solve --case U1 --level abc", "--level 'abc': expected an integer"},
        {"solve --case U1 --level 3.5", "--level '3.5': expected an integer"},
        {"solve --case U1 --level 99999999999", "--level '99999999999': expected an integer within the 32-bit range"},
        {"info --case U1 --level ' 4'", "--level ' 4': expected an integer"},
        {u1 + "--omega x", "--omega 'x': expected a number"},
        {u1 + "--omega nan", "--omega 'nan': expected a finite number"},
        {u1 + "--line-omega inf", "--line-omega 'inf': expected a finite number"},
        {u1 + "--digits 1e999", "--digits '1e999': expected a finite number"},
        {u1 + "--digits 0x10", "--digits '0x10': expected a number"},
        {u1 + "--coarse-iterations 1e3", "--coarse-iterations '1e3': expected an integer"},
        {u1 + "--pre-smooth two", "--pre-smooth 'two': expected an integer"},
        {u1 + "--no-fallback=yes", "--no-fallback"},
        // unknown, missing, repeated and stray arguments
        {u1 + "--lvel 3", "unknown option '--lvel'; did you mean --level?"},
        {u1 + "--frobnicate 3", "unknown option '--frobnicate'"},
        {u1 + "U1", "unexpected argument 'U1'"},
        {"solve --case U1 --level", "--level needs a value: an integer"},
        {"solve --case U1 --level=", "--level needs a value: an integer"},
        {u1 + "--omega", "--omega needs a value: a number"},
        {u1 + "--level 4", "--level is given more than once"},
        {"solve --case U1 --case-file {dir}/x.cfg", "give either --case or --case-file, not both"},
        {"solve --level 3", "no problem given"},
        {"solve --case X9", "unknown case 'X9'; built-in cases are U1, U2, U3, A1"},
        {"frobnicate", "unknown command 'frobnicate'"},
        {"", "usage: adimg COMMAND"},
        // out of range
        {"solve --case U1 --level 0", "--level 0 is outside 1..15"},
        {"info --case U1 --level -2", "--level -2 is outside 1..15"},
        {"info --case U1 --level 16", "--level 16 is outside 1..15"},
        {"solve --case U1 --level 15 --solver direct", "--level 15: the direct solve needs about"},
        {u1 + "--omega 0", "--omega 0 is outside (0, 1]"},
        {u1 + "--omega 1.5", "--omega 1.5 is outside (0, 1]"},
        {u1 + "--line-omega -0.25", "--line-omega -0.25 is outside (0, 1]"},
        {u1 + "--line-omega 1.01", "--line-omega 1.01 is outside (0, 1]"},
        {u1 + "--pre-smooth -1", "--pre-smooth -1 is outside 0..64"},
        {u1 + "--post-smooth 65", "--post-smooth 65 is outside 0..64"},
        {u1 + "--coarse-level -1", "--coarse-level -1 is outside 0..15"},
        {u1 + "--coarse-iterations 0", "--coarse-iterations 0 is outside 1..10000"},
        {u1 + "--digits 16", "--digits 16 is outside (0, 15]"},
        {u1 + "--digits -1", "--digits -1 is outside (0, 15]"},
        {u1 + "--max-iterations 0", "--max-iterations 0 is outside 1..1000000"},
        {u1 + "--stall-steps 0", "--stall-steps 0 is outside 1..1000"},
        {u1 + "--inner digits:7", "--inner digits:7 is outside cycles:1..32 or digits:1..6"},
        {u1 + "--inner digits:0", "--inner digits:0 is outside cycles:1..32 or digits:1..6"},
        {u1 + "--inner cycles:0", "--inner cycles:0 is outside cycles:1..32 or digits:1..6"},
        {u1 + "--inner cycles:33", "--inner cycles:33 is outside cycles:1..32 or digits:1..6"},
        {u1 + "--inner cycles:x", "--inner 'cycles:x': the count after ':' must be a whole number"},
        {u1 + "--inner steps:2", "--inner 'steps:2' is not allowed; use cycles:N or digits:N"},
        {u1 + "--inner-max-cycles 0", "--inner-max-cycles 0 is outside 1..1000"},
        {u1 + "--divergence-factor 1", "--divergence-factor 1 is outside (1, inf)"},
        {u1 + "--divergence-factor inf", "--divergence-factor 'inf': expected a finite number"},
        // names that are not allowed
        {u1 + "--smoother sor", "--smoother 'sor' is not allowed; use one of jacobi, gauss-seidel, adi"},
        {u1 + "--precision quad", "--precision 'quad' is not allowed; use one of double, single, mixed"},
        {u1 + "--backend tpu", "--backend 'tpu' is not allowed; use one of auto, cpu, cuda"},
        {u1 + "--coarse-preconditioner ilu", "--coarse-preconditioner 'ilu' is not allowed; use one of jacobi, adi"},
        {u1 + "--solver lu", "--solver 'lu' is not allowed; use one of multigrid, direct"},
        {u1 + "--coarse-operators rap", "--coarse-operators 'rap' is not allowed; use one of rediscretized, galerkin"},
        // files
        {"solve --case-file {dir}/missing.cfg", "cannot read case file '{dir}/missing.cfg': it does not exist"},
        {"info --case-file {dir}/a_directory", "cannot read case file '{dir}/a_directory': it is a directory"},
        {"assemble --case U1 --level 2", "--out"},
        {"assemble --case U1 --level 2 --out {dir}/no/such/dir/A.mtx", "the directory '{dir}/no/such/dir' does not exist"},
        {"assemble --case U1 --level 2 --out {dir}/a_directory", "cannot write '{dir}/a_directory': it is a directory"},
        {"assemble --case U1 --level 2 --out {dir}/A.mtx --rhs-out {dir}/./A.mtx", "--out and --rhs-out name the same file"},
    };
    for (const CliRow& row : rows) {
        const std::string arguments = expand(row.arguments), says = expand(row.says);
        const CliResult r = run_cli(arguments);
        INFO("adimg " << arguments << "\n-> exit " << r.status << ", stderr:\n" << r.output);
        CHECK(r.status == 2);
        CHECK(contains(r.output, says));
    }
}

TEST_CASE("--help prints short defaults (0.7, not 0.69999999999999996)", "[bad-input][cli]") {
    if (!have_cli()) return;
    const CliResult r = adimg_test::run_cli("solve --help", adimg_test::Capture::stdout_only, 60);
    const std::string& out = r.output;
    CHECK(r.status == 0);
    INFO(out);
    CHECK(contains(out, "--omega arg (=0.7)"));
    CHECK(contains(out, "--line-omega arg (=0.7)"));
    CHECK_FALSE(contains(out, "0.6999"));
}

// --- case files -----------------------------------------------------------------------------------

namespace {

const std::string good_case = "name = T\n[domain]\nwidth = 1\nheight = 0.5\n[refinement]\nnu = 0.5\nx_layer = high\n";

struct CaseRow {
    std::string text;  ///< the file's content
    int line;          ///< the line the message names (0: the file only)
    std::string says;  ///< a fragment of the message
};

}  // namespace

TEST_CASE("Bad case files: the file, the line and the key named with what is allowed", "[bad-input][case]") {
    const CaseRow rows[] = {
        {"", 0, "the required key name is missing"},
        {"name = T\n[domain]\nheight = 1\n", 0, "the required key domain.width is missing"},
        {"name = T\n[domain]\nwidth = 1\n", 0, "the required key domain.height is missing"},
        {"name =\n[domain]\nwidth = 1\nheight = 1\n", 1, "name is empty"},
        {"name = T\nname = U\n[domain]\nwidth = 1\nheight = 1\n", 2, "name is given twice (first on line 1)"},
        {"name = T\n[domain]\nwidth = 1\nheight = 1\nwidth = 2\n", 5, "domain.width is given twice (first on line 3)"},
        {"name = T\ndomain.width = 1\n[domain]\nwidth = 1\nheight = 1\n", 4, "domain.width is given twice"},
        {"name = T\n[domain]\nwidth =\nheight = 1\n", 3, "domain.width is empty; it must be a positive number in [1e-15, 1e15]"},
        {"name = T\n[domain]\nwidth = -1\nheight = 1\n", 3, "domain.width = -1 is out of range; it must be a positive number"},
        {"name = T\n[domain]\nwidth = 1\nheight = 0\n", 4, "domain.height = 0 is out of range"},
        {"name = T\n[domain]\nwidth = 1e20\nheight = 1\n", 3, "domain.width = 1e20 is out of range"},
        {"name = T\n[domain]\nwidth = nan\nheight = 1\n", 3, "domain.width = nan is not finite"},
        {"name = T\n[domain]\nwidth = 1\nheight = inf\n", 4, "domain.height = inf is not finite"},
        {"name = T\n[domain]\nwidth = 1e999\nheight = 1\n", 3, "domain.width = 1e999 is not finite"},
        {"name = T\n[domain]\nwidth = one\nheight = 1\n", 3, "domain.width = 'one' is not a number"},
        {"name = T\n[domain]\nwidth = 1.0 m\nheight = 1\n", 3, "domain.width = '1.0 m' is not a number"},
        {"name = T\n[domain]\nwidth = 1\nheight = 1\n[refinement]\nnu = 0\n", 6, "refinement.nu = 0 is out of range; it must be a number in (0, 1]"},
        {"name = T\n[domain]\nwidth = 1\nheight = 1\n[refinement]\nnu = 1.5\n", 6, "refinement.nu = 1.5 is out of range"},
        {"name = T\n[domain]\nwidth = 1\nheight = 1\n[refinement]\nnu = -nan\n", 6, "refinement.nu = -nan is not finite"},
        {"name = T\n[domain]\nwidth = 1\nheight = 1\n[refinement]\nx_layer = middle\n", 6,
         "refinement.x_layer = 'middle' is not allowed; use none, low or high"},
        {"name = T\n[domain]\nwidth = 1\nheight = 1\n[refinement]\ny_layer =\n", 6, "refinement.y_layer = '' is not allowed"},
        {"name = T\ncolour = red\n", 2, "unknown key 'colour'; the keys are name, description, [domain] width, height"},
        {"name = T\n[domain]\ndepth = 1\n", 3, "unknown key 'domain.depth' (in [domain])"},
        {"name = T\nnu = 0.5\n", 2, "unknown key 'nu'; nu belongs under [refinement]"},
        {"name = T\n[refinement]\nwidth = 1\n", 3, "width belongs under [domain]"},
        {"name = T\n[mesh]\n", 2, "unknown section [mesh]; the sections are [domain] and [refinement]"},
        {"name = T\n[domain\n", 2, "'[domain' opens a section without closing it"},
        {"name = T\nwidth 1\n", 2, "'width 1' is not a 'key = value' line, a [section] or a # comment"},
        {"name = T\n= 1\n", 2, "has no key before '='"},
        {bytes("name = T\n[domain]\nwidth = 1\0\nheight = 1\n"), 3, "NUL byte"},
        {"\x7f\x45\x4c\x46\x02\x01\x01", 1, "is not a 'key = value' line"},
    };
    int index = 0;
    for (const CaseRow& row : rows) {
        const fs::path path = write_file("case" + std::to_string(index++) + ".cfg", row.text);
        const std::string message = input_error_of([&] { read_case_file(path); });
        INFO("case file:\n" << row.text << "\n-> " << message);
        CHECK(contains(message, path.string() + (row.line ? ":" + std::to_string(row.line) + ": " : ": ")));
        CHECK(contains(message, row.says));
    }
}

TEST_CASE("Case files: good ones parse as before, files and levels that cannot work are input errors",
          "[bad-input][case]") {
    // The syntax the built-in cases use, comments, blank lines, CRLF ends, a byte-order mark and
    // dotted keys outside a section are all fine.
    for (const std::string& name : builtin_case_names()) CHECK_NOTHROW(builtin_case(name));
    const fs::path path = write_file(
        "good.cfg", "\xEF\xBB\xBF# comment\r\nname = G # trailing comment\r\n\r\ndomain.width = 2\r\n[domain]\r\n"
                    "height = 0.25\r\n[ refinement ]\r\nnu = 0.5\r\ny_layer = low\r\n");
    const CaseSpec spec = read_case_file(path);
    CHECK(spec.name == "G");
    CHECK(spec.x.length == 2.0);
    CHECK(spec.y.length == 0.25);
    CHECK(spec.x.nu == 0.5);
    CHECK(spec.x.layer == Layer::none);
    CHECK(spec.y.layer == Layer::low);

    CHECK(contains(input_error_of([] { read_case_file(scratch() / "nope.cfg"); }), "does not exist"));
    CHECK(contains(input_error_of([] { read_case_file(scratch()); }), "is a directory"));
    if (geteuid() != 0) {  // root reads anything
        const fs::path locked = write_file("locked.cfg", good_case);
        fs::permissions(locked, fs::perms::none);
        CHECK(contains(input_error_of([&] { read_case_file(locked); }), "Permission denied"));
    }

    // A grading so strong that the smallest element underflows double on the requested level.
    const fs::path tiny = write_file("tiny.cfg", "name = Tiny\n[domain]\nwidth = 1\nheight = 1\n[refinement]\n"
                                                 "nu = 1e-200\nx_layer = low\n");
    const CaseSpec t = read_case_file(tiny);
    CHECK_NOTHROW(t.mesh(1));
    CHECK(contains(input_error_of([&] { t.mesh(2); }), "case Tiny on level 2: the smallest element width"));
    CHECK(contains(input_error_of([&] { builtin_case("U1").mesh(-1); }), "level -1 is outside 0..30"));
    if (have_cli()) {
        const CliResult r = run_cli("info --case-file '" + tiny.string() + "' --level 3");
        INFO(r.output);
        CHECK(r.status == 2);
        CHECK(contains(r.output, "below what double resolves"));
    }
}

TEST_CASE("Bad case files through the CLI: exit status 2 naming file and line", "[bad-input][case][cli]") {
    if (!have_cli()) return;
    const fs::path path = write_file("cli.cfg", "name = T\n[domain]\nwidth = -3\nheight = 1\n");
    const CliResult r = run_cli("solve --case-file '" + path.string() + "' --level 3 --backend cpu");
    INFO(r.output);
    CHECK(r.status == 2);
    CHECK(contains(r.output, path.string() + ":3: domain.width = -3 is out of range"));
}

// --- Matrix Market files ----------------------------------------------------------------------------

namespace {

enum class Reads { matrix, vector };

struct MatrixMarketRow {
    Reads reads;
    std::string text;
    int line;  ///< the line the message names (0: the file only)
    std::string says;
};

const std::string general = "%%MatrixMarket matrix coordinate real general\n";
const std::string symmetric = "%%MatrixMarket matrix coordinate real symmetric\n";
const std::string array = "%%MatrixMarket matrix array real general\n";

}  // namespace

TEST_CASE("Bad Matrix Market files: file:line and the problem, never a crash or a huge allocation",
          "[bad-input][matrix-market]") {
    const Reads M = Reads::matrix, V = Reads::vector;
    const MatrixMarketRow rows[] = {
        // banner
        {M, "", 1, "the file is empty"},
        {M, "hello\n", 1, "not a Matrix Market file"},
        {M, "%%MatrixMarket vector coordinate real general\n", 1, "not a Matrix Market file"},
        {M, "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1, "field 'complex' is not supported"},
        {M, "%%MatrixMarket matrix coordinate pattern general\n1 1 1\n1 1\n", 1, "field 'pattern' is not supported"},
        {M, "%%MatrixMarket matrix coordinate real hermitian\n", 1, "symmetry 'hermitian' is not supported"},
        {M, "%%MatrixMarket matrix coordinate real\n", 1, "symmetry '' is not supported"},
        {M, "%%MatrixMarket matrix sparse real general\n", 1, "format 'sparse' is not supported"},
        {M, "%%MatrixMarket matrix coordinate real general extra\n", 1, "unexpected 'extra' after the symmetry"},
        {M, array + "1 1\n1\n", 1, "a matrix must be in coordinate format"},
        // size line
        {M, general, 0, "the size line 'rows columns entries' is missing"},
        {M, general + "% only a comment\n\n", 0, "the size line 'rows columns entries' is missing"},
        {M, general + "3 3\n", 2, "expected the size line 'rows columns entries', found only 2"},
        {M, general + "3 3 3 7\n", 2, "found '7' after them"},
        {M, general + "3 4 4\n", 2, "the matrix is 3x4, not square"},
        {M, general + "0 0 0\n", 2, "the row count 0 is outside 1..2147483647"},
        {M, general + "-3 -3 3\n", 2, "the row count -3 is outside"},
        {M, general + "1000000000000 1000000000000 1000000000000\n", 2, "the row count 1000000000000 is outside 1..2147483647"},
        {M, general + "99999999999999999999 1 1\n", 2, "the row count 99999999999999999999 is outside"},
        {M, general + "three 3 3\n", 2, "the row count 'three' is not a whole number"},
        {M, general + "3.0 3 3\n", 2, "the row count '3.0' is not a whole number"},
        {M, general + "3 3 2\n", 2, "2 entries for 3 rows: some rows are empty"},
        {M, general + "3 3 28\n", 2, "28 entries for 3 rows is more than a 3x3 matrix has (9)"},
        {M, symmetric + "3 3 16\n", 2,
         "16 entries for 3 rows is more than the lower triangle of a 3x3 matrix holds (6, all that a symmetric file stores)"},
        // a size line that claims more than the file holds: an error at its end, nothing reserved
        {M, general + "2000000000 2000000000 2000000000\n1 1 1\n", 0, "the file ends after 1 of the 2000000000 entries that line 2 announces"},
        {M, general + "3 3 3\n1 1 1\n2 2 1\n", 0, "the file ends after 2 of the 3 entries"},
        // entries
        {M, general + "3 3 3\n1 1 1\n2 2\n3 3 1\n", 4, "expected an entry 'row column value', found only 2"},
        {M, general + "3 3 3\n1 1 1 9\n", 3, "found '9' after them"},
        {M, general + "3 3 3\n4 1 1\n", 3, "the row index 4 is outside 1..3"},
        {M, general + "3 3 3\n1 0 1\n", 3, "the column index 0 is outside 1..3"},
        {M, general + "3 3 3\n-1 1 1\n", 3, "the row index -1 is outside 1..3"},
        {M, general + "3 3 3\n1.5 1 1\n", 3, "the row index '1.5' is not a whole number"},
        {M, general + "3 3 3\n1 1 abc\n", 3, "the value 'abc' is not a number"},
        {M, general + "3 3 3\n1 1 1.0.0\n", 3, "the value '1.0.0' is not a number"},
        {M, general + "3 3 3\n1 1 nan\n", 3, "the value nan is not finite"},
        {M, general + "3 3 3\n1 1 -inf\n", 3, "the value -inf is not finite"},
        {M, general + "3 3 3\n1 1 1e999\n", 3, "the value 1e999 is not finite"},
        {M, general + bytes("3 3 3\n1 1 1\0" "5\n"), 3, "the value '1\\x005' is not a number"},
        {M, "%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 1 1.5\n", 3, "the value 1.5 is not an integer"},
        {M, general + "3 3 4\n1 1 1\n2 2 1\n% a comment\n1 1 2\n3 3 1\n", 6, "entry (1, 1) appears twice (lines 3 and 6); duplicates are not summed"},
        {M, symmetric + "3 3 5\n1 1 4\n2 1 -1\n1 2 -1\n2 2 4\n3 3 4\n", 5, "entry (1, 2) appears twice (lines 4 and 5); in a symmetric file (i, j) and (j, i) are the same entry"},
        {M, general + "3 3 3\n1 1 1\n2 2 1\n3 3 1\n3 3 1\n", 6, "more data after the 3 entries that the size line announces"},
        // vectors
        {V, symmetric + "3 1 3\n", 1, "a vector must be 'general', not 'symmetric'"},
        {V, array + "3 2\n", 2, "a vector must have one column, this has 2"},
        {V, array + "3\n", 2, "expected the size line 'rows 1', found only 1"},
        {V, array + "3 1 3\n", 2, "expected the size line 'rows 1', found '3' after them"},
        {V, array + "3 1\n1\n2\n", 0, "the file ends after 2 of the 3 values that line 2 announces"},
        {V, array + "2 1\n1\n2\n3\n", 5, "more data after the 2 values"},
        {V, array + "2 1\n1 2\n", 3, "expected one value per line, found '2' after them"},
        {V, array + "2 1\n1\nNaN\n", 4, "the value NaN is not finite"},
        {V, array + "2147483647 1\n1\n", 0, "the file ends after 1 of the 2147483647 values"},
        {V, array + "2147483648 1\n", 2, "the row count 2147483648 is outside 1..2147483647"},
        {V, general + "3 1 4\n", 2, "the entry count 4 is outside 0..3"},
        {V, general + "3 1 1\n1 2 5\n", 3, "the column index 2 is outside 1..1"},
        {V, general + "3 1 2\n2 1 5\n2 1 6\n", 4, "entry (2, 1) appears twice (lines 3 and 4)"},
        {V, general + "2147483647 1 1\n", 0, "the file ends after 0 of the 1 entries"},
    };
    int index = 0;
    for (const MatrixMarketRow& row : rows) {
        const fs::path path = write_file("m" + std::to_string(index++) + ".mtx", row.text);
        const std::string message = input_error_of([&] {
            if (row.reads == Reads::matrix)
                read_matrix_market_matrix(path);
            else
                read_matrix_market_vector(path);
        });
        INFO((row.reads == Reads::matrix ? "matrix" : "vector") << " file:\n" << row.text << "\n-> " << message);
        CHECK(contains(message, path.string() + (row.line ? ":" + std::to_string(row.line) + ": " : ": ")));
        CHECK(contains(message, row.says));
    }
}

TEST_CASE("Matrix Market: good files still read, missing files named", "[bad-input][matrix-market]") {
    // An assembled matrix and load vector round-trip and fit the grid again.
    const TensorMesh mesh = builtin_case("A2").mesh(3);
    const NineBands<double> A = assemble_stiffness(mesh);
    const std::vector<double> b = assemble_load(mesh, {1.0, 1.0});
    const fs::path a_path = scratch() / "A.mtx", b_path = scratch() / "b.mtx";
    write_matrix_market(a_path, to_eigen(A));
    write_matrix_market(b_path, b);
    const NineBands<double> back = from_eigen(read_matrix_market_matrix(a_path), mesh.mx(), mesh.my());
    CHECK(back.values == A.values);
    CHECK(read_matrix_market_vector(b_path) == b);

    // A symmetric file mirrors its off-diagonal entries; comments, blank lines and CRLF are fine.
    const fs::path s_path = write_file("s.mtx", "%%MatrixMarket matrix coordinate real symmetric\r\n% c\r\n\r\n"
                                                "2 2 3\r\n1 1 4\r\n2 1 -1\r\n2 2 4\r\n");
    const Eigen::SparseMatrix<double> S = read_matrix_market_matrix(s_path);
    CHECK(S.coeff(0, 1) == -1.0);
    CHECK(S.coeff(1, 0) == -1.0);
    CHECK(S.nonZeros() == 4);
    // Integer fields and a sparse (coordinate) vector.
    const fs::path v_path = write_file("v.mtx", "%%MatrixMarket matrix coordinate integer general\n4 1 1\n3 1 7\n");
    CHECK(read_matrix_market_vector(v_path) == std::vector<double>{0, 0, 7, 0});

    CHECK(contains(input_error_of([] { read_matrix_market_matrix(scratch() / "none.mtx"); }),
                   "cannot read matrix file '" + (scratch() / "none.mtx").string() + "': it does not exist"));
    CHECK(contains(input_error_of([] { read_matrix_market_vector(scratch()); }), "is a directory"));
}

// --- the solver's failure messages ------------------------------------------------------------------

namespace {

SolveReport failing_solve(Precision precision, bool fallback) {
    // No smoothing at all: the V-cycle cannot reduce the defect in any precision.
    SolverOptions options;
    options.backend = BackendKind::cpu;
    options.precision = precision;
    options.smoother = Smoother::jacobi;
    options.pre_smooth = options.post_smooth = 0;
    options.fallback_to_double = fallback;
    const CaseSpec spec = builtin_case("U1");
    const TensorMesh mesh = spec.mesh(5);
    Solver solver(options);
    solver.setup(rediscretized_hierarchy(spec, 5, 1));
    std::vector<double> x;
    return solver.solve(assemble_load(mesh, {1.0, 1.0}), x);
}

/// "after gaining D.DD of": the digits the message quotes, as report.digits_gained() prints them.
std::string quoted_digits(const SolveReport& report) {
    char text[64];
    std::snprintf(text, sizeof text, "after gaining %.2f of the 8 requested digits", report.digits_gained());
    return text;
}

}  // namespace

TEST_CASE("Failure messages name the actual cause and quote the digits the report has", "[bad-input][errors]") {
    struct Row {
        Precision precision;
        bool fallback;
        const char* says;
        const char* never;
    };
    const Row rows[] = {
        {Precision::double_, true, "the multigrid cycle no longer reduces the defect: the smoother does not suit",
         "precision"},
        {Precision::mixed, true, "; continued with double inner cycles); the multigrid cycle no longer reduces the "
                                 "defect even with double inner cycles, so float precision is not the cause",
         "float inner solve no longer"},
        {Precision::mixed, false,
         "the float inner solve no longer reduces the defect; set SolverOptions::fallback_to_double = true", "even with"},
        {Precision::single, true, "single precision cannot resolve this problem further", "double inner"},
    };
    for (const Row& row : rows) {
        const SolveReport report = failing_solve(row.precision, row.fallback);
        INFO(to_string(row.precision) << (row.fallback ? "" : " --no-fallback") << ": " << to_string(report.status)
                                      << ": " << report.message);
        CHECK(report.status == SolveStatus::stagnated);
        CHECK(contains(report.message, row.says));
        CHECK_FALSE(contains(report.message, row.never));
        // The digits quoted are the last iterate's; where it was worse than the zero guess, x = 0 is
        // returned instead, and the report's defects are the zero guess's.
        if (contains(report.message, "x = 0 is returned"))
            CHECK(report.final_defect == report.initial_defect);
        else
            CHECK(contains(report.message, quoted_digits(report)));
        CHECK(contains(report.message, "SolverOptions::pre_smooth"));  // what to try for this smoother
    }
}
