#pragma once
// Wall-clock seconds since a point of the steady clock: how the library times its phases.

#include <chrono>

namespace adimg {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace adimg
