// DeviceGridMatrix: a user's nine bands in device memory (or uploaded from host memory into the
// matrix's storage), checked there with the rules and the messages of GridMatrix (grid.cpp); only
// counts, first offending rows and a mark per edge node (the Dirichlet rows of RightHandSideMap)
// come to the host.
#include <adimg/device.hpp>
#include <adimg/error.hpp>
#include <adimg/solver.hpp>

#include "device_memory.cuh"
#include "device_pointers.cuh"
#include "kernels/matrix_checks.cuh"
#include "transfers.cuh"

#include "../solver/matrix_definiteness.hpp"
#include "../solver/matrix_messages.hpp"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

namespace adimg {

struct DeviceGridMatrix::Storage {
    DeviceVector<double> values;  ///< the checked bands
    DeviceVector<kernels::CheckResults> results{1};
    DeviceVector<kernels::DefinitenessPart> parts{kernels::max_check_blocks};
    DeviceVector<unsigned long long> eliminated_count{1};
    DeviceVector<kernels::Coupling> eliminated;  ///< grown to the largest count seen
    DeviceVector<double> edge_diagonals;  ///< mark_dirichlet_edges' marks, one per edge position
    /// The uploads of bands from host memory (page-locked staging from the process's pool), made
    /// by the first.
    std::unique_ptr<HostTransfers> transfers;

    Storage(std::size_t n, std::size_t edge_nodes)
        : values(9 * n, Uninitialised{}), edge_diagonals(edge_nodes) {}
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

DeviceGridMatrix::DeviceGridMatrix(Grid grid, const MatrixChecks& checks) : grid_(std::move(grid)), checks_(checks) {
    require_device();
    storage_ = std::make_unique<Storage>(grid_.nodes(), 2 * static_cast<std::size_t>(grid_.mx()) + 2 * grid_.my());
}

DeviceGridMatrix::DeviceGridMatrix(Grid grid, const double* values, const MatrixChecks& checks, DeviceStream stream)
    : grid_(std::move(grid)), checks_(checks) {
    require_device();
    check_device_pointer(values, "DeviceGridMatrix", "the band array");
    storage_ = std::make_unique<Storage>(grid_.nodes(), 2 * static_cast<std::size_t>(grid_.mx()) + 2 * grid_.my());
    assign(values, stream);
}

DeviceGridMatrix DeviceGridMatrix::from_host(Grid grid, const double* values, const MatrixChecks& checks,
                                             DeviceStream stream) {
    require_device();
    check_host_pointer(values, "DeviceGridMatrix::from_host", "the band array");
    DeviceGridMatrix matrix(std::move(grid), checks);
    matrix.upload(values, stream);
    return matrix;
}

DeviceGridMatrix::~DeviceGridMatrix() = default;
DeviceGridMatrix::DeviceGridMatrix(DeviceGridMatrix&&) noexcept = default;
DeviceGridMatrix& DeviceGridMatrix::operator=(DeviceGridMatrix&&) noexcept = default;

const double* DeviceGridMatrix::values() const { return storage_->values.data(); }

void DeviceGridMatrix::assign(const double* values, DeviceStream stream) {
    check_device_pointer(values, "DeviceGridMatrix::assign", "the band array");
    check(values, stream);
}

void DeviceGridMatrix::assign_from_host(const double* values, DeviceStream stream) {
    check_host_pointer(values, "DeviceGridMatrix::assign_from_host", "the band array");
    upload(values, stream);
}

void DeviceGridMatrix::upload(const double* values, DeviceStream user_stream) {
    const cudaStream_t stream = as_cuda_stream(user_stream);
    Storage& s = *storage_;
    if (!s.transfers) s.transfers = std::make_unique<HostTransfers>(stream, std::nullopt, false);
    s.transfers->use_stream(stream);
    // The host reads the bands after the work enqueued on the stream so far (which may write them).
    ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream));
    s.transfers->upload(values, s.values.size(), s.values);
    check(s.values.data(), user_stream);
}

void DeviceGridMatrix::check(const double* given, DeviceStream user_stream) {
    const cudaStream_t stream = as_cuda_stream(user_stream);
    Storage& s = *storage_;
    const int mx = grid_.mx(), my = grid_.my();
    const std::size_t n = grid_.nodes(), edge_nodes = s.edge_diagonals.size();
    const BandsView<double> A{s.values.data(), mx, my};
    BandsView<double> source{given, mx, my};
    auto entry = [&](int k, std::size_t p) { return read(s.values.data() + k * n + p, 1, stream)[0]; };
    const bool in_place = given == s.values.data();  // uploaded from the host: nothing to copy
    rhs_ = {};

    // One pass over the bands as given (kernels/matrix_checks.cuh): copied into the storage (unless
    // they are in it), every row checked, the definiteness sums over the unknowns of the natural
    // edges found first; then everything the checks found comes to the host at once.
    const int blocks = std::min(my, kernels::max_check_blocks);
    kernels::CheckResults* results = s.results.data();
    auto check_pass = [&](BandsView<double> bands, double* copy, bool row_checks) {
        kernels::check_bands<<<blocks, kernels::check_threads, 0, stream>>>(bands, copy, row_checks,
                                                                            checks_.symmetry_tolerance, results,
                                                                            s.parts.data());
        ADIMG_CUDA_CHECK_LAUNCH("check_bands kernel");
        kernels::definiteness_total<<<1, 32, 0, stream>>>(s.parts.data(), blocks, results);
        ADIMG_CUDA_CHECK_LAUNCH("definiteness_total kernel");
        return read(results, 1, stream)[0];
    };
    kernels::reset_check_results<<<1, 1, 0, stream>>>(results);
    ADIMG_CUDA_CHECK_LAUNCH("reset_check_results kernel");
    kernels::find_natural_edges<<<blocks_for(edge_nodes), 256, 0, stream>>>(source, results);
    ADIMG_CUDA_CHECK_LAUNCH("find_natural_edges kernel");
    kernels::CheckResults found = check_pass(source, in_place ? nullptr : s.values.data(), true);

    matrix_messages::Offences offences{};
    for (int c = 0; c < matrix_rules::check_count; ++c)
        offences[c] = {static_cast<long long>(found.rows[c]), static_cast<std::size_t>(found.first[c] / 9),
                       static_cast<int>(found.first[c] % 9)};
    matrix_messages::throw_first_offence(offences, mx, my, checks_.symmetry_tolerance, entry);

    // Row-only Dirichlet rows (rare): their columns eliminated (counted first, to size the list),
    // and the definiteness sums taken again without them. The elimination reads the bands as given
    // while it writes the storage: bands checked in place are copied for it first.
    if (offences[matrix_rules::row_only].rows) {
        DeviceVector<double> pristine;
        if (in_place) {
            pristine = DeviceVector<double>(9 * n, Uninitialised{});
            ADIMG_CUDA_CHECK(cudaMemcpyAsync(pristine.data(), given, 9 * n * sizeof(double), cudaMemcpyDeviceToDevice, stream));
            source = {pristine.data(), mx, my};
        }
        ADIMG_CUDA_CHECK(cudaMemsetAsync(s.eliminated_count.data(), 0, sizeof(unsigned long long), stream));
        kernels::eliminate_row_only<<<blocks_for(n), 256, 0, stream>>>(source, s.values.data(), nullptr, 0,
                                                                       s.eliminated_count.data());
        ADIMG_CUDA_CHECK_LAUNCH("eliminate_row_only kernel (count)");
        const unsigned long long count = read(s.eliminated_count.data(), 1, stream)[0];
        if (s.eliminated.size() < count) s.eliminated = DeviceVector<kernels::Coupling>(count);
        ADIMG_CUDA_CHECK(cudaMemsetAsync(s.eliminated_count.data(), 0, sizeof(unsigned long long), stream));
        kernels::eliminate_row_only<<<blocks_for(n), 256, 0, stream>>>(source, s.values.data(), s.eliminated.data(),
                                                                       count, s.eliminated_count.data());
        ADIMG_CUDA_CHECK_LAUNCH("eliminate_row_only kernel");
        std::vector<kernels::Coupling> couplings = read(s.eliminated.data(), count, stream);
        std::sort(couplings.begin(), couplings.end(),
                  [](const auto& a, const auto& b) { return std::tie(a.row, a.column) < std::tie(b.row, b.column); });
        for (const kernels::Coupling& c : couplings) rhs_.eliminated.push_back({c.row, c.column, c.value, c.diagonal});
        ADIMG_CUDA_CHECK(cudaMemsetAsync(&results->minors, 0, sizeof results->minors, stream));
        ADIMG_CUDA_CHECK(cudaMemsetAsync(&results->first_minor, 0xff, sizeof results->first_minor, stream));
        found = check_pass(A, nullptr, false);
    }
    natural_ = {found.natural[2] != 0, found.natural[3] != 0, found.natural[0] != 0, found.natural[1] != 0};

    // Positive definiteness: the sums of matrix_definiteness.hpp, judged on the host.
    DefinitenessSums sums;
    sums.minors = static_cast<long long>(found.minors);
    sums.first_p = static_cast<std::size_t>(found.first_minor / 9);
    sums.first_k = static_cast<int>(found.first_minor % 9);
    for (int k = 0; k < 9; ++k) sums.band_sums[k] = found.total.band_sums[k].value();
    sums.magnitude = found.total.magnitude.value();
    rhs_.constant_null_space = judge_positive_definite(sums, natural_, mx, my, entry);

    // Dirichlet rows on the edge, a x_p = a g_p, become identity rows; the solve scales b with them.
    // Their marks come back by edge position; walked row by row (the south edge, then the west and
    // east ends of each row between, then the north edge) they list the rows in ascending order.
    kernels::mark_dirichlet_edges<<<blocks_for(edge_nodes), 256, 0, stream>>>(A, s.values.data(), s.edge_diagonals.data());
    ADIMG_CUDA_CHECK_LAUNCH("mark_dirichlet_edges kernel");
    const std::vector<double> diagonals = read(s.edge_diagonals.data(), edge_nodes, stream);
    auto take = [&](int e) {
        if (diagonals[static_cast<std::size_t>(e)] == 0.0) return;
        const std::size_t p = kernels::edge_node(e, mx, my);
        rhs_.dirichlet_rows.push_back(p);
        if (diagonals[static_cast<std::size_t>(e)] != 1.0) rhs_.scaled_rows.emplace_back(p, diagonals[static_cast<std::size_t>(e)]);
    };
    for (int i = 0; i < mx; ++i) take(i);
    for (int j = 1; j + 1 < my; ++j) {
        take(2 * mx + j);
        take(2 * mx + my + j);
    }
    for (int i = 0; i < mx; ++i) take(mx + i);
}

}  // namespace adimg
