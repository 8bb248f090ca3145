#include "coarse_inverse.cuh"

#include "kernels/coarse_inverse.cuh"

namespace adimg {

namespace {

/// v holds at least n elements: kept where it does, else new.
template <class T>
void hold(DeviceVector<T>& v, std::size_t n) {
    if (v.size() < n) v = DeviceVector<T>(n, Uninitialised{});
}

/// count elements from the host to device memory at `to`, on `stream`.
template <class T>
void put(T* to, const T* from, std::size_t count, cudaStream_t stream) {
    if (count > 0) ADIMG_CUDA_CHECK(cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyHostToDevice, stream));
}

}  // namespace

void CoarseInverse::make(const CoarseFactor& factor, DeviceVector<double>& inverse, Launcher& launch) {
    const cudaStream_t stream = launch.stream();
    const int n = static_cast<int>(factor.rows());
    LdltArrays host;
    if (!factor.ldlt(host)) {
        host_inverse_.resize(static_cast<std::size_t>(n) * n);
        factor.inverse(host_inverse_.data());
        put(inverse.data(), host_inverse_.data(), host_inverse_.size(), stream);
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream));
        return;
    }
    // The factor's arrays, each copied from Eigen's storage (pageable: a copy returns once staged).
    const std::size_t entries = static_cast<std::size_t>(host.starts[n]);
    hold(indices_, 2 * static_cast<std::size_t>(n) + 1 + entries);
    hold(numbers_, static_cast<std::size_t>(n) + entries);
    LdltArrays device{n, indices_.data(), indices_.data() + 2 * n + 1, numbers_.data() + n, numbers_.data(),
                      indices_.data() + n + 1};
    put(indices_.data(), host.starts, static_cast<std::size_t>(n) + 1, stream);
    put(indices_.data() + n + 1, host.permutation, static_cast<std::size_t>(n), stream);
    put(indices_.data() + 2 * n + 1, host.rows, entries, stream);
    put(numbers_.data(), host.diagonal, static_cast<std::size_t>(n), stream);
    put(numbers_.data() + n, host.values, entries, stream);

    double* row_means = nullptr;
    if (factor.pinned()) {
        hold(means_, 2 * static_cast<std::size_t>(n) + 1);
        row_means = means_.data();
    }
    ADIMG_CUDA_CHECK(cudaMemsetAsync(not_finite_.data(), 0, sizeof(int), stream));
    const int blocks = (n + kernels::inverse_columns_per_block - 1) / kernels::inverse_columns_per_block;
    launch("ldlt_inverse_columns kernel", kernels::ldlt_inverse_columns, blocks, 32 * kernels::inverse_columns_per_block,
           launch.allow_shared(kernels::ldlt_inverse_columns, kernels::inverse_columns_shared_bytes(n)), device,
           inverse.data(), row_means, not_finite_.data());
    if (row_means) {
        double* column_means = row_means + n;
        double* mean = column_means + n;
        launch("pinned_means kernel", kernels::pinned_means, (n + 1 + 255) / 256, 256, 0, inverse.data(), n, row_means,
               column_means, mean);
        launch("project_pinned kernel", kernels::project_pinned, kernels::stride_blocks(static_cast<std::size_t>(n) * n),
               256, 0, inverse.data(), n, row_means, column_means, mean);
    }
    int not_finite = 0;
    ADIMG_CUDA_CHECK(cudaMemcpyAsync(&not_finite, not_finite_.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (not_finite) factor.throw_not_finite();
}

long long CoarseInverse::bytes() const {
    return static_cast<long long>(indices_.size() * sizeof(int) + (numbers_.size() + means_.size()) * sizeof(double));
}

}  // namespace adimg
