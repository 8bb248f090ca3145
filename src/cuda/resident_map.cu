#include "resident_map.cuh"

#include "kernels/rhs_map.cuh"

#include "../solver/null_space.hpp"

#include <algorithm>

namespace adimg {

namespace {

/// `host` into `device`, which grows only when it holds fewer than `room` (at least host.size())
/// values: a values-only re-setup keeps it.
template <class T>
void upload_list(const std::vector<T>& host, DeviceVector<T>& device, cudaStream_t stream, std::size_t room = 0) {
    room = std::max(room, host.size());
    if (device.size() < room) device = DeviceVector<T>(room, Uninitialised{});
    if (!host.empty())
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream));
}

using kernels::stride_blocks;

}  // namespace

void ResidentMap::assign(const RightHandSideMap& map, std::size_t n, cudaStream_t stream) {
    map_ = map;
    n_ = n;
    std::vector<kernels::Lift> lifts;
    std::vector<unsigned int> starts;
    for (const EliminatedCoupling& e : map.eliminated) {
        if (lifts.empty() || lifts.back().row != e.row) starts.push_back(static_cast<unsigned int>(lifts.size()));
        lifts.push_back({e.row, e.column, e.value, e.diagonal});
    }
    lifted_rows_ = static_cast<unsigned int>(starts.size());
    starts.push_back(static_cast<unsigned int>(lifts.size()));
    std::vector<unsigned long long> scaled, dirichlet(map.dirichlet_rows.begin(), map.dirichlet_rows.end());
    std::vector<double> diagonals;
    for (const auto& [p, a] : map.scaled_rows) {
        scaled.push_back(p);
        diagonals.push_back(a);
    }
    upload_list(lifts, lifts_, stream);
    upload_list(starts, lift_starts_, stream);
    // New values may scale Dirichlet rows that were identity rows (scaled rows are Dirichlet
    // rows): room for all of them, and for the mapped b wherever there are any, from the first
    // setup on, so that a values-only re-setup allocates nothing.
    upload_list(scaled, scaled_rows_, stream, dirichlet.size());
    upload_list(diagonals, scaled_diagonals_, stream, dirichlet.size());
    upload_list(dirichlet, dirichlet_rows_, stream);
    if ((map.changes_b() || !dirichlet.empty()) && mapped_.size() != n) mapped_ = DeviceVector<double>(n, Uninitialised{});
    ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host lists go out of scope
}

const double* ResidentMap::apply(Launcher& launch, const double* b, double* null_component) {
    if (null_component) *null_component = 0.0;
    if (!map_.changes_b()) return b;
    ADIMG_CUDA_CHECK(cudaMemcpyAsync(mapped_.data(), b, n_ * sizeof(double), cudaMemcpyDeviceToDevice, launch.stream()));
    // The lift first, from the values as given; then the scaled rows.
    if (lifted_rows_)
        launch("lift_rows kernel", kernels::lift_rows, stride_blocks(lifted_rows_), 256, 0, lifts_.data(), lift_starts_.data(),
               lifted_rows_, mapped_.data());
    if (!map_.scaled_rows.empty())
        launch("scale_rows kernel", kernels::scale_rows, stride_blocks(map_.scaled_rows.size()), 256, 0, scaled_rows_.data(),
               scaled_diagonals_.data(), map_.scaled_rows.size(), mapped_.data());
    if (map_.constant_null_space) {
        sums(launch, mapped_.data());
        if (null_component) {
            double host[3];
            ADIMG_CUDA_CHECK(cudaMemcpyAsync(host, sums_.data(), sizeof host, cudaMemcpyDeviceToHost, launch.stream()));
            ADIMG_CUDA_CHECK(cudaStreamSynchronize(launch.stream()));
            *null_component = adimg::null_component(host[0], host[1], host[2], n_);
        }
        launch("subtract_mean kernel", kernels::subtract_mean, stride_blocks(n_), 256, 0, sums_.data() + 3, mapped_.data(), n_);
    }
    return mapped_.data();
}

void ResidentMap::set_dirichlet_values(Launcher& launch, const double* mapped_b, double* x) {
    if (!map_.dirichlet_rows.empty())
        launch("set_rows kernel", kernels::set_rows, stride_blocks(map_.dirichlet_rows.size()), 256, 0, dirichlet_rows_.data(),
               map_.dirichlet_rows.size(), mapped_b, x);
}

void ResidentMap::remove_mean(Launcher& launch, double* x) {
    if (!map_.constant_null_space) return;
    sums(launch, x);
    launch("subtract_mean kernel", kernels::subtract_mean, stride_blocks(n_), 256, 0, sums_.data() + 3, x, n_);
}

void ResidentMap::sums(Launcher& launch, const double* x) {
    launch("vector_sums kernel", kernels::vector_sums, sum_blocks, kernels::sum_threads, 0, x, n_, parts_.data());
    launch("vector_sums_total kernel", kernels::vector_sums_total, 1, 3, 0, parts_.data(), sum_blocks, n_, sums_.data(),
           sums_.data() + 3);
}

}  // namespace adimg
