#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"
#include "src/workloads/msv.hpp"

namespace hpc::cli {

int msv(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi) {
  MsvOptions o;
  po::options_description opts("msv options");
  opts.add_options()
    ("models,m", po::value(&o.model_path)->required(), "HMMER3 model file (one or many models, plain or .gz; protein)")
    ("db,d", po::value(&o.db_path)->required(), "database: FASTA (plain or .gz) or a `hpcalign makedb` file")
    ("out,o", po::value(&o.out_path)->required(), "output HDF5 file")
    ("F1", po::value(&o.F1)->default_value(0.02), "MSV and bias filter P-value threshold (hmmsearch --F1)")
    ("F2", po::value(&o.F2)->default_value(1e-3), "Viterbi filter P-value threshold (hmmsearch --F2)")
    ("stages", po::value(&o.stages)->default_value("msv,bias,vit"), "filters to run: msv | msv,bias | msv,bias,vit")
    ("backend", po::value(&o.backend)->default_value("auto"), "auto, cpu or cuda")
    ("all", po::bool_switch(&o.all_pairs), "write every (model, target) pair, not only survivors")
    ("threads", po::value(&o.threads)->default_value(0), "CPU worker threads (0: all cores)")
    ("verbose,v", po::bool_switch(&o.verbose), "log the plan (tiles, workers)")
    ("quiet", po::bool_switch(&o.quiet), "no progress or summary on stderr");
  add_resume_option(opts, o.resume);
  po::variables_map vm;
  const std::string usage =
      "usage: hpcalign msv -m MODELS.hmm -d DB -o OUT.h5 [options]\n"
      "HMMER3 profile search filters exactly as HMMER 3.3.2's hmmsearch computes them: the MSV filter\n"
      "(P <= F1 from the model's STATS LOCAL MSV), the composition bias filter (same threshold) and\n"
      "the Viterbi filter (P <= F2 from STATS LOCAL VITERBI). Prints hmmsearch's pipeline counts per\n"
      "model on stdout and writes the surviving pairs (or all pairs with --all) to HDF5.\n"
      "Models: HMMER3/a..f text files as hmmbuild, hmmconvert and Pfam releases write them (GA/TC/NC\n"
      "cut-offs ending in ';', BM/SM lines); a file may mix formats (hmmsearch refuses that).\n" +
      hmmer_residue_usage() + checkpoint_usage("jobs/msv.sbatch");
  if (int rc = parse_or_help(args, usage, opts, nullptr, vm); rc >= 0) return rc;
  o.command_line = command_line;
  return run_msv(o, mpi);
}

}  // namespace hpc::cli
