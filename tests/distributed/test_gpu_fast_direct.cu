// DistributedFastDirectSolver on GPU ranks against the serial FastDirectSolver on the GPU (x
// transformed, as the distributed solver always does): every built-in case at L = 7..9 with the
// same status and refinement steps and the same solution to 1e-10 (relative, max norm); with one
// refinement step (both then the discrete solution to its doubles) relative L2 errors equal to
// 1e-8 of each other, measured on the devices by solve_case(); a mesh without multigrid levels
// (an even cut, graded widths: eigenvector products); what a solve sends; the choice of GPU ranks
// for backend automatic; Neumann edges kept on CPU ranks; and the mode lines' kernels against the
// CPU ranks' loops over the same formulas. Run on 1, 2 and 4 ranks.
//
// The transform solve's rounding differs from the serial GPU solve's (each rank's rows of a mode
// line by the chunked partition method of strip_mode_lines.hpp, which the CPU ranks' tests check
// against Thomas to 1e-13; the serial GPU solves a line whole in shared memory), but the
// refinement removes the difference down to the defect's criterion.

#include "fast_direct_checks.hpp"

#include "distributed/cuda_rank.cuh"
#include "distributed/cuda_strip_lines.cuh"
#include "distributed/strip_backend.hpp"
#include "distributed/strip_lines.hpp"
#include "fast_direct/plan.hpp"

#include <memory>

namespace {

using namespace adimg;
using namespace adimg::test;

}  // namespace

TEST_CASE("GPU ranks solve every case at L=7..9 (fast direct) as the serial GPU solver", "[gpu][mpi][fast-direct]") {
    check_every_case(BackendKind::cuda, 1e-8);
}

TEST_CASE("GPU ranks: a mesh without multigrid levels, graded in x, from a right-hand side", "[gpu][mpi][fast-direct]") {
    check_uneven_mesh(BackendKind::cuda);
}

TEST_CASE("GPU ranks: one all-gather per transform solve, one halo exchange and one norm per defect",
          "[gpu][mpi][fast-direct]") {
    check_sends(BackendKind::cuda);
}

TEST_CASE("GPU ranks: backend automatic takes them; Neumann edges stay on CPU ranks", "[gpu][mpi][fast-direct]") {
    DistributedFastDirectSolver automatic(MPI_COMM_WORLD);
    CHECK(automatic.backend() == BackendKind::cuda);
    CHECK(automatic.notice().empty());
    FastDirectEdges neumann;
    neumann.x_low = EdgeCondition::neumann;
    automatic.setup(builtin_case("U1").mesh(6), neumann);
    CHECK(automatic.backend() == BackendKind::cpu);
    CHECK_THAT(automatic.notice(), Catch::Contains("Neumann edges are solved on CPU ranks"));
    FastDirectOptions cuda;
    cuda.backend = BackendKind::cuda;
    DistributedFastDirectSolver on_gpus(MPI_COMM_WORLD, cuda);
    CHECK_THROWS_WITH(on_gpus.setup(builtin_case("U1").mesh(6), neumann), Catch::Contains("CPU ranks only"));
}

TEST_CASE("GPU ranks: the mode lines' kernels equal the CPU ranks' loops over the same formulas", "[gpu][mpi][fast-direct]") {
    // The same chunks and arithmetic; the device contracts products and sums into FMAs, which
    // the lowest modes' condition (about 1e4 at L=8) amplifies: 1e-11 of the largest value.
    for (const char* name : {"U1", "A5"}) {
        INFO(name << " at L=8");
        const TensorMesh mesh = builtin_case(name).mesh(8);
        const fast_direct::Plan plan = fast_direct::make_plan(mesh, {}, along_x());
        auto context = std::make_shared<DistributedContext>(MPI_COMM_WORLD, DistributedLines::ppt);
        context->layout = StripLayout({{mesh.mx(), mesh.my()}}, context->comm.size());
        StripBackend<CudaRank> be(context);
        const RowRange rows = be.rows();
        const std::size_t first = static_cast<std::size_t>(rows.first) * plan.nt;
        const std::size_t count = static_cast<std::size_t>(rows.count) * plan.nt;
        const std::vector<double> whole = pseudo_random(static_cast<std::size_t>(plan.my) * plan.nt, 9);
        std::vector<double> expected(whole.begin() + first, whole.begin() + first + count), got(count);
        StripLines(context->comm, plan, rows.first, rows.count).solve(expected.data());
        DeviceVector<double> w(count);
        ADIMG_CUDA_CHECK(cudaMemcpy(w.data(), whole.data() + first, count * sizeof(double), cudaMemcpyHostToDevice));
        CudaStripLines(be.rank(), context->comm, plan, rows.first, rows.count).solve(w.data());
        ADIMG_CUDA_CHECK(cudaDeviceSynchronize());
        ADIMG_CUDA_CHECK(cudaMemcpy(got.data(), w.data(), count * sizeof(double), cudaMemcpyDeviceToHost));
        const double difference = max_relative_difference(got, expected);
        INFO("rank " << context->comm.rank() << ": the device's lines differ by " << difference << " (relative, max norm)");
        CHECK(difference <= 1e-11);
    }
}
