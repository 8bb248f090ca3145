#pragma once
// The step sizes of the coarse-grid CG, computed where the scalars live (host or device).

#include "../common/host_device.hpp"

namespace adimg {

/// (num - num_minus) / den, or 0 when den is 0: CG on a system it has already solved exactly
/// meets 0 / 0 and must then take no step.
ADIMG_HD double scalar_ratio(double num, double num_minus, double den) { return den != 0.0 ? (num - num_minus) / den : 0.0; }

}  // namespace adimg
