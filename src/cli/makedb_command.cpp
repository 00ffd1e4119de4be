#include <cstdio>
#include <iostream>

#include "io/database.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"
#include "src/cli/output_safety.hpp"
#include "src/cli/replace_file.hpp"

namespace hpc::cli {

int makedb(const std::vector<std::string>& args) {
  std::string in, out;
  bool force = false;
  po::options_description opts("makedb options");
  opts.add_options()
    ("input,i", po::value(&in)->required(), "protein FASTA (plain or .gz)")
    ("out,o", po::value(&out)->required(), "HDF5 database file to write")
    ("force", po::bool_switch(&force), "overwrite an existing file (never the input)");
  po::positional_options_description pos;
  pos.add("input", 1).add("out", 1);
  po::variables_map vm;
  const std::string usage =
      "usage: hpcalign makedb DB.fa -o DB.h5     (or: hpcalign makedb DB.fa DB.h5)\n"
      "Encodes the sequences once (residues, offsets, ids, length-sorted order) so searches load the\n"
      "database without parsing FASTA. `search -d DB.h5` accepts the result. The file is written under a\n"
      "temporary name and renamed when complete; an existing DB.h5 is replaced only with --force.";
  if (int rc = parse_or_help(args, usage, opts, &pos, vm); rc >= 0) return rc;
  check_output_is_safe(out, {in}, OutputPolicy{false, force, false});
  Database db = load_database(in);
  write_then_rename(out, [&](const std::string& tmp) { write_database(db, tmp); });
  std::cerr << "hpcalign: " << db.seqs.size() << " sequences, " << db.seqs.total_residues() << " residues written to " << out
            << "\n";
  return 0;
}

}  // namespace hpc::cli
