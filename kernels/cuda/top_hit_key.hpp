#pragma once
// The top hits' sort key, made by the kernels and read back by the host in one layout:
// score << index_bits | (2^index_bits - 1 - index), so that a descending sort gives
// scored_target_order (score descending, then index ascending). 32 bits where every score (at
// most the matrix's best substitution score times the tile's longest query) and every index
// fit, else 64 with index_bits 32: the same order either way; the narrow key sorts a quarter of
// the bytes (half the width, only index_bits + score_bits bits of it).
#include <cstdint>

#include "kernels/cuda/lane_code.hpp"

namespace hpc::cuda {

struct KeyWidth {
  uint32_t index_bits = 32, score_bits = 32;
  bool narrow() const { return index_bits + score_bits <= 32; }
};

// Bits that hold every value below `bound` (at least 1).
inline uint32_t bits_for(uint64_t bound) {
  uint32_t b = 1;
  while (b < 64 && (uint64_t(1) << b) < bound) ++b;
  return b;
}

// The layout for queries of at most `longest` residues (a local score is at most the best
// substitution score times the query's length) and indices below `indices`.
inline KeyWidth key_width(int best_substitution, uint64_t longest, uint64_t indices) {
  KeyWidth w;
  w.index_bits = bits_for(indices);
  w.score_bits = bits_for(uint64_t(best_substitution > 0 ? best_substitution : 0) * longest + 1);
  return w.narrow() ? w : KeyWidth{};
}

// Encodes and decodes keys of type Key (uint32_t where the width is narrow, else uint64_t).
template <class Key>
struct TopHitKey {
  using Type = Key;
  uint32_t index_bits;
  HPC_LANE_FN Key mask() const { return Key(~Key(0)) >> (8 * sizeof(Key) - index_bits); }
  HPC_LANE_FN Key encode(int32_t score, uint32_t index) const {
    return (Key(uint32_t(score)) << index_bits) | (mask() - Key(index));
  }
  HPC_LANE_FN int32_t score(Key key) const { return int32_t(uint32_t(key >> index_bits)); }
  HPC_LANE_FN uint32_t index(Key key) const { return uint32_t(mask() - (key & mask())); }
};

// f(TopHitKey<uint32_t>) where `width` is narrow, else f(TopHitKey<uint64_t>).
template <class F>
auto with_top_hit_key(KeyWidth width, F&& f) {
  return width.narrow() ? f(TopHitKey<uint32_t>{width.index_bits}) : f(TopHitKey<uint64_t>{width.index_bits});
}

}  // namespace hpc::cuda
