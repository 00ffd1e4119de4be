#pragma once
// Inputs for the planner tests: sequences of random lengths (contents do not matter to a
// planner) and a device of a given size.
#include <random>
#include <string>
#include <vector>

#include "kernels/backend.hpp"
#include "src/core/sequence.hpp"

namespace hpc::test {

inline SequenceSet random_set(size_t n, uint32_t max_len, uint32_t seed) {
  std::mt19937 rng(seed);
  SequenceSet s;
  for (size_t i = 0; i < n; ++i) {
    std::vector<uint8_t> r(1 + rng() % max_len, 0);
    s.add("s" + std::to_string(i), r.data(), r.size());
  }
  return s;
}

inline DeviceCapacity cap(int units, int resident, uint64_t mem = 0) {
  DeviceCapacity c;
  c.name = "test";
  c.compute_units = units;
  c.resident_per_unit = resident;
  c.memory_bytes = mem;
  return c;
}

}  // namespace hpc::test
