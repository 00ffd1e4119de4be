#pragma once
// What an `hpcalign hmmsearch` tile sends to rank 0 (and the journal keeps): per model its
// pipeline counts, and the targets that reached the hit list with their domains, as plain rows
// with their alignment displays (names and descriptions are the master's: it has the database).
#include <cstdint>
#include <string>
#include <vector>

#include "src/hmm/hmmsearch_pipeline.hpp"

namespace hpc {

struct HmmCounts {  // hmmsearch's "Passed ... filter" counts, and the residues searched
  uint32_t model = 0, pad = 0;
  uint64_t targets = 0, past_msv = 0, past_bias = 0, past_vit = 0, past_fwd = 0, residues = 0;
  void add(const HmmCounts& o);
};

struct HmmTargetRow {
  uint32_t model = 0, target = 0;
  float pre_score = 0, score = 0, sum_score = 0, nexpected = 0;
  double lnP = 0, pre_lnP = 0, sum_lnP = 0;
  int32_t nregions = 0, nclustered = 0, noverlaps = 0, nenvelopes = 0, best_domain = 0, ndomains = 0;
};

struct HmmDomainRow {
  uint32_t model = 0, target = 0;
  float bitscore = 0, dombias = 0;
  double lnP = 0;
  hmm::EnvelopeDomain env;
  int32_t ali_columns = 0;  // its alignment display: 4 x ali_columns bytes of HmmTileResult::alignments
};

// hmmscan's statistics are per query sequence: the filters one target passed, summed over the
// tile's models (targets that passed none are left out).
struct HmmPassCounts {
  uint32_t target = 0, past_msv = 0, past_bias = 0, past_vit = 0, past_fwd = 0;
  void add(const HmmPassCounts& o);
};

struct HmmTileResult {
  std::vector<HmmCounts> counts;
  std::vector<HmmTargetRow> targets;
  std::vector<HmmDomainRow> domains;  // each target's ndomains rows, in target order
  std::string alignments;             // per domain in row order: model, mline, aseq, pp lines
  std::vector<HmmPassCounts> passes;  // hmmscan only
};

std::string encode_hmm_tile(const HmmTileResult& r);
HmmTileResult decode_hmm_tile(const std::string& bytes);

// Rows of one hit, and back (name, description and length come from the database).
void add_hit_rows(uint32_t model, uint32_t target, const hmm::TargetHit& h, HmmTileResult& out);
// `alignments` is the tile's text, `*offset` where the first domain's display starts (advanced).
hmm::TargetHit hit_from_rows(const HmmTargetRow& t, const HmmDomainRow* domains, const std::string& alignments,
                             size_t* offset);

}  // namespace hpc
