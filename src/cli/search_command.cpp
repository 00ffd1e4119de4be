#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"
#include "src/stats/search_statistics.hpp"
#include "src/workloads/search.hpp"

namespace hpc::cli {

int search(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi) {
  SearchOptions o;
  double lambda = 0, K = 0;
  po::options_description opts("search options");
  opts.add_options()
    ("query,q", po::value(&o.query_path)->required(), "query FASTA (plain or .gz)")
    ("db,d", po::value(&o.db_path)->required(), "database: FASTA (plain or .gz) or a `hpcalign makedb` file")
    ("out,o", po::value(&o.out_path)->required(), "output HDF5 file")
    ("matrix", po::value(&o.matrix)->default_value("BLOSUM62"),
     "BLOSUM45/50/62/80/90, PAM30/70/250, or an NCBI-format matrix file")
    ("gapopen", po::value(&o.gap_open)->default_value(11), "gap open cost (BLAST convention: a gap of length k costs open + k*extend)")
    ("gapextend", po::value(&o.gap_extend)->default_value(1), "gap extension cost per residue")
    ("max-hits", po::value(&o.max_hits)->default_value(10), "hits reported per query")
    ("evalue", po::value(&o.max_evalue)->default_value(10.0), "report hits with E-value <= this")
    ("backend", po::value(&o.backend)->default_value("auto"), "auto (GPU when present), cpu or cuda")
    ("threads", po::value(&o.threads)->default_value(0), "CPU backend threads (0: all cores, shared among local ranks)")
    ("lambda", po::value(&lambda), "Karlin-Altschul lambda (with --K) for matrix/gap pairs without published values")
    ("K", po::value(&K), "Karlin-Altschul K (with --lambda)")
    ("progress-interval", po::value(&o.progress_interval)->default_value(30),
     "seconds between progress lines on stderr when it is not a terminal (batch jobs; 0: none)")
    ("verbose,v", po::bool_switch(&o.verbose), "log the plan (tile sizes, devices)")
    ("quiet", po::bool_switch(&o.quiet), "no progress, warnings or summary on stderr");
  add_resume_option(opts, o.resume);
  // --- E-value statistics (src/stats/search_statistics.hpp) ---
  opts.add_options()
    ("stats", po::value(&o.stats)->default_value(o.stats), "E-value statistics: ka, blast, comp or regress (see below; --lambda/--K imply ka)");
  po::variables_map vm;
  const std::string usage =
      "usage: hpcalign search -q QUERIES.fa -d DB -o OUT.h5 [options]\n"
      "Smith-Waterman (affine gaps) of every query against every database sequence; keeps the best\n"
      "--max-hits per query (by raw score; those within --evalue) with bit scores, E-values (--stats,\n"
      "below) and alignments (CIGAR, coordinates, identity). Gap costs use BLAST's convention: a gap\n"
      "of length k costs gapopen + k*gapextend (ssearch36 -f -11 -g -1 for 11/1; EMBOSS -gapopen 12).\n" +
      checkpoint_usage("jobs/search.sbatch") + "\n" + stats_modes_help();
  if (int rc = parse_or_help(args, usage, opts, nullptr, vm); rc >= 0) return rc;
  // User-given lambda and K have no finite-size tables: they imply ka unless --stats says otherwise.
  if (vm.count("lambda") && vm["stats"].defaulted()) o.stats = "ka";
  if (vm.count("lambda")) o.lambda = lambda;
  if (vm.count("K")) o.K = K;
  o.command_line = command_line;
  return run_search(o, mpi);
}

}  // namespace hpc::cli
