// `hpcalign search` reports exactly the hits ssearch36's complete list says it must: no top
// hit missing, none extra, same scores.
//
// ssearch36 lists every library sequence with its Smith-Waterman score (tests/oracle/
// ssearch_support.hpp). From that list the test derives, per query, the hits our limits
// allow: E-value <= --evalue, with E = K m N exp(-lambda S) (our --stats ka) computed here (BLOSUM62 11/1:
// lambda 0.267, K 0.041, NCBI BLAST's published gapped values; m the query length, N the
// database residues), then the best --max-hits by score. Ties at the cut-off go to the
// smaller database index, our documented order (hit_order in src/core/alignment.hpp), so
// the expected list is exact. Where the coordinates of a reported hit are forced
// (tests/oracle/local_optima.hpp) they must equal ssearch36's too.
//   balifam: the 7 queries of oracle_queries() against balifam2000.fa, --max-hits 30
//            --evalue 1: three family queries have more homologs than 30 (the count binds),
//            the others a few (the E-value binds).
//   synthetic: queries3.fa against db2M.fa (5,594 random sequences), --max-hits 50
//            --evalue 10: only chance hits, cut by the E-value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "io/result_file.hpp"
#include "oracle/local_optima.hpp"
#include "oracle/oracle_inputs.hpp"
#include "oracle/ssearch_support.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

constexpr double kLambda = 0.267, kK = 0.041;

struct Listed {
  uint32_t target;
  int32_t score;
  uint32_t qstart, qend, tstart, tend;
};

std::string describe(const std::vector<Listed>& hits) {
  std::string s;
  for (const Listed& h : hits) s += " s" + std::to_string(h.target) + ":" + std::to_string(h.score);
  return s;
}

struct Tally {
  size_t hits = 0, by_count = 0, by_evalue = 0, ties_at_cutoff = 0, forced = 0;
};

void expect_top_hits(const SequenceSet& queries, const SequenceSet& library, uint32_t max_hits, double max_evalue,
                     Tally& tally) {
  const std::string dir = test::temp_dir();
  test::write_renamed(dir + "/q.fa", queries, "q");
  test::write_renamed(dir + "/db.fa", library, "s");
  int status = 0;
  const std::string log = test::run_command(test::binary_path() + " search -q " + dir + "/q.fa -d " + dir +
                                                "/db.fa -o " + dir + "/out.h5 --max-hits " + std::to_string(max_hits) +
                                                " --evalue " + std::to_string(max_evalue) + " --stats ka --threads 2 --quiet 2>&1",
                                            &status);
  ASSERT_EQ(status, 0) << log;
  const HitTable table = read_hit_table(dir + "/out.h5");
  ASSERT_EQ(table.status, "complete");
  const auto lists = test::parse_best_scores(
      test::run_ssearch(dir + "/q.fa", dir + "/db.fa", test::kNcbiBlosum62, library.size()));
  ASSERT_EQ(lists.size(), queries.size());
  const ScoreMatrix blosum62 = load_matrix("BLOSUM62");
  const double N = double(library.total_residues());

  for (uint32_t qi = 0; qi < queries.size(); ++qi) {
    ASSERT_EQ(lists[qi].size(), library.size()) << "ssearch36 did not list every library sequence";
    const double m = queries.length(qi);
    std::vector<Listed> allowed;
    for (const test::SsearchHit& h : lists[qi])
      if (kK * m * N * std::exp(-kLambda * h.score) <= max_evalue)
        allowed.push_back({uint32_t(std::stoul(h.id.substr(1))), h.score, h.qstart, h.qend, h.tstart, h.tend});
    std::sort(allowed.begin(), allowed.end(), [](const Listed& a, const Listed& b) {
      return a.score != b.score ? a.score > b.score : a.target < b.target;
    });
    if (allowed.size() > max_hits) {
      ++tally.by_count;
      tally.ties_at_cutoff += allowed[max_hits].score == allowed[max_hits - 1].score;
      allowed.resize(max_hits);
    } else {
      ++tally.by_evalue;
    }
    std::vector<Listed> ours;
    for (const Hit& h : table.hits)
      if (h.query == qi)
        ours.push_back({h.target, h.aln.score, h.aln.qstart, h.aln.qend, h.aln.tstart, h.aln.tend});
    EXPECT_EQ(describe(ours), describe(allowed))
        << "query q" << qi << " (" << queries.ids[qi] << "): ours, then ssearch36's";
    tally.hits += ours.size();

    for (const Listed& h : ours) {
      const auto theirs =
          std::find_if(allowed.begin(), allowed.end(), [&](const Listed& a) { return a.target == h.target; });
      if (theirs == allowed.end() ||
          !test::local_coordinates_unique(queries.view(qi), library.view(h.target), blosum62, {11, 1}))
        continue;
      ++tally.forced;
      EXPECT_TRUE(h.qstart == theirs->qstart && h.qend == theirs->qend && h.tstart == theirs->tstart &&
                  h.tend == theirs->tend)
          << "q" << qi << " vs s" << h.target << ": forced coordinates differ from ssearch36's";
    }
  }
}

TEST(SsearchTopHits, SearchReportsExactlyTheAllowedTopOfSsearchsList) {
  Tally balifam, synthetic;
  expect_top_hits(test::oracle_queries(), read_fasta(test::data_path("balifam2000.fa")), 30, 1.0, balifam);
  expect_top_hits(read_fasta(test::data_path("queries3.fa")), read_fasta(test::data_path("db2M.fa")), 50, 10.0,
                  synthetic);
  // Both limits must have been exercised, or the test proves less than it says.
  EXPECT_GE(balifam.by_count, 3u);
  EXPECT_GE(balifam.by_evalue + synthetic.by_evalue, 3u);
  EXPECT_GT(synthetic.hits, 0u);
  for (const auto& [name, t] : {std::pair{"balifam", balifam}, std::pair{"synthetic", synthetic}})
    std::cout << "[ ssearch  ] " << name << ": " << t.hits << " hits equal to ssearch36's top; queries cut by count "
              << t.by_count << " (tie at the cut-off in " << t.ties_at_cutoff << "), by E-value " << t.by_evalue
              << "; forced coordinates equal in " << t.forced << "\n";
}

}  // namespace
}  // namespace hpc
