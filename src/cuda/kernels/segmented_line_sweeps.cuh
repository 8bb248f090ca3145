#pragma once
// The ADI half-step for lines too long for one block's shared memory: each line is cut into
// segments that fit one block, and the partition method runs one level up (partition_method.hpp),
// in three launches: a block per segment reduces it to its two coupling equations, a warp per
// line solves the line's system of segment ends, and a block per segment solves its own
// equations again with its two outside neighbours known, storing the damped update as the
// one-block sweeps do (docs/performance.md, "Lines longer than one block: segments across
// blocks").

#include "line_sweeps.cuh"

#include <cstddef>

namespace adimg::kernels {

/// How each line of a sweep is cut: `cut.count` segments (the first `cut.longer` one equation
/// longer), each solved by the partition method with the layout of its length.
struct LineSegments {
    Chunks cut;
    PartitionLayout longer, shorter;  ///< for cut.length + 1 and cut.length equations
    __device__ const PartitionLayout& layout(int k) const { return k < cut.longer ? longer : shorter; }
};

/// The lines' systems of segment ends: equations 2 k and 2 k + 1 of a line are the coupling
/// equations of its segment k (first, last), unit-diagonal, at words[3 (line * equations + q)]
/// as (a, c, v); the solve leaves x_q in place of v.
template <class T>
struct ReducedLines {
    T* words;
    int equations;
    __device__ T* at(int line, int q) const { return words + 3 * (static_cast<std::size_t>(line) * equations + q); }
    __device__ CrEquation<T> get(int line, int q) const {
        const T* w = at(line, q);
        return {w[0], w[1], w[2]};
    }
    __device__ void put(int line, int q, const CrEquation<T>& e) const {
        T* w = at(line, q);
        w[0] = e.a;
        w[1] = e.c;
        w[2] = e.v;
    }
    __device__ T solution(int line, int q) const { return at(line, q)[2]; }
};

/// Launch 1: block line * K + k reduces segment k of its line to the segment's two coupling
/// equations (partition_reduce), equations 2 k and 2 k + 1 of the line's reduced system.
template <class T>
__global__ void __launch_bounds__(2 * partition_max_chunks)
    line_reduce_segments(BandsView<T> A, const T* __restrict__ b, const T* __restrict__ x_in, Direction direction,
                         const __grid_constant__ LineSegments segments, ReducedLines<T> reduced) {
    follow_previous_kernel();
    const LineSweep<T> sweep{A, b, x_in, nullptr, direction, T(0)};
    extern __shared__ unsigned char raw_shared[];
    T* shared = reinterpret_cast<T*>(raw_shared);
    const int line = blockIdx.x / segments.cut.count, k = blockIdx.x % segments.cut.count;
    const int s = segments.cut.start(k);
    BlockPartition exec;
    partition_reduce<T>(
        segments.layout(k), shared, exec, [&](int r) { return sweep.load(line, s + r); },
        [&](const CrEquation<T>& first, const CrEquation<T>& last) {
            reduced.put(line, 2 * k, first);
            reduced.put(line, 2 * k + 1, last);
        });
}

/// Launch 2: one warp per line solves the line's reduced system, K slots per lane.
template <class T, int K>
__global__ void __launch_bounds__(warps_per_line_block * warp_lanes) line_solve_reduced(ReducedLines<T> reduced, int lines) {
    follow_previous_kernel();
    const int lane = threadIdx.x % warp_lanes;
    const int line = blockIdx.x * warps_per_line_block + threadIdx.x / warp_lanes;
    if (line >= lines) return;  // the whole warp: the shuffles see all 32 lanes
    warp_solve<K, T>(
        lane, reduced.equations, [&](int q) { return reduced.get(line, q); },
        [&](int q, T x) { reduced.at(line, q)[2] = x; });
}

/// Launch 3: block line * K + k solves segment k of its line by the partition method, the
/// previous segment's last unknown and the next one's first (solved by launch 2, zero past the
/// line's ends) moved to the right-hand side of its first and last equation, and stores
/// x_out = x_in + omega (solution - x_in) on its nodes.
template <class T, int Slots>
__global__ void __launch_bounds__(2 * partition_max_chunks)
    line_relax_segments(BandsView<T> A, const T* __restrict__ b, const T* __restrict__ x_in, T* __restrict__ x_out,
                        Direction direction, T omega, const __grid_constant__ LineSegments segments,
                        ReducedLines<T> reduced) {
    follow_previous_kernel();
    const LineSweep<T> sweep{A, b, x_in, x_out, direction, omega};
    extern __shared__ unsigned char raw_shared[];
    T* shared = reinterpret_cast<T*>(raw_shared);
    const int count = segments.cut.count, line = blockIdx.x / count, k = blockIdx.x % count;
    const int s = segments.cut.start(k);
    const PartitionLayout& layout = segments.layout(k);
    const T before = k > 0 ? reduced.solution(line, 2 * k - 1) : T(0);
    const T after = k + 1 < count ? reduced.solution(line, 2 * k + 2) : T(0);
    auto load = [&](int r) {
        CrEquation<T> e = sweep.load(line, s + r);
        if (r == 0) {
            e.v -= e.a * before;
            e.a = T(0);
        }
        if (r == layout.n - 1) {
            e.v -= e.c * after;
            e.c = T(0);
        }
        return e;
    };
    BlockPartition exec;
    partitioned_line_solve<Slots, T>(layout, shared, exec, load, [&](int r, T x) { sweep.store(line, s + r, x); });
}

}  // namespace adimg::kernels
