// GPU traceback (CudaSearchBackend::align) vs reference_align(Local, ...): every alignment
// must match exactly -- score, coordinates and CIGAR (same end cell, same path under the tie
// rule). Skips cleanly without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <random>
#include <thread>

#include "io/database.hpp"
#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "kernels/backend.hpp"
#include "src/align/reference.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/cpu_budget.hpp"
#include "src/core/error.hpp"
#include "gpu/gpu_test_support.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

using test::blosum62_setup;
using test::make_set;
using test::mutate;
using test::random_protein;

// Reference alignments of the requests on every CPU of the job.
std::vector<Alignment> reference_alignments(const SearchSetup& s, const std::vector<AlignRequest>& req) {
  std::vector<Alignment> out(req.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (int w = 0; w < usable_cpus().cpus; ++w)
    pool.emplace_back([&] {
      for (size_t k; (k = next.fetch_add(1)) < req.size();)
        out[k] = reference_align(AlignMode::Local, s.queries->view(req[k].query), s.db->seqs.view(req[k].target),
                                 s.matrix, s.gaps);
    });
  for (auto& t : pool) t.join();
  return out;
}

// Aligns every request on the GPU and compares with the reference; returns the count compared.
size_t expect_align_matches(SearchBackend& be, const SearchSetup& s, const std::vector<AlignRequest>& req) {
  const auto got = be.align(req);
  const auto want = reference_alignments(s, req);
  EXPECT_EQ(got.size(), req.size());
  for (size_t k = 0; k < std::min(got.size(), want.size()); ++k) {
    const std::string where = "pair " + std::to_string(k) + " (query " + std::to_string(req[k].query) +
                              ", target " + std::to_string(req[k].target) + ")";
    EXPECT_EQ(got[k].score, want[k].score) << where;
    EXPECT_EQ(got[k].qstart, want[k].qstart) << where;
    EXPECT_EQ(got[k].qend, want[k].qend) << where;
    EXPECT_EQ(got[k].tstart, want[k].tstart) << where;
    EXPECT_EQ(got[k].tend, want[k].tend) << where;
    EXPECT_EQ(got[k].cigar, want[k].cigar) << where;
    if (!got[k].cigar.empty())
      EXPECT_EQ(rescore_cigar(got[k], s.queries->view(req[k].query), s.db->seqs.view(req[k].target), s.matrix,
                              s.gaps),
                got[k].score)
          << where;
  }
  return got.size();
}

std::vector<AlignRequest> all_pairs(size_t nq, size_t nt) {
  std::vector<AlignRequest> r;
  for (uint32_t q = 0; q < nq; ++q)
    for (uint32_t t = 0; t < nt; ++t) r.push_back({q, t});
  return r;
}

// The 200 alignments `hpcalign search` would ask for: top 10 of each of the 20 queries.
TEST(CudaAlign, Top10HitsOfQueries20MatchReference) {
  REQUIRE_GPU();
  const SequenceSet queries = read_fasta(test::data_path("cudasw_queries20.fa"));
  const Database db = make_database(read_fasta(test::data_path("db2M.fa")));
  const SearchSetup s = blosum62_setup(queries, db, 10);
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  Tile tile;
  for (uint32_t q = 0; q < queries.size(); ++q) tile.queries.push_back(q);
  tile.part_begin = 0;
  tile.part_end = uint32_t(db.seqs.size());
  const auto hits = be->search_tile(tile);
  std::vector<AlignRequest> req;
  std::vector<int32_t> search_score;
  for (uint32_t q = 0; q < hits.size(); ++q)
    for (const auto& h : hits[q]) req.push_back({q, h.target}), search_score.push_back(h.score);
  ASSERT_EQ(req.size(), 200u);
  EXPECT_EQ(expect_align_matches(*be, s, req), 200u);
  const auto got = be->align(req);
  for (size_t k = 0; k < req.size(); ++k) EXPECT_EQ(got[k].score, search_score[k]) << "pair " << k;
}

// Identical long sequences (scores beyond 16 bits), homopolymers and repeats (ties for the
// end cell and for the path), two-letter alphabets (many equal-scoring paths).
TEST(CudaAlign, AdversarialPairsMatchReference) {
  REQUIRE_GPU();
  std::mt19937 rng(2024);
  const std::string same = random_protein(rng, 5000);
  const std::string wc = random_protein(rng, 5000, "WCWHYC");
  std::vector<std::string> qs = {same,
                                 wc,
                                 std::string(300, 'A'),
                                 std::string(1500, 'W'),
                                 [] { std::string s; for (int k = 0; k < 400; ++k) s += "ACGT"; return s; }(),
                                 mutate(rng, same.substr(1000, 2500), 12),
                                 "W",
                                 "PPPP"};
  std::vector<std::string> ts = {same,
                                 wc,
                                 std::string(500, 'A'),
                                 std::string(1025, 'W'),
                                 [] { std::string s; for (int k = 0; k < 300; ++k) s += "CGTA"; return s; }(),
                                 std::string(2, 'W')};
  const SequenceSet queries = make_set(qs);
  const Database db = make_database(make_set(ts));
  const SearchSetup s = blosum62_setup(queries, db, 10);
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  auto req = all_pairs(qs.size(), ts.size());
  EXPECT_EQ(expect_align_matches(*be, s, req), qs.size() * ts.size());
  const auto got = be->align({{0, 0}, {1, 1}});
  EXPECT_EQ(got[0].cigar, "5000=");
  EXPECT_GT(got[1].score, 32767);
}

// Many small pairs over two- and three-letter alphabets: ties everywhere, every shape
// around the block's stripe width (1024 columns) and thread count (128 rows).
TEST(CudaAlign, RandomTiedPairsMatchReference) {
  REQUIRE_GPU();
  std::mt19937 rng(99);
  const auto [qs, ts] = test::tied_pair_lists(rng, 24);
  const SequenceSet queries = make_set(qs);
  const Database db = make_database(make_set(ts));
  const SearchSetup s = blosum62_setup(queries, db, 10);
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  EXPECT_EQ(expect_align_matches(*be, s, all_pairs(qs.size(), ts.size())), qs.size() * ts.size());
}

// A 35,000-residue query against its hit, and against a 35,000-residue target (35 stripes).
TEST(CudaAlign, Query35000AgainstHits) {
  REQUIRE_GPU();
  std::mt19937 rng(35000);
  const std::string hit = random_protein(rng, 3000);
  std::string query = random_protein(rng, 20000) + mutate(rng, hit, 15);
  query += random_protein(rng, 35000 - query.size());
  std::string long_target = random_protein(rng, 17000) + hit + random_protein(rng, 15000);
  const SequenceSet queries = make_set({query});
  const Database db = make_database(make_set({hit, long_target}));
  const SearchSetup s = blosum62_setup(queries, db, 10);
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  EXPECT_EQ(expect_align_matches(*be, s, all_pairs(1, 2)), 2u);
}

// A tiny memory budget: several trace batches, and rectangles too large for the budget go
// to the host reference; the results do not change.
TEST(CudaAlign, SmallBudgetBatchesAndFallsBack) {
  REQUIRE_GPU();
  std::mt19937 rng(5);
  const std::string a = random_protein(rng, 2000);
  std::vector<std::string> qs = {a, random_protein(rng, 700), mutate(rng, a.substr(200, 600), 10)};
  std::vector<std::string> ts = {a, mutate(rng, a, 9), random_protein(rng, 900), a.substr(500, 300)};
  const SequenceSet queries = make_set(qs);
  const Database db = make_database(make_set(ts));
  const SearchSetup s = blosum62_setup(queries, db, 10);
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  const ScopedTunable budget(Tunable::kCudaTracebackBytes, "600000");  // a 2000 x 2000 rectangle needs ~2.1 MB
  const size_t n = expect_align_matches(*be, s, all_pairs(qs.size(), ts.size()));
  EXPECT_EQ(n, qs.size() * ts.size());
}

TEST(CudaAlign, EmptyRequestAndOutOfRange) {
  REQUIRE_GPU();
  const SequenceSet queries = make_set({"WWW"});
  const Database db = make_database(make_set({"PPP", "WW"}));
  const SearchSetup s = blosum62_setup(queries, db, 10);
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  EXPECT_TRUE(be->align({}).empty());
  EXPECT_THROW(be->align({{0, 2}}), Error);
  const auto got = be->align({{0, 0}, {0, 1}});
  EXPECT_EQ(got[0].score, 0);
  EXPECT_TRUE(got[0].cigar.empty());
  EXPECT_EQ(got[1].cigar, "2=");
  EXPECT_EQ(got[1].qstart, 1u);
  EXPECT_EQ(got[1].tend, 2u);
}

}  // namespace
}  // namespace hpc
