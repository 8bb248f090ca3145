#pragma once
// Whether the ranks run on their GPUs, decided alike on every rank (they must agree, or some would
// wait forever): for adimg::DistributedSolver and adimg::DistributedFastDirectSolver.

#include <adimg/options.hpp>

#include "communicator.hpp"

#include <string>

namespace adimg {

/// For `backend`, collectively: cpu never; cuda if every rank has a usable GPU, else a
/// device_error that names `solver`, how many ranks have none and the first one's reason;
/// automatic likewise, else CPU ranks with `notice` saying why (the same on every rank).
bool gpu_ranks(Communicator& comm, BackendKind backend, const std::string& solver, std::string& notice);

}  // namespace adimg
