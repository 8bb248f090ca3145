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
        inverse_pivot[l * stride] = 1.0 / pivot;
        upper_factor[l * stride] = upper_before = upper / pivot;
    }
}

Plan make_plan(const TensorMesh& mesh, const FastDirectOptions& options) {
    // Pencil::from_widths checks the widths (at least two elements, finite and positive).
    Pencil px = Pencil::from_widths(mesh.x.widths), py = Pencil::from_widths(mesh.y.widths);
    const bool x_uniform = uniform_widths(mesh.x.widths, options.uniform_tolerance);
    const bool y_uniform = uniform_widths(mesh.y.widths, options.uniform_tolerance);

    Plan plan;
    plan.mx = mesh.mx();
    plan.my = mesh.my();
    plan.axis = options.axis;
    if (plan.axis == FastAxis::automatic) {
        const bool sine_allowed = options.transform != FastTransform::eigen;
        if (sine_allowed && x_uniform) plan.axis = FastAxis::x;
        else if (sine_allowed && y_uniform) plan.axis = FastAxis::y;
        else plan.axis = px.size() <= py.size() ? FastAxis::x : FastAxis::y;  // the smaller dense transform
    }
    const bool along_x = plan.axis == FastAxis::x;
    const bool t_uniform = along_x ? x_uniform : y_uniform;
    plan.transform = options.transform;
    if (plan.transform == FastTransform::automatic) plan.transform = t_uniform ? FastTransform::sine : FastTransform::eigen;
    if (plan.transform == FastTransform::sine && !t_uniform)
        throw input_error(std::string("FastDirectOptions::transform = sine needs equal element widths in ") +
                          (along_x ? "x" : "y") + " (within FastDirectOptions::uniform_tolerance = " +
                          std::to_string(options.uniform_tolerance) +
                          "), but they differ; use transform = eigen or automatic");

    Pencil& t = along_x ? px : py;
    plan.line = std::move(along_x ? py : px);
    plan.nt = t.size();
    plan.nl = plan.line.size();
    plan.alpha.resize(plan.nt);
    plan.beta.resize(plan.nt);
    if (plan.transform == FastTransform::sine) {
        // DST-I: K and M of n equal elements of width h have the eigenvectors sin(π i k / n) with
        // eigenvalues (4/h) s² and h (1 - 2 s² / 3), s = sin(πk / 2n) (1 - cos written as 2 s²:
        // no cancellation for the smooth modes). FFTW's RODFT00 is 2 S, S_ik = sin(π i k / n),
        // with S S = (n/2) I: x = (1/2n) F (κ Ml + μ Kl)^-1 F b.
        const int n = plan.nt + 1;
        double h = 0.0;
        for (double w : t.widths) h += w;
        h /= n;
        for (int k = 0; k < plan.nt; ++k) {
            const double s = std::sin(std::numbers::pi * (k + 1) / (2.0 * n));
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
