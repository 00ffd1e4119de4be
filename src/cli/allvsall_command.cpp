#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"
#include "src/workloads/allvsall.hpp"

namespace hpc::cli {

int allvsall(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi) {
  AllVsAllOptions o;
  int min_score = 0;
  double max_evalue = 0, lambda = 0, K = 0;
  po::options_description opts("allvsall options");
  opts.add_options()
    ("input,i", po::value(&o.input_path)->required(), "sequences (FASTA, plain or .gz): every pair of them")
    ("input2,j", po::value(&o.second_path), "second set: every pair of -i x -j instead (rectangular screen)")
    ("out,o", po::value(&o.out_path)->required(), "output HDF5 file")
    ("mode", po::value(&o.mode)->default_value("local"),
     "local (Smith-Waterman), global (Needleman-Wunsch, end gaps cost like any gap) or semiglobal (end gaps free)")
    ("matrix", po::value(&o.matrix)->default_value("BLOSUM62"),
     "BLOSUM45/50/62/80/90, PAM30/70/250, or an NCBI-format matrix file")
    ("gapopen", po::value(&o.gap_open)->default_value(11), "gap open cost (BLAST convention: a gap of length k costs open + k*extend)")
    ("gapextend", po::value(&o.gap_extend)->default_value(1), "gap extension cost per residue")
    ("score-only", po::bool_switch(&o.score_only), "scores only: no coordinates or CIGARs (fast, for huge screens)")
    ("min-score", po::value(&min_score), "report only pairs scoring at least this")
    ("max-evalue", po::value(&max_evalue),
     "local mode: report only pairs with E-value <= this (Karlin-Altschul, search space = the two lengths)")
    ("lambda", po::value(&lambda), "Karlin-Altschul lambda (with --K) for matrix/gap pairs without published values")
    ("K", po::value(&K), "Karlin-Altschul K (with --lambda)")
    ("traceback-budget", po::value(&o.traceback_budget)->default_value(0),
     "bytes of traceback per pair before the reduced-space aligner takes over (0: the engine's memory share)")
    ("backend", po::value(&o.backend)->default_value("auto"), "auto, cpu or cuda")
    ("threads", po::value(&o.threads)->default_value(0), "CPU threads (0: all cores, shared among local ranks)")
    ("verbose,v", po::bool_switch(&o.verbose), "log the plan (window and tile sizes, devices)")
    ("quiet", po::bool_switch(&o.quiet), "no progress, warnings or summary on stderr");
  add_resume_option(opts, o.resume);
  po::variables_map vm;
  const std::string usage =
      "usage: hpcalign allvsall -i S.fa [-j B.fa] -o OUT.h5 [--mode local|global|semiglobal] [options]\n"
      "Aligns every pair of S (each unordered pair once, no self pairs; query index < target index)\n"
      "or every pair of S x B, with score, coordinates, identity and CIGAR in /hits. Local mode adds\n"
      "bit scores and E-values when Karlin-Altschul parameters are known (else NaN; NaN in the other\n"
      "modes). Gap costs use BLAST's convention: a gap of length k costs gapopen + k*gapextend\n"
      "(EMBOSS -gapopen 12 -gapextend 1 for 11/1).\n" +
      blast_residue_usage() + checkpoint_usage("jobs/allvsall.sbatch");
  if (int rc = parse_or_help(args, usage, opts, nullptr, vm); rc >= 0) return rc;
  if (vm.count("min-score")) o.min_score = min_score;
  if (vm.count("max-evalue")) o.max_evalue = max_evalue;
  if (vm.count("lambda")) o.lambda = lambda;
  if (vm.count("K")) o.K = K;
  o.command_line = command_line;
  return run_allvsall(o, mpi);
}

}  // namespace hpc::cli
