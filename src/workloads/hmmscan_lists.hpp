#pragma once
// `hpcalign hmmscan` is `hpcalign hmmsearch` listed the other way (HmmsearchOptions::scan). The
// per-pair results are the same: HMMER 3.3.2's p7_Pipeline runs the same filters, Forward,
// Backward, domain definition (its RNG reset per region) and null2 on a (model, sequence) pair in
// scan and in search mode. What hmmscan changes is after the pipeline, per query sequence:
//   - the targets are the models: name, ACC (accession column) and DESC, tlen = model length,
//     qlen = sequence length in the domain table; the query accession is "-" (FASTA has none)
//   - Z = the number of models (or -Z), and during the scan the models met so far (model index
//     + 1, as hmmscan --cpu 1 counts them) decide which hits enter the list
//   - domZ = the models reported for this sequence (or --domZ)
//   - --cut_ga/tc/nc: each model's own cut-offs
//   - models listed by E-value (by score under cut-offs), then name
//   - -o: per sequence hmmsearch's report listed the other way (src/hmm/hmmsearch_report.hpp's
//     ReportQuery), its statistics with the query sequence and target model lines, counts over
//     the models
// hmmscan reads pressed files (hmmpress); this reads the text file the .h3* files were pressed
// from, whose numbers they hold unchanged.
#include <ostream>
#include <string>
#include <vector>

#include "io/hdf5_columns.hpp"
#include "io/hmm_file.hpp"
#include "src/core/sequence.hpp"
#include "src/hmm/hmmsearch_hits.hpp"
#include "src/workloads/hmmsearch.hpp"
#include "src/workloads/hmmsearch_rows.hpp"

namespace hpc {

// hits_by_model[m]: model m's hits (TargetHit::index the sequence); passes[s]: sequence s's
// filter counts over every model; desc[s]: its FASTA description (may be shorter: none).
// Returns the thresholded list of each sequence (TargetHit::index the model) and writes
// hmmscan's --tblout, --domtblout and --pfamtblout rows and its -o report (after the header) for
// every sequence, in file order.
std::vector<hmm::HitList> finish_scan(const HmmsearchOptions& opt, const std::vector<HmmModel>& models,
                                      const SequenceSet& seqs, const std::vector<std::string>& desc,
                                      std::vector<std::vector<hmm::TargetHit>> hits_by_model,
                                      const std::vector<HmmPassCounts>& passes, std::ostream& tbl, std::ostream& dom,
                                      std::ostream& pfam, std::ostream& report);

// /targets/{past_msv,past_bias,past_vit,past_fwd}: each sequence's counts over the models.
void write_scan_counts(h5::File& f, const std::vector<HmmPassCounts>& passes);

}  // namespace hpc
