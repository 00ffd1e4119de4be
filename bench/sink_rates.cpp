// Result-sink rates without a backend: a synthetic producer delivers all-vs-all-like tiles
// (query window x target window, a fixed share of the pairs kept, scores from a hash) to
// io/result_file as a screen does (stage_in_batches, append_tile_lazily), then merges them.
// Prints hits staged per second (the producer waiting only for the writer), hits merged per
// second (finish_merged) and the file's bytes per hit; GNU time gives the peak memory.
//   sink_rates OUT.h5 [sequences=20000] [keep_percent=10] [window=2048] [cigar=0|1]
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "io/result_file.hpp"

namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finaliser: a fixed pseudo-random value per pair
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double cpu_seconds() {  // the process's CPU time: the cores here are shared, walls are loose
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sink_rates OUT.h5 [sequences] [keep_percent] [window] [cigar]\n");
    return 2;
  }
  const std::string out = argv[1];
  const uint32_t n = argc > 2 ? uint32_t(std::atoi(argv[2])) : 20000;
  const uint32_t keep = argc > 3 ? uint32_t(std::atoi(argv[3])) : 10;
  const uint32_t window = argc > 4 ? uint32_t(std::atoi(argv[4])) : 2048;
  const bool cigar = argc > 5 && std::atoi(argv[5]) != 0;
  const double nan = std::numeric_limits<double>::quiet_NaN();

  hpc::ResultFile file(out);
  file.stage_in_batches(2.0);
  uint64_t produced = 0;
  uint32_t tile_id = 0;
  const auto t0 = std::chrono::steady_clock::now();
  double producing = 0, producing_cpu = 0;
  const double c0 = cpu_seconds();
  for (uint32_t q0 = 0; q0 < n; q0 += window)
    for (uint32_t t0w = q0; t0w < n; t0w += window) {  // the upper triangle, as a square screen
      const auto tp = std::chrono::steady_clock::now();
      const double cp = cpu_seconds();
      auto rows = std::make_shared<std::vector<hpc::Hit>>();
      for (uint32_t q = q0; q < std::min(n, q0 + window); ++q)
        for (uint32_t t = std::max(t0w, q + 1); t < std::min(n, t0w + window); ++t) {
          const uint64_t h = mix(uint64_t(q) << 32 | t);
          if (h % 100 >= keep) continue;
          hpc::Hit hit;
          hit.query = q;
          hit.target = t;
          hit.aln.score = int32_t(35 + (h >> 8) % 200);
          hit.bits = nan;
          hit.evalue = nan;
          if (cigar) {
            hit.aln.qstart = hit.aln.tstart = 1;
            hit.aln.qend = hit.aln.tend = 120;
            hit.aln.cigar = "57=1X3I40=2D17=";
          }
          rows->push_back(std::move(hit));
        }
      producing += seconds_since(tp);
      producing_cpu += cpu_seconds() - cp;
      produced += rows->size();
      const size_t bytes = rows->size() * 20;  // about a score-only hit on the wire
      file.append_tile_lazily(tile_id++, [rows] { return std::move(*rows); }, bytes);
    }
  const size_t runs = file.staged_runs();  // waits for the writer
  const double staging = seconds_since(t0) - producing, staging_cpu = cpu_seconds() - c0 - producing_cpu;
  const auto tm = std::chrono::steady_clock::now();
  const double cm = cpu_seconds();
  const uint64_t rows = file.finish_merged();
  const double merging = seconds_since(tm), merging_cpu = cpu_seconds() - cm;
  struct stat st {};
  stat(out.c_str(), &st);
  std::printf(
      "hits %llu in %u tiles; staging %.2f s wall, %.2f s CPU (%.2f M hits/s of wall; the producer's own %.2f s "
      "excluded); merge of %zu runs %.2f s wall, %.2f s CPU (%.2f M hits/s of wall); file %.1f MB = %.2f bytes "
      "per hit\n",
      (unsigned long long)rows, tile_id, staging, staging_cpu, produced / staging / 1e6, producing, runs, merging,
      merging_cpu, rows / merging / 1e6, st.st_size / 1e6, double(st.st_size) / double(rows ? rows : 1));
  return rows == produced ? 0 : 1;
}
