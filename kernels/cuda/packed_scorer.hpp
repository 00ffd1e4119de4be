#pragma once
// Every (query, subject) Smith-Waterman score of a partition on one GPU: a packed 16-bit
// kernel (DPX; two queries per thread when the tile's queries pair up, stepping four query
// rows at once through the pair's profile when it fits shared memory; else two subjects)
// over LPT-ordered work units, then the exact 32-bit
// kernel for the lanes that overflowed (or for every pair when the scores or gaps do not fit
// 16-bit lanes). Shared by the search backend (which then keeps each query's top hits) and
// the PSS scorer (which scores queries against permuted copies of its subjects).
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/cuda/device_buffer.hpp"
#include "kernels/cuda/sw_kernels.hpp"
#include "kernels/cuda/traceback_kernels.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"

namespace hpc::cuda {

class PackedScorer {
 public:
  // mode: Local (Smith-Waterman scores), Global or SemiGlobal (the subject-pair kernel in that
  // mode, its unfit lanes exact in 32 bits and, from 2^24 cells, by the stripes).
  PackedScorer(const ScoreMatrix& matrix, GapCosts gaps, cudaStream_t stream, const cudaDeviceProp& props,
               AlignMode mode = AlignMode::Local);

  // Alignments resident per SM: blocks x threads x 2 lanes (the occupancy formula's T_max).
  int resident_per_sm() const { return blocks_per_sm_ * kBlockThreads * 2; }

  // Starts scoring every query of `queries` against positions [part.begin, part.begin +
  // part.size) of `db` (returns once the work is queued). `length_at(p)` is the length of
  // partition position p (host side, for the cost of the work units).
  void launch(DeviceDb db, Partition part, const std::vector<SeqView>& queries,
              const std::function<uint32_t(uint32_t)>& length_at);
  // Rescores the overflowing lanes exactly (waits for the packed pass to learn how many).
  // Afterwards scores()[q * part.size + p] holds every exact score, on the device.
  void finish();
  // The next launch's packed kernel starts on the device once `e` (recorded on another
  // stream) has passed; its uploads do not wait.
  void start_after(cudaEvent_t e) { after_ = e; }
  const int32_t* scores() const { return scores_.get(); }

 private:
  void upload_queries(const std::vector<SeqView>& queries);
  static std::vector<uint32_t> longest_first(const std::vector<SeqView>& queries);
  // Which packed kernel scores a launch. `order`, `by_length`: longest_first(queries).
  enum class Lanes { kSubjectPairs, kQueryPairTable, kQueryRowGroups };
  Lanes choose_lanes(const std::vector<SeqView>& queries, const std::vector<uint32_t>& order) const;
  struct QueryPair {
    SeqView a, b;  // b empty for the last of an odd count
    uint32_t slot_a = kNoQuery, slot_b = kNoQuery;
    uint32_t rows = 0;  // max(a.length, b.length)
    // Letter code of row i of each query, the padding code past its end.
    uint32_t code_a(uint32_t i) const;
    uint32_t code_b(uint32_t i) const;
  };
  static std::vector<QueryPair> pair_up(const std::vector<SeqView>& queries, const std::vector<uint32_t>& by_length);
  std::vector<uint32_t> upload_pair_rows(const std::vector<SeqView>& queries, const std::vector<uint32_t>& by_length,
                                         uint32_t multiple);
  void launch_packed(const std::vector<SeqView>& queries, const std::function<uint32_t(uint32_t)>& length_at);
  void launch_query_pairs(const std::vector<SeqView>& queries, const std::vector<uint32_t>& by_length,
                          const std::function<uint32_t(uint32_t)>& length_at);
  void launch_row_groups(const std::vector<SeqView>& queries, const std::vector<uint32_t>& by_length,
                        const std::function<uint32_t(uint32_t)>& length_at);
  std::vector<uint64_t> block_passes(uint32_t per_block, const std::function<uint32_t(uint32_t)>& length_at) const;
  void upload_units(const std::vector<uint32_t>& rows, const std::vector<uint64_t>& passes);
  int grid_blocks();
  void rescore_exact(uint32_t n);
  void rescore_long_pairs();
  DeviceQueries device_queries() const { return {q_residues_.get(), q_offsets_.get(), q_lengths_.get()}; }

  cudaStream_t stream_;
  cudaEvent_t after_ = nullptr;  // start_after()'s, for the next packed kernel only
  int sm_count_ = 0;
  int blocks_per_sm_ = 0;
  GapConsts gaps_{};
  AlignMode mode_ = AlignMode::Local;
  EndScoreFit end_fit_;    // global and semiglobal modes' exact 16-bit lanes
  bool packed_ok_ = false;  // scores and gaps fit the 16-bit lanes
  int overflow_limit_ = 0;
  // The launch in progress.
  DeviceDb db_{};
  Partition part_{};
  uint32_t n_queries_ = 0, max_len_ = 0;
  bool pending_ = false;

  uint32_t n_units_ = 0;
  uint64_t long_cells_ = UINT64_MAX;  // the launch's packed kernel sets aside pairs of this much thread work
  DeviceBuffer<uint32_t> packed_table_, pair_table_;
  DeviceBuffer<int32_t> table32_;
  DeviceBuffer<int32_t> matrix24_;  // the stripe rescoring's table: kTbAlphabet x kTbAlphabet scores
  LongPairs long_range_;  // the int32 range of the stripe rescoring (gaps, largest |score|); the rest per launch
  DeviceBuffer<uint32_t> counters_;  // [0] unit counter, [1] overflow count, [2] long pairs set aside
  // The launches' buffers, all on stream_ and grown in its order: the cudaFree of a smaller
  // one waited for the whole device (the windows' query counts grow over an all-vs-all run).
  StreamBuffer<uint16_t> pair_rows_;
  StreamBuffer<uint32_t> pair_offsets_, pair_lengths_, pair_slots_;
  StreamBuffer<uint32_t> pair_profiles_;
  StreamBuffer<uint8_t> q_residues_;
  StreamBuffer<uint32_t> q_offsets_, q_lengths_;
  StreamBuffer<WorkUnit> units_;
  StreamBuffer<uint2> temp_;
  StreamBuffer<int32_t> scores_;
  StreamBuffer<uint32_t> overflow_;
  StreamBuffer<uint32_t> long_list_;
  StreamBuffer<int2> long_columns_;
  StreamBuffer<TbPair> long_tb_pairs_;
  StreamBuffer<TbPartial> long_partial_;  // the long pairs' pass 1: a result a ticket, then a pair
  StreamBuffer<TbEnd> long_ends_;
  TbQueue long_queue_;
  PinnedBuffer<uint32_t> counters_host_;
};

}  // namespace hpc::cuda
