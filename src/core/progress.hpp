#pragma once
// Progress of a tiled run: a live line on stderr when it is a terminal (tiles done/total,
// GCUPS, ETA), a plain line every N seconds otherwise (batch logs), and a one-line summary
// at the end in every case.
#include <chrono>
#include <cstdint>
#include <string>

namespace hpc {

class Progress {
 public:
  Progress(std::string label, size_t total_tiles, uint64_t total_cells, bool quiet);
  void tile_done(uint64_t cells);
  // A tile was split into n + 1 pieces (the same cells).
  void add_tiles(size_t n) { total_tiles_ += n; }
  // Work finished by an earlier run (--resume): counted in done/total and the ETA, not in GCUPS.
  void resumed(size_t tiles, uint64_t cells);
  // Not a terminal (batch jobs): a plain line every `seconds` (<= 0: none). Default 30.
  void set_batch_interval(double seconds) { batch_interval_ = seconds; }
  // The interval every Progress made afterwards starts with (the CLI's --progress-interval).
  static void set_default_batch_interval(double seconds);
  // Clears the live line and prints "label: N tiles, C cells in S s, G GCUPS".
  void finish();
  double seconds() const;

 private:
  std::string label_;
  size_t total_tiles_, done_tiles_ = 0;
  uint64_t total_cells_, done_cells_ = 0;
  size_t resumed_tiles_ = 0;
  uint64_t resumed_cells_ = 0;
  double batch_interval_;
  bool live_, quiet_;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// getrusage's maximum resident set size of this process in MiB (-1: unknown).
long peak_resident_mib();
// --verbose: "hpcalign: peak resident memory N MiB" (peak_resident_mib), the figure a run's
// memory bound is checked against.
void report_peak_memory();

}  // namespace hpc
