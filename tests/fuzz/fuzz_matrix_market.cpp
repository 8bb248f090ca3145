// libFuzzer target: the Matrix Market readers on arbitrary bytes.
//
// The input is written to a file (the readers take a path) and read as a matrix and as a vector.
// Every input must either read or throw adimg::input_error naming the file; a crash, a sanitizer
// report, another exception (std::bad_alloc from an absurd size line included), a hang or an
// allocation beyond libFuzzer's limit is a bug. A matrix that reads is put on a small grid with
// from_eigen, which must accept it or throw input_error.

#include <adimg/io.hpp>
#include <adimg/error.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

namespace {

[[noreturn]] void property_failed(const char* what) {
    std::fprintf(stderr, "fuzz_matrix_market: property failed: %s\n", what);
    std::abort();
}

/// A file for the input, private to this process and removed at exit.
struct InputFile {
    std::filesystem::path path;
    InputFile() {
        const std::filesystem::path dir =
            std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
        path = dir / ("adimg_fuzz_" + std::to_string(getpid()) + ".mtx");
    }
    ~InputFile() {
        std::error_code ec;
        std::filesystem::remove(path, ec);
    }
};

const std::filesystem::path& input_path() {
    static const InputFile file;
    return file.path;
}

void check_names_file(const adimg::input_error& e) {
    if (std::string(e.what()).find(input_path().string()) == std::string::npos)
        property_failed("a Matrix Market error does not name the file");
}

/// A grid for n nodes: square if n is a perfect square, else one row.
void grid_for(long long n, int& mx, int& my) {
    const long long m = std::llround(std::sqrt(static_cast<double>(n)));
    if (m * m == n) {
        mx = my = static_cast<int>(m);
    } else {
        mx = static_cast<int>(n);
        my = 1;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    {
        std::ofstream out(input_path(), std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
        if (!out) property_failed("cannot write the input file");
    }
    try {
        const Eigen::SparseMatrix<double> A = adimg::read_matrix_market_matrix(input_path());
        if (A.rows() != A.cols() || A.rows() < 1) property_failed("a matrix read that is not square");
        if (A.nonZeros() > 9 * A.rows()) property_failed("a matrix read with more than nine entries per row");
        for (int k = 0; k < A.outerSize(); ++k)
            for (Eigen::SparseMatrix<double>::InnerIterator it(A, k); it; ++it)
                if (!std::isfinite(it.value())) property_failed("a matrix read with a non-finite entry");
        int mx = 0, my = 0;
        grid_for(A.rows(), mx, my);
        try {
            const adimg::NineBands<double> bands = adimg::from_eigen(A, mx, my);
            for (double a : bands.values)
                if (!std::isfinite(a)) property_failed("from_eigen made a non-finite band entry");
        } catch (const adimg::input_error&) {
        }
    } catch (const adimg::input_error& e) {
        check_names_file(e);
    }
    try {
        const std::vector<double> v = adimg::read_matrix_market_vector(input_path());
        if (v.empty()) property_failed("an empty vector read");
        for (double x : v)
            if (!std::isfinite(x)) property_failed("a vector read with a non-finite value");
    } catch (const adimg::input_error& e) {
        check_names_file(e);
    }
    return 0;
}
