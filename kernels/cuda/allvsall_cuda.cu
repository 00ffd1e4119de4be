// The CUDA all-vs-all engine. Scores of a whole tile: the search's packed 16-bit kernels over the
// two windows (global and semiglobal: the subject-pair kernel in that mode), the tile's score matrix copied back and cut (--min-score) on
// the host: a device cut waited behind the other workers' persistent score kernels for SMs, a
// copy does not. Two scorers, each on its own stream, so that a worker that looks ahead has
// its next tile's kernel queued before it waits for the current one's: the GPU's queue of score
// work then does not empty between a worker's tiles. The queued kernel starts on the device
// after the other scorer's (an event), not beside it: the worker's current tile finishes first
// (one H100, 20,000 sequences with alignments: phase 1.419-1.451 s against 1.453-1.492 s
// side by side and 1.472-1.524 s with one scorer).
// Alignments (and global/semiglobal scores of pair lists: the OOM fallback's halves): pairs cut into launches that fit the device memory; per launch one kernel fills the DP, a warp per pair, with 4-bit
// direction cells (or, when the scores are known, byte heights), and a second walks the
// traceback, on a stream of the highest priority, so that their blocks go before the queued
// score kernels' blocks.
// Pairs of tb_long_pair_cells() or more go to the GPU traceback (stripes of a pair on many
// blocks; traceback.hpp), for their scores (global, semiglobal) and alignments (every mode). Other pairs whose traceback would take more than a per-pair
// share of the device, or whose values could leave int32, go to the host: the strip aligner
// (kernels/cpu/strip_align.hpp, reference_align's alignment in bounded memory), the pairs
// spread over all cores (one at a time, the reduced-space aligner held a run for minutes on a
// 100,000-residue self-hit).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/cpu/gotoh_scalar.hpp"
#include "kernels/cpu/strip_align.hpp"
#include "kernels/cuda/allvsall_cuda.hpp"
#include "kernels/cuda/allvsall_kernels.cuh"
#include "kernels/cuda/cuda_check.hpp"
#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/gpu_timeline.hpp"
#include "kernels/cuda/packed_scorer.hpp"
#include "kernels/cuda/traceback.hpp"
#include "src/core/error.hpp"
#include "src/core/process_clock.hpp"
#include "src/core/stage_clock.hpp"

namespace hpc {
namespace {

using cuda::AvsaPair;
using cuda::AvsaResult;

int kernel_mode(AlignMode m) {
  return m == AlignMode::Local ? cuda::kAvsaLocal : m == AlignMode::Global ? cuda::kAvsaGlobal : cuda::kAvsaSemiGlobal;
}


// The fill kernel's order of pairs with query lengths m and target lengths n (positions into
// them): 32-lane pairs, then 16-lane, then 8-lane (avsa_group of the target), longest query
// first within a group, so that pairs sharing a warp end together and the biggest pairs start
// first; any run of this order is in it too, so each launch is. A counting sort: a tile's
// list holds up to millions of pairs, where a comparison sort took ~0.1 s per million.
std::vector<size_t> fill_order(const std::vector<uint32_t>& m, const std::vector<uint32_t>& n) {
  const uint32_t max_m = m.empty() ? 0 : *std::max_element(m.begin(), m.end());
  const size_t per_group = size_t(max_m) + 1;
  const auto bucket = [&](size_t k) { return size_t(cuda::avsa_group_rank(n[k])) * per_group + (max_m - m[k]); };
  std::vector<size_t> first(3 * per_group + 1, 0);
  for (size_t k = 0; k < m.size(); ++k) ++first[bucket(k) + 1];
  std::partial_sum(first.begin(), first.end(), first.begin());
  std::vector<size_t> order(m.size());
  for (size_t k = 0; k < m.size(); ++k) order[first[bucket(k)]++] = k;
  return order;
}

class CudaAllVsAll : public AllVsAllEngine {
 public:
  CudaAllVsAll(int device, const AllVsAllSetup& setup)
      : device_(device), setup_(setup), fits_int32_(setup.matrix, setup.gaps), timeline_(clock_.on(), device) {
    if (!setup_.queries || !setup_.targets) throw Error("allvsall: the cuda engine needs query and target sets");
    const bool stamps = tuning_flag(Tunable::kCudaTiming);
    double stamp[6] = {stamps ? process_seconds_fine() : 0};
    CUDA_CHECK(cudaSetDevice(device_));  // makes the GPU's context where no thread has yet
    if (stamps) stamp[1] = process_seconds_fine();
    CUDA_CHECK(cudaGetDeviceProperties(&prop_, device_));
    if (stamps) stamp[2] = process_seconds_fine();
    int least = 0, greatest = 0;
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamDefault, greatest));
    for (ScoreSlot& s : slots_) {
      CUDA_CHECK(cudaStreamCreate(&s.stream));
      CUDA_CHECK(cudaEventCreateWithFlags(&s.launched, cudaEventDisableTiming));
    }
    if (stamps) stamp[3] = process_seconds_fine();
    const auto on_stream = [&](auto&... buffers) { (buffers.use_stream(stream_, device_), ...); };
    on_stream(strip_, pairs_, results_, bits_, scratch_, text_, text_used_);
    qres_.upload(setup_.queries->residues.data(), setup_.queries->residues.size(), stream_);
    if (setup_.targets != setup_.queries) tres_.upload(setup_.targets->residues.data(), setup_.targets->residues.size(), stream_);
    int32_t mat[cuda::kAvsaAlphabet * cuda::kAvsaAlphabet];
    for (int a = 0; a < cuda::kAvsaAlphabet; ++a)
      for (int b = 0; b < cuda::kAvsaAlphabet; ++b) mat[a * cuda::kAvsaAlphabet + b] = setup_.matrix.score[a][b];
    matrix_.upload(mat, cuda::kAvsaAlphabet * cuda::kAvsaAlphabet, stream_);
    const auto [min_sub, max_sub] = std::minmax_element(std::begin(mat), std::end(mat));
    heights_exact_ = cuda::avsa_heights_exact(*min_sub, *max_sub, setup_.gaps.open, setup_.gaps.extend);
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (stamps) stamp[4] = process_seconds_fine();
    threads_per_sm_ = cuda::avsa_fill_pairs_per_sm() * 32;
    size_t free_bytes = 0, total = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    if (stamps) {
      stamp[5] = process_seconds_fine();
      std::fprintf(stderr,
                   "allvsall engine on GPU %d: began %.3f, context %.3f, properties %.3f, streams %.3f, uploads %.3f, "
                   "ready %.3f s after the process\n",
                   device_, stamp[0], stamp[1], stamp[2], stamp[3], stamp[4], stamp[5]);
    }
    // Most of what is free, leaving room for the other buffers and the runtime. Four workers'
    // engines each taking that much ran the GPU out of memory on 12 tiles of the 57,592-sequence
    // screen with alignments (each then aligned again in halves): each takes its share.
    device_share_ = uint64_t(double(free_bytes) * kAllVsAllLaunchShare);
    launch_budget_ = setup_.launch_budget ? setup_.launch_budget
                                          : device_share_ / std::max<uint32_t>(1, setup_.engines_on_device);
    // A pair may take an eighth of a launch, so a launch of big pairs still holds several.
    pair_cap_ = setup_.traceback_budget ? setup_.traceback_budget : launch_budget_ / 8;
    host_budget_ = setup_.traceback_budget ? setup_.traceback_budget : kStripTracebackBudget;
  }
  ~CudaAllVsAll() override {
    clock_.report("allvsall engine (summed)");
    timeline_.report();
    for (ScoreSlot& s : slots_) {
      s.scorer.reset();  // its buffers before its stream
      cudaEventDestroy(s.launched);
      cudaStreamDestroy(s.stream);
    }
    traceback_.reset();
    cudaStreamDestroy(stream_);
  }

  std::string name() const override { return std::string("cuda: ") + prop_.name; }

  DeviceCapacity capacity() const override {
    DeviceCapacity c;
    c.name = name();
    c.compute_units = prop_.multiProcessorCount;
    c.resident_per_unit = threads_per_sm_;
    // The planner's windows follow the GPU's share, not this engine's: a tile's launches are cut
    // to launch_budget_ anyway, and the plan stays what it was with one engine a GPU.
    c.memory_bytes = setup_.launch_budget ? launch_budget_ : device_share_;
    return c;
  }

  std::vector<int32_t> score(const std::vector<PairIndex>& pairs) override {
    if (setup_.mode == AlignMode::Local) return score_local_packed(pairs);
    std::vector<int32_t> scores(pairs.size());
    std::vector<size_t> device, stripes;
    const uint64_t long_cells = cuda::tb_long_pair_cells();
    for (size_t k = 0; k < pairs.size(); ++k) {
      const SeqView q = qview(pairs[k]), t = tview(pairs[k]);
      if (uint64_t(q.length) * t.length >= long_cells)
        stripes.push_back(k);
      else if (fits_int32_(q.length, t.length))
        device.push_back(k);
      else
        scores[k] = gotoh_score(setup_.mode, q, t, setup_.matrix, setup_.gaps);
    }
    if (!stripes.empty()) {
      const std::vector<int32_t> long_scores = traceback().scores(views_of(pairs, stripes));
      for (size_t w = 0; w < stripes.size(); ++w) scores[stripes[w]] = long_scores[w];
    }
    run_device(pairs, device, false, [&](size_t k, const AvsaResult& r, uint64_t) { scores[k] = r.score; });
    return scores;
  }

  std::vector<Alignment> align(const std::vector<PairIndex>& pairs) override {
    return with_cigar_strings(align_pairs(pairs, {}));
  }
  std::vector<Alignment> align_scored(const std::vector<ScoredPair>& scored) override {
    return with_cigar_strings(align_scored_flat(scored));
  }

  // Local mode: the known scores let the fill stop at each pair's end row.
  AlignedPairs align_scored_flat(const std::vector<ScoredPair>& scored) override {
    std::vector<PairIndex> pairs(scored.size());
    std::vector<int32_t> scores(scored.size());
    for (size_t k = 0; k < scored.size(); ++k) pairs[k] = scored[k].pair, scores[k] = scored[k].score;
    return align_pairs(pairs, setup_.mode == AlignMode::Local ? scores : std::vector<int32_t>{});
  }

  std::vector<ScoredPair> score_tile(const Tile& tile, const std::vector<uint32_t>& order, bool square,
                                     std::optional<int32_t> min_score) override {
    if (!scores_ahead()) return AllVsAllEngine::score_tile(tile, order, square, min_score);
    const auto [width, diagonal] = checked_shape(tile, order, square);
    CUDA_CHECK(cudaSetDevice(device_));
    clock_.restart();
    ScoreSlot* slot = slot_of(ahead_key(tile));
    if (!slot) {
      slot = &free_slot();
      launch_scores(*slot, tile, order, width);
    }
    slot->queued.reset();
    slot->scorer->finish();
    clock_.mark("tile: packed scores");
    const uint32_t nq = uint32_t(tile.queries.size());
    const size_t cells = size_t(nq) * width;
    if (cells == 0) return {};
    reserve_ahead(host_scores_, cells);
    clock_.mark("tile: buffers");
    CUDA_CHECK(cudaMemcpyAsync(host_scores_.get(), slot->scorer->scores(), cells * sizeof(int32_t),
                               cudaMemcpyDeviceToHost, slot->stream));
    CUDA_CHECK(cudaStreamSynchronize(slot->stream));
    clock_.mark("tile: copy");
    // The cut: scores >= min_score; a diagonal tile's pairs above its diagonal only (query slot
    // x and target position x are one sequence).
    const int32_t cut = min_score ? *min_score : INT32_MIN;
    std::vector<ScoredPair> out;
    for (uint32_t r = 0; r < nq; ++r) {
      const int32_t* row = host_scores_.get() + size_t(r) * width;
      for (uint32_t c = diagonal ? r + 1 : 0; c < width; ++c)
        if (row[c] >= cut) out.push_back({tile_pair(tile, order, square, r, c), row[c]});
    }
    clock_.mark("tile: cut");
    sort_by_pair(out, [](const ScoredPair& x) { return x.pair; });
    clock_.mark("tile: pair list");
    return out;
  }

  // Tiles are scored whole by the packed kernels, in every mode.
  bool scores_ahead() const override { return true; }

  void score_tile_ahead(const Tile& tile, const std::vector<uint32_t>& order, bool square) override {
    if (!scores_ahead() || slot_of(ahead_key(tile))) return;
    const uint32_t width = checked_shape(tile, order, square).width;
    CUDA_CHECK(cudaSetDevice(device_));
    clock_.restart();
    ScoreSlot& slot = free_slot();
    try {
      launch_scores(slot, tile, order, width);
      slot.queued = ahead_key(tile);
      slot.queued_at = ++queue_count_;
    } catch (const OutOfMemory&) {
      // Not this tile's failure: score_tile() of the next one meets it and the driver splits that.
    }
    clock_.mark("ahead: packed launch");
  }

  uint64_t reduced_space_pairs() const override { return reduced_pairs_; }

 private:
  // scores: each pair's exact score (the fill then stops at the end row), or empty.
  AlignedPairs align_pairs(const std::vector<PairIndex>& pairs, const std::vector<int32_t>& scores) {
    clock_.restart();
    AlignedPairs out;
    out.alns.resize(pairs.size());
    out.cigars.resize(pairs.size());
    std::vector<size_t> device, stripes, host;
    const uint64_t long_cells = cuda::tb_long_pair_cells();
    for (size_t k = 0; k < pairs.size(); ++k) {
      const SeqView q = qview(pairs[k]), t = tview(pairs[k]);
      const bool fits =
          fits_int32_(q.length, t.length) && cuda::avsa_trace_words(q.length, t.length, cuda::kAvsaDirBits) * 4 <= pair_cap_;
      if (uint64_t(q.length) * t.length >= long_cells)
        stripes.push_back(k);
      else
        (fits ? device : host).push_back(k);
    }
    align_on_host(pairs, host, out);
    clock_.mark("align: host pairs");
    align_by_stripes(pairs, stripes, out);
    clock_.mark("align: long pairs");
    run_device(
        pairs, device, true,
        [&](size_t k, const AvsaResult& r, uint64_t text_at) {
          out.alns[k] = coordinates(r);
          out.cigars.set(k, text_at + r.cigar_off, r.cigar_len);
        },
        scores, &out.cigars);
    return out;
  }

  SeqView qview(const PairIndex& p) const {
    if (p.query >= setup_.queries->size() || p.target >= setup_.targets->size())
      throw Error("allvsall: pair (" + std::to_string(p.query) + ", " + std::to_string(p.target) + ") is outside the sequence sets");
    return setup_.queries->view(p.query);
  }
  SeqView tview(const PairIndex& p) const { return setup_.targets->view(p.target); }

  TileShape checked_shape(const Tile& tile, const std::vector<uint32_t>& order, bool square) const {
    if (order.size() != setup_.targets->size()) throw Error("allvsall: the target order does not cover the target set");
    const TileShape shape = tile_shape(tile, order, square);
    for (uint32_t qi : tile.queries)
      if (qi >= setup_.queries->size()) throw Error("allvsall: tile " + std::to_string(tile.id) + " names a query outside the set");
    return shape;
  }

  // A scorer and its stream; `queued`: the tile score_tile_ahead() queued on it, not yet taken.
  struct ScoreSlot {
    cudaStream_t stream = nullptr;
    cudaEvent_t launched = nullptr;  // after its last packed launch
    bool recorded = false;
    std::unique_ptr<cuda::PackedScorer> scorer;  // created on first use
    std::optional<std::tuple<uint32_t, uint32_t, uint32_t, size_t>> queued;
    uint64_t queued_at = 0;
  };
  ScoreSlot* slot_of(const std::tuple<uint32_t, uint32_t, uint32_t, size_t>& key) {
    for (ScoreSlot& s : slots_)
      if (s.queued == key) return &s;
    return nullptr;
  }
  // A slot holding no queued tile; else the one queued first, dropped (its caller went on to
  // other tiles; the scorer's next launch finishes it first).
  ScoreSlot& free_slot() {
    ScoreSlot* pick = &slots_[0];
    for (ScoreSlot& s : slots_) {
      if (!s.queued) return s;
      if (s.queued_at < pick->queued_at) pick = &s;
    }
    pick->queued.reset();
    return *pick;
  }

  // The slot's scorer, made on its first use.
  cuda::PackedScorer& scorer_of(ScoreSlot& slot) {
    if (!slot.scorer)
      slot.scorer = std::make_unique<cuda::PackedScorer>(setup_.matrix, setup_.gaps, slot.stream, prop_, setup_.mode);
    return *slot.scorer;
  }

  // Queues the packed kernel over the tile's two windows on the slot's stream.
  void launch_scores(ScoreSlot& slot, const Tile& tile, const std::vector<uint32_t>& order, uint32_t width) {
    use_target_order(order);
    cuda::PackedScorer& scorer = scorer_of(slot);
    std::vector<SeqView> qviews;
    for (uint32_t qi : tile.queries) qviews.push_back(setup_.queries->view(qi));
    for (ScoreSlot& o : slots_)
      if (&o != &slot && o.recorded) scorer.start_after(o.launched);
    timeline_.begin("packed", slot.stream);
    scorer.launch(ordered_db_, {tile.part_begin, width}, qviews,
                  [&](uint32_t p) { return setup_.targets->length(order[tile.part_begin + p]); });
    timeline_.end(slot.stream);
    CUDA_CHECK(cudaEventRecord(slot.launched, slot.stream));
    slot.recorded = true;
  }
  // `targets` (target indices) as the packed scorers' database, in that order: uploaded once
  // per order, so a tile is then a partition of it with nothing to build per tile. A new order
  // (the first tile's, or the OOM fallback's) waits for both scorers' streams, whose queued
  // kernels read the old one.
  void use_target_order(const std::vector<uint32_t>& targets) {
    if (targets == order_) return;
    for (ScoreSlot& s : slots_) CUDA_CHECK(cudaStreamSynchronize(s.stream));
    order_ = targets;
    std::vector<uint64_t> offsets(targets.size());
    std::vector<uint32_t> lengths(targets.size());
    for (size_t p = 0; p < targets.size(); ++p)
      offsets[p] = setup_.targets->offsets[targets[p]], lengths[p] = setup_.targets->length(targets[p]);
    order_off_.upload(offsets.data(), std::max<size_t>(1, offsets.size()), slots_[0].stream);
    order_len_.upload(lengths.data(), std::max<size_t>(1, lengths.size()), slots_[0].stream);
    CUDA_CHECK(cudaStreamSynchronize(slots_[0].stream));  // before the other stream's kernels read it
    ordered_db_ = {device_targets(), order_off_.get(), order_len_.get(), nullptr};
  }

  // Local scores of a pair list (the OOM fallback's halves): every distinct query against
  // every distinct target through the packed kernel, then the pairs picked out.
  std::vector<int32_t> score_local_packed(const std::vector<PairIndex>& pairs) {
    CUDA_CHECK(cudaSetDevice(device_));
    std::vector<uint32_t> qs, ts;  // a linear pass: the lists hold up to millions of pairs
    std::vector<char> q_seen(setup_.queries->size()), t_seen(setup_.targets->size());
    for (const PairIndex& p : pairs) {
      qview(p);
      if (!q_seen[p.query]) q_seen[p.query] = 1, qs.push_back(p.query);
      if (!t_seen[p.target]) t_seen[p.target] = 1, ts.push_back(p.target);
    }
    // Targets shortest first, so the two lanes of a thread and the threads of a unit match.
    std::stable_sort(ts.begin(), ts.end(),
                     [&](uint32_t a, uint32_t b) { return setup_.targets->length(a) < setup_.targets->length(b); });
    std::vector<uint32_t> tslot(setup_.targets->size()), qslot(setup_.queries->size());
    for (uint32_t k = 0; k < ts.size(); ++k) tslot[ts[k]] = k;
    std::vector<SeqView> qviews;
    for (uint32_t k = 0; k < qs.size(); ++k) qslot[qs[k]] = k, qviews.push_back(setup_.queries->view(qs[k]));
    for (ScoreSlot& s : slots_) s.queued.reset();  // the scorers' buffers are this call's now
    use_target_order(ts);
    ScoreSlot& slot = slots_[0];
    cuda::PackedScorer& scorer = scorer_of(slot);
    const uint32_t nt = uint32_t(ts.size());
    scorer.launch(ordered_db_, {0, nt}, qviews, [&](uint32_t p) { return setup_.targets->length(ts[p]); });
    scorer.finish();
    std::vector<int32_t> all(size_t(qs.size()) * nt);
    if (!all.empty())
      CUDA_CHECK(cudaMemcpyAsync(all.data(), scorer.scores(), all.size() * sizeof(int32_t),
                                 cudaMemcpyDeviceToHost, slot.stream));
    CUDA_CHECK(cudaStreamSynchronize(slot.stream));
    std::vector<int32_t> scores(pairs.size());
    for (size_t k = 0; k < pairs.size(); ++k) scores[k] = all[size_t(qslot[pairs[k].query]) * nt + tslot[pairs[k].target]];
    return scores;
  }

  const uint8_t* device_targets() const { return setup_.targets == setup_.queries ? qres_.get() : tres_.get(); }

  // The walk's result as the reference aligner reports it (coordinates 1-based, 0 for a
  // sequence that contributes nothing), without its CIGAR.
  static Alignment coordinates(const AvsaResult& r) {
    Alignment a;
    a.score = r.score;
    if (r.end_i >= 1 + r.start_i) a.qstart = 1 + r.start_i, a.qend = r.end_i;
    if (r.end_j >= 1 + r.start_j) a.tstart = 1 + r.start_j, a.tend = r.end_j;
    return a;
  }

  // Long pairs (one warp held a 100,000-residue self-hit for ~10 s in local mode, ~7.5 s in
  // global): the GPU traceback, whose stripes run side by side on many blocks (the same
  // alignment and score).
  cuda::GpuTraceback& traceback() {
    CUDA_CHECK(cudaSetDevice(device_));  // its kernels run on the calling thread's device
    if (!traceback_)
      traceback_ = std::make_unique<cuda::GpuTraceback>(setup_.mode, setup_.matrix, setup_.gaps, stream_, launch_budget_);
    return *traceback_;
  }
  void align_by_stripes(const std::vector<PairIndex>& pairs, const std::vector<size_t>& which, AlignedPairs& out) {
    if (which.empty()) return;
    place(which, traceback().align(views_of(pairs, which)), out);
  }

  // The strip aligner on the listed pairs, spread over the host's cores.
  void align_on_host(const std::vector<PairIndex>& pairs, const std::vector<size_t>& which, AlignedPairs& out) {
    if (which.empty()) return;
    place(which, strip_align_all(setup_.mode, views_of(pairs, which), setup_.matrix, setup_.gaps, host_budget_), out);
    reduced_pairs_ += which.size();
  }

  std::vector<std::pair<SeqView, SeqView>> views_of(const std::vector<PairIndex>& pairs,
                                                     const std::vector<size_t>& which) const {
    std::vector<std::pair<SeqView, SeqView>> views;
    for (const size_t k : which) views.emplace_back(qview(pairs[k]), tview(pairs[k]));
    return views;
  }

  // Alignments of the listed pairs into `out`, their CIGARs into its buffer.
  static void place(const std::vector<size_t>& which, std::vector<Alignment> alns, AlignedPairs& out) {
    for (size_t w = 0; w < which.size(); ++w) {
      out.cigars.set(which[w], alns[w].cigar);
      alns[w].cigar.clear();
      out.alns[which[w]] = std::move(alns[w]);
    }
  }

  // Runs `which` (indices into pairs) on the device in launches that fit launch_budget_,
  // calling done(k, result, where the launch's packed CIGAR text starts in `cigars`) for each.
  // known: every pair's exact score (pairs[k]'s at known[k]), or empty.
  template <class Done>
  void run_device(const std::vector<PairIndex>& pairs, const std::vector<size_t>& which, bool traceback, Done&& done,
                  const std::vector<int32_t>& known = {}, CigarBuffer* cigars = nullptr) {
    CUDA_CHECK(cudaSetDevice(device_));
    std::vector<uint32_t> qlen(which.size()), tlen(which.size());
    for (size_t k = 0; k < which.size(); ++k) {
      const PairIndex& p = pairs[which[k]];
      qlen[k] = qview(p).length, tlen[k] = tview(p).length;
    }
    const std::vector<size_t> order = fill_order(qlen, tlen);  // positions in `which`
    // Byte heights (about half the fill's work per cell) where the scores are known.
    int trace = traceback ? cuda::kAvsaDirBits : cuda::kAvsaNoTrace;
    if (traceback && setup_.mode == AlignMode::Local && !known.empty() && heights_exact_) trace = cuda::kAvsaHeights;
    const uint64_t max_pairs = launch_pairs();
    if (!order.empty()) reserve_launch_lists();
    for (size_t begin = 0; begin < order.size();) {
      // Grow the launch while its bits, strips and op buffers fit; its list straight in pinned
      // memory, so that its upload is a DMA with no staging copy.
      AvsaPair* launch = host_pairs_.get();
      uint32_t np = 0;
      cuda::AvsaFillShape shape;
      uint64_t words = 0, text = 0, strip = 0;
      size_t end = begin;
      for (; end < order.size() && np < max_pairs; ++end) {
        const PairIndex& p = pairs[which[order[end]]];
        const uint32_t m = qlen[order[end]], n = tlen[order[end]];
        const uint64_t w = cuda::avsa_trace_words(m, n, trace);
        const uint64_t c = traceback ? cuda::avsa_cigar_bytes(m, n) : 0;
        const uint64_t st = cuda::avsa_strip_entries(m, n);
        // Bits, strips, and the CIGAR scratch and packed text (each bounded by c per pair).
        const uint64_t bytes = (words + w) * 4 + 2 * (text + c) + (strip + st) * sizeof(uint2) +
                               (np + 1) * (sizeof(AvsaPair) + sizeof(AvsaResult));
        if (np && bytes > launch_budget_) break;
        launch[np++] = {setup_.queries->offsets[p.query], setup_.targets->offsets[p.target], m, n, words, text, strip,
                        known.empty() ? 0 : known[which[order[end]]]};
        shape.add(n);
        words += w, text += c, strip += st;
      }
      clock_.mark("device: launch lists");
      CUDA_CHECK(cudaMemcpyAsync(pairs_.get(), launch, np * sizeof(AvsaPair), cudaMemcpyHostToDevice, stream_));
      reserve_ahead(strip_, std::max<uint64_t>(1, strip));
      if (traceback) {
        reserve_ahead(bits_, std::max<uint64_t>(1, words));
        reserve_ahead(scratch_, std::max<uint64_t>(1, text));
        reserve_ahead(text_, std::max<uint64_t>(1, text));
        text_used_.reserve(1);
        CUDA_CHECK(cudaMemsetAsync(text_used_.get(), 0, sizeof(unsigned long long), stream_));
      }
      clock_.mark("device: buffers");  // grown in stream_'s order: no wait for the other workers
      timeline_.begin("fill", stream_);
      cuda::launch_avsa_fill(qres_.get(), device_targets(), pairs_.get(), shape, matrix_.get(), setup_.gaps.open,
                             setup_.gaps.extend, kernel_mode(setup_.mode), trace, !known.empty(), bits_.get(),
                             strip_.get(), results_.get(), stream_);
      timeline_.end(stream_);
      timeline_.begin("walk", stream_);
      if (traceback)
        cuda::launch_avsa_walk(qres_.get(), device_targets(), pairs_.get(), np, kernel_mode(setup_.mode), trace,
                               matrix_.get(), setup_.gaps.open, setup_.gaps.extend, bits_.get(), scratch_.get(),
                               text_.get(), text_used_.get(), results_.get(), stream_);
      timeline_.end(stream_);
      clock_.mark("device: kernel launches");  // their GPU times: the timeline's spans
      CUDA_CHECK(cudaMemcpyAsync(host_results_.get(), results_.get(), np * sizeof(AvsaResult), cudaMemcpyDeviceToHost,
                                 stream_));
      host_text_used_.reserve(1);
      host_text_used_[0] = 0;
      if (traceback)
        CUDA_CHECK(cudaMemcpyAsync(host_text_used_.get(), text_used_.get(), sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, stream_));
      CUDA_CHECK(cudaStreamSynchronize(stream_));
      // The packed text straight into the CIGAR buffer: a pinned copy of it grew with the
      // tiles, and each cudaFreeHost of a smaller one waited for the whole device.
      const uint64_t text_bytes = host_text_used_[0];
      const uint64_t text_at = cigars ? cigars->chars.size() : 0;
      if (text_bytes && cigars) {
        cigars->chars.resize(text_at + text_bytes);
        CUDA_CHECK(cudaMemcpyAsync(cigars->chars.data() + text_at, text_.get(), text_bytes, cudaMemcpyDeviceToHost,
                                   stream_));
        CUDA_CHECK(cudaStreamSynchronize(stream_));
      }
      clock_.mark("device: copies");
      for (uint32_t k = 0; k < np; ++k) done(which[order[begin + k]], host_results_[k], text_at);
      clock_.mark("device: results");
      begin = end;
    }
  }

  // Pairs a launch holds at most: 16 waves of warps.
  uint64_t launch_pairs() const {
    return std::max<uint64_t>(1, uint64_t(prop_.multiProcessorCount) * threads_per_sm_ / 32 * 16);
  }
  // The launch lists' and results' buffers at their largest once (a few MB), on the first
  // alignments: then no launch grows them.
  void reserve_launch_lists() {
    const uint64_t n = launch_pairs();
    if (host_pairs_.capacity() >= n) return;
    pairs_.reserve(n);
    results_.reserve(n);
    host_pairs_.reserve(n);
    host_results_.reserve(n);
    host_text_used_.reserve(1);
  }

  // Grows a device or pinned buffer to n elements with as much again as headroom while it
  // stays small against the launch budget: each cudaFree / cudaFreeHost of a growing buffer
  // waits for the whole device (every worker's stream; the launches' StreamBuffers no longer
  // do, but each growth is still an allocation), and the tiles' kept pairs vary, so
  // exact sizes reallocated ~100 ms per worker of a 1.7 s phase (HPCALIGN_CUDA_TIMING); with
  // half again as much, the GPU still stood idle 8-15 ms at each of several such waits early
  // in the phase (the windows' query counts grow from the long sequences' to the short ones').
  // The pinned score copy keeps its smaller buffers (up to 64 MiB) until the engine goes, so
  // that its growth waits for nothing either.
  template <class Buffer>
  void reserve_ahead(Buffer& buffer, uint64_t n) {
    if (n <= buffer.capacity()) return;
    const uint64_t bytes = n * sizeof(*buffer.get());
    buffer.reserve(bytes <= launch_budget_ / 16 ? 2 * n : n);
  }
  void reserve_ahead(cuda::PinnedBuffer<int32_t>& buffer, uint64_t n) {
    if (n <= buffer.capacity()) return;
    const bool keep_old = buffer.capacity() * sizeof(int32_t) <= (64u << 20);
    buffer.reserve(n * sizeof(int32_t) <= launch_budget_ / 16 ? 2 * n : n, keep_old);
  }

  int device_;
  AllVsAllSetup setup_;
  Int32Fit fits_int32_;
  StageClock clock_;  // HPCALIGN_CUDA_TIMING
  cuda::GpuTimeline timeline_;  // HPCALIGN_CUDA_TIMING: the kernels' spans on the GPU
  cudaDeviceProp prop_{};
  cudaStream_t stream_ = nullptr;  // the fill and walk kernels (highest priority)
  // A tile's id and windows: which tile a slot's queued scores are.
  static std::tuple<uint32_t, uint32_t, uint32_t, size_t> ahead_key(const Tile& t) {
    return {t.id, t.part_begin, t.part_end, t.queries.size()};
  }
  ScoreSlot slots_[2];  // the packed scorers, each with its stream and score copies
  uint64_t queue_count_ = 0;
  int threads_per_sm_ = 0;
  uint64_t device_share_ = 0;  // kAllVsAllLaunchShare of the memory free at the start
  uint64_t launch_budget_ = 0, pair_cap_ = 0, host_budget_ = 0;
  uint64_t reduced_pairs_ = 0;
  bool heights_exact_ = false;  // the byte heights' walk is exact for this matrix and these gaps
  cuda::DeviceBuffer<uint8_t> qres_, tres_;
  std::vector<uint32_t> order_;  // the target order ordered_db_ holds
  cuda::DeviceBuffer<uint64_t> order_off_;
  cuda::DeviceBuffer<uint32_t> order_len_;
  cuda::DeviceDb ordered_db_{};
  cuda::PinnedBuffer<int32_t> host_scores_;  // a tile's score matrix, cut on the host
  std::unique_ptr<cuda::GpuTraceback> traceback_;  // long pairs' scores and alignments, made on first use
  cuda::DeviceBuffer<int32_t> matrix_;
  // The launches' buffers, all on stream_: grown in its order.
  cuda::StreamBuffer<uint2> strip_;
  cuda::StreamBuffer<AvsaPair> pairs_;
  cuda::StreamBuffer<AvsaResult> results_;
  cuda::StreamBuffer<uint32_t> bits_;
  cuda::StreamBuffer<char> scratch_, text_;  // the walk's CIGAR slices; the packed CIGARs
  cuda::StreamBuffer<unsigned long long> text_used_;
  cuda::PinnedBuffer<AvsaPair> host_pairs_;
  cuda::PinnedBuffer<AvsaResult> host_results_;
  cuda::PinnedBuffer<unsigned long long> host_text_used_;
};

}  // namespace

std::unique_ptr<AllVsAllEngine> make_cuda_allvsall_engine(int device, const AllVsAllSetup& setup) {
  return std::make_unique<CudaAllVsAll>(device, setup);
}

}  // namespace hpc
