#pragma once
// The distances of every node of a 1D mesh from both ends (q1_element.hpp's EndDistances), summed
// from the widths on the host, for the host assembly and to be copied to the device.

#include <adimg/problems.hpp>

#include "q1_element.hpp"

#include <vector>

namespace adimg {

struct NodeDistances {
    std::vector<double> from_low, from_high;
    explicit NodeDistances(const Mesh1D& mesh) : from_low(mesh.nodes(), 0.0), from_high(mesh.nodes(), 0.0) {
        const int n = mesh.nodes();
        for (int i = 1; i < n; ++i) from_low[i] = from_low[i - 1] + mesh.widths[i - 1];
        for (int i = n - 2; i >= 0; --i) from_high[i] = from_high[i + 1] + mesh.widths[i];
    }
    EndDistances view() const { return {from_low.data(), from_high.data()}; }
};

}  // namespace adimg
