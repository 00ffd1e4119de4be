#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"
#include "src/workloads/pss.hpp"

namespace hpc::cli {

int pss(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi) {
  PssOptions o;
  po::options_description opts("pss options");
  opts.add_options()
    ("query,q", po::value(&o.query_path)->required(), "query FASTA (plain or .gz)")
    ("subjects,s", po::value(&o.subject_path)->required(), "subject FASTA: every query is paired with every subject")
    ("out,o", po::value(&o.out_path)->required(), "output HDF5 file")
    ("permutations", po::value(&o.permutations)->default_value(1000), "N: permuted copies of each subject (>= 10; ~1000 for a fit)")
    ("seed", po::value(&o.seed)->default_value(42), "RNG seed: permutation k of subject s is a pure function of (seed, s, k)")
    ("censor", po::value(&o.censor)->default_value("median"),
     "Gumbel fit censoring: none, median, quantile:F or score:X (scores below are censored)")
    ("matrix", po::value(&o.matrix)->default_value("BLOSUM62"),
     "BLOSUM45/50/62/80/90, PAM30/70/250, or an NCBI-format matrix file")
    ("gapopen", po::value(&o.gap_open)->default_value(11), "gap open cost (BLAST convention: a gap of length k costs open + k*extend)")
    ("gapextend", po::value(&o.gap_extend)->default_value(1), "gap extension cost per residue")
    ("pssm", po::value(&o.pssm_path), "PSI-BLAST ASCII PSSM of the (single) query, used as its position-specific profile")
    ("keep-scores", po::bool_switch(&o.keep_scores), "also store the N permuted scores of every pair (/pss_scores/scores)")
    ("query-batch", po::value(&o.query_batch)->default_value(16), "queries per tile (they share the subjects' permutations)")
    ("backend", po::value(&o.backend)->default_value("auto"), "auto (the GPUs when one is visible, else the CPU), cpu or cuda")
    ("threads", po::value(&o.threads)->default_value(0), "CPU threads (0: all cores, shared among local ranks); on GPUs, the threads fitting the Gumbels")
    ("verbose,v", po::bool_switch(&o.verbose), "log the plan (T subjects per tile, devices)")
    ("quiet", po::bool_switch(&o.quiet), "no progress, warnings or summary on stderr");
  add_resume_option(opts, o.resume);
  po::variables_map vm;
  const std::string usage =
      "usage: hpcalign pss -q QUERIES.fa -s SUBJECTS.fa -o OUT.h5 [options]\n"
      "Pairwise statistical significance: for every query x subject pair, the subject is shuffled N\n"
      "times (Philox4x32-10 + Fisher-Yates, reproducible from --seed), the query is aligned to every\n"
      "copy (Smith-Waterman, affine gaps), a Gumbel is fitted to the N scores by censored maximum\n"
      "likelihood (Lawless 4.2.2), and K = exp(lambda mu)/(m n), P = 1 - exp(-K m n e^(-lambda x)) of\n"
      "the real score x are written to /pss. Gap costs use BLAST's convention: a gap of length k costs\n"
      "gapopen + k*gapextend.\n" +
      blast_residue_usage() + checkpoint_usage("jobs/pss.sbatch");
  if (int rc = parse_or_help(args, usage, opts, nullptr, vm); rc >= 0) return rc;
  o.command_line = command_line;
  return run_pss(o, mpi);
}

}  // namespace hpc::cli
