#pragma once
// The 32 lanes of a warp on the host, one array each: the Warp of warp_line_solve() and
// partitioned_line_solve() for tests.
// Arithmetic is lane by lane; rotate() is the shuffle every lane does at the same time.

#include <lines/warp_line_solve.hpp>

#include <array>

namespace adimg::test {

template <class T>
struct Lanes {
    std::array<T, warp_lanes> v{};
    Lanes() = default;
    explicit Lanes(T same) { v.fill(same); }
    T& operator[](int l) { return v[l]; }
    const T& operator[](int l) const { return v[l]; }
};

template <class T, class Op>
auto lane_wise(const Lanes<T>& x, const Lanes<T>& y, Op op) {
    Lanes<decltype(op(x[0], y[0]))> out;
    for (int l = 0; l < warp_lanes; ++l) out[l] = op(x[l], y[l]);
    return out;
}
template <class T> Lanes<T> operator+(const Lanes<T>& x, const Lanes<T>& y) { return lane_wise(x, y, [](T a, T b) { return a + b; }); }
template <class T> Lanes<T> operator-(const Lanes<T>& x, const Lanes<T>& y) { return lane_wise(x, y, [](T a, T b) { return a - b; }); }
template <class T> Lanes<T> operator*(const Lanes<T>& x, const Lanes<T>& y) { return lane_wise(x, y, [](T a, T b) { return a * b; }); }
template <class T> Lanes<T> operator/(const Lanes<T>& x, const Lanes<T>& y) { return lane_wise(x, y, [](T a, T b) { return a / b; }); }
template <class T> Lanes<T> operator-(const Lanes<T>& x) { return Lanes<T>(T(0)) - x; }
template <class T> Lanes<T>& operator-=(Lanes<T>& x, const Lanes<T>& y) { return x = x - y; }
template <class T> Lanes<bool> operator>=(const Lanes<T>& x, int s) { return lane_wise(x, Lanes<T>(T(s)), [](T a, T b) { return a >= b; }); }
template <class T> Lanes<bool> operator<(const Lanes<T>& x, int s) { return lane_wise(x, Lanes<T>(T(s)), [](T a, T b) { return a < b; }); }

/// The Warp of warp_line_solve(): all 32 lanes at once.
struct HostWarp {
    Lanes<int> lane() const {
        Lanes<int> l;
        for (int i = 0; i < warp_lanes; ++i) l[i] = i;
        return l;
    }
    template <class T>
    Lanes<T> rotate(const Lanes<T>& x, int s) const {
        Lanes<T> out;
        for (int l = 0; l < warp_lanes; ++l) out[l] = x[(l - s) & (warp_lanes - 1)];
        return out;
    }
    template <class T>
    Lanes<T> select(const Lanes<bool>& mask, const Lanes<T>& a, const Lanes<T>& b) const {
        Lanes<T> out;
        for (int l = 0; l < warp_lanes; ++l) out[l] = mask[l] ? a[l] : b[l];
        return out;
    }
    /// Every lane's f(lane): the lanes' reads of shared memory.
    template <class F>
    auto gather(F&& f) const {
        Lanes<decltype(f(0))> out;
        for (int l = 0; l < warp_lanes; ++l) out[l] = f(l);
        return out;
    }
    /// f(lane, value of that lane) for every lane: the lanes' writes to shared memory.
    template <class T, class F>
    void scatter(const Lanes<T>& values, F&& f) const {
        for (int l = 0; l < warp_lanes; ++l) f(l, values[l]);
    }
    /// f(lane) for every lane: each lane's own work.
    template <class F>
    void each_lane(F&& f) const {
        for (int l = 0; l < warp_lanes; ++l) f(l);
    }
};

}  // namespace adimg::test
