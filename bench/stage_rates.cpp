// A search tile's host work per hit after its alignments, without a backend: a synthetic tile
// as a self-search's (queries in index order, each query's hits by score descending, CIGARs of
// random runs in one engine buffer, in an order of their own as the GPU engine's walk leaves
// them) goes through the search's steps: the alignments into hits, then the rows staged in a
// run file (io/run_files.hpp), the worker's buffers kept from tile to tile. Prints each step's seconds and nanoseconds a hit, best of the repeats.
//   stage_rates DIR [queries=640] [hits_per_query=400] [repeats=5] [shuffled=1]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "io/run_files.hpp"
#include "kernels/backend.hpp"
#include "src/core/cigar_buffer.hpp"

namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// A CIGAR of runs of = and X with a gap now and then, ~50-400 characters.
std::string cigar_of(uint64_t h) {
  std::string c;
  const size_t want = 50 + h % 350;
  const char ops[] = "=X=X=X=X=XID";
  while (c.size() < want) {
    h = mix(h);
    c += std::to_string(1 + h % 9);
    c += ops[(h >> 8) % 12];
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: stage_rates DIR [queries] [hits_per_query] [repeats] [shuffled]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const uint32_t nq = argc > 2 ? uint32_t(std::atoi(argv[2])) : 640;
  const uint32_t per = argc > 3 ? uint32_t(std::atoi(argv[3])) : 400;
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 5;
  const bool shuffled = argc > 5 ? std::atoi(argv[5]) != 0 : true;  // 0: in the rows' order (the CPU engines')

  // The requests: queries in index order, each query's targets by score descending then index.
  std::vector<hpc::AlignRequest> reqs;
  for (uint32_t q = 0; q < nq; ++q) {
    std::vector<hpc::ScoredTarget> top;
    for (uint32_t j = 0; j < per; ++j) {
      const uint64_t h = mix(uint64_t(q) << 32 | j);
      top.push_back({int32_t(30 + h % 500), uint32_t((h >> 16) % 11000)});
    }
    std::sort(top.begin(), top.end(), hpc::scored_target_order);
    for (const auto& t : top) reqs.push_back({q, t.target, t.score});
  }
  const size_t n = reqs.size();
  // The engine's results: alignments without CIGARs, the CIGARs in one buffer in a shuffled order.
  std::vector<std::string> texts(n);
  for (size_t k = 0; k < n; ++k) texts[k] = cigar_of(mix(k));
  std::vector<size_t> text_order(n);
  std::iota(text_order.begin(), text_order.end(), size_t(0));
  for (size_t k = n; k > 1 && shuffled; --k) std::swap(text_order[k - 1], text_order[mix(k) % k]);

  hpc::prepare_run_directory(dir, true);
  hpc::RecordFile file(dir, "w0");
  double best_hits = 1e9, best_stage = 1e9;
  uint64_t chars = 0;
  hpc::CigarBuffer cigars;
  cigars.resize(n);
  for (const size_t k : text_order) cigars.set(k, texts[k]);
  chars = cigars.chars.size();
  std::vector<hpc::Hit> hits;  // kept from tile to tile, as the search worker's
  for (int r = 0; r < repeats; ++r) {
    std::vector<hpc::Alignment> alns(n);
    for (size_t k = 0; k < n; ++k) alns[k].score = reqs[k].score, alns[k].qstart = alns[k].tstart = 1, alns[k].qend = alns[k].tend = 100;

    auto t0 = std::chrono::steady_clock::now();
    hits.clear();  // as the search worker's "hits" step
    hits.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (alns[i].score != reqs[i].score) return 1;
      hits[i].query = reqs[i].query;
      hits[i].target = reqs[i].target;
      hits[i].aln = std::move(alns[i]);
    }
    best_hits = std::min(best_hits, seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    const hpc::StagedRun run = hpc::HitRecords().write(file, uint32_t(r), hits, &cigars);
    best_stage = std::min(best_stage, seconds_since(t0));
    hits.clear();
    if (run.rows != n || run.extra != chars) return 1;
  }
  hpc::remove_run_directory(dir);
  std::printf("%zu hits (%.0f CIGAR characters a hit): hits %.4f s (%.1f ns a hit), staging %.4f s (%.1f ns a hit)\n", n,
              double(chars) / double(n), best_hits, 1e9 * best_hits / double(n), best_stage, 1e9 * best_stage / double(n));
  return 0;
}
