#pragma once
// Fault injection for the fault, kill and signal tests: wraps any SearchBackend when one of
// the first three environment variables is set, and is a no-op otherwise; the fourth slows
// the tiles of every workload (the schedulers call injected_tile_delay before each tile).
//   HPCALIGN_FAULT_OOM_CELLS=N   a piece of work of more than N cells throws hpc::OutOfMemory
//                                (search_tile: |q| x |t| summed; the other workloads call
//                                injected_out_of_memory): exercises the driver's tile splitting
//   HPCALIGN_FAULT_FAIL_TILE=ID  search_tile throws hpc::Error on tile ID (a backend error)
//   HPCALIGN_FAULT_EXIT_TILE=ID  the process exits at once (code 42) on tile ID (a dead worker)
//   HPCALIGN_FAULT_SLOW_MS=MS    every tile takes at least MS ms longer (kill/signal tests)
#include <cstdint>
#include <memory>
#include <string>

#include "kernels/backend.hpp"

namespace hpc {

std::unique_ptr<SearchBackend> with_fault_injection(std::unique_ptr<SearchBackend> backend);
// Sleeps HPCALIGN_FAULT_SLOW_MS milliseconds when it is set (kill and signal tests).
void injected_tile_delay();
// Throws hpc::OutOfMemory naming `what` when HPCALIGN_FAULT_OOM_CELLS is set and `cells`
// exceeds it (allvsall, pss and msv workers call it before each piece of device work).
void injected_out_of_memory(uint64_t cells, const std::string& what);

}  // namespace hpc
