#include "kernels/cpu/cpu_backend.hpp"

#include <unistd.h>

#include <algorithm>
#include "kernels/cpu/strip_align.hpp"
#include "src/core/cpu_budget.hpp"
#include "src/core/error.hpp"

namespace hpc {

namespace {

int resolve_threads(int threads) {
  if (threads < 0) throw Error("cpu backend: thread count must be >= 0 (0 = the job's CPUs), got " + std::to_string(threads));
  if (threads > 0) return threads;
  return usable_cpus().cpus;
}

// Keeps the best `k` entries of `v` with score > 0, in scored_target_order.
void keep_top(std::vector<ScoredTarget>& v, size_t k) {
  v.erase(std::remove_if(v.begin(), v.end(), [](const ScoredTarget& s) { return s.score <= 0; }), v.end());
  if (v.size() > k) {
    std::nth_element(v.begin(), v.begin() + k, v.end(), scored_target_order);
    v.resize(k);
  }
  std::sort(v.begin(), v.end(), scored_target_order);
}

}  // namespace

CpuSearchBackend::CpuSearchBackend(int threads, SimdIsa isa)
    : threads_(resolve_threads(threads)), isa_(isa), pool_(threads_) {
  if (!simd_isa_supported(isa)) throw Error(std::string("cpu backend: this CPU cannot run ") + to_string(isa));
}

std::string CpuSearchBackend::name() const {
  const std::string kernel = scorer_ ? scorer_->kernel_name() : to_string(isa_);
  return "cpu (" + std::to_string(threads_) + (threads_ == 1 ? " thread, " : " threads, ") + kernel + ")";
}

DeviceCapacity CpuSearchBackend::capacity() const {
  DeviceCapacity c;
  c.name = name();
  c.compute_units = threads_;
  // Targets per vector of the first pass; before prepare(), assume the byte pass that
  // every built-in matrix allows.
  c.resident_per_unit = scorer_ ? scorer_->batch_lanes() : simd_lanes(isa_) * (isa_ == SimdIsa::Scalar ? 1 : 2);
  // A quarter of physical memory: room for tiles beside the database, the queries and
  // whatever else shares the machine.
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  c.memory_bytes = pages > 0 && page_size > 0 ? uint64_t(pages) * uint64_t(page_size) / 4 : (uint64_t(1) << 30);
  return c;
}

void CpuSearchBackend::prepare(const SearchSetup& setup) {
  if (!setup.queries || !setup.db) throw Error("cpu backend: prepare() needs queries and a database");
  setup_ = setup;
  // The inter-sequence kernel needs no per-query profile: its profile is built per
  // target column from the matrix tables prepared here, once per run.
  scorer_.emplace(setup.matrix, setup.gaps, isa_);
}

const SearchSetup& CpuSearchBackend::setup() const {
  if (!setup_) throw Error("cpu backend: prepare() was not called");
  return *setup_;
}

std::vector<std::vector<ScoredTarget>> CpuSearchBackend::search_tile(const Tile& tile) {
  return scan(tile, nullptr).top;
}

SearchBackend::SampledTile CpuSearchBackend::search_tile_sampled(const Tile& tile, const std::vector<uint32_t>& sample) {
  return scan(tile, &sample);
}

SearchBackend::SampledTile CpuSearchBackend::scan(const Tile& tile, const std::vector<uint32_t>* sample) {
  const SearchSetup& s = setup();
  const Database& db = *s.db;
  if (tile.part_begin > tile.part_end || tile.part_end > db.by_length.size())
    throw Error("cpu backend: tile " + std::to_string(tile.id) + " partition [" + std::to_string(tile.part_begin) +
                ", " + std::to_string(tile.part_end) + ") is outside the database (" +
                std::to_string(db.by_length.size()) + " sequences)");
  for (uint32_t q : tile.queries)
    if (q >= s.queries->size())
      throw Error("cpu backend: tile " + std::to_string(tile.id) + " names query " + std::to_string(q) +
                  " of " + std::to_string(s.queries->size()));

  const size_t nq = tile.queries.size();
  const size_t ntargets = tile.part_end - tile.part_begin;
  SampledTile result;
  result.top.resize(nq);
  if (sample) result.sample.resize(nq);
  // Sample index of each partition position (-1: not in the sample).
  std::vector<int32_t> sample_at(sample ? ntargets : 0, -1);
  if (sample)
    for (size_t k = 0; k < sample->size(); ++k) {
      const uint32_t p = (*sample)[k];
      if (p < tile.part_begin || p >= tile.part_end)
        throw Error("cpu backend: sample position " + std::to_string(p) + " is outside tile " + std::to_string(tile.id));
      sample_at[p - tile.part_begin] = int32_t(k);
    }
  if (nq == 0 || ntargets == 0 || s.max_hits == 0) return result;

  // Chunks of the partition: enough (query, chunk) items to keep every thread busy to
  // the end, each a whole number of vector groups.
  const size_t lanes = size_t(scorer_->batch_lanes());
  const size_t wanted_chunks = std::max<size_t>(1, (4 * size_t(threads_) + nq - 1) / nq);
  size_t chunk = std::max((ntargets + wanted_chunks - 1) / wanted_chunks, 4 * lanes);
  chunk = (chunk + lanes - 1) / lanes * lanes;
  const size_t nchunks = (ntargets + chunk - 1) / chunk;

  std::vector<std::optional<SwTargetBatch>> batches(nchunks);
  pool_.run(nchunks, [&](size_t c) {
    std::vector<SeqView> views;
    for (size_t p = c * chunk; p < std::min(ntargets, (c + 1) * chunk); ++p)
      views.push_back(db.seqs.view(db.by_length[tile.part_begin + p]));
    batches[c].emplace(scorer_->make_batch(views.data(), views.size()));
  });

  std::vector<std::vector<ScoredTarget>> partial(nq * nchunks), sampled(sample ? nq * nchunks : 0);
  pool_.run(nq * nchunks, [&](size_t item) {
    const size_t qi = item / nchunks, c = item % nchunks;
    const SwTargetBatch& batch = *batches[c];
    std::vector<int32_t> scores(batch.size());
    scorer_->score(s.queries->view(tile.queries[qi]), batch, scores.data());
    std::vector<ScoredTarget>& top = partial[item];
    for (size_t k = 0; k < scores.size(); ++k)
      if (scores[k] > 0) {
        const size_t p = c * chunk + k;
        top.push_back({scores[k], db.by_length[tile.part_begin + p]});
        if (sample && sample_at[p] >= 0) sampled[item].push_back({scores[k], uint32_t(sample_at[p])});
      }
    keep_top(top, s.max_hits);
  });

  for (size_t qi = 0; qi < nq; ++qi) {
    for (size_t c = 0; c < nchunks; ++c) {
      std::vector<ScoredTarget>& top = partial[qi * nchunks + c];
      result.top[qi].insert(result.top[qi].end(), top.begin(), top.end());
      if (sample) result.sample[qi].insert(result.sample[qi].end(), sampled[qi * nchunks + c].begin(),
                                           sampled[qi * nchunks + c].end());
    }
    keep_top(result.top[qi], s.max_hits);
    if (sample) std::sort(result.sample[qi].begin(), result.sample[qi].end(), scored_target_order);
  }
  return result;
}

std::vector<Alignment> CpuSearchBackend::align(const std::vector<AlignRequest>& pairs) {
  const SearchSetup& s = setup();
  for (const AlignRequest& r : pairs)
    if (r.query >= s.queries->size() || r.target >= s.db->seqs.size())
      throw Error("cpu backend: alignment request (" + std::to_string(r.query) + ", " + std::to_string(r.target) +
                  ") is outside the queries or the database");
  std::vector<Alignment> out(pairs.size());
  pool_.run(pairs.size(), [&](size_t i) {
    out[i] = strip_align(AlignMode::Local, s.queries->view(pairs[i].query), s.db->seqs.view(pairs[i].target),
                         s.matrix, s.gaps);
  });
  return out;
}

std::unique_ptr<SearchBackend> make_cpu_search_backend(int threads) {
  return std::make_unique<CpuSearchBackend>(threads);
}

}  // namespace hpc
