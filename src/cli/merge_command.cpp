#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"
#include "src/workloads/merge.hpp"

namespace hpc::cli {

int merge(const std::vector<std::string>& args, const std::string& command_line) {
  MergeOptions o;
  po::options_description opts("merge options");
  opts.add_options()
    ("inputs", po::value(&o.inputs)->multitoken()->required(), "search result files (HDF5), in query order")
    ("out,o", po::value(&o.out_path)->required(), "merged output HDF5 file")
    ("quiet", po::bool_switch(&o.quiet), "no summary on stderr");
  po::positional_options_description pos;
  pos.add("inputs", -1);
  po::variables_map vm;
  const std::string usage =
      "usage: hpcalign merge A.h5 B.h5 ... -o ALL.h5\n"
      "Joins search results of query shards against one database (jobs/search-array.sbatch): queries\n"
      "concatenated in argument order, hits re-indexed. Refuses unfinished runs and runs that differ in\n"
      "database, matrix, gap costs, max-hits, E-value cut-off or statistics.";
  if (int rc = parse_or_help(args, usage, opts, &pos, vm); rc >= 0) return rc;
  o.command_line = command_line;
  return run_merge(o);
}

}  // namespace hpc::cli
