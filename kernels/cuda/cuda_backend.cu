// CUDA implementation of hpc::SearchBackend for `hpcalign search`.
//
// prepare(): the database goes to the GPU once, re-laid out in by_length order, with the
// substitution tables. search_tile(): one persistent launch scores every (query, target)
// pair of the tile in packed 16-bit lanes (work units longest first, LPT), overflowing
// pairs are rescored exactly in 32-bit, then each query's scores are radix-sorted on the
// GPU by (score desc, target asc) and only the top max_hits come back.
// align(): coordinates and CIGARs on the GPU as well (kernels/cuda/traceback.hpp).
#include "kernels/cuda/cuda_backend.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/sw_kernels.hpp"
#include "kernels/cuda/sw_ops.cuh"
#include "kernels/cuda/traceback.hpp"
#include "src/align/reference.hpp"

namespace hpc {

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver / no device" state
    return 0;
  }
  return n;
}

namespace {

using cuda::DeviceBuffer;
using cuda::PinnedBuffer;

// Stage times of a tile on stderr when HPCALIGN_CUDA_TIMING is set (tuning aid).
class Timer {
 public:
  explicit Timer(cudaStream_t s) : stream_(s), on_(std::getenv("HPCALIGN_CUDA_TIMING") != nullptr) {
    if (on_) mark("start");
  }
  void mark(const char* name) {
    if (!on_) return;
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    marks_.emplace_back(name, std::chrono::steady_clock::now());
  }
  void report() const {
    if (!on_) return;
    for (size_t k = 1; k < marks_.size(); ++k)
      std::fprintf(stderr, "%s %.3f ms  ", marks_[k].first,
                   std::chrono::duration<double, std::milli>(marks_[k].second - marks_[k - 1].second).count());
    std::fprintf(stderr, "\n");
  }

 private:
  cudaStream_t stream_;
  bool on_;
  std::vector<std::pair<const char*, std::chrono::steady_clock::time_point>> marks_;
};

class CudaSearchBackend final : public SearchBackend {
 public:
  explicit CudaSearchBackend(int device) : device_(device) {
    const int n = cuda_device_count();
    if (device < 0 || device >= n)
      throw Error("CUDA device " + std::to_string(device) + " requested but " + std::to_string(n) + " visible");
    CUDA_CHECK(cudaSetDevice(device_));
    CUDA_CHECK(cudaGetDeviceProperties(&props_, device_));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    blocks_per_sm_ = cuda::search16_blocks_per_sm();
    if (blocks_per_sm_ < 1) throw Error("CUDA: the search kernel cannot run on " + std::string(props_.name));
  }
  ~CudaSearchBackend() override {
    cudaSetDevice(device_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  std::string name() const override { return props_.name; }

  DeviceCapacity capacity() const override {
    CUDA_CHECK(cudaSetDevice(device_));
    DeviceCapacity c;
    c.name = props_.name;
    c.compute_units = props_.multiProcessorCount;
    // Occupancy formula: active blocks x threads per block / threads per alignment; a
    // thread carries two alignments (two 16-bit lanes), i.e. 1/2 thread per alignment.
    c.resident_per_unit = blocks_per_sm_ * cuda::kBlockThreads * 2;
    size_t free_b = 0, total_b = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    c.memory_bytes = free_b;
    return c;
  }

  void prepare(const SearchSetup& setup) override;
  std::vector<std::vector<ScoredTarget>> search_tile(const Tile& tile) override;
  std::vector<Alignment> align(const std::vector<AlignRequest>& pairs) override;

 private:
  cuda::DeviceDb device_db() const {
    return {db_residues_.get(), db_offsets_.get(), db_lengths_.get(), db_file_index_.get()};
  }
  void upload_queries(const Tile& tile, uint32_t* max_len);
  void score_packed(cuda::Partition part, uint32_t n_queries, uint32_t max_len, const Tile& tile);
  void rescore_exact(cuda::Partition part, cuda::DeviceQueries qs, uint32_t max_len, uint32_t n);
  std::vector<std::vector<ScoredTarget>> top_hits(cuda::Partition part, uint32_t n_queries);

  int device_;
  cudaDeviceProp props_{};
  cudaStream_t stream_ = nullptr;
  int blocks_per_sm_ = 0;
  SearchSetup setup_;
  bool packed_ok_ = false;
  int overflow_limit_ = 0;

  DeviceBuffer<uint8_t> db_residues_;
  DeviceBuffer<uint64_t> db_offsets_;
  DeviceBuffer<uint32_t> db_lengths_, db_file_index_;
  DeviceBuffer<uint32_t> packed_table_;
  DeviceBuffer<int32_t> table32_;

  // Per-tile buffers (grow only).
  DeviceBuffer<uint8_t> q_residues_;
  DeviceBuffer<uint32_t> q_offsets_, q_lengths_;
  DeviceBuffer<cuda::WorkUnit> units_;
  DeviceBuffer<uint32_t> counters_;  // [0] unit counter, [1] overflow count
  DeviceBuffer<uint2> temp_;
  DeviceBuffer<int32_t> scores_;
  DeviceBuffer<uint32_t> overflow_;
  DeviceBuffer<uint64_t> keys_, keys_sorted_;
  DeviceBuffer<uint8_t> sort_temp_;
  PinnedBuffer<uint64_t> top_host_;
  PinnedBuffer<uint32_t> counters_host_;
  std::unique_ptr<cuda::GpuTraceback> traceback_;
};

void CudaSearchBackend::prepare(const SearchSetup& setup) {
  if (!setup.db || !setup.queries) throw Error("CUDA backend: prepare() needs queries and a database");
  CUDA_CHECK(cudaSetDevice(device_));
  setup_ = setup;
  const Database& db = *setup.db;
  const size_t n = db.seqs.size();
  if (db.by_length.size() != n) throw Error("CUDA backend: database has no by_length order");

  // Residues re-laid out in by_length order so a partition is one contiguous range.
  std::vector<uint8_t> residues;
  residues.reserve(db.seqs.total_residues());
  std::vector<uint64_t> offsets(n);
  std::vector<uint32_t> lengths(n);
  for (size_t p = 0; p < n; ++p) {
    const SeqView v = db.seqs.view(db.by_length[p]);
    offsets[p] = residues.size();
    lengths[p] = v.length;
    residues.insert(residues.end(), v.data, v.data + v.length);
  }
  db_residues_.upload(residues.data(), residues.size(), stream_);
  db_offsets_.upload(offsets.data(), n, stream_);
  db_lengths_.upload(lengths.data(), n, stream_);
  db_file_index_.upload(db.by_length.data(), n, stream_);

  // Substitution tables with the "H - (open+extend)" storage folded in (see sw_ops.cuh).
  const int oe = setup.gaps.open + setup.gaps.extend;
  const ScoreMatrix& mx = setup.matrix;
  const int smax = std::max(mx.max_score(), 0);
  packed_ok_ = setup.gaps.open >= 0 && setup.gaps.extend >= 0 && oe + setup.gaps.extend <= 8000 &&
               mx.max_score() <= 1000 && mx.min_score() >= -1000;
  overflow_limit_ = 32767 - smax;
  std::vector<uint32_t> packed(cuda::kPackedTableBytes / 4);
  std::vector<int32_t> t32(24 * cuda::kCodes);
  auto s16 = [&](int q, int a) { return a == cuda::kPadCode ? cuda::Packed16::kPadScore : mx(q, a) + oe; };
  for (int q = 0; q < 24; ++q)
    for (int a = 0; a < cuda::kCodes; ++a) {
      t32[q * cuda::kCodes + a] = a == cuda::kPadCode ? cuda::Exact32::kPadScore : mx(q, a) + oe;
      for (int b = 0; b < cuda::kCodes; ++b)
        packed[(q * cuda::kCodes + a) * cuda::kCodes + b] = cuda::Packed16::pack(s16(q, a), s16(q, b));
    }
  packed_table_.upload(packed.data(), packed.size(), stream_);
  table32_.upload(t32.data(), t32.size(), stream_);
  counters_.reserve(2);
  counters_host_.reserve(2);
  traceback_ = std::make_unique<cuda::GpuTraceback>(setup.matrix, setup.gaps, stream_);
  CUDA_CHECK(cudaStreamSynchronize(stream_));
}

void CudaSearchBackend::upload_queries(const Tile& tile, uint32_t* max_len) {
  std::vector<uint8_t> res;
  std::vector<uint32_t> offs, lens;
  *max_len = 0;
  for (uint32_t qi : tile.queries) {
    if (qi >= setup_.queries->size()) throw Error("CUDA backend: tile names query " + std::to_string(qi) + " of " +
                                                  std::to_string(setup_.queries->size()));
    const SeqView v = setup_.queries->view(qi);
    offs.push_back(uint32_t(res.size()));
    lens.push_back(v.length);
    res.insert(res.end(), v.data, v.data + v.length);
    *max_len = std::max(*max_len, v.length);
  }
  res.push_back(0);  // never an empty upload
  q_residues_.upload(res.data(), res.size(), stream_);
  q_offsets_.upload(offs.data(), offs.size(), stream_);
  q_lengths_.upload(lens.data(), lens.size(), stream_);
}

std::vector<std::vector<ScoredTarget>> CudaSearchBackend::search_tile(const Tile& tile) {
  CUDA_CHECK(cudaSetDevice(device_));
  if (!setup_.db) throw Error("CUDA backend: search_tile() before prepare()");
  const uint32_t nq = uint32_t(tile.queries.size());
  if (tile.part_begin > tile.part_end || tile.part_end > setup_.db->by_length.size())
    throw Error("CUDA backend: tile partition out of range");
  const cuda::Partition part{tile.part_begin, tile.part_end - tile.part_begin};
  if (nq == 0 || part.size == 0 || setup_.max_hits == 0) return std::vector<std::vector<ScoredTarget>>(nq);

  uint32_t max_len = 0;
  upload_queries(tile, &max_len);
  const size_t cells = size_t(nq) * part.size;
  scores_.reserve(cells);
  overflow_.reserve(cells);
  CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, 2 * sizeof(uint32_t), stream_));
  const cuda::DeviceQueries qs{q_residues_.get(), q_offsets_.get(), q_lengths_.get()};

  Timer timer(stream_);
  if (max_len > 0) {
    if (packed_ok_) {
      score_packed(part, nq, max_len, tile);
      timer.mark("score16");
      CUDA_CHECK(cudaMemcpyAsync(counters_host_.get(), counters_.get(), 2 * sizeof(uint32_t),
                                 cudaMemcpyDeviceToHost, stream_));
      CUDA_CHECK(cudaStreamSynchronize(stream_));
      rescore_exact(part, qs, max_len, counters_host_[1]);
    } else {
      // Scores or gaps too large for 16-bit lanes: every pair goes through the exact kernel.
      std::vector<uint32_t> all(cells);
      for (size_t k = 0; k < cells; ++k) all[k] = uint32_t(k);
      overflow_.upload(all.data(), cells, stream_);
      rescore_exact(part, qs, max_len, uint32_t(cells));
    }
  } else {
    CUDA_CHECK(cudaMemsetAsync(scores_.get(), 0, cells * sizeof(int32_t), stream_));
  }
  timer.mark("rescore32");
  auto hits = top_hits(part, nq);
  timer.mark("top-k");
  timer.report();
  return hits;
}

void CudaSearchBackend::score_packed(cuda::Partition part, uint32_t n_queries, uint32_t max_len, const Tile& tile) {
  // Work units, most expensive first (LPT): the longest pairs start early, the short
  // ones fill the tail. Within a unit, lengths ascend with the position.
  const uint32_t n_pairs = (part.size + 1) / 2;
  const uint32_t per_unit = cuda::kBlockThreads;
  std::vector<cuda::WorkUnit> units;
  std::vector<uint64_t> cost;
  const auto& by_length = setup_.db->by_length;
  for (uint32_t q = 0; q < n_queries; ++q) {
    const uint64_t m = setup_.queries->length(tile.queries[q]);
    if (m == 0) continue;
    for (uint32_t first = 0; first < n_pairs; first += per_unit) {
      const uint32_t last_pos = std::min<uint32_t>(2 * (first + per_unit), part.size) - 1;
      const uint64_t n = setup_.db->seqs.length(by_length[part.begin + last_pos]);
      units.push_back({q, first});
      cost.push_back(m * ((n + cuda::kChunk - 1) / cuda::kChunk));
    }
  }
  // Scores of empty queries stay 0.
  CUDA_CHECK(cudaMemsetAsync(scores_.get(), 0, size_t(n_queries) * part.size * sizeof(int32_t), stream_));
  if (units.empty()) return;
  std::vector<uint32_t> order(units.size());
  for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return cost[a] > cost[b]; });
  std::vector<cuda::WorkUnit> sorted(units.size());
  for (size_t k = 0; k < order.size(); ++k) sorted[k] = units[order[k]];
  units_.upload(sorted.data(), sorted.size(), stream_);

  // Persistent grid: as many blocks as fit at once, fewer if the boundary strips
  // (threads x longest query x 8 bytes) would not fit in half the free memory.
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const size_t strip = size_t(max_len) * sizeof(uint2) * cuda::kBlockThreads;
  int blocks = props_.multiProcessorCount * blocks_per_sm_;
  const size_t have = temp_.capacity() * sizeof(uint2) + free_b / 2;
  blocks = int(std::min<size_t>(size_t(blocks), std::max<size_t>(1, have / strip)));
  blocks = int(std::min<size_t>(size_t(blocks), sorted.size()));
  temp_.reserve(size_t(blocks) * cuda::kBlockThreads * max_len);

  const cuda::GapConsts gaps{setup_.gaps.open + setup_.gaps.extend, setup_.gaps.extend};
  cuda::launch_search16(blocks, stream_, device_db(), part,
                        {q_residues_.get(), q_offsets_.get(), q_lengths_.get()}, units_.get(),
                        uint32_t(sorted.size()), counters_.get(), packed_table_.get(), gaps, overflow_limit_,
                        temp_.get(), scores_.get(), overflow_.get(), counters_.get() + 1);
}

void CudaSearchBackend::rescore_exact(cuda::Partition part, cuda::DeviceQueries qs, uint32_t max_len, uint32_t n) {
  if (n == 0) return;
  const cuda::GapConsts gaps{setup_.gaps.open + setup_.gaps.extend, setup_.gaps.extend};
  // Batches bounded so the boundary strips stay within a quarter of free memory.
  size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const size_t per_thread = size_t(max_len) * sizeof(uint2);
  size_t batch = std::max<size_t>(cuda::kBlockThreads, (temp_.capacity() * sizeof(uint2) + free_b / 4) / per_thread);
  batch = std::min<size_t>(batch / cuda::kBlockThreads * cuda::kBlockThreads, 1u << 20);
  for (size_t done = 0; done < n; done += batch) {
    const uint32_t count = uint32_t(std::min<size_t>(batch, n - done));
    const size_t threads = (count + cuda::kBlockThreads - 1) / cuda::kBlockThreads * cuda::kBlockThreads;
    temp_.reserve(threads * max_len);
    cuda::launch_rescore32(stream_, device_db(), part, qs, overflow_.get() + done, count, table32_.get(), gaps,
                           temp_.get(), scores_.get());
  }
}

std::vector<std::vector<ScoredTarget>> CudaSearchBackend::top_hits(cuda::Partition part, uint32_t n_queries) {
  const size_t cells = size_t(n_queries) * part.size;
  keys_.reserve(cells);
  keys_sorted_.reserve(cells);
  cuda::launch_make_keys(stream_, device_db(), part, n_queries, scores_.get(), keys_.get());
  size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortKeysDescending(nullptr, temp_bytes, keys_.get(), keys_sorted_.get(),
                                                      int(part.size), 0, 64, stream_));
  sort_temp_.reserve(std::max<size_t>(temp_bytes, 1));
  for (uint32_t q = 0; q < n_queries; ++q) {
    const size_t off = size_t(q) * part.size;
    CUDA_CHECK(cub::DeviceRadixSort::SortKeysDescending(sort_temp_.get(), temp_bytes, keys_.get() + off,
                                                        keys_sorted_.get() + off, int(part.size), 0, 64, stream_));
  }
  const uint32_t k = std::min<uint32_t>(setup_.max_hits, part.size);
  top_host_.reserve(size_t(n_queries) * k);
  CUDA_CHECK(cudaMemcpy2DAsync(top_host_.get(), k * sizeof(uint64_t), keys_sorted_.get(), part.size * sizeof(uint64_t),
                               k * sizeof(uint64_t), n_queries, cudaMemcpyDeviceToHost, stream_));
  CUDA_CHECK(cudaStreamSynchronize(stream_));

  std::vector<std::vector<ScoredTarget>> out(n_queries);
  for (uint32_t q = 0; q < n_queries; ++q) {
    for (uint32_t j = 0; j < k; ++j) {
      const uint64_t key = top_host_[size_t(q) * k + j];
      const int32_t score = int32_t(key >> 32);
      if (score <= 0) break;
      out[q].push_back({score, 0xFFFFFFFFu - uint32_t(key & 0xFFFFFFFFu)});
    }
  }
  return out;
}

std::vector<Alignment> CudaSearchBackend::align(const std::vector<AlignRequest>& pairs) {
  CUDA_CHECK(cudaSetDevice(device_));
  if (!traceback_) throw Error("CUDA backend: align() before prepare()");
  std::vector<std::pair<SeqView, SeqView>> views;
  views.reserve(pairs.size());
  for (const AlignRequest& r : pairs) {
    if (r.query >= setup_.queries->size() || r.target >= setup_.db->seqs.size())
      throw Error("CUDA backend: align() pair out of range");
    views.emplace_back(setup_.queries->view(r.query), setup_.db->seqs.view(r.target));
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto out = traceback_->align(views);
  if (std::getenv("HPCALIGN_CUDA_TIMING")) {
    const auto& st = traceback_->last_stats();
    std::fprintf(stderr, "align %zu pairs: %.3f ms (gpu %zu in %zu batch(es), host %zu)\n", pairs.size(),
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
                 st.gpu_pairs, st.trace_batches, st.host_pairs);
  }
  return out;
}

}  // namespace

std::unique_ptr<SearchBackend> make_cuda_search_backend(int device) {
  return std::make_unique<CudaSearchBackend>(device);
}

}  // namespace hpc
