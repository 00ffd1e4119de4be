#include "kernels/cuda/packed_scorer.hpp"

#include <algorithm>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/sw_ops.cuh"
#include "src/core/error.hpp"

namespace hpc::cuda {

PackedScorer::PackedScorer(const ScoreMatrix& mx, GapCosts gaps, cudaStream_t stream, const cudaDeviceProp& props)
    : stream_(stream), sm_count_(props.multiProcessorCount) {
  blocks_per_sm_ = search16_blocks_per_sm();
  if (blocks_per_sm_ < 1) throw Error("CUDA: the packed score kernel cannot run on " + std::string(props.name));
  // Substitution tables with the "H - (open+extend)" storage folded in (see sw_ops.cuh).
  const int oe = gaps.open + gaps.extend;
  gaps_ = {oe, gaps.extend};
  const int smax = std::max(mx.max_score(), 0);
  packed_ok_ = gaps.open >= 0 && gaps.extend >= 0 && oe + gaps.extend <= 8000 && mx.max_score() <= 1000 &&
               mx.min_score() >= -1000;
  overflow_limit_ = 32767 - smax;
  std::vector<uint32_t> packed(kPackedTableBytes / 4);
  std::vector<int32_t> t32(24 * kCodes);
  auto s16 = [&](int q, int a) { return a == kPadCode ? Packed16::kPadScore : mx(q, a) + oe; };
  for (int q = 0; q < 24; ++q)
    for (int a = 0; a < kCodes; ++a) {
      t32[q * kCodes + a] = a == kPadCode ? Exact32::kPadScore : mx(q, a) + oe;
      for (int b = 0; b < kCodes; ++b) packed[(q * kCodes + a) * kCodes + b] = Packed16::pack(s16(q, a), s16(q, b));
    }
  packed_table_.upload(packed.data(), packed.size(), stream_);
  table32_.upload(t32.data(), t32.size(), stream_);
  counters_.reserve(2);
  counters_host_.reserve(2);
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
  q_residues_.upload(res.data(), res.size(), stream_);
  q_offsets_.upload(offs.data(), offs.size(), stream_);
  q_lengths_.upload(lens.data(), lens.size(), stream_);
}

void PackedScorer::launch(DeviceDb db, Partition part, const std::vector<SeqView>& queries,
                          const std::function<uint32_t(uint32_t)>& length_at) {
  if (pending_) finish();
  db_ = db;
  part_ = part;
  n_queries_ = uint32_t(queries.size());
  const size_t cells = size_t(n_queries_) * part.size;
  scores_.reserve(std::max<size_t>(cells, 1));
  overflow_.reserve(std::max<size_t>(cells, 1));
  upload_queries(queries);
  CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, 2 * sizeof(uint32_t), stream_));
  // Scores of empty queries (and of everything when the queries are empty) stay 0.
  if (cells) CUDA_CHECK(cudaMemsetAsync(scores_.get(), 0, cells * sizeof(int32_t), stream_));
  if (cells == 0 || max_len_ == 0) return;
  pending_ = true;
  if (packed_ok_) {
    launch_packed(queries, length_at);
    CUDA_CHECK(cudaMemcpyAsync(counters_host_.get(), counters_.get(), 2 * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                               stream_));
  } else {
    // Scores or gaps too large for 16-bit lanes: every pair goes through the exact kernel.
    std::vector<uint32_t> all(cells);
    for (size_t k = 0; k < cells; ++k) all[k] = uint32_t(k);
    overflow_.upload(all.data(), cells, stream_);
    counters_host_[1] = uint32_t(cells);
  }
}

void PackedScorer::finish() {
  if (!pending_) return;
  pending_ = false;
  if (packed_ok_) CUDA_CHECK(cudaStreamSynchronize(stream_));  // the overflow count
  rescore_exact(counters_host_[1]);
}

void PackedScorer::launch_packed(const std::vector<SeqView>& queries,
                                 const std::function<uint32_t(uint32_t)>& length_at) {
  // Work units, most expensive first (LPT): the longest pairs start early, the short ones
  // fill the tail. A unit's cost is set by its last (for sorted partitions, longest) pair.
  const uint32_t n_pairs = (part_.size + 1) / 2;
  // Column passes of each block of kBlockThreads pairs (the same for every query): its longest
  // subject, from a few samples, so that units of unsorted partitions are costed too.
  std::vector<uint64_t> passes;
  for (uint32_t first = 0; first < n_pairs; first += kBlockThreads) {
    const uint32_t end = std::min<uint32_t>(2 * (first + kBlockThreads), part_.size);
    uint32_t n = 0;
    for (uint32_t p = 2 * first; p < end; p += std::max<uint32_t>(1, (end - 2 * first) / 8)) n = std::max(n, length_at(p));
    n = std::max(n, length_at(end - 1));
    passes.push_back((n + kChunk - 1) / kChunk);
  }
  std::vector<WorkUnit> units;
  std::vector<uint64_t> cost;
  for (uint32_t q = 0; q < n_queries_; ++q) {
    const uint64_t m = queries[q].length;
    if (m == 0) continue;
    for (uint32_t b = 0; b < passes.size(); ++b) {
      units.push_back({q, b * uint32_t(kBlockThreads)});
      cost.push_back(m * passes[b]);
    }
  }
  std::vector<uint32_t> order(units.size());
  for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return cost[a] > cost[b]; });
  std::vector<WorkUnit> sorted(units.size());
  for (size_t k = 0; k < order.size(); ++k) sorted[k] = units[order[k]];
  units_.upload(sorted.data(), sorted.size(), stream_);

  // Persistent grid: as many blocks as fit at once, fewer if the boundary strips
  // (threads x longest query x 8 bytes) would not fit in half the free memory.
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const size_t strip = size_t(max_len_) * sizeof(uint2) * kBlockThreads;
  int blocks = sm_count_ * blocks_per_sm_;
  const size_t have = temp_.capacity() * sizeof(uint2) + free_b / 2;
  blocks = int(std::min<size_t>(size_t(blocks), std::max<size_t>(1, have / strip)));
  blocks = int(std::min<size_t>(size_t(blocks), sorted.size()));
  temp_.reserve(size_t(blocks) * kBlockThreads * max_len_);
  launch_search16(blocks, stream_, db_, part_, device_queries(), units_.get(), uint32_t(sorted.size()),
                  counters_.get(), packed_table_.get(), gaps_, overflow_limit_, temp_.get(), scores_.get(),
                  overflow_.get(), counters_.get() + 1);
}

void PackedScorer::rescore_exact(uint32_t n) {
  if (n == 0) return;
  // Batches bounded so the boundary strips stay within a quarter of free memory.
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const size_t per_thread = size_t(max_len_) * sizeof(uint2);
  size_t batch = std::max<size_t>(kBlockThreads, (temp_.capacity() * sizeof(uint2) + free_b / 4) / per_thread);
  batch = std::min<size_t>(batch / kBlockThreads * kBlockThreads, 1u << 20);
  for (size_t done = 0; done < n; done += batch) {
    const uint32_t count = uint32_t(std::min<size_t>(batch, n - done));
    const size_t threads = (count + kBlockThreads - 1) / kBlockThreads * kBlockThreads;
    temp_.reserve(threads * max_len_);
    launch_rescore32(stream_, db_, part_, device_queries(), overflow_.get() + done, count, table32_.get(), gaps_,
                     temp_.get(), scores_.get());
  }
}

}  // namespace hpc::cuda
