#include <stdlib.h>
#include <unistd.h>

#include <cstdio>

#include "io/tile_journal.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/hmmer_command.hpp"
#include "src/cli/options.hpp"
#include "src/cli/output_safety.hpp"
#include "src/cli/replace_file.hpp"
#include "src/core/error.hpp"
#include "src/workloads/hmmsearch.hpp"

namespace hpc::cli {
namespace {

// Without --h5 the driver's HDF5 file (and journal) live in a temporary file, removed at the end.
std::string temporary_h5() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/hpcalign_hmmsearch_XXXXXX.h5";
  const int fd = ::mkstemps(path.data(), 3);
  if (fd < 0) throw Error("cannot create a temporary file in " + std::string(dir && *dir ? dir : "/tmp"));
  ::close(fd);
  return path;
}

}  // namespace

int hmmer_command(const HmmerCommand& command, const std::vector<std::string>& args, const std::string& command_line,
                  const MpiContext& mpi) {
  HmmsearchOptions o;
  o.scan = command.scan;
  RunGroup run(o.run);
  HmmsearchGroup hmmer(o);
  po::options_description opts(command.name + " options");
  hmmer.add_to(opts);
  run.add_to(opts);
  po::options_description inputs;
  inputs.add_options()
    ("hmmfile", po::value(&o.model_path)->required(), "HMMER3 model file")
    ("seqdb", po::value(&o.db_path)->required(), "target database");
  po::positional_options_description positional;
  positional.add("hmmfile", 1).add("seqdb", 1);
  po::variables_map vm;
  const std::string& usage = command.usage;
  if (int rc = parse_or_help(args, usage, opts, &positional, vm, &inputs); rc >= 0) return rc;
  try {
    run.apply();
    hmmer.apply(vm);
    if (o.run.resume && o.run.out_path.empty()) throw po::error("--resume needs --h5 FILE (the run to continue)");
  } catch (const po::error& e) {
    return usage_error(e, usage);
  }
  if (mpi.is_master()) {
    // Like hmmsearch, outputs are overwritten; never an input, nor an unfinished run without --resume.
    const std::vector<std::string> in = {o.model_path, o.db_path};
    if (!o.run.out_path.empty()) check_output_is_safe(o.run.out_path, in, {o.run.resume, true, true});
    for (const std::string* text : {&o.report_path, &o.msa_path, &o.tblout_path, &o.domtblout_path, &o.pfamtblout_path})
      for (const std::string& input : in)
        if (!text->empty() && same_file(*text, input)) throw Error(*text + " is an input; refusing to write over it");
  }
  o.command_line = command_line;
  o.write_text = write_text_file;
  const bool temporary = o.run.out_path.empty();
  if (temporary && mpi.is_master()) o.run.out_path = temporary_h5();
  struct RemoveTemporary {
    const std::string& path;
    bool on;
    ~RemoveTemporary() {
      if (on) std::remove(path.c_str()), std::remove(TileJournal::path_for(path).c_str());
    }
  } remove_temporary{o.run.out_path, temporary && mpi.is_master()};
  return run_hmmsearch(o, mpi);
}

int hmmsearch(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi) {
  const std::string usage =
      "usage: hpcalign hmmsearch [options] <hmmfile> <seqdb>\n"
      "HMMER 3.3.2's hmmsearch: each model of <hmmfile> against every sequence of <seqdb> (FASTA, plain\n"
      "or .gz, or a makedb file), with hmmsearch's option names and meanings. Its pipeline (MSV, bias,\n"
      "Viterbi and Forward filters, Forward/Backward, domain definition, null2, E-values) runs tiled\n"
      "(models x database partitions) over threads, GPUs or MPI ranks like the other workloads; on a\n"
      "GPU the MSV and Viterbi filters run there, the rest on the host's threads.\n"
      "-o (else stdout) is hmmsearch's report: per query its hit list, domain tables, alignments\n"
      "and pipeline statistics (our own banner, no CPU time lines); -A its Stockholm alignment of\n"
      "the included domains; --tblout, --domtblout and --pfamtblout its tables (without the trailing\n"
      "'# Program:' comment block). --h5 FILE keeps every target and domain of the hit lists with the pass\n"
      "counts (resumable with --resume).\n" +
      hmmer_residue_usage() + checkpoint_usage("--resume with the same --h5");
  return hmmer_command({"hmmsearch", usage, false}, args, command_line, mpi);
}

}  // namespace hpc::cli
