#pragma once
// HDF5 result file of `hpcalign pss` (README.md, "Result file"), column datasets readable by h5py:
//   attributes on '/': program, version, workload "pss", command_line, backend, workers, host,
//     matrix, gap_open, gap_extend, permutations, seed, censor, pssm, tile sizes, start_time,
//     end_time, status ("incomplete" until finish(), then "complete")
//   /queries/{id,length}  /targets/{id,length}
//   /pss/{query,target,score,mu,lambda,K,pvalue,log10_pvalue,n_perm,converged,fit_status}
//     one row per (query, target) pair, sorted by query then target (indices into
//     /queries, /targets). converged: 1 when the Gumbel fit succeeded; otherwise mu, lambda
//     and K are 0, pvalue and log10_pvalue NaN, and fit_status says why (0 converged,
//     1 too few samples, 2 all permuted scores equal, 3 non-finite, 4 no convergence).
//   /pss_scores/scores (only with --keep-scores): the permuted scores, flat int32, row r of
//     /pss owning elements [r * n_perm, (r + 1) * n_perm) in permutation order k = 0..N-1.
// The workers stage the rows in run files (src/workloads/tile_runs.hpp), merged into /pss
// (and /pss_scores) by (query, target) when the run completes: an unfinished file has none.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/row_runs.hpp"
#include "src/core/sequence.hpp"
#include "src/pss/pss_engine.hpp"

namespace hpc {

namespace h5 {
class File;
}

class PssResultFile {
 public:
  explicit PssResultFile(const std::string& path);  // throws hpc::Error naming the path
  ~PssResultFile();
  void set_attribute(const std::string& name, const std::string& value);
  void set_attribute(const std::string& name, int64_t value);
  void set_attribute(const std::string& name, double value);
  void write_sequences(const std::string& group, const SequenceSet& seqs);
  // The rows are in /pss (and /pss_scores when keep_scores): status "complete", closes.
  void finish(bool keep_scores);
  // The underlying file, for io/checkpoint.hpp (the stored plan).
  h5::File& h5_file();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// /pss's columns (and with keep_scores /pss_scores/scores, `permutations` a row) and how a pair
// fills them (io/row_runs.hpp), keyed by (query, target).
RowFields<PssPairResult> pss_row_fields(uint32_t permutations, bool keep_scores);

}  // namespace hpc
