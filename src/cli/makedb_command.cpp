#include <iostream>

#include "io/database.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"

namespace hpc::cli {

int makedb(const std::vector<std::string>& args) {
  std::string in, out;
  po::options_description opts("makedb options");
  opts.add_options()
    ("input", po::value(&in)->required(), "protein FASTA (plain or .gz)")
    ("output", po::value(&out)->required(), "HDF5 database file to write");
  po::positional_options_description pos;
  pos.add("input", 1).add("output", 1);
  po::variables_map vm;
  const std::string usage =
      "usage: hpcalign makedb DB.fa DB.h5\n"
      "Encodes the sequences once (residues, offsets, ids, length-sorted order) so searches load the\n"
      "database without parsing FASTA. `search -d DB.h5` accepts the result.";
  if (int rc = parse_or_help(args, usage, opts, &pos, vm); rc >= 0) return rc;
  Database db = load_database(in);
  write_database(db, out);
  std::cerr << "hpcalign: " << db.seqs.size() << " sequences, " << db.seqs.total_residues() << " residues written to " << out
            << "\n";
  return 0;
}

}  // namespace hpc::cli
