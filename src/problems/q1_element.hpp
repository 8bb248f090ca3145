#pragma once
// The Q1 element stiffness matrix on a rectangle, for the host assembly and device code alike.

#include "../common/host_device.hpp"

namespace adimg {

/// Entry (a,b)-(c,d) of the Q1 stiffness matrix on an hx x hy rectangle, local nodes numbered by
/// their x and y offsets in {0,1}: K_e = (hy/hx) K1 ⊗ M1 + (hx/hy) M1 ⊗ K1 with
/// K1 = [1 -1; -1 1], M1 = [1/3 1/6; 1/6 1/3], the first factor acting in x. Exact: no quadrature.
ADIMG_HD double q1_stiffness(double hx, double hy, int a, int b, int c, int d) {
    const double k_x = a == c ? 1.0 : -1.0, m_x = a == c ? 1.0 / 3.0 : 1.0 / 6.0;
    const double k_y = b == d ? 1.0 : -1.0, m_y = b == d ? 1.0 / 3.0 : 1.0 / 6.0;
    return (hy / hx) * k_x * m_y + (hx / hy) * m_x * k_y;
}

}  // namespace adimg
