// AmgX as a peer of adimg: see amgx_peer.hpp.
#include "amgx_peer.hpp"

#include <amgx_c.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace adimg_peers {

namespace {

/// What AmgX printed last (its errors among it), for the note of a failed row; AmgX prints
/// through this callback instead of stdout, which holds the table.
std::string amgx_output;
void keep_amgx_output(const char* text, int length) {
    amgx_output.append(text, static_cast<std::size_t>(length));
    if (amgx_output.size() > 2000) amgx_output.erase(0, amgx_output.size() - 2000);
}

void amgx_check(AMGX_RC rc, const char* what) {
    if (rc == AMGX_RC_OK) return;
    char text[256] = {};
    AMGX_get_error_string(rc, text, sizeof text);
    std::string message = std::string(what) + ": AmgX error " + std::to_string(static_cast<int>(rc)) + " (" + text + ")";
    if (!amgx_output.empty()) message += "; AmgX said: " + amgx_output;
    amgx_output.clear();
    throw std::runtime_error(message);
}
#define AMGX_CALL(call) amgx_check((call), #call)

class AmgxPeer : public Peer {
public:
    explicit AmgxPeer(AmgxAmg amg) : amg_(amg) {}
    ~AmgxPeer() override {
        release();
        if (resources_) AMGX_resources_destroy(resources_);
        if (config_) AMGX_config_destroy(config_);
    }
    std::string backend() const override { return "cuda"; }
    int threads() const override { return 0; }

    void setup(const Problem& p, const Settings& s) override {
        release();
        max_iterations_ = s.max_iterations;
        tol_ = s.tol;
        n_ = static_cast<int>(p.A.rows());
        // The configuration and AmgX's resources (its handles and streams on the GPU) once per
        // peer, at the first setup (the warm-up): a user makes them once per process, as hypre's
        // HYPRE_Init, outside the times too.
        if (!resources_) {
            AMGX_CALL(AMGX_config_create(&config_, amgx_config(amg_, s).c_str()));
            AMGX_CALL(AMGX_resources_create_simple(&resources_, config_));
        }
        // The matrix object: CSR on the host from adimg's bands, then AmgX's copy on the device.
        const auto t0 = clock_type::now();
        const Csr<int> csr(p.A, false);
        AMGX_CALL(AMGX_matrix_create(&A_, resources_, AMGX_mode_dDDI));
        AMGX_CALL(AMGX_matrix_upload_all(A_, n_, static_cast<int>(csr.nonzeros()), 1, 1, csr.row_start.data(), csr.column.data(),
                                         csr.value.data(), nullptr));
        matrix_ms_ = ms_since(t0);
        AMGX_CALL(AMGX_vector_create(&b_, resources_, AMGX_mode_dDDI));
        AMGX_CALL(AMGX_vector_create(&x_, resources_, AMGX_mode_dDDI));
        AMGX_CALL(AMGX_solver_create(&solver_, resources_, AMGX_mode_dDDI, config_));
        AMGX_CALL(AMGX_solver_setup(solver_, A_));
    }

    Outcome solve(const double* b, double* x) override {
        AMGX_CALL(AMGX_vector_upload(b_, n_, 1, b));
        AMGX_CALL(AMGX_vector_set_zero(x_, n_, 1));
        AMGX_CALL(AMGX_solver_solve_with_0_initial_guess(solver_, b_, x_));
        AMGX_CALL(AMGX_vector_download(x_, x));
        AMGX_SOLVE_STATUS status = AMGX_SOLVE_FAILED;
        int its = 0;
        AMGX_CALL(AMGX_solver_get_status(solver_, &status));
        AMGX_CALL(AMGX_solver_get_iterations_number(solver_, &its));
        // AmgX's own measure: ||r_k|| / ||r_0|| (= ||b|| from x = 0), from its residual history.
        double first = 0.0, last = 0.0;
        AMGX_solver_get_iteration_residual(solver_, 0, 0, &first);
        AMGX_solver_get_iteration_residual(solver_, its, 0, &last);
        Outcome o;
        o.outer = its;
        o.iterations = std::to_string(its);
        if (status == AMGX_SOLVE_SUCCESS) return o;
        o.status = status == AMGX_SOLVE_DIVERGED ? "diverged" : status == AMGX_SOLVE_FAILED ? "failed" : its >= max_iterations_ ? "max_iterations" : "stagnated";
        o.note = "AmgX status " + std::to_string(static_cast<int>(status)) + ": " +
                 shortfall("its ||r||/||r0||", first > 0 ? last / first : std::nan(""), its, tol_);
        return o;
    }

private:
    void release() override {
        if (solver_) AMGX_solver_destroy(solver_);
        if (A_) AMGX_matrix_destroy(A_);
        if (b_) AMGX_vector_destroy(b_);
        if (x_) AMGX_vector_destroy(x_);
        solver_ = nullptr, A_ = nullptr, b_ = x_ = nullptr;
    }

    AmgxAmg amg_;
    int n_ = 0, max_iterations_ = 0;
    double tol_ = 0.0;
    AMGX_config_handle config_ = nullptr;
    AMGX_resources_handle resources_ = nullptr;
    AMGX_matrix_handle A_ = nullptr;
    AMGX_vector_handle b_ = nullptr, x_ = nullptr;
    AMGX_solver_handle solver_ = nullptr;
};

}  // namespace

std::string amgx_config(AmgxAmg amg, const Settings& s) {
    // The preconditioner as shipped (AmgX main, src/configs/), one V-cycle (max_iters 1) of:
    // - classical AMG (PCG_CLASSICAL_V_JACOBI.json): PMIS selection, AmgX's default, written out
    //   here; aggressive coarsening on the first two levels, D2 interpolation, one block-Jacobi
    //   sweep before and after;
    // - aggregation AMG (PCG_AGGREGATION_JACOBI.json): pairwise aggregates SIZE_2, three
    //   block-Jacobi sweeps after with damping 0.8, no coarse solver, deterministic aggregation;
    // - aggregation AMG under FGMRES (FGMRES_AGGREGATION.json): pairwise aggregates, three
    //   multicolour DILU sweeps after with damping 0.75, a dense LU solve on a coarsest grid of at
    //   least 32 rows; FGMRES restarted every 10 steps. Its cycle is not symmetric, which FGMRES,
    //   unlike PCG, does not need.
    // Changed from the files: the outer solver's tolerance and iteration limit are the run's (the
    // files have 1e-6 and 100); store_res_history on, for the final residual; grid and solve
    // statistics and timings off (they print, and the grid statistics cost setup time).
    const char* quiet = R"("monitor_residual": 0, "store_res_history": 0, "print_grid_stats": 0, "print_solve_stats": 0, "print_vis_data": 0)";
    std::string preconditioner;
    switch (amg) {
    case AmgxAmg::classical:
        preconditioner = R"("preconditioner": {"scope": "amg", "solver": "AMG", "algorithm": "CLASSICAL", "selector": "PMIS",
                 "aggressive_levels": 2, "interpolator": "D2", "cycle": "V", "max_iters": 1, "max_levels": 50,
                 "presweeps": 1, "postsweeps": 1,
                 "smoother": {"scope": "jacobi", "solver": "BLOCK_JACOBI", "monitor_residual": 0, "print_solve_stats": 0}, )";
        break;
    case AmgxAmg::aggregation:
        preconditioner = R"("preconditioner": {"scope": "amg", "solver": "AMG", "algorithm": "AGGREGATION", "selector": "SIZE_2",
                 "interpolator": "D2", "coarse_solver": "NOSOLVER", "cycle": "V", "max_iters": 1, "max_levels": 50,
                 "presweeps": 0, "postsweeps": 3,
                 "smoother": {"scope": "jacobi", "solver": "BLOCK_JACOBI", "relaxation_factor": 0.8, "monitor_residual": 0,
                              "print_solve_stats": 0}, )";
        break;
    case AmgxAmg::fgmres_aggregation:
        preconditioner = R"("preconditioner": {"scope": "amg", "solver": "AMG", "algorithm": "AGGREGATION", "selector": "SIZE_2",
                 "smoother": "MULTICOLOR_DILU", "relaxation_factor": 0.75, "matrix_coloring_scheme": "PARALLEL_GREEDY",
                 "max_uncolored_percentage": 0.05, "error_scaling": 0, "coarse_solver": "DENSE_LU_SOLVER",
                 "min_coarse_rows": 32, "cycle": "V", "max_iters": 1, "max_levels": 50, "presweeps": 0, "postsweeps": 3, )";
        break;
    }
    preconditioner += std::string(quiet) + "}";
    const bool fgmres = amg == AmgxAmg::fgmres_aggregation;
    char stop[320];
    // RELATIVE_INI: ||r_k||_2 / ||r_0||_2 <= tolerance, with r_0 = b from x = 0: the run's stop.
    std::snprintf(stop, sizeof stop,
                  R"("scope": "main", "solver": "%s", %s"max_iters": %d, "tolerance": %.17g, "convergence": "RELATIVE_INI", "norm": "L2",
                  "monitor_residual": 1, "store_res_history": 1, "print_solve_stats": 0, "obtain_timings": 0)",
                  fgmres ? "FGMRES" : "PCG", fgmres ? R"("gmres_n_restart": 10, "use_scalar_norm": 1, )" : "", s.max_iterations, s.tol);
    return std::string(R"({"config_version": 2, )") + (amg == AmgxAmg::aggregation ? R"("determinism_flag": 1, )" : "") +
           R"("solver": {)" + preconditioner + ", " + stop + "}}";
}

std::unique_ptr<Peer> make_amgx_peer(AmgxAmg amg) { return std::make_unique<AmgxPeer>(amg); }

AmgxLibrary::AmgxLibrary() {
    AMGX_CALL(AMGX_register_print_callback(keep_amgx_output));
    AMGX_CALL(AMGX_initialize());
    amgx_output.clear();  // the banner
}

AmgxLibrary::~AmgxLibrary() { AMGX_finalize(); }

std::string amgx_description() {
    int major = 0, minor = 0;
    char *version = nullptr, *date = nullptr, *time = nullptr;
    AMGX_get_api_version(&major, &minor);
    AMGX_get_build_info_strings(&version, &date, &time);
    return "AmgX " + std::string(version ? version : "?") + " (API " + std::to_string(major) + "." + std::to_string(minor) + ", built " +
           (date ? date : "?") + "), CUDA, without MPI";
}

}  // namespace adimg_peers
