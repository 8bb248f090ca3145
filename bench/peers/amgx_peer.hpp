// NVIDIA AmgX as a peer of adimg (bench/peers/README.md, "AmgX"): PCG with one V-cycle of AmgX's
// classical AMG or of its aggregation AMG as the preconditioner, or FGMRES with one V-cycle of
// aggregation AMG smoothed by multicolour DILU, in AmgX's double mode on the GPU (dDDI), given the
// matrix from host arrays like every other peer. Compiled into
// peer_bench_amgx only (a program of its own, so that peer_bench never needs libamgxsh).
#pragma once

#include "peer.hpp"

#include <memory>
#include <string>

namespace adimg_peers {

/// The shipped configuration a peer runs (AmgX's src/configs/): PCG_CLASSICAL_V_JACOBI.json,
/// PCG_AGGREGATION_JACOBI.json or FGMRES_AGGREGATION.json.
enum class AmgxAmg { classical, aggregation, fgmres_aggregation };

/// AmgX's configuration for a run (JSON, AmgX's config_version 2): the shipped file with the
/// run's stop and iteration limit and AmgX's own printing off.
std::string amgx_config(AmgxAmg amg, const Settings& s);

std::unique_ptr<Peer> make_amgx_peer(AmgxAmg amg);

/// AMGX_initialize for the life of the object (once per process, before any AmgX peer), and
/// AMGX_finalize after.
class AmgxLibrary {
public:
    AmgxLibrary();
    ~AmgxLibrary();
    AmgxLibrary(const AmgxLibrary&) = delete;
    AmgxLibrary& operator=(const AmgxLibrary&) = delete;
};

/// AmgX's version and build, for the stamp.
std::string amgx_description();

}  // namespace adimg_peers
