#include "src/cli/commands.hpp"
#include "src/cli/options.hpp"
#include "src/cli/text_output.hpp"
#include "src/workloads/msv.hpp"

namespace hpc::cli {

int msv(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi) {
  MsvOptions o;
  RunGroup run(o.run);
  OutputGroup output(o.run.out_path, "msv");
  po::options_description opts("msv options");
  opts.add_options()
    ("models,m", po::value(&o.model_path)->required(), "HMMER3 model file (one or many models, plain or .gz; protein)");
  add_database_file(opts, o.db_path);
  opts.add_options()
    ("stages", po::value(&o.stages)->default_value("msv,bias,vit"), "filters to run: msv | msv,bias | msv,bias,vit")
    ("all", po::bool_switch(&o.all_pairs), "write every (model, target) pair, not only survivors");
  add_filter_thresholds(opts, o.F1, o.F2);
  output.add_to(opts);
  run.add_to(opts);
  po::variables_map vm;
  const std::string usage =
      "usage: hpcalign msv -m MODELS.hmm -d DB (-o OUT.h5 | -o - | --format tblout) [options]\n"
      "HMMER3 profile search filters exactly as HMMER 3.3.2's hmmsearch computes them: the MSV filter\n"
      "(P <= F1 from the model's STATS LOCAL MSV), the composition bias filter (same threshold) and\n"
      "the Viterbi filter (P <= F2 from STATS LOCAL VITERBI). Prints hmmsearch's pipeline counts per\n"
      "model on stdout (on stderr while text output goes to stdout) and writes the surviving pairs (or\n"
      "all pairs with --all) to HDF5. --format tblout prints hmmsearch's --tblout table of them: full\n"
      "sequence E-value/score = the Viterbi filter's P x Z and bits, best 1 domain = the MSV filter's,\n"
      "bias 0.0 and domain estimation 0 (not computed by the filters); descriptions from the FASTA.\n"
      "Models: HMMER3/a..f text files as hmmbuild, hmmconvert and Pfam releases write them (GA/TC/NC\n"
      "cut-offs ending in ';', BM/SM lines); a file may mix formats (hmmsearch refuses that).\n" +
      hmmer_residue_usage() + checkpoint_usage("jobs/msv.sbatch") + "\n" + output_usage();
  if (int rc = parse_or_help(args, usage, opts, nullptr, vm); rc >= 0) return rc;
  try {
    run.apply();
    output.prepare({o.model_path, o.db_path}, o.run.resume, mpi.is_master(), {"", "", "", o.db_path, o.model_path});
  } catch (const po::error& e) {
    return usage_error(e, usage);
  }
  o.command_line = command_line;
  return output.finish(run_msv(o, mpi), mpi.is_master());
}

}  // namespace hpc::cli
