#pragma once
// `hpcalign search`: Smith-Waterman of a query set against a database.
// job -> plan of tiles -> scheduler (MPI or local) -> backend (CUDA or CPU) -> HDF5 sink.
#include <cstdint>
#include <optional>
#include <string>

#include "mpi/scheduler.hpp"
#include "src/workloads/run_settings.hpp"
#include "src/workloads/search_rescore.hpp"

namespace hpc {

struct SearchOptions {
  std::string query_path, db_path;
  std::string matrix = "BLOSUM62";
  int gap_open = 11, gap_extend = 1;
  uint32_t max_hits = 500;  // BLAST's -max_target_seqs default
  double max_evalue = 10.0;
  std::optional<double> lambda, K;  // override the published Karlin-Altschul parameters
  std::string stats = "regress-qcomp";  // --stats (src/stats/search_statistics.hpp): ranks best (README); regress is ssearch36's exactly
  RescoreSettings rescore;          // --rescore, --permutations, --seed (src/workloads/search_rescore.hpp)
  RunSettings run;  // -o, --backend, --threads, --verbose, --quiet, --resume
  std::string command_line;
};

// Runs the search; returns the process exit code. Errors are thrown as hpc::Error /
// InputError (the caller prints them). Under MPI every rank calls it.
int run_search(const SearchOptions& opt, const MpiContext& mpi);

}  // namespace hpc
