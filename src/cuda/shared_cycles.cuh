#pragma once
// The V-cycles of a batch of right-hand sides, run for all of them in the same launches. Each
// right-hand side keeps its own outer iteration (its own steps, scalars, convergence and
// fallback) on a host thread and a stream of its own, a lane; the lanes meet at every cycle, and
// the last to arrive runs it for all of them on the hierarchy's batch workspace
// (Multigrid::batch()), where each level's matrix is read once for every right-hand side. They
// meet too at flexible CG's product with the outer matrix (BatchTerms), which then reads each
// row once for all of them.

#include "cuda_backend.cuh"

#include "../solver/multigrid.hpp"
#include "../solver/outer_loop.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace adimg {

/// The cycles in precision T (the inner one) and the products in precision Outer.
template <class T, class Outer>
class SharedCycles {
public:
    /// `lanes` right-hand sides on mg's batch workspace; the cycles run on be's stream, which
    /// nothing else may use meanwhile. Throws device_error where the workspace or the sweeps'
    /// scratch for it does not fit the device.
    SharedCycles(CudaBackend& be, Multigrid<CudaBackend, T>& mg, int lanes)
        : be_(be), mg_(mg), work_(mg.batch(lanes)), lanes_(lanes), asked_(lanes, Kind::none), ready_(lanes) {
        be.reserve_sweeps(mg.finest_matrix(), lanes);
        for (cudaEvent_t& e : ready_) ADIMG_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        ADIMG_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
        cycling_ = lanes;
    }
    ~SharedCycles() {
        for (cudaEvent_t e : ready_) cudaEventDestroy(e);
        cudaEventDestroy(done_);
    }
    SharedCycles(const SharedCycles&) = delete;
    SharedCycles& operator=(const SharedCycles&) = delete;

    /// What lane `column`'s inner solve drives (InnerMultigrid's Cycles): its right-hand side's
    /// part of the batch's finest vectors, and the cycles, each of which runs once every lane
    /// still cycling has asked for it. Its vectors are written and read on the lane's stream.
    class Column {
    public:
        using value_type = T;
        Column(SharedCycles& shared, int column, CudaBackend& lane)
            : shared_(shared),
              column_(column),
              lane_(lane),
              rhs_(shared.part(shared.mg_.rhs(shared.work_), column)),
              solution_(shared.part(shared.mg_.solution(shared.work_), column)),
              defect_(shared.part(shared.mg_.defect_vector(shared.work_), column)) {}
        /// The lane leaves the batch when its solve ends, however it ends: the others stop waiting for it.
        ~Column() { shared_.leave(column_, lane_.stream()); }
        Column(const Column&) = delete;
        Column& operator=(const Column&) = delete;

        DeviceVector<T>& rhs() { return rhs_; }
        DeviceVector<T>& solution() { return solution_; }
        void cycle() { shared_.run(column_, Kind::cycle, lane_.stream()); }
        void full_cycle() { shared_.run(column_, Kind::full, lane_.stream()); }
        void full_cycle_below_finest() { shared_.run(column_, Kind::below_finest, lane_.stream()); }
        double defect_norm() {
            shared_.run(column_, Kind::defect, lane_.stream());
            return lane_.norm2(defect_);
        }
        /// y = A x with the other lanes' products (A the same for all).
        void multiply(const DeviceBands<Outer>& A, const DeviceVector<Outer>& x, DeviceVector<Outer>& y) {
            const Product product{&A, x.data(), y.data()};
            shared_.run(column_, Kind::multiply, lane_.stream(), &product);
        }

    private:
        SharedCycles& shared_;
        int column_;
        CudaBackend& lane_;
        DeviceVector<T> rhs_, solution_, defect_;  ///< borrowed
    };

private:
    enum class Kind { none, cycle, full, below_finest, defect, multiply };
    /// What a lane's product reads and writes.
    struct Product {
        const DeviceBands<Outer>* A;
        const Outer* x;
        Outer* y;
    };

    /// Column c of a batch vector.
    DeviceVector<T> part(DeviceVector<T>& v, int c) const {
        const std::size_t n = v.size() / static_cast<std::size_t>(lanes_);
        return DeviceVector<T>::borrow(v.data() + c * n, n);
    }

    /// Lane `column` asks for `kind` (a product: of `product`) after the work enqueued on its
    /// stream so far, and its stream waits for the round. Rethrows the failure of a round.
    void run(int column, Kind kind, cudaStream_t lane, const Product* product = nullptr) {
        ADIMG_CUDA_CHECK(cudaEventRecord(ready_[column], lane));
        std::unique_lock<std::mutex> lock(mutex_);
        if (failure_) std::rethrow_exception(failure_);
        if (product && outer_matrix_ && outer_matrix_ != product->A)
            throw std::logic_error("a batch's lanes multiply with different matrices");
        asked_[column] = kind;
        if (product) {
            products_.x[column] = product->x;
            products_.y[column] = product->y;
            outer_matrix_ = product->A;
        }
        ++arrived_;
        const long long round = round_;
        if (arrived_ == cycling_)
            run_round();
        else
            wake_.wait(lock, [&] { return round_ != round; });
        if (failure_) std::rethrow_exception(failure_);
        ADIMG_CUDA_CHECK(cudaStreamWaitEvent(lane, done_, 0));
    }

    /// Lane `column` asks for no more cycles; the last reads of its column are on its stream.
    void leave(int column, cudaStream_t lane) {
        cudaEventRecord(ready_[column], lane);  // no throw: called from a destructor
        const std::lock_guard<std::mutex> lock(mutex_);
        --cycling_;
        if (arrived_ > 0 && arrived_ == cycling_) run_round();
    }

    /// Runs what the arrived lanes asked for, after every lane's work so far (a lane that left
    /// may still be reading its column), and wakes them. The products asked for run in one
    /// launch. The cycles asked for, where all ask the same one (the usual case: the lanes take
    /// the same steps until they stop) and they are at least half of the batch's columns, run
    /// once on the batch: over every column, also those of lanes that left or that asked for a
    /// product, which hold nothing live (a lane's correction is taken from its column before it
    /// multiplies, and its next inner solve writes the column afresh). Otherwise each runs alone
    /// through the workspace of one right-hand side (a batch's run costs every column's work,
    /// whoever asked), so that no cycle changes a column in use that did not ask for it.
    void run_round() {
        if (!failure_) {
            try {
                for (cudaEvent_t e : ready_) ADIMG_CUDA_CHECK(cudaStreamWaitEvent(be_.stream(), e, 0));
                multiply_asked();
                int asking = 0;
                const Kind kind = shared_cycle(asking);
                if (kind != Kind::none && 2 * asking >= lanes_) {
                    run_on(work_, kind);
                } else {
                    for (int c = 0; c < lanes_; ++c)
                        if (asked_[c] != Kind::none && asked_[c] != Kind::multiply) run_alone(c, asked_[c]);
                }
                ADIMG_CUDA_CHECK(cudaEventRecord(done_, be_.stream()));
            } catch (...) {
                failure_ = std::current_exception();
            }
        }
        std::fill(asked_.begin(), asked_.end(), Kind::none);
        arrived_ = 0;
        ++round_;
        wake_.notify_all();
    }

    /// The cycle (or defect) every lane that asked for one in this round asked for, and in
    /// `asking` how many did; none where they differ or none did.
    Kind shared_cycle(int& asking) const {
        Kind shared = Kind::none;
        for (const Kind kind : asked_) {
            if (kind == Kind::none || kind == Kind::multiply) continue;
            if (shared != Kind::none && kind != shared) return Kind::none;
            shared = kind;
            ++asking;
        }
        return shared;
    }

    void run_on(typename Multigrid<CudaBackend, T>::Workspace& w, Kind kind) {
        switch (kind) {
        case Kind::cycle: mg_.cycle(w); break;
        case Kind::full: mg_.full_cycle(w); break;
        case Kind::below_finest: mg_.full_cycle_below_finest(w); break;
        case Kind::defect: mg_.defect(w); break;
        case Kind::multiply:
        case Kind::none: break;
        }
    }

    /// The products the lanes of this round asked for, in one launch.
    void multiply_asked() {
        kernels::Products<Outer> asked{};
        for (int c = 0; c < lanes_; ++c) {
            if (asked_[c] != Kind::multiply) continue;
            asked.x[asked.count] = products_.x[c];
            asked.y[asked.count++] = products_.y[c];
        }
        if (asked.count > 0) be_.multiply(*outer_matrix_, asked);
    }

    /// Column c's request on the workspace of one right-hand side: its b and x copied in, the
    /// result (x, and d for a defect) copied back.
    void run_alone(int c, Kind kind) {
        auto& one = mg_.one();
        DeviceVector<T> b = part(mg_.rhs(work_), c), x = part(mg_.solution(work_), c), d = part(mg_.defect_vector(work_), c);
        be_.copy(b, mg_.rhs(one));
        be_.copy(x, mg_.solution(one));
        run_on(one, kind);
        be_.copy(mg_.solution(one), x);
        if (kind == Kind::defect) be_.copy(mg_.defect_vector(one), d);
    }

    CudaBackend& be_;
    Multigrid<CudaBackend, T>& mg_;
    typename Multigrid<CudaBackend, T>::Workspace& work_;
    const int lanes_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<Kind> asked_;          ///< what each lane asked for in this round (none: not yet, or left)
    int arrived_ = 0, cycling_ = 0;    ///< lanes waiting in this round; lanes that have not left
    long long round_ = 0;
    std::exception_ptr failure_;       ///< of a round: every lane rethrows it
    std::vector<cudaEvent_t> ready_;   ///< each lane's work up to its last request
    cudaEvent_t done_ = nullptr;       ///< the last round's cycles
    kernels::Products<Outer> products_{};  ///< lane c's product's vectors at c, while it asks for one
    const DeviceBands<Outer>* outer_matrix_ = nullptr;
};

/// The terms of a batch's lane (outer_loop.hpp): multigrid's, but flexible CG's product with the
/// outer matrix runs with the other lanes' in one launch (SharedCycles::Column::multiply).
template <class Column>
struct BatchTerms : MultigridTerms {
    Column& column;
    explicit BatchTerms(Column& c) : column(c) {}
    template <class Backend, class Matrix, class Vector>
    void multiply(Backend&, const Matrix& A, const Vector& x, Vector& y) const {
        column.multiply(A, x, y);
    }
};

}  // namespace adimg
