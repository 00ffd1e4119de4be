#include <iostream>

#include "io/result_file.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"
#include "src/cli/output_safety.hpp"
#include "src/cli/replace_file.hpp"
#include "src/core/error.hpp"
#include "src/workloads/merge.hpp"

namespace hpc::cli {

int merge(const std::vector<std::string>& args, const std::string& command_line) {
  MergeOptions o;
  bool force = false;
  po::options_description opts("merge options");
  opts.add_options()
    ("inputs", po::value(&o.inputs)->multitoken()->required(), "search result files (HDF5), in query order")
    ("out,o", po::value(&o.out_path)->required(), "merged output HDF5 file");
  add_force(opts, force);
  add_quiet(opts, o.quiet);
  po::positional_options_description pos;
  pos.add("inputs", -1);
  po::variables_map vm;
  const std::string usage =
      "usage: hpcalign merge A.h5 B.h5 ... -o ALL.h5\n"
      "Joins search results of query shards against one database (jobs/search-array.sbatch): queries\n"
      "concatenated in argument order, hits re-indexed. Refuses unfinished runs and runs that differ in\n"
      "database, matrix, gap costs, max-hits, E-value cut-off or statistics. Written under a temporary\n"
      "name and renamed when complete.";
  if (int rc = parse_or_help(args, usage, opts, &pos, vm); rc >= 0) return rc;
  check_output_is_safe(o.out_path, o.inputs, OutputPolicy{false, force, false});
  o.command_line = command_line;
  const std::string out = o.out_path;
  const bool quiet = o.quiet;
  o.quiet = true;  // its summary would name the temporary file
  write_then_rename(out, [&](const std::string& tmp) {
    o.out_path = tmp;
    if (int rc = run_merge(o); rc != 0) throw Error("merge failed (exit " + std::to_string(rc) + ")");
  });
  if (!quiet) {
    const HitTable merged = read_hit_table(out);
    std::cerr << "hpcalign: merged " << o.inputs.size() << " runs: " << merged.query_ids.size() << " queries, "
              << merged.hits.size() << " hits written to " << out << "\n";
  }
  return 0;
}

}  // namespace hpc::cli
