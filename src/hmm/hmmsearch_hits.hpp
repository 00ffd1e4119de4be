#pragma once
// hmmsearch 3.3.2's hit list for one query: the rows its pipeline keeps per target
// (P7_HIT and its P7_DOMAINs), and the thresholding that needs the whole search
// (p7_tophits_SortBySortkey + p7_tophits_Threshold): Z, domZ, reporting and inclusion by
// E-value or by Pfam's bit-score cut-offs, and the h74 duplicate-alignment workaround.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "io/hmm_file.hpp"
#include "src/hmm/alignment_display.hpp"
#include "src/hmm/domain_definition.hpp"

namespace hpc::hmm {

struct DomainHit {
  EnvelopeDomain env;
  float bitscore = 0.0f;  // bits
  float dombias = 0.0f;   // nats (as HMMER keeps it; printed in bits)
  double lnP = 0.0;
  bool reported = false, included = false;
  AlignmentDisplay ali;  // the report's alignment, and -A's
};

struct TargetHit {
  std::string name, accession, description;
  int length = 0;
  // The target's number in the order the pipeline meets targets (file order): a sequence's
  // (hmmsearch) or a model's (hmmscan).
  size_t index = 0;
  float pre_score = 0.0f, score = 0.0f, sum_score = 0.0f;  // bits
  double lnP = 0.0, pre_lnP = 0.0, sum_lnP = 0.0;
  float nexpected = 0.0f;
  int nregions = 0, nclustered = 0, noverlaps = 0, nenvelopes = 0;
  std::vector<DomainHit> domains;
  int best_domain = 0;
  bool reported = false, included = false;
  int nreported = 0, nincluded = 0;
};

struct ReportThresholds {  // hmmsearch's defaults: -E 10 --domE 10 --incE 0.01 --incdomE 0.01
  double E = 10.0, domE = 10.0, incE = 0.01, incdomE = 0.01;
  // -T / --domT: report by bit score (target score >= T, domain score >= domT) instead of E-value.
  bool by_E = true, dom_by_E = true;
  double T = 0.0, domT = 0.0;
  // --incT / --incdomT: include by bit score (target score >= incT, domain score >= incdomT).
  bool inc_by_E = true, incdom_by_E = true;
  double incT = 0.0, incdomT = 0.0;
  double Z = 0.0;     // -Z; 0: the number of targets (finish_hits' Z)
  double domZ = 0.0;  // --domZ; 0: the number of reported targets, as hmmsearch sets it
  // --cut_ga/--cut_tc/--cut_nc: the model's bit-score cut-offs decide reporting and inclusion
  // (sequence score >= seq_cutoff, domain score >= dom_cutoff), and targets list by score.
  bool use_bit_cutoffs = false;
  float seq_cutoff = 0.0f, dom_cutoff = 0.0f;
};
// hmmsearch's --cut_ga (which "GA"), --cut_tc ("TC") or --cut_nc ("NC") thresholds for a
// model; throws hpc::Error when the model has no such line, as hmmsearch stops.
ReportThresholds model_cutoff_thresholds(const HmmModel& model, const std::string& which);

struct HitList {
  std::vector<TargetHit> hits;  // sorted as hmmsearch lists them
  double Z = 0.0, domZ = 0.0;
  int nreported = 0, nincluded = 0;
};

// Under bit cut-offs, a target's (sequence, domain) cut-offs. In hmmsearch every target has the
// query model's (ReportThresholds::seq_cutoff, dom_cutoff); in hmmscan each target is a model
// with its own.
using HitCutoffs = std::function<std::pair<float, float>(const TargetHit&)>;

// Keeps the targets HMMER's p7_Pipeline adds to its hit list: those reportable against the
// search so far (E-value with -Z, else with Z = the targets met so far, TargetHit::index + 1 in
// file order as hmmsearch/hmmscan --cpu 1 read them; -T or a cut-off: by score). The others never
// count, not even in the tables' name widths. Then sorts by E-value (by score under bit cut-offs
// or --incT; name, then alignment start on ties), flags
// reported and included targets with Z (number of targets searched) and domains with domZ
// (number of reported targets), and hides duplicate alignments (HMMER's bug h74 workaround).
HitList finish_hits(std::vector<TargetHit> hits, double Z, const ReportThresholds& t = {},
                    const HitCutoffs& cutoffs = {});

}  // namespace hpc::hmm
