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
    // finest element lies against another's coarsest, and the outer ends keep the case's grading.
    Mesh1D copies;
    copies.widths.reserve(mesh.widths.size() * rule.copies);
    for (int c = 0; c < rule.copies; ++c) {
        if (c % 2 == 0)
            copies.widths.insert(copies.widths.end(), mesh.widths.begin(), mesh.widths.end());
        else
            copies.widths.insert(copies.widths.end(), mesh.widths.rbegin(), mesh.widths.rend());
    }
    return copies;
}

std::vector<double> split_positions(const Mesh1D& coarse, const Mesh1D& fine) {
    if (fine.widths.size() != 2 * coarse.widths.size())
        throw input_error("split_positions: the fine mesh has " + std::to_string(fine.elements()) +
                          " elements, but a refinement of " + std::to_string(coarse.elements()) +
                          " elements must have " + std::to_string(2 * coarse.elements()));
    std::vector<double> t(coarse.widths.size());
    for (std::size_t I = 0; I < t.size(); ++I) {
        const double left = fine.widths[2 * I], right = fine.widths[2 * I + 1];
        t[I] = left / (left + right);
    }
    return t;
}

double TensorMesh::smallest_width() const { return std::min(x.smallest_width(), y.smallest_width()); }

double TensorMesh::largest_aspect_ratio() const {
    // The extreme ratios pair the widest element of one direction with the narrowest of the other.
    return std::max({x.largest_width() / y.smallest_width(), y.largest_width() / x.smallest_width(),
                     x.smallest_width() / y.largest_width(), y.smallest_width() / x.largest_width()});
}

}  // namespace adimg
