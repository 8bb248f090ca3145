// The calls on device memory (device.hpp) where there is no GPU to hold it: a Solver on the CPU
// backend, and a DeviceGridMatrix without a usable device, refuse with device_error saying what
// to use instead. (On the GPU they are tested in gpu/test_device_memory.cpp.)

#include <adimg/device.hpp>
#include <adimg/error.hpp>
#include <adimg/problems.hpp>
#include <adimg/solver.hpp>

#include <catch2/catch.hpp>

#include "input_error_of.hpp"

#include <string>
#include <vector>

using namespace adimg;

using adimg_test::error_message_of;

TEST_CASE("Device memory on the CPU backend: device_error naming the host calls", "[api][device]") {
    const TensorMesh mesh = builtin_case("U1").mesh(4);
    SolverOptions options;
    options.backend = BackendKind::cpu;
    Solver solver(options);
    solver.setup(GridMatrix(Grid::from_mesh(mesh), assemble_stiffness(mesh)));
    std::vector<double> b(mesh.nodes(), 1.0), x(mesh.nodes());
    for (const std::string& message :
         {error_message_of<device_error>([&] { solver.solve_device(b.data(), x.data(), InitialGuess::zero); }),
          error_message_of<device_error>([&] { solver.solve_device_batch(b.data(), x.data(), 1, InitialGuess::zero); }),
          error_message_of<device_error>([&] { solver.precondition_device(b.data(), x.data()); })}) {
        INFO(message);
        CHECK(message.find("needs the CUDA backend") != std::string::npos);
        CHECK(message.find("pass host arrays to solve() and precondition()") != std::string::npos);
    }
    CHECK(solver.solve_count() == 0);
    CHECK(solver.solve(b, x).ok());  // the host path is unchanged
}

TEST_CASE("DeviceGridMatrix without a usable GPU: device_error pointing to GridMatrix", "[api][device]") {
    if (cuda_available()) {
        WARN("a GPU is usable here: DeviceGridMatrix is tested in the GPU tests");
        return;
    }
    const std::vector<double> values(9 * 81, 0.0);
    for (const std::string& message :
         {error_message_of<device_error>([&] { (void)DeviceGridMatrix(Grid(9, 9), values.data()); }),
          error_message_of<device_error>([&] { (void)DeviceGridMatrix::from_host(Grid(9, 9), values.data()); })}) {
        INFO(message);
        CHECK(message.find("DeviceGridMatrix") != std::string::npos);
        CHECK(message.find("use GridMatrix with host arrays") != std::string::npos);
    }
}
