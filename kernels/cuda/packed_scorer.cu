#include "kernels/cuda/packed_scorer.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/sw_ops.cuh"
#include "kernels/cuda/traceback_kernels.hpp"
#include "src/core/error.hpp"
#include "src/core/tuning.hpp"

namespace hpc::cuda {

PackedScorer::PackedScorer(const ScoreMatrix& mx, GapCosts gaps, cudaStream_t stream, const cudaDeviceProp& props,
                           AlignMode mode)
    : stream_(stream), sm_count_(props.multiProcessorCount), mode_(mode) {
  // One occupancy for both kernels, so T_max (resident_per_sm) does not depend on the tile.
  blocks_per_sm_ = std::min({search16_blocks_per_sm(), search16q_blocks_per_sm(), search16p_blocks_per_sm()});
  if (blocks_per_sm_ < 1) throw Error("CUDA: the packed score kernel cannot run on " + std::string(props.name));
  // Substitution tables with the "H - (open+extend)" storage folded in (see sw_ops.cuh).
  const int oe = gaps.open + gaps.extend;
  gaps_ = {oe, gaps.extend};
  const int smax = std::max(mx.max_score(), 0);
  packed_ok_ = gaps.open >= 0 && gaps.extend >= 0 && oe + gaps.extend <= 8000 && mx.max_score() <= 1000 &&
               mx.min_score() >= -1000;
  overflow_limit_ = 32767 - smax;
  if (mode_ != AlignMode::Local) end_fit_ = packed_end_score_fit(mode_, gaps.open, gaps.extend, mx.max_score());
  std::vector<uint32_t> packed(kPackedTableBytes / 4);
  std::vector<int32_t> t32(24 * kCodes);
  auto s16 = [&](int q, int a) { return a == kPadCode ? Packed16::kPadScore : mx(q, a) + oe; };
  for (int q = 0; q < 24; ++q)
    for (int a = 0; a < kCodes; ++a) {
      t32[q * kCodes + a] = a == kPadCode ? Exact32::kPadScore : mx(q, a) + oe;
      for (int b = 0; b < kCodes; ++b) packed[(q * kCodes + a) * kCodes + b] = Packed16::pack(s16(q, a), s16(q, b));
    }
  // The query-pair kernels' table: (query letter a, query letter b) x subject letter (the
  // row-group kernel's profiles are built from it on the device).
  std::vector<uint32_t> pair_table(kQueryPairTableBytes / 4);
  auto s16q = [&](int q, int c) { return q == kPadCode || c == kPadCode ? Packed16::kPadScore : mx(q, c) + oe; };
  for (int a = 0; a < kCodes; ++a)
    for (int b = 0; b < kCodes; ++b)
      for (int c = 0; c < kCodes; ++c) pair_table[(a * kCodes + b) * kCodes + c] = Packed16::pack(s16q(a, c), s16q(b, c));
  packed_table_.upload(packed.data(), packed.size(), stream_);
  pair_table_.upload(pair_table.data(), pair_table.size(), stream_);
  table32_.upload(t32.data(), t32.size(), stream_);
  std::vector<int32_t> m24(kTbAlphabet * kTbAlphabet);
  for (int a = 0; a < kTbAlphabet; ++a)
    for (int b = 0; b < kTbAlphabet; ++b) m24[a * kTbAlphabet + b] = mx(uint8_t(a), uint8_t(b));
  matrix24_.upload(m24.data(), m24.size(), stream_);
  long_range_.open = gaps.open, long_range_.extend = gaps.extend;
  long_range_.max_abs_score = std::max(std::abs(mx.max_score()), std::abs(mx.min_score()));
  counters_.reserve(3);
  counters_host_.reserve(3);
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const auto on_stream = [&](auto&... buffers) { (buffers.use_stream(stream_, device), ...); };
  on_stream(pair_rows_, pair_offsets_, pair_lengths_, pair_slots_, pair_profiles_, q_residues_, q_offsets_, q_lengths_,
            units_, temp_, scores_, overflow_, long_list_, long_columns_, long_tb_pairs_, long_partial_, long_ends_);
  CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host tables die here
}

void PackedScorer::upload_queries(const std::vector<SeqView>& queries) {
  std::vector<uint8_t> res;
  std::vector<uint32_t> offs, lens;
  max_len_ = 0;
  for (const SeqView& v : queries) {
    offs.push_back(uint32_t(res.size()));
    lens.push_back(v.length);
    res.insert(res.end(), v.data, v.data + v.length);
    max_len_ = std::max(max_len_, v.length);
  }
  res.push_back(0);  // never an empty upload
  q_residues_.upload_growing(res.data(), res.size());
  q_offsets_.upload_growing(offs.data(), offs.size());
  q_lengths_.upload_growing(lens.data(), lens.size());
}

void PackedScorer::launch(DeviceDb db, Partition part, const std::vector<SeqView>& queries,
                          const std::function<uint32_t(uint32_t)>& length_at) {
  if (pending_) finish();
  db_ = db;
  part_ = part;
  n_queries_ = uint32_t(queries.size());
  const size_t cells = size_t(n_queries_) * part.size;
  // The sizes vary tile by tile (growing buffers: see reserve_growing).
  scores_.reserve_growing(std::max<size_t>(cells, 1));
  overflow_.reserve_growing(std::max<size_t>(cells, 1));
  upload_queries(queries);
  CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, 2 * sizeof(uint32_t), stream_));
  // Scores of empty queries (and of everything when the queries are empty) stay 0.
  if (cells) CUDA_CHECK(cudaMemsetAsync(scores_.get(), 0, cells * sizeof(int32_t), stream_));
  if (cells == 0 || max_len_ == 0) return;
  pending_ = true;
  if (packed_ok_) {
    // The query-pair kernels pair neighbours of this order.
    const std::vector<uint32_t> by_length = longest_first(queries);
    switch (mode_ != AlignMode::Local ? Lanes::kSubjectPairs : choose_lanes(queries, by_length)) {
      case Lanes::kSubjectPairs: launch_packed(queries, length_at); break;
      case Lanes::kQueryPairTable: launch_query_pairs(queries, by_length, length_at); break;
      case Lanes::kQueryRowGroups: launch_row_groups(queries, by_length, length_at); break;
    }
    CUDA_CHECK(cudaMemcpyAsync(counters_host_.get(), counters_.get(), 2 * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                               stream_));
  } else {
    // Scores or gaps too large for 16-bit lanes: every pair goes through the exact kernel.
    std::vector<uint32_t> all(cells);
    for (size_t k = 0; k < cells; ++k) all[k] = uint32_t(k);
    overflow_.upload(all.data(), cells);
    counters_host_[1] = uint32_t(cells);
  }
}

void PackedScorer::finish() {
  if (!pending_) return;
  pending_ = false;
  if (packed_ok_) CUDA_CHECK(cudaStreamSynchronize(stream_));  // the overflow count
  rescore_exact(counters_host_[1]);
}

// Column passes of each block of `per_block` consecutive partition positions: its longest
// subject, from a few samples, so that units of unsorted partitions are costed too.
std::vector<uint64_t> PackedScorer::block_passes(uint32_t per_block,
                                                 const std::function<uint32_t(uint32_t)>& length_at) const {
  std::vector<uint64_t> passes;
  for (uint32_t first = 0; first < part_.size; first += per_block) {
    const uint32_t end = std::min<uint32_t>(first + per_block, part_.size);
    uint32_t n = 0;
    for (uint32_t p = first; p < end; p += std::max<uint32_t>(1, (end - first) / 8)) n = std::max(n, length_at(p));
    n = std::max(n, length_at(end - 1));
    passes.push_back((n + kChunk - 1) / kChunk);
  }
  return passes;
}

// Work units, most expensive first (LPT): the longest pairs start early, the short ones
// fill the tail. Unit (row set r, block b) costs rows[r] x passes[b]. Also sets long_cells_:
// a thread whose pair is more than twice the average thread's share of the launch would end
// after the launch's other work, so such a subject is left to the stripe rescoring (the
// threshold stays at least tb_long_pair_cells(), so the packed kernel keeps nearly every pair).
void PackedScorer::upload_units(const std::vector<uint32_t>& rows, const std::vector<uint64_t>& passes) {
  std::vector<WorkUnit> units;
  std::vector<uint64_t> cost;
  uint64_t total = 0;
  for (uint32_t r = 0; r < rows.size(); ++r) {
    if (rows[r] == 0) continue;
    for (uint32_t b = 0; b < passes.size(); ++b) {
      units.push_back({r, b * uint32_t(kBlockThreads)});
      cost.push_back(uint64_t(rows[r]) * passes[b]);
      total += cost.back();
    }
  }
  const uint64_t share = total * kChunk / uint64_t(std::max(1, sm_count_ * blocks_per_sm_));
  long_cells_ = tuning_number(Tunable::kCudaLongPairCells) ? tb_long_pair_cells()
                                                             : std::max(tb_long_pair_cells(), 2 * share);
  std::vector<uint32_t> order(units.size());
  for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return cost[a] > cost[b]; });
  std::vector<WorkUnit> sorted(units.size());
  for (size_t k = 0; k < order.size(); ++k) sorted[k] = units[order[k]];
  units_.upload_growing(sorted.data(), sorted.size());
  n_units_ = uint32_t(sorted.size());
}

// Persistent grid: as many blocks as fit at once, fewer if the boundary strips (threads x
// longest query x 8 bytes) would not fit in half the free memory; reserves the strips. Called
// just before each packed kernel's launch, so it also queues start_after()'s wait there.
int PackedScorer::grid_blocks() {
  // The row-group kernel's strips hold whole groups.
  const size_t rows = (size_t(max_len_) + kRowsPerGroup - 1) / kRowsPerGroup * kRowsPerGroup;
  const size_t strip = rows * sizeof(uint2) * kBlockThreads;
  int blocks = sm_count_ * blocks_per_sm_;
  size_t have = temp_.capacity() * sizeof(uint2);
  if (have < size_t(blocks) * strip) {  // the free memory (a driver call) only where the strips must grow
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    have += free_b / 2;
  }
  blocks = int(std::min<size_t>(size_t(blocks), std::max<size_t>(1, have / strip)));
  blocks = int(std::max<size_t>(1, std::min<size_t>(size_t(blocks), n_units_)));
  temp_.reserve(size_t(blocks) * kBlockThreads * rows);
  if (after_) CUDA_CHECK(cudaStreamWaitEvent(stream_, after_, 0));
  after_ = nullptr;
  return blocks;
}

// The tile's query slots, longest first.
std::vector<uint32_t> PackedScorer::longest_first(const std::vector<SeqView>& queries) {
  std::vector<uint32_t> by_length(queries.size());
  for (uint32_t k = 0; k < by_length.size(); ++k) by_length[k] = k;
  std::stable_sort(by_length.begin(), by_length.end(),
                   [&](uint32_t a, uint32_t b) { return queries[a].length > queries[b].length; });
  return by_length;
}

// Two queries per thread when they pair up with little padding. The table kernel needed
// almost none (<= 2%): its conflict-free gather won on all-vs-all windows of similar lengths
// (+13%, H200), while with queries of mixed lengths the padding costs more (20 CUDASW++
// queries, 6% padding: -2%); the row-group kernel beats it at any length (long pairs of 0.5%
// padding: 1.18x, H100), so it runs only when forced. The row-group kernel computes ~20%
// more cells per second than the subject-pair kernel (pss launches, ncu: ALU pipe 78% against
// 65%), so it wins up to ~20% padding rows: pss, 86 x 2,771 x 1,000, H100: 5.01-5.05 TCUPS against 4.64-4.81 with the 2%
// rule, which sent 21% of the kernel time to subject pairs. Pairs longer than its shared
// memory (kMaxProfileRows) are staged chunk by chunk (sw_kernels.cu): the 20 CUDASW++ queries
// (up to 5,478 rows, 6% padding) take 1.70 s there against 1.96 s on subject pairs (H100).
// HPCALIGN_PACKED_LANES=subjects|queries|query-table forces one kernel (queries: the
// row-group kernel), for tuning and tests.
PackedScorer::Lanes PackedScorer::choose_lanes(const std::vector<SeqView>& queries,
                                               const std::vector<uint32_t>& order) const {
  const char* env = tuning_choice(Tunable::kPackedLanes);
  const std::string forced = env ? env : "";
  if (forced == "subjects" || queries.size() < 2) return Lanes::kSubjectPairs;
  if (forced == "query-table") return Lanes::kQueryPairTable;
  if (forced != "queries") {
    uint64_t rows = 0, padding = 0;
    for (size_t k = 0; k < order.size(); k += 2) {
      const uint64_t a = queries[order[k]].length, b = k + 1 < order.size() ? queries[order[k + 1]].length : 0;
      rows += a + b;
      padding += a - b;  // a >= b
    }
    if (padding * 5 > rows) return Lanes::kSubjectPairs;
  }
  return Lanes::kQueryRowGroups;
}

void PackedScorer::launch_packed(const std::vector<SeqView>& queries,
                                 const std::function<uint32_t(uint32_t)>& length_at) {
  // A block covers 2 x kBlockThreads positions (two subjects per thread).
  std::vector<uint64_t> passes = block_passes(2 * kBlockThreads, length_at);
  std::vector<uint32_t> rows;
  for (const SeqView& q : queries) rows.push_back(q.length);
  upload_units(rows, passes);
  const int blocks = grid_blocks();  // before temp_.get(): it may reallocate the strips
  launch_search16(blocks, stream_, db_, part_, device_queries(), units_.get(), n_units_, counters_.get(),
                  packed_table_.get(), gaps_, overflow_limit_, long_cells_, temp_.get(), scores_.get(),
                  overflow_.get(), counters_.get() + 1, end_fit_);
}

uint32_t PackedScorer::QueryPair::code_a(uint32_t i) const { return i < a.length ? a.data[i] : uint32_t(kPadCode); }
uint32_t PackedScorer::QueryPair::code_b(uint32_t i) const { return i < b.length ? b.data[i] : uint32_t(kPadCode); }

// Queries paired longest first, so the two lanes of a pair run about the same rows: pair k
// is (by_length[2k], by_length[2k + 1] or none), with max(length) rows.
std::vector<PackedScorer::QueryPair> PackedScorer::pair_up(const std::vector<SeqView>& queries,
                                                            const std::vector<uint32_t>& by_length) {
  std::vector<QueryPair> pairs;
  for (size_t k = 0; k < by_length.size(); k += 2) {
    QueryPair p;
    p.a = queries[by_length[k]];
    p.slot_a = by_length[k];
    if (k + 1 < by_length.size()) p.b = queries[by_length[k + 1]], p.slot_b = by_length[k + 1];
    p.rows = std::max(p.a.length, p.b.length);
    pairs.push_back(p);
  }
  return pairs;
}

// Uploads the pairs' rows (query pair letters a x 25 + b; the padding code past a query's
// end), each pair's padded to a multiple of `multiple` rows, with each pair's first row and
// its two slots; returns each pair's (padded) row count.
std::vector<uint32_t> PackedScorer::upload_pair_rows(const std::vector<SeqView>& queries,
                                                     const std::vector<uint32_t>& by_length, uint32_t multiple) {
  std::vector<uint16_t> rows;
  std::vector<uint32_t> offsets, lengths, slots;
  for (const QueryPair& p : pair_up(queries, by_length)) {
    const uint32_t m = (p.rows + multiple - 1) / multiple * multiple;
    offsets.push_back(uint32_t(rows.size()));
    lengths.push_back(m);
    slots.push_back(p.slot_a);
    slots.push_back(p.slot_b);
    for (uint32_t i = 0; i < m; ++i) rows.push_back(uint16_t(p.code_a(i) * kCodes + p.code_b(i)));
  }
  rows.push_back(0);  // never an empty upload
  pair_rows_.upload_growing(rows.data(), rows.size());
  pair_offsets_.upload_growing(offsets.data(), offsets.size());
  pair_slots_.upload_growing(slots.data(), slots.size());
  return lengths;
}

void PackedScorer::launch_query_pairs(const std::vector<SeqView>& queries, const std::vector<uint32_t>& by_length,
                                      const std::function<uint32_t(uint32_t)>& length_at) {
  const std::vector<uint32_t> lengths = upload_pair_rows(queries, by_length, 1);
  pair_lengths_.upload_growing(lengths.data(), lengths.size());
  upload_units(lengths, block_passes(kBlockThreads, length_at));
  const DeviceQueryPairs qp{pair_rows_.get(), pair_offsets_.get(), pair_lengths_.get(), pair_slots_.get()};
  const int blocks = grid_blocks();  // before temp_.get(): it may reallocate the strips
  launch_search16q(blocks, stream_, db_, part_, qp, units_.get(), n_units_, counters_.get(), pair_table_.get(),
                   gaps_, overflow_limit_, long_cells_, temp_.get(), scores_.get(), overflow_.get(),
                   counters_.get() + 1);
}

// The row-group kernel: the pairs' rows padded to whole groups, whose profiles a small kernel
// builds from the pair table on the device.
void PackedScorer::launch_row_groups(const std::vector<SeqView>& queries, const std::vector<uint32_t>& by_length,
                                     const std::function<uint32_t(uint32_t)>& length_at) {
  const std::vector<uint32_t> lengths = upload_pair_rows(queries, by_length, kRowsPerGroup);
  std::vector<uint32_t> groups;
  uint64_t n_rows = 0;
  for (const uint32_t m : lengths) groups.push_back(m / kRowsPerGroup), n_rows += m;
  pair_profiles_.reserve_growing(std::max<size_t>(1, size_t(n_rows) * kCodes));
  launch_build_row_groups(stream_, pair_rows_.get(), uint32_t(n_rows), pair_table_.get(), pair_profiles_.get());
  pair_lengths_.upload_growing(groups.data(), groups.size());
  upload_units(lengths, block_passes(kBlockThreads, length_at));
  const DeviceQueryPairProfiles pp{pair_profiles_.get(), pair_offsets_.get(), pair_lengths_.get(), pair_slots_.get()};
  const int blocks = grid_blocks();  // before temp_.get(): it may reallocate the strips
  launch_search16p(blocks, stream_, db_, part_, pp, units_.get(), n_units_, counters_.get(), gaps_, overflow_limit_,
                   long_cells_, temp_.get(), scores_.get(), overflow_.get(), counters_.get() + 1);
}

void PackedScorer::rescore_exact(uint32_t n) {
  if (n == 0) return;
  long_list_.reserve_growing(n);
  CUDA_CHECK(cudaMemsetAsync(counters_.get() + 2, 0, sizeof(uint32_t), stream_));
  // Batches bounded so the boundary strips stay within a quarter of free memory.
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const size_t per_thread = size_t(max_len_) * sizeof(uint2);
  size_t batch = std::max<size_t>(kBlockThreads, (temp_.capacity() * sizeof(uint2) + free_b / 4) / per_thread);
  batch = std::min<size_t>(batch / kBlockThreads * kBlockThreads, 1u << 20);
  LongPairs long_pairs = long_range_;
  long_pairs.min_cells = tb_long_pair_cells();
  long_pairs.list = long_list_.get(), long_pairs.count = counters_.get() + 2;
  for (size_t done = 0; done < n; done += batch) {
    const uint32_t count = uint32_t(std::min<size_t>(batch, n - done));
    const size_t threads = (count + kBlockThreads - 1) / kBlockThreads * kBlockThreads;
    temp_.reserve(threads * max_len_);
    launch_rescore32(stream_, db_, part_, device_queries(), overflow_.get() + done, count, table32_.get(), gaps_,
                     temp_.get(), scores_.get(), long_pairs, mode_);
  }
  rescore_long_pairs();
}

// The pairs the thread kernel set aside, as stripe tickets (traceback_kernels.hpp: a long pair's
// stripes run side by side on many blocks), in launches whose boundary columns stay within a
// quarter of free memory.
void PackedScorer::rescore_long_pairs() {
  CUDA_CHECK(cudaMemcpyAsync(counters_host_.get() + 2, counters_.get() + 2, sizeof(uint32_t), cudaMemcpyDeviceToHost,
                             stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  const uint32_t n = counters_host_[2];
  if (n == 0) return;
  long_tb_pairs_.reserve(n);
  launch_tb_places(stream_, db_, part_, device_queries(), long_list_.get(), n, long_tb_pairs_.get());
  std::vector<TbPair> pairs(n);
  CUDA_CHECK(
      cudaMemcpyAsync(pairs.data(), long_tb_pairs_.get(), n * sizeof(TbPair), cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const TbResidues res{q_residues_.get(), db_.residues};
  for_each_tb_group(pairs, long_columns_.capacity() * sizeof(int2) + free_b / 4,
                    [&](size_t first, std::vector<TbPair>& group) {
                      const TbTickets tk = long_queue_.upload(group, stream_);
                      long_tb_pairs_.upload(group.data(), group.size());
                      long_columns_.reserve(std::max<uint64_t>(long_queue_.col_rows(), 1));
                      long_partial_.reserve(long_queue_.tickets());
                      long_ends_.reserve(group.size());
                      launch_tb_ends(stream_, mode_, res, long_tb_pairs_.get(), tk, matrix24_.get(), gaps_.open_extend,
                                     gaps_.extend, long_columns_.get(), long_partial_.get(), long_ends_.get());
                      launch_tb_scatter_scores(stream_, long_ends_.get(), long_list_.get() + first,
                                               uint32_t(group.size()), scores_.get());
                      CUDA_CHECK(cudaStreamSynchronize(stream_));  // the queue's buffers serve the next group
                    });
}

}  // namespace hpc::cuda
