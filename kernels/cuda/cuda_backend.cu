// CUDA implementation of hpc::SearchBackend for `hpcalign search`.
//
// prepare(): the database goes to the GPU once, re-laid out in by_length order, with the
// substitution tables. search_tile(): one persistent launch scores every (query, target)
// pair of the tile in packed 16-bit lanes (work units longest first, LPT), overflowing
// pairs are rescored exactly in 32-bit, then each query's scores are radix-sorted on the
// GPU by (score desc, target asc) and only the top max_hits come back.
// align(): coordinates and CIGARs on the GPU as well: few pairs (long queries against a large
// database) through kernels/cuda/traceback.hpp, a block per pair; many pairs (short queries
// against themselves keep up to --max-hits each) through the all-vs-all engine's warp-per-pair
// fill and walk kernels. Both return reference_align's alignment (the one tie rule).
#include "kernels/cuda/cuda_backend.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "kernels/allvsall_engine.hpp"
#include "kernels/cuda/allvsall_cuda.hpp"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/device_database.hpp"
#include "kernels/cuda/gpu_timeline.hpp"
#include "kernels/cuda/packed_scorer.hpp"
#include "kernels/cuda/sw_kernels.hpp"
#include "kernels/cuda/sw_ops.cuh"
#include "kernels/cuda/traceback.hpp"
#include "src/align/reference.hpp"
#include "src/core/process_clock.hpp"
#include "src/core/stage_clock.hpp"
#include "src/core/tuning.hpp"

namespace hpc {

namespace {

void warm_up_context(int device) {
  if (cudaSetDevice(device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) cudaGetLastError();
  if (tuning_flag(Tunable::kCudaTiming))
    std::fprintf(stderr, "cuda context of GPU %d ready %.3f s after the process\n", device, process_seconds_fine());
}

}  // namespace

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver / no device" state
    return 0;
  }
  return n;
}

// One context after the other, from GPU 0 on, on this thread; GPU 1's workers may make theirs
// meanwhile. Two GPUs' contexts made at once from the start (a thread each) were ready 0.47-0.66
// s after the load on a 2 x H200 host, against 0.36-0.42 s this way (the driver's start with two
// GPUs alone takes ~0.35 s there; one GPU's context is ready ~0.24 s after the process). Making
// GPU 1's workers wait for GPU 1's turn here gave GPU 0 no head start (its database copy slowed
// while GPU 1's context was made): not kept.
void cuda_warm_up_contexts() {
  const int n = cuda_device_count();
  if (tuning_flag(Tunable::kCudaTiming))
    std::fprintf(stderr, "cuda driver ready (%d GPU(s)) %.3f s after the process\n", n, process_seconds_fine());
  for (int d = 0; d < n; ++d) warm_up_context(d);
}

namespace {

using cuda::PinnedBuffer;
using cuda::StreamBuffer;

// Stage times of a tile on stderr when HPCALIGN_CUDA_TIMING is set (tuning aid).
class Timer {
 public:
  explicit Timer(cudaStream_t s) : stream_(s), on_(tuning_flag(Tunable::kCudaTiming)) {
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

using cuda::KeyWidth;
using cuda::TopHitKey;

// The search backends alive on each GPU in this process (its workers'): each one's alignment
// engine budgets its share of the GPU's memory. Four workers each taking 0.6 of what was free
// ran the GPU out of memory on 4-8 tiles of a 57,592-sequence self-search, each then searched
// again in halves.
class BackendsOnDevice {
 public:
  explicit BackendsOnDevice(int device) : device_(device) {
    std::lock_guard<std::mutex> lock(mutex());
    ++counts()[device_];
  }
  ~BackendsOnDevice() {
    std::lock_guard<std::mutex> lock(mutex());
    --counts()[device_];
  }
  int count() const {
    std::lock_guard<std::mutex> lock(mutex());
    return std::max(1, counts()[device_]);
  }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::map<int, int>& counts() {
    static std::map<int, int> c;
    return c;
  }
  int device_;
};

class CudaSearchBackend final : public SearchBackend {
 public:
  explicit CudaSearchBackend(int device)
      : device_(device), sharing_(device), timeline_(tuning_flag(Tunable::kCudaTiming), device) {
    const int n = cuda_device_count();
    if (device < 0 || device >= n)
      throw Error("CUDA device " + std::to_string(device) + " requested but " + std::to_string(n) + " visible");
    CUDA_CHECK(cudaSetDevice(device_));
    CUDA_CHECK(cudaGetDeviceProperties(&props_, device_));
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    const auto on_stream = [&](auto&... buffers) { (buffers.use_stream(stream_, device_), ...); };
    on_stream(keys_, keys_sorted_, sort_temp_, segment_offsets_, sample_positions_);
    blocks_per_sm_ = cuda::search16_blocks_per_sm();
    if (blocks_per_sm_ < 1) throw Error("CUDA: the search kernel cannot run on " + std::string(props_.name));
  }
  ~CudaSearchBackend() override {
    cudaSetDevice(device_);
    timeline_.report();
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
  SampledTile search_tile_sampled(const Tile& tile, const std::vector<uint32_t>& sample) override;
  bool scores_ahead() const override { return true; }
  void search_tile_ahead(const Tile& tile) override;
  std::vector<Alignment> align(const std::vector<AlignRequest>& pairs) override;
  std::vector<Alignment> align_flat(const std::vector<AlignRequest>& pairs, CigarBuffer& cigars) override;

 private:
  cuda::DeviceDb device_db() const {
    return {db_->residues.get(), db_->offsets.get(), db_->lengths.get(), db_->file_index.get()};
  }
  // The tile's query views, its partition checked; empty when the tile has nothing to score.
  std::vector<SeqView> tile_queries(const Tile& tile) const;
  // Queues the packed scores of the tile's `queries` against its partition.
  void launch_scores(const Tile& tile, const std::vector<SeqView>& queries);
  std::vector<std::vector<ScoredTarget>> top_hits(cuda::Partition part, const std::vector<uint32_t>& tile_queries);
  // The key layout of a tile's queries (indices into the job's) against `indices` keyed subjects.
  KeyWidth key_width(const std::vector<uint32_t>& tile_queries, size_t indices) const;
  void reserve_keys(size_t cells, KeyWidth width);
  // keys_ (n_queries rows of `row` keys of `width`) sorted per row into keys_sorted_; each row's
  // first k with score > 0, decoded.
  std::vector<std::vector<ScoredTarget>> sorted_rows(uint32_t n_queries, uint32_t row, uint32_t k, KeyWidth width);
  template <class Key>
  std::vector<std::vector<ScoredTarget>> sorted_rows_of(uint32_t n_queries, uint32_t row, uint32_t k, KeyWidth width,
                                                        TopHitKey<Key> code);
  // The all-vs-all engine's alignments, their CIGARs in one buffer.
  AlignedPairs align_many(const std::vector<AlignRequest>& pairs);
  // align()'s range checks.
  void check_pairs(const std::vector<AlignRequest>& pairs) const;

  int device_;
  BackendsOnDevice sharing_;
  cudaDeviceProp props_{};
  cudaStream_t stream_ = nullptr;
  int blocks_per_sm_ = 0;
  SearchSetup setup_;
  // HPCALIGN_CUDA_TIMING: the score kernels' ("packed"), the top hits' and the sample's spans on
  // the GPU (bench/gpu_timeline.py), beside the all-vs-all engine's fill and walk.
  cuda::GpuTimeline timeline_;

  std::shared_ptr<const cuda::DeviceDatabase> db_;
  std::unique_ptr<cuda::PackedScorer> scorer_;
  // The tile whose scores search_tile_ahead() queued in scorer_: its id, partition and queries.
  using AheadKey = std::tuple<uint32_t, uint32_t, uint32_t, std::vector<uint32_t>>;
  static AheadKey ahead_key(const Tile& t) { return {t.id, t.part_begin, t.part_end, t.queries}; }
  std::optional<AheadKey> ahead_;

  // Per-tile buffers (grow only), all used on stream_ and grown in its order: a tile of more
  // queries than the worker's tiles before grows them, and a cudaFree waited for the whole
  // device, the other workers' queued score kernels included. The key buffers hold 64-bit keys
  // or twice as many 32-bit ones (KeyWidth).
  StreamBuffer<uint64_t> keys_, keys_sorted_;
  StreamBuffer<uint8_t> sort_temp_;
  StreamBuffer<int> segment_offsets_;
  StreamBuffer<uint32_t> sample_positions_;  // search_tile_sampled's, relative to the partition
  // Grown keeping the smaller buffers while they are small (cudaFreeHost waits for the whole device too).
  PinnedBuffer<uint64_t> top_host_;
  std::unique_ptr<cuda::GpuTraceback> traceback_;
  std::unique_ptr<AllVsAllEngine> many_pairs_;  // made on the first large align() batch
};

// Sorting: one segmented sort of all the tile's queries when partitions are short (a launch
// per query cost more than the sort itself: 1,024 queries x 11,000 targets), one device-wide
// sort per query when they are long (the segmented sort runs a segment on one block).
constexpr uint32_t kSegmentedSortMaxPartition = 65536;
// align(): batches of at least this many pairs go to the all-vs-all engine.
constexpr size_t kManyPairs = 4096;

void CudaSearchBackend::prepare(const SearchSetup& setup) {
  if (!setup.db || !setup.queries) throw Error("CUDA backend: prepare() needs queries and a database");
  CUDA_CHECK(cudaSetDevice(device_));
  setup_ = setup;
  const Database& db = *setup.db;
  const size_t n = db.seqs.size();
  if (db.by_length.size() != n) throw Error("CUDA backend: database has no by_length order");

  db_ = cuda::device_database(db, device_);  // shared with the other workers on this GPU
  scorer_ = std::make_unique<cuda::PackedScorer>(setup.matrix, setup.gaps, stream_, props_);
  traceback_ = std::make_unique<cuda::GpuTraceback>(AlignMode::Local, setup.matrix, setup.gaps, stream_);
  CUDA_CHECK(cudaStreamSynchronize(stream_));
}

std::vector<SeqView> CudaSearchBackend::tile_queries(const Tile& tile) const {
  if (!setup_.db) throw Error("CUDA backend: search_tile() before prepare()");
  if (tile.part_begin > tile.part_end || tile.part_end > setup_.db->by_length.size())
    throw Error("CUDA backend: tile partition out of range");
  std::vector<SeqView> queries;
  if (tile.part_begin == tile.part_end || setup_.max_hits == 0) return queries;
  for (uint32_t qi : tile.queries) {
    if (qi >= setup_.queries->size()) throw Error("CUDA backend: tile names query " + std::to_string(qi) + " of " +
                                                  std::to_string(setup_.queries->size()));
    queries.push_back(setup_.queries->view(qi));
  }
  return queries;
}

void CudaSearchBackend::launch_scores(const Tile& tile, const std::vector<SeqView>& queries) {
  const cuda::Partition part{tile.part_begin, tile.part_end - tile.part_begin};
  const Database& db = *setup_.db;
  timeline_.begin("packed", stream_);
  scorer_->launch(device_db(), part, queries,
                  [&](uint32_t p) { return uint32_t(db.seqs.length(db.by_length[part.begin + p])); });
  timeline_.end(stream_);
}

void CudaSearchBackend::search_tile_ahead(const Tile& tile) {
  CUDA_CHECK(cudaSetDevice(device_));
  ahead_.reset();
  const std::vector<SeqView> queries = tile_queries(tile);
  if (queries.empty()) return;
  try {
    launch_scores(tile, queries);
    ahead_ = ahead_key(tile);
  } catch (const OutOfMemory&) {
    // Not this tile's failure: its search_tile() meets it and the driver splits the tile.
  }
}

std::vector<std::vector<ScoredTarget>> CudaSearchBackend::search_tile(const Tile& tile) {
  CUDA_CHECK(cudaSetDevice(device_));
  const std::vector<SeqView> queries = tile_queries(tile);
  const bool queued = ahead_ && *ahead_ == ahead_key(tile);
  ahead_.reset();  // the scorer's buffers are this call's now
  if (queries.empty()) return std::vector<std::vector<ScoredTarget>>(tile.queries.size());
  const cuda::Partition part{tile.part_begin, tile.part_end - tile.part_begin};
  Timer timer(stream_);
  if (!queued) launch_scores(tile, queries);
  timer.mark("score16");
  scorer_->finish();
  timer.mark("rescore32");
  auto hits = top_hits(part, tile.queries);
  timer.mark("top-k");
  timer.report();
  return hits;
}

// The sample's keys of every query: (score, sample index k) of partition position positions[k],
// as make_keys_kernel keys a partition with the sample index in place of the file index.
template <class Key>
__global__ void sample_keys_kernel(uint32_t part_size, uint32_t n_queries, const int32_t* scores,
                                   const uint32_t* positions, uint32_t n_sample, TopHitKey<Key> key, Key* keys) {
  const size_t n = size_t(n_queries) * n_sample;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const size_t q = i / n_sample;
    const uint32_t k = uint32_t(i % n_sample);
    keys[i] = key.encode(scores[q * part_size + positions[k]], k);
  }
}

CudaSearchBackend::SampledTile CudaSearchBackend::search_tile_sampled(const Tile& tile,
                                                                      const std::vector<uint32_t>& sample) {
  SampledTile out;
  out.top = search_tile(tile);  // leaves the tile's scores in the scorer
  const uint32_t nq = uint32_t(tile.queries.size()), n = uint32_t(sample.size());
  out.sample.resize(nq);
  std::vector<uint32_t> relative(n);
  for (uint32_t k = 0; k < n; ++k) {
    if (sample[k] < tile.part_begin || sample[k] >= tile.part_end)
      throw Error("CUDA backend: sample position " + std::to_string(sample[k]) + " is outside tile " +
                  std::to_string(tile.id));
    relative[k] = sample[k] - tile.part_begin;
  }
  if (nq == 0 || n == 0 || setup_.max_hits == 0) return out;
  sample_positions_.upload(relative.data(), n);
  const size_t cells = size_t(nq) * n;
  const KeyWidth width = key_width(tile.queries, n);
  reserve_keys(cells, width);
  const size_t blocks = std::min<size_t>((cells + 255) / 256, 65535);
  const uint32_t part_size = tile.part_end - tile.part_begin;
  timeline_.begin("sample", stream_);  // ended in sorted_rows_of
  cuda::with_top_hit_key(width, [&](auto key) {
    using Key = typename decltype(key)::Type;
    sample_keys_kernel<<<unsigned(blocks), 256, 0, stream_>>>(part_size, nq, scorer_->scores(), sample_positions_.get(),
                                                               n, key, reinterpret_cast<Key*>(keys_.get()));
  });
  CUDA_CHECK(cudaGetLastError());
  out.sample = sorted_rows(nq, n, n, width);
  return out;
}

KeyWidth CudaSearchBackend::key_width(const std::vector<uint32_t>& tile_queries, size_t indices) const {
  uint64_t longest = 0;
  for (const uint32_t q : tile_queries) longest = std::max<uint64_t>(longest, setup_.queries->length(q));
  return cuda::key_width(setup_.matrix.max_score(), longest, indices);
}

void CudaSearchBackend::reserve_keys(size_t cells, KeyWidth width) {
  const size_t words = width.narrow() ? (cells + 1) / 2 : cells;  // the buffers' uint64_t
  keys_.reserve(words);
  keys_sorted_.reserve(words);
}

std::vector<std::vector<ScoredTarget>> CudaSearchBackend::top_hits(cuda::Partition part,
                                                                   const std::vector<uint32_t>& tile_queries) {
  const uint32_t n_queries = uint32_t(tile_queries.size());
  const KeyWidth width = key_width(tile_queries, setup_.db->seqs.size());  // keyed by file index
  reserve_keys(size_t(n_queries) * part.size, width);
  timeline_.begin("topk", stream_);  // ended in sorted_rows_of
  cuda::with_top_hit_key(width, [&](auto key) {
    using Key = typename decltype(key)::Type;
    cuda::launch_make_keys(stream_, device_db(), part, n_queries, scorer_->scores(), key,
                           reinterpret_cast<Key*>(keys_.get()));
  });
  return sorted_rows(n_queries, part.size, std::min<uint32_t>(setup_.max_hits, part.size), width);
}

std::vector<std::vector<ScoredTarget>> CudaSearchBackend::sorted_rows(uint32_t n_queries, uint32_t row, uint32_t k,
                                                                      KeyWidth width) {
  return cuda::with_top_hit_key(width, [&](auto key) { return sorted_rows_of(n_queries, row, k, width, key); });
}

template <class Key>
std::vector<std::vector<ScoredTarget>> CudaSearchBackend::sorted_rows_of(uint32_t n_queries, uint32_t row, uint32_t k,
                                                                         KeyWidth width, TopHitKey<Key> code) {
  const size_t cells = size_t(n_queries) * row;
  Key* keys = reinterpret_cast<Key*>(keys_.get());
  Key* sorted = reinterpret_cast<Key*>(keys_sorted_.get());
  const int end_bit = int(std::min<uint32_t>(8 * sizeof(Key), width.index_bits + width.score_bits));
  size_t temp_bytes = 0;
  if (row <= kSegmentedSortMaxPartition && cells <= size_t(INT32_MAX)) {
    std::vector<int> offsets(n_queries + 1);
    for (uint32_t q = 0; q <= n_queries; ++q) offsets[q] = int(size_t(q) * row);
    segment_offsets_.upload(offsets.data(), offsets.size());
    const int* begins = segment_offsets_.get();
    CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortKeysDescending(nullptr, temp_bytes, keys, sorted, int(cells),
                                                                 int(n_queries), begins, begins + 1, 0, end_bit,
                                                                 stream_));
    sort_temp_.reserve(std::max<size_t>(temp_bytes, 1));
    CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortKeysDescending(sort_temp_.get(), temp_bytes, keys, sorted,
                                                                 int(cells), int(n_queries), begins, begins + 1, 0,
                                                                 end_bit, stream_));
  } else {
    CUDA_CHECK(cub::DeviceRadixSort::SortKeysDescending(nullptr, temp_bytes, keys, sorted, int(row), 0, end_bit,
                                                        stream_));
    sort_temp_.reserve(std::max<size_t>(temp_bytes, 1));
    for (uint32_t q = 0; q < n_queries; ++q) {
      const size_t off = size_t(q) * row;
      CUDA_CHECK(cub::DeviceRadixSort::SortKeysDescending(sort_temp_.get(), temp_bytes, keys + off, sorted + off,
                                                          int(row), 0, end_bit, stream_));
    }
  }
  top_host_.reserve((size_t(n_queries) * k * sizeof(Key) + 7) / 8,  // in uint64_t
                    top_host_.capacity() * sizeof(uint64_t) <= (64u << 20));
  Key* host = reinterpret_cast<Key*>(top_host_.get());
  CUDA_CHECK(cudaMemcpy2DAsync(host, k * sizeof(Key), sorted, row * sizeof(Key), k * sizeof(Key), n_queries,
                               cudaMemcpyDeviceToHost, stream_));
  timeline_.end(stream_);
  CUDA_CHECK(cudaStreamSynchronize(stream_));

  std::vector<std::vector<ScoredTarget>> out(n_queries);
  for (uint32_t q = 0; q < n_queries; ++q) {
    for (uint32_t j = 0; j < k; ++j) {
      const Key key = host[size_t(q) * k + j];
      const int32_t score = code.score(key);
      if (score <= 0) break;
      out[q].push_back({score, code.index(key)});
    }
  }
  return out;
}

// Many pairs: the all-vs-all engine over the job's queries and the database (made once).
AlignedPairs CudaSearchBackend::align_many(const std::vector<AlignRequest>& pairs) {
  if (!many_pairs_) {
    AllVsAllSetup avsa;
    avsa.queries = setup_.queries;
    avsa.targets = &setup_.db->seqs;
    avsa.matrix = setup_.matrix;
    avsa.gaps = setup_.gaps;
    avsa.mode = AlignMode::Local;
    avsa.engines_on_device = uint32_t(sharing_.count());  // the engine takes its share of the free memory
    many_pairs_ = make_cuda_allvsall_engine(device_, avsa);
  }
  // Every score known (search_tile's): the fill stops at each pair's end row.
  const bool scored = std::all_of(pairs.begin(), pairs.end(), [](const AlignRequest& r) { return r.score > 0; });
  if (scored) {
    std::vector<ScoredPair> list(pairs.size());
    for (size_t k = 0; k < pairs.size(); ++k) list[k] = {{pairs[k].query, pairs[k].target}, pairs[k].score};
    return many_pairs_->align_scored_flat(list);
  }
  std::vector<PairIndex> list(pairs.size());
  for (size_t k = 0; k < pairs.size(); ++k) list[k] = {pairs[k].query, pairs[k].target};
  AlignedPairs out;
  out.alns = many_pairs_->align(list);
  out.cigars = take_cigars(out.alns);
  return out;
}

void CudaSearchBackend::check_pairs(const std::vector<AlignRequest>& pairs) const {
  if (!traceback_) throw Error("CUDA backend: align() before prepare()");
  for (const AlignRequest& r : pairs)
    if (r.query >= setup_.queries->size() || r.target >= setup_.db->seqs.size())
      throw Error("CUDA backend: align() pair out of range");
}

std::vector<Alignment> CudaSearchBackend::align_flat(const std::vector<AlignRequest>& pairs, CigarBuffer& cigars) {
  CUDA_CHECK(cudaSetDevice(device_));
  check_pairs(pairs);
  if (pairs.size() < kManyPairs) return SearchBackend::align_flat(pairs, cigars);
  AlignedPairs aligned = align_many(pairs);
  cigars = std::move(aligned.cigars);
  return std::move(aligned.alns);
}

std::vector<Alignment> CudaSearchBackend::align(const std::vector<AlignRequest>& pairs) {
  CUDA_CHECK(cudaSetDevice(device_));
  check_pairs(pairs);
  if (pairs.size() >= kManyPairs) return with_cigar_strings(align_many(pairs));
  std::vector<std::pair<SeqView, SeqView>> views;
  views.reserve(pairs.size());
  for (const AlignRequest& r : pairs) views.emplace_back(setup_.queries->view(r.query), setup_.db->seqs.view(r.target));
  const auto t0 = std::chrono::steady_clock::now();
  auto out = traceback_->align(views);
  if (tuning_flag(Tunable::kCudaTiming)) {
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
