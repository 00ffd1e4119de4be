#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"
#include "src/cli/text_output.hpp"
#include "src/stats/search_statistics.hpp"
#include "src/workloads/search.hpp"

namespace hpc::cli {

int search(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi) {
  SearchOptions o;
  ScoringGroup scoring(o.matrix, o.gap_open, o.gap_extend, &o.lambda, &o.K);
  RunGroup run(o.run);
  OutputGroup output(o.run.out_path, "hits");
  po::options_description opts("search options");
  add_query_file(opts, o.query_path);
  add_database_file(opts, o.db_path);
  opts.add_options()
    ("max-hits", po::value(&o.max_hits)->default_value(o.max_hits), "hits reported per query (BLAST's -max_target_seqs)")
    ("evalue", po::value(&o.max_evalue)->default_value(o.max_evalue), "report hits with E-value <= this");
  output.add_to(opts);
  scoring.add_to(opts);
  run.add_to(opts);
  // --- E-value statistics (src/stats/search_statistics.hpp) ---
  opts.add_options()
    ("stats", po::value(&o.stats)->default_value(o.stats), "E-value statistics: ka, blast, comp, regress, regress-comp or regress-qcomp (see below; --lambda/--K imply ka)")
    ("rescore", po::value(&o.rescore.top)->default_value(o.rescore.top),
     "N: permutation E-values for each query's N best hits by E-value (below; 0: none)");
  add_permutation_options(opts, o.rescore.shuffles, o.rescore.seed);
  po::variables_map vm;
  const std::string usage =
      "usage: hpcalign search -q QUERIES.fa -d DB (-o OUT.h5 | -o - | --format F) [options]\n"
      "Smith-Waterman (affine gaps) of every query against every database sequence; keeps the best\n"
      "--max-hits per query (by raw score; those within --evalue) with bit scores, E-values (--stats,\n"
      "below) and alignments (CIGAR, coordinates, identity). Gap costs use BLAST's convention: a gap\n"
      "of length k costs gapopen + k*gapextend (ssearch36 -f -11 -g -1 for 11/1; EMBOSS -gapopen 12).\n" +
      blast_residue_usage() + checkpoint_usage("jobs/search.sbatch") + "\n" + stats_modes_help() + rescore_help() + "\n" + output_usage();
  if (int rc = parse_or_help(args, usage, opts, nullptr, vm); rc >= 0) return rc;
  try {
    scoring.apply(vm);
    // User-given lambda and K have no finite-size tables: they imply ka unless --stats says otherwise.
    if (vm.count("lambda") && vm["stats"].defaulted()) o.stats = "ka";
    run.apply();
    output.prepare({o.query_path, o.db_path}, o.run.resume, mpi.is_master(), {"", "", o.query_path, o.db_path, ""});
  } catch (const po::error& e) {
    return usage_error(e, usage);
  }
  o.command_line = command_line;
  return output.finish(run_search(o, mpi), mpi.is_master());
}

}  // namespace hpc::cli
