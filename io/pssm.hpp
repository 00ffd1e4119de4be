#pragma once
// PSI-BLAST ASCII PSSMs (`psiblast ... -out_ascii_pssm FILE`) as position-specific query
// profiles (src/align/profile_reference.hpp).
//
// Format: a title line, a header naming the 20 score columns (A R N D C Q E G H I L K M F P
// S T W Y V, followed by the same 20 letters for the observed percentages), then one row per
// query position: "<pos> <residue> <20 scores> <20 percentages> <information> <weight>",
// a blank line, and the K/Lambda footer. Only the position, residue and 20 scores are used;
// columns are mapped by the header's letters, not by assumed order.
//
// The profile has 24 columns (our alphabet); the 4 the PSSM lacks are documented choices:
//   B (D or N)  = floor((s_D + s_N) / 2)     Z (E or Q) = floor((s_E + s_Q) / 2)
//   X (unknown) = -1 (BLOSUM62's typical X score; BLAST's PSSM engine also scores X low)
//   * (stop)    = -4 (BLOSUM62's stop score)
#include <string>

#include "src/align/profile_reference.hpp"

namespace hpc {

struct Pssm {
  QueryProfile profile;
  std::string residues;  // the query letters of the PSSM rows (upper case)
  std::string source;    // file it came from
};

// Throws hpc::InputError(file, line, ...) on anything malformed.
Pssm read_ascii_pssm(const std::string& path);
Pssm parse_ascii_pssm(const std::string& text, const std::string& source);

constexpr int kPssmScoreX = -1;
constexpr int kPssmScoreStop = -4;

}  // namespace hpc
