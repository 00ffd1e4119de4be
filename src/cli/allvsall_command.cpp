#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"
#include "src/cli/text_output.hpp"
#include "src/workloads/allvsall.hpp"

namespace hpc::cli {

int allvsall(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi) {
  AllVsAllOptions o;
  int min_score = 0;
  double evalue = 0;
  ScoringGroup scoring(o.matrix, o.gap_open, o.gap_extend, &o.lambda, &o.K);
  RunGroup run(o.run);
  OutputGroup output(o.run.out_path, "hits");
  po::options_description opts("allvsall options");
  opts.add_options()
    ("input,i", po::value(&o.input_path)->required(), "sequences (FASTA, plain or .gz): every pair of them")
    ("input2,j", po::value(&o.second_path), "second set: every pair of -i x -j instead (rectangular screen)")
    ("mode", po::value(&o.mode)->default_value("local"),
     "local (Smith-Waterman), global (Needleman-Wunsch, end gaps cost like any gap) or semiglobal (end gaps free)")
    ("score-only", po::bool_switch(&o.score_only), "scores only: no coordinates or CIGARs (fast, for huge screens)")
    ("min-score", po::value(&min_score), "report only pairs scoring at least this")
    ("evalue", po::value(&evalue),
     "local mode: report only pairs with E-value <= this (Karlin-Altschul, search space = the two lengths)")
    ("traceback-budget", po::value(&o.traceback_budget)->default_value(0),
     "bytes of traceback per pair before the bounded-memory aligner takes over (0: the engine's memory share)");
  output.add_to(opts);
  scoring.add_to(opts);
  run.add_to(opts);
  po::options_description hidden;
  hidden.add_options()("max-evalue", po::value(&evalue), "the old spelling of --evalue");
  po::variables_map vm;
  const std::string usage =
      "usage: hpcalign allvsall -i S.fa [-j B.fa] (-o OUT.h5 | -o - | --format F) [--mode local|global|semiglobal]\n"
      "                         [options]\n"
      "Aligns every pair of S (each unordered pair once, no self pairs; query index < target index)\n"
      "or every pair of S x B, with score, coordinates, identity and CIGAR in /hits. Local mode adds\n"
      "bit scores and E-values when Karlin-Altschul parameters are known (else NaN in the file, N/A in\n"
      "text; always so in the other modes, which have no such statistics). --score-only stores no\n"
      "alignment: text prints N/A for its columns. Gap costs use BLAST's convention: a gap of length\n"
      "k costs gapopen + k*gapextend (EMBOSS -gapopen 12 -gapextend 1 for 11/1).\n" +
      blast_residue_usage() + checkpoint_usage("jobs/allvsall.sbatch") + "\n" + output_usage();
  if (int rc = parse_or_help(args, usage, opts, nullptr, vm, &hidden); rc >= 0) return rc;
  try {
    scoring.apply(vm);
    run.apply();
    if (vm.count("evalue") && vm.count("max-evalue")) throw po::error("--max-evalue is the old spelling of --evalue: give one");
    const std::string targets = o.second_path.empty() ? o.input_path : o.second_path;
    output.prepare({o.input_path, o.second_path}, o.run.resume, mpi.is_master(), {"", "", o.input_path, targets, ""});
  } catch (const po::error& e) {
    return usage_error(e, usage);
  }
  if (vm.count("min-score")) o.min_score = min_score;
  if (vm.count("evalue") || vm.count("max-evalue")) o.max_evalue = evalue;
  o.command_line = command_line;
  return output.finish(run_allvsall(o, mpi), mpi.is_master());
}

}  // namespace hpc::cli
