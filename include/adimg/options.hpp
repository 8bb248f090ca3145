#pragma once
/// \file
/// Solver options. Field names follow the command-line options (`--smoother adi` is
/// `SolverOptions::smoother = Smoother::adi`); the CLI registers each option once, from here.

#include <string>

namespace adimg {

/// Multigrid smoothers (paper Sec. 3).
enum class Smoother {
    jacobi,        ///< damped Jacobi, x += omega D^-1 (b - A x)
    gauss_seidel,  ///< four-colour Gauss–Seidel, colours (i%2, j%2), four in-place sweeps
    adi,           ///< ADI-TRIDI: tridiagonal solves along x-lines, then along y-lines
};

/// Arithmetic of the solve.
enum class Precision {
    double_,  ///< everything in double
    single,   ///< everything in float: shows where float alone fails (paper Table 1)
    mixed,    ///< double defect and update around float V-cycles (paper Sec. 2.5)
};

/// How the V-cycle solves on its coarsest grid.
enum class CoarseSolver {
    direct,  ///< exactly: the inverse of the coarsest matrix, computed once at setup (in double)
             ///< and applied as one dense product; coarsest grids of at most
             ///< max_direct_coarse_unknowns only, larger ones use pcg
    pcg,     ///< a fixed number of preconditioned conjugate-gradient iterations (pcg.hpp)
};
/// The largest coarsest grid solved directly: 65 x 65 nodes (its inverse takes 143 MB and about
/// a second to compute; 33 x 33, the default, takes 9.5 MB and 40 ms).
constexpr long long max_direct_coarse_unknowns = 65 * 65;

/// Preconditioner of the coarse-grid conjugate gradients.
enum class CoarsePreconditioner { jacobi, adi };

/// Where the solve runs.
enum class BackendKind {
    automatic,  ///< the GPU when one is present, else the CPU (with a one-line notice)
    cpu,
    cuda,
};

/// When the inner (float) multigrid of a mixed solve hands back its correction: after a fixed
/// number of cycles, or once it has gained a number of digits (at most `inner_max_cycles`).
/// The paper's six variants are cycles:1..3 and digits:1..3 (Tables 3–4).
struct InnerStop {
    enum class Kind { cycles, digits } kind = Kind::digits;
    int count = 2;
};

/// Every setting of a solve.
struct SolverOptions {
    BackendKind backend = BackendKind::automatic;
    Precision precision = Precision::mixed;
    Smoother smoother = Smoother::adi;
    double omega = 0.7;       ///< Jacobi damping, in (0, 1]
    double line_omega = 0.7;  ///< ADI line-sweep damping, in (0, 1] (see relax() in stencil.hpp)
    int pre_smooth = 4;       ///< pre-smoothing steps; one ADI application counts as two
    int post_smooth = 4;      ///< post-smoothing steps; one ADI application counts as two
    int coarse_level = 5;     ///< refinement level of the coarsest grid (5: 33x33 nodes, 1: 3x3)
    CoarseSolver coarse_solver = CoarseSolver::direct;
    CoarsePreconditioner coarse_preconditioner = CoarsePreconditioner::jacobi;  ///< of pcg
    int coarse_iterations = 64;  ///< PCG iterations on the coarsest grid, at most (and at most its unknowns)
    InnerStop inner;             ///< inner stopping rule of the mixed solver
    int inner_max_cycles = 32;   ///< cap on inner cycles per outer step in digits mode
    double digits = 8.0;         ///< stop once the defect has dropped by this many digits
    int max_iterations = 500;    ///< outer iterations before giving up
    int stall_steps = 5;         ///< outer steps without 1% progress that count as stagnation
    double divergence_factor = 1e6;  ///< a defect this many times the initial one is divergence
    bool fallback_to_double = true;  ///< when the float inner solve stalls, continue with double
};

/// Parses "cycles:2" or "digits:3" (what --inner takes). Throws input_error.
InnerStop parse_inner_stop(const std::string& text);
std::string to_string(const InnerStop& inner);
std::string to_string(Smoother s);
std::string to_string(Precision p);
std::string to_string(CoarseSolver s);
std::string to_string(CoarsePreconditioner p);
std::string to_string(BackendKind b);
Smoother parse_smoother(const std::string& text);
Precision parse_precision(const std::string& text);
CoarseSolver parse_coarse_solver(const std::string& text);
CoarsePreconditioner parse_coarse_preconditioner(const std::string& text);
BackendKind parse_backend(const std::string& text);

/// Throws input_error naming the first field that is out of range and what is allowed.
void validate(const SolverOptions& options);

}  // namespace adimg
