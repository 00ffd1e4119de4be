#pragma once
// A set of encoded sequences stored back to back (one allocation, cheap to ship
// to a device or across MPI). Sequence i occupies residues[offsets[i], offsets[i+1]).
#include <cstdint>
#include <string>
#include <vector>

namespace hpc {

struct SeqView {
  const uint8_t* data;
  uint32_t length;
};

struct SequenceSet {
  std::vector<std::string> ids;
  std::vector<uint8_t> residues;           // alphabet codes (src/core/alphabet.hpp)
  std::vector<uint64_t> offsets{0};        // size() + 1 entries
  std::string source;                      // file it came from, for messages

  size_t size() const { return ids.size(); }
  bool empty() const { return ids.empty(); }
  uint32_t length(size_t i) const { return static_cast<uint32_t>(offsets[i + 1] - offsets[i]); }
  SeqView view(size_t i) const { return {residues.data() + offsets[i], length(i)}; }
  uint64_t total_residues() const { return residues.size(); }
  void add(std::string id, const uint8_t* codes, size_t n) {
    ids.push_back(std::move(id));
    residues.insert(residues.end(), codes, codes + n);
    offsets.push_back(residues.size());
  }
};

}  // namespace hpc
