#include <iostream>

#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"
#include "src/workloads/view.hpp"

namespace hpc::cli {

int view(const std::vector<std::string>& args) {
  std::string path, format;
  po::options_description opts("view options");
  opts.add_options()
    ("file", po::value(&path)->required(), "hpcalign result file (HDF5)")
    ("format", po::value(&format)->default_value("blast6"),
     "blast6: BLAST -outfmt 6 (qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore);\n"
     "tsv: every column with a header (qseqid sseqid score bits evalue identity qstart qend sstart send cigar);\n"
     "tblout: `hpcalign msv` files, a HMMER-like table (target model msv_bits msv_P bias vit_bits vit_P passed)");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  const std::string usage = "usage: hpcalign view OUT.h5 [--format blast6|tsv|tblout]";
  if (int rc = parse_or_help(args, usage, opts, &pos, vm); rc >= 0) return rc;
  return run_view(path, format, std::cout, std::cerr);
}

}  // namespace hpc::cli
