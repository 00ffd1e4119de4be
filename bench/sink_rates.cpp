// Result-sink rates without a backend: a synthetic producer delivers all-vs-all-like tiles
// (query window x target window, a fixed share of the pairs kept, scores from a hash) to
// io/result_file as a screen does (stage_in_batches, append_tile_lazily), then merges them.
// Prints hits staged per second (the producer waiting only for the writer), hits merged per
// second (finish_merged) and the file's bytes per hit; GNU time gives the peak memory.
// With workers > 0 the tiles go as an all-vs-all run sends them now: `workers` threads each
// sort and write their tiles to their own run file (io/run_files.hpp), then the merge reads
// those; staging then counts the workers' time (CPU seconds of all of them).
// With evalues = 1 the rows look like a real screen's to the deflater: scores skewed to the
// low end as at --min-score 35, bits and E-values from BLOSUM62 11/1's lambda and K with lengths
// of 50-449 (the default NaNs deflate far better).
//   sink_rates OUT.h5 [sequences=20000] [keep_percent=10] [window=2048] [cigar=0|1] [workers=0] [evalues=0|1]
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/result_file.hpp"
#include "io/run_files.hpp"
#include "io/run_merge.hpp"

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

struct RowKind {
  bool cigar = false;    // alignments: coordinates and a CIGAR
  bool evalues = false;  // real-like scores, bits and E-values (else NaN)
};

// The rows of tile (q0, t0w): the upper triangle, as a square screen.
std::vector<hpc::Hit> tile_rows(uint32_t n, uint32_t window, uint32_t keep, RowKind kind, uint32_t q0, uint32_t t0w) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<hpc::Hit> rows;
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
      if (kind.evalues) {
        const double lambda = 0.267, K = 0.041;
        hit.aln.score = int32_t(35 + ((h >> 8) % 40) * ((h >> 20) % 5 + 1) / 5);
        hit.bits = (lambda * hit.aln.score - std::log(K)) / std::log(2.0);
        hit.evalue = K * double(50 + mix(q) % 400) * double(50 + mix(t) % 400) * std::exp(-lambda * hit.aln.score);
      }
      if (kind.cigar) {
        hit.aln.qstart = hit.aln.tstart = 1;
        hit.aln.qend = hit.aln.tend = 120;
        hit.aln.cigar = "57=1X3I40=2D17=";
      }
      rows.push_back(std::move(hit));
    }
  return rows;
}

// Workers writing their own run files: returns the runs; producing: the producers' own time.
std::vector<hpc::StagedRun> stage_in_run_files(const std::string& dir, uint32_t workers, uint32_t n, uint32_t window,
                                               uint32_t keep, RowKind kind, uint64_t& produced, double& producing_cpu) {
  hpc::prepare_run_directory(dir, true);
  std::vector<std::pair<uint32_t, uint32_t>> tiles;
  for (uint32_t q0 = 0; q0 < n; q0 += window)
    for (uint32_t t0w = q0; t0w < n; t0w += window) tiles.emplace_back(q0, t0w);
  std::mutex mu;
  size_t next = 0;
  std::vector<hpc::StagedRun> runs;
  std::vector<std::thread> pool;
  for (uint32_t w = 0; w < workers; ++w)
    pool.emplace_back([&, w] {
      hpc::RecordFile writer(dir, "w" + std::to_string(w));
      for (;;) {
        size_t i;
        {
          std::lock_guard<std::mutex> lk(mu);
          if (next == tiles.size()) return;
          i = next++;
        }
        timespec a{}, b{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        std::vector<hpc::Hit> rows = tile_rows(n, window, keep, kind, tiles[i].first, tiles[i].second);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        hpc::StagedRun run = hpc::HitRecords().write(writer, uint32_t(i), rows);
        std::lock_guard<std::mutex> lk(mu);
        produced += run.rows;
        producing_cpu += double(b.tv_sec - a.tv_sec) + 1e-9 * double(b.tv_nsec - a.tv_nsec);
        runs.push_back(std::move(run));
      }
    });
  for (auto& t : pool) t.join();
  return runs;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: sink_rates OUT.h5 [sequences] [keep_percent] [window] [cigar] [workers] [evalues]\n");
    return 2;
  }
  const std::string out = argv[1];
  const uint32_t n = argc > 2 ? uint32_t(std::atoi(argv[2])) : 20000;
  const uint32_t keep = argc > 3 ? uint32_t(std::atoi(argv[3])) : 10;
  const uint32_t window = argc > 4 ? uint32_t(std::atoi(argv[4])) : 2048;
  RowKind kind;
  kind.cigar = argc > 5 && std::atoi(argv[5]) != 0;
  const uint32_t workers = argc > 6 ? uint32_t(std::atoi(argv[6])) : 0;
  kind.evalues = argc > 7 && std::atoi(argv[7]) != 0;

  hpc::ResultFile file(out);
  file.stage_in_batches(2.0);
  uint64_t produced = 0;
  uint32_t tile_id = 0;
  const auto t0 = std::chrono::steady_clock::now();
  double producing = 0, producing_cpu = 0;
  const double c0 = cpu_seconds();
  std::vector<hpc::StagedRun> file_runs;
  const std::string dir = hpc::run_directory_for(out);
  if (workers > 0) {
    file_runs = stage_in_run_files(dir, workers, n, window, keep, kind, produced, producing_cpu);
    tile_id = uint32_t(file_runs.size());
  } else {
    for (uint32_t q0 = 0; q0 < n; q0 += window)
      for (uint32_t t0w = q0; t0w < n; t0w += window) {
        const auto tp = std::chrono::steady_clock::now();
        const double cp = cpu_seconds();
        auto rows = std::make_shared<std::vector<hpc::Hit>>(tile_rows(n, window, keep, kind, q0, t0w));
        producing += seconds_since(tp);
        producing_cpu += cpu_seconds() - cp;
        produced += rows->size();
        const size_t bytes = rows->size() * 20;  // about a score-only hit on the wire
        file.append_tile_lazily(tile_id++, [rows] { return std::move(*rows); }, bytes);
      }
  }
  const size_t runs = workers > 0 ? file_runs.size() : file.staged_runs();  // waits for the writer
  const double staging = seconds_since(t0) - producing, staging_cpu = cpu_seconds() - c0 - producing_cpu;
  const auto tm = std::chrono::steady_clock::now();
  const double cm = cpu_seconds();
  hpc::MergeTimes stages;
  hpc::MergeRules final_merge;  // as allvsall's final merge (a screen's)
  final_merge.memory = hpc::final_merge_memory();
  final_merge.times = &stages;
  const uint64_t rows = workers > 0 ? file.finish_merged(hpc::RunFiles(dir, file_runs), final_merge) : file.finish_merged();
  const double merging = seconds_since(tm), merging_cpu = cpu_seconds() - cm;
  if (workers > 0) hpc::remove_run_directory(dir);
  struct stat st {};
  stat(out.c_str(), &st);
  std::printf(
      "hits %llu in %u tiles; staging %.2f s wall, %.2f s CPU (%.2f M hits/s of wall; the producer's own %.2f s "
      "excluded%s); merge of %zu runs in %zu segments %.2f s wall, %.2f s CPU (%.2f M hits/s of wall); file %.1f MB = %.2f bytes "
      "per hit\n",
      (unsigned long long)rows, tile_id, staging, staging_cpu, produced / staging / 1e6, producing,
      workers > 0 ? ", workers' files: wall includes producing" : "", runs, stages.segments, merging,
      merging_cpu, rows / merging / 1e6, st.st_size / 1e6, double(st.st_size) / double(rows ? rows : 1));
  std::printf("final merge's stages (overlapping): reading %.2f s, merging %.2f s, deflating %.2f s, storing %.2f s, "
              "waited %.2f s\n",
              stages.read, stages.merge, stages.deflate, stages.store, stages.waited);
  return rows == produced ? 0 : 1;
}
