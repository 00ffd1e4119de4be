#pragma once
// What the planner needs to size tiles (src/plan/search_plan.hpp says how): a plain struct
// the backends (kernels/) fill in, so the planner needs nothing from them.
#include <cstdint>
#include <string>

namespace hpc {

struct DeviceCapacity {
  std::string name;               // "cpu (16 threads, avx2)" / "NVIDIA H100 80GB HBM3"
  int compute_units = 1;          // threads, or SMs
  int resident_per_unit = 1;      // alignments in flight per unit: SIMD lanes, or the occupancy
                                  // formula B x threads_per_block / lanes_per_alignment
  uint64_t memory_bytes = 0;      // memory free for tiles after the database and profiles
  uint64_t concurrent() const { return uint64_t(compute_units) * uint64_t(resident_per_unit); }
};

}  // namespace hpc
