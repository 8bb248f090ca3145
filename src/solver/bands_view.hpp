#pragma once
// The nine bands as the backends' kernels read them: a view usable on host and device.

#include <adimg/nine_bands.hpp>

#include "../common/host_device.hpp"

namespace adimg {

/// A non-owning view of nine bands, usable on host and device.
template <class T>
struct BandsView {
    const T* values = nullptr;
    int mx = 0;
    int my = 0;

    ADIMG_HD std::size_t rows() const { return static_cast<std::size_t>(mx) * static_cast<std::size_t>(my); }
    ADIMG_HD T operator()(int k, std::size_t p) const { return values[k * rows() + p]; }
};

template <class T>
BandsView<T> view(const NineBands<T>& A) { return {A.values.data(), A.mx, A.my}; }

}  // namespace adimg
