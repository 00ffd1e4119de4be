#pragma once
// Many alignments' CIGARs in one buffer (an engine's packed text as it came back), so a tile's
// hundreds of thousands of hits need no string each: CIGAR k is chars[begin[k], + length[k]).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/alignment.hpp"

namespace hpc {

struct CigarBuffer {
  std::vector<char> chars;
  std::vector<uint64_t> begin;
  std::vector<uint32_t> length;

  // Room for n CIGARs, all empty.
  void resize(size_t n) {
    begin.assign(n, 0);
    length.assign(n, 0);
  }
  // Appends `n` bytes of text (one CIGAR or many) and returns where they start.
  uint64_t append(const char* text, size_t n) {
    const uint64_t at = chars.size();
    chars.insert(chars.end(), text, text + n);
    return at;
  }
  void set(size_t k, uint64_t at, uint32_t len) { begin[k] = at, length[k] = len; }
  void set(size_t k, const std::string& cigar) { set(k, append(cigar.data(), cigar.size()), uint32_t(cigar.size())); }
  std::string_view at(size_t k) const { return {chars.data() + begin[k], length[k]}; }
};

// The alignments' CIGAR strings in one buffer (CIGAR k is alns[k]'s), the strings left empty.
inline CigarBuffer take_cigars(std::vector<Alignment>& alns) {
  CigarBuffer cigars;
  cigars.resize(alns.size());
  for (size_t k = 0; k < alns.size(); ++k) {
    cigars.set(k, alns[k].cigar);
    alns[k].cigar = std::string();
  }
  return cigars;
}

}  // namespace hpc
