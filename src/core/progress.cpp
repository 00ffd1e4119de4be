#include "src/core/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace hpc {

Progress::Progress(std::string label, size_t total_tiles, uint64_t total_cells, bool quiet)
    : label_(std::move(label)), total_tiles_(total_tiles), total_cells_(total_cells),
      live_(!quiet && isatty(STDERR_FILENO)), quiet_(quiet), start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

double Progress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::tile_done(uint64_t cells) {
  ++done_tiles_;
  done_cells_ += cells;
  if (!live_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(200) && done_tiles_ < total_tiles_) return;
  last_draw_ = now;
  const double s = seconds();
  const double gcups = s > 0 ? done_cells_ / s / 1e9 : 0;
  const double eta = done_cells_ ? s * double(total_cells_ - done_cells_) / double(done_cells_) : 0;
  std::fprintf(stderr, "\r%s: %zu/%zu tiles, %.1f GCUPS, ETA %.0f s   ", label_.c_str(), done_tiles_, total_tiles_, gcups, eta);
  std::fflush(stderr);
}

void Progress::finish() {
  if (live_) std::fprintf(stderr, "\r\033[K");
  if (quiet_) return;
  const double s = seconds();
  std::fprintf(stderr, "%s: %zu tiles, %.3g cells in %.2f s, %.2f GCUPS\n", label_.c_str(), done_tiles_,
               double(done_cells_), s, s > 0 ? done_cells_ / s / 1e9 : 0.0);
}

}  // namespace hpc
