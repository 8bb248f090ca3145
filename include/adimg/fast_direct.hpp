#pragma once
/// \file
/// A fast direct solver for the separable Q1 systems of -Δu = f on a tensor-product mesh with
/// Dirichlet edges: every built-in case, uniform or graded, on the CPU or the GPU; and, on the
/// CPU, with Neumann edges.
///
///     adimg::FastDirectSolver solver;                  // the GPU if usable, else the CPU
///     solver.setup(adimg::builtin_case("A2"), 10);     // or a TensorMesh, or the element widths
///     adimg::FastDirectReport report = solver.solve(b, x);
///     adimg::FastDirectCaseReport solved = solver.solve_case();  // b and the L2 error on the GPU
///
/// The method. On the interior nodes the assembled matrix (assemble_stiffness(), docs/design.md
/// §1) is A = Kx ⊗ My + Mx ⊗ Ky, where K and M are the 1D stiffness and mass matrices of each
/// direction (tridiagonal). One direction t is diagonalised, the other (the line direction l)
/// is solved line by line:
///
/// - t uniform: the discrete sine transform (DST-I) diagonalises Kt and Mt at once, with
///   eigenvalues kappa_k = (4/h) sin²(θ/2) and mu_k = h (1 - 2/3 sin²(θ/2)), θ = πk/n; it is
///   applied by FFT (FFTW on the CPU, cuFFT on the GPU), O(N log N);
/// - t graded: the generalised eigenvectors of the pencil (Kt, Mt), V^T Mt V = I,
///   V^T Kt V = Λ, computed once at setup and applied as dense products (Eigen on the CPU,
///   cuBLAS on the GPU), O(N n). A5 at L=10 has widths from 1.9e-3 down to 8.7e-19 and
///   eigenvalues from 9.87 to 6.4e34 (at L=12 to 1.1e42); a dense eigensolver loses every
///   eigenvalue below about eps·λ_max. Setup
///   instead brackets each eigenvalue by bisection on the Sturm count of Kt - σ Mt (a
///   recurrence that is exact for entries perturbed by a few ulps each, so that even the
///   smallest eigenvalues keep their relative accuracy), computes its vector by inverse
///   iteration, M-orthogonalised against its neighbours where eigenvalues cluster, and takes
///   λ_k as the Rayleigh quotient summed element by element (positive terms only).
///   V^T Mt V = I and V^T Kt V = Λ then hold relative to sqrt(λ_k λ_l), to 2e-13 for the 255
///   modes of A5 at L=8 and 4e-12 for its 1023 at L=10 (the error grows like n²;
///   tests/test_fast_direct.cpp checks it). A dense eigensolver (Eigen's
///   GeneralizedSelfAdjointEigenSolver, also after scaling by diag(M)) returns negative
///   eigenvalues there;
///
/// - t uniform with Neumann at both ends: the discrete cosine transform (DCT-I, FFTW's REDFT00),
///   whose vectors cos(π i k / n), i, k = 0..n, satisfy K V = D V Λ_K and M V = D V Λ_M with
///   D = diag(1/2, 1, .., 1, 1/2) and the sine's eigenvalue formulas: x = (1/2n) C L^-1 C D^-1 b;
///
/// and per mode k the line system (alpha_k Ml + beta_k Kl) w_k = (transformed b)_k, which is
/// tridiagonal and diagonally dominant, is solved by Thomas (CPU, factored at setup) or by the
/// line solvers of src/lines (GPU: the partition method, one warp per line for short lines, and
/// the chunked partition method of the distributed solver's mode lines for lines longer than a
/// block's shared memory holds, from L = 14 on an H200).
///
/// Accuracy. The result is checked, not assumed: after the transform solve the defect
/// b - A x is computed in double with the assembled nine-band matrix, in difference form
/// (src/fast_direct/difference_defect.hpp: sum_q a_pq (x_q - x_p) + (row sum) x_p, whose rounding
/// is that of x's differences, not of x), and while it is above the stop criterion (reduced by
/// 10^-digits relative to ||b||, as the multigrid solve) up to max_refinements steps of iterative
/// refinement x += P(b - A x) follow, in the multigrid solver's own refinement loop (the transform
/// solve in the place of the V-cycles; docs/design.md §5); the report says how many. A step that
/// does not reduce the defect ends the solve `stagnated`, with its last iterate, or the guess
/// where that was better.
///
/// The criterion does not see all of the transform solve's error: its rounding, amplified by the
/// condition of the lowest modes, leaves a smooth error in x whose defect is below the rounding of
/// the defect of the discrete solution itself. On U1 at L=11 the L2 error is then 3.4e-5 off that of
/// the discrete solution. One refinement step (min_refinements = 1) removes it: the L2 errors of
/// all eight cases at L=10 and 11 are then those of the discrete solution to 3e-9 (computed with
/// defects in long double), at the cost of a second transform solve and two defects. A defect in
/// the plain form b - sum a_pq x_q rounds too coarsely for this (1.1e-5 off after the same step).
/// The multigrid solve at its 8-digit criterion is as far off (double, CPU, L=11: 1.7e-5 on A2,
/// 1.9e-5 on U1), so two solvers that both meet the criterion need not agree to 1e-6 in the L2
/// error beyond L=10; use min_refinements = 1 where the discrete solution is the yardstick.
///
/// Neumann edges. An edge may instead carry the natural condition du/dn = g: its nodes are then
/// unknowns with the full Q1 rows of the element matrices (the matrix of such a mesh is assembled
/// from the two 1D pencils, A = Kx ⊗ My + Mx ⊗ Ky on the unknowns, identity rows on the Dirichlet
/// nodes), and b_i = ∫ f φ_i + ∫ g φ_i is the caller's. A direction's pencil then includes its
/// Neumann end nodes; the cosine transform serves a uniform direction with Neumann at both ends,
/// the eigenvectors every other (the bisection, inverse iteration and Rayleigh quotients above
/// hold for any ends). With Neumann on all four edges A is singular with the constants as its
/// kernel: solve() checks that b is compatible (|sum_i b_i| / sqrt(N) within 10^-digits ||b||,
/// i.e. ∫ f + ∮ g = 0 to the criterion; an input_error names the imbalance otherwise), removes
/// its mean, pins the singular mode's line at its last node and returns the solution with
/// ∫ u_h = 0. Neumann edges run on the CPU (FastDirectOptions::backend = automatic takes the CPU
/// for them, with a notice; cuda is an input error). A Neumann end next to elements many decades
/// smaller than the domain (A4 and A5 at x = 1 or y = 0) is beyond double: the rows there hold
/// entries of about 1/h that must cancel to the small differences across those elements, and
/// their rounding leaves the matrix ill-determined. On A5 with Neumann edges at x = 0 and 1, L=6,
/// the sparse Cholesky solution's defect is 6e-7 of ||b|| (4e-3 at L=8), and this solver reaches
/// 2.5e-8 and reports the missed criterion; with Neumann on all four edges A3 at L=9 and A4 at
/// L=8 miss it too.
///
/// Limits: constant coefficients (the Laplacian), a tensor-product mesh, each edge Dirichlet (edge
/// rows identity, b there is the boundary value: x = b on the edge) or Neumann; any number
/// of elements per direction (at least 2). Other problems need adimg::Solver. Widths that jump
/// by many decades between neighbouring elements inside the domain (not towards an edge, as in
/// the A-cases) make the assembled matrix itself ill-determined by its rounding: with random
/// widths over 12 decades even the sparse Cholesky solution leaves a defect of 3e-6 ||b||, and
/// this solver one of 2.5e-6 (`stagnated`).

#include <adimg/nine_bands.hpp>
#include <adimg/options.hpp>
#include <adimg/problems.hpp>
#include <adimg/report.hpp>
#include <adimg/solver.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace adimg {

/// How the transformed direction is diagonalised.
enum class FastTransform {
    automatic,  ///< sine or cosine if its widths are equal (within FastDirectOptions::uniform_tolerance)
                ///< and its ends alike, else eigen
    sine,       ///< DST-I by FFT; the direction's widths must be equal, both ends Dirichlet
    eigen,      ///< the generalised eigenvectors of (K, M) as dense products; any widths and ends
    cosine,     ///< DCT-I by FFT; the direction's widths must be equal, both ends Neumann
};

/// The condition on one edge of the rectangle.
enum class EdgeCondition {
    dirichlet,  ///< u given: the edge's nodes are identity rows, x = b there
    neumann,    ///< du/dn given (natural): the edge's nodes are unknowns, its flux is part of b
};

/// The four edges' conditions; the built-in cases are Dirichlet on all four.
struct FastDirectEdges {
    EdgeCondition x_low = EdgeCondition::dirichlet;   ///< x = 0
    EdgeCondition x_high = EdgeCondition::dirichlet;  ///< x = width
    EdgeCondition y_low = EdgeCondition::dirichlet;   ///< y = 0
    EdgeCondition y_high = EdgeCondition::dirichlet;  ///< y = height
    bool all_dirichlet() const;
    bool all_neumann() const;
};

/// Which direction is transformed (the other one is solved line by line).
enum class FastAxis {
    automatic,  ///< a uniform direction (x first), else the one with fewer nodes (x on a tie)
    x,
    y,
};

struct FastDirectOptions {
    BackendKind backend = BackendKind::automatic;
    FastTransform transform = FastTransform::automatic;
    FastAxis axis = FastAxis::automatic;
    /// Converged once ||b - A x|| <= 10^-digits ||b|| (SolverOptions::digits, the same criterion).
    double digits = 8.0;
    /// Iterative refinement steps after the transform solve, at most (0 to 10).
    int max_refinements = 3;
    /// Refinement steps taken even where the transform solve meets the criterion (0 to
    /// max_refinements). One gives the discrete solution to the digits its doubles hold: the
    /// transform solve's smooth error (its rounding, amplified by the condition of the lowest
    /// modes) is below the defect's rounding floor, which the criterion cannot see; see Accuracy.
    int min_refinements = 0;
    /// Widths count as equal when max |h_e - h_0| <= uniform_tolerance h_0.
    double uniform_tolerance = 1e-12;
};

/// A solve's report: SolveReport's fields, where one outer iteration is one transform solve (the
/// first, then each refinement step) and inner_cycles stays 0, plus what is particular here.
struct FastDirectReport : SolveReport {
    int refinement_steps = 0;    ///< refinement steps taken (outer_iterations - 1)
    double first_defect = 0.0;   ///< ||b - A x|| after the transform solve alone
};

/// What FastDirectSolver::solve_case() gives back: the solve's report, and the relative L2 error
/// of its solution against the case's exact solution (relative_l2_error() in problems.hpp).
struct FastDirectCaseReport {
    FastDirectReport report;
    double relative_l2_error = 0.0;
};

namespace fast_direct {
class FastDirectEngine;  // one backend's transform solve and defect (src/fast_direct/fast_direct_engine.hpp)
}

class FastDirectSolver {
public:
    /// Throws input_error naming the first option out of range. Starts the GPU where it is the
    /// backend (the CUDA context, a stream, staging buffers), as adimg::Solver does.
    explicit FastDirectSolver(FastDirectOptions options = {});
    ~FastDirectSolver();
    FastDirectSolver(FastDirectSolver&&) noexcept;
    FastDirectSolver& operator=(FastDirectSolver&&) noexcept;

    /// Chooses the transformed direction and its transform, computes the transform (eigenvectors
    /// and eigenvalues or the sine or cosine modes) and the line factors, and makes them ready on
    /// the backend; the CPU backend also assembles the matrix for its defect (the GPU computes
    /// each row of its defect from the element widths). Throws input_error for a mesh the
    /// options do not allow (FastTransform::sine on graded widths or Neumann ends), with fewer
    /// than 2 elements a direction, or with Neumann edges and FastDirectOptions::backend = cuda.
    void setup(const TensorMesh& mesh, const FastDirectEdges& edges = {});
    /// The case's mesh on refinement level `level`, as the CLI's --case and --level give it;
    /// solve_case() then solves the case's problem.
    void setup(const CaseSpec& spec, int level);
    /// The mesh of these element widths (x left to right, y bottom to top).
    void setup(std::vector<double> widths_x, std::vector<double> widths_y);

    /// Solves A x = b for the assembled matrix of the mesh (rows p = j mx + i, Dirichlet rows identity)
    /// from a zero guess. x is resized and overwritten. Throws input_error before setup() or if b
    /// has the wrong size.
    FastDirectReport solve(const std::vector<double>& b, std::vector<double>& x, const StepCallback& on_step = {});
    /// The same on memory of the caller's choosing: b and x hold rows() values each (page-locked
    /// memory, pinned_memory.hpp, travels to the GPU by DMA). b and x may be the same array. With
    /// InitialGuess::given x holds the initial guess: the first step corrects it by the transform
    /// solve of its defect, x + P (b - A x), and the solve behaves as adimg::Solver's (a guess
    /// that meets the criterion is the answer as it is, with no step; a failed solve hands back
    /// the better of its last iterate and the guess).
    FastDirectReport solve(const double* b, double* x, InitialGuess guess = InitialGuess::zero,
                           const StepCallback& on_step = {});
    /// Solves the problem of the last setup(CaseSpec, level), with its load vector assembled and
    /// its relative L2 error measured where the solve runs (on the device for CUDA, as
    /// Solver::solve_case() does): neither b nor x travels, unless `x` is given, which then
    /// receives the solution. The report's upload_seconds is then the load vector's assembly,
    /// download_seconds the error's measure (and x's download). Throws input_error if the last
    /// setup was not a case's.
    FastDirectCaseReport solve_case(std::vector<double>* x = nullptr, const StepCallback& on_step = {});

    const FastDirectOptions& options() const { return options_; }
    BackendKind backend() const { return backend_; }  ///< the backend in use (never automatic)
    const FastDirectEdges& edges() const { return edges_; }  ///< the edges of the last setup
    std::string device_name() const;
    const std::string& notice() const { return notice_; }  ///< e.g. why auto chose the CPU
    /// The transformed direction and its transform after setup (never automatic).
    FastAxis axis() const { return axis_; }
    FastTransform transform() const { return transform_; }
    /// One line on how this setup solves: "sine transform in x (FFTW), lines in y by Thomas".
    std::string method() const;
    std::size_t rows() const { return rows_; }
    /// The assembled matrix the defect is computed with (empty before setup()). The GPU computes
    /// the same rows where it needs them: with the CUDA backend the host assembles it at the first
    /// call (not thread-safe then).
    const NineBands<double>& matrix() const;
    /// Seconds the last setup took, everything before the first solve: the transform, the line
    /// factors, the backend's buffers and plans, the copy to the device, the CPU's assembly.
    double setup_seconds() const { return setup_seconds_; }
    /// Seconds the backend's start took when the solver was made (not part of setup_seconds()).
    double start_seconds() const { return start_seconds_; }
    int setup_count() const { return setups_; }
    int solve_count() const { return solves_; }

private:
    FastDirectOptions options_;
    BackendKind backend_ = BackendKind::cpu;  ///< of the last setup
    BackendKind preferred_ = BackendKind::cpu;  ///< options.backend resolved: cuda where usable
    FastDirectEdges edges_;
    std::string notice_;
    FastAxis axis_ = FastAxis::automatic;
    FastTransform transform_ = FastTransform::automatic;
    TensorMesh mesh_;  ///< of the last setup
    /// The case's problem when the last setup was setup(CaseSpec, level), for solve_case().
    std::optional<PolynomialProblem> case_problem_;
    /// Shared with the CPU engine; with the CUDA engine assembled by matrix() when asked.
    mutable std::shared_ptr<const NineBands<double>> matrix_;
    std::unique_ptr<fast_direct::FastDirectEngine> engine_;
    BackendKind engine_backend_ = BackendKind::cpu;  ///< the backend engine_ runs on
    bool ready_ = false;                               ///< engine_ holds a setup
    std::size_t rows_ = 0;
    double setup_seconds_ = 0.0, start_seconds_ = 0.0;
    int setups_ = 0, solves_ = 0;
};

}  // namespace adimg
