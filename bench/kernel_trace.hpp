#pragma once
// Every kernel a stretch of a program runs, traced by CUPTI (those its CUDA graphs launch too),
// with its stream: what exchange_profile splits into a solver's and NCCL's kernels, and what
// device_bench's traced batch measures the overlap of its lanes with.

#include "cupti_activity.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace adimg::bench {

struct KernelSpan {
    std::uint64_t start = 0, end = 0;  ///< nanoseconds, CUPTI's clock
    std::uint32_t stream = 0;
    std::uint64_t threads = 0;  ///< of the launch: grid size times block size
    std::string name;
};

/// The kernels CUPTI reports between start() and stop() (concurrent-kernel records), by start.
class KernelTrace {
public:
    void start() {
        spans_.clear();
        recording_.emplace(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, [this](const CUpti_Activity& record) {
            if (record.kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) return;
            const auto& k = reinterpret_cast<const CUpti_ActivityKernel10&>(record);
            const std::uint64_t threads = std::uint64_t(k.gridX) * k.gridY * k.gridZ * k.blockX * k.blockY * k.blockZ;
            spans_.push_back({k.start, k.end, k.streamId, threads, k.name ? k.name : "?"});
        });
    }
    std::vector<KernelSpan> stop() {
        recording_.reset();  // flushes what CUPTI still holds into spans_
        std::sort(spans_.begin(), spans_.end(), [](const KernelSpan& a, const KernelSpan& b) { return a.start < b.start; });
        return spans_;
    }

private:
    std::vector<KernelSpan> spans_;
    std::optional<ActivityRecording> recording_;
};

/// Nanoseconds covered by the union of the (start-sorted) spans: the time some kernel ran.
inline std::uint64_t covered(const std::vector<KernelSpan>& spans) {
    std::uint64_t total = 0, reach = 0;
    for (const KernelSpan& s : spans) {
        if (s.end <= reach) continue;
        total += s.end - std::max(s.start, reach);
        reach = s.end;
    }
    return total;
}

/// Nanoseconds of all the spans' durations added up: covered() times the mean number of kernels
/// running at once.
inline std::uint64_t summed(const std::vector<KernelSpan>& spans) {
    std::uint64_t total = 0;
    for (const KernelSpan& s : spans) total += s.end - s.start;
    return total;
}

}  // namespace adimg::bench
