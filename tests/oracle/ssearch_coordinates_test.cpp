// Alignment coordinates against ssearch36: the 3 queries of queries3.fa and 4 sequences of
// balifam2000.fa (one of each of four families, so the library holds ~45 true homologs of
// each) against all 2000 sequences of balifam2000.fa, 14,000 pairs, every start and end
// on both sequences asserted:
//   - where the coordinates are forced (one optimal end cell, and one on the reversed
//     sequences: tests/oracle/local_optima.hpp), ssearch36's equal reference_align's;
//   - where optimal alignments with different ends exist, ssearch36 breaks the tie by our
//     rule 1 (src/align/reference.hpp) with the roles of the sequences swapped: its end is the
//     optimal cell with the smallest library position, then the smallest query position
//     (ours: query first), and its start is found the same way on the reversed sequences,
//     i.e. the optimal start with the largest library, then query position, so among
//     alignments that end there it keeps the shortest (ours the longest). The test predicts
//     that choice with reference_align and asserts it.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "oracle/local_optima.hpp"
#include "oracle/oracle_inputs.hpp"
#include "oracle/ssearch_support.hpp"
#include "src/align/reference.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

// The coordinates ssearch36 reports for a pair with optimal alignments of different ends:
// tie rule 1 with t as the rows, for the end, then for the start on the reversed prefixes
// (every alignment of the optimal score inside them ends at that end cell, or rule 1 would
// have picked an earlier one).
Alignment ssearch_tie_choice(SeqView q, SeqView t, const ScoreMatrix& mat, GapCosts g) {
  const Alignment swapped = reference_align(AlignMode::Local, t, q, mat, g);
  std::vector<uint8_t> rt(t.data, t.data + swapped.qend), rq(q.data, q.data + swapped.tend);
  std::reverse(rt.begin(), rt.end());
  std::reverse(rq.begin(), rq.end());
  const Alignment back = reference_align(AlignMode::Local, {rt.data(), uint32_t(rt.size())},
                                         {rq.data(), uint32_t(rq.size())}, mat, g);
  EXPECT_EQ(back.score, swapped.score);
  Alignment a;
  a.score = swapped.score;
  a.qstart = swapped.tend - back.tend + 1, a.qend = swapped.tend;
  a.tstart = swapped.qend - back.qend + 1, a.tend = swapped.qend;
  return a;
}

std::string coordinates(uint32_t qs, uint32_t qe, uint32_t ts, uint32_t te) {
  return "q " + std::to_string(qs) + "-" + std::to_string(qe) + " t " + std::to_string(ts) + "-" + std::to_string(te);
}

TEST(SsearchCoordinates, StartsAndEndsEqualSsearchForForcedAndTiedAlignments) {
  const std::string library_path = test::data_path("balifam2000.fa");
  const SequenceSet library = read_fasta(library_path);
  const SequenceSet queries = test::oracle_queries();
  ASSERT_EQ(queries.size(), 7u);
  const ScoreMatrix blosum62 = load_matrix("BLOSUM62");
  ASSERT_EQ(load_matrix(test::kNcbiBlosum62).score, blosum62.score) << "the NCBI file ssearch36 reads";
  const GapCosts gaps{11, 1};

  const std::string dir = test::temp_dir();
  test::write_renamed(dir + "/queries.fa", queries, "q");
  test::write_renamed(dir + "/library.fa", library, "s");
  const auto lists = test::parse_best_scores(
      test::run_ssearch(dir + "/queries.fa", dir + "/library.fa", test::kNcbiBlosum62, library.size()));
  ASSERT_EQ(lists.size(), queries.size());

  size_t pairs = 0, forced = 0, tied = 0, tied_same_as_ours = 0;
  for (size_t qi = 0; qi < queries.size(); ++qi) {
    ASSERT_EQ(lists[qi].size(), library.size()) << "ssearch36 did not list every library sequence";
    const SeqView q = queries.view(qi);
    for (const test::SsearchHit& h : lists[qi]) {
      const uint32_t k = uint32_t(std::stoul(h.id.substr(1)));
      ASSERT_LT(k, library.size()) << h.id;
      const SeqView t = library.view(k);
      const Alignment ours = reference_align(AlignMode::Local, q, t, blosum62, gaps);
      ASSERT_EQ(ours.score, h.score) << queries.ids[qi] << " vs " << library.ids[k];
      ++pairs;
      if (ours.score == 0) continue;  // nothing aligned: no coordinates to compare
      const bool is_forced = test::local_coordinates_unique(q, t, blosum62, gaps);
      const Alignment want = is_forced ? ours : ssearch_tie_choice(q, t, blosum62, gaps);
      forced += is_forced;
      tied += !is_forced;
      tied_same_as_ours += !is_forced && coordinates(ours.qstart, ours.qend, ours.tstart, ours.tend) ==
                                             coordinates(h.qstart, h.qend, h.tstart, h.tend);
      EXPECT_EQ(coordinates(h.qstart, h.qend, h.tstart, h.tend),
                coordinates(want.qstart, want.qend, want.tstart, want.tend))
          << queries.ids[qi] << " vs " << library.ids[k] << (is_forced ? " (forced)" : " (tied)");
    }
  }
  EXPECT_EQ(pairs, queries.size() * library.size());
  EXPECT_GT(forced, pairs / 3) << "too few forced pairs for the comparison to mean much";
  std::cout << "[ ssearch  ] " << pairs << " pairs, coordinates asserted: forced in " << forced << ", tied in " << tied
            << " (ssearch36's choice equal to ours anyway in " << tied_same_as_ours << ")\n";
}

}  // namespace
}  // namespace hpc
