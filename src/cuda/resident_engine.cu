// The CUDA engine: the generic Engine on the CUDA backend, with the solves on data that stays on the
// GPU (Solver::solve_device, solve_device_batch, precondition_device, setup(DeviceGridMatrix)). The
// caller's vectors are read and written by kernels on the device; only scalars come to the host.
//
// Several right-hand sides in one call are solved in lanes: further engines that hold only the
// outer iteration's vectors, each on a stream and a host thread of its own, whose V-cycles run
// for all of them at once on this engine's hierarchy (SharedCycles, shared_cycles.cuh), every
// level's matrix read once for all the right-hand sides. Each right-hand side keeps its own
// steps, convergence and fallback, and its solution has the bits of its single solve. The lanes
// are made at the first batch and kept; a batch runs one solve after another where it cannot
// run in lanes (a Hierarchy's levels, a coarsest solve by PCG, too little device memory).
#include "cuda_backend.cuh"
#include "device_pointers.cuh"
#include "resident_map.cuh"
#include "shared_cycles.cuh"

#include "../common/seconds_since.hpp"
#include "../solver/engine.hpp"
#include "../solver/matrix_messages.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>

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
        batches_ = false;
        lanes_current_ = 0;
    }
    void setup(const MeshHierarchy& meshes) override {
        Engine<CudaBackend>::setup(meshes);
        batches_ = true;
        lanes_current_ = 0;
    }
    void setup(const GalerkinSource& source) override {
        Engine<CudaBackend>::setup(source);
        batches_ = true;
        lanes_current_ = 0;
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
        batches_ = true;
        lanes_current_ = 0;
    }

    void set_rhs_map(const RightHandSideMap& map, std::size_t rows) override {
        rows_ = rows;
        map_.assign(map, rows, be_.stream());
        lanes_current_ = 0;
    }

    std::vector<SolveReport> solve_resident(const double* b, double* x, int count, bool zero_guess, DeviceStream stream,
                                            const StepCallback& on_step) override {
        check_device_pointer(b, "solve_device", "b");
        check_device_pointer(x, "solve_device", "x");
        std::vector<SolveReport> reports;
        with_precisions([&](auto& outer, const auto& A, auto& mg, bool may_fall_back) {
            using Outer = typename std::decay_t<decltype(outer)>::value_type;
            const int lanes = count > 1 && batches_ && mg.batches() ? ready_lanes<Outer>(std::min(count, max_lanes), A) : 1;
            if (lanes == 1) {
                follow(stream);
                reports = solve_in_order(b, x, 0, count, zero_guess, on_step);
            } else {
                reports = solve_in_lanes<Outer>(A, mg, may_fall_back, lanes, b, x, count, zero_guess, stream, on_step);
            }
        });
        return reports;
    }

    /// Solves for right-hand sides first .. last - 1 (at b + c n, into x + c n) one after another on
    /// this engine's stream, which follows the caller's already (follow()), by `solve(load,
    /// finish)` (solve_with(), or a lane's solve with the shared cycles).
    template <class Solve>
    std::vector<SolveReport> solve_in_order(const double* b, double* x, int first, int last, bool zero_guess, Solve&& solve) {
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
            SolveReport report = solve(load, finish);
            map_.set_dirichlet_values(be_.launcher(), rhs, xc);
            map_.remove_mean(be_.launcher(), xc);
            ADIMG_CUDA_CHECK(cudaStreamSynchronize(be_.stream()));
            matrix_messages::add_removed_component_note(report.message, null_component);
            report.solve_seconds = seconds_since(start);
            reports.push_back(std::move(report));
        }
        return reports;
    }
    std::vector<SolveReport> solve_in_order(const double* b, double* x, int first, int last, bool zero_guess,
                                            const StepCallback& on_step) {
        return solve_in_order(b, x, first, last, zero_guess,
                              [&](auto& load, auto& finish) { return solve_with(load, zero_guess, finish, on_step); });
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
    static constexpr int max_lanes = 8;
    static_assert(max_lanes <= kernels::max_products, "a round's products take one launch");

    /// `wanted` lanes, each with the outer vectors of precision Outer for A's grid and this
    /// setup's map and fallback levels. Returns how many there are: 1 where they cannot be made
    /// (too little device memory: then one solve after another).
    template <class Outer>
    int ready_lanes(int wanted, const DeviceBands<Outer>& A) {
        try {
            while (static_cast<int>(lanes_.size()) < wanted) lanes_.push_back(std::make_unique<CudaEngine>(options_));
            for (int l = 0; l < wanted; ++l) {
                CudaEngine& lane = *lanes_[static_cast<std::size_t>(l)];
                lane.outer_vectors<Outer>(A.mx, A.my);
                if (l < lanes_current_) continue;
                lane.set_rhs_map(map_.map(), rows_);
                lane.fallback_levels_ = fallback_levels_;  // a lane's double fallback builds its own levels from them
                lane.mg_double_.reset();
            }
        } catch (const device_error&) {
            lanes_.clear();
            lanes_current_ = 0;
            return 1;
        }
        lanes_current_ = std::max(lanes_current_, wanted);
        return wanted;
    }

    /// This lane's outer vectors in precision Outer for an mx x my grid, made at its first batch.
    template <class Outer>
    OuterVectors<Outer>& outer_vectors(int mx, int my) {
        auto& v = [this]() -> std::optional<OuterVectors<Outer>>& {
            if constexpr (std::is_same_v<Outer, double>)
                return outer_double_;
            else
                return outer_float_;
        }();
        if (!v || v->b.size() != static_cast<std::size_t>(mx) * my) {
            v.emplace(be_, mx, my, options_.precision == Precision::mixed && options_.full_multigrid);
            if (options_.outer == OuterMethod::cg) v->krylov.ensure(be_, mx, my);  // here, where a lack of memory is caught
        }
        return *v;
    }

    /// `count` right-hand sides in `lanes` lanes, lane l solving its share one after another on a
    /// thread and a stream of its own, and all of them sharing the cycles of mg, which run on this
    /// engine's stream (SharedCycles). Falls back to one solve after another where the batch's
    /// vectors do not fit the device.
    template <class Outer, class Inner>
    std::vector<SolveReport> solve_in_lanes(const DeviceBands<Outer>& A, Multigrid<CudaBackend, Inner>& mg, bool may_fall_back,
                                            int lanes, const double* b, double* x, int count, bool zero_guess,
                                            DeviceStream stream, const StepCallback& on_step) {
        follow(stream);
        std::optional<SharedCycles<Inner, Outer>> shared;
        try {
            shared.emplace(be_, mg, lanes);
        } catch (const device_error&) {
            return solve_in_order(b, x, 0, count, zero_guess, on_step);
        }
        // The lanes follow this engine's stream, which follows the caller's: they read what the
        // caller wrote and the outer matrix that a setup wrote on this engine's stream.
        for (int l = 0; l < lanes; ++l) lanes_[static_cast<std::size_t>(l)]->follow(be_.stream());
        using Column = typename SharedCycles<Inner, Outer>::Column;
        std::vector<std::unique_ptr<Column>> columns;
        for (int l = 0; l < lanes; ++l) columns.push_back(std::make_unique<Column>(*shared, l, lanes_[static_cast<std::size_t>(l)]->be_));

        std::vector<SolveReport> reports(static_cast<std::size_t>(count));
        std::vector<std::exception_ptr> failures(static_cast<std::size_t>(lanes));
        std::mutex step_mutex;
        const StepCallback serialised = on_step ? StepCallback([&](const OuterStep& s) {
            const std::lock_guard<std::mutex> lock(step_mutex);
            on_step(s);
        })
                                                : StepCallback{};
        // Lane l: right-hand sides count l / lanes .. count (l + 1) / lanes - 1. Its column leaves
        // the batch when it is done, however it ends, so that the others do not wait for it.
        auto run_lane = [&](int l) {
            const auto at = static_cast<std::size_t>(l);
            try {
                CudaEngine& lane = *lanes_[at];
                OuterVectors<Outer>& outer = lane.outer_vectors<Outer>(A.mx, A.my);
                const int first = count * l / lanes, last = count * (l + 1) / lanes;
                std::vector<SolveReport> part =
                    lane.solve_in_order(b, x, first, last, zero_guess, [&](auto& load, auto& finish) {
                        SolveReport report;
                        lane.run(outer, A, *columns[at], load, zero_guess, finish, serialised, report, may_fall_back,
                                 BatchTerms<Column>(*columns[at]));
                        return report;
                    });
                std::move(part.begin(), part.end(), reports.begin() + first);
            } catch (...) {
                failures[at] = std::current_exception();
            }
            columns[at].reset();
        };
        int device = 0;
        ADIMG_CUDA_CHECK(cudaGetDevice(&device));
        std::vector<std::thread> threads;
        for (int l = 1; l < lanes; ++l) {
            try {
                threads.emplace_back([&, l] {
                    cudaSetDevice(device);
                    run_lane(l);
                });
            } catch (...) {
                failures[static_cast<std::size_t>(l)] = std::current_exception();
                columns[static_cast<std::size_t>(l)].reset();
            }
        }
        run_lane(0);
        for (std::thread& t : threads) t.join();
        for (const std::exception_ptr& failure : failures)
            if (failure) std::rethrow_exception(failure);
        return reports;
    }

    /// The solver's stream waits for the work enqueued on `stream` so far (the caller's: b and x
    /// written).
    void follow(DeviceStream stream) {
        ADIMG_CUDA_CHECK(cudaEventRecord(caller_ready_, as_cuda_stream(stream)));
        ADIMG_CUDA_CHECK(cudaStreamWaitEvent(be_.stream(), caller_ready_, 0));
    }

    ResidentMap map_;  ///< also what the lanes take their map from
    std::size_t rows_ = 0;
    cudaEvent_t caller_ready_ = nullptr;
    /// Whether a batch may run in lanes: not for a Hierarchy's levels, whose fallback a lane would
    /// need a copy of.
    bool batches_ = false;
    std::vector<std::unique_ptr<CudaEngine>> lanes_;
    int lanes_current_ = 0;  ///< lanes 0 .. lanes_current_ - 1 hold the map and fallback levels of the last setup
};

}  // namespace

std::unique_ptr<SolverEngine> make_cuda_engine(const SolverOptions& options) { return std::make_unique<CudaEngine>(options); }

}  // namespace adimg
