#include <adimg/error.hpp>
#include <adimg/problems.hpp>

#include <algorithm>
#include <string>

namespace adimg {

double Mesh1D::smallest_width() const { return *std::min_element(widths.begin(), widths.end()); }
double Mesh1D::largest_width() const { return *std::max_element(widths.begin(), widths.end()); }

Mesh1D refine(const Mesh1DRule& rule, int level) {
    if (rule.copies < 1)
        throw input_error("refine: the rule has " + std::to_string(rule.copies) + " copies; give at least one");
    Mesh1D mesh{{rule.length / rule.copies}};
    const double piece = rule.nu / 2.0;
    for (int l = 0; l < level; ++l) {
        std::vector<double> fine;
        fine.reserve(2 * mesh.widths.size());
        const std::size_t last = mesh.widths.size() - 1;
        for (std::size_t e = 0; e <= last; ++e) {
            const double w = mesh.widths[e];
            if (rule.layer == Layer::low && e == 0) {
                fine.insert(fine.end(), {piece * w, (1.0 - piece) * w});
            } else if (rule.layer == Layer::high && e == last) {
                fine.insert(fine.end(), {(1.0 - piece) * w, piece * w});
            } else {
                fine.insert(fine.end(), {0.5 * w, 0.5 * w});
            }
        }
        mesh.widths = std::move(fine);
    }
    // One copy's mesh, repeated, every other copy mirrored: neighbouring copies meet with
    // elements of the same width (both graded ends, or both coarse ends), so that no copy's
    // finest element lies against another's coarsest. Of several copies the first turns its
    // graded end outward (a layer at the high end is mirrored to 0), so that two copies keep
    // their layers on the domain's two ends; from three copies on, graded ends meet inside.
    const bool first_mirrored = rule.copies > 1 && rule.layer == Layer::high;
    Mesh1D copies;
    copies.widths.reserve(mesh.widths.size() * rule.copies);
    for (int c = 0; c < rule.copies; ++c) {
        if ((c % 2 == 0) != first_mirrored)
            copies.widths.insert(copies.widths.end(), mesh.widths.begin(), mesh.widths.end());
        else
            copies.widths.insert(copies.widths.end(), mesh.widths.rbegin(), mesh.widths.rend());
    }
    return copies;
}

Mesh1D refine_to(const Mesh1DRule& rule, int elements) {
    if (elements < rule.copies)
        throw input_error("refine_to: " + std::to_string(elements) + " elements; give at least " +
                          std::to_string(rule.copies) + " (the rule's copies)");
    int level = 0;
    while (static_cast<long long>(rule.copies) << level < elements) ++level;
    const Mesh1D fine = refine(rule, level);
    const std::size_t n = fine.widths.size();
    if (n == static_cast<std::size_t>(elements)) return fine;
    // Element e covers [e, e + 1) * n / elements of the fine mesh's element index: the sum of the
    // fine widths over that range, each in the proportion covered (no coordinates subtracted).
    Mesh1D out{std::vector<double>(static_cast<std::size_t>(elements))};
    const double ratio = static_cast<double>(n) / elements;
    for (int e = 0; e < elements; ++e) {
        const double from = e * ratio, to = e + 1 == elements ? static_cast<double>(n) : (e + 1) * ratio;
        double width = 0.0;
        for (std::size_t k = static_cast<std::size_t>(from); k < n && static_cast<double>(k) < to; ++k)
            width += fine.widths[k] * (std::min(to, k + 1.0) - std::max(from, static_cast<double>(k)));
        out.widths[static_cast<std::size_t>(e)] = width;
    }
    return out;
}

std::vector<double> split_positions(const Mesh1D& coarse, const Mesh1D& fine) {
    if (fine.widths.size() != 2 * coarse.widths.size())
        throw input_error("split_positions: the fine mesh has " + std::to_string(fine.elements()) +
                          " elements, but a refinement of " + std::to_string(coarse.elements()) +
                          " elements must have " + std::to_string(2 * coarse.elements()));
    return split_positions(fine);
}

std::vector<double> split_positions(const Mesh1D& fine) {
    const std::vector<double>& h = fine.widths;
    std::vector<double> t((h.size() + 1) / 2);
    for (std::size_t I = 0; I < t.size(); ++I)
        t[I] = 2 * I + 1 < h.size() ? h[2 * I] / (h[2 * I] + h[2 * I + 1]) : 1.0;
    return t;
}

Mesh1D coarsened(const Mesh1D& fine) {
    const std::vector<double>& h = fine.widths;
    Mesh1D coarse{std::vector<double>((h.size() + 1) / 2)};
    for (std::size_t I = 0; I < coarse.widths.size(); ++I)
        coarse.widths[I] = 2 * I + 1 < h.size() ? h[2 * I] + h[2 * I + 1] : h[2 * I];
    return coarse;
}

double TensorMesh::smallest_width() const { return std::min(x.smallest_width(), y.smallest_width()); }

double TensorMesh::largest_aspect_ratio() const {
    // The extreme ratios pair the widest element of one direction with the narrowest of the other.
    return std::max({x.largest_width() / y.smallest_width(), y.largest_width() / x.smallest_width(),
                     x.smallest_width() / y.largest_width(), y.smallest_width() / x.largest_width()});
}

}  // namespace adimg
