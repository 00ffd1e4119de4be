#pragma once
// `--format pairwise`: every hit as a pairwise alignment, in the layout of BLAST's and
// ssearch36's reports:
//
//   Query= q1  Length=120
//   >t7  Length=340
//    Score = 51.2 bits (120), Expect = 2e-10
//    Identities = 30/58 (52%), Positives = 41/58 (71%), Gaps = 2/58 (3%)
//
//   Query  12   ACDEFGHIKL-MNPQ  25
//               ||:|.||| | |.||
//   Sbjct  40   ACEEAGHI-LKMSPQ  53
//
// Match line (EMBOSS's convention): '|' identical residues, ':' a positive substitution
// score, '.' a score of zero, ' ' a negative score or a gap. 60 columns per block.
// Rows without statistics say "Expect = N/A"; rows without an alignment (score-only) give
// the score line only.
#include <iosfwd>

#include "src/report/hit_columns.hpp"

namespace hpc {

// `source` must carry the sequences and the matrix.
void print_pairwise(const HitSource& source, std::ostream& out);

}  // namespace hpc
