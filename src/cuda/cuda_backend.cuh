#pragma once
// The CUDA backend: the operations of the backend contract (src/solver/backend.hpp) as kernels
// on one stream. Only the reductions (dot, norm2) bring a scalar back to the host, because the
// control flow of the refinement loop needs it; everything else stays on the device.

#include "coarse_inverse.cuh"
#include "device_memory.cuh"
#include "graph_replay.cuh"
#include "kernels/assembly.cuh"
#include "kernels/stencil.cuh"
#include "kernels/vectors.cuh"
#include "launcher.cuh"
#include "line_sweeps.cuh"
#include "policy.hpp"
#include "transfers.cuh"

#include "../solver/backend.hpp"
#include "../solver/coarse_factor.hpp"

#include "../problems/node_distances.hpp"

#include "../common/scaled_norm.hpp"

#include <adimg/nine_bands.hpp>
#include <adimg/problems.hpp>

#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace adimg {

class CudaBackend {
public:
    template <class T>
    using vector = DeviceVector<T>;
    template <class T>
    using matrix = DeviceBands<T>;
    using Recording = GraphRecording;

    /// Selects the current device; throws device_error if none is usable.
    explicit CudaBackend(const CudaPolicy& policy = {});
    ~CudaBackend();
    CudaBackend(const CudaBackend&) = delete;
    CudaBackend& operator=(const CudaBackend&) = delete;

    std::string name() const { return launch_.device_name(); }
    cudaStream_t stream() const { return launch_.stream(); }
    const Launcher& launcher() const { return launch_; }
    Launcher& launcher() { return launch_; }
    /// The line solvers' choices on this device (for the tests and benchmarks of each path).
    const LineSweeps& lines() const { return lines_; }

    // --- memory -------------------------------------------------------------------------------
    template <class T>
    vector<T> make_vector(int mx, int my) { return vector<T>(static_cast<std::size_t>(mx) * my); }
    /// `columns` vectors of the grid side by side, column c at c mx my: several right-hand sides,
    /// which the stencil operations, the grid transfers and direct_solve take in the same launches.
    template <class T>
    vector<T> make_vectors(int mx, int my, int columns) { return vector<T>(static_cast<std::size_t>(mx) * my * columns); }
    template <class T>
    vector<T> make_array(std::size_t n) { return vector<T>(n); }
    template <class T>
    matrix<T> make_matrix(const NineBands<double>& A) {
        matrix<T> M{A.mx, A.my, vector<T>(A.values.size()), {}, A.natural};
        update_values(A, M);
        return M;
    }
    /// New values from the host, converted on all host cores on the way (transfers.cuh).
    template <class T>
    void update_values(const NineBands<double>& A, matrix<T>& M) {
        M.natural = A.natural;
        transfers_.upload(A.values.data(), A.values.size(), M.values);
        if (M.transposed.size() == M.values.size()) lines_.transpose_bands(M);
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream()));
    }
    /// The stiffness matrix of a built-in problem's mesh, assembled on the device from its element
    /// widths: the host never holds it.
    template <class T>
    matrix<T> make_matrix(const TensorMesh& mesh) {
        matrix<T> M{mesh.mx(), mesh.my(), vector<T>(9 * static_cast<std::size_t>(mesh.nodes()), Uninitialised{}), {}};
        update_values(mesh, M);
        return M;
    }
    template <class T>
    void update_values(const TensorMesh& mesh, matrix<T>& M) {
        assemble_rows(mesh, 0, M.my, M, 0);
    }
    /// Rows first_row .. first_row + rows - 1 of the mesh's stiffness matrix into M's rows from
    /// `at` on (the whole matrix, or a rank's strip with halo rows around it).
    template <class T>
    void assemble_rows(const TensorMesh& mesh, int first_row, int rows, matrix<T>& M, int at) {
        const vector<double> hx = on_device(mesh.x.widths), hy = on_device(mesh.y.widths);
        launch_("assemble_stiffness kernel", kernels::assemble_stiffness<T>, tiles(M.mx, rows), block2d(), 0, hx.data(),
                hy.data(), mesh.mx(), mesh.my(), first_row, rows, M.values.size() / 9,
                M.values.data() + static_cast<std::size_t>(at) * M.mx);
        if (M.transposed.size() == M.values.size()) lines_.transpose_bands(M);
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream()));  // hx and hy go out of scope
    }
    /// An mx x my matrix whose values are set next (a Galerkin level).
    template <class T>
    matrix<T> make_matrix(int mx, int my) {
        return matrix<T>{mx, my, vector<T>(9 * static_cast<std::size_t>(mx) * my, Uninitialised{}), {}};
    }
    /// A level of another precision from a double matrix on the device.
    template <class T>
    matrix<T> make_matrix(const matrix<double>& A) {
        matrix<T> M = make_matrix<T>(A.mx, A.my);
        update_values(A, M);
        return M;
    }
    template <class T>
    void update_values(const matrix<double>& A, matrix<T>& M) {
        M.natural = A.natural;
        scale_convert(1.0, A.values, M.values);  // exact for double, rounded once for float
        if (M.transposed.size() == M.values.size()) lines_.transpose_bands(M);
    }
    /// New values from a user's bands in device memory (band-major doubles of M's grid).
    void update_values(const double* device_values, NaturalEdges natural, matrix<double>& M) {
        M.natural = natural;
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(M.values.data(), device_values, M.values.size() * sizeof(double),
                                         cudaMemcpyDeviceToDevice, stream()));
        if (M.transposed.size() == M.values.size()) lines_.transpose_bands(M);
    }
    /// coarse = R fine P (galerkin_row.hpp), one coarse row per thread; coarse keeps fine's
    /// natural edges.
    void galerkin_coarse(const matrix<double>& fine, const vector<double>& split_x, const vector<double>& split_y,
                         matrix<double>& coarse) {
        coarse.natural = fine.natural;
        launch_("galerkin_coarse kernel", kernels::galerkin_coarse<double>, tiles(coarse.mx, coarse.my), block2d(), 0,
                fine.values.data(), fine.mx, fine.my, split_x.data(), split_y.data(), fine.natural, coarse.values.data());
        if (coarse.transposed.size() == coarse.values.size()) lines_.transpose_bands(coarse);
    }
    void download(const matrix<double>& A, NineBands<double>& host) {
        host = NineBands<double>(A.mx, A.my);
        host.natural = A.natural;
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(host.values.data(), A.values.data(), host.values.size() * sizeof(double),
                                         cudaMemcpyDeviceToHost, stream()));
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(stream()));
    }
    /// b = the load vector of the problem on `mesh`, assembled on the device (q1_element.hpp).
    template <class T>
    void assemble_load(const TensorMesh& mesh, const PolynomialProblem& problem, vector<T>& b) {
        assemble_load_rows(mesh, problem, 0, mesh.my(), b.data());
    }
    /// Rows first_row .. first_row + rows - 1 of the load vector into b_rows.
    template <class T>
    void assemble_load_rows(const TensorMesh& mesh, const PolynomialProblem& problem, int first_row, int rows, T* b_rows) {
        const MeshOnDevice& m = mesh_on_device(mesh);
        launch_("assemble_load kernel", kernels::assemble_load<T>, tiles(mesh.mx(), rows), block2d(), 0, m.hx.data(),
                m.hy.data(), m.dx(), m.dy(), mesh.mx(), mesh.my(), first_row, rows, problem, b_rows);
    }
    /// The relative L2 error of the nodal values x against the problem's exact solution: a
    /// Thrust transform-reduce over the elements.
    template <class T>
    double relative_l2_error(const TensorMesh& mesh, const PolynomialProblem& problem, const vector<T>& x) {
        const double2 sums = l2_error_parts(mesh, problem, 0, mesh.y.elements(), x.data());
        return std::sqrt(sums.x / sums.y);
    }
    /// The squared L2 error and squared norm (x, y) of the elements of rows first_row ..
    /// first_row + rows - 1, the nodal values u_rows holding the grid's rows from first_row on.
    template <class T>
    double2 l2_error_parts(const TensorMesh& mesh, const PolynomialProblem& problem, int first_row, int rows,
                           const T* u_rows) {
        const MeshOnDevice& m = mesh_on_device(mesh);
        const kernels::ElementL2Parts<T> parts{m.hx.data(), m.hy.data(), m.dx(),   m.dy(), mesh.mx(), mesh.x.elements(),
                                               u_rows,      first_row,   problem};
        const long long elements = static_cast<long long>(mesh.x.elements()) * rows;
        return thrust::transform_reduce(thrust::cuda::par.on(stream()), thrust::counting_iterator<long long>(0),
                                        thrust::counting_iterator<long long>(elements), parts, make_double2(0.0, 0.0),
                                        kernels::AddPairs{});
    }

    template <class T>
    void upload(const double* host, std::size_t n, vector<T>& v) { transfers_.upload(host, n, v); }
    template <class T>
    void upload(const std::vector<double>& host, vector<T>& v) { upload(host.data(), host.size(), v); }
    template <class T>
    void download(const vector<T>& v, double* host) { transfers_.download(v, host); }
    template <class T>
    void download(const vector<T>& v, std::vector<double>& host) {
        host.resize(v.size());
        download(v, host.data());
    }
    /// v = the v.size() doubles at `device` (the caller's device memory), converted to T there.
    template <class T>
    void copy_in(const double* device, vector<T>& v) {
        launch_("scale_convert kernel", kernels::scale_convert<double, T>, blocks(v.size()), 256, 0, 1.0, device, v.data(),
                v.size());
    }
    /// The v.size() doubles at `device` = v.
    template <class T>
    void copy_out(const vector<T>& v, double* device) {
        launch_("scale_convert kernel", kernels::scale_convert<T, double>, blocks(v.size()), 256, 0, 1.0, v.data(), device,
                v.size());
    }
    /// Whether the last upload() or download() was one DMA from or into the caller's memory.
    bool last_transfer_direct() const { return transfers_.last_direct(); }
    /// Device bytes of a level's matrix: the bands, and their transposed copy once a y-sweep made it.
    template <class T>
    static std::size_t bytes(const matrix<T>& A) { return (A.values.size() + A.transposed.size()) * sizeof(T); }
    /// Device bytes besides the levels: the transposed sweeps' scratch and update_defect_norm's
    /// per-tile sums.
    std::size_t workspace_bytes() const { return lines_.workspace_bytes() + tile_sums_.size() * sizeof(double); }

    // --- stencil operations -------------------------------------------------------------------
    template <class T>
    void defect(const matrix<T>& A, const vector<T>& b, const vector<T>& x, vector<T>& d) {
        const int k = columns(b, A.mx, A.my);
        launch_("defect kernel", kernels::defect<T>, tiles(A.mx, A.my, k), block2d(), 0, A.view(), b.data(), x.data(), d.data(), k);
    }
    template <class T>
    void multiply(const matrix<T>& A, const vector<T>& x, vector<T>& y) {
        kernels::Products<T> one{};
        one.x[0] = x.data();
        one.y[0] = y.data();
        one.count = 1;
        multiply(A, one);
    }
    /// y[c] = A x[c] for the pairs.count (1 to kernels::max_products) pairs of vectors of A's grid
    /// in one launch, each row of A read once for all (the products of a batch's lanes).
    template <class T>
    void multiply(const matrix<T>& A, const kernels::Products<T>& pairs) {
        if (pairs.count < 1 || pairs.count > kernels::max_products)
            throw std::logic_error("multiply: " + std::to_string(pairs.count) + " pairs of vectors, not 1 to " +
                                   std::to_string(kernels::max_products));
        kernels::Products<T> more{};
        for (int c = 1; c < pairs.count; ++c) {
            more.x[more.count] = pairs.x[c];
            more.y[more.count++] = pairs.y[c];
        }
        // One product alone by the kernel compiled without the table (kernels::multiply).
        const auto kernel = pairs.count == 1 ? kernels::multiply<T, false> : kernels::multiply<T, true>;
        launch_("multiply kernel", kernel, tiles(A.mx, A.my), block2d(), 0, A.view(), pairs.x[0], pairs.y[0], more);
    }
    template <class T>
    void jacobi(const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out, T omega) {
        const int k = columns(b, A.mx, A.my);
        launch_("jacobi kernel", kernels::jacobi<T>, tiles(A.mx, A.my, k), block2d(), 0, A.view(), b.data(), x_in.data(),
                x_out.data(), omega, k);
    }
    /// `steps` Jacobi steps on x in place: passes of two steps over memory
    /// (kernels::jacobi_steps) where the bands of rows a block walks down are at least 8 rows long,
    /// so that the recomputed edge rows stay a minority; single steps on smaller grids, where two
    /// plain launches beat one fused pass (docs/performance.md, "Jacobi steps streamed down bands
    /// of rows").
    template <class T>
    void jacobi_steps(const matrix<T>& A, const vector<T>& b, vector<T>& x, vector<T>& work, T omega, int steps) {
        constexpr int Fused = kernels::max_fused_jacobi_steps;
        const int rows = jacobi_rows_per_block<T>(A);
        const int per_pass = rows >= 4 * Fused ? Fused : 1;
        in_place_passes(
            x, work, (steps + per_pass - 1) / per_pass,
            [&](int p, const vector<T>& from, vector<T>& to) {
                if (std::min(per_pass, steps - p * per_pass) == 1) return jacobi(A, b, from, to, omega);
                const int k = columns(b, A.mx, A.my);
                launch_("jacobi_steps kernel", kernels::jacobi_steps<T, Fused>,
                        dim3(jacobi_strips(A.mx) * k, (A.my + rows - 1) / rows), dim3(kernels::jacobi_stream_threads), 0,
                        A.view(), b.data(), from.data(), to.data(), omega, rows, k);
            },
            [&](const vector<T>& from, vector<T>& to) { copy(from, to); });
    }
    template <class T>
    void gauss_seidel(const matrix<T>& A, const vector<T>& b, vector<T>& x, SweepOrder order = SweepOrder::forward) {
        for (int step = 0; step < 4; ++step) {
            const int colour = colour_at(step, order), ci = colour & 1, cj = colour >> 1;
            const int k = columns(b, A.mx, A.my);
            launch_("gauss_seidel_colour kernel", kernels::gauss_seidel_colour<T>, tiles((A.mx + 1) / 2, (A.my + 1) / 2, k),
                    block2d(), 0, A.view(), b.data(), x.data(), ci, cj, k);
        }
    }
    /// Allocates now what the line sweeps of `columns` right-hand sides on A's grid would at their
    /// first call (LineSweeps::reserve), so that a lack of memory shows before a batch starts.
    template <class T>
    void reserve_sweeps(const matrix<T>& A, int columns) { lines_.reserve(A, columns); }
    template <class T>
    void line_relax(const matrix<T>& A, const vector<T>& b, const vector<T>& x_in, vector<T>& x_out, Direction direction,
                    T omega) {
        lines_.relax(A, b.data(), x_in.data(), x_out.data(), direction, omega, columns(b, A.mx, A.my));
    }

    // --- grid transfer ------------------------------------------------------------------------
    template <class T>
    void restrict_to(const vector<T>& fine, int mx_fine, int my_fine, const vector<T>& split_x, const vector<T>& split_y,
                     vector<T>& coarse, NaturalEdges natural = {}) {
        const int k = columns(fine, mx_fine, my_fine);
        launch_("restrict_to kernel", kernels::restrict_to<T>,
                tiles(x_axis(mx_fine, natural).coarse, y_axis(my_fine, natural).coarse, k), block2d(), 0,
                fine.data(), mx_fine, my_fine, split_x.data(), split_y.data(), natural, coarse.data(), k);
    }
    /// coarse = R (b - A x): on large grids in one fused pass (kernels::restrict_defect), else as
    /// a defect and a restriction, with `d` as scratch. A fused block computes four times the
    /// defects of an unfused one, which only the largest grids have the blocks to hide
    /// (docs/performance.md, "Defect and restriction fused on large grids").
    template <class T>
    void restrict_defect(const matrix<T>& A, const vector<T>& b, const vector<T>& x, vector<T>& d, const vector<T>& split_x,
                         const vector<T>& split_y, vector<T>& coarse) {
        const std::size_t fused_from = sizeof(T) == 4 ? std::size_t(2049) * 2049 : std::size_t(4097) * 4097;
        if (!fused_restriction_.value_or(static_cast<std::size_t>(A.mx) * A.my >= fused_from)) {
            defect(A, b, x, d);
            restrict_to(d, A.mx, A.my, split_x, split_y, coarse, A.natural);
            return;
        }
        const int k = columns(b, A.mx, A.my);
        launch_("restrict_defect kernel", kernels::restrict_defect<T>,
                tiles(x_axis(A.mx, A.natural).coarse, y_axis(A.my, A.natural).coarse, k), block2d(), 0,
                A.view(), b.data(), x.data(), split_x.data(), split_y.data(), A.natural, coarse.data(), k);
    }
    template <class T>
    void prolong_add(const vector<T>& coarse, const vector<T>& split_x, const vector<T>& split_y, vector<T>& fine,
                     int mx_fine, int my_fine, NaturalEdges natural = {}) {
        const int k = columns(fine, mx_fine, my_fine);
        launch_("prolong_add kernel", kernels::prolong_add<T>, tiles(mx_fine, my_fine, k), block2d(), 0, coarse.data(),
                split_x.data(), split_y.data(), fine.data(), mx_fine, my_fine, natural, k);
    }

    /// x_next = x + alpha c and d = b - A x_next in one pass, returning ||d|| (one
    /// synchronisation): it saves the passes of an axpy and of the norm's first reduction.
    template <class X, class C>
    double update_defect_norm(const matrix<X>& A, const vector<X>& b, const vector<X>& x, double alpha, const vector<C>& c,
                              vector<X>& x_next, vector<X>& d) {
        const dim3 grid = tiles(A.mx, A.my);
        const int blocks = static_cast<int>(grid.x * grid.y);
        if (tile_sums_.size() < static_cast<std::size_t>(blocks)) tile_sums_ = DeviceVector<double>(blocks);
        launch_("update_defect kernel", kernels::update_defect<X, C>, grid, block2d(), 0, A.view(), b.data(), x.data(), alpha,
                c.data(), x_next.data(), d.data(), tile_sums_.data());
        launch_("dot_final kernel", kernels::dot_final, 1, 1024, 0, tile_sums_.data(), blocks, result_.data());
        return norm_from_sum(read_result(), d);
    }

    /// The coarsest grid's exact solve: its dense inverse, made on the device from the host's
    /// sparse factor (CoarseInverse: the factor's arrays uploaded, all columns solved in one
    /// kernel, the bits of CoarseFactor::inverse()), applied as one product, which the device does
    /// at the speed of a copy and without dependent steps. A values-only re-setup reuses its
    /// storage, and the host factor's symbolic analysis where the pattern is the same.
    struct DirectSolve {
        vector<double> inverse;  ///< row-major, n x n
        CoarseInverse maker;     ///< the factor's arrays on the device
        CoarseFactor factor;     ///< on the host
        long long bytes() const { return static_cast<long long>(inverse.size() * sizeof(double)) + maker.bytes(); }
    };
    DirectSolve make_direct_solve(const NineBands<double>& A) {
        DirectSolve s{vector<double>(A.rows() * A.rows(), Uninitialised{}), {}, CoarseFactor(A)};
        s.maker.make(s.factor, s.inverse, launch_);
        return s;
    }
    void update_direct_solve(const NineBands<double>& A, DirectSolve& s) {
        s.factor.refactor(A);
        s.maker.make(s.factor, s.inverse, launch_);
    }
    template <class T>
    void direct_solve(const DirectSolve& s, const vector<T>& b, vector<T>& x) { dense_apply(s.inverse, b, x); }

    /// x = M b for a dense row-major n x n matrix M in double, for each of the b.size() / n
    /// columns of b.
    template <class T>
    void dense_apply(const vector<double>& M, const vector<T>& b, vector<T>& x) {
        const int n = static_cast<int>(std::llround(std::sqrt(static_cast<double>(M.size()))));
        const int k = columns(b, n, 1);
        launch_("dense_apply kernel", kernels::dense_apply<T>,
                (n + kernels::dense_rows_per_block - 1) / kernels::dense_rows_per_block * k, 32 * kernels::dense_rows_per_block,
                0, M.data(), b.data(), x.data(), n, k);
    }

    // --- vector operations --------------------------------------------------------------------
    template <class T>
    void fill(vector<T>& v, T value) {
        launch_("fill kernel", kernels::fill<T>, blocks(v.size()), 256, 0, v.data(), v.size(), value);
    }
    template <class T>
    void copy(const vector<T>& src, vector<T>& dst) {
        launch_("copy kernel", kernels::copy<T>, blocks(dst.size()), 256, 0, src.data(), dst.data(), dst.size());
    }
    template <class S, class T>
    void axpy(double alpha, const vector<S>& x, vector<T>& y) {
        launch_("axpy kernel", kernels::axpy<S, T>, blocks(y.size()), 256, 0, alpha, x.data(), y.data(), y.size());
    }
    template <class T>
    void xpay(const vector<T>& x, double beta, vector<T>& y) {
        launch_("xpay kernel", kernels::xpay<T>, blocks(y.size()), 256, 0, x.data(), beta, y.data(), y.size());
    }
    template <class S, class T>
    void scale_convert(double alpha, const vector<S>& src, vector<T>& dst) {
        launch_("scale_convert kernel", kernels::scale_convert<S, T>, blocks(dst.size()), 256, 0, alpha, src.data(),
                dst.data(), dst.size());
    }
    template <class T>
    double dot(const vector<T>& x, const vector<T>& y) {
        dot(x, y, result_.data());
        return read_result();
    }
    /// ||x||, without overflow or underflow for finite x: the plain sum of squares where it is
    /// exact enough (common/scaled_norm.hpp), else two scaled passes on the device.
    template <class T>
    double norm2(const vector<T>& x) {
        return norm_from_sum(dot(x, x), x);
    }

    // --- scalars that stay on the device (what keeps PCG free of host round trips) ------------
    template <class T>
    void dot(const vector<T>& x, const vector<T>& y, double* out) {
        const int count = std::min<int>(partial_count, blocks(x.size()));
        launch_("dot_partial kernel", kernels::dot_partial<T>, count, kernels::reduce_threads, 0, x.data(), y.data(),
                x.size(), partial_.data());
        launch_("dot_final kernel", kernels::dot_final, 1, 1024, 0, partial_.data(), count, out);
    }
    template <class T>
    void axpy_ratio(const double* num, const double* den, double sign, const vector<T>& x, vector<T>& y) {
        launch_("axpy_ratio kernel", kernels::axpy_ratio<T>, blocks(y.size()), 256, 0, num, den, sign, x.data(), y.data(),
                y.size());
    }
    template <class T>
    void xpay_ratio(const vector<T>& x, const double* num, const double* num_minus, const double* den, vector<T>& y) {
        launch_("xpay_ratio kernel", kernels::xpay_ratio<T>, blocks(y.size()), 256, 0, x.data(), num, num_minus, den,
                y.data(), y.size());
    }

    /// Runs `body` (work on this backend's stream that never waits for the host), recorded as a
    /// CUDA graph from its second call on unless the policy turns graphs off.
    template <class Body>
    void replay(Recording& recording, Body&& body) {
        recording.run(stream(), graphs_, std::forward<Body>(body));
    }

private:
    /// Strips of columns of kernels::jacobi_steps on a grid of mx columns.
    static int jacobi_strips(int mx) {
        constexpr int width = kernels::jacobi_stream_threads - 2 * kernels::max_fused_jacobi_steps;
        return (mx + width - 1) / width;
    }
    /// Rows per block of kernels::jacobi_steps: as many bands of rows as fill every SM once with
    /// the strips of columns (a block streams its rows, so one wave keeps the loads in flight).
    template <class T>
    int jacobi_rows_per_block(const matrix<T>& A) {
        const int resident = launch_.blocks_per_sm(kernels::jacobi_steps<T, kernels::max_fused_jacobi_steps>,
                                                   kernels::jacobi_stream_threads);
        const int bands = std::max(1, launch_.multiprocessors() * resident / jacobi_strips(A.mx));
        return (A.my + bands - 1) / bands;
    }
    static dim3 block2d() { return dim3(kernels::tile_x, kernels::tile_y); }
    /// The tiles of an nx x ny grid, each `columns` times (kernels::column_block()).
    static dim3 tiles(int nx, int ny, int columns = 1) {
        return dim3((nx + kernels::tile_x - 1) / kernels::tile_x * columns, (ny + kernels::tile_y - 1) / kernels::tile_y);
    }
    /// How many vectors of an mx x my grid v holds side by side (make_vectors()).
    template <class T>
    static int columns(const vector<T>& v, int mx, int my) {
        const std::size_t n = static_cast<std::size_t>(mx) * my;
        if (n == 0 || v.size() % n != 0 || v.size() == 0)
            throw std::logic_error("a vector of " + std::to_string(v.size()) + " values is no whole number of vectors of the " +
                                   std::to_string(mx) + " x " + std::to_string(my) + " grid");
        return static_cast<int>(v.size() / n);
    }
    static int blocks(std::size_t n) { return kernels::stride_blocks(n); }
    /// A mesh's element widths and node distances on the device, for the assembly kernels.
    struct MeshOnDevice {
        TensorMesh mesh;  ///< the host mesh it holds, to know it again
        vector<double> hx, hy, x_low, x_high, y_low, y_high;
        MeshOnDevice(CudaBackend& be, const TensorMesh& mesh)
            : MeshOnDevice(be, mesh, NodeDistances(mesh.x), NodeDistances(mesh.y)) {}
        MeshOnDevice(CudaBackend& be, const TensorMesh& mesh, const NodeDistances& dx, const NodeDistances& dy)
            : mesh(mesh),
              hx(be.on_device(mesh.x.widths)),
              hy(be.on_device(mesh.y.widths)),
              x_low(be.on_device(dx.from_low)),
              x_high(be.on_device(dx.from_high)),
              y_low(be.on_device(dy.from_low)),
              y_high(be.on_device(dy.from_high)) {}
        EndDistances dx() const { return {x_low.data(), x_high.data()}; }
        EndDistances dy() const { return {y_low.data(), y_high.data()}; }
    };
    /// The mesh on the device for a solve's load vector and its error, kept for the next solve
    /// of the same mesh: made once, not allocated, uploaded and freed around every solve (six
    /// allocations and six cudaFree calls, and the wait for the device that freeing needed).
    const MeshOnDevice& mesh_on_device(const TensorMesh& mesh) {
        if (!mesh_ || mesh_->mesh.x.widths != mesh.x.widths || mesh_->mesh.y.widths != mesh.y.widths) {
            mesh_.reset();
            mesh_.emplace(*this, mesh);
        }
        return *mesh_;
    }

    /// A small host array on the device (element widths), copied before this returns.
    vector<double> on_device(const std::vector<double>& host) {
        vector<double> v(host.size(), Uninitialised{});
        ADIMG_CUDA_CHECK(cudaMemcpyAsync(v.data(), host.data(), host.size() * sizeof(double), cudaMemcpyHostToDevice, stream()));
        return v;
    }
    /// Brings result_ to the host: the one synchronisation of a reduction.
    double read_result();
    /// ||x|| from its plain sum of squares: the root where that is usable, else the largest |x_p|
    /// and the sum of (x_p / largest)^2, two deterministic reductions (two more synchronisations,
    /// only for vectors beyond the plain sum's range).
    template <class T>
    double norm_from_sum(double sum_of_squares, const vector<T>& x) {
        if (plain_sum_usable(sum_of_squares)) return std::sqrt(sum_of_squares);
        if (std::isnan(sum_of_squares)) return sum_of_squares;
        const int count = std::min<int>(partial_count, blocks(x.size()));
        launch_("max_abs_partial kernel", kernels::max_abs_partial<T>, count, kernels::reduce_threads, 0, x.data(), x.size(),
                partial_.data());
        launch_("max_abs_partial kernel", kernels::max_abs_partial<double>, 1, kernels::reduce_threads, 0, partial_.data(),
                static_cast<std::size_t>(count), result_.data());
        const double largest = read_result();
        if (largest == 0.0 || !std::isfinite(largest)) return largest;
        launch_("scaled_square_partial kernel", kernels::scaled_square_partial<T>, count, kernels::reduce_threads, 0,
                x.data(), x.size(), largest, partial_.data());
        launch_("dot_final kernel", kernels::dot_final, 1, 1024, 0, partial_.data(), count, result_.data());
        return largest * std::sqrt(read_result());
    }

    static constexpr int partial_count = 1024;
    Launcher launch_;
    HostTransfers transfers_;
    LineSweeps lines_;
    const std::optional<bool> fused_restriction_;
    const bool graphs_;
    DeviceVector<double> partial_;
    DeviceVector<double> tile_sums_;  // update_defect_norm's partial sums, one per tile
    DeviceVector<double> result_;
    double* host_result_ = nullptr;  // pinned
    std::optional<MeshOnDevice> mesh_;  // mesh_on_device()
};

}  // namespace adimg
