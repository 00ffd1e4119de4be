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

}  // namespace hpc::cli
