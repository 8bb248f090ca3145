// The distributed backend's operations on GPU ranks (CudaRank): the halo exchange on the device,
// and every operation against the CPU backend's on the whole grid (strip_checks.hpp, the checks
// the CPU ranks pass).

#include "strip_checks.hpp"

#include "distributed/cuda_rank.cuh"

#include <cmath>
#include <limits>

namespace {

using namespace adimg;
using namespace adimg::test;

/// A strip's storage, halos included, on the host.
template <class T>
std::vector<T> storage_on_host(const DeviceVector<T>& storage) {
    std::vector<T> host(storage.size());
    ADIMG_CUDA_CHECK(cudaMemcpy(host.data(), storage.data(), host.size() * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
}

/// Halos set to NaN, refreshed: each must hold the neighbour's row of the whole vector, and stay
/// NaN at the grid's edges (no neighbour, nothing written); the owned rows stay as they were.
template <class T>
void check_halo_exchange() {
    const int mx = 37, my = 65;  // mx not a multiple of a warp
    StripFixture<CudaRank> f({{mx, my}});
    const std::vector<double> whole = random_values(static_cast<std::size_t>(mx) * my, 6);
    auto v = f.be.template make_vector<T>(mx, my);
    f.be.fill(v, std::numeric_limits<T>::quiet_NaN());
    f.be.upload(whole.data() + static_cast<std::size_t>(v.first_row) * mx, v.size(), v);
    f.be.refresh_halos(v);
    const std::vector<T> host = storage_on_host(v.storage);
    auto expect_row = [&](int storage_row, int grid_row) {
        for (int i = 0; i < mx; ++i) {
            const T got = host[static_cast<std::size_t>(storage_row) * mx + i];
            if (grid_row < 0 || grid_row >= my)
                CHECK(std::isnan(got));
            else
                CHECK(got == T(whole[static_cast<std::size_t>(grid_row) * mx + i]));
        }
    };
    INFO("rank " << f.context->comm.rank() << ", rows " << v.first_row << " to " << v.first_row + v.rows - 1 << ", "
                 << f.be.rank().name());
    expect_row(0, v.first_row - 1);
    expect_row(v.rows + 1, v.first_row + v.rows);
    for (int r = 1; r <= v.rows; ++r) expect_row(r, v.first_row + r - 1);
}

}  // namespace

TEST_CASE("GPU ranks: halo rows exchanged on the device equal the neighbours' rows, in float and double", "[gpu][mpi]") {
    check_halo_exchange<float>();
    check_halo_exchange<double>();
}

TEST_CASE("GPU ranks: the strip operations equal the CPU backend's on the whole grid", "[gpu][mpi]") {
    check_strip_operations<CudaRank>(1e-12, 1e-12);
}

TEST_CASE("GPU ranks: the y-lines by PPT equal the serial line solve to 1e-13 in double", "[gpu][mpi]") {
    check_ppt_lines<CudaRank>();
}

TEST_CASE("GPU ranks: a y-line sweep leaves its result's halos as an exchange would, bit for bit", "[gpu][mpi]") {
    check_sweep_halos<CudaRank>();
}

TEST_CASE("GPU ranks: PDD is taken where its bound is below rounding and is exact there, elsewhere PPT", "[gpu][mpi]") {
    check_pdd_choice<CudaRank>();
}
