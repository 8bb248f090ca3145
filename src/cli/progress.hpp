#pragma once
// A progress line for a phase of the tool that may take long: nothing for a phase shorter than a
// second; "adimg: <phase> ..." on stderr once it has run a second, and "adimg: <phase> done in
// 2.3 s" when it ends. Stderr, so that the reports on stdout stay as they are.

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace adimg::cli {

class Progress {
public:
    explicit Progress(std::string phase)
        : phase_(std::move(phase)), start_(std::chrono::steady_clock::now()), watcher_([this] { watch(); }) {}

    ~Progress() {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
        }
        ended_.notify_one();
        watcher_.join();
        if (shown_)
            std::fprintf(stderr, "adimg: %s done in %.1f s\n", phase_.c_str(),
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
    }

    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

private:
    void watch() {
        std::unique_lock<std::mutex> lock(mutex_);
        if (ended_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; })) return;
        std::fprintf(stderr, "adimg: %s ...\n", phase_.c_str());
        shown_ = true;
    }

    std::string phase_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mutex_;
    std::condition_variable ended_;
    bool done_ = false;
    bool shown_ = false;  // written by the watcher before it ends, read after join()
    std::thread watcher_;  // last: it starts once the members above exist
};

}  // namespace adimg::cli
