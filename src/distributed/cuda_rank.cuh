#pragma once
// The rank-local operations of the distributed backend on the rank's GPU (one GPU per rank, the
// node-local rank modulo the devices; ranks may share one): the CUDA backend for what it computes
// on a whole strip, and kernels for what the distributed backend needs besides (strip_kernels.cuh:
// the grid transfers with the strip's row offset, the rank's part of the y-lines in chunks of a
// thread each, the coupling equations of the lines; the CUDA backend's own kernels for a
// Gauss–Seidel colour and the sums over the owned entries). What crosses ranks goes by NCCL from
// and into device memory on the rank's stream (nccl_transport.cuh), so that nothing in a V-cycle
// waits for the host and the cycle is recorded as a CUDA graph; where NCCL cannot start, by MPI:
// halo rows staged through pinned host memory or passed from device memory where the MPI library
// is CUDA-aware (cuda_aware_mpi.hpp), sums and the coupling equations as host values (as the CPU
// ranks do, cpu_rank.hpp). transport() says which.

#include <adimg/error.hpp>
#include <adimg/nine_bands.hpp>
#include <adimg/pinned_memory.hpp>

#include "../cuda/cuda_backend.cuh"
#include "communicator.hpp"
#include "coupling_kernels.cuh"
#include "cuda_aware_mpi.hpp"
#include "distributed_lines.hpp"
#include "nccl_transport.cuh"
#include "strip_kernels.cuh"

#include <mpi.h>

#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <utility>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace adimg {

class CudaRank {
public:
    using Local = CudaBackend;
    template <class T>
    using vector = DeviceVector<T>;
    template <class T>
    using matrix = DeviceBands<T>;
    /// A V-cycle recorded as a CUDA graph where nothing in it waits for the host (NCCL).
    using Recording = GraphRecording;

    /// Selects this rank's device (collective over the communicator) before the CUDA backend
    /// makes its stream there, then starts NCCL (collective); throws device_error if the rank
    /// sees no device.
    explicit CudaRank(Communicator& comm)
        : device_(select_device(comm.comm())),
          ranks_(comm.size()),
          cuda_aware_(mpi_cuda_aware()),
          partial_(partial_count),
          result_(1) {
        if (comm.size() <= coupling_kernels::max_ppt_ranks)  // one rank too: its cycle is then a graph
            nccl_ = NcclTransport::open(comm, &no_nccl_);
        else
            no_nccl_ = "the device solves the coupling equations of at most " +
                       std::to_string(coupling_kernels::max_ppt_ranks) + " ranks";
    }

    Local& local() { return cuda_; }
    std::string name() const { return cuda_.name() + ", device " + std::to_string(device_); }
    std::string transport() const {
        if (nccl_) return "NCCL " + std::to_string(NCCL_MAJOR) + "." + std::to_string(NCCL_MINOR) + ", device memory";
        return std::string(cuda_aware_ ? "MPI, device memory (CUDA-aware)" : "MPI, staged through pinned host memory") +
               " (no NCCL: " + no_nccl_ + ")";
    }

    /// body() recorded as a CUDA graph (the CUDA backend's recording) where the transport is
    /// NCCL; run directly where MPI makes the host wait inside it.
    template <class Body>
    void replay(Recording& recording, Body&& body) {
        if (nccl_)
            cuda_.replay(recording, std::forward<Body>(body));
        else
            body();
    }

    // --- between host arrays of doubles and part of a vector --------------------------------
    template <class T>
    void from_host(const double* host, std::size_t n, vector<T>& v, std::size_t offset) {
        double* stage = staging(n);
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(stage, host, n * sizeof(double), cudaMemcpyHostToDevice, stream()));
        launch("scale_convert kernel", kernels::scale_convert<double, T>, blocks(n), 256, 0, 1.0, stage, v.data() + offset, n);
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream()));  // the caller may free `host`
    }
    template <class T>
    void to_host(const vector<T>& v, std::size_t offset, std::size_t n, double* host) {
        double* stage = staging(n);
        launch("scale_convert kernel", kernels::scale_convert<T, double>, blocks(n), 256, 0, 1.0, v.data() + offset, stage, n);
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(host, stage, n * sizeof(double), cudaMemcpyDeviceToHost, stream()));
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream()));
    }
    /// n values of src from src_offset on into dst from dst_offset on, on the stream.
    template <class T>
    void copy_part(const vector<T>& src, std::size_t src_offset, vector<T>& dst, std::size_t dst_offset, std::size_t n) {
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(dst.data() + dst_offset, src.data() + src_offset, n * sizeof(T),
                                         cudaMemcpyDeviceToDevice, stream()));
    }
    // --- setup of a strip on the device (storage row r + 1 is grid row first_row + r) ----------
    /// An mx x (rows + 2) matrix of zeros with identity rows on its halos (rows 0 and rows + 1).
    template <class T>
    matrix<T> strip_matrix(int mx, int rows) {
        matrix<T> M{mx, rows + 2, vector<T>(9 * static_cast<std::size_t>(mx) * (rows + 2)), {}, {}};
        T* const centre = M.values.data() + static_cast<std::size_t>(C) * (M.values.size() / 9);
        for (T* halo : {centre, centre + static_cast<std::size_t>(rows + 1) * mx})
            thrust::fill(thrust::cuda::par.on(stream()), halo, halo + mx, T(1));
        return M;
    }
    /// The strip's rows of the mesh's stiffness matrix, assembled on the device.
    template <class T>
    void assemble_rows(const TensorMesh& mesh, int first_row, int rows, matrix<T>& M) {
        cuda_.assemble_rows(mesh, first_row, rows, M, 1);
    }
    /// The strip's rows of the problem's load vector, assembled on the device.
    template <class T>
    void assemble_load_rows(const TensorMesh& mesh, const PolynomialProblem& problem, int first_row, int rows,
                            vector<T>& b) {
        cuda_.assemble_load_rows(mesh, problem, first_row, rows, b.data() + mesh.mx());
    }
    /// The squared L2 error and squared norm of the elements of rows first_row .. first_row +
    /// rows - 1, u a strip whose halo above is current.
    template <class T>
    std::pair<double, double> l2_error_parts(const TensorMesh& mesh, const PolynomialProblem& problem, int first_row,
                                             int rows, const vector<T>& u) {
        const double2 parts = cuda_.l2_error_parts(mesh, problem, first_row, rows, u.data() + mesh.mx());
        return {parts.x, parts.y};
    }
    /// min over the strip's owned rows of y_line_row_dominance<T> (coupling_formulas.hpp).
    template <class T, class S>
    double y_line_dominance(const matrix<S>& A) {
        const std::size_t first = static_cast<std::size_t>(A.mx), last = static_cast<std::size_t>(A.my - 1) * A.mx;
        return thrust::transform_reduce(thrust::cuda::par.on(stream()), thrust::counting_iterator<std::size_t>(first),
                                        thrust::counting_iterator<std::size_t>(last),
                                        coupling_kernels::RowDominance<T, S>{A.view()},
                                        std::numeric_limits<double>::infinity(), thrust::minimum<double>());
    }

    /// A matrix's values on the host (setup only).
    template <class T>
    NineBands<T> host_bands(const matrix<T>& M) {
        NineBands<T> host(M.mx, M.my);
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(host.values.data(), M.values.data(), host.values.size() * sizeof(T),
                                         cudaMemcpyDeviceToHost, stream()));
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream()));
        return host;
    }
    /// *where = value, where in device memory (a PCG scalar).
    void set_scalar(double* where, double value) {
        scalar_.resize(1);
        scalar_[0] = value;
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(where, scalar_.data(), sizeof(double), cudaMemcpyHostToDevice, stream()));
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream()));
    }

    /// The halo rows of a strip of `rows` rows of mx values from the neighbouring ranks: the
    /// strip's first and last rows copied to pinned host memory, exchanged, and the neighbours'
    /// rows copied into the halos (queued on the stream, ahead of the kernels that read them); or,
    /// with a CUDA-aware MPI, exchanged from and into device memory once the stream has written them.
    template <class T>
    void exchange_rows(Communicator& comm, vector<T>& storage, int mx, int rows) {
        if (comm.below() == MPI_PROC_NULL && comm.above() == MPI_PROC_NULL) return;  // one rank
        if (nccl_) {
            nccl_->exchange_rows(storage.data(), mx, rows, stream());
            return;
        }
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream()));
        if (cuda_aware_) {
            comm.exchange_rows(storage.data(), mx, rows);
            return;
        }
        pinned_vector<T>& stage = std::get<pinned_vector<T>>(halo_stage_);
        if (stage.size() < 4 * static_cast<std::size_t>(mx)) stage.resize(4 * static_cast<std::size_t>(mx));
        T* const to_below = stage.data();
        T* const to_above = to_below + mx;
        T* const from_below = to_above + mx;
        T* const from_above = from_below + mx;
        const std::size_t row_bytes = static_cast<std::size_t>(mx) * sizeof(T);
        T* const first = storage.data() + mx;
        T* const last = storage.data() + static_cast<std::size_t>(rows) * mx;
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(to_below, first, row_bytes, cudaMemcpyDeviceToHost, stream()));
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(to_above, last, row_bytes, cudaMemcpyDeviceToHost, stream()));
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream()));
        comm.neighbour_exchange(to_below, from_above, to_above, from_below, mx);
        // The pinned rows are read by these copies before the next exchange's synchronisation
        // lets MPI write them again.
        if (comm.below() != MPI_PROC_NULL)
            ADIMG_CUDA_CHECK(cudaMemcpyAsync(storage.data(), from_below, row_bytes, cudaMemcpyHostToDevice, stream()));
        if (comm.above() != MPI_PROC_NULL)
            ADIMG_CUDA_CHECK(cudaMemcpyAsync(last + mx, from_above, row_bytes, cudaMemcpyHostToDevice, stream()));
    }

    // --- sums over the n owned entries from `offset` on, in double (the CUDA backend's
    // deterministic reductions, on the owned part of the strip) ----------------------------------
    /// x·y over the owned entries of every rank, returned to the host.
    template <class T>
    double sum_dot(Communicator& comm, const vector<T>& x, const vector<T>& y, std::size_t offset, std::size_t n) {
        if (nccl_) {
            sum_dot(comm, x, y, offset, n, result_.data());
            return read_result();
        }
        owned_dot(x, y, offset, n, result_.data());
        return comm.sum(read_result());
    }
    /// *out = x·y over every rank, out in device memory; with NCCL without waiting for the host.
    template <class T>
    void sum_dot(Communicator& comm, const vector<T>& x, const vector<T>& y, std::size_t offset, std::size_t n,
                 double* out) {
        if (!nccl_) {
            set_scalar(out, sum_dot(comm, x, y, offset, n));
            return;
        }
        owned_dot(x, y, offset, n, out);
        nccl_->sum(out, 1, stream());
    }
    /// x·y over this rank's entries alone (a level every rank holds whole), to the host.
    template <class T>
    double local_dot(const vector<T>& x, const vector<T>& y, std::size_t offset, std::size_t n) {
        owned_dot(x, y, offset, n, result_.data());
        return read_result();
    }
    template <class T>
    void owned_dot(const vector<T>& x, const vector<T>& y, std::size_t offset, std::size_t n, double* out) {
        const int count = std::min(partial_count, blocks(n));
        launch("dot_partial kernel", kernels::dot_partial<T>, count, kernels::reduce_threads, 0, x.data() + offset,
               y.data() + offset, n, partial_.data());
        launch("dot_final kernel", kernels::dot_final, 1, 1024, 0, static_cast<const double*>(partial_.data()), count, out);
    }
    template <class T>
    double owned_max_abs(const vector<T>& x, std::size_t offset, std::size_t n) {
        const int count = std::min(partial_count, blocks(n));
        launch("max_abs_partial kernel", kernels::max_abs_partial<T>, count, kernels::reduce_threads, 0, x.data() + offset,
               n, partial_.data());
        launch("max_abs_partial kernel", kernels::max_abs_partial<double>, 1, kernels::reduce_threads, 0,
               static_cast<const double*>(partial_.data()), static_cast<std::size_t>(count), result_.data());
        return read_result();
    }
    template <class T>
    double owned_scaled_squares(const vector<T>& x, std::size_t offset, std::size_t n, double scale) {
        const int count = std::min(partial_count, blocks(n));
        launch("scaled_square_partial kernel", kernels::scaled_square_partial<T>, count, kernels::reduce_threads, 0,
               x.data() + offset, n, scale, partial_.data());
        launch("dot_final kernel", kernels::dot_final, 1, 1024, 0, static_cast<const double*>(partial_.data()), count,
               result_.data());
        return read_result();
    }

    // --- stencil work on a strip (storage row r + 1 is grid row first_row + r) ---------------
    /// One Gauss–Seidel colour by the CUDA backend's kernel on the whole strip, its row parity
    /// shifted to the grid's: the halo rows of that parity get harmless values (identity rows)
    /// that the next refresh replaces.
    template <class T>
    void gauss_seidel_colour(const matrix<T>& A, const vector<T>& b, vector<T>& x, int first_row, int ci, int cj) {
        const int local_cj = (cj + first_row + 1) & 1;  // storage row r is grid row first_row + r - 1
        launch("gauss_seidel_colour kernel", kernels::gauss_seidel_colour<T>, tiles((A.mx + 1) / 2, (A.my + 1) / 2),
               dim3(kernels::tile_x, kernels::tile_y), 0, A.view(), b.data(), x.data(), ci, local_cj, 1);
    }
    template <class T>
    void restrict_rows(const vector<T>& fine, int mx_fine, int my_fine, int fine_first, const vector<T>& tx,
                       const vector<T>& ty, vector<T>& coarse, std::size_t coarse_offset, int coarse_first,
                       int coarse_rows) {
        launch("restrict_rows kernel", strip_kernels::restrict_rows<T>, tiles(mx_fine / 2 + 1, coarse_rows), block2d(), 0,
               fine.data(), mx_fine, my_fine, fine_first, tx.data(), ty.data(), coarse.data() + coarse_offset,
               coarse_first, coarse_rows);
    }
    template <class T>
    void prolong_rows(const vector<T>& coarse, int coarse_first, const vector<T>& tx, const vector<T>& ty,
                      vector<T>& fine, int mx_fine, int my_fine, int fine_first, int fine_rows) {
        launch("prolong_rows kernel", strip_kernels::prolong_rows<T>, tiles(mx_fine, fine_rows), block2d(), 0,
               coarse.data(), coarse_first, tx.data(), ty.data(), fine.data(), mx_fine, my_fine, fine_first, fine_rows);
    }

    // --- the y-lines across the ranks (distributed_lines.hpp, strip_formulas.hpp) -------------
    /// One damped half-step of the y-lines of a strip of m owned rows: each line's part cut into
    /// chunks of about rows_per_chunk rows (one thread each, making its equations as it goes) and
    /// its reduced equations (one thread per line, in shared memory) down to the part's two
    /// coupling equations; those solved across the ranks by PPT or PDD (on the device with NCCL,
    /// else on the host); then each line's reduced equations and each chunk filled in, relaxed
    /// into x_out's owned rows, and its halo rows from the neighbours' ends. x_in's halos must be
    /// current.
    template <class T>
    void y_lines(Communicator& comm, const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out,
                 T omega, bool pdd) {
        const int mx = A.mx, m = A.my - 2, chunks = chunks_of(m);
        LineParts<T>& w = parts<T>(mx, m, chunks);
        launch("y_chunk_reduce kernel", strip_kernels::y_chunk_reduce<T>, line_blocks(mx * chunks),
               strip_kernels::line_threads, 0, A.view(), b.data(), x_in.data(), w.a.data(), w.c.data(), w.v.data(),
               w.ra.data(), w.rc.data(), w.rv.data(), m, chunks);
        launch("y_line_reduce kernel", strip_kernels::y_line_reduce<T>, strip_kernels::line_groups<T>(mx),
               strip_kernels::line_threads, 0,
               w.ra.data(), w.rc.data(), w.rv.data(), mx, chunks, w.ends.data());
        if (nccl_)
            solve_couplings_on_device(comm, mx, pdd, w);
        else
            solve_couplings_on_host(comm, mx, pdd, w);
        launch("y_line_fill kernel", strip_kernels::y_line_fill<T>, strip_kernels::line_groups<T>(mx),
               strip_kernels::line_threads, 0,
               static_cast<const T*>(w.ra.data()), static_cast<const T*>(w.rc.data()), w.rv.data(), mx, chunks,
               static_cast<const T*>(w.solved.data()));
        launch("y_chunk_finish kernel", strip_kernels::y_chunk_finish<T>, line_blocks(mx * chunks),
               strip_kernels::line_threads, 0, static_cast<const T*>(w.a.data()), static_cast<const T*>(w.c.data()),
               static_cast<const T*>(w.v.data()), static_cast<const T*>(w.rv.data()),
               static_cast<const T*>(w.beside.data()), mx, m, chunks, comm.below() != MPI_PROC_NULL,
               comm.above() != MPI_PROC_NULL, x_in.data(), x_out.data(), omega);
    }

    /// Every rank's values of v into all ranks' v: rank r's are v[offsets[r] .. offsets[r + 1]),
    /// already in place on rank r (by NCCL in device memory, else through the host).
    template <class T>
    void gather_in_place(Communicator& comm, vector<T>& v, const std::vector<std::size_t>& offsets) {
        if (nccl_) {
            nccl_->all_gather_in_place(v.data(), offsets, stream());
            return;
        }
        const std::size_t first = offsets.front(), n = offsets.back() - first;
        std::vector<double> host(n);
        to_host(v, first, n, host.data());
        std::vector<std::size_t> from_zero(offsets.size());
        for (std::size_t r = 0; r < offsets.size(); ++r) from_zero[r] = offsets[r] - first;
        comm.allgather_in_place(host.data(), from_zero);
        from_host(host.data(), n, v, first);
    }

    std::size_t workspace_bytes() const {
        std::size_t bytes = stage_.size() * sizeof(double) + (partial_.size() + result_.size()) * sizeof(double) +
                            std::get<0>(host_couplings_).bytes() + std::get<1>(host_couplings_).bytes();
        for (const auto& [shape, w] : std::get<0>(parts_)) bytes += w.bytes();
        for (const auto& [shape, w] : std::get<1>(parts_)) bytes += w.bytes();
        return bytes;
    }

    // --- the fast direct solver's mode lines (cuda_strip_lines.cuh) -----------------------------
    /// The workspace of `lines` lines whose parts of m rows are cut into `chunks` chunks (as a
    /// level's y-lines keep theirs; the same lines, m and chunks at every call).
    template <class T>
    auto& line_parts(int lines, int m, int chunks) {
        return parts<T>(lines, m, chunks);
    }
    /// PPT for `lines` lines: every rank's coupling equations (w.ends) solved into w.solved, on the
    /// device through NCCL (one all-gather), else on the host by MPI.
    template <class Parts>
    void solve_ppt_couplings(Communicator& comm, int lines, Parts& w) {
        if (nccl_)
            solve_couplings_on_device(comm, lines, false, w);
        else
            solve_couplings_on_host(comm, lines, false, w);
    }

private:
    static int select_device(MPI_Comm comm) {
        MPI_Comm node;
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        int local_rank = 0;
        MPI_Comm_rank(node, &local_rank);
        MPI_Comm_free(&node);
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
            (void)cudaGetLastError();
            throw device_error("a GPU rank found no usable CUDA device; run the distributed solver with backend cpu");
        }
        ADIMG_CUDA_CHECK(cudaSetDevice(local_rank % count));
        return local_rank % count;
    }

    /// Chunks per y-line part of m rows: about rows_per_chunk rows each (two or more), at most
    /// max_chunks, so that a sweep has a thread per chunk and a short reduced system per line.
    static int chunks_of(int m) { return std::clamp(m / rows_per_chunk, 1, strip_kernels::max_chunks); }
    static constexpr int rows_per_chunk = 16;

    /// A level's y-line equations (a, c, v at r * mx + i), their reduced equations (ra, rc, rv,
    /// 2 chunks per line), the coupling equations (this rank's `ends`; every rank's in `all`, or
    /// the neighbours' in `below` and `above`) and the solved ends on the device. One set a level,
    /// kept for the solver's life: a recorded cycle reads the same buffers every time.
    template <class T>
    struct LineParts {
        DeviceVector<T> a, c, v, ra, rc, rv, ends, all, below, above, solved, beside;
        std::size_t bytes() const {
            std::size_t n = 0;
            for (const DeviceVector<T>* part : {&a, &c, &v, &ra, &rc, &rv, &ends, &all, &below, &above, &solved, &beside})
                n += part->size();
            return n * sizeof(T);
        }
    };
    /// A level's workspace, made at its first sweep and kept for the rank's life: a recorded cycle
    /// reads it, and a setup that keeps the levels' shapes keeps the cycle's recording. It is
    /// never first made inside a recording (a cycle is recorded on its second run,
    /// GraphRecording), where the allocation would break the capture: a logic error if it were.
    template <class T>
    LineParts<T>& parts(int mx, int m, int chunks) {
        auto& levels = std::get<std::map<std::pair<int, int>, LineParts<T>>>(parts_);
        if (levels.find({mx, m}) == levels.end()) {
            cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
            ADIMG_CUDA_CHECK(cudaStreamIsCapturing(stream(), &capturing));
            if (capturing != cudaStreamCaptureStatusNone)
                throw std::logic_error("CudaRank: a level's y-line workspace first needed inside a recorded cycle");
        }
        LineParts<T>& w = levels[{mx, m}];
        if (w.a.size() == 0) {
            const std::size_t lines = static_cast<std::size_t>(mx), ends = y_line_end_words * lines;
            for (DeviceVector<T>* part : {&w.a, &w.c, &w.v}) *part = DeviceVector<T>(static_cast<std::size_t>(m) * lines);
            for (DeviceVector<T>* part : {&w.ra, &w.rc, &w.rv}) *part = DeviceVector<T>(2 * static_cast<std::size_t>(chunks) * lines);
            for (DeviceVector<T>* part : {&w.ends, &w.below, &w.above}) *part = DeviceVector<T>(ends);
            w.all = DeviceVector<T>(ends * ranks_);
            w.solved = DeviceVector<T>(2 * lines);
            w.beside = DeviceVector<T>(2 * lines);
        }
        return w;
    }
    /// PPT: one all-gather of every rank's coupling equations and a thread a line solving them;
    /// PDD: the neighbours' coupling equations and a thread a line solving its 2 x 2 systems.
    template <class T>
    void solve_couplings_on_device(Communicator& comm, int mx, bool pdd, LineParts<T>& w) {
        const std::size_t words = static_cast<std::size_t>(y_line_end_words) * mx;
        if (!pdd) {
            nccl_->all_gather(w.ends.data(), w.all.data(), words, stream());
            launch("ppt_couplings kernel", coupling_kernels::ppt_couplings<T>, line_blocks(mx),
                   strip_kernels::line_threads, 0, static_cast<const T*>(w.all.data()), mx, comm.size(), comm.rank(),
                   w.solved.data(), w.beside.data());
            return;
        }
        nccl_->neighbour_exchange(w.ends.data(), w.above.data(), w.ends.data(), w.below.data(), words, stream());
        const T* below = comm.below() != MPI_PROC_NULL ? w.below.data() : nullptr;
        const T* above = comm.above() != MPI_PROC_NULL ? w.above.data() : nullptr;
        launch("pdd_couplings kernel", coupling_kernels::pdd_couplings<T>, line_blocks(mx), strip_kernels::line_threads,
               0, static_cast<const T*>(w.ends.data()), below, above, mx, w.solved.data(), w.beside.data());
    }
    /// The coupling equations to the host, solved there with MPI (distributed_lines.hpp), and the
    /// solved ends (this rank's and the neighbours' beside them) back.
    template <class T>
    void solve_couplings_on_host(Communicator& comm, int mx, bool pdd, LineParts<T>& w) {
        CouplingWork<T>& host = std::get<CouplingWork<T>>(host_couplings_);
        host.ends.resize(w.ends.size());
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(host.ends.data(), w.ends.data(), w.ends.size() * sizeof(T), cudaMemcpyDeviceToHost, stream()));
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream()));
        solve_couplings(comm, mx, pdd, host);
        // From pageable memory: staged before the call returns.
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(w.solved.data(), host.solved.data(), w.solved.size() * sizeof(T),
                                         cudaMemcpyHostToDevice, stream()));
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(w.beside.data(), host.beside.data(), w.beside.size() * sizeof(T),
                                         cudaMemcpyHostToDevice, stream()));
    }
    /// A device buffer of at least n doubles for the conversions of from_host and to_host.
    double* staging(std::size_t n) {
        if (stage_.size() < n) stage_ = DeviceVector<double>(n);
        return stage_.data();
    }
    double read_result() {
        scalar_.resize(1);
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(scalar_.data(), result_.data(), sizeof(double), cudaMemcpyDeviceToHost, stream()));
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream()));
        return scalar_[0];
    }

    cudaStream_t stream() const { return cuda_.stream(); }
    template <class Kernel, class... Args>
    void launch(const char* what, Kernel kernel, dim3 grid, dim3 block, std::size_t shared, Args... args) {
        cuda_.launcher()(what, kernel, grid, block, shared, args...);
    }
    static dim3 block2d() { return dim3(strip_kernels::tile_x, strip_kernels::tile_y); }
    static dim3 tiles(int nx, int ny) {
        return dim3((nx + strip_kernels::tile_x - 1) / strip_kernels::tile_x,
                    (ny + strip_kernels::tile_y - 1) / strip_kernels::tile_y);
    }
    static dim3 line_blocks(int lines) { return dim3((lines + strip_kernels::line_threads - 1) / strip_kernels::line_threads); }
    static int blocks(std::size_t n) { return kernels::stride_blocks(n); }

    static constexpr int partial_count = 1024;
    const int device_;
    const int ranks_;
    const bool cuda_aware_;
    CudaBackend cuda_;
    DeviceVector<double> partial_, result_, stage_;
    pinned_vector<double> scalar_;
    std::tuple<pinned_vector<float>, pinned_vector<double>> halo_stage_;
    std::tuple<std::map<std::pair<int, int>, LineParts<float>>, std::map<std::pair<int, int>, LineParts<double>>> parts_;
    std::tuple<CouplingWork<float>, CouplingWork<double>> host_couplings_;  ///< MPI's coupling solve
    std::unique_ptr<NcclTransport> nccl_;
    std::string no_nccl_;  ///< why NCCL did not start, where it did not
};

}  // namespace adimg
