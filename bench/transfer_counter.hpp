#pragma once
// Counts the copies between host and device that carry a vector (at least a given number of
// bytes), through CUPTI's activity records of every memcpy the process makes: the check that a
// solve on device memory moves no vector across PCIe.

#include <cupti.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace adimg::bench {

class TransferCounter {
public:
    /// Starts recording; copies of at least `vector_bytes` bytes count.
    explicit TransferCounter(std::uint64_t vector_bytes) {
        minimum_bytes() = vector_bytes;
        counts() = {};
        check(cuptiActivityRegisterCallbacks(&TransferCounter::give_buffer, &TransferCounter::take_buffer),
              "cuptiActivityRegisterCallbacks");
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "cuptiActivityEnable");
    }
    ~TransferCounter() { cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY); }

    struct Counts {
        long long to_device = 0, to_host = 0;
    };
    /// The vector copies since the counter started (flushes CUPTI's buffers).
    Counts counted() const {
        check(cuptiActivityFlushAll(1), "cuptiActivityFlushAll");
        return counts();
    }

private:
    static void check(CUptiResult status, const char* call) {
        if (status == CUPTI_SUCCESS) return;
        const char* text = nullptr;
        cuptiGetResultString(status, &text);
        throw std::runtime_error(std::string(call) + " failed: " + (text ? text : "unknown CUPTI error") +
                                 " (is libcupti.so.13 on LD_LIBRARY_PATH?)");
    }
    static std::uint64_t& minimum_bytes() {
        static std::uint64_t bytes = 0;
        return bytes;
    }
    static Counts& counts() {
        static Counts c;
        return c;
    }
    static void CUPTIAPI give_buffer(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
        *size = std::size_t(1) << 20;
        *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, *size));
        *max_records = 0;
    }
    static void CUPTIAPI take_buffer(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
        CUpti_Activity* record = nullptr;
        while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
            if (record->kind != CUPTI_ACTIVITY_KIND_MEMCPY) continue;
            const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
            if (copy->bytes < minimum_bytes()) continue;
            if (copy->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD) ++counts().to_device;
            if (copy->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH) ++counts().to_host;
        }
        std::free(buffer);
    }
};

}  // namespace adimg::bench
