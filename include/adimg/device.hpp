#pragma once
/// \file
/// Data that stays on the GPU. A Solver on the CUDA backend solves with vectors in device memory
/// (Solver::solve_device, solve_device_batch, precondition_device) and takes a matrix whose nine
/// bands are in device memory, checked there (DeviceGridMatrix):
///
///     adimg::DeviceGridMatrix A(grid, d_bands, {}, stream);  // checked on the GPU
///     adimg::Solver solver(options);                          // backend cuda
///     solver.setup(A);
///     solver.solve_device(d_b, d_x, adimg::InitialGuess::zero, stream);
///     A.assign(d_new_bands, stream); solver.setup(A);         // new values, no allocation
///
/// Bands in host memory take the same route after one upload (DeviceGridMatrix::from_host):
///
///     auto A = adimg::DeviceGridMatrix::from_host(grid, host_bands.data());  // up, then checked
///     A.assign_from_host(new_host_bands.data()); solver.setup(A);             // no allocation
///
/// Pointers are to memory of the current CUDA device (cudaMalloc, cudaMallocManaged or a
/// framework's allocator), but for from_host's and assign_from_host's, which are host memory.
/// Every call reads its input after the work enqueued on `stream` so far and has finished when it
/// returns; nullptr is the legacy default stream. Neither b nor x
/// crosses PCIe: only scalars (norms, counts of offending rows) come to the host.

#include <adimg/grid.hpp>

#include <cstddef>
#include <memory>

struct CUstream_st;

namespace adimg {

/// A CUDA stream, as cudaStream_t; nullptr is the legacy default stream.
using DeviceStream = CUstream_st*;

/// n doubles of device memory on the current GPU (cudaMalloc), for results handed to other
/// libraries (the Python module's arrays, through DLPack); free them with free_device_doubles().
/// Throws device_error without a usable GPU or when the memory is short.
double* allocate_device_doubles(std::size_t n);
void free_device_doubles(double* p) noexcept;
/// Copies n doubles between device arrays, enqueued on `stream` (cudaMemcpyAsync): work enqueued
/// on that stream later, a solve_device() on it among them, sees the copy; `from` must stay valid
/// until the stream has run it.
void copy_device_doubles(double* to, const double* from, std::size_t n, DeviceStream stream = nullptr);

/// A nine-band matrix in device memory, checked on the device against the contract of GridMatrix
/// (grid.hpp): the same rules and the same input_error messages (sizes, finite entries, couplings
/// on the grid, positive diagonal, symmetry, natural and Dirichlet edges, positive definiteness),
/// and the same changes: Dirichlet edge rows scaled to the identity, couplings into rows that hold
/// only their diagonal removed, both applied to b on the device at every solve (rhs_map()).
///
/// It holds its own checked copy of the bands in device memory; the caller's array may change or
/// go away after the constructor or assign() returns. Throws device_error without a usable CUDA
/// device, and input_error if `values` is not device memory of the current device.
class DeviceGridMatrix {
public:
    /// From one band-major device array of 9 * mx * my doubles: band k of row p at
    /// values[k * n + p] (as GridMatrix::from_band_major).
    DeviceGridMatrix(Grid grid, const double* values, const MatrixChecks& checks = {}, DeviceStream stream = nullptr);
    ~DeviceGridMatrix();
    DeviceGridMatrix(DeviceGridMatrix&&) noexcept;
    DeviceGridMatrix& operator=(DeviceGridMatrix&&) noexcept;

    /// From the same band-major array in host memory (pageable, as a std::vector's, or
    /// page-locked): uploaded once into the matrix's device storage, then checked there as the
    /// constructor checks device bands, with the same input_error messages as GridMatrix; the
    /// caller's array may change or go away when it returns. Page-locked bands go in one DMA;
    /// pageable ones are copied on all host cores into two page-locked staging buffers, chunk by
    /// chunk, each chunk's transfer overlapping the copy of the next (the CUDA backend's host
    /// transfers, docs/performance.md "Host copies on all cores"). The way from host arrays to a
    /// solve on the GPU that moves 9 * mx * my doubles across PCIe once and checks them there,
    /// instead of checking them on the host (GridMatrix) before Solver::setup uploads them.
    /// Throws device_error without a usable CUDA device, and input_error if `values` is null or
    /// memory of a GPU (use the constructor for that).
    static DeviceGridMatrix from_host(Grid grid, const double* values, const MatrixChecks& checks = {},
                                      DeviceStream stream = nullptr);

    /// New values on the same grid (a new time step, a new coefficient): checked like the first,
    /// copied into the same device storage without allocating. On an input_error the matrix keeps
    /// no valid values: assign valid ones before the next setup.
    void assign(const double* values, DeviceStream stream = nullptr);
    /// New values from host memory, uploaded into the same device storage and checked like the
    /// first (from_host). The page-locked staging buffers (pageable bands only) are taken by the
    /// matrix's first upload from a pool the process keeps, and given back with the matrix.
    /// Allocates no device memory, unless the bands hold row-only
    /// Dirichlet rows (rows of only their diagonal that others still couple into, as scikit-fem's
    /// enforce() leaves them): their elimination reads a copy of the bands as given, made on the
    /// device for that call and freed.
    void assign_from_host(const double* values, DeviceStream stream = nullptr);

    const Grid& grid() const { return grid_; }
    /// The checked bands (band-major, device memory) as the solver sees them: Dirichlet edge rows
    /// scaled to the identity, couplings into Dirichlet rows removed.
    const double* values() const;
    NaturalEdges natural_edges() const { return natural_; }
    bool constant_null_space() const { return rhs_.constant_null_space; }
    /// How b becomes the solver's right-hand side, as GridMatrix::rhs_map().
    const RightHandSideMap& rhs_map() const { return rhs_; }

private:
    /// Allocates the storage for the grid; the values come from assign() or assign_from_host().
    DeviceGridMatrix(Grid grid, const MatrixChecks& checks);
    /// Uploads host bands into the storage and checks them there (from_host, assign_from_host).
    void upload(const double* values, DeviceStream stream);
    /// Checks the bands at `given` (device memory) while copying them into the storage; `given`
    /// may be the storage itself (bands uploaded from the host), which is then checked in place.
    void check(const double* given, DeviceStream stream);

    struct Storage;  // the device copy (src/cuda/device_grid_matrix.cu)
    Grid grid_;
    MatrixChecks checks_;
    std::unique_ptr<Storage> storage_;
    RightHandSideMap rhs_;
    NaturalEdges natural_;
};

}  // namespace adimg
