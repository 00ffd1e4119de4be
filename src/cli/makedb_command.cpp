#include <cmath>
#include <iostream>

#include "io/database.hpp"
#include "io/fasta.hpp"
#include "io/synthetic_database.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"
#include "src/cli/output_safety.hpp"
#include "src/cli/replace_file.hpp"

namespace hpc::cli {

namespace {
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
}  // namespace

int makedb(const std::vector<std::string>& args) {
  std::string in, out;
  bool force = false, synthetic = false;
  double residues = 0;
  uint64_t seed = 1;
  po::options_description opts("makedb options");
  opts.add_options()
    ("input,i", po::value(&in), "protein FASTA (plain or .gz)")
    ("out,o", po::value(&out)->required(), "database to write: HDF5 (.h5), or FASTA (.fa, .fa.gz) with --synthetic")
    ("synthetic", po::bool_switch(&synthetic), "generate a synthetic database instead of reading one")
    ("residues", po::value(&residues), "--synthetic: residues to generate (at least; e.g. 207e6)")
    ("seed", po::value(&seed)->default_value(1), "--synthetic: which database (same seed, same sequences everywhere)");
  add_force(opts, force);
  po::positional_options_description pos;
  pos.add("input", 1).add("out", 1);
  po::variables_map vm;
  const std::string usage =
      "usage: hpcalign makedb DB.fa -o DB.h5     (or: hpcalign makedb DB.fa DB.h5)\n"
      "       hpcalign makedb --synthetic --residues N [--seed S] -o OUT.h5|OUT.fa|OUT.fa.gz\n"
      "Encodes the sequences once (residues, offsets, ids, length-sorted order) so searches load the\n"
      "database without parsing FASTA. `search -d DB.h5` accepts the result. The file is written under a\n"
      "temporary name and renamed when complete; an existing file is replaced only with --force.\n"
      "--synthetic generates the benchmarks' database: sequences syn0, syn1, ... with Swiss-Prot's\n"
      "amino-acid frequencies and log-normal lengths (median 290, mean ~350), identical on every\n"
      "machine for a given seed (bench/search.sh uses --residues 207e6 --seed 1).";
  if (int rc = parse_or_help(args, usage, opts, &pos, vm); rc >= 0) return rc;
  if (synthetic == !in.empty() || (synthetic && !(residues >= 1 && residues <= 1e12 && residues == std::floor(residues)))) {
    std::cerr << "hpcalign: makedb takes an input FASTA or --synthetic with --residues N (a whole number, 1..1e12)\n"
              << usage << "\n(--help for all options)\n";
    return 2;
  }
  check_output_is_safe(out, {in}, OutputPolicy{false, force, false});
  const bool hdf5 = ends_with(out, ".h5");
  FastaReport report;
  Database db = synthetic ? make_database(synthetic_database(uint64_t(residues), seed))
                          : load_database(in, ResidueRules::kBlast, &report);
  warn_fasta_report(in, report);
  write_then_rename(out, [&](const std::string& tmp) {
    if (hdf5 || !synthetic)
      write_database(db, tmp);
    else
      write_fasta(db.seqs, tmp, ends_with(out, ".gz"));
  });
  std::cerr << "hpcalign: " << db.seqs.size() << " sequences, " << db.seqs.total_residues() << " residues written to " << out
            << "\n";
  return 0;
}

}  // namespace hpc::cli
