// CUDA search backend vs the scalar reference: every score the GPU returns must equal
// reference_score(Local, ...), and top-k order must follow scored_target_order.
// Each test skips cleanly on machines without a GPU (CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include "io/database.hpp"
#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "io/synthetic_database.hpp"
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
using test::random_protein;

Tile make_tile(const std::vector<uint32_t>& queries, uint32_t begin, uint32_t end) {
  Tile t;
  t.queries = queries;
  t.part_begin = begin;
  t.part_end = end;
  return t;
}

// Brute force over every pair of the partition with the scalar reference (threaded).
std::vector<std::vector<ScoredTarget>> reference_top(const SearchSetup& s, const Tile& tile) {
  const uint32_t n = tile.part_end - tile.part_begin;
  std::vector<std::vector<ScoredTarget>> out(tile.queries.size());
  for (size_t qi = 0; qi < tile.queries.size(); ++qi) {
    std::vector<ScoredTarget> all(n);
    const unsigned workers = unsigned(usable_cpus().cpus);
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
      pool.emplace_back([&, w] {
        for (uint32_t k = w; k < n; k += workers) {
          const uint32_t t = s.db->by_length[tile.part_begin + k];
          all[k] = {reference_score(AlignMode::Local, s.queries->view(tile.queries[qi]), s.db->seqs.view(t),
                                    s.matrix, s.gaps),
                    t};
        }
      });
    for (auto& th : pool) th.join();
    std::sort(all.begin(), all.end(), scored_target_order);
    for (const auto& st : all) {
      if (st.score <= 0 || out[qi].size() == s.max_hits) break;
      out[qi].push_back(st);
    }
  }
  return out;
}

void expect_same_hits(const std::vector<std::vector<ScoredTarget>>& got,
                      const std::vector<std::vector<ScoredTarget>>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t q = 0; q < want.size(); ++q) {
    ASSERT_EQ(got[q].size(), want[q].size()) << "query slot " << q;
    for (size_t k = 0; k < want[q].size(); ++k) {
      EXPECT_EQ(got[q][k].score, want[q][k].score) << "query slot " << q << " rank " << k;
      EXPECT_EQ(got[q][k].target, want[q][k].target) << "query slot " << q << " rank " << k;
    }
  }
}

struct Db2M {
  SequenceSet queries = read_fasta(test::data_path("cudasw_queries20.fa"));
  Database db = make_database(read_fasta(test::data_path("db2M.fa")));
};
const Db2M& db2m() {
  static const Db2M data;
  return data;
}

// `count` sequences of `all`, every `step`-th.
SequenceSet spaced(const SequenceSet& all, uint32_t count, uint32_t step) {
  SequenceSet out;
  for (uint32_t i = 0; i < count; ++i) out.add(all.ids[i * step], all.view(i * step).data, all.view(i * step).length);
  return out;
}

// `count` queries, every `step`-th of balifam2000, against all of it, on the GPU and the CPU
// backend (built in place: the setup points into the members).
struct BalifamOnBoth {
  BalifamOnBoth(uint32_t count, uint32_t step, uint32_t max_hits)
      : all(read_fasta(test::data_path("balifam2000.fa"))),
        queries(spaced(all, count, step)),
        db(make_database(read_fasta(test::data_path("balifam2000.fa")))),
        s(blosum62_setup(queries, db, max_hits)),
        gpu(make_cuda_search_backend(0)),
        cpu(make_search_backend(BackendKind::Cpu, 0, 0)) {
    gpu->prepare(s);
    cpu->prepare(s);
  }
  SequenceSet all, queries;
  Database db;
  SearchSetup s;
  std::unique_ptr<SearchBackend> gpu, cpu;
};

std::vector<uint32_t> iota_queries(size_t n) {
  std::vector<uint32_t> q(n);
  for (uint32_t i = 0; i < n; ++i) q[i] = i;
  return q;
}

TEST(CudaSearch, CapacityDescribesTheDevice) {
  REQUIRE_GPU();
  auto be = make_cuda_search_backend(0);
  const DeviceCapacity c = be->capacity();
  EXPECT_FALSE(c.name.empty());
  EXPECT_EQ(be->name(), c.name);
  EXPECT_GT(c.compute_units, 0);
  EXPECT_GE(c.resident_per_unit, 256);
  EXPECT_GT(c.memory_bytes, 0u);
}

TEST(CudaSearch, BadDeviceIndexIsAnError) {
  REQUIRE_GPU();
  EXPECT_THROW(make_cuda_search_backend(cuda_device_count()), Error);
}

// All 20 queries, every score of three partitions (shortest, middle, longest targets).
TEST(CudaSearch, Queries20AllScoresMatchReference) {
  REQUIRE_GPU();
  const auto& d = db2m();
  const uint32_t n = uint32_t(d.db.seqs.size());
  auto be = make_cuda_search_backend(0);
  const std::vector<std::pair<uint32_t, uint32_t>> parts = {{0, 301}, {n / 2, n / 2 + 64}, {n - 41, n}};
  for (const auto& [b, e] : parts) {
    SearchSetup s = blosum62_setup(d.queries, d.db, e - b);
    be->prepare(s);
    const Tile tile = make_tile(iota_queries(d.queries.size()), b, e);
    expect_same_hits(be->search_tile(tile), reference_top(s, tile));
  }
}

// Top 10 over the whole 2M-residue database for a few queries.
TEST(CudaSearch, Top10OverWholeDatabase) {
  REQUIRE_GPU();
  const auto& d = db2m();
  SearchSetup s = blosum62_setup(d.queries, d.db, 10);
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  const Tile tile = make_tile({0, 2, 9}, 0, uint32_t(d.db.seqs.size()));
  const auto got = be->search_tile(tile);
  expect_same_hits(got, reference_top(s, tile));
  for (const auto& q : got) EXPECT_EQ(q.size(), 10u);
}

// The same tile twice and split in two partitions: deterministic, and the merged halves agree.
TEST(CudaSearch, SplitPartitionsAgreeWithWhole) {
  REQUIRE_GPU();
  const auto& d = db2m();
  SearchSetup s = blosum62_setup(d.queries, d.db, 25);
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  const uint32_t n = uint32_t(d.db.seqs.size());
  const auto q = iota_queries(d.queries.size());
  const auto whole = be->search_tile(make_tile(q, 0, n));
  expect_same_hits(be->search_tile(make_tile(q, 0, n)), whole);
  const auto lo = be->search_tile(make_tile(q, 0, n / 3));
  const auto hi = be->search_tile(make_tile(q, n / 3, n));
  for (size_t i = 0; i < q.size(); ++i) {
    std::vector<ScoredTarget> merged = lo[i];
    merged.insert(merged.end(), hi[i].begin(), hi[i].end());
    std::sort(merged.begin(), merged.end(), scored_target_order);
    merged.resize(std::min<size_t>(merged.size(), 25));
    expect_same_hits({merged}, {whole[i]});
  }
}

// Identical 5,000-residue sequences rich in W/C score far above 32767: the 16-bit lanes
// overflow and the pair must be rescored exactly.
TEST(CudaSearch, OverflowingPairsAreRescoredExactly) {
  REQUIRE_GPU();
  std::mt19937 rng(7);
  const std::string big = random_protein(rng, 5000, "WCWHYC");
  std::string mutated = big;
  for (size_t i = 0; i < mutated.size(); i += 37) mutated[i] = 'G';
  std::vector<std::string> targets = {big, mutated, random_protein(rng, 5000), big.substr(0, 3000)};
  for (int k = 0; k < 300; ++k) targets.push_back(random_protein(rng, 50 + k * 7));
  const SequenceSet queries = make_set({big, random_protein(rng, 400)});
  const Database db = make_database(make_set(targets));
  SearchSetup s = blosum62_setup(queries, db, uint32_t(targets.size()));
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  const Tile tile = make_tile({0, 1}, 0, uint32_t(db.seqs.size()));
  const auto got = be->search_tile(tile);
  expect_same_hits(got, reference_top(s, tile));
  ASSERT_FALSE(got[0].empty());
  EXPECT_EQ(got[0][0].target, 0u);
  EXPECT_GT(got[0][0].score, 32767);
}

// Overflowing pairs of 2^24 cells or more are rescored by stripe tickets (a thread each held a
// 100,000-residue self-hit for minutes): 12,000 x 12,000, 12,000 x 9,000 and 8,000 x 8,000 in
// one tile, exact (shorter overflowing pairs, a thread each: PackedKernelsRescoreOverflowingQueryPairs).
TEST(CudaSearch, LongOverflowingPairsAreRescoredByBlocks) {
  REQUIRE_GPU();
  std::mt19937 rng(17);
  const std::string big = random_protein(rng, 12000, "WCWHYC");
  std::string mutated = big;
  for (size_t i = 0; i < mutated.size(); i += 41) mutated[i] = 'G';
  const std::string mid = big.substr(0, 8000);
  std::vector<std::string> targets = {big, mutated, mid, random_protein(rng, 12000), big.substr(3000)};
  for (int k = 0; k < 100; ++k) targets.push_back(random_protein(rng, 50 + k * 13));
  const SequenceSet queries = make_set({big, mid, random_protein(rng, 300)});
  const Database db = make_database(make_set(targets));
  SearchSetup s = blosum62_setup(queries, db, uint32_t(targets.size()));
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  const Tile tile = make_tile({0, 1, 2}, 0, uint32_t(db.seqs.size()));
  const auto got = be->search_tile(tile);
  expect_same_hits(got, reference_top(s, tile));
  ASSERT_FALSE(got[0].empty());
  ASSERT_FALSE(got[1].empty());
  EXPECT_GT(got[0][0].score, 32767);
  EXPECT_GT(got[1][0].score, 32767);
}

TEST(CudaSearch, Query35000AgainstShortTargets) {
  REQUIRE_GPU();
  std::mt19937 rng(11);
  const SequenceSet queries = make_set({random_protein(rng, 35000)});
  const auto& d = db2m();
  SearchSetup s = blosum62_setup(queries, d.db, 700);
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  const Tile tile = make_tile({0}, 0, 700);
  expect_same_hits(be->search_tile(tile), reference_top(s, tile));
}

TEST(CudaSearch, SingleSequenceDatabase) {
  REQUIRE_GPU();
  std::mt19937 rng(3);
  const std::string t = random_protein(rng, 777);
  const SequenceSet queries = make_set({t.substr(100, 300), random_protein(rng, 50), "W"});
  const Database db = make_database(make_set({t}));
  SearchSetup s = blosum62_setup(queries, db, 10);
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  const Tile tile = make_tile({0, 1, 2}, 0, 1);
  const auto got = be->search_tile(tile);
  expect_same_hits(got, reference_top(s, tile));
  ASSERT_EQ(got[0].size(), 1u);
  EXPECT_EQ(got[0][0].target, 0u);
}

TEST(CudaSearch, EmptyPartitionGivesNoHits) {
  REQUIRE_GPU();
  const auto& d = db2m();
  SearchSetup s = blosum62_setup(d.queries, d.db, 10);
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  const auto got = be->search_tile(make_tile({0, 1, 2}, 500, 500));
  ASSERT_EQ(got.size(), 3u);
  for (const auto& q : got) EXPECT_TRUE(q.empty());
}

TEST(CudaSearch, QueriesOfLengthOne) {
  REQUIRE_GPU();
  const SequenceSet queries = make_set({"W", "A", "C"});
  const auto& d = db2m();
  SearchSetup s = blosum62_setup(queries, d.db, 50);
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  const Tile tile = make_tile({0, 1, 2}, 0, 2000);
  const auto got = be->search_tile(tile);
  expect_same_hits(got, reference_top(s, tile));
  ASSERT_FALSE(got[0].empty());
  EXPECT_EQ(got[0][0].score, 11);  // W-W in BLOSUM62
}

// Runs fn(name) under each packed kernel in turn (HPCALIGN_PACKED_LANES).
template <class Fn>
void for_each_packed_kernel(Fn fn) {
  for (const std::string lanes : {"subjects", "query-table", "queries"}) {
    const ScopedTunable forced(Tunable::kPackedLanes, lanes.c_str());
    fn(lanes);
  }
}

// Every packed kernel gives the reference's scores: two subjects per thread; two queries per
// thread from the pair table; two queries and four query rows per step from the pair's
// profile (the default for query pairs of little padding). Queries of odd and even lengths,
// pairs of unequal lengths, one of 640 rows (what the row-group kernel's shared memory holds)
// and, in the second set, longer ones (their profiles staged in chunks of 640 rows: 1,300 rows
// in three); a gapped relative of a target for high scores; targets of one pass and of many.
TEST(CudaSearch, EveryPackedKernelMatchesReference) {
  REQUIRE_GPU();
  const auto& d = db2m();
  const uint32_t n = uint32_t(d.db.seqs.size());
  std::mt19937 rng(23);
  std::vector<std::string> fit;
  for (size_t len : {1, 2, 3, 40, 77, 78, 301, 302, 639, 640}) fit.push_back(random_protein(rng, len));
  // A relative of the longest target: a 501-residue window with a deletion and an insertion.
  std::string rel;
  const SeqView t = d.db.seqs.view(d.db.by_length[n - 1]);
  for (uint32_t i = 0; i < 520 && i < t.length; ++i)
    if (i < 100 || i >= 119) rel += decode_residue(t.data[i]);
  rel.insert(250, "WWGHK");
  rel.resize(std::min<size_t>(rel.size(), 501));
  fit.push_back(rel);
  std::vector<std::string> longer = fit;
  longer.push_back(random_protein(rng, 641));
  longer.push_back(random_protein(rng, 1300));
  auto be = make_cuda_search_backend(0);
  for (const auto* set : {&fit, &longer}) {
    const SequenceSet queries = make_set(*set);
    for_each_packed_kernel([&](const std::string& lanes) {
      for (const auto& [b, e] : std::vector<std::pair<uint32_t, uint32_t>>{{0, 200}, {n - 60, n}}) {
        SearchSetup s = blosum62_setup(queries, d.db, e - b);
        be->prepare(s);
        const Tile tile = make_tile(iota_queries(queries.size()), b, e);
        SCOPED_TRACE(lanes + ", queries " + std::to_string(set->size()) + " targets " +
                     std::to_string(b) + ".." + std::to_string(e));
        expect_same_hits(be->search_tile(tile), reference_top(s, tile));
      }
    });
  }
}

// Lanes whose thread work (query rows x subject length) reaches the long-pair threshold are not
// run by the packed kernels but rescored exactly: by stripe tickets, or a thread for the
// shorter query of a query pair. Forced low here, so every kernel leaves a mix of lanes aside in each
// tile, next to lanes it scores itself, and both must give the reference's scores.
TEST(CudaSearch, LongLanesLeftToTheRescoringMatchReference) {
  REQUIRE_GPU();
  const ScopedTunable low(Tunable::kCudaLongPairCells, "100000");
  const auto& d = db2m();
  const uint32_t n = uint32_t(d.db.seqs.size());
  std::mt19937 rng(29);
  std::vector<std::string> set;
  for (size_t len : {3, 150, 499, 500, 641, 1300}) set.push_back(random_protein(rng, len));
  std::string rel;  // a mutated copy of the longest target, for scores far above the others'
  const SeqView t = d.db.seqs.view(d.db.by_length[n - 1]);
  for (uint32_t i = 0; i < t.length; ++i) rel += i % 29 == 0 ? 'W' : decode_residue(t.data[i]);
  set.push_back(rel);
  const SequenceSet queries = make_set(set);
  auto be = make_cuda_search_backend(0);
  for_each_packed_kernel([&](const std::string& lanes) {
    for (const auto& [b, e] : std::vector<std::pair<uint32_t, uint32_t>>{{0, 200}, {n - 60, n}}) {
      SearchSetup s = blosum62_setup(queries, d.db, e - b);
      be->prepare(s);
      const Tile tile = make_tile(iota_queries(queries.size()), b, e);
      SCOPED_TRACE(lanes + ", targets " + std::to_string(b) + ".." + std::to_string(e));
      expect_same_hits(be->search_tile(tile), reference_top(s, tile));
    }
  });
}

// The query-pair kernels on lanes that overflow: BLOSUM62 x 50 (gaps 550/50) makes a
// 600-residue self match score ~10^5, far past 16 bits, while the other query of its pair
// scores low. Both must come out exact.
TEST(CudaSearch, PackedKernelsRescoreOverflowingQueryPairs) {
  REQUIRE_GPU();
  std::mt19937 rng(31);
  const std::string big = random_protein(rng, 600, "WCWHYCAK");
  std::vector<std::string> targets = {big, big.substr(0, 599) + "G", random_protein(rng, 600)};
  for (int k = 0; k < 200; ++k) targets.push_back(random_protein(rng, 40 + k * 3));
  const SequenceSet queries = make_set({big, random_protein(rng, 599), random_protein(rng, 300),
                                        random_protein(rng, 301)});
  const Database db = make_database(make_set(targets));
  SearchSetup s = blosum62_setup(queries, db, uint32_t(targets.size()));
  for (auto& row : s.matrix.score)
    for (int& v : row) v *= 50;
  s.gaps = GapCosts{550, 50};
  auto be = make_cuda_search_backend(0);
  const Tile tile = make_tile(iota_queries(queries.size()), 0, uint32_t(db.seqs.size()));
  const auto want = reference_top(s, tile);
  ASSERT_FALSE(want[0].empty());
  EXPECT_GT(want[0][0].score, 32767);
  for_each_packed_kernel([&](const std::string& lanes) {
    SCOPED_TRACE(lanes);
    be->prepare(s);
    expect_same_hits(be->search_tile(tile), want);
  });
}

TEST(CudaSearch, AlignMatchesReference) {
  REQUIRE_GPU();
  const auto& d = db2m();
  SearchSetup s = blosum62_setup(d.queries, d.db, 5);
  auto be = make_cuda_search_backend(0);
  be->prepare(s);
  const auto hits = be->search_tile(make_tile({0, 1}, 0, uint32_t(d.db.seqs.size())));
  std::vector<AlignRequest> req;
  std::vector<int32_t> search_score;
  for (uint32_t q = 0; q < 2; ++q)
    for (const auto& h : hits[q]) {
      req.push_back({q, h.target});
      search_score.push_back(h.score);
    }
  const auto alns = be->align(req);
  ASSERT_EQ(alns.size(), req.size());
  for (size_t k = 0; k < req.size(); ++k) {
    const Alignment want = reference_align(AlignMode::Local, d.queries.view(req[k].query),
                                           d.db.seqs.view(req[k].target), s.matrix, s.gaps);
    EXPECT_EQ(alns[k].score, want.score);
    EXPECT_EQ(alns[k].cigar, want.cigar);
    EXPECT_EQ(alns[k].score, search_score[k]);
  }
}

// Short domains against themselves: the whole tile's top hits come from one segmented sort,
// and a batch of thousands of alignments goes through the all-vs-all engine's kernels; both
// must give the CPU backend's hits and reference_align's alignments.
// search_tile_sampled (regress's calibration sample read from the tile's own scores): the same
// top hits and sample lists as the CPU backend's, for a whole database and for a partition
// holding the sample, and the sample lists are the scores at those places in the length order.
TEST(CudaSearch, SampledTileMatchesCpu) {
  REQUIRE_GPU();
  BalifamOnBoth both(150, 13, 40);
  auto& [all, queries, db, s, gpu, cpu] = both;
  const uint32_t n = uint32_t(db.seqs.size());
  std::vector<uint32_t> sample;  // every third place of [n / 4, n)
  for (uint32_t p = n / 4; p < n; p += 3) sample.push_back(p);
  for (const Tile& tile : {make_tile(iota_queries(queries.size()), 0, n), make_tile({7, 3, 120}, n / 4, n)}) {
    const auto got = gpu->search_tile_sampled(tile, sample);
    const auto want = cpu->search_tile_sampled(tile, sample);
    expect_same_hits(got.top, want.top);
    expect_same_hits(got.top, gpu->search_tile(tile));
    expect_same_hits(got.sample, want.sample);
    for (size_t q = 0; q < got.sample.size(); ++q) {
      EXPECT_FALSE(got.sample[q].empty()) << q;
      for (const ScoredTarget& st : got.sample[q])
        EXPECT_EQ(st.score, reference_score(AlignMode::Local, queries.view(tile.queries[q]),
                                            db.seqs.view(db.by_length[sample[st.target]]), s.matrix, s.gaps));
    }
  }
  EXPECT_THROW(gpu->search_tile_sampled(make_tile({0}, n / 2, n), sample), Error);
}

// A looking-ahead worker's calls: each tile's scores queued (search_tile_ahead) while the
// previous tile is aligned, then searched plainly or with the sample; a tile queued ahead but
// not searched next (another tile searched instead, as after a split) is scored anew. Every
// result equals the CPU backend's.
TEST(CudaSearch, TilesQueuedAheadMatchCpu) {
  REQUIRE_GPU();
  BalifamOnBoth both(120, 11, 40);  // 120 x 40 hits: the first tile's alignments take the many-pairs path
  auto& [all, queries, db, s, gpu, cpu] = both;
  ASSERT_TRUE(gpu->scores_ahead());
  EXPECT_FALSE(cpu->scores_ahead());
  const uint32_t n = uint32_t(db.seqs.size());
  std::vector<uint32_t> sample;
  for (uint32_t p = 0; p < n; p += 5) sample.push_back(p);
  std::vector<Tile> tiles = {make_tile(iota_queries(120), 0, n), make_tile({60, 61, 62, 63}, 0, n),
                             make_tile({64, 70, 80}, n / 2, n), make_tile(iota_queries(60), 0, n)};
  for (uint32_t k = 0; k < tiles.size(); ++k) tiles[k].id = k;
  const Tile other = make_tile({90, 91}, 0, n);
  gpu->search_tile_ahead(tiles[0]);
  for (size_t k = 0; k < tiles.size(); ++k) {
    const Tile& tile = tiles[k];
    const bool sampled = k % 2 == 1 && tile.part_begin == 0;
    SearchBackend::SampledTile got;
    if (sampled)
      got = gpu->search_tile_sampled(tile, sample);
    else
      got.top = gpu->search_tile(tile);
    if (k + 1 < tiles.size()) gpu->search_tile_ahead(tiles[k + 1]);
    if (k == 1) expect_same_hits(gpu->search_tile(other), cpu->search_tile(other));  // tiles[2] scored anew
    std::vector<AlignRequest> reqs;
    for (size_t q = 0; q < got.top.size(); ++q)
      for (const ScoredTarget& st : got.top[q]) reqs.push_back({tile.queries[q], st.target, st.score});
    const auto alns = gpu->align(reqs);  // on the device while the next tile's scores run
    ASSERT_EQ(alns.size(), reqs.size());
    for (size_t i = 0; i < reqs.size(); ++i) EXPECT_EQ(alns[i].score, reqs[i].score) << "tile " << k << " pair " << i;
    if (sampled) {
      const auto want = cpu->search_tile_sampled(tile, sample);
      expect_same_hits(got.top, want.top);
      expect_same_hits(got.sample, want.sample);
    } else {
      expect_same_hits(got.top, cpu->search_tile(tile));
    }
  }
}

TEST(CudaSearch, ManyShortPairsMatchCpuAndReference) {
  REQUIRE_GPU();
  BalifamOnBoth both(300, 6, 30);
  auto& [all, queries, db, s, gpu, cpu] = both;
  const Tile tile = make_tile(iota_queries(queries.size()), 0, uint32_t(db.seqs.size()));
  const auto hits = gpu->search_tile(tile);
  const auto want = cpu->search_tile(tile);
  ASSERT_EQ(hits.size(), want.size());
  std::vector<AlignRequest> req;
  for (uint32_t q = 0; q < hits.size(); ++q) {
    ASSERT_EQ(hits[q].size(), want[q].size()) << "query " << q;
    for (size_t k = 0; k < hits[q].size(); ++k) {
      EXPECT_EQ(hits[q][k].score, want[q][k].score);
      EXPECT_EQ(hits[q][k].target, want[q][k].target);
      req.push_back({q, hits[q][k].target});
    }
  }
  ASSERT_GE(req.size(), 4096u);  // the all-vs-all engine's batch size (cuda_backend.cu)
  std::vector<Alignment> refs;
  for (const AlignRequest& r : req)
    refs.push_back(reference_align(AlignMode::Local, queries.view(r.query), db.seqs.view(r.target), s.matrix, s.gaps));
  // Without the scores (a full fill), then with search_tile's (the fill stops at the end row).
  for (const bool scored : {false, true}) {
    SCOPED_TRACE(scored ? "scores given" : "no scores");
    for (size_t k = 0, n = 0; scored && n < hits.size(); ++n)
      for (const auto& h : hits[n]) req[k++].score = h.score;
    const auto alns = gpu->align(req);
    ASSERT_EQ(alns.size(), req.size());
    for (size_t k = 0; k < req.size(); ++k) {
      const Alignment& ref = refs[k];
      EXPECT_EQ(alns[k].score, ref.score) << k;
      EXPECT_EQ(alns[k].cigar, ref.cigar) << k;
      EXPECT_EQ(alns[k].qstart, ref.qstart) << k;
      EXPECT_EQ(alns[k].tstart, ref.tstart) << k;
      EXPECT_EQ(alns[k].qend, ref.qend) << k;
      EXPECT_EQ(alns[k].tend, ref.tend) << k;
    }
  }
}

// Throughput: hpcalign_gpu_tests --gtest_also_run_disabled_tests --gtest_filter='*Benchmark*'
// against the benchmark database (makedb --synthetic --residues 207e6 --seed 1) or the one in
// HPCALIGN_BENCH_DB. TCUPS = sum |q| x database residues / seconds of search_tile.
TEST(CudaSearch, DISABLED_Benchmark) {
  REQUIRE_GPU();
  const std::optional<std::string> path = tuning_path(Tunable::kBenchDb);
  const SequenceSet queries = read_fasta(test::data_path("cudasw_queries20.fa"));
  const Database db = path ? load_database(*path) : make_database(synthetic_database(207'000'000, 1));
  SearchSetup s = blosum62_setup(queries, db, 10);
  auto be = make_cuda_search_backend(0);
  auto t0 = std::chrono::steady_clock::now();
  be->prepare(s);
  const double prep = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  uint64_t qres = queries.total_residues();
  const Tile tile = make_tile(iota_queries(queries.size()), 0, uint32_t(db.seqs.size()));
  be->search_tile(tile);  // warm-up
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    t0 = std::chrono::steady_clock::now();
    const auto hits = be->search_tile(tile);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    ASSERT_EQ(hits.size(), queries.size());
  }
  // Alignments of the top hits (what `hpcalign search` asks for), best of 3 after the first.
  const auto hits = be->search_tile(tile);
  std::vector<AlignRequest> req;
  for (uint32_t q = 0; q < hits.size(); ++q)
    for (const auto& h : hits[q]) req.push_back({q, h.target});
  double align_best = 1e30;
  for (int rep = 0; rep < 4; ++rep) {
    t0 = std::chrono::steady_clock::now();
    const auto alns = be->align(req);
    if (rep > 0) align_best = std::min(align_best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    ASSERT_EQ(alns.size(), req.size());
  }
  const double cells = double(qres) * double(db.seqs.total_residues());
  std::printf("BENCH device=%s targets=%zu residues=%llu prepare=%.3fs search=%.4fs TCUPS=%.3f align(%zu pairs)=%.4fs "
              "(+%.1f%% of search)\n",
              be->name().c_str(), db.seqs.size(), (unsigned long long)db.seqs.total_residues(), prep, best,
              cells / best / 1e12, req.size(), align_best, 100.0 * align_best / best);
}

}  // namespace
}  // namespace hpc
