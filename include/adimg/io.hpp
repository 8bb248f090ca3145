#pragma once
/// \file
/// Matrices in and out: Matrix Market files, Eigen sparse matrices, and the sparse direct solve
/// that serves as the reference.

#include <adimg/error.hpp>
#include <adimg/nine_bands.hpp>

#include <Eigen/SparseCore>

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace adimg {

// --- Output files -------------------------------------------------------------------------------

/// A file could not be written (a full disk, a file size limit, an I/O error, a directory that
/// takes no new file). The message names the file and says that it was left as it was. A
/// resource error: the CLI maps it to exit status 3.
class write_error : public device_error {
public:
    using device_error::device_error;
};

/// A file written whole or not at all. The text goes to a temporary file beside the target
/// (".NAME.adimg-PID-K.tmp" in the target's directory, so that the rename stays on one file
/// system; NAME is cut short where the whole would exceed the directory's longest file name);
/// commit() flushes it, checks every write, fsyncs and closes it, and renames it over the
/// target. The target therefore holds either its old content or the complete new one, also after
/// a full disk, a crash or a signal. Any failure throws write_error naming the target and the
/// system's reason (for a file size limit, the limit in bytes); the temporary is then removed. An
/// OutputFile destroyed without commit() (an exception on the way) removes its temporary. While
/// one is open, SIGINT, SIGTERM and SIGHUP (unless ignored) remove the temporaries before the
/// signal takes its previous course, and SIGXFSZ is ignored, so that a write beyond the file size
/// limit (ulimit -f) fails with EFBIG instead of ending the process.
///
/// A target that exists and is not a regular file (a pipe, a terminal, /dev/full) is written in
/// place with the same checks; /dev/stdout, /dev/stderr and /dev/fd/N (/proc/self/fd/N) write to
/// that descriptor of the process. A symbolic link (a chain of them, one that dangles included)
/// is written through: the file it ends at is replaced or created, with the temporary beside it,
/// and the link stays. A replaced file keeps its permission bits; a new one gets 0666 less the
/// umask.
class OutputFile {
public:
    explicit OutputFile(const std::filesystem::path& target);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    /// Where the text goes (precision 17).
    std::ostream& stream();
    /// Completes the file as described above; throws write_error.
    void commit();
    const std::filesystem::path& target() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

/// The reason of a failed write with errno `error`; for EFBIG under a file size limit, the limit
/// and what to do.
std::string write_failure(int error);

/// The file that writing `target` replaces: where its chain of symbolic links ends (a link that
/// dangles included: its target is created), so that a link stays a link; `target` itself if it
/// is no link; empty for a loop of links (more than the kernel's 40). OutputFile writes there.
std::filesystem::path link_destination(const std::filesystem::path& target);

/// `text` as the whole content of `path`, through an OutputFile. Throws write_error.
void write_text_file(const std::filesystem::path& path, const std::string& text);

// --- Matrix Market ------------------------------------------------------------------------------

/// Writes a sparse matrix as "coordinate real general" with 17 significant digits, through an
/// OutputFile (throws write_error).
void write_matrix_market(const std::filesystem::path& path, const Eigen::SparseMatrix<double>& A);
/// Writes a vector as "array real general" (one column), through an OutputFile (throws
/// write_error). `comment` is the comment line after the banner (line breaks become spaces).
void write_matrix_market(const std::filesystem::path& path, const std::vector<double>& v,
                         const std::string& comment = "written by adimg");

/// Reads "coordinate real general|symmetric" into a sparse matrix; an explicit zero is no entry,
/// wherever it stands (it is dropped). Throws input_error naming the file and line of any problem
/// (header, size line, an entry out of range or not a number, more non-zero entries than nine
/// per row); a dense ("array") matrix is refused with its banner quoted and what to write instead.
/// Reading is bounded: a line holds at most max_matrix_market_line bytes, and the file at most
/// 1 MiB before its size line and 1 MiB plus 256 bytes per announced entry in all.
Eigen::SparseMatrix<double> read_matrix_market_matrix(const std::filesystem::path& path);
/// Reads an "array real general" single column, or a coordinate n x 1 matrix, into a vector
/// (bounded as read_matrix_market_matrix).
std::vector<double> read_matrix_market_vector(const std::filesystem::path& path);
/// The longest line the Matrix Market readers accept, in bytes.
constexpr std::size_t max_matrix_market_line = 64 * 1024;

// --- Eigen --------------------------------------------------------------------------------------

/// The nine bands as a compressed column-major Eigen matrix (explicit zeros dropped).
Eigen::SparseMatrix<double> to_eigen(const NineBands<double>& A);

/// Nine bands from an Eigen matrix on an mx x my grid, nodes numbered x-fastest (node (i, j) is
/// row p = j * mx + i). Throws input_error naming the size mismatch, or the first entry that is
/// not a coupling of grid neighbours; where the matrix fits y-fastest numbering instead
/// (p = i * my + j, as scikit-fem's MeshQuad.init_tensor numbers nodes), the message says so and
/// how to renumber.
NineBands<double> from_eigen(const Eigen::SparseMatrix<double>& A, int mx, int my);

/// True if A is n x n with n = mx * my and every entry couples two grid neighbours of the mx x my
/// grid numbered x-fastest: whether from_eigen(A, mx, my) takes A. A matrix numbered y-fastest
/// on that grid fits the my x mx grid (x and y exchanged): fits_grid(A, my, mx).
bool fits_grid(const Eigen::SparseMatrix<double>& A, int mx, int my);

/// What direct_solve_checked() computed and found.
struct DirectSolveReport {
    std::vector<double> x;  ///< the solution; empty if the factorisation broke down (a zero pivot)
    bool solved = false;    ///< the factor has no tiny or negative pivot and the defect is at rounding
    /// The smallest pivot of the LDLT factor relative to its row's diagonal (1 would be no
    /// cancellation; a positive definite matrix has every pivot in (0, 1] of its diagonal).
    double smallest_pivot = 0.0;
    /// ||b - A x||_inf / || |A| |x| + |b| ||_inf (the normwise backward error), b as solved.
    double backward_error = 0.0;
    /// For a pure Neumann matrix, b's component along the constant that was removed, relative to
    /// ||b||, where it exceeded the rounding of b's sum; 0 otherwise.
    double removed_component = 0.0;
    /// Why the solve failed (what to do included), or the note on a removed component; "" if neither.
    std::string message;
};

/// Solves A x = b by sparse Cholesky (Eigen's SimplicialLDLT) in double, or in float to show what
/// single precision alone gives (paper Table 1), and checks the result: it is solved when every
/// pivot of the factor exceeds sqrt(eps) of its row's diagonal (eps of the precision: a smaller or
/// negative pivot means a singular or indefinite matrix) and the backward error is below
/// sqrt(eps) (a symmetric positive definite solve is at rounding; the defect relative to ||b||
/// is not, a float solve's reaching 3e-2 on U1 at L = 9). A pure Neumann matrix (every edge
/// natural, as GridMatrix::bands() marks them, and every row summing to zero) is solved as Solver
/// solves it: b's component along the constant removed (noted in the message beyond rounding),
/// node 0 grounded, and x returned with zero mean. Throws input_error only for a b of the wrong
/// size; a failed solve is reported.
DirectSolveReport direct_solve_checked(const NineBands<double>& A, const std::vector<double>& b,
                                       bool single_precision = false);

/// direct_solve_checked()'s x; throws input_error with its message if the solve failed.
std::vector<double> direct_solve(const NineBands<double>& A, const std::vector<double>& b, bool single_precision = false);

}  // namespace adimg
