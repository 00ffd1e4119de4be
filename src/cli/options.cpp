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

}  // namespace hpc::cli
