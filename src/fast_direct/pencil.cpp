#include "pencil.hpp"

#include <adimg/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>

namespace adimg::fast_direct {

Pencil Pencil::from_widths(std::vector<double> widths, EdgeCondition low, EdgeCondition high) {
    if (widths.size() < 2)
        throw input_error("fast direct solver: a direction needs at least 2 elements (one interior node), got " +
                          std::to_string(widths.size()));
    for (std::size_t e = 0; e < widths.size(); ++e)
        if (!(std::isfinite(widths[e]) && widths[e] > 0.0))
            throw input_error("fast direct solver: element width " + std::to_string(e) + " is " +
                              std::to_string(widths[e]) + "; widths must be finite and positive");
    Pencil p;
    const int n = static_cast<int>(widths.size());
    p.first = low == EdgeCondition::neumann ? 0 : 1;
    p.neumann_high = high == EdgeCondition::neumann;
    const int last = p.neumann_high ? n : n - 1;  // the last unknown node
    for (int i = p.first; i <= last; ++i) {
        // The elements on either side of node i, where there are.
        const double left = i > 0 ? widths[i - 1] : 0.0, right = i < n ? widths[i] : 0.0;
        p.k_diag.push_back((i > 0 ? 1.0 / left : 0.0) + (i < n ? 1.0 / right : 0.0));
        p.m_diag.push_back((left + right) / 3.0);
        if (i < last) {
            p.k_off.push_back(-1.0 / right);
            p.m_off.push_back(right / 6.0);
        }
    }
    p.widths = std::move(widths);
    return p;
}

double Pencil::energy(const double* v) const {
    const int n = static_cast<int>(widths.size());
    double sum = 0.0;
    for (int e = 0; e < n; ++e) {
        const double difference = at(v, e + 1) - at(v, e);
        sum += difference * difference / widths[e];
    }
    return sum;
}

double Pencil::mass(const double* v, const double* w) const {
    const int n = static_cast<int>(widths.size());
    double sum = 0.0;
    for (int e = 0; e < n; ++e) {
        const double v0 = at(v, e), v1 = at(v, e + 1), w0 = at(w, e), w1 = at(w, e + 1);
        sum += widths[e] / 6.0 * (2.0 * v0 * w0 + v0 * w1 + v1 * w0 + 2.0 * v1 * w1);
    }
    return sum;
}

namespace {

/// Sturm counts of K - sigma M for Lanes shifts at once (independent recurrences side by side, so
/// that the divisions of the lanes overlap: 4x the counts per second of one lane, measured with 8
/// lanes; inlined into the parallel loop, the lane loop was not vectorised). A zero pivot is taken
/// as a tiny negative one.
template <int Lanes>
[[gnu::noinline]] void count_below_lanes(const Pencil& p, const double* sigma, int* count) {
    const int n = p.size();
    constexpr double tiny = std::numeric_limits<double>::min();
    double d[Lanes], c[Lanes];  // counts in doubles: the lane loop then vectorises
    for (int s = 0; s < Lanes; ++s) {
        const double first = p.k_diag[0] - sigma[s] * p.m_diag[0];
        d[s] = first == 0.0 ? -tiny : first;
        c[s] = d[s] < 0.0 ? 1.0 : 0.0;
    }
    for (int r = 1; r < n; ++r) {
        const double kd = p.k_diag[r], md = p.m_diag[r], ko = p.k_off[r - 1], mo = p.m_off[r - 1];
#pragma omp simd
        for (int s = 0; s < Lanes; ++s) {
            const double off = ko - sigma[s] * mo;
            const double next = (kd - sigma[s] * md) - off * off / d[s];
            d[s] = next == 0.0 ? -tiny : next;
            c[s] += d[s] < 0.0 ? 1.0 : 0.0;
        }
    }
    for (int s = 0; s < Lanes; ++s) count[s] = static_cast<int>(c[s]);
}

/// Partial-pivoting LU of the tridiagonal K - sigma M (LAPACK's dgttrf), solved for one
/// right-hand side at a time. A pivot below the rounding level of its row is replaced by that
/// level, which keeps inverse iteration finite at an exact eigenvalue. One per thread, factored
/// again for each shift (its arrays are reused: the allocations cost as much as the arithmetic).
class ShiftedLu {
public:
    explicit ShiftedLu(int n) : n_(n), d_(n), u_(n), u2_(n), l_(n), sub_(n), scale_(n), swap_(n) {}

    void factor(const Pencil& p, double sigma) {
        for (int r = 0; r < n_; ++r) {
            d_[r] = p.k_diag[r] - sigma * p.m_diag[r];
            scale_[r] = std::abs(p.k_diag[r]) + std::abs(sigma * p.m_diag[r]);
            swap_[r] = 0;
            if (r + 1 < n_) {
                u_[r] = p.k_off[r] - sigma * p.m_off[r];
                sub_[r + 1] = u_[r];
            }
        }
        const double eps = std::numeric_limits<double>::epsilon();
        for (int r = 0; r + 1 < n_; ++r) {
            if (std::abs(d_[r]) >= std::abs(sub_[r + 1])) {
                if (std::abs(d_[r]) < eps * scale_[r]) d_[r] = std::copysign(eps * scale_[r], d_[r] == 0.0 ? 1.0 : d_[r]);
                const double m = sub_[r + 1] / d_[r];
                l_[r] = m;
                d_[r + 1] -= m * u_[r];
                u2_[r] = 0.0;
            } else {
                const double m = d_[r] / sub_[r + 1];
                l_[r] = m;
                swap_[r] = 1;
                d_[r] = sub_[r + 1];
                const double next_d = d_[r + 1];
                d_[r + 1] = u_[r] - m * next_d;
                u_[r] = next_d;
                if (r + 2 < n_) {
                    u2_[r] = u_[r + 1];
                    u_[r + 1] = -m * u2_[r];
                } else {
                    u2_[r] = 0.0;
                }
            }
        }
        const int last = n_ - 1;
        if (std::abs(d_[last]) < eps * scale_[last])
            d_[last] = std::copysign(eps * scale_[last], d_[last] == 0.0 ? 1.0 : d_[last]);
        for (int r = 0; r < n_; ++r) d_[r] = 1.0 / d_[r];  // the back substitution multiplies
    }

    /// x = (K - sigma M)^-1 x
    void solve(double* x) const {
        for (int r = 0; r + 1 < n_; ++r) {
            if (swap_[r]) {
                const double t = x[r];
                x[r] = x[r + 1];
                x[r + 1] = t - l_[r] * x[r];
            } else {
                x[r + 1] -= l_[r] * x[r];
            }
        }
        for (int r = n_ - 1; r >= 0; --r) {
            double v = x[r];
            if (r + 1 < n_) v -= u_[r] * x[r + 1];
            if (r + 2 < n_) v -= u2_[r] * x[r + 2];
            x[r] = v * d_[r];
        }
    }

private:
    int n_;
    std::vector<double> d_, u_, u2_, l_, sub_, scale_;  // d_: the inverse pivots once factored
    std::vector<unsigned char> swap_;
};

/// Consecutive eigenvalues closer than this (relative) are one cluster: their vectors are
/// M-orthogonalised against each other. Farther apart, inverse iteration alone keeps them
/// M-orthogonal to about eps / gap.
constexpr double cluster_gap = 1e-5;
/// Bisection stops once the bracket is this narrow relative to the eigenvalue.
constexpr double bisection_tolerance = 1e-10;

/// A deterministic start vector with no special structure (a linear congruential sequence).
void start_vector(double* x, int n, std::uint64_t seed) {
    std::uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
    for (int r = 0; r < n; ++r) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        x[r] = 0.5 + static_cast<double>(state >> 11) * 0x1.0p-53;
    }
}

}  // namespace

int count_below(const Pencil& pencil, double sigma) {
    int c = 0;
    count_below_lanes<1>(pencil, &sigma, &c);
    return c;
}

Modes generalized_modes(const Pencil& p) {
    const int n = p.size();
    Modes modes;
    modes.values.resize(n);
    modes.vectors.assign(static_cast<std::size_t>(n) * n, 0.0);

    // Bounds: every eigenvalue lies above the continuous one (Rayleigh-Ritz), at least
    // (pi / 2 length)^2 with one end Neumann, except a singular pencil's 0; and below the largest
    // element eigenvalue, 12 / h_e^2.
    double length = 0.0, largest = 0.0;
    for (double h : p.widths) {
        length += h;
        largest = std::max(largest, 12.0 / (h * h));
    }
    const double lower = 0.125 * std::numbers::pi * std::numbers::pi / (length * length), upper = 1.01 * largest;
    // A singular pencil's first pair is known: 0 and the constant of unit mass.
    const int zero = p.singular() ? 1 : 0;
    if (zero) std::fill(modes.vectors.begin(), modes.vectors.begin() + n, 1.0 / std::sqrt(length));

    // Bisection, Lanes eigenvalues at a time: geometric steps while the bracket spans more than a
    // factor two (the spectrum spans up to 37 orders of magnitude), then arithmetic ones down to
    // bisection_tolerance. Inverse iteration needs no more (its shift is then 1e-5 of the gap to
    // the next cluster away, so each step gains five digits), and the Rayleigh quotient below
    // replaces the value.
    constexpr int Lanes = 8;
    const int batches = (n - zero + Lanes - 1) / Lanes;
#pragma omp parallel for schedule(dynamic, 1)
    for (int batch = 0; batch < batches; ++batch) {
        double lo[Lanes], hi[Lanes], mid[Lanes];
        int index[Lanes], c[Lanes];
        for (int s = 0; s < Lanes; ++s) {
            index[s] = std::min(zero + batch * Lanes + s, n - 1);
            lo[s] = lower;
            hi[s] = upper;
        }
        for (int step = 0; step < 200; ++step) {
            bool done = true;
            for (int s = 0; s < Lanes; ++s) {
                done = done && hi[s] - lo[s] <= bisection_tolerance * hi[s];
                mid[s] = hi[s] > 2.0 * lo[s] ? std::sqrt(lo[s]) * std::sqrt(hi[s]) : 0.5 * (lo[s] + hi[s]);
            }
            if (done) break;
            count_below_lanes<Lanes>(p, mid, c);
            for (int s = 0; s < Lanes; ++s) (c[s] > index[s] ? hi[s] : lo[s]) = mid[s];
        }
        for (int s = 0; s < Lanes && index[s] == zero + batch * Lanes + s; ++s)
            modes.values[index[s]] = 0.5 * (lo[s] + hi[s]);
    }

    // Clusters of eigenvalues that lie closer than cluster_gap; each is one task.
    std::vector<int> cluster_start{zero};
    for (int k = zero + 1; k < n; ++k)
        if (modes.values[k] - modes.values[k - 1] > cluster_gap * modes.values[k]) cluster_start.push_back(k);
    cluster_start.push_back(n);

    const int clusters = static_cast<int>(cluster_start.size()) - 1;
#pragma omp parallel
    {
        std::vector<double> x(n), y(n);
        ShiftedLu lu(n);
#pragma omp for schedule(dynamic, 1)
        for (int q = 0; q < clusters; ++q) {
            for (int k = cluster_start[q]; k < cluster_start[q + 1]; ++k) {
                lu.factor(p, modes.values[k]);
                double* v = modes.vectors.data() + static_cast<std::size_t>(k) * n;
                start_vector(x.data(), n, static_cast<std::uint64_t>(k));
                // Three steps: a fourth changed neither identity of the tests (A5 at L=8, A2 at L=9).
                for (int iteration = 0; iteration < 3; ++iteration) {
                    // y = M x, then (K - sigma M)^-1 y
                    for (int r = 0; r < n; ++r) {
                        double s = p.m_diag[r] * x[r];
                        if (r > 0) s += p.m_off[r - 1] * x[r - 1];
                        if (r + 1 < n) s += p.m_off[r] * x[r + 1];
                        y[r] = s;
                    }
                    lu.solve(y.data());
                    // M-orthogonal to the cluster's earlier vectors (twice: Gram-Schmidt loses
                    // orthogonality once when y is mostly along them).
                    for (int pass = 0; pass < 2; ++pass)
                        for (int l = cluster_start[q]; l < k; ++l) {
                            const double* w = modes.vectors.data() + static_cast<std::size_t>(l) * n;
                            const double projection = p.mass(w, y.data());
                            for (int r = 0; r < n; ++r) y[r] -= projection * w[r];
                        }
                    const double norm = std::sqrt(p.mass(y.data(), y.data()));
                    for (int r = 0; r < n; ++r) x[r] = y[r] / norm;
                }
                std::copy(x.begin(), x.end(), v);
                modes.values[k] = p.energy(v) / p.mass(v, v);
            }
        }
    }
    return modes;
}

}  // namespace adimg::fast_direct
