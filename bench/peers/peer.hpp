// What every solver in peer_bench shares (bench/peers/README.md): the system it is given, how a
// solve ended, the run's settings, the interface a peer implements, and the matrix in CSR for the
// peers that take one. peer_bench.cpp holds adimg, hypre, Eigen, CHOLMOD and cuDSS; amgx_peer.cpp
// AmgX.
#pragma once

#include <adimg/grid.hpp>
#include <adimg/problems.hpp>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace adimg_peers {

using clock_type = std::chrono::steady_clock;
inline double ms_since(clock_type::time_point t0) { return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count(); }

/// One system: a built-in case at a level, as adimg assembles it.
struct Problem {
    std::string name;
    int level = 0;
    adimg::TensorMesh mesh;
    adimg::PolynomialProblem pde;
    adimg::NineBands<double> A;
    std::vector<double> b;
    double b_norm = 0.0;
};

/// How one solve ended, in the solver's own terms.
struct Outcome {
    std::string status = "converged";  // converged, max_iterations, failed, ... (adimg's names where they apply)
    std::string iterations = "-";      // "12"; adimg: "outer:inner"; a direct solver: "-"
    int outer = 0, inner_cycles = 0;
    std::string note;  // why a solve did not converge, or what else a reader of the row should know
};

struct Settings {
    double tol = 1e-10;
    int max_iterations = 500;  // Krylov iterations, or cycles of a standalone multigrid
    std::string backend = "cpu";
};

/// A solver under test: set up on a problem, then solve b (zero initial guess) into x.
class Peer {
public:
    virtual ~Peer() = default;
    virtual void setup(const Problem& p, const Settings& s) = 0;
    virtual Outcome solve(const double* b, double* x) = 0;
    virtual std::string backend() const { return "cpu"; }
    virtual int threads() const { return 1; }
    virtual std::string precision() const { return "double"; }
    /// Frees what the last setup made. The harness calls it before it times the next setup: a
    /// user's time to solution does not include tearing down an earlier solve's objects.
    virtual void release() {}
    /// Of the last setup, the milliseconds spent on the library's matrix object: from adimg's
    /// nine-band host arrays to the matrix the library solves with (conversion, copy to the
    /// device, assembly); NaN where a peer cannot tell it apart from the rest of its setup.
    double matrix_ms() const { return matrix_ms_; }

protected:
    double matrix_ms_ = std::nan("");
};

/// Why an iterative solve stopped short, for the row's note: how far its own measure got, after
/// how many iterations, against what was asked.
inline std::string shortfall(const std::string& measure, double reached, int iterations, double tol) {
    char text[200];
    std::snprintf(text, sizeof text, "%s %.2e after %d iterations (asked < %.0e)", measure.c_str(), reached, iterations, tol);
    return text;
}

/// The nonzeros of adimg's matrix in compressed rows (zero-based), in the index type a library
/// takes: all nine bands, or with upper = true those on and above the diagonal (bands C, E, NW,
/// N, NE: the columns r + offset >= r), which is also the lower triangle by columns. The zero
/// couplings into boundary nodes are left out.
template <class Index>
struct Csr {
    std::vector<Index> row_start, column;
    std::vector<double> value;

    Csr(const adimg::NineBands<double>& A, bool upper) {
        const std::size_t n = A.rows();
        row_start.resize(n + 1);
        column.reserve((upper ? 5 : 9) * n);
        value.reserve((upper ? 5 : 9) * n);
        const int first_band = upper ? 4 : 0;
        for (std::size_t r = 0; r < n; ++r) {
            row_start[r] = static_cast<Index>(column.size());
            for (int k = first_band; k < 9; ++k) {
                const double v = A(k, r);
                if (v == 0.0) continue;
                column.push_back(static_cast<Index>(static_cast<long long>(r) + adimg::band_dx(k) +
                                                    static_cast<long long>(adimg::band_dy(k)) * A.mx));
                value.push_back(v);
            }
        }
        row_start[n] = static_cast<Index>(column.size());
    }
    std::size_t rows() const { return row_start.size() - 1; }
    std::size_t nonzeros() const { return column.size(); }
};

}  // namespace adimg_peers
