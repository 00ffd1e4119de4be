#include "kernels/cpu/allvsall_cpu.hpp"

#include <unistd.h>

#include <algorithm>
#include "kernels/cpu/strip_align.hpp"
#include "src/align/reduced_space.hpp"
#include "src/core/cpu_budget.hpp"
#include "src/core/error.hpp"

namespace hpc {
namespace {

int resolve_threads(int threads) {
  if (threads < 0) throw Error("allvsall: thread count must be >= 0 (0 = the job's CPUs), got " + std::to_string(threads));
  return threads > 0 ? threads : usable_cpus().cpus;
}

// A quarter of physical memory, as the search backend assumes: room beside the inputs
// and whatever else shares the machine.
uint64_t usable_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0 ? uint64_t(pages) * uint64_t(page_size) / 4 : (uint64_t(1) << 30);
}

struct Run {  // pairs[first, first + count) share one query
  size_t first, count;
};

std::vector<Run> query_runs(const std::vector<PairIndex>& pairs) {
  std::vector<Run> runs;
  for (size_t k = 0; k < pairs.size(); ++k)
    if (runs.empty() || pairs[k].query != pairs[runs.back().first].query)
      runs.push_back({k, 1});
    else
      ++runs.back().count;
  return runs;
}

}  // namespace

CpuAllVsAll::CpuAllVsAll(const AllVsAllSetup& setup, int threads, SimdIsa isa)
    : setup_(setup), threads_(resolve_threads(threads)), pool_(threads_) {
  if (!setup_.queries || !setup_.targets) throw Error("allvsall: the cpu engine needs query and target sets");
  if (!simd_isa_supported(isa)) throw Error(std::string("allvsall: this CPU cannot run ") + to_string(isa));
  if (setup_.mode == AlignMode::Local)
    scorer_.emplace(setup_.matrix, setup_.gaps, isa);
  else
    end_scorer_.emplace(setup_.mode, setup_.matrix, setup_.gaps, isa);
  budget_ = setup_.traceback_budget ? setup_.traceback_budget : usable_memory() / uint64_t(threads_);
}

std::string CpuAllVsAll::name() const {
  const std::string kernel = scorer_ ? scorer_->kernel_name() : end_scorer_->kernel_name();
  return "cpu (" + std::to_string(threads_) + (threads_ == 1 ? " thread, " : " threads, ") + kernel + ")";
}

DeviceCapacity CpuAllVsAll::capacity() const {
  DeviceCapacity c;
  c.name = name();
  c.compute_units = threads_;
  // A query's run of targets is one SIMD batch (every mode) and should fill many vectors (16 x
  // the lanes) to amortise building it.
  c.resident_per_unit = 16 * (scorer_ ? scorer_->batch_lanes() : end_scorer_->batch_lanes());
  c.memory_bytes = usable_memory();
  return c;
}

void CpuAllVsAll::check(const PairIndex& p) const {
  if (p.query >= setup_.queries->size() || p.target >= setup_.targets->size())
    throw Error("allvsall: pair (" + std::to_string(p.query) + ", " + std::to_string(p.target) +
                ") is outside the sequence sets");
}

std::vector<int32_t> CpuAllVsAll::score(const std::vector<PairIndex>& pairs) {
  for (const PairIndex& p : pairs) check(p);
  std::vector<int32_t> scores(pairs.size());
  const std::vector<Run> runs = query_runs(pairs);
  pool_.run(runs.size(), [&](size_t r) {
    const Run& run = runs[r];
    const SeqView q = setup_.queries->view(pairs[run.first].query);
    std::vector<SeqView> targets(run.count);
    for (size_t k = 0; k < run.count; ++k) targets[k] = setup_.targets->view(pairs[run.first + k].target);
    if (scorer_)
      scorer_->score(q, targets.data(), targets.size(), scores.data() + run.first);
    else
      end_scorer_->score(q, targets.data(), targets.size(), scores.data() + run.first);
  });
  return scores;
}

std::vector<Alignment> CpuAllVsAll::align(const std::vector<PairIndex>& pairs) {
  for (const PairIndex& p : pairs) check(p);
  std::vector<Alignment> out(pairs.size());
  pool_.run(pairs.size(), [&](size_t k) {
    const SeqView q = setup_.queries->view(pairs[k].query), t = setup_.targets->view(pairs[k].target);
    // The strip aligner (vector sweeps, reference_align's alignment in bounded memory) for pairs
    // of every size: 3x reference_align's speed on balifam1000 pairs, as on long ones.
    const bool fits = traceback_bytes(q.length, t.length) <= budget_;
    if (strip_align_exact(q, t, setup_.matrix, setup_.gaps))
      out[k] = strip_align(setup_.mode, q, t, setup_.matrix, setup_.gaps, budget_);
    else
      out[k] = reduced_space_align(setup_.mode, q, t, setup_.matrix, setup_.gaps, budget_);
    if (!fits) ++reduced_pairs_;
  });
  return out;
}

}  // namespace hpc
