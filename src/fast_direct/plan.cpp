#include "plan.hpp"

#include <adimg/error.hpp>

#include <cmath>
#include <numbers>
#include <string>

namespace adimg::fast_direct {

bool uniform_widths(const std::vector<double>& widths, double tolerance) {
    for (double h : widths)
        if (std::abs(h - widths.front()) > tolerance * widths.front()) return false;
    return true;
}

void thomas_factors(const Plan& plan, int k, double* inverse_pivot, double* upper_factor, std::size_t stride) {
    const Pencil& p = plan.line;
    const double a = plan.alpha[k], b = plan.beta[k];
    double upper_before = 0.0;  // the previous position's upper factor
    for (int l = 0; l < plan.nl; ++l) {
        const double lower = l > 0 ? a * p.m_off[l - 1] + b * p.k_off[l - 1] : 0.0;
        const double upper = l + 1 < plan.nl ? a * p.m_off[l] + b * p.k_off[l] : 0.0;
        const double pivot = a * p.m_diag[l] + b * p.k_diag[l] - lower * upper_before;
        const bool pinned = plan.singular && k == 0 && l + 1 == plan.nl;
        inverse_pivot[l * stride] = pinned ? 0.0 : 1.0 / pivot;
        upper_factor[l * stride] = upper_before = upper / pivot;
    }
}

namespace {

const char* name(EdgeCondition edge) { return edge == EdgeCondition::neumann ? "Neumann" : "Dirichlet"; }

}  // namespace

Plan make_plan(const TensorMesh& mesh, const FastDirectEdges& edges, const FastDirectOptions& options) {
    // Pencil::from_widths checks the widths (at least two elements, finite and positive).
    Pencil px = Pencil::from_widths(mesh.x.widths, edges.x_low, edges.x_high);
    Pencil py = Pencil::from_widths(mesh.y.widths, edges.y_low, edges.y_high);
    // The trigonometric transform a direction allows: sine or cosine with equal widths and
    // alike ends, else none (automatic).
    auto trigonometric = [&](const Mesh1D& m, EdgeCondition low, EdgeCondition high) {
        if (low != high || !uniform_widths(m.widths, options.uniform_tolerance)) return FastTransform::automatic;
        return low == EdgeCondition::dirichlet ? FastTransform::sine : FastTransform::cosine;
    };
    const FastTransform x_trig = trigonometric(mesh.x, edges.x_low, edges.x_high);
    const FastTransform y_trig = trigonometric(mesh.y, edges.y_low, edges.y_high);

    Plan plan;
    plan.mx = mesh.mx();
    plan.my = mesh.my();
    plan.axis = options.axis;
    if (plan.axis == FastAxis::automatic) {
        const bool trig_allowed = options.transform != FastTransform::eigen;
        if (trig_allowed && x_trig != FastTransform::automatic) plan.axis = FastAxis::x;
        else if (trig_allowed && y_trig != FastTransform::automatic) plan.axis = FastAxis::y;
        else plan.axis = px.size() <= py.size() ? FastAxis::x : FastAxis::y;  // the smaller dense transform
    }
    const bool along_x = plan.axis == FastAxis::x;
    const FastTransform t_trig = along_x ? x_trig : y_trig;
    plan.transform = options.transform;
    if (plan.transform == FastTransform::automatic)
        plan.transform = t_trig != FastTransform::automatic ? t_trig : FastTransform::eigen;
    if ((plan.transform == FastTransform::sine || plan.transform == FastTransform::cosine) && plan.transform != t_trig) {
        const bool sine = plan.transform == FastTransform::sine;
        const EdgeCondition low = along_x ? edges.x_low : edges.y_low, high = along_x ? edges.x_high : edges.y_high;
        const bool equal = uniform_widths(along_x ? mesh.x.widths : mesh.y.widths, options.uniform_tolerance);
        throw input_error(std::string("FastDirectOptions::transform = ") + (sine ? "sine" : "cosine") +
                          " needs equal element widths in " + (along_x ? "x" : "y") +
                          " (within FastDirectOptions::uniform_tolerance = " + std::to_string(options.uniform_tolerance) +
                          ") and " + (sine ? "Dirichlet" : "Neumann") + " at both ends, but its widths " +
                          (equal ? "are equal" : "differ") + " and its ends are " + name(low) + " and " + name(high) +
                          "; use transform = eigen or automatic");
    }

    Pencil& t = along_x ? px : py;
    plan.line = std::move(along_x ? py : px);
    plan.nt = t.size();
    plan.nl = plan.line.size();
    plan.t_first = t.first;
    plan.l_first = plan.line.first;
    plan.singular = t.singular() && plan.line.singular();
    plan.neumann = !edges.all_dirichlet();
    if (plan.singular) {
        auto half_widths = [](const std::vector<double>& h) {  // (h_{i-1} + h_i) / 2 at node i
            std::vector<double> w(h.size() + 1, 0.0);
            for (std::size_t e = 0; e < h.size(); ++e) {
                w[e] += 0.5 * h[e];
                w[e + 1] += 0.5 * h[e];
            }
            return w;
        };
        const std::vector<double> wx = half_widths(mesh.x.widths), wy = half_widths(mesh.y.widths);
        plan.node_weights.resize(plan.rows());
        for (std::size_t j = 0; j < wy.size(); ++j)
            for (std::size_t i = 0; i < wx.size(); ++i) plan.node_weights[j * wx.size() + i] = wx[i] * wy[j];
    }
    plan.alpha.resize(plan.nt);
    plan.beta.resize(plan.nt);
    if (plan.transform == FastTransform::sine || plan.transform == FastTransform::cosine) {
        // DST-I: K and M of n equal elements of width h have the eigenvectors sin(π i k / n),
        // k = 1..n-1, with eigenvalues (4/h) s² and h (1 - 2 s² / 3), s = sin(πk / 2n) (1 - cos
        // written as 2 s²: no cancellation for the smooth modes). FFTW's RODFT00 is 2 S,
        // S_ik = sin(π i k / n), with S S = (n/2) I: x = (1/2n) F (κ Ml + μ Kl)^-1 F b. DCT-I:
        // cos(π i k / n), k = 0..n, with the same formulas (include/adimg/fast_direct.hpp):
        // x = (1/2n) C (κ Ml + μ Kl)^-1 C D^-1 b.
        const int n = static_cast<int>(t.widths.size()), k0 = plan.transform == FastTransform::sine ? 1 : 0;
        double h = 0.0;
        for (double w : t.widths) h += w;
        h /= n;
        for (int k = 0; k < plan.nt; ++k) {
            const double s = std::sin(std::numbers::pi * (k + k0) / (2.0 * n));
            plan.alpha[k] = 2.0 * n * (4.0 / h) * s * s;
            plan.beta[k] = 2.0 * n * h * (1.0 - 2.0 / 3.0 * s * s);
        }
    } else {
        plan.modes = generalized_modes(t);
        for (int k = 0; k < plan.nt; ++k) {
            plan.alpha[k] = plan.modes.values[k];
            plan.beta[k] = 1.0;
        }
    }
    return plan;
}

}  // namespace adimg::fast_direct
