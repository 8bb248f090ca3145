// DeviceGridMatrix: a user's nine bands in device memory, checked there with the rules and the
// messages of GridMatrix (grid.cpp); only counts, first offending rows and the edge rows' lists
// (RightHandSideMap) come to the host.
#include <adimg/device.hpp>
#include <adimg/error.hpp>
#include <adimg/solver.hpp>

#include "device_memory.cuh"
#include "device_pointers.cuh"
#include "kernels/matrix_checks.cuh"

#include "../solver/matrix_definiteness.hpp"
#include "../solver/matrix_messages.hpp"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

namespace adimg {

struct DeviceGridMatrix::Storage {
    DeviceVector<double> values;            ///< the checked bands
    DeviceVector<unsigned char> dirichlet;  ///< per row: only its diagonal (before elimination)
    DeviceVector<kernels::RowCheckResults> row_results{1};
    /// eliminated couplings, Dirichlet edge rows, scaled edge rows, failing minors, first minor
    DeviceVector<unsigned long long> counters{5};
    DeviceVector<unsigned int> natural{4};
    DeviceVector<kernels::Coupling> eliminated;  ///< grown to the largest count seen
    DeviceVector<unsigned long long> edge_rows;
    DeviceVector<kernels::Coupling> scaled_rows;
    DeviceVector<kernels::DefinitenessPart> parts{max_definiteness_blocks}, total{1};

    static constexpr int max_definiteness_blocks = 1024;

    Storage(std::size_t n, std::size_t edge_nodes)
        : values(9 * n, Uninitialised{}), dirichlet(n, Uninitialised{}), edge_rows(edge_nodes), scaled_rows(edge_nodes) {}
};

namespace {

/// Blocks of 256 threads for a grid-stride loop over n items.
int blocks_for(std::size_t n) { return kernels::stride_blocks(n, 16384); }

/// A copy of device memory to the host, finished when it returns.
template <class T>
std::vector<T> read(const T* device, std::size_t count, cudaStream_t stream) {
    std::vector<T> host(count);
    if (count == 0) return host;
    ADIMG_CUDA_CHECK(cudaMemcpyAsync(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream));
    return host;
}

/// Throws device_error when no CUDA device is usable.
void require_device() {
    std::string why;
    if (!cuda_available(&why))
        throw device_error("DeviceGridMatrix: no usable GPU (" + why + "); use GridMatrix with host arrays instead");
}

}  // namespace

DeviceGridMatrix::DeviceGridMatrix(Grid grid, const double* values, const MatrixChecks& checks, DeviceStream stream)
    : grid_(std::move(grid)), checks_(checks) {
    require_device();
    check_device_pointer(values, "DeviceGridMatrix", "the band array");
    storage_ = std::make_unique<Storage>(grid_.nodes(), 2 * static_cast<std::size_t>(grid_.mx()) + 2 * grid_.my());
    assign(values, stream);
}

DeviceGridMatrix::~DeviceGridMatrix() = default;
DeviceGridMatrix::DeviceGridMatrix(DeviceGridMatrix&&) noexcept = default;
DeviceGridMatrix& DeviceGridMatrix::operator=(DeviceGridMatrix&&) noexcept = default;

const double* DeviceGridMatrix::values() const { return storage_->values.data(); }

void DeviceGridMatrix::assign(const double* values, DeviceStream stream) {
    check_device_pointer(values, "DeviceGridMatrix::assign", "the band array");
    ADIMG_CUDA_CHECK(cudaMemcpyAsync(storage_->values.data(), values, storage_->values.size() * sizeof(double),
                                     cudaMemcpyDeviceToDevice, as_cuda_stream(stream)));
    check(stream);
}

void DeviceGridMatrix::check(DeviceStream user_stream) {
    const cudaStream_t stream = as_cuda_stream(user_stream);
    Storage& s = *storage_;
    const int mx = grid_.mx(), my = grid_.my();
    const std::size_t n = grid_.nodes(), edge_nodes = s.edge_rows.size();
    const BandsView<double> A{s.values.data(), mx, my};
    const kernels::MutableBands M{s.values.data(), mx, my};
    auto entry = [&](int k, std::size_t p) { return read(s.values.data() + k * n + p, 1, stream)[0]; };
    rhs_ = {};

    // The entry checks: the first offending row of each and how many, as the host finds them.
    kernels::RowCheckResults start{};
    std::fill(std::begin(start.first), std::end(start.first), ~0ull);
    ADIMG_CUDA_CHECK(cudaMemcpyAsync(s.row_results.data(), &start, sizeof start, cudaMemcpyHostToDevice, stream));
    ADIMG_CUDA_CHECK(cudaMemsetAsync(s.counters.data(), 0, s.counters.size() * sizeof(unsigned long long), stream));
    ADIMG_CUDA_CHECK(cudaMemsetAsync(s.natural.data(), 0, s.natural.size() * sizeof(unsigned int), stream));
    kernels::check_rows<<<blocks_for(n), 256, 0, stream>>>(A, checks_.symmetry_tolerance, s.row_results.data(),
                                                          s.dirichlet.data());
    ADIMG_CUDA_CHECK_LAUNCH("check_rows kernel");
    const kernels::RowCheckResults found = read(s.row_results.data(), 1, stream)[0];
    matrix_messages::Offences offences{};
    for (int c = 0; c < matrix_rules::check_count; ++c)
        offences[c] = {static_cast<long long>(found.rows[c]), static_cast<std::size_t>(found.first[c] / 9),
                       static_cast<int>(found.first[c] % 9)};
    matrix_messages::throw_first_offence(offences, mx, my, checks_.symmetry_tolerance, entry);

    // Row-only Dirichlet rows: their columns eliminated (counted first, to size the list).
    if (offences[matrix_rules::row_only].rows) {
        kernels::eliminate_row_only<<<blocks_for(n), 256, 0, stream>>>(M, s.dirichlet.data(), nullptr, 0, s.counters.data());
        ADIMG_CUDA_CHECK_LAUNCH("eliminate_row_only kernel (count)");
        const unsigned long long count = read(s.counters.data(), 1, stream)[0];
        if (s.eliminated.size() < count) s.eliminated = DeviceVector<kernels::Coupling>(count);
        ADIMG_CUDA_CHECK(cudaMemsetAsync(s.counters.data(), 0, sizeof(unsigned long long), stream));
        kernels::eliminate_row_only<<<blocks_for(n), 256, 0, stream>>>(M, s.dirichlet.data(), s.eliminated.data(), count,
                                                                       s.counters.data());
        ADIMG_CUDA_CHECK_LAUNCH("eliminate_row_only kernel");
        std::vector<kernels::Coupling> couplings = read(s.eliminated.data(), count, stream);
        std::sort(couplings.begin(), couplings.end(),
                  [](const auto& a, const auto& b) { return std::tie(a.row, a.column) < std::tie(b.row, b.column); });
        for (const kernels::Coupling& c : couplings) rhs_.eliminated.push_back({c.row, c.column, c.value, c.diagonal});
    }

    kernels::find_natural_edges<<<blocks_for(edge_nodes), 256, 0, stream>>>(A, s.natural.data());
    ADIMG_CUDA_CHECK_LAUNCH("find_natural_edges kernel");
    const std::vector<unsigned int> natural = read(s.natural.data(), 4, stream);
    natural_ = {natural[2] != 0, natural[3] != 0, natural[0] != 0, natural[1] != 0};

    // Positive definiteness: the sums of matrix_definiteness.hpp, judged on the host.
    const Unknowns u(natural_, mx, my);
    const int rows = std::min(std::max(u.j1 - u.j0 + 1, 0), Storage::max_definiteness_blocks);
    ADIMG_CUDA_CHECK(cudaMemsetAsync(s.counters.data() + 4, 0xff, sizeof(unsigned long long), stream));
    if (rows > 0) {
        kernels::definiteness_parts<<<rows, kernels::definiteness_threads, 0, stream>>>(A, u, s.parts.data(),
                                                                                      s.counters.data() + 3,
                                                                                      s.counters.data() + 4);
        ADIMG_CUDA_CHECK_LAUNCH("definiteness_parts kernel");
    }
    kernels::definiteness_total<<<1, 10, 0, stream>>>(s.parts.data(), rows, s.total.data());
    ADIMG_CUDA_CHECK_LAUNCH("definiteness_total kernel");
    const kernels::DefinitenessPart total = read(s.total.data(), 1, stream)[0];
    const std::vector<unsigned long long> minors = read(s.counters.data() + 3, 2, stream);
    DefinitenessSums sums;
    sums.minors = static_cast<long long>(minors[0]);
    sums.first_p = static_cast<std::size_t>(minors[1] / 9);
    sums.first_k = static_cast<int>(minors[1] % 9);
    for (int k = 0; k < 9; ++k) sums.band_sums[k] = total.band_sums[k].value();
    sums.magnitude = total.magnitude;
    rhs_.constant_null_space = judge_positive_definite(sums, natural_, mx, my, entry);

    // Dirichlet rows on the edge, a x_p = a g_p, become identity rows; the solve scales b with them.
    kernels::scale_dirichlet_edges<<<blocks_for(edge_nodes), 256, 0, stream>>>(M, s.edge_rows.data(), s.counters.data() + 1,
                                                                              s.scaled_rows.data(), s.counters.data() + 2);
    ADIMG_CUDA_CHECK_LAUNCH("scale_dirichlet_edges kernel");
    const std::vector<unsigned long long> counts = read(s.counters.data() + 1, 2, stream);
    for (unsigned long long p : read(s.edge_rows.data(), counts[0], stream)) rhs_.dirichlet_rows.push_back(p);
    std::sort(rhs_.dirichlet_rows.begin(), rhs_.dirichlet_rows.end());
    for (const kernels::Coupling& c : read(s.scaled_rows.data(), counts[1], stream))
        rhs_.scaled_rows.emplace_back(c.row, c.value);
    std::sort(rhs_.scaled_rows.begin(), rhs_.scaled_rows.end());
}

}  // namespace adimg
