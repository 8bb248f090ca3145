#pragma once
// A distributed backend over MPI_COMM_WORLD on the strips of given grids, on CPU ranks or (with
// Rank = CudaRank) GPU ranks, and the moves between a whole vector (the same on every rank) and
// this rank's strip of it.

#include "distributed/distributed_backend.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <utility>
#include <vector>

namespace adimg::test {

template <class Rank>
struct StripFixture {
    using Backend = DistributedBackend<Rank>;
    template <class T>
    using vector = typename Backend::template vector<T>;

    std::shared_ptr<DistributedContext> context;
    Backend be;

    explicit StripFixture(const std::vector<std::pair<int, int>>& grids, DistributedLines lines = DistributedLines::ppt)
        : context(std::make_shared<DistributedContext>(MPI_COMM_WORLD, lines)), be(context) {
        context->layout = StripLayout(grids, context->comm.size(), 0);  // every level distributed
    }

    /// This rank's strip of a whole vector of a level (the level with as many nodes).
    template <class T, class Whole>
    vector<T> strip(const Whole& whole) {
        int l = 0;
        while (context->layout.level(l).nodes() != whole.size()) ++l;
        const StripLevel& level = context->layout.level(l);
        vector<T> v = be.template make_vector<T>(level.mx, level.my);
        be.upload(whole.data() + static_cast<std::size_t>(v.first_row) * v.mx, v.size(), v);
        return v;
    }
    /// The whole vector, gathered from every rank's strip.
    template <class T>
    std::vector<double> whole(const vector<T>& v) {
        return be.gather(v);
    }
    /// The line solve chosen for level l in precision T.
    template <class T>
    LineSolveInfo lines_of(int l) const {
        for (const LineSolveInfo& info : context->line_solves)
            if (info.level == l && info.single == std::is_same_v<T, float>) return info;
        return {};
    }
};

/// n values in [-1, 1], the same on every rank.
inline std::vector<double> random_values(std::size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> v(n);
    for (double& x : v) x = dist(gen);
    return v;
}

/// max |a - b| / max |b|, for vectors of doubles with any allocator.
template <class A, class B>
double relative_difference(const A& a, const B& b) {
    double diff = 0.0, scale = 0.0;
    for (std::size_t p = 0; p < b.size(); ++p) {
        diff = std::max(diff, std::abs(a[p] - b[p]));
        scale = std::max(scale, std::abs(b[p]));
    }
    return scale > 0.0 ? diff / scale : diff;
}

}  // namespace adimg::test
