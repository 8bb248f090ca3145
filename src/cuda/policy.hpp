#pragma once
// The CUDA backend's measured choices, fixed when a backend is constructed. The defaults are the
// fastest settings measured on the H200 (docs/performance.md names each benchmark); benchmarks
// and tests construct a backend with another policy to compare or to reach every code path.

#include "../lines/cyclic_reduction.hpp"

#include <cstddef>
#include <optional>

namespace adimg {

/// How the ADI line sweeps solve their lines (docs/performance.md, "Line solver choice by
/// length" and the sections after it).
struct LinePolicy {
    /// Lines up to this length are solved one warp each in registers (warp_line_solve.hpp);
    /// longer ones in shared memory.
    int warp_lines_up_to = 129;
    /// Lines of at least this length that fit shared memory are solved by the partition method
    /// (partition_method.hpp), shorter ones by cyclic reduction.
    int partitioned_from = 257;
    /// Equations per lane of the partition method's coupling warp: 2 (a second level in warp 0)
    /// or 8 (all in registers).
    int partition_slots = 2;
    /// Grids of at least this many columns sweep their y-lines as x-lines of the transposed grid;
    /// narrower ones read them in place, several per block.
    int transposed_from = 256;
    /// Instead of the measured rules: the level-0 staging of cyclic reduction, y-lines per block
    /// in place (0: transposed), threads per line, chunks per line of the partition method.
    std::optional<CrStaging> staging;
    std::optional<int> y_lines_per_block;
    std::optional<int> threads_per_line;
    std::optional<int> partition_chunks;
    /// The most shared memory, in bytes, one block of a sweep may take (unset: the device's
    /// limit). Lines that fit no block are cut into segments across blocks; the tests set it low
    /// to reach that path with short lines.
    std::optional<std::size_t> shared_bytes;
};

/// Every choice of a CudaBackend.
struct CudaPolicy {
    LinePolicy lines;
    /// Restrict the defect in one fused pass (true), as a defect and a restriction (false), or by
    /// grid size (docs/performance.md, "Defect and restriction fused on large grids").
    std::optional<bool> fused_restriction;
    /// Record the V-cycle once as a CUDA graph and replay it (docs/performance.md, "Graphs and
    /// programmatic dependent launches").
    bool graphs = true;
    /// Launch kernels as programmatic dependent launches where the device (sm_90 or newer) and
    /// the build support them.
    bool programmatic_launch = true;
    /// Host transfers in chunks of this many bytes instead of the measured rule, and staged even
    /// from page-locked memory (docs/performance.md, "Staging chunk sizes",
    /// "b and x in pinned memory").
    std::optional<std::size_t> transfer_chunk_bytes;
    bool staged_transfers = false;
};

}  // namespace adimg
