#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"
#include "src/cli/text_output.hpp"
#include "src/workloads/pss.hpp"

namespace hpc::cli {

int pss(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi) {
  PssOptions o;
  ScoringGroup scoring(o.matrix, o.gap_open, o.gap_extend);
  RunGroup run(o.run);
  OutputGroup output(o.run.out_path, "pss");
  po::options_description opts("pss options");
  add_query_file(opts, o.query_path);
  opts.add_options()
    ("subjects,s", po::value(&o.subject_path)->required(), "subject FASTA: every query is paired with every subject");
  add_permutation_options(opts, o.permutations, o.seed);
  opts.add_options()
    ("censor", po::value(&o.censor)->default_value("median"),
     "Gumbel fit censoring: none, median, quantile:F or score:X (scores below are censored)")
    ("pssm", po::value(&o.pssm_path), "PSI-BLAST ASCII PSSM of the (single) query, used as its position-specific profile")
    ("keep-scores", po::bool_switch(&o.keep_scores), "also store the N permuted scores of every pair (/pss_scores/scores)")
    ("query-batch", po::value(&o.query_batch)->default_value(16), "queries per tile (they share the subjects' permutations)");
  output.add_to(opts);
  scoring.add_to(opts);
  run.add_to(opts);
  po::variables_map vm;
  const std::string usage =
      "usage: hpcalign pss -q QUERIES.fa -s SUBJECTS.fa (-o OUT.h5 | -o - | --format tsv) [options]\n"
      "Pairwise statistical significance: for every query x subject pair, the subject is shuffled N\n"
      "times (Philox4x32-10 + Fisher-Yates, reproducible from --seed), the query is aligned to every\n"
      "copy (Smith-Waterman, affine gaps), a Gumbel is fitted to the N scores by censored maximum\n"
      "likelihood (Lawless 4.2.2), and K = exp(lambda mu)/(m n), P = 1 - exp(-K m n e^(-lambda x)) of\n"
      "the real score x are written to /pss. Gap costs use BLAST's convention: a gap of length k costs\n"
      "gapopen + k*gapextend. On GPUs, --threads is the threads fitting the Gumbels.\n" +
      blast_residue_usage() + checkpoint_usage("jobs/pss.sbatch") + "\n" + output_usage();
  if (int rc = parse_or_help(args, usage, opts, nullptr, vm); rc >= 0) return rc;
  try {
    scoring.apply(vm);
    run.apply();
    output.prepare({o.query_path, o.subject_path, o.pssm_path}, o.run.resume, mpi.is_master());
  } catch (const po::error& e) {
    return usage_error(e, usage);
  }
  o.command_line = command_line;
  return output.finish(run_pss(o, mpi), mpi.is_master());
}

}  // namespace hpc::cli
