// The library's host side at its edges: the CPU backend's norms of vectors near the ends of
// double's range, indefinite and singular matrices refused by name when a GridMatrix takes them,
// and output files written whole or not at all. Host code alone, so CPU tests only; the solves
// at the edges are in test_solver_edges.cpp.

#include <adimg/error.hpp>
#include <adimg/grid.hpp>
#include <adimg/hierarchy.hpp>
#include <adimg/io.hpp>
#include <adimg/problems.hpp>

#include <catch2/catch.hpp>

#include "cpu/cpu_backend.hpp"
#include "input_error_of.hpp"
#include "spoilt_u1.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

using namespace adimg;
using namespace adimg_test;

namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// The CPU backend's vectors.
template <class T>
using Vector = CpuBackend::vector<T>;

/// ||x|| in long double (a 64-bit mantissa and 15-bit exponent: no overflow for doubles).
template <class T>
double reference_norm(const Vector<T>& x) {
    long double sum = 0.0L;
    for (T v : x) sum += static_cast<long double>(v) * static_cast<long double>(v);
    return static_cast<double>(std::sqrt(sum));
}

}  // namespace

TEST_CASE("norm2 neither overflows nor underflows for finite vectors, and keeps NaN and infinity", "[norm]") {
    CpuBackend be;
    const double big = 1e200, tiny = 1e-200, huge = std::numeric_limits<double>::max() / 4;
    struct Row {
        const char* what;
        Vector<double> x;
    };
    const Row rows[] = {
        {"every entry 1e200 (the squares overflow)", Vector<double>(50000, big)},
        {"every entry 1e-200 (the squares underflow)", Vector<double>(50000, tiny)},
        {"one entry near the largest double", {1.0, huge, -huge / 3, 2.0}},
        {"1e170, the right-hand side of the issue", Vector<double>(1000, 1e170)},
        {"subnormal entries", Vector<double>(10, 1e-310)},
        {"ordinary entries (the plain sum)", {3.0, 4.0, 12.0}},
    };
    for (const Row& row : rows) {
        INFO(row.what);
        const double norm = be.norm2(row.x), expected = reference_norm(row.x);
        CHECK(std::isfinite(norm));
        CHECK(std::abs(norm - expected) <= 1e-14 * expected);
    }
    const Vector<float> floats(30000, 3e38f);  // float vectors accumulate in double
    CHECK(std::abs(be.norm2(floats) - reference_norm(floats)) <= 1e-12 * reference_norm(floats));
    CHECK(be.norm2(Vector<double>(100, 0.0)) == 0.0);
    CHECK(std::isnan(be.norm2(Vector<double>{1e200, NAN, 1.0})));
    CHECK(std::isinf(be.norm2(Vector<double>{1e200, INFINITY, 1.0})));
}

TEST_CASE("Indefinite and singular matrices are refused by name when they are handed over", "[grid][errors]") {
    struct Row {
        const char* what;
        void (*spoil)(NineBands<double>&);
        const char* says;
    };
    const Row rows[] = {
        {"every interior row sums to zero (a pure Neumann matrix, singular)",
         [](NineBands<double>& A) {
             for (std::size_t p = 0; p < A.rows(); ++p) {
                 if (!interior(A, p)) continue;
                 double off = 0.0;
                 for (int k = 0; k < 9; ++k) {
                     const std::size_t q = p + static_cast<std::size_t>(band_dy(k) * A.mx + band_dx(k));
                     if (k != C && interior(A, q)) off += A(k, p);
                 }
                 A(C, p) = -off;
             }
         },
         "matrix: singular: the constant vector on the interior nodes is a null vector"},
        {"A - 1.0 I: indefinite, though every diagonal stays positive", [](NineBands<double>& A) { shift(A, 1.0); },
         "matrix: indefinite: for the sign pattern v = 1"},
        {"off-diagonals of the wrong sign and a small diagonal", [](NineBands<double>& A) {
             for (std::size_t p = 0; p < A.rows(); ++p) {
                 if (!interior(A, p)) continue;
                 for (int k = 0; k < 9; ++k)
                     if (k != C) A(k, p) = -A(k, p);
                 A(C, p) = 1.0;
             }
         },
         "matrix: indefinite: for the sign pattern v = (-1)^i"},
        {"one symmetric pair of couplings larger than its diagonals", [](NineBands<double>& A) {
             const std::size_t p = 16 * 33 + 16;
             A(E, p) = A(W, p + 1) = -3.0;  // 3 > sqrt(8/3 * 8/3)
         },
         "|a_pq| >= sqrt(a_pp a_qq) makes the 2 x 2 submatrix"},
    };
    for (const Row& row : rows) {
        INFO(row.what);
        const std::string message = input_error_of([&] { u1_with(row.spoil); });
        INFO(message);
        CHECK(contains(message, row.says));
        CHECK(contains(message, "symmetric positive definite"));
    }
    // The matrices of the built-in cases pass, Galerkin levels included (A5: entries over thirty orders).
    for (const char* name : {"U1", "U3", "A2", "A5"}) {
        const TensorMesh mesh = builtin_case(name).mesh(7);
        CHECK_NOTHROW(galerkin_hierarchy(GridMatrix(Grid::from_mesh(mesh), assemble_stiffness(mesh)), 2));
    }
}

TEST_CASE("OutputFile: the target is replaced whole on commit, and left as it was otherwise", "[io][output]") {
    const fs::path dir = fs::temp_directory_path() / ("adimg_output_file_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path target = dir / "a.txt";
    auto text_of = [](const fs::path& path) {
        std::ifstream in(path);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    };
    auto files = [&] {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
        return names;
    };
    {
        std::ofstream(target) << "old\n";
        fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    }
    {  // no commit (an exception on the way): the target as it was, no temporary
        OutputFile file(target);
        file.stream() << "new, but never committed\n";
        CHECK(files().size() == 2);  // the temporary beside the target
    }
    CHECK(text_of(target) == "old\n");
    CHECK(files() == std::vector<std::string>{"a.txt"});
    {  // commit: replaced, with the permissions it had
        OutputFile file(target);
        file.stream() << "new\n";
        CHECK(text_of(target) == "old\n");  // nothing visible before the commit
        file.commit();
    }
    CHECK(text_of(target) == "new\n");
    CHECK(files() == std::vector<std::string>{"a.txt"});
    CHECK((fs::status(target).permissions() & fs::perms::all) ==
          (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
    {  // a symbolic link: its target is replaced, the link stays
        fs::create_symlink("a.txt", dir / "link.txt");
        write_text_file(dir / "link.txt", "through the link\n");
        CHECK(fs::is_symlink(dir / "link.txt"));
        CHECK(text_of(target) == "through the link\n");
    }
    // A device that is full: write_error naming it, thrown by the commit at the latest.
    try {
        write_text_file("/dev/full", std::string(1 << 21, 'x'));
        FAIL("no write_error for /dev/full");
    } catch (const write_error& e) {
        CHECK(contains(e.what(), "cannot write '/dev/full': No space left on device"));
    }
    // A directory that takes no new file: write_error naming the target, the old file as it was.
    if (geteuid() != 0) {
        fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
        try {
            write_text_file(target, "cannot\n");
            FAIL("no write_error for a read-only directory");
        } catch (const write_error& e) {
            CHECK(contains(e.what(), "cannot write '" + target.string() + "'"));
        }
        fs::permissions(dir, fs::perms::owner_all);
        CHECK(text_of(target) == "through the link\n");
    }
    fs::remove_all(dir);
}
