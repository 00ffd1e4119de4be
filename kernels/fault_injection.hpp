#pragma once
// Fault injection for the production tests (issue 7): wraps any SearchBackend when one of
// the first three environment variables is set, and is a no-op otherwise; the fourth slows
// the tiles of every workload (the schedulers call injected_tile_delay before each tile).
//   HPCALIGN_FAULT_OOM_CELLS=N   search_tile throws hpc::OutOfMemory for a tile of more than
//                                N cells (|q| x |t| summed): exercises the split-and-retry path
//   HPCALIGN_FAULT_FAIL_TILE=ID  search_tile throws hpc::Error on tile ID (a backend error)
//   HPCALIGN_FAULT_EXIT_TILE=ID  the process exits at once (code 42) on tile ID (a dead worker)
//   HPCALIGN_FAULT_SLOW_MS=MS    every tile takes at least MS ms longer (kill/signal tests)
#include <memory>

#include "kernels/backend.hpp"

namespace hpc {

std::unique_ptr<SearchBackend> with_fault_injection(std::unique_ptr<SearchBackend> backend);
// Sleeps HPCALIGN_FAULT_SLOW_MS milliseconds when it is set (kill and signal tests).
void injected_tile_delay();

}  // namespace hpc
