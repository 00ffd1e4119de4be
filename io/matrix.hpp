#pragma once
// Substitution matrices: built-in BLOSUM45/50/62/80/90, PAM30/70/250 (NCBI's tables),
// or any NCBI-format matrix file.
#include <istream>
#include <string>
#include <vector>

#include "src/core/scoring.hpp"

namespace hpc {

// A built-in name (case-insensitive) or a path to an NCBI-format file.
ScoreMatrix load_matrix(const std::string& name_or_path);
std::vector<std::string> builtin_matrix_names();
// NCBI format: '#' comments, a header row of residue letters, then one row per letter
// (starting with that letter) of whitespace-separated integers. Letters J, O, U in the
// file are ignored (they score as X). Letters of our alphabet missing from the file:
//   X     scores the file's minimum against everything (itself included);
//   B, Z  copy X's row and column (the file's X, or the rule above);
//   *     scores the file's minimum against everything, and +1 against itself (as NCBI's tables).
// Throws InputError (source:line) for a missing header, unknown or duplicate letters, a row
// of the wrong length, a non-integer or out-of-range (|s| > 1000) entry, a non-square matrix,
// or any of the 20 standard amino acids missing.
ScoreMatrix parse_ncbi_matrix(std::istream& in, const std::string& source);

}  // namespace hpc
