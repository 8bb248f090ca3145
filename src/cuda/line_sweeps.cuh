#pragma once
// The ADI line sweeps on the device: which line solver each sweep uses (LinePolicy and the
// device's shared memory decide), and its launch. Lines of up to warp_lines_up_to unknowns are
// solved one warp each in registers, y-lines read in place. Longer x-lines run one per block
// (partition method or cyclic reduction in shared memory), and those too long for one block in
// segments across blocks (kernels/segmented_line_sweeps.cuh); longer y-lines either several
// adjacent ones per block, read in place (narrow grids), or as x-lines of the transposed grid:
// b and x_in are transposed (tiled, coalesced), swept, and the result transposed back
// (docs/performance.md, "Line solver choice by length",
// "y-lines transposed from 256 columns", "Lines longer than one block: segments across blocks").

#include "device_memory.cuh"
#include "kernels/line_sweeps.cuh"
#include "kernels/segmented_line_sweeps.cuh"
#include "kernels/transpose.cuh"
#include "launcher.cuh"
#include "policy.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace adimg {

class LineSweeps {
public:
    LineSweeps(Launcher& launch, const LinePolicy& policy) : launch_(launch), policy_(policy) {}

    /// One ADI half-step: every line of `direction` solved with the off-line couplings of x_in on
    /// the right-hand side, and x_out = x_in + omega (solution - x_in); for each of `columns`
    /// right-hand sides side by side (b, x_in and x_out hold that many vectors of A's grid), in
    /// the same launches.
    template <class T>
    void relax(const DeviceBands<T>& A, const T* b, const T* x_in, T* x_out, Direction direction, T omega, int columns = 1) {
        if ((direction == Direction::x ? A.mx : A.my) <= warp_lines_up_to()) {
            relax_by_warps(A.view(), b, x_in, x_out, omega, direction, columns);
            return;
        }
        if (direction == Direction::x) {
            relax_in_blocks(A.view(), b, x_in, x_out, omega, Direction::x, 1, columns);
            return;
        }
        if (!y_transposed(A)) {
            relax_in_blocks(A.view(), b, x_in, x_out, omega, Direction::y, y_lines_per_block<T>(A.my, A.mx), columns);
            return;
        }
        const auto [bt, xt, yt] = transposed_grids(A, columns);
        const std::size_t n = A.values.size() / 9;
        for (int c = 0; c < columns; ++c) transpose<T>({{b + c * n, bt + c * n}, {x_in + c * n, xt + c * n}}, A.my, A.mx);
        relax_in_blocks(A.transposed_view(), bt, xt, yt, omega, Direction::x, 1, columns);
        for (int c = 0; c < columns; ++c) transpose<T>({{yt + c * n, x_out + c * n}}, A.mx, A.my);
    }

    /// Band (dx, dy) of the grid becomes band (dy, dx) of the transposed grid.
    template <class T>
    void transpose_bands(const DeviceBands<T>& A) {
        if (A.transposed.size() != A.values.size()) A.transposed = DeviceVector<T>(A.values.size());
        const std::size_t n = static_cast<std::size_t>(A.mx) * A.my;
        auto band = [&](int k) {
            return std::pair<const T*, T*>{A.values.data() + k * n, A.transposed.data() + band_index(band_dy(k), band_dx(k)) * n};
        };
        transpose<T>({band(0), band(1), band(2), band(3), band(4), band(5), band(6), band(7), band(8)}, A.my, A.mx);
    }

    /// Makes now what the sweeps of `columns` right-hand sides side by side on A's grid allocate
    /// at their first call (the transposed bands, the transposed grids' scratch), so that
    /// running out of device memory shows here, where a batch can still fall back.
    template <class T>
    void reserve(const DeviceBands<T>& A, int columns) {
        if (y_transposed(A)) transposed_grids(A, columns);
    }

    /// Device bytes of the sweeps' scratch vectors (transposed grids, segment ends).
    std::size_t workspace_bytes() const {
        std::size_t total = 0;
        for (const auto& v : std::get<0>(scratch_)) total += v.size() * sizeof(float);
        for (const auto& v : std::get<1>(scratch_)) total += v.size() * sizeof(double);
        for (const auto& v : std::get<0>(retired_)) total += v.size() * sizeof(float);
        for (const auto& v : std::get<1>(retired_)) total += v.size() * sizeof(double);
        return total;
    }

    // --- the choices, for the tests and benchmarks that check each path -------------------------
    int warp_lines_up_to() const { return std::min(policy_.warp_lines_up_to, warp_line_max); }
    /// Adjacent y-lines of `length` unknowns, on a grid of `columns` columns, solved by one
    /// cyclic-reduction block in place; 0: the grid is transposed instead. Narrow grids are
    /// launch-bound and sweep in place (one launch instead of three), float 4 lines per block,
    /// double 1. The count is halved until that many line buffers with no level-0 staging fit
    /// shared memory (to 0 where not even one does).
    template <class T>
    int y_lines_per_block(int length, int columns) const {
        int lines = policy_.y_lines_per_block.value_or(columns < policy_.transposed_from ? (sizeof(T) == 4 ? 4 : 1) : 0);
        lines = std::min(lines, cr_max_lines_per_block);
        while (lines > 0 && !cr_fits<T>(length, lines)) lines /= 2;
        return lines;
    }
    /// The most shared memory one block of a sweep may take: the device's limit, or the policy's
    /// if lower.
    std::size_t shared_budget() const {
        return std::min(policy_.shared_bytes.value_or(launch_.shared_limit()), launch_.shared_limit());
    }
    /// Whether `lines` lines of `length` unknowns fit one cyclic-reduction block with no level-0
    /// staging (the least shared memory of any one-block solver).
    template <class T>
    bool cr_fits(int length, int lines = 1) const {
        return make_cr_layout(length, sizeof(T), CrStaging::none, lines).block_words() * sizeof(T) <= shared_budget();
    }
    /// Whether a line of `length` >= 2 unknowns fits one partition-method block.
    template <class T>
    bool partition_fits(int length) const {
        return partition_layout<T>(length, policy_.partition_slots).words() * sizeof(T) <= shared_budget();
    }
    /// The partition method's layout of a line of `length` unknowns, `slots` equations per lane.
    template <class T>
    PartitionLayout partition_layout(int length, int slots) const {
        return make_partition_layout<T>(length, partition_chunks<T>(length), slots);
    }
    /// Whether lines of `length` unknowns are solved by the partition method: from
    /// partitioned_from on, where they fit shared memory.
    template <class T>
    bool partitioned(int length) const {
        return length >= policy_.partitioned_from && partition_fits<T>(length);
    }
    /// The longest segment of a line too long for one block: the longest line one
    /// partition-method block holds; 0 if that is less than 3 (a cut into segments of at most 2
    /// could leave one of a single unknown, and the method needs 2).
    template <class T>
    int longest_segment() const {
        return partition_fits<T>(3) ? longest_fitting(3, 1 << 20, [&](int n) { return partition_fits<T>(n); }) : 0;
    }
    /// How lines of `length` unknowns that fit no block are cut: into as few segments as fit
    /// one partition-method block each, their lengths differing by one at most, `slots`
    /// equations per lane. Throws device_error if a line needs more segments than one warp's
    /// solve of the segment ends takes.
    template <class T>
    kernels::LineSegments line_segments(int length, int slots) const {
        const int longest = longest_segment<T>();
        const int count = longest > 0 ? (length + longest - 1) / longest : 0;
        if (count < 1 || 2 * count > warp_line_max)
            throw device_error("a line of " + std::to_string(length) + " unknowns in " + (sizeof(T) == 4 ? "float" : "double") +
                               " fits no block of " + std::to_string(shared_budget()) + " bytes of shared memory on " +
                               launch_.device_name() + ", and in segments of the " + std::to_string(longest) +
                               " unknowns one block holds it needs " +
                               (count < 1 ? std::string("more") : std::to_string(count)) + " of them; the multi-block " +
                               "line solve takes at most " + std::to_string(warp_line_max / 2) +
                               ": use a lower level, or the jacobi or gauss-seidel smoother");
        const Chunks cut = make_chunks(length, count);
        return {cut, partition_layout<T>(cut.length + 1, slots), partition_layout<T>(cut.length, slots)};
    }
    /// Chunks per line of the partition method (two threads each): 128 up to 1025 unknowns
    /// (float: up to 2049), 256 beyond.
    template <class T>
    int partition_chunks(int length) const {
        if (policy_.partition_chunks) return *policy_.partition_chunks;
        return length <= (sizeof(T) == 4 ? 2049 : 1025) ? 128 : 256;
    }
    /// The longest line cyclic reduction can solve in precision T in one block of this device
    /// (of the policy's shared memory, if less).
    template <class T>
    int longest_line() const {
        return longest_fitting(1, 1 << 16, [&](int n) { return cr_fits<T>(n); });
    }
    /// Layout of `lines` lines of `length` unknowns for one cyclic-reduction block; throws
    /// device_error if one line does not fit shared memory. The level-0 staging is `forced` if
    /// given, else the policy's, else `preferred`, else line_staging()'s; unless forced, it falls
    /// back to none where the choice does not fit.
    template <class T>
    CrLayout line_layout(int length, std::optional<CrStaging> forced = {}, std::optional<CrStaging> preferred = {},
                         int lines = 1) const {
        const CrStaging chosen = forced ? *forced : policy_.staging ? *policy_.staging : preferred ? *preferred : line_staging<T>(length);
        CrLayout layout = make_cr_layout(length, sizeof(T), chosen, lines);
        auto bytes = [&] { return layout.block_words() * sizeof(T); };
        if (!forced && bytes() > shared_budget()) layout = make_cr_layout(length, sizeof(T), CrStaging::none, lines);
        if (bytes() > shared_budget())
            throw device_error("a line of " + std::to_string(length) + " unknowns needs " +
                               std::to_string(bytes() / lines / 1024) + " KiB of shared memory in " +
                               (sizeof(T) == 4 ? "float" : "double") + ", but " + launch_.device_name() + " gives " +
                               std::to_string(shared_budget() / 1024) + " KiB per block: the longest line is " +
                               std::to_string(longest_line<T>()) +
                               " unknowns; use a lower level, or the jacobi or gauss-seidel smoother");
        return layout;
    }
    /// Which equations of level 0 cyclic reduction keeps in shared memory: float lines only the
    /// evens from 513 unknowns on, double lines all of level 0 wherever it fits.
    template <class T>
    static CrStaging line_staging(int length) {
        const int all_up_to = sizeof(T) == 4 ? 257 : 4097;
        return length <= all_up_to ? CrStaging::all : CrStaging::evens;
    }
    /// Threads per line of cyclic reduction: 128 (float) or 256 (double) up to 1025 unknowns, 256
    /// or 512 up to 2049, 512 beyond; fewer for short lines.
    template <class T>
    static int line_threads(int length) {
        const int cap = length <= 1025   ? (sizeof(T) == 4 ? 128 : 256)
                        : length <= 2049 ? (sizeof(T) == 4 ? 256 : 512)
                                         : kernels::max_line_threads;
        return std::clamp(1 << static_cast<int>(std::ceil(std::log2(std::max(length / 2, 1)))), 32, cap);
    }
    /// Threads of a partition-method block: `asked`, or two per chunk (the loads and stores use
    /// them all, the chunks one each); a whole number of warps, since warp 0 solves the coupling
    /// system with all its lanes.
    static int partition_threads(const PartitionLayout& layout, int asked) {
        const int threads = asked > 0 ? asked : 2 * layout.line.count;
        return std::clamp((threads + warp_lanes - 1) / warp_lanes * warp_lanes, warp_lanes, 2 * partition_max_chunks);
    }
    /// Calls f(std::integral_constant<int, slots>) for the equations per lane of the partition
    /// method's coupling warp.
    template <class F>
    void with_partition_slots(F&& f) const {
        if (!Launcher::with_constant<2, 8>(policy_.partition_slots, f))
            throw std::invalid_argument("partition method: 2 or 8 equations per lane, not " +
                                        std::to_string(policy_.partition_slots));
    }
    /// Calls f(std::integral_constant<CrStaging, s>) for a level-0 staging of cyclic reduction.
    template <class F>
    static void with_staging(CrStaging staging, F&& f) {
        Launcher::with_constant<CrStaging::all, CrStaging::evens, CrStaging::none>(staging, f);
    }

private:
    /// Whether A's y-lines, too long for a warp each, are swept as x-lines of the transposed grid
    /// (not several in place per block).
    template <class T>
    bool y_transposed(const DeviceBands<T>& A) const {
        return A.my > warp_lines_up_to() && y_lines_per_block<T>(A.my, A.mx) == 0;
    }
    /// The transposed bands (made at the first call) and the scratch of a transposed y-sweep of
    /// `columns` right-hand sides: b, x_in and the result on the transposed grid.
    template <class T>
    std::array<T*, 3> transposed_grids(const DeviceBands<T>& A, int columns) {
        if (A.transposed.size() != A.values.size()) transpose_bands(A);
        const std::size_t n = A.values.size() / 9 * columns;
        const int set = columns > 1 ? batch_scratch : 0;
        return {scratch<T>(set + 0, n), scratch<T>(set + 1, n), scratch<T>(set + 2, n)};
    }

    /// The largest n in [lo, hi) with fits(n), by bisection: fits(lo) holds and fits is monotone.
    template <class Fits>
    static int longest_fitting(int lo, int hi, const Fits& fits) {
        while (lo + 1 < hi) {
            const int mid = (lo + hi) / 2;
            (fits(mid) ? lo : hi) = mid;
        }
        return lo;
    }
    /// One sweep by cyclic reduction or the partition method, `lines` (1, 2, 4 or 8) lines per
    /// block; by segments across blocks where one line fits no block (one right-hand side after
    /// another: the segment ends' scratch holds one).
    template <class T>
    void relax_in_blocks(BandsView<T> A, const T* b, const T* x_in, T* x_out, T omega, Direction direction, int lines,
                         int columns) {
        const bool along_x = direction == Direction::x;
        const int length = along_x ? A.mx : A.my, count = along_x ? A.my : A.mx;
        if (lines == 1 && partitioned<T>(length)) {
            with_partition_slots([&](auto slots) {
                const PartitionLayout layout = partition_layout<T>(length, slots);
                auto kernel = kernels::line_relax_partitioned<T, decltype(slots)::value>;
                launch_("line_relax_partitioned kernel", kernel, count * columns,
                        partition_threads(layout, policy_.threads_per_line.value_or(0)),
                        launch_.allow_shared(kernel, layout.words() * sizeof(T)), A, b, x_in, x_out, direction, omega, layout,
                        columns);
            });
            return;
        }
        if (lines == 1 && !cr_fits<T>(length)) {
            const std::size_t n = static_cast<std::size_t>(A.mx) * A.my;
            for (int c = 0; c < columns; ++c) relax_in_segments(A, b + c * n, x_in + c * n, x_out + c * n, omega, direction);
            return;
        }
        const CrLayout layout = line_layout<T>(length, {}, {}, lines);
        const int per_line = policy_.threads_per_line.value_or(line_threads<T>(length));
        const int threads = std::min(per_line, kernels::max_line_threads / lines) * lines;
        with_staging(layout.staging, [&](auto s) {
            const bool launched = Launcher::with_constant<1, 2, 4, 8>(lines, [&](auto g) {
                auto kernel = kernels::line_relax<T, decltype(s)::value, decltype(g)::value>;
                const std::size_t bytes = launch_.allow_shared(kernel, layout.block_words() * sizeof(T));
                launch_("line_relax kernel", kernel, (count + lines - 1) / lines * columns, threads, bytes, A, b, x_in, x_out,
                        direction, omega, layout, columns);
            });
            if (!launched) throw std::logic_error("no line kernel for " + std::to_string(lines) + " lines per block");
        });
    }
    /// One sweep of lines too long for one block, in three launches: each segment reduced to its
    /// coupling equations, each line's segment ends solved by one warp, each segment solved
    /// with its outside neighbours known and stored damped (kernels/segmented_line_sweeps.cuh).
    template <class T>
    void relax_in_segments(BandsView<T> A, const T* b, const T* x_in, T* x_out, T omega, Direction direction) {
        const bool along_x = direction == Direction::x;
        const int length = along_x ? A.mx : A.my, count = along_x ? A.my : A.mx;
        with_partition_slots([&](auto slots) {
            const kernels::LineSegments segments = line_segments<T>(length, slots);
            const int per_line = segments.cut.count, equations = 2 * per_line;
            const kernels::ReducedLines<T> reduced{scratch<T>(3, 3 * static_cast<std::size_t>(equations) * count), equations};
            const std::size_t words = std::max(segments.longer.words(), segments.shorter.words());
            const int threads = partition_threads(segments.longer, policy_.threads_per_line.value_or(0));
            auto reduce = kernels::line_reduce_segments<T>;
            launch_("line_reduce_segments kernel", reduce, count * per_line, threads,
                    launch_.allow_shared(reduce, words * sizeof(T)), A, b, x_in, direction, segments, reduced);
            auto solve = [&](auto lanes) {
                launch_("line_solve_reduced kernel", kernels::line_solve_reduced<T, decltype(lanes)::value>,
                        dim3((count + kernels::warps_per_line_block - 1) / kernels::warps_per_line_block),
                        dim3(kernels::warps_per_line_block * warp_lanes), 0, reduced, count);
            };
            if (!Launcher::with_constant<1, 2, 3, 5, 9, 17>(warp_line_slots(equations), solve))
                throw std::logic_error("no warp kernel for the " + std::to_string(equations) + " segment ends of a line");
            auto relax = kernels::line_relax_segments<T, decltype(slots)::value>;
            launch_("line_relax_segments kernel", relax, count * per_line, threads,
                    launch_.allow_shared(relax, words * sizeof(T)), A, b, x_in, x_out, direction, omega, segments, reduced);
        });
    }
    /// One sweep with a warp per line, in place for either direction.
    template <class T>
    void relax_by_warps(BandsView<T> A, const T* b, const T* x_in, T* x_out, T omega, Direction direction, int columns) {
        const bool along_x = direction == Direction::x;
        const int length = along_x ? A.mx : A.my, lines = along_x ? A.my : A.mx;
        const dim3 grid((lines + kernels::warps_per_line_block - 1) / kernels::warps_per_line_block * columns);
        const dim3 block(kernels::warps_per_line_block * warp_lanes);
        auto run = [&](auto slots) {
            launch_("line_relax_warp kernel", kernels::line_relax_warp<T, decltype(slots)::value>, grid, block, 0, A, b, x_in,
                    x_out, direction, omega, columns);
        };
        if (!Launcher::with_constant<1, 2, 3, 5, 9, 17>(warp_line_slots(length), run))
            throw std::logic_error("no warp line kernel for " + std::to_string(length) + " unknowns");
    }
    /// out (cols x rows) = in (rows x cols) transposed, for every (in, out) pair, in one launch.
    template <class T>
    void transpose(std::initializer_list<std::pair<const T*, T*>> arrays, int rows, int cols) {
        kernels::TransposePairs<T> pairs{};
        int count = 0;
        for (auto [in, out] : arrays) {
            pairs.in[count] = in;
            pairs.out[count++] = out;
        }
        launch_("transpose kernel", kernels::transpose<T>,
                dim3((cols + kernels::tile_x - 1) / kernels::tile_x, (rows + kernels::tile_x - 1) / kernels::tile_x, count),
                dim3(kernels::tile_x, kernels::tile_y), 0, pairs, rows, cols);
    }
    /// Scratch vectors, kept at the largest size asked for: 0-2 for the transposed sweeps, 3 for
    /// the segment ends of lines too long for one block, and batch_scratch + 0-2 for transposed
    /// sweeps of several right-hand sides. A recorded cycle holds the addresses it was recorded
    /// with, so a buffer outgrown is kept (retired_), not freed: a recording made before a larger
    /// level or batch needed more still finds its buffers.
    template <class T>
    T* scratch(int slot, std::size_t n) {
        DeviceVector<T>& v = std::get<std::array<DeviceVector<T>, scratch_slots>>(scratch_)[slot];
        if (v.size() < n) {
            if (v.size() > 0) std::get<std::vector<DeviceVector<T>>>(retired_).push_back(std::move(v));
            v = DeviceVector<T>(n);
        }
        return v.data();
    }
    static constexpr int batch_scratch = 4, scratch_slots = 7;

    Launcher& launch_;
    const LinePolicy policy_;
    std::tuple<std::array<DeviceVector<float>, scratch_slots>, std::array<DeviceVector<double>, scratch_slots>> scratch_;
    std::tuple<std::vector<DeviceVector<float>>, std::vector<DeviceVector<double>>> retired_;
};

}  // namespace adimg
