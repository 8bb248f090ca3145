#pragma once
// Counts the copies between host and device that carry a vector (at least a given number of
// bytes), through CUPTI's activity records of every memcpy the process makes: the check that a
// solve on device memory moves no vector across PCIe.

#include "cupti_activity.hpp"

#include <cstdint>

namespace adimg::bench {

class TransferCounter {
public:
    struct Counts {
        long long to_device = 0, to_host = 0;
    };

    /// Starts recording; copies of at least `vector_bytes` bytes count.
    explicit TransferCounter(std::uint64_t vector_bytes)
        : recording_(CUPTI_ACTIVITY_KIND_MEMCPY, [this, vector_bytes](const CUpti_Activity& record) {
              const auto& copy = reinterpret_cast<const CUpti_ActivityMemcpy6&>(record);
              if (record.kind != CUPTI_ACTIVITY_KIND_MEMCPY || copy.bytes < vector_bytes) return;
              if (copy.copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD) ++counts_.to_device;
              if (copy.copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH) ++counts_.to_host;
          }) {}

    /// The vector copies since the counter started (flushes CUPTI's buffers).
    Counts counted() const {
        recording_.flush();
        return counts_;
    }

private:
    mutable Counts counts_;        // written by the recording's function, also for a const counter
    ActivityRecording recording_;  // after counts_, which its function writes
};

}  // namespace adimg::bench
