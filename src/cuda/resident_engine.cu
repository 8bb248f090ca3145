// The CUDA engine: the generic Engine on the CUDA backend, with the solves on data that stays on the
// GPU (Solver::solve_device, solve_device_batch, precondition_device, setup(DeviceGridMatrix)). The
// caller's vectors are read and written by kernels on the device; only scalars come to the host.
//
// Several right-hand sides in one call run side by side in lanes: further engines on streams of
// their own, each with a copy of the levels made on the device (from this engine's finest Galerkin
// matrix, or from the case's meshes), each driven by a host thread. A solve of a mid-sized grid is
// bound by the latency of its launches and host synchronisations, which the lanes overlap. The
// lanes are made at the first batch after a setup (a values-only re-setup refreshes them in place),
// and a batch falls back to one solve after another where they cannot be made (a Hierarchy's
// levels, too little device memory).
#include "cuda_backend.cuh"
#include "device_pointers.cuh"
#include "resident_map.cuh"

#include "../common/seconds_since.hpp"
#include "../solver/engine.hpp"
#include "../solver/matrix_messages.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

namespace adimg {

namespace {

class CudaEngine final : public Engine<CudaBackend> {
public:
    explicit CudaEngine(const SolverOptions& options) : Engine<CudaBackend>(options) {
        ADIMG_CUDA_CHECK(cudaEventCreateWithFlags(&caller_ready_, cudaEventDisableTiming));
    }
    ~CudaEngine() override { cudaEventDestroy(caller_ready_); }

    void setup(const Hierarchy& hierarchy) override {
        Engine<CudaBackend>::setup(hierarchy);
        recipe_.reset();  // host levels: a lane would need them again, so batches run in order
        lanes_ready_ = false;
    }
    void setup(const MeshHierarchy& meshes) override {
        Engine<CudaBackend>::setup(meshes);
        recipe_.emplace(Recipe{{}, {}, meshes});
        lanes_ready_ = false;
    }
    void setup(const GalerkinSource& source) override {
        Engine<CudaBackend>::setup(source);
        remember_galerkin(source);
    }
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
        remember_galerkin(source);
    }

    void set_rhs_map(const RightHandSideMap& map, std::size_t rows) override {
        rows_ = rows;
        map_.assign(map, rows, be_.stream());
    }

    std::vector<SolveReport> solve_resident(const double* b, double* x, int count, bool zero_guess, DeviceStream stream,
                                            const StepCallback& on_step) override {
        check_device_pointer(b, "solve_device", "b");
        check_device_pointer(x, "solve_device", "x");
        const int lanes = count > 1 ? ready_lanes(std::min(count, max_lanes)) : 1;
        if (lanes == 1) {
            follow(stream);
            return solve_in_order(b, x, 0, count, zero_guess, on_step);
        }
        // Every lane follows the caller's stream before any lane runs: the event goes on the
        // caller's stream, which may be the legacy one, and an operation there while another
        // lane records its cycle would break that recording.
        for (int l = 0; l < lanes; ++l) (l == 0 ? *this : *lanes_[static_cast<std::size_t>(l - 1)]).follow(stream);
        // Right-hand sides first .. first + share - 1 to each lane, this engine's on this thread.
        std::vector<SolveReport> reports(static_cast<std::size_t>(count));
        std::vector<std::exception_ptr> failures(static_cast<std::size_t>(lanes));
        std::mutex step_mutex;
        const StepCallback serialised = on_step ? StepCallback([&](const OuterStep& s) {
            const std::lock_guard<std::mutex> lock(step_mutex);
            on_step(s);
        })
                                                : StepCallback{};
        auto run_lane = [&](int l) {
            try {
                CudaEngine& lane = l == 0 ? *this : *lanes_[static_cast<std::size_t>(l - 1)];
                const int first = count * l / lanes, last = count * (l + 1) / lanes;
                std::vector<SolveReport> part = lane.solve_in_order(b, x, first, last, zero_guess, serialised);
                std::move(part.begin(), part.end(), reports.begin() + first);
            } catch (...) {
                failures[static_cast<std::size_t>(l)] = std::current_exception();
            }
        };
        int device = 0;
        ADIMG_CUDA_CHECK(cudaGetDevice(&device));
        std::vector<std::thread> threads;
        for (int l = 1; l < lanes; ++l)
            threads.emplace_back([&, l] {
                cudaSetDevice(device);
                run_lane(l);
            });
        run_lane(0);
        for (std::thread& t : threads) t.join();
        for (const std::exception_ptr& failure : failures)
            if (failure) std::rethrow_exception(failure);
        return reports;
    }

    /// Solves for right-hand sides first .. last - 1 (at b + c n, into x + c n) one after another on
    /// this engine's stream, which follows the caller's already (follow()).
    std::vector<SolveReport> solve_in_order(const double* b, double* x, int first, int last, bool zero_guess,
                                            const StepCallback& on_step) {
        std::vector<SolveReport> reports;
        reports.reserve(static_cast<std::size_t>(last - first));
        for (int c = first; c < last; ++c) {
            const auto start = std::chrono::steady_clock::now();
            double* xc = x + static_cast<std::size_t>(c) * rows_;
            double null_component = 0.0;
            const double* rhs = map_.apply(be_.launcher(), b + static_cast<std::size_t>(c) * rows_, &null_component);
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
            matrix_messages::add_removed_component_note(report.message, null_component);
            report.solve_seconds = seconds_since(start);
            reports.push_back(std::move(report));
        }
        return reports;
    }

    void precondition_resident(const double* r, double* z, DeviceStream stream) override {
        check_device_pointer(r, "precondition_device", "r");
        check_device_pointer(z, "precondition_device", "z");
        follow(stream);
        const double* rhs = map_.apply(be_.launcher(), r);  // no null component: nothing reports it
        precondition_with([&](auto& d) { be_.copy_in(rhs, d); }, [&](const auto& result) { be_.copy_out(result, z); });
        map_.remove_mean(be_.launcher(), z);
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(be_.stream()));
    }

private:
    /// How the levels of the last setup were made, for the lanes: a user's matrix (the Galerkin
    /// source, whose finest level a lane copies from this engine's on the device) or a case's meshes.
    struct Recipe {
        GalerkinSource source;    ///< source.finest points to `shape` (nullptr for meshes)
        NineBands<double> shape;  ///< the finest grid and its natural edges, no values
        MeshHierarchy meshes;
    };
    static constexpr int max_lanes = 8;

    void remember_galerkin(const GalerkinSource& source) {
        recipe_.emplace();
        recipe_->shape.mx = source.finest->mx;
        recipe_->shape.my = source.finest->my;
        recipe_->shape.natural = source.finest->natural;
        recipe_->source = source;
        recipe_->source.finest = &recipe_->shape;
        lanes_ready_ = false;
    }

    /// `wanted` lanes (this engine and wanted - 1 more) set up with this engine's levels: made or
    /// refreshed after a setup. Returns how many there are: 1 where lanes cannot be made.
    int ready_lanes(int wanted) {
        if (!recipe_) return 1;
        if (lanes_ready_ && static_cast<int>(lanes_.size()) + 1 >= wanted) return wanted;
        ADIMG_CUDA_CHECK(cudaStreamSynchronize(be_.stream()));  // the levels a lane copies are complete
        try {
            while (static_cast<int>(lanes_.size()) + 1 < wanted) lanes_.push_back(std::make_unique<CudaEngine>(options_));
            for (auto& lane : lanes_) {
                if (recipe_->source.finest) {
                    lane->setup_resident(recipe_->source, galerkin_.back().values.data());
                } else {
                    lane->setup(recipe_->meshes);
                }
                lane->set_rhs_map(map_.map(), rows_);
            }
        } catch (const device_error&) {
            lanes_.clear();  // too little device memory for the copies: one solve after another
            return 1;
        }
        lanes_ready_ = true;
        return wanted;
    }

    /// The solver's stream waits for the work enqueued on the caller's so far (b and x written).
    void follow(DeviceStream stream) {
        ADIMG_CUDA_CHECK(cudaEventRecord(caller_ready_, as_cuda_stream(stream)));
        ADIMG_CUDA_CHECK(cudaStreamWaitEvent(be_.stream(), caller_ready_, 0));
    }

    ResidentMap map_;  ///< also what the lanes take their map from
    std::size_t rows_ = 0;
    cudaEvent_t caller_ready_ = nullptr;
    std::optional<Recipe> recipe_;
    std::vector<std::unique_ptr<CudaEngine>> lanes_;
    bool lanes_ready_ = false;  ///< the lanes hold the levels of the last setup
};

}  // namespace

std::unique_ptr<SolverEngine> make_cuda_engine(const SolverOptions& options) { return std::make_unique<CudaEngine>(options); }

}  // namespace adimg
