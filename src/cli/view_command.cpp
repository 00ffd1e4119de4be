#include <iostream>

#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"
#include "src/workloads/view.hpp"

namespace hpc::cli {

int view(const std::vector<std::string>& args) {
  ViewRequest r;
  po::options_description opts("view options");
  opts.add_options()
    ("file", po::value(&r.path)->required(), "hpcalign result file (HDF5)")
    ("format", po::value(&r.format), "the workload's default: blast6 (search, allvsall), tsv (pss), tblout (msv)")
    ("query,q", po::value(&r.query_path), "query FASTA or makedb file, when the run's (query_file attribute) moved")
    ("db,d", po::value(&r.target_path), "target FASTA or makedb file, when the run's (database/target_file) moved (msv: descriptions)")
    ("models,m", po::value(&r.model_path), "msv: the model file, when the run's (model_file attribute) moved");
  po::positional_options_description pos;
  pos.add("file", 1);
  po::variables_map vm;
  const std::string usage =
      std::string("usage: hpcalign view OUT.h5 [--format F] [-q QUERIES -d DB] [-m MODELS]\n"
                  "Prints a result file of any workload as text. qseq, sseq, positive, ppos and pairwise read the\n"
                  "residues from the files the run read (checked: same ids and lengths), or from -q/-d; stitle,\n"
                  "salltitles, qheader and theader the titles, from FASTA files only (makedb files keep no titles).\n"
                  "FORMATS: ") +
      kFormatHelp;
  if (int rc = parse_or_help(args, usage, opts, &pos, vm); rc >= 0) return rc;
  return run_view(r, std::cout, std::cerr);
}

}  // namespace hpc::cli
