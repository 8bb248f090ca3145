// adimg and its peers on exactly the same systems, side by side in one process: the nine-band Q1
// matrix of a built-in case at a level (boundary nodes included as identity rows with no couplings
// into them, docs/design.md §1), its load vector, a zero initial guess, and the same stop, a
// relative defect ||b - A x|| / ||b|| below --tol (default 1e-10). Prints a Markdown table; --json FILE writes every
// row in the shape of solver_bench's rows (bench/peers/README.md lists the fields).
//
//   peer_bench --cases U1,A2,A5 --levels 8,9,10 --solvers adimg,adimg-1t,hypre-pcg-smg,eigen-ldlt
//
// Solvers (those this build has; --list prints them):
//   adimg               adimg's default solver (mixed precision, ADI, digits:2) given the fine
//                       matrix, like the peers: Galerkin coarse levels built by Solver::setup.
//                       On the backend of --backend (cpu or cuda), all OpenMP threads. Its
//                       matrix object: on the CPU a GridMatrix (the bands copied and checked on
//                       the host); on the GPU a DeviceGridMatrix::from_host (the bands uploaded
//                       once, through page-locked staging on all cores, and checked on the device).
//   adimg-1t            the same on the CPU with one OpenMP thread (the hypre and Eigen peers of
//                       a Debian machine are single-threaded).
//   adimg-rediscretized adimg's built-in path: the case's levels assembled one by one.
//   hypre-smg, hypre-pfmg, hypre-pcg-smg, hypre-pcg-pfmg
//                       hypre's Struct interface: the grid is the whole (2^L+1)^2 box, a
//                       nine-point stencil, variable coefficients set band by band.
//   hypre-boomeramg, hypre-pcg-boomeramg
//                       BoomerAMG through IJ (ParCSR; the nonzeros of the same matrix).
//   eigen-ldlt          Eigen's SimplicialLDLT, as adimg::direct_solve uses it.
//   cholmod             SuiteSparse CHOLMOD (supernodal where it pays, with the system's BLAS).
//   cudss               NVIDIA cuDSS (GPU sparse direct, LDLT / Cholesky).
//
// Times (wall clock, milliseconds): setup is everything from the assembled matrix in adimg's
// nine-band host arrays to a solver ready to solve: the library's matrix object, its copy to the
// device, coarse levels or factorisation. Solve is one solve from b on the host to x on the host,
// including their conversion and transfer (the paper's convention, docs/design.md §7). Each row
// is the median of --repeats setups and solves after one warm-up of both; a row whose warm-up
// took longer than --budget seconds is measured once more only (runs = 1 in the row), one whose
// warm-up took over a minute by its warm-up (runs = 1); the previous run's objects are freed
// before each setup's timer starts (Peer::release). A solve that
// does not converge is reported from its warm-up (runs = 0), and the solver is not tried on the
// finer levels of that case (status skipped) unless --keep-going is given; --failed
// CASE:SOLVER:LEVEL,... says the same of an earlier run (a level group of its own tolerance).
// --max-iterations caps the Krylov iterations or multigrid cycles of the iterative peers (default 500).

#include <adimg/device.hpp>
#include <adimg/error.hpp>
#include <adimg/grid.hpp>
#include <adimg/hierarchy.hpp>
#include <adimg/io.hpp>
#include <adimg/pinned_memory.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include "peer.hpp"
#if defined(ADIMG_PEER_AMGX)
#include "amgx_peer.hpp"
#endif

#include <Eigen/SparseCholesky>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(ADIMG_PEER_HYPRE)
#include <HYPRE.h>
#include <HYPRE_krylov.h>
#include <HYPRE_parcsr_ls.h>
#include <HYPRE_struct_ls.h>
#include <HYPRE_utilities.h>
#if defined(HYPRE_USING_GPU)
#include <cuda_runtime.h>
#endif
#endif

#if defined(ADIMG_PEER_CHOLMOD)
#include <cholmod.h>
#endif

#if defined(ADIMG_PEER_CUDSS)
#include <cuda_runtime.h>
#include <cudss.h>
#endif

using namespace adimg;
using namespace adimg_peers;

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, sep))
        if (!item.empty()) out.push_back(item);
    return out;
}

/// r = b - A x in double, for the problem's matrix; returns ||r|| / ||b||.
double residual(const Problem& p, const double* b, const double* x, double* r) {
    const NineBands<double>& A = p.A;
    const int mx = A.mx, my = A.my;
    double sum = 0.0, b_sum = 0.0;
#pragma omp parallel for reduction(+ : sum, b_sum)
    for (int j = 0; j < my; ++j)
        for (int i = 0; i < mx; ++i) {
            const std::size_t q = static_cast<std::size_t>(j) * mx + i;
            double d = b[q];
            for (int k = 0; k < 9; ++k) {
                const int ii = i + band_dx(k), jj = j + band_dy(k);
                if (ii < 0 || jj < 0 || ii >= mx || jj >= my) continue;
                d -= A(k, q) * x[static_cast<std::size_t>(jj) * mx + ii];
            }
            r[q] = d;
            sum += d * d;
            b_sum += b[q] * b[q];
        }
    return std::sqrt(sum / b_sum);
}

/// A sparse direct solver under the comparison's stop rule: the factor's solve, then iterative
/// refinement x += A^-1 (b - A x) while ||b - A x|| / ||b|| >= tol, at most 3 steps. The factor's
/// own rounding, amplified by the condition number, leaves a relative defect near 1e-10 from
/// L = 10 on (Eigen's LDLT on U1: 8.9e-11), enough to move the L2 error by 2e-5 of itself.
class DirectPeer : public Peer {
public:
    void setup(const Problem& p, const Settings& s) override {
        problem_ = &p;
        tol_ = s.tol;
        factor(p);
    }
    Outcome solve(const double* b, double* x) override {
        Outcome o = solve_once(b, x);
        if (o.status != "converged") return o;
        const std::size_t n = problem_->A.rows();
        std::vector<double> r(n), c(n);
        int steps = 0;
        for (; steps < 3 && residual(*problem_, b, x, r.data()) >= tol_; ++steps) {
            solve_once(r.data(), c.data());
            for (std::size_t q = 0; q < n; ++q) x[q] += c[q];
        }
        if (steps) o.note += std::string(o.note.empty() ? "" : ", ") + std::to_string(steps) + " refinement step" + (steps > 1 ? "s" : "");
        return o;
    }

protected:
    virtual void factor(const Problem& p) = 0;
    /// x = A^-1 b by the factor (status "failed" if the factorisation failed).
    virtual Outcome solve_once(const double* b, double* x) = 0;

private:
    const Problem* problem_ = nullptr;
    double tol_ = 0.0;
};

// --- adimg ------------------------------------------------------------------------------------------

class AdimgPeer : public Peer {
public:
    AdimgPeer(BackendKind kind, int threads, bool rediscretized) : kind_(kind), threads_(threads), rediscretized_(rediscretized) {}
    void setup(const Problem& p, const Settings& s) override {
        SolverOptions o;
        o.backend = kind_;
        o.digits = -std::log10(s.tol);
        const auto t_start = clock_type::now();
        solver_ = std::make_unique<Solver>(o);
        solver_ms_ = ms_since(t_start);
        ThreadScope scope(threads_);
        if (rediscretized_) {
            solver_->setup(rediscretized_hierarchy(builtin_case(p.name), p.level, o.coarse_level));
        } else if (kind_ == BackendKind::cuda) {
            // The user's path to the GPU from host arrays: the bands uploaded into a
            // DeviceGridMatrix and checked there (matrix ms = upload + device checks), then setup
            // from device memory. The matrix lives until release(), as a user's would.
            const auto t0 = clock_type::now();
            device_matrix_.emplace(DeviceGridMatrix::from_host(Grid::from_mesh(p.mesh), p.A.values.data()));
            matrix_ms_ = ms_since(t0);
            solver_->setup(*device_matrix_);
        } else {
            // The user's path on the CPU: a GridMatrix from host arrays (its checks included), then setup.
            const auto t0 = clock_type::now();
            host_matrix_.emplace(Grid::from_mesh(p.mesh), p.A);
            matrix_ms_ = ms_since(t0);
            solver_->setup(*host_matrix_);
        }
        setup_ms_ = ms_since(t_start);
    }
    Outcome solve(const double* b, double* x) override {
        ThreadScope scope(threads_);
        const SolveReport r = solver_->solve(b, x, InitialGuess::zero);
        Outcome o;
        o.status = to_string(r.status);
        o.iterations = r.iterations();
        o.outer = r.outer_iterations;
        o.inner_cycles = r.inner_cycles;
        if (r.fell_back_to_double) o.note = "fell back to double";
        if (!r.ok()) o.note += (o.note.empty() ? "" : "; ") + r.message;
        o.note += (o.note.empty() ? "" : "; ") + setup_breakdown();
        return o;
    }
    std::string backend() const override { return to_string(kind_); }
    int threads() const override { return kind_ == BackendKind::cuda ? 0 : (threads_ > 0 ? threads_ : omp_get_max_threads()); }
    std::string precision() const override { return "mixed"; }
    void release() override {
        solver_.reset();
        device_matrix_.reset();
        host_matrix_.reset();
    }

private:
    /// Where the last setup's time went (Solver::setup_times()), for the row's note: what the
    /// peers' "rest of setup" holds on adimg's side, in the row's last run (its columns are medians).
    std::string setup_breakdown() const {
        const SetupTimes t = solver_->setup_times();
        const double matrix = std::isnan(matrix_ms_) ? 0.0 : matrix_ms_;
        char text[320];
        std::snprintf(text, sizeof text,
                      "last run's setup %.1f ms: Solver made %.1f, matrix object %.1f, host levels %.1f, backend %.1f (bands copied %.1f, "
                      "coarsest solve %.1f, levels %.1f), other %.1f",
                      setup_ms_, solver_ms_, matrix, 1e3 * t.levels, 1e3 * t.backend, 1e3 * t.upload, 1e3 * t.coarse_factor,
                      1e3 * t.backend_levels(), setup_ms_ - solver_ms_ - matrix - 1e3 * t.setup());
        return text;
    }

    /// Sets the OpenMP thread count for a scope (0: leave it).
    struct ThreadScope {
        explicit ThreadScope(int n) : saved(omp_get_max_threads()), set(n > 0) {
            if (set) omp_set_num_threads(n);
        }
        ~ThreadScope() {
            if (set) omp_set_num_threads(saved);
        }
        int saved;
        bool set;
    };
    BackendKind kind_;
    int threads_;
    bool rediscretized_;
    std::unique_ptr<Solver> solver_;
    double solver_ms_ = 0.0, setup_ms_ = 0.0;  // of the last setup: making the Solver, all of it
    std::optional<DeviceGridMatrix> device_matrix_;
    std::optional<GridMatrix> host_matrix_;
};

// --- Eigen's SimplicialLDLT (what adimg::direct_solve runs) ------------------------------------------

class EigenPeer : public DirectPeer {
    void factor(const Problem& p) override {
        ldlt_ = std::make_unique<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>>();
        ldlt_->compute(to_eigen(p.A));
        ok_ = ldlt_->info() == Eigen::Success;
        n_ = static_cast<Eigen::Index>(p.A.rows());
    }
    Outcome solve_once(const double* b, double* x) override {
        Outcome o;
        if (!ok_) {
            o.status = "failed";
            o.note = "factorisation failed";
            return o;
        }
        const Eigen::Map<const Eigen::VectorXd> rhs(b, n_);
        Eigen::Map<Eigen::VectorXd>(x, n_) = ldlt_->solve(rhs);
        return o;
    }

    void release() override { ldlt_.reset(); }

    std::unique_ptr<Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>>> ldlt_;
    bool ok_ = false;
    Eigen::Index n_ = 0;
};

// --- CHOLMOD ----------------------------------------------------------------------------------------

#if defined(ADIMG_PEER_CHOLMOD)
/// Threads of the BLAS that CHOLMOD runs on: OpenBLAS says, else 1 (the reference BLAS).
int blas_threads() {
    using fn = int (*)();
    if (auto f = reinterpret_cast<fn>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"))) return f();
    return 1;
}

class CholmodPeer : public DirectPeer {
public:
    CholmodPeer() { cholmod_start(&c_); }
    ~CholmodPeer() override {
        release();
        cholmod_finish(&c_);
    }
    int threads() const override { return blas_threads(); }

private:
    void factor(const Problem& p) override {
        release();
        const auto t0 = clock_type::now();
        // The lower triangle by columns (stype -1): column q holds rows r >= q, which by symmetry
        // are the entries of row q on and above the diagonal, the upper triangle by rows.
        const std::size_t n = p.A.rows();
        const Csr<int> upper(p.A, true);
        A_ = cholmod_allocate_sparse(n, n, upper.nonzeros(), 1, 1, -1, CHOLMOD_REAL, &c_);
        std::copy(upper.row_start.begin(), upper.row_start.end(), static_cast<int*>(A_->p));
        std::copy(upper.column.begin(), upper.column.end(), static_cast<int*>(A_->i));
        std::copy(upper.value.begin(), upper.value.end(), static_cast<double*>(A_->x));
        matrix_ms_ = ms_since(t0);
        L_ = cholmod_analyze(A_, &c_);
        cholmod_factorize(A_, L_, &c_);
        ok_ = c_.status == CHOLMOD_OK;
        b_ = cholmod_allocate_dense(n, 1, n, CHOLMOD_REAL, &c_);
        supernodal_ = L_->is_super;
    }
    Outcome solve_once(const double* b, double* x) override {
        Outcome o;
        if (!ok_) {
            o.status = "failed";
            o.note = "factorisation failed";
            return o;
        }
        std::memcpy(b_->x, b, b_->nrow * sizeof(double));
        cholmod_dense* X = cholmod_solve(CHOLMOD_A, L_, b_, &c_);
        std::memcpy(x, X->x, b_->nrow * sizeof(double));
        cholmod_free_dense(&X, &c_);
        o.note = supernodal_ ? "supernodal" : "simplicial";
        return o;
    }
    void release() override {
        if (A_) cholmod_free_sparse(&A_, &c_);
        if (L_) cholmod_free_factor(&L_, &c_);
        if (b_) cholmod_free_dense(&b_, &c_);
    }
    cholmod_common c_{};
    cholmod_sparse* A_ = nullptr;
    cholmod_factor* L_ = nullptr;
    cholmod_dense* b_ = nullptr;
    bool ok_ = false, supernodal_ = false;
};
#endif

// --- hypre --------------------------------------------------------------------------------------------

#if defined(ADIMG_PEER_HYPRE)
#if defined(HYPRE_SEQUENTIAL)
const MPI_Comm hypre_comm = 0;  // hypre without MPI: its stubs take any communicator
#else
const MPI_Comm hypre_comm = MPI_COMM_WORLD;
#endif

void hypre_check(HYPRE_Int code, const char* what) {
    if (code != 0 && !(code & HYPRE_ERROR_CONV)) {
        char text[256] = {};
        HYPRE_DescribeError(code, text);
        HYPRE_ClearAllErrors();
        throw std::runtime_error(std::string(what) + ": hypre error " + std::to_string(code) + " (" + text + ")");
    }
}
#define HYPRE_CALL(call) hypre_check((call), #call)

#if defined(HYPRE_USING_GPU)
constexpr bool hypre_on_gpu = true;
void cuda_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
/// An array where this hypre wants its data: device memory for a CUDA build.
template <class T>
class HypreArray {
public:
    explicit HypreArray(std::size_t n = 0) { resize(n); }
    ~HypreArray() { cudaFree(p_); }
    HypreArray(const HypreArray&) = delete;
    HypreArray& operator=(const HypreArray&) = delete;
    void resize(std::size_t n) {
        cudaFree(p_);
        p_ = nullptr;
        n_ = n;
        if (n) cuda_check(cudaMalloc(&p_, n * sizeof(T)), "cudaMalloc");
    }
    void from_host(const T* h, std::size_t n) { cuda_check(cudaMemcpy(p_, h, n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy"); }
    void to_host(T* h, std::size_t n) const { cuda_check(cudaMemcpy(h, p_, n * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy"); }
    T* data() { return p_; }

private:
    T* p_ = nullptr;
    std::size_t n_ = 0;
};
void hypre_sync() { cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }
#else
constexpr bool hypre_on_gpu = false;
template <class T>
class HypreArray {
public:
    explicit HypreArray(std::size_t n = 0) : v_(n) {}
    void resize(std::size_t n) { v_.resize(n); }
    void from_host(const T* h, std::size_t n) { std::copy(h, h + n, v_.data()); }
    void to_host(T* h, std::size_t n) const { std::copy(v_.data(), v_.data() + n, h); }
    T* data() { return v_.data(); }

private:
    std::vector<T> v_;
};
void hypre_sync() {}
#endif

/// Threads hypre runs on: its OpenMP threads if it was built with OpenMP, else one.
int hypre_threads() {
#if defined(HYPRE_USING_OPENMP)
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/// What the hypre peers share: where they run, and how an iterative solve ended.
class HyprePeer : public Peer {
public:
    std::string backend() const override { return hypre_on_gpu ? "cuda" : "cpu"; }
    int threads() const override { return hypre_on_gpu ? 0 : hypre_threads(); }

protected:
    /// The stop of this run; and, given a PCG solver (Struct or ParCSR: one hypre PCG), sets it:
    /// ||r||_2 / ||b||_2 < tol as adimg's stop, judged on b - A x recomputed before it stops.
    void configure(const Settings& s, HYPRE_Solver pcg = nullptr) {
        max_iterations_ = s.max_iterations;
        tol_ = s.tol;
        if (!pcg) return;
        HYPRE_CALL(HYPRE_PCGSetMaxIter(pcg, s.max_iterations));
        HYPRE_CALL(HYPRE_PCGSetTol(pcg, s.tol));
        HYPRE_CALL(HYPRE_PCGSetTwoNorm(pcg, 1));
        HYPRE_CALL(HYPRE_PCGSetRelChange(pcg, 0));
        HYPRE_CALL(HYPRE_PCGSetRecomputeResidual(pcg, 1));
        HYPRE_CALL(HYPRE_PCGSetLogging(pcg, 1));
    }
    /// Destroys one of hypre's objects if there is one.
    template <class H>
    static void drop(H& handle, HYPRE_Int (*destroy)(H)) {
        if (handle) destroy(handle);
        handle = nullptr;
    }
    /// Runs one of hypre's solves and reads back how it ended.
    template <class S, class... Args>
    Outcome run(HYPRE_Int (*solve)(S, Args...), HYPRE_Int (*iterations)(S, HYPRE_Int*), HYPRE_Int (*residual)(S, HYPRE_Real*),
                S solver, Args... args) const {
        HYPRE_CALL(solve(solver, args...));
        HYPRE_Int its = 0;
        HYPRE_Real rel = 0.0;
        iterations(solver, &its);
        residual(solver, &rel);
        return outcome(its, rel);
    }
    /// The outcome from hypre's iteration count and final relative residual (its own measure).
    Outcome outcome(HYPRE_Int its, double rel) const {
        HYPRE_ClearAllErrors();  // a solve that stops unconverged leaves HYPRE_ERROR_CONV set
        Outcome o;
        o.outer = its;
        o.iterations = std::to_string(its);
        o.status = !std::isfinite(rel) ? "non_finite" : (rel < tol_ ? "converged" : "max_iterations");
        if (o.status != "converged" && its < max_iterations_) o.status = "stagnated";
        if (o.status != "converged") o.note = shortfall("hypre's ||r||/||b||", rel, its, tol_);
        return o;
    }
    int max_iterations_ = 0;
    double tol_ = 0.0;
};

/// hypre's Struct interface: SMG or PFMG, alone or as the preconditioner of PCG.
class HypreStructPeer : public HyprePeer {
public:
    enum class Kind { smg, pfmg };
    HypreStructPeer(Kind kind, bool pcg) : kind_(kind), pcg_(pcg) {}
    ~HypreStructPeer() override { release(); }

    void setup(const Problem& p, const Settings& s) override {
        release();
        n_ = p.A.rows();
        const auto t0 = clock_type::now();
        HYPRE_Int lower[2] = {0, 0}, upper[2] = {p.A.mx - 1, p.A.my - 1};
        HYPRE_CALL(HYPRE_StructGridCreate(hypre_comm, 2, &grid_));
        HYPRE_CALL(HYPRE_StructGridSetExtents(grid_, lower, upper));
        HYPRE_CALL(HYPRE_StructGridAssemble(grid_));
        HYPRE_CALL(HYPRE_StructStencilCreate(2, 9, &stencil_));
        for (int k = 0; k < 9; ++k) {
            HYPRE_Int offset[2] = {band_dx(k), band_dy(k)};
            HYPRE_CALL(HYPRE_StructStencilSetElement(stencil_, k, offset));
        }
        HYPRE_CALL(HYPRE_StructMatrixCreate(hypre_comm, grid_, stencil_, &A_));
        HYPRE_CALL(HYPRE_StructMatrixInitialize(A_));
        // One band at a time: hypre orders box values point by point (x fastest), as adimg's bands.
        // The boundary nodes are grid points with identity rows and zero couplings, as in adimg's
        // matrix; couplings that would leave the grid are zero there too.
        HypreArray<double> band(n_);
        for (HYPRE_Int k = 0; k < 9; ++k) {
            band.from_host(p.A.band(k), n_);
            HYPRE_CALL(HYPRE_StructMatrixSetBoxValues(A_, lower, upper, 1, &k, band.data()));
        }
        HYPRE_CALL(HYPRE_StructMatrixAssemble(A_));
        hypre_sync();
        matrix_ms_ = ms_since(t0);
        for (HYPRE_StructVector* v : {&b_, &x_}) {
            HYPRE_CALL(HYPRE_StructVectorCreate(hypre_comm, grid_, v));
            HYPRE_CALL(HYPRE_StructVectorInitialize(*v));
            HYPRE_CALL(HYPRE_StructVectorSetConstantValues(*v, 0.0));
            HYPRE_CALL(HYPRE_StructVectorAssemble(*v));
        }
        values_.resize(n_);
        lower_[0] = lower[0], lower_[1] = lower[1], upper_[0] = upper[0], upper_[1] = upper[1];

        if (pcg_) {
            HYPRE_CALL(HYPRE_StructPCGCreate(hypre_comm, &solver_));
            configure(s, reinterpret_cast<HYPRE_Solver>(solver_));
            precond_ = make_multigrid(1, 0.0);
            if (kind_ == Kind::smg)
                HYPRE_CALL(HYPRE_StructPCGSetPrecond(solver_, HYPRE_StructSMGSolve, HYPRE_StructSMGSetup, precond_));
            else
                HYPRE_CALL(HYPRE_StructPCGSetPrecond(solver_, HYPRE_StructPFMGSolve, HYPRE_StructPFMGSetup, precond_));
            HYPRE_CALL(HYPRE_StructPCGSetup(solver_, A_, b_, x_));
        } else {
            configure(s);
            solver_ = make_multigrid(s.max_iterations, s.tol);
            if (kind_ == Kind::smg)
                HYPRE_CALL(HYPRE_StructSMGSetup(solver_, A_, b_, x_));
            else
                HYPRE_CALL(HYPRE_StructPFMGSetup(solver_, A_, b_, x_));
        }
        hypre_sync();
    }

    Outcome solve(const double* b, double* x) override {
        values_.from_host(b, n_);
        HYPRE_CALL(HYPRE_StructVectorSetBoxValues(b_, lower_, upper_, values_.data()));
        HYPRE_CALL(HYPRE_StructVectorAssemble(b_));
        HYPRE_CALL(HYPRE_StructVectorSetConstantValues(x_, 0.0));
        const Outcome o =
            pcg_ ? run(HYPRE_StructPCGSolve, HYPRE_StructPCGGetNumIterations, HYPRE_StructPCGGetFinalRelativeResidualNorm, solver_, A_, b_, x_)
            : kind_ == Kind::smg
                ? run(HYPRE_StructSMGSolve, HYPRE_StructSMGGetNumIterations, HYPRE_StructSMGGetFinalRelativeResidualNorm, solver_, A_, b_, x_)
                : run(HYPRE_StructPFMGSolve, HYPRE_StructPFMGGetNumIterations, HYPRE_StructPFMGGetFinalRelativeResidualNorm, solver_, A_, b_, x_);
        HYPRE_CALL(HYPRE_StructVectorGetBoxValues(x_, lower_, upper_, values_.data()));
        values_.to_host(x, n_);
        return o;
    }

private:
    HYPRE_StructSolver make_multigrid(int max_iterations, double tol) {
        HYPRE_StructSolver s = nullptr;
        if (kind_ == Kind::smg) {
            HYPRE_CALL(HYPRE_StructSMGCreate(hypre_comm, &s));
            HYPRE_CALL(HYPRE_StructSMGSetMemoryUse(s, 0));
            HYPRE_CALL(HYPRE_StructSMGSetMaxIter(s, max_iterations));
            HYPRE_CALL(HYPRE_StructSMGSetTol(s, tol));
            HYPRE_CALL(HYPRE_StructSMGSetRelChange(s, 0));
            if (pcg_) HYPRE_CALL(HYPRE_StructSMGSetZeroGuess(s));
            HYPRE_CALL(HYPRE_StructSMGSetNumPreRelax(s, 1));
            HYPRE_CALL(HYPRE_StructSMGSetNumPostRelax(s, 1));
            HYPRE_CALL(HYPRE_StructSMGSetLogging(s, 1));
        } else {
            HYPRE_CALL(HYPRE_StructPFMGCreate(hypre_comm, &s));
            HYPRE_CALL(HYPRE_StructPFMGSetMaxIter(s, max_iterations));
            HYPRE_CALL(HYPRE_StructPFMGSetTol(s, tol));
            HYPRE_CALL(HYPRE_StructPFMGSetRelChange(s, 0));
            if (pcg_) HYPRE_CALL(HYPRE_StructPFMGSetZeroGuess(s));
            // Weighted Jacobi (hypre's default): its red-black Gauss-Seidel assumes a five-point
            // stencil. Galerkin coarse operators (RAP type 0), which a nine-point stencil needs.
            HYPRE_CALL(HYPRE_StructPFMGSetRelaxType(s, 1));
            HYPRE_CALL(HYPRE_StructPFMGSetRAPType(s, 0));
            HYPRE_CALL(HYPRE_StructPFMGSetNumPreRelax(s, 1));
            HYPRE_CALL(HYPRE_StructPFMGSetNumPostRelax(s, 1));
            HYPRE_CALL(HYPRE_StructPFMGSetLogging(s, 1));
        }
        return s;
    }
    void release() override {
        auto destroy_multigrid = kind_ == Kind::smg ? HYPRE_StructSMGDestroy : HYPRE_StructPFMGDestroy;
        if (pcg_) {
            drop(solver_, HYPRE_StructPCGDestroy);
            drop(precond_, destroy_multigrid);
        } else {
            drop(solver_, destroy_multigrid);
        }
        drop(A_, HYPRE_StructMatrixDestroy);
        drop(b_, HYPRE_StructVectorDestroy);
        drop(x_, HYPRE_StructVectorDestroy);
        drop(stencil_, HYPRE_StructStencilDestroy);
        drop(grid_, HYPRE_StructGridDestroy);
    }

    Kind kind_;
    bool pcg_;
    std::size_t n_ = 0;
    HYPRE_Int lower_[2] = {}, upper_[2] = {};
    HYPRE_StructGrid grid_ = nullptr;
    HYPRE_StructStencil stencil_ = nullptr;
    HYPRE_StructMatrix A_ = nullptr;
    HYPRE_StructVector b_ = nullptr, x_ = nullptr;
    HYPRE_StructSolver solver_ = nullptr, precond_ = nullptr;
    HypreArray<double> values_;
};

/// BoomerAMG through the IJ interface (ParCSR), alone or as the preconditioner of PCG. hypre's
/// defaults otherwise: on the CPU HMIS coarsening, extended+i interpolation, l1 hybrid
/// Gauss-Seidel; on the GPU, chosen by hypre itself, PMIS and l1-Jacobi.
class HypreBoomerPeer : public HyprePeer {
public:
    explicit HypreBoomerPeer(bool pcg) : pcg_(pcg) {}
    ~HypreBoomerPeer() override { release(); }

    void setup(const Problem& p, const Settings& s) override {
        release();
        n_ = p.A.rows();
        const HYPRE_BigInt last = static_cast<HYPRE_BigInt>(n_) - 1;
        const auto t0 = clock_type::now();
        // The nonzeros of adimg's matrix, row by row (the zero couplings into boundary nodes left
        // out), and the row numbers and lengths that IJ takes with them.
        const Csr<HYPRE_BigInt> csr(p.A, false);
        std::vector<HYPRE_Int> ncols(n_);
        std::vector<HYPRE_BigInt> rows(n_);
        for (std::size_t r = 0; r < n_; ++r) {
            rows[r] = static_cast<HYPRE_BigInt>(r);
            ncols[r] = static_cast<HYPRE_Int>(csr.row_start[r + 1] - csr.row_start[r]);
        }
        const std::vector<HYPRE_BigInt>& cols = csr.column;
        const std::vector<double>& vals = csr.value;
        const HYPRE_MemoryLocation where = hypre_on_gpu ? HYPRE_MEMORY_DEVICE : HYPRE_MEMORY_HOST;
        HYPRE_CALL(HYPRE_IJMatrixCreate(hypre_comm, 0, last, 0, last, &A_));
        HYPRE_CALL(HYPRE_IJMatrixSetObjectType(A_, HYPRE_PARCSR));
        HYPRE_CALL(HYPRE_IJMatrixSetRowSizes(A_, ncols.data()));
        HYPRE_CALL(HYPRE_IJMatrixInitialize_v2(A_, where));
        {
            HypreArray<HYPRE_Int> d_ncols(n_);
            HypreArray<HYPRE_BigInt> d_rows(n_), d_cols(cols.size());
            HypreArray<double> d_vals(vals.size());
            d_ncols.from_host(ncols.data(), n_);
            d_rows.from_host(rows.data(), n_);
            d_cols.from_host(cols.data(), cols.size());
            d_vals.from_host(vals.data(), vals.size());
            HYPRE_CALL(HYPRE_IJMatrixSetValues(A_, static_cast<HYPRE_Int>(n_), d_ncols.data(), d_rows.data(), d_cols.data(), d_vals.data()));
            HYPRE_CALL(HYPRE_IJMatrixAssemble(A_));
        }
        HYPRE_CALL(HYPRE_IJMatrixGetObject(A_, reinterpret_cast<void**>(&parA_)));
        hypre_sync();
        matrix_ms_ = ms_since(t0);
        indices_.resize(n_);
        indices_.from_host(rows.data(), n_);
        values_.resize(n_);
        for (HYPRE_IJVector* v : {&b_, &x_}) {
            HYPRE_CALL(HYPRE_IJVectorCreate(hypre_comm, 0, last, v));
            HYPRE_CALL(HYPRE_IJVectorSetObjectType(*v, HYPRE_PARCSR));
            HYPRE_CALL(HYPRE_IJVectorInitialize_v2(*v, where));
            HYPRE_CALL(HYPRE_IJVectorAssemble(*v));
        }
        HYPRE_CALL(HYPRE_IJVectorGetObject(b_, reinterpret_cast<void**>(&parb_)));
        HYPRE_CALL(HYPRE_IJVectorGetObject(x_, reinterpret_cast<void**>(&parx_)));
        HYPRE_CALL(HYPRE_ParVectorSetConstantValues(parb_, 0.0));
        HYPRE_CALL(HYPRE_ParVectorSetConstantValues(parx_, 0.0));

        HYPRE_CALL(HYPRE_BoomerAMGCreate(&amg_));
        HYPRE_CALL(HYPRE_BoomerAMGSetPrintLevel(amg_, 0));
        if (pcg_) {
            HYPRE_CALL(HYPRE_BoomerAMGSetMaxIter(amg_, 1));
            HYPRE_CALL(HYPRE_BoomerAMGSetTol(amg_, 0.0));
            HYPRE_CALL(HYPRE_ParCSRPCGCreate(hypre_comm, &pcg_solver_));
            configure(s, pcg_solver_);
            HYPRE_CALL(HYPRE_PCGSetPrecond(pcg_solver_, reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSolve),
                                           reinterpret_cast<HYPRE_PtrToSolverFcn>(HYPRE_BoomerAMGSetup), amg_));
            HYPRE_CALL(HYPRE_ParCSRPCGSetup(pcg_solver_, parA_, parb_, parx_));
        } else {
            configure(s);
            HYPRE_CALL(HYPRE_BoomerAMGSetMaxIter(amg_, s.max_iterations));
            HYPRE_CALL(HYPRE_BoomerAMGSetTol(amg_, s.tol));
            HYPRE_CALL(HYPRE_BoomerAMGSetup(amg_, parA_, parb_, parx_));
        }
        hypre_sync();
    }

    Outcome solve(const double* b, double* x) override {
        values_.from_host(b, n_);
        HYPRE_CALL(HYPRE_IJVectorSetValues(b_, static_cast<HYPRE_Int>(n_), indices_.data(), values_.data()));
        HYPRE_CALL(HYPRE_IJVectorAssemble(b_));
        HYPRE_CALL(HYPRE_ParVectorSetConstantValues(parx_, 0.0));
        const Outcome o =
            pcg_ ? run(HYPRE_ParCSRPCGSolve, HYPRE_PCGGetNumIterations, HYPRE_PCGGetFinalRelativeResidualNorm, pcg_solver_, parA_, parb_, parx_)
                 : run(HYPRE_BoomerAMGSolve, HYPRE_BoomerAMGGetNumIterations, HYPRE_BoomerAMGGetFinalRelativeResidualNorm, amg_, parA_, parb_, parx_);
        HYPRE_CALL(HYPRE_IJVectorGetValues(x_, static_cast<HYPRE_Int>(n_), indices_.data(), values_.data()));
        values_.to_host(x, n_);
        return o;
    }

private:
    void release() override {
        drop(pcg_solver_, HYPRE_ParCSRPCGDestroy);
        drop(amg_, HYPRE_BoomerAMGDestroy);
        drop(A_, HYPRE_IJMatrixDestroy);
        drop(b_, HYPRE_IJVectorDestroy);
        drop(x_, HYPRE_IJVectorDestroy);
    }
    bool pcg_;
    std::size_t n_ = 0;
    HYPRE_IJMatrix A_ = nullptr;
    HYPRE_ParCSRMatrix parA_ = nullptr;
    HYPRE_IJVector b_ = nullptr, x_ = nullptr;
    HYPRE_ParVector parb_ = nullptr, parx_ = nullptr;
    HYPRE_Solver amg_ = nullptr, pcg_solver_ = nullptr;
    HypreArray<HYPRE_BigInt> indices_;
    HypreArray<double> values_;
};

/// hypre's version and how it was built, for the stamp.
/// hypre's release, "2.26.0" (HYPRE_config.h), for the solvers' descriptions.
std::string hypre_version() { return HYPRE_RELEASE_VERSION; }

std::string hypre_description() {
    char* version = nullptr;
    HYPRE_Version(&version);
    std::string text = version ? version : "hypre (version unknown)";
    free(version);
    text += hypre_on_gpu ? ", CUDA" : ", CPU";
#if defined(HYPRE_SEQUENTIAL)
    text += ", without MPI";
#else
    text += ", MPI (one rank)";
#endif
#if defined(HYPRE_USING_OPENMP)
    text += ", OpenMP";
#else
    text += ", no OpenMP";
#endif
    return text;
}
#endif  // ADIMG_PEER_HYPRE

// --- cuDSS ----------------------------------------------------------------------------------------

#if defined(ADIMG_PEER_CUDSS)
void cudss_check(cudssStatus_t s, const char* what) {
    if (s == CUDSS_STATUS_SUCCESS) return;
    // Named, so that a row's note says why (ALLOC_FAILED: the factor does not fit on the GPU).
    const char* names[] = {"SUCCESS", "NOT_INITIALIZED", "ALLOC_FAILED", "INVALID_VALUE", "NOT_SUPPORTED", "EXECUTION_FAILED", "INTERNAL_ERROR"};
    const int code = static_cast<int>(s);
    throw std::runtime_error(std::string(what) + ": cuDSS status " + std::to_string(code) +
                             (code >= 0 && code < 7 ? std::string(" (CUDSS_STATUS_") + names[code] + ")" : std::string()));
}
void cudart_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

/// cuDSS on the upper triangle in CSR (symmetric positive definite): analysis and factorisation
/// in setup, the two triangular solves per solve; b and x from pinned host memory.
class CudssPeer : public DirectPeer {
public:
    ~CudssPeer() override {
        release();
        if (config_) cudssConfigDestroy(config_);
        if (handle_) cudssDestroy(handle_);
    }
    std::string backend() const override { return "cuda"; }
    int threads() const override { return 0; }

private:
    void factor(const Problem& p) override {
        release();
        n_ = p.A.rows();
        const auto t0 = clock_type::now();
        const Csr<int> upper(p.A, true);
        const std::vector<int>& rowp = upper.row_start;
        const std::vector<int>& coli = upper.column;
        const std::vector<double>& vals = upper.value;
        nnz_ = upper.nonzeros();
        cudart_check(cudaMalloc(&d_rowp_, (n_ + 1) * sizeof(int)), "cudaMalloc");
        cudart_check(cudaMalloc(&d_coli_, nnz_ * sizeof(int)), "cudaMalloc");
        cudart_check(cudaMalloc(&d_vals_, nnz_ * sizeof(double)), "cudaMalloc");
        cudart_check(cudaMalloc(&d_b_, n_ * sizeof(double)), "cudaMalloc");
        cudart_check(cudaMalloc(&d_x_, n_ * sizeof(double)), "cudaMalloc");
        cudart_check(cudaMemcpy(d_rowp_, rowp.data(), (n_ + 1) * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy");
        cudart_check(cudaMemcpy(d_coli_, coli.data(), nnz_ * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy");
        cudart_check(cudaMemcpy(d_vals_, vals.data(), nnz_ * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
        // cuDSS's handle and configuration once per peer, at the warm-up's setup (a user makes them
        // once per process); the data (analysis, factor) at every setup.
        if (!handle_) {
            cudss_check(cudssCreate(&handle_), "cudssCreate");
            cudss_check(cudssConfigCreate(&config_), "cudssConfigCreate");
            // Multi-threaded mode, whose reordering (the analysis' host part, which takes most of
            // the setup) runs on all host cores, where CUDSS_THREADING_LIB names cuDSS's threading
            // layer (bench/peers/run: the staged libcudss_mtlayer_gomp); otherwise one thread.
            if (std::getenv("CUDSS_THREADING_LIB") && cudssSetThreadingLayer(handle_, nullptr) != CUDSS_STATUS_SUCCESS)
                std::fprintf(stderr, "  cudss: the threading layer %s did not load; one host thread\n",
                             std::getenv("CUDSS_THREADING_LIB"));
        }
        cudss_check(cudssDataCreate(handle_, &data_), "cudssDataCreate");
        const int64_t n = static_cast<int64_t>(n_);
#if CUDSS_VERSION_MAJOR >= 1  // the offsets got a type of their own in cuDSS 1.0
        cudss_check(cudssMatrixCreateCsr(&A_, n, n, static_cast<int64_t>(nnz_), d_rowp_, nullptr, d_coli_, d_vals_, CUDA_R_32I, CUDA_R_32I,
                                         CUDA_R_64F, CUDSS_MTYPE_SPD, CUDSS_MVIEW_UPPER, CUDSS_BASE_ZERO),
                    "cudssMatrixCreateCsr");
#else
        cudss_check(cudssMatrixCreateCsr(&A_, n, n, static_cast<int64_t>(nnz_), d_rowp_, nullptr, d_coli_, d_vals_, CUDA_R_32I, CUDA_R_64F,
                                         CUDSS_MTYPE_SPD, CUDSS_MVIEW_UPPER, CUDSS_BASE_ZERO),
                    "cudssMatrixCreateCsr");
#endif
        matrix_ms_ = ms_since(t0);
        cudss_check(cudssMatrixCreateDn(&b_, n, 1, n, d_b_, CUDA_R_64F, CUDSS_LAYOUT_COL_MAJOR), "cudssMatrixCreateDn");
        cudss_check(cudssMatrixCreateDn(&x_, n, 1, n, d_x_, CUDA_R_64F, CUDSS_LAYOUT_COL_MAJOR), "cudssMatrixCreateDn");
        cudss_check(cudssExecute(handle_, CUDSS_PHASE_ANALYSIS, config_, data_, A_, x_, b_), "cudss analysis");
        cudss_check(cudssExecute(handle_, CUDSS_PHASE_FACTORIZATION, config_, data_, A_, x_, b_), "cudss factorization");
        cudart_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }
    Outcome solve_once(const double* b, double* x) override {
        cudart_check(cudaMemcpy(d_b_, b, n_ * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
        cudss_check(cudssExecute(handle_, CUDSS_PHASE_SOLVE, config_, data_, A_, x_, b_), "cudss solve");
        cudart_check(cudaMemcpy(x, d_x_, n_ * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
        return Outcome{};
    }
    void release() override {
        if (A_) cudssMatrixDestroy(A_);
        if (b_) cudssMatrixDestroy(b_);
        if (x_) cudssMatrixDestroy(x_);
        if (data_) cudssDataDestroy(handle_, data_);
        for (void* q : {static_cast<void*>(d_rowp_), static_cast<void*>(d_coli_), static_cast<void*>(d_vals_), static_cast<void*>(d_b_),
                        static_cast<void*>(d_x_)})
            cudaFree(q);
        A_ = b_ = x_ = nullptr, data_ = nullptr;
        d_rowp_ = d_coli_ = nullptr, d_vals_ = d_b_ = d_x_ = nullptr;
    }
    std::size_t n_ = 0, nnz_ = 0;
    int *d_rowp_ = nullptr, *d_coli_ = nullptr;
    double *d_vals_ = nullptr, *d_b_ = nullptr, *d_x_ = nullptr;
    cudssHandle_t handle_ = nullptr;
    cudssConfig_t config_ = nullptr;
    cudssData_t data_ = nullptr;
    cudssMatrix_t A_ = nullptr, b_ = nullptr, x_ = nullptr;
};
#endif

// --- the table ----------------------------------------------------------------------------------

// peer_bench holds adimg, hypre (the system's or HYPRE_CUDA_DIR's), Eigen and CHOLMOD; each
// further GPU library is a program of its own (CMakeLists.txt: peer_bench_amgx, peer_bench_hypre3,
// peer_bench_cudss), so that one that is missing or clashes (two hypre versions) stops no other.
// Such a program measures adimg too, as "adimg@<tag>": its peers' ratios are taken against the
// adimg of their own process.
#if !defined(ADIMG_PEERS_TAG)
#define ADIMG_PEERS_TAG ""
#endif
#if !defined(ADIMG_HYPRE_NAME)
#define ADIMG_HYPRE_NAME "hypre"  // the prefix of the hypre solvers' names: hypre3 for hypre 3.x beside 2.26
#endif
const std::string program_tag = ADIMG_PEERS_TAG;
std::string program_name() { return program_tag.empty() ? "peer_bench" : "peer_bench_" + program_tag; }

struct Entry {
    std::string name;
    std::string what;
    std::function<std::unique_ptr<Peer>(const Settings&)> make;
};

std::vector<Entry> registry() {
    std::vector<Entry> r;
    auto kind = [](const Settings& s) { return parse_backend(s.backend); };
    const bool main_program = program_tag.empty();
    r.push_back({main_program ? "adimg" : "adimg@" + program_tag,
                 "adimg, mixed precision, ADI, digits:2; Galerkin levels from the matrix; all threads" +
                     std::string(main_program ? "" : "; the reference of this program's peers"),
                 [=](const Settings& s) { return std::make_unique<AdimgPeer>(kind(s), 0, false); }});
    if (main_program) {
        r.push_back({"adimg-1t", "adimg on the CPU with one OpenMP thread",
                     [](const Settings&) { return std::make_unique<AdimgPeer>(BackendKind::cpu, 1, false); }});
        r.push_back({"adimg-rediscretized", "adimg with the case's levels assembled one by one (the CLI's path)",
                     [=](const Settings& s) { return std::make_unique<AdimgPeer>(kind(s), 0, true); }});
    }
#if defined(ADIMG_PEER_HYPRE)
    using K = HypreStructPeer::Kind;
    const std::string hypre = ADIMG_HYPRE_NAME, version = " (" + hypre_version() + ")";
    r.push_back({hypre + "-smg", "hypre Struct SMG" + version, [](const Settings&) { return std::make_unique<HypreStructPeer>(K::smg, false); }});
    r.push_back({hypre + "-pfmg", "hypre Struct PFMG" + version, [](const Settings&) { return std::make_unique<HypreStructPeer>(K::pfmg, false); }});
    r.push_back({hypre + "-pcg-smg", "hypre Struct PCG, one SMG V-cycle as preconditioner" + version,
                 [](const Settings&) { return std::make_unique<HypreStructPeer>(K::smg, true); }});
    r.push_back({hypre + "-pcg-pfmg", "hypre Struct PCG, one PFMG V-cycle as preconditioner" + version,
                 [](const Settings&) { return std::make_unique<HypreStructPeer>(K::pfmg, true); }});
    r.push_back({hypre + "-boomeramg", "hypre BoomerAMG through IJ" + version,
                 [](const Settings&) { return std::make_unique<HypreBoomerPeer>(false); }});
    r.push_back({hypre + "-pcg-boomeramg", "hypre ParCSR PCG, one BoomerAMG V-cycle as preconditioner" + version,
                 [](const Settings&) { return std::make_unique<HypreBoomerPeer>(true); }});
#endif
    if (main_program)
        r.push_back({"eigen-ldlt", "Eigen SimplicialLDLT (adimg::direct_solve)", [](const Settings&) { return std::make_unique<EigenPeer>(); }});
#if defined(ADIMG_PEER_CHOLMOD)
    r.push_back({"cholmod", "SuiteSparse CHOLMOD", [](const Settings&) { return std::make_unique<CholmodPeer>(); }});
#endif
#if defined(ADIMG_PEER_CUDSS)
    r.push_back({"cudss", "NVIDIA cuDSS", [](const Settings&) { return std::make_unique<CudssPeer>(); }});
#endif
#if defined(ADIMG_PEER_AMGX)
    r.push_back({"amgx-pcg-classical", "AmgX PCG, one classical AMG V-cycle (PMIS) as preconditioner (PCG_CLASSICAL_V_JACOBI.json)",
                 [](const Settings&) { return make_amgx_peer(AmgxAmg::classical); }});
    r.push_back({"amgx-pcg-aggregation", "AmgX PCG, one aggregation AMG V-cycle as preconditioner (PCG_AGGREGATION_JACOBI.json)",
                 [](const Settings&) { return make_amgx_peer(AmgxAmg::aggregation); }});
    r.push_back({"amgx-fgmres-aggregation",
                 "AmgX FGMRES, one aggregation AMG V-cycle with multicolour DILU as preconditioner (FGMRES_AGGREGATION.json)",
                 [](const Settings&) { return make_amgx_peer(AmgxAmg::fgmres_aggregation); }});
#endif
    return r;
}

/// The libraries in this build, one per line, for the stamp of a run.
std::string about() {
    std::string text = "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                       std::to_string(EIGEN_MINOR_VERSION) + "; adimg CUDA backend: " + (cuda_available() ? "usable" : "not usable here");
#if defined(ADIMG_PEER_HYPRE)
    text += "\n" + hypre_description();
#endif
#if defined(ADIMG_PEER_CHOLMOD)
    text += "\nCHOLMOD " + std::to_string(CHOLMOD_MAIN_VERSION) + "." + std::to_string(CHOLMOD_SUB_VERSION) + "." +
            std::to_string(CHOLMOD_SUBSUB_VERSION) + " (SuiteSparse), BLAS threads " + std::to_string(blas_threads());
#endif
#if defined(ADIMG_PEER_CUDSS)
    int major = 0, minor = 0, patch = 0;
    cudssGetProperty(MAJOR_VERSION, &major);
    cudssGetProperty(MINOR_VERSION, &minor);
    cudssGetProperty(PATCH_LEVEL, &patch);
    text += "\ncuDSS " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
#endif
#if defined(ADIMG_PEER_AMGX)
    text += "\n" + amgx_description();
#endif
    return text;
}

/// ||b - A x|| / ||b|| in double.
double relative_defect(const Problem& p, const std::vector<double>& x) {
    std::vector<double> r(x.size());
    return residual(p, p.b.data(), x.data(), r.data());
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? std::nan("") : v[v.size() / 2];
}

std::string json_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

void write_file(const std::string& path, const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) throw input_error("cannot write " + path);
    std::fputs(text.c_str(), f);
    std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
    std::string cases = "U1,A2,A5", levels = "8,9,10", solvers, json_path, failed_before;
    int repeats = 3;
    double budget = 5.0;
    Settings settings;
    bool list = false, keep_going = false;
    for (int i = 1; i < argc; ++i) {
        const std::string key = argv[i];
        if (key == "--list" || key == "--keep-going") {
            (key == "--list" ? list : keep_going) = true;
            continue;
        }
        if (key == "--about") {
            std::printf("%s\n", about().c_str());
            return 0;
        }
        if (i + 1 >= argc) {
            std::fprintf(stderr, "peer_bench: %s needs a value\n", key.c_str());
            return 2;
        }
        const std::string value = argv[++i];
        if (key == "--cases") cases = value;
        else if (key == "--levels") levels = value;
        else if (key == "--solvers") solvers = value;
        else if (key == "--repeats") repeats = std::stoi(value);
        else if (key == "--budget") budget = std::stod(value);
        else if (key == "--json") json_path = value;
        else if (key == "--backend") settings.backend = value;
        else if (key == "--tol") settings.tol = std::stod(value);
        else if (key == "--max-iterations") settings.max_iterations = std::stoi(value);
        else if (key == "--failed") failed_before = value;
        else {
            std::fprintf(stderr, "peer_bench: unknown option %s (see the comment at the top of bench/peers/peer_bench.cpp)\n", key.c_str());
            return 2;
        }
    }
    const std::vector<Entry> all = registry();
    if (list) {
        for (const Entry& e : all) std::printf("%-20s %s\n", e.name.c_str(), e.what.c_str());
        return 0;
    }
    if (solvers.empty())
        for (const Entry& e : all) solvers += std::string(solvers.empty() ? "" : ",") + e.name;

#if defined(ADIMG_PEER_HYPRE)
#if !defined(HYPRE_SEQUENTIAL)
    MPI_Init(&argc, &argv);
    int ranks = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (ranks != 1) {
        std::fprintf(stderr, "peer_bench: run it as one process (%d MPI ranks given)\n", ranks);
        MPI_Finalize();
        return 2;
    }
#endif
    HYPRE_Init();
#if defined(HYPRE_USING_GPU)
    HYPRE_SetMemoryLocation(HYPRE_MEMORY_DEVICE);
    HYPRE_SetExecutionPolicy(HYPRE_EXEC_DEVICE);
#if !defined(HYPRE_USING_CUSPARSE)
    HYPRE_SetSpGemmUseVendor(0);
    HYPRE_SetSpMVUseVendor(0);
#endif
#endif
    std::fprintf(stderr, "peer_bench: %s\n", hypre_description().c_str());
#endif
#if defined(ADIMG_PEER_AMGX)
    const AmgxLibrary amgx;
#endif

    int status = 0;
    try {
        std::vector<const Entry*> chosen;
        for (const std::string& name : split(solvers, ',')) {
            auto it = std::find_if(all.begin(), all.end(), [&](const Entry& e) { return name == e.name; });
            if (it == all.end()) throw input_error("solver '" + name + "' is not in this build (peer_bench --list)");
            chosen.push_back(&*it);
        }
        // "matrix ms" is part of "setup ms"; "to solution ms" is setup + solve.
        std::printf("| case | L | N | solver | backend | threads | status | iterations | matrix ms | setup ms | solve ms | to solution ms | runs | "
                    "relative defect | L2 error |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        std::string json = "[\n";
        // The rows so far, as a complete JSON file after every row: a run cut off by a time limit,
        // or a library that crashes the process, still leaves the rows measured before.
        auto write_json = [&] {
            if (json_path.empty()) return;
            std::string text = json;
            if (text.size() > 2) text.erase(text.size() - 2, 1);
            write_file(json_path, text + "]\n");
        };
        for (const std::string& name : split(cases, ',')) {
            const CaseSpec spec = builtin_case(name);
            std::map<std::string, int> failed_at;  // solver -> the level where it did not converge
            for (const std::string& item : split(failed_before, ',')) {
                const std::vector<std::string> parts = split(item, ':');
                if (parts.size() != 3) throw input_error("--failed takes CASE:SOLVER:LEVEL items, not '" + item + "'");
                if (parts[0] == spec.name) failed_at[parts[1]] = std::stoi(parts[2]);
            }
            std::vector<int> level_list;
            for (const std::string& level_text : split(levels, ',')) level_list.push_back(std::stoi(level_text));
            std::sort(level_list.begin(), level_list.end());
            for (const int level : level_list) {
                Problem p;
                p.name = spec.name;
                p.level = level;
                p.mesh = spec.mesh(p.level);
                p.pde = PolynomialProblem{spec.x.length, spec.y.length};
                p.A = assemble_stiffness(p.mesh);
                p.b = assemble_load(p.mesh, p.pde);
                double sum = 0.0;
                for (double v : p.b) sum += v * v;
                p.b_norm = std::sqrt(sum);
                // b and x in page-locked memory (ordinary memory where it cannot be had), as the
                // command-line tool keeps them; the same arrays for every solver.
                pinned_vector<double> b(p.b.begin(), p.b.end()), x(p.b.size());
                for (const Entry* e : chosen) {
                    std::unique_ptr<Peer> peer = e->make(settings);
                    if (failed_at.count(e->name)) {
                        // It did not converge on a coarser level of this case: not tried again.
                        std::printf("| %s | %d | %lld | %s | %s | - | skipped | - | - | - | - | - | 0 | - | - |\n", p.name.c_str(), p.level,
                                    p.mesh.nodes(), e->name.c_str(), peer->backend().c_str());
                        char row[512];
                        std::snprintf(row, sizeof row,
                                      "  {\"case\": \"%s\", \"level\": %d, \"unknowns\": %lld, \"solver\": \"%s\", \"backend\": \"%s\", "
                                      "\"process\": \"%s\", \"status\": \"skipped\", \"runs\": 0, \"note\": \"did not converge at L = %d\"},\n",
                                      p.name.c_str(), p.level, p.mesh.nodes(), e->name.c_str(), peer->backend().c_str(), program_name().c_str(),
                                      failed_at[e->name]);
                        json += row;
                        write_json();
                        continue;
                    }
                    std::fprintf(stderr, "%s L=%d %s ...\n", p.name.c_str(), p.level, e->name.c_str());
                    std::vector<double> setups, solves, matrices;
                    Outcome outcome;
                    std::string error;
                    try {
                        auto once = [&] {
                            std::fill(x.begin(), x.end(), 0.0);
                            peer->release();  // the previous run's objects, not timed
                            auto t0 = clock_type::now();
                            peer->setup(p, settings);
                            setups.push_back(ms_since(t0));
                            matrices.push_back(peer->matrix_ms());
                            t0 = clock_type::now();
                            outcome = peer->solve(b.data(), x.data());
                            solves.push_back(ms_since(t0));
                        };
                        once();  // warm-up
                        // A solve that did not converge is reported from its warm-up (runs = 0).
                        // One whose warm-up took over a minute (cuDSS at L = 13) is measured by
                        // it: what is made once per process is a vanishing part of such a run,
                        // and a second one would double a device call.
                        const double warm_up_ms = setups.back() + solves.back();
                        if (outcome.status == "converged" && warm_up_ms > 60e3)
                            outcome.note += std::string(outcome.note.empty() ? "" : ", ") + "measured by its warm-up (over 60 s)";
                        if (outcome.status == "converged" && warm_up_ms <= 60e3) {
                            const bool slow = warm_up_ms > budget * 1e3;
                            setups.clear(), solves.clear(), matrices.clear();
                            for (int r = 0; r < (slow ? 1 : std::max(1, repeats)); ++r) once();
                        }
                    } catch (const std::exception& ex) {
                        error = ex.what();
                        outcome = Outcome{};
                        outcome.status = "failed";
                        outcome.note = error;
                        std::fprintf(stderr, "  %s: %s\n", e->name.c_str(), error.c_str());
                    }
                    const std::vector<double> xs(x.begin(), x.end());
                    const bool have_x = error.empty();
                    const double defect = have_x ? relative_defect(p, xs) : std::nan("");
                    const double l2 = have_x ? relative_l2_error(p.mesh, p.pde, xs) : std::nan("");
                    if (!std::isfinite(defect) && outcome.status == "converged") outcome.status = "non_finite";
                    // Time to solution: setup (the matrix object included) and solve, what a user with
                    // the matrix in host arrays waits for.
                    const double setup_ms = median(setups), solve_ms = median(solves), total_ms = setup_ms + solve_ms;
                    const double matrix_ms = median(matrices);
                    const int runs = outcome.status == "converged" ? static_cast<int>(solves.size()) : 0;  // 0: the warm-up
                    const std::string backend = peer->backend();
                    const int threads = peer->threads();
                    std::printf("| %s | %d | %lld | %s | %s | %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %d | %.2e | %.7e |\n", p.name.c_str(),
                                p.level, p.mesh.nodes(), e->name.c_str(), backend.c_str(), threads > 0 ? std::to_string(threads).c_str() : "gpu",
                                outcome.status.c_str(), outcome.iterations.c_str(), matrix_ms, setup_ms, solve_ms, total_ms, runs, defect, l2);
                    std::fflush(stdout);
                    const double digits = defect > 0 ? -std::log10(defect) : 0.0;
                    // JSON has no NaN: a value that could not be measured is null.
                    auto num = [](double v, const char* format) {
                        if (!std::isfinite(v)) return std::string("null");
                        char cell[64];
                        std::snprintf(cell, sizeof cell, format, v);
                        return std::string(cell);
                    };
                    char head[1024];
                    std::snprintf(head, sizeof head,
                                  "  {\"case\": \"%s\", \"level\": %d, \"unknowns\": %lld, \"solver\": \"%s\", \"backend\": \"%s\", "
                                  "\"threads\": %d, \"precision\": \"%s\", \"status\": \"%s\", \"iterations\": \"%s\", \"outer\": %d, "
                                  "\"inner_cycles\": %d, \"process\": \"%s\", \"tol\": %.3g, ",
                                  p.name.c_str(), p.level, p.mesh.nodes(), e->name.c_str(), backend.c_str(), threads, peer->precision().c_str(),
                                  outcome.status.c_str(), outcome.iterations.c_str(), outcome.outer, outcome.inner_cycles, program_name().c_str(),
                                  settings.tol);
                    const std::string row = head + ("\"digits\": " + num(digits, "%.4f") + ", \"matrix_ms\": " + num(matrix_ms, "%.6f") +
                                                    ", \"setup_ms\": " + num(setup_ms, "%.6f") +
                                                    ", \"ms\": " + num(solve_ms, "%.6f") + ", \"total_ms\": " + num(total_ms, "%.6f") +
                                                    ", \"runs\": " + std::to_string(runs) + ", \"relative_defect\": " + num(defect, "%.6e") +
                                                    ", \"l2_error\": " + num(l2, "%.10e") + ", \"note\": \"" + json_escape(outcome.note) + "\"},\n");
                    json += row;
                    write_json();
                    if (!error.empty()) status = 1;
                    if (outcome.status != "converged" && !keep_going) failed_at[e->name] = p.level;
                }
            }
        }
        write_json();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "peer_bench: %s\n", e.what());
        status = 3;
    }
#if defined(ADIMG_PEER_HYPRE)
    HYPRE_Finalize();
#if !defined(HYPRE_SEQUENTIAL)
    MPI_Finalize();
#endif
#endif
    return status;
}
