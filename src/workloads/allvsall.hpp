#pragma once
// `hpcalign allvsall`: every pair of one sequence set (-i S.fa: the upper triangle, no
// self pairs), or every pair of A x B (-i A.fa -j B.fa), aligned in local, global or
// semiglobal mode with score, coordinates and CIGAR (or scores only).
// job -> allvsall plan (src/plan/allvsall_plan.hpp) -> scheduler (MPI or local) ->
// engine (kernels/cpu/allvsall_cpu.hpp) -> HDF5 sink (/hits, as search writes it).
//
// Output rows: square screens report each unordered pair once with query < target (file
// indices; /queries and /targets then hold the same set); rows are sorted by query, then
// target, whatever the rank or thread count. Columns:
//   score, qstart..tend, cigar, identity  as search (score-only: coordinates 0, empty
//                                          CIGAR, identity 0);
//   bits, evalue   local mode with Karlin-Altschul parameters (published for the matrix and
//                  gaps, or --lambda/--K): bits = (lambda S - ln K)/ln 2 and
//                  E = K m n exp(-lambda S) with m, n the two sequence lengths, i.e. the
//                  search space of that one pair (not the whole screen). NaN otherwise
//                  (global/semiglobal scores have no Karlin-Altschul statistics).
#include <cstdint>
#include <optional>
#include <string>

#include "mpi/scheduler.hpp"
#include "src/workloads/run_settings.hpp"

namespace hpc {

struct AllVsAllOptions {
  std::string input_path, second_path;  // second_path empty: square screen
  std::string mode = "local";
  std::string matrix = "BLOSUM62";
  int gap_open = 11, gap_extend = 1;
  bool score_only = false;
  std::optional<int> min_score;       // report pairs with score >= this
  std::optional<double> max_evalue;   // local mode: report pairs with E <= this
  std::optional<double> lambda, K;    // Karlin-Altschul overrides
  uint64_t traceback_budget = 0;      // bytes per pair before the bounded-memory path; 0 = auto
  RunSettings run;  // -o, --backend, --threads, --verbose, --quiet, --resume
  std::string command_line;
};

AlignMode parse_align_mode(const std::string& s);  // "local" | "global" | "semiglobal"; throws hpc::Error

// Runs the screen; returns the exit code. Under MPI every rank calls it.
int run_allvsall(const AllVsAllOptions& opt, const MpiContext& mpi);

}  // namespace hpc
