#include "src/core/progress.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace hpc {
namespace {
double default_batch_interval = 30;
}  // namespace

void Progress::set_default_batch_interval(double seconds) { default_batch_interval = seconds; }

Progress::Progress(std::string label, size_t total_tiles, uint64_t total_cells, bool quiet)
    : label_(std::move(label)), total_tiles_(total_tiles), total_cells_(total_cells), batch_interval_(default_batch_interval),
      live_(!quiet && isatty(STDERR_FILENO)), quiet_(quiet), start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

double Progress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::resumed(size_t tiles, uint64_t cells) {
  resumed_tiles_ = tiles;
  resumed_cells_ = cells;
}

void Progress::tile_done(uint64_t cells) {
  ++done_tiles_;
  done_cells_ += cells;
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  const size_t done = resumed_tiles_ + done_tiles_;
  // Live: redraw at most 5 times a second. Batch: one line per interval (and none at the
  // end: the summary says it).
  if (live_ ? (now - last_draw_ < std::chrono::milliseconds(200) && done < total_tiles_)
            : (batch_interval_ <= 0 || done >= total_tiles_ ||
               now - last_draw_ < std::chrono::duration<double>(batch_interval_)))
    return;
  last_draw_ = now;
  const double s = seconds();
  const double gcups = s > 0 ? done_cells_ / s / 1e9 : 0;
  const uint64_t left = total_cells_ - std::min(total_cells_, resumed_cells_ + done_cells_);
  const double eta = done_cells_ ? s * double(left) / double(done_cells_) : 0;
  std::fprintf(stderr, live_ ? "\r%s: %zu/%zu tiles, %.1f GCUPS, ETA %.0f s   " : "%s: %zu/%zu tiles, %.1f GCUPS, ETA %.0f s\n",
               label_.c_str(), done, total_tiles_, gcups, eta);
  std::fflush(stderr);
}

void Progress::finish() {
  if (live_) std::fprintf(stderr, "\r\033[K");
  if (quiet_) return;
  const double s = seconds();
  std::fprintf(stderr, "%s: %zu tiles, %.3g cells in %.2f s, %.2f GCUPS%s\n", label_.c_str(), done_tiles_,
               double(done_cells_), s, s > 0 ? done_cells_ / s / 1e9 : 0.0,
               resumed_tiles_ ? (" (" + std::to_string(resumed_tiles_) + " tiles done before --resume)").c_str() : "");
}

long peak_resident_mib() {
  rusage usage{};
  return getrusage(RUSAGE_SELF, &usage) == 0 ? long(usage.ru_maxrss / 1024) : -1;
}

void report_peak_memory() {
  const long mib = peak_resident_mib();
  if (mib >= 0) std::fprintf(stderr, "hpcalign: peak resident memory %ld MiB\n", mib);
}

}  // namespace hpc
