#pragma once
// Scalar Gotoh aligners: the oracle every fast kernel is checked against.
//
// Recurrences (query i = 1..m down the rows, target j = 1..n across the columns;
// gap of length k costs open + k*extend):
//   E(i,j) = max(E(i,j-1) - extend, H(i,j-1) - open - extend)   gap in the query ('D')
//   F(i,j) = max(F(i-1,j) - extend, H(i-1,j) - open - extend)   gap in the target ('I')
//   H(i,j) = max(H(i-1,j-1) + s(q_i, t_j), E(i,j), F(i,j) [, 0 in local mode])
// Modes:
//   local      : Smith-Waterman; H >= 0; best cell anywhere.
//   global     : Needleman-Wunsch; end gaps cost like any gap.
//   semiglobal : end gaps free on both sequences (leading and trailing overhangs of
//                either sequence cost nothing); best cell in the last row or column.
//
// TIE RULE (every backend follows it, so alignments agree bit for bit):
//   1. End cell: the highest H; among equals the smallest i, then the smallest j.
//   2. Traceback from H prefers diagonal, then F ('I', up), then E ('D', left).
//      Inside a gap it prefers closing the gap (the open move) over extending it,
//      so gaps are as short as the score allows at each step.
//   3. Local mode stops at the first cell (walking back) whose H is 0.
// Details the rule implies (the reference implements them; kernels must agree):
//   - semiglobal end-cell candidates include the border cells of the last row/column,
//     H(0,n) = H(m,0) = 0, so the score is never negative; a 0 score gives the empty
//     alignment (like local with score 0).
//   - global: the walk runs along row 0 / column 0 as one end gap ("3D", "2I").
//   - a sequence that contributes no residue (e.g. the empty query of a global "3D")
//     has start = end = 0.
#include <cstdint>

#include "src/core/alignment.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

int32_t reference_score(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g);
Alignment reference_align(AlignMode mode, SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g);

// Score of an alignment replayed from its CIGAR and coordinates (for tests and checks).
int32_t rescore_cigar(const Alignment& a, SeqView q, SeqView t, const ScoreMatrix& m, GapCosts g);

}  // namespace hpc
