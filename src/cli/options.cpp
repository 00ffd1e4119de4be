#include "src/cli/options.hpp"

namespace hpc::cli {

int parse_or_help(const std::vector<std::string>& args, const std::string& usage, const po::options_description& opts,
                  const po::positional_options_description* positional, po::variables_map& vm) {
  po::options_description all;
  all.add(opts);
  all.add_options()("help,h", "show this help");
  try {
    auto parser = po::command_line_parser(args).options(all);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), vm);
    if (vm.count("help")) {
      std::cout << usage << "\n" << all << "\n";
      return 0;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "hpcalign: " << e.what() << "\n" << usage << "\n(--help for all options)\n";
    return 2;
  }
  return -1;
}

void add_resume_option(po::options_description& opts, bool& resume) {
  opts.add_options()("resume", po::bool_switch(&resume),
                     "continue the unfinished run in --out (same inputs and options; refused otherwise); starts "
                     "afresh when --out does not exist");
}

std::string checkpoint_usage(const std::string& sbatch_template) {
  return "Checkpoints: every finished tile is on disk at once; SIGTERM or SIGUSR1 finishes the tiles in\n"
         "flight and exits 0 with the file resumable; --resume continues it (" + sbatch_template + ").";
}

std::string blast_residue_usage() {
  return "Residues (BLAST's rules): the 20 amino acids, B, Z, X and '*' (stop) score from the matrix;\n"
         "U, O and J score as X (a warning counts them); a '*' ending a sequence is dropped; lower case\n"
         "is upper case; any other character is an error naming file and line.\n";
}

std::string hmmer_residue_usage() {
  return "Residues (HMMER's rules, as hmmsearch 3.3.2 reads targets): U scores as C and O as K; B, J, Z\n"
         "and X score as the background-weighted mean over D/N, I/L, E/Q and all 20; '*' (also a final\n"
         "one, counted in the length) and '.', '_', '~' are HMMER's nonresidue (no match state emits\n"
         "them); lower case is upper case; '-' and any other character are errors naming file and line.\n"
         "A makedb file holds BLAST's reading (U/O/J as X): give the FASTA file for HMMER's.\n";
}

}  // namespace hpc::cli
