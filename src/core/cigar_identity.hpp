#pragma once
// A result table's identity column from a row's CIGAR: cigar_stats(cigar).identity() as a
// float, counting only '=' and all columns. A screen's final merge takes it for every row
// (157 M rows, ~10 GB of CIGARs with alignments): the full statistics and a copy of each CIGAR
// cost about twice as much there. Anything but well-formed "<run><op>" pairs of = X I D goes to
// cigar_stats, which throws the same errors as before.
#include <cstdint>
#include <string_view>

#include "src/core/alignment.hpp"

namespace hpc {

inline float cigar_identity(std::string_view cigar) {
  uint32_t length = 0, matches = 0;  // uint32_t sums, as CigarStats's
  uint64_t run = 0;
  bool have_run = false;
  for (const char c : cigar) {
    const unsigned digit = unsigned(static_cast<unsigned char>(c)) - unsigned('0');
    if (digit < 10) {
      run = run * 10 + digit;
      have_run = true;
      if (run > UINT32_MAX) return float(cigar_stats(cigar).identity());
      continue;
    }
    if (!have_run || (c != '=' && c != 'X' && c != 'I' && c != 'D')) return float(cigar_stats(cigar).identity());
    length += uint32_t(run);
    if (c == '=') matches += uint32_t(run);
    run = 0;
    have_run = false;
  }
  if (have_run) return float(cigar_stats(cigar).identity());
  return float(length ? double(matches) / length : 0.0);
}

}  // namespace hpc
