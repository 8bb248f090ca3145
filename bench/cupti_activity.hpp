#pragma once
// CUPTI's activity records of one kind, handed to a function as CUPTI delivers them: what
// device_bench counts copies with (transfer_counter.hpp) and exchange_profile traces kernels with.

#include <cupti.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

namespace adimg::bench {

/// While it lives, every activity record of `kind` goes to `take` (one recording at a time in a
/// process: CUPTI's callbacks are the process's). flush() delivers the records still buffered; the
/// destructor flushes too, then stops the recording.
class ActivityRecording {
public:
    using Take = std::function<void(const CUpti_Activity&)>;

    ActivityRecording(CUpti_ActivityKind kind, Take take) : kind_(kind) {
        taker() = std::move(take);
        check(cuptiActivityRegisterCallbacks(&ActivityRecording::give_buffer, &ActivityRecording::take_buffer),
              "cuptiActivityRegisterCallbacks");
        check(cuptiActivityEnable(kind), "cuptiActivityEnable");
    }
    ~ActivityRecording() {
        cuptiActivityFlushAll(1);
        cuptiActivityDisable(kind_);
        taker() = {};
    }
    ActivityRecording(const ActivityRecording&) = delete;
    ActivityRecording& operator=(const ActivityRecording&) = delete;

    void flush() const { check(cuptiActivityFlushAll(1), "cuptiActivityFlushAll"); }

private:
    static void check(CUptiResult status, const char* call) {
        if (status == CUPTI_SUCCESS) return;
        const char* text = nullptr;
        cuptiGetResultString(status, &text);
        throw std::runtime_error(std::string(call) + " failed: " + (text ? text : "unknown CUPTI error") +
                                 " (is libcupti.so.13 on LD_LIBRARY_PATH?)");
    }
    static Take& taker() {
        static Take take;
        return take;
    }
    static void CUPTIAPI give_buffer(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
        *size = std::size_t(8) << 20;
        *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, *size));
        *max_records = 0;
    }
    static void CUPTIAPI take_buffer(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
        CUpti_Activity* record = nullptr;
        while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
            if (taker()) taker()(*record);
        std::free(buffer);
    }

    CUpti_ActivityKind kind_;
};

}  // namespace adimg::bench
