#pragma once
// The sine transform (DST-I, FFTW's RODFT00) of the fast direct solver on the device, by cuFFT.
//
// DST-I by a real FFT: the odd extension y = (0, x_1 .. x_{n-1}, 0, -x_{n-1} .. -x_1) of length
// 2n has Y_k = -2i sum_j x_j sin(pi j k / n), so -Im Y_k is RODFT00 (2 sum_j x_j sin), and the
// plan's line coefficients (the scale 1 / 2n folded in) apply to either library.
//
// Values are addressed as (t, l): position t along the transformed direction, l along the lines,
// at t * t_stride + l * l_stride, one of the two strides 1. The kernels that fill the extensions
// and take the transform's result move the values through a 32 x 33 tile, so that reads and
// writes coalesce whichever stride is 1: the transposes between the grid, the FFT's rows and
// the lines of the modes cost no pass of their own.

#include "cuda_libraries.cuh"
#include "device_memory.cuh"
#include "launcher.cuh"
#include "kernels/launch.cuh"

#include <adimg/error.hpp>

#include <cstddef>
#include <string>

namespace adimg::fast_direct {

/// Where the values (t, l) of an nt x nl array lie: at t * t_stride + l * l_stride.
struct Strided {
    std::size_t t_stride, l_stride;
    __device__ std::size_t at(int t, int l) const { return t * t_stride + l * l_stride; }
    __host__ __device__ bool t_contiguous() const { return t_stride == 1; }
};

constexpr int sine_tile = 32, sine_tile_rows = 8;

/// The odd extension of each line position l (2n = 2 (nt + 1) values at extended + 2 n l) from
/// the values (t, l) of `in`. Blocks of 32 x 8 threads, a 32 x 32 tile each.
static __global__ void sine_extend(const double* __restrict__ in, Strided layout, int nt, int nl, double* __restrict__ extended) {
    kernels::follow_previous_kernel();
    __shared__ double tile[sine_tile][sine_tile + 1];  // [l][t] of the block's tile
    const int t0 = blockIdx.x * sine_tile, l0 = blockIdx.y * sine_tile;
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int r = ty; r < sine_tile; r += sine_tile_rows) {
        // Lanes along whichever direction is contiguous in `in`.
        const int t = layout.t_contiguous() ? t0 + tx : t0 + r, l = layout.t_contiguous() ? l0 + r : l0 + tx;
        if (t < nt && l < nl) (layout.t_contiguous() ? tile[r][tx] : tile[tx][r]) = in[layout.at(t, l)];
    }
    __syncthreads();
    const int n = nt + 1, t = t0 + tx;
    for (int r = ty; r < sine_tile; r += sine_tile_rows) {
        const int l = l0 + r;
        if (l >= nl) break;
        double* row = extended + static_cast<std::size_t>(l) * 2 * n;
        if (t < nt) {
            const double v = tile[r][tx];
            row[t + 1] = v;
            row[2 * n - 1 - t] = -v;
        } else if (t == nt) {  // the two zeros, by the thread one past the last value
            row[0] = 0.0;
            row[n] = 0.0;
        }
    }
}

/// out (t, l) = -Im of spectrum l's entry t + 1 (n + 1 entries per line position l).
static __global__ void sine_take(const cufftDoubleComplex* __restrict__ spectrum, int nt, int nl, double* __restrict__ out,
                          Strided layout) {
    kernels::follow_previous_kernel();
    __shared__ double tile[sine_tile][sine_tile + 1];  // [l][t]
    const int t0 = blockIdx.x * sine_tile, l0 = blockIdx.y * sine_tile;
    const int tx = threadIdx.x, ty = threadIdx.y, n = nt + 1;
    for (int r = ty; r < sine_tile; r += sine_tile_rows) {
        const int t = t0 + tx, l = l0 + r;
        if (t < nt && l < nl) tile[r][tx] = -spectrum[static_cast<std::size_t>(l) * (n + 1) + t + 1].y;
    }
    __syncthreads();
    for (int r = ty; r < sine_tile; r += sine_tile_rows) {
        const int t = layout.t_contiguous() ? t0 + tx : t0 + r, l = layout.t_contiguous() ? l0 + r : l0 + tx;
        if (t < nt && l < nl) out[layout.at(t, l)] = layout.t_contiguous() ? tile[r][tx] : tile[tx][r];
    }
}

/// RODFT00 along t of nt x nl values, from one layout into another, by one batched D2Z of
/// length 2 (nt + 1) over the nl line positions. The plan, its work area and the buffers are
/// made once; cuFFT is called through cuda_libraries::cufft().
class SineTransform {
public:
    SineTransform(int nt, int nl, cudaStream_t stream)
        : fft_(cuda_libraries::cufft()),
          nt_(nt),
          nl_(nl),
          extended_(static_cast<std::size_t>(2) * (nt + 1) * nl, Uninitialised{}),
          spectrum_(static_cast<std::size_t>(nt + 2) * nl, Uninitialised{}) {
        check(fft_.create(&plan_), "cufftCreate");
        made_ = true;
        // The work area is allocated here, as the other buffers are, rather than by cuFFT.
        check(fft_.set_auto_allocation(plan_, 0), "cufftSetAutoAllocation");
        int length = 2 * (nt + 1);
        std::size_t work_bytes = 0;
        check(fft_.make_plan_many(plan_, 1, &length, nullptr, 1, length, nullptr, 1, nt + 2, CUFFT_D2Z, nl, &work_bytes),
              "cufftMakePlanMany");
        work_ = DeviceVector<unsigned char>(work_bytes, Uninitialised{});
        check(fft_.set_work_area(plan_, work_.data()), "cufftSetWorkArea");
        check(fft_.set_stream(plan_, stream), "cufftSetStream");
    }
    ~SineTransform() {
        if (made_) fft_.destroy(plan_);
    }
    SineTransform(const SineTransform&) = delete;
    SineTransform& operator=(const SineTransform&) = delete;

    /// out = RODFT00 of in along t (in and out may not overlap).
    void operator()(Launcher& launch, const double* in, Strided in_layout, double* out, Strided out_layout) {
        const dim3 tiles((nt_ + sine_tile) / sine_tile, (nl_ + sine_tile - 1) / sine_tile), threads(sine_tile, sine_tile_rows);
        launch("sine_extend kernel", sine_extend, tiles, threads, 0, in, in_layout, nt_, nl_, extended_.data());
        check(fft_.exec_d2z(plan_, extended_.data(), spectrum_.data()), "cufftExecD2Z");
        launch("sine_take kernel", sine_take, tiles, threads, 0, spectrum_.data(), nt_, nl_, out, out_layout);
    }

private:
    static void check(cufftResult status, const char* call) {
        if (status != CUFFT_SUCCESS)
            throw device_error(std::string(call) + " failed with cuFFT status " + std::to_string(static_cast<int>(status)) +
                               (status == CUFFT_ALLOC_FAILED ? " (out of device memory: use a lower level)" : ""));
    }

    const cuda_libraries::Cufft& fft_;
    int nt_, nl_;
    DeviceVector<double> extended_;              ///< the odd extensions, 2 (nt + 1) per line position
    DeviceVector<cufftDoubleComplex> spectrum_;  ///< nt + 2 entries per line position
    DeviceVector<unsigned char> work_;           ///< cuFFT's work area
    cufftHandle plan_ = 0;
    bool made_ = false;
};

}  // namespace adimg::fast_direct
