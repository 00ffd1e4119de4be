#pragma once
// `hpcalign hmmsearch`: HMMER 3.3.2's hmmsearch (search mode) on the tiled-run driver. Tiles are
// msv's, (model batch) x (database length partition) (src/plan/msv_plan.hpp). A worker
// (src/workloads/hmmsearch_workers.hpp) runs hmmsearch's pipeline over its tile and sends back
// the pass counts and the targets that reach the hit list:
//   CPU (--backend cpu, or auto without a GPU): one worker per thread, each running the whole
//       per-target pipeline (src/hmm/hmmsearch_pipeline.hpp: the SIMD MSV, bias and Viterbi
//       filters, then Forward, Backward, domain definition, null2);
//   GPU (cuda, or auto with a GPU): the msv workload's engine runs the MSV, bias and Viterbi
//       filters of the whole tile (MSV and Viterbi on the GPU), and the survivors go through
//       the rest of the pipeline on the worker's host threads (hmmsearch_survivors.hpp).
// Both give the same counts and rows, hence the same tables.
// Where the GPU path's time goes (>= 20 Pfam-style models x 207M residues against hmmsearch
// --cpu 16 on a 16-core host): the GPU filters run at 33-76x hmmsearch, and ~0.1% of the
// targets survive the Viterbi filter, so the host's Forward/Backward/domains of the survivors
// is the part that can dominate. It runs on every host core: sixteen workers share each GPU,
// each with a pool of its share of the threads, so one worker's survivors are scored while
// the others' filter kernels run (tiles are 4 database partitions per worker, so work stays
// even); the survivors' Forward/Backward profiles are built once per model, not per tile.
// A device Forward/Backward would replace score_survivors' body.
// Rank 0 keeps the hits, and once every tile is in thresholds each
// model's hits (Z, domZ, E-values: src/hmm/hmmsearch_hits.hpp) and writes
//   HDF5 (--h5):  /hmmsearch/targets/{model,target,score,bias,lnP,...,reported,included}
//                 /hmmsearch/domains/{model,target,domain,bitscore,...,reported,included}
//                 /models/{name,length,...past_msv,past_bias,past_vit,past_fwd,Z,domZ}
//                 /targets/{id,length}; run attributes on '/', status "incomplete" until done
//   --tblout / --domtblout: hmmsearch's tables, byte for byte
//   -o (or stdout): hmmsearch's main report (hit lists, domain tables, alignments, pipeline
//                 statistics per query)
//   -A:           hmmsearch's Stockholm alignment of the included domains, per query
// With `scan` it is `hpcalign hmmscan`: the same pairs and the same per-pair results, listed the
// other way, per query sequence (src/workloads/hmmscan_lists.hpp), on either backend (the
// workers add each sequence's filter pass counts, hmmscan's statistics).
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "mpi/scheduler.hpp"
#include "src/hmm/hmmsearch_hits.hpp"
#include "src/hmm/hmmsearch_pipeline.hpp"
#include "src/hmm/hmmsearch_report.hpp"
#include "src/workloads/run_settings.hpp"

namespace hpc {

struct HmmsearchOptions {
  bool scan = false;                       // hmmscan: hits per sequence, targets are models
  std::string model_path, db_path;
  std::string report_path;                // -o: "" for stdout
  std::string tblout_path, domtblout_path, pfamtblout_path;
  std::string msa_path;                    // -A
  hmm::ReportStyle style;                  // --acc --noali --textw --notextw
  std::string tformat;                     // --tformat, hmmscan's --qformat (fasta only)
  std::set<std::string> options_given;     // options given, not at hmmsearch's default (-E, incT, ...): the header
  hmm::PipelineSettings pipeline;          // --F1 --F2 --F3 --nobias --nonull2 --max --seed
  hmm::ReportThresholds thresholds;        // -E -T --domE --domT --incE --incT --incdomE --incdomT --domZ
  std::string cutoff;                      // "", "GA", "TC" or "NC" (--cut_ga, --cut_tc, --cut_nc)
  std::optional<double> Z;                 // -Z; else the number of targets
  RunSettings run;                         // --h5 (out_path), --cpu (threads), --resume ...
  std::string command_line;
  // HMMER's sort key: the bit score where inclusion is by score (--incT, a cut-off), else -ln P.
  bool ranks_by_score() const { return !cutoff.empty() || !thresholds.inc_by_E; }
  // Writes a finished text file whole (the command renames it into place).
  std::function<void(const std::string& path, const std::string& text)> write_text;
};

int run_hmmsearch(const HmmsearchOptions& opt, const MpiContext& mpi);

}  // namespace hpc
