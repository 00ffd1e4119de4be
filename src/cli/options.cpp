#include "src/cli/options.hpp"

#include "src/core/progress.hpp"

namespace hpc::cli {

int usage_error(const po::error& e, const std::string& usage) {
  std::cerr << "hpcalign: " << e.what() << "\n" << usage << "\n(--help for all options)\n";
  return 2;
}

int parse_or_help(const std::vector<std::string>& args, const std::string& usage, const po::options_description& opts,
                  const po::positional_options_description* positional, po::variables_map& vm,
                  const po::options_description* hidden) {
  po::options_description all;
  all.add(opts);
  all.add_options()("help,h", "show this help");
  po::options_description parsed;
  parsed.add(all);
  if (hidden) parsed.add(*hidden);
  try {
    auto parser = po::command_line_parser(args).options(parsed);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), vm);
    if (vm.count("help")) {
      std::cout << usage << "\n" << all << "\n";
      return 0;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    return usage_error(e, usage);
  }
  return -1;
}

std::string checkpoint_usage(const std::string& sbatch_template) {
  return "Checkpoints: every finished tile is on disk at once; SIGTERM or SIGUSR1 finishes the tiles in\n"
         "flight and exits 0 with the file resumable; --resume continues it (" + sbatch_template + ").";
}

void ScoringGroup::add_to(po::options_description& opts) {
  po::options_description group("scoring");
  group.add_options()
    ("matrix", po::value(&matrix_)->default_value(matrix_),
     "BLOSUM45/50/62/80/90, PAM30/70/250, or an NCBI-format matrix file")
    ("gapopen", po::value(&gap_open_)->default_value(gap_open_),
     "gap open cost (BLAST convention: a gap of length k costs open + k*extend)")
    ("gapextend", po::value(&gap_extend_)->default_value(gap_extend_), "gap extension cost per residue");
  if (lambda_)
    group.add_options()
      ("lambda", po::value(&lambda_value_), "Karlin-Altschul lambda (with --K) for matrix/gap pairs without published values")
      ("K", po::value(&K_value_), "Karlin-Altschul K (with --lambda)");
  opts.add(group);
}

void ScoringGroup::apply(const po::variables_map& vm) {
  // A gap of length k costs open + k*extend: extend 0 would make gaps free to lengthen.
  if (gap_open_ < 0 || gap_extend_ < 1) throw po::error("gap costs must satisfy --gapopen >= 0 and --gapextend >= 1");
  if (!lambda_) return;
  if (vm.count("lambda") != vm.count("K")) throw po::error("--lambda and --K go together");
  if (!vm.count("lambda")) return;
  if (!(lambda_value_ > 0) || !(K_value_ > 0)) throw po::error("--lambda and --K must be positive");
  *lambda_ = lambda_value_;
  *K_ = K_value_;
}

void RunGroup::add_to(po::options_description& opts) {
  po::options_description group("run");
  group.add_options()
    ("backend", po::value(&backend_)->default_value(backend_), "auto (the GPUs when one is visible, else the CPU), cpu or cuda")
    ("threads", po::value(&threads_)->default_value(threads_), "CPU threads (0: the CPUs this job may use (affinity mask, cgroup quota or OMP_NUM_THREADS), shared among local ranks)")
    ("progress-interval", po::value(&progress_interval_)->default_value(progress_interval_),
     "seconds between progress lines on stderr when it is not a terminal (batch jobs; 0: none)")
    ("verbose,v", po::bool_switch(&verbose_), "log the plan (tile sizes, devices)")
    ("quiet", po::bool_switch(&quiet_), "no progress, warnings or summary on stderr")
    ("resume", po::bool_switch(&resume_),
     "continue the unfinished run in -o (same inputs and options; refused otherwise); starts afresh when -o does "
     "not exist");
  opts.add(group);
}

void RunGroup::apply() const { Progress::set_default_batch_interval(progress_interval_); }

std::string blast_residue_usage() {
  return "Residues (the matrix's letters): the 20 amino acids, B, Z, X and '*' (stop) score from the\n"
         "matrix; U, O and J score as X (a warning counts them); a '*' ending a sequence is dropped; lower\n"
         "case is upper case; any other character is an error naming file and line. blastp 2.12 agrees\n"
         "except on U (it scores U as C), J (a row of its own) and a final '*' (kept).\n";
}

std::string hmmer_residue_usage() {
  return "Residues (HMMER's rules, as hmmsearch 3.3.2 reads targets): U scores as C and O as K; B, J, Z\n"
         "and X score as the background-weighted mean over D/N, I/L, E/Q and all 20; '*' (also a final\n"
         "one, counted in the length) and '.', '_', '~' are HMMER's nonresidue (no match state emits\n"
         "them); lower case is upper case; '-' and any other character are errors naming file and line.\n"
         "A makedb file holds BLAST's reading (U/O/J as X): give the FASTA file for HMMER's.\n";
}

}  // namespace hpc::cli
