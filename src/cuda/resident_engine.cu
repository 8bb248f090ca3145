// The CUDA engine: the generic Engine on the CUDA backend, with the solves on data that stays on the
// GPU (Solver::solve_device, solve_device_batch, precondition_device, setup(DeviceGridMatrix)). The
// caller's vectors are read and written by kernels on the device; only scalars come to the host.
#include "cuda_backend.cuh"
#include "device_pointers.cuh"
#include "resident_map.cuh"

#include "../common/seconds_since.hpp"
#include "../solver/engine.hpp"
#include "../solver/matrix_messages.hpp"

#include <chrono>

namespace adimg {

namespace {

class CudaEngine final : public Engine<CudaBackend> {
public:
    explicit CudaEngine(const SolverOptions& options) : Engine<CudaBackend>(options) {
        ADIMG_CUDA_CHECK(cudaEventCreateWithFlags(&caller_ready_, cudaEventDisableTiming));
    }
    ~CudaEngine() override { cudaEventDestroy(caller_ready_); }

    void setup_resident(const GalerkinSource& source, const double* finest) override {
        check_device_pointer(finest, "setup", "the matrix's bands");
        const NineBands<double>& shape = *source.finest;
        setup_galerkin(
            source,
            [&] {
                DoubleMatrix M = be_.template make_matrix<double>(shape.mx, shape.my);
                be_.update_values(finest, shape.natural, M);
                return M;
            },
            [&](DoubleMatrix& M) { be_.update_values(finest, shape.natural, M); });
    }

    void set_rhs_map(const RightHandSideMap& map, std::size_t rows) override {
        rows_ = rows;
        map_.assign(map, rows, be_.stream());
    }

    std::vector<SolveReport> solve_resident(const double* b, double* x, int count, bool zero_guess, DeviceStream stream,
                                            const StepCallback& on_step) override {
        check_device_pointer(b, "solve_device", "b");
        check_device_pointer(x, "solve_device", "x");
        follow(stream);
        std::vector<SolveReport> reports;
        reports.reserve(static_cast<std::size_t>(count));
        for (int c = 0; c < count; ++c) {
            const auto start = std::chrono::steady_clock::now();
            double* xc = x + static_cast<std::size_t>(c) * rows_;
            double null_component = 0.0;
            const double* rhs = map_.apply(be_.launcher(), b + static_cast<std::size_t>(c) * rows_, null_component);
            auto load = [&](auto& v) {
                be_.copy_in(rhs, v.b);
                if (zero_guess)
                    be_.fill(v.x, typename std::decay_t<decltype(v)>::value_type(0));
                else
                    be_.copy_in(xc, v.x);
            };
            // A guess that no iterate improved on stays in x as given.
            auto finish = [&](const auto& solution, Answer answer) {
                if (answer == Answer::iterate) be_.copy_out(solution, xc);
            };
            SolveReport report = solve_with(load, zero_guess, finish, on_step);
            map_.set_dirichlet_values(be_.launcher(), rhs, xc);
            map_.remove_mean(be_.launcher(), xc);
            ADIMG_CUDA_CHECK(cudaStreamSynchronize(be_.stream()));
            if (null_component != 0.0) {
                const std::string note = matrix_messages::removed_component_note(null_component);
                report.message = report.message.empty() ? note : report.message + "; " + note;
            }
            report.solve_seconds = seconds_since(start);
            reports.push_back(std::move(report));
        }
        return reports;
    }

    void precondition_resident(const double* r, double* z, DeviceStream stream) override {
        check_device_pointer(r, "precondition_device", "r");
        check_device_pointer(z, "precondition_device", "z");
        follow(stream);
        double null_component = 0.0;
        const double* rhs = map_.apply(be_.launcher(), r, null_component);
        precondition_with([&](auto& d) { be_.copy_in(rhs, d); }, [&](const auto& result) { be_.copy_out(result, z); });
        map_.remove_mean(be_.launcher(), z);
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(be_.stream()));
    }

private:
    /// The solver's stream waits for the work enqueued on the caller's so far (b and x written).
    void follow(DeviceStream stream) {
        ADIMG_CUDA_CHECK(cudaEventRecord(caller_ready_, as_cuda_stream(stream)));
        ADIMG_CUDA_CHECK(cudaStreamWaitEvent(be_.stream(), caller_ready_, 0));
    }

    ResidentMap map_;
    std::size_t rows_ = 0;
    cudaEvent_t caller_ready_ = nullptr;
};

}  // namespace

std::unique_ptr<SolverEngine> make_cuda_engine(const SolverOptions& options) { return std::make_unique<CudaEngine>(options); }

}  // namespace adimg
