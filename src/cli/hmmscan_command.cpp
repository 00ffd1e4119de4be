#include "src/cli/commands.hpp"
#include "src/cli/hmmer_command.hpp"
#include "src/cli/options.hpp"

namespace hpc::cli {

int hmmscan(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi) {
  const std::string usage =
      "usage: hpcalign hmmscan [options] <hmmfile> <seqfile>\n"
      "HMMER 3.3.2's hmmscan: each sequence of <seqfile> (FASTA, plain or .gz, or a makedb file) against\n"
      "every model of <hmmfile> (a model library such as Pfam-A.hmm), with hmmscan's option names and\n"
      "meanings. It is hmmsearch's computation (the same pipeline on every (model, sequence) pair, on the\n"
      "CPU, over threads or MPI ranks), listed per query sequence: targets are the models, E-values use\n"
      "Z = the number of models, domZ = the models reported for that sequence, and --cut_ga/tc/nc each\n"
      "model's own cut-offs. <hmmfile> is read as text: hmmscan's hmmpress files (.h3m ...) are neither\n"
      "needed nor read. -o (else stdout) is hmmscan's report: per query sequence its hit list of models,\n"
      "domain tables and alignments and pipeline statistics (our own banner, no CPU time lines); --tblout,\n"
      "--domtblout and --pfamtblout are hmmscan's tables, identical to its own (hmmscan --cpu 1) but for\n"
      "the trailing '# Program:' comment block. --h5 FILE keeps every (model, sequence) hit with its domains,\n"
      "flagged by hmmscan's thresholds, and the pass counts (resumable with --resume). A --cut_ga/tc/nc\n"
      "run needs the cut-off on every model (hmmscan fails only when a model without it reaches its\n"
      "Viterbi filter).\n" +
      hmmer_residue_usage() + checkpoint_usage("--resume with the same --h5");
  return hmmer_command({"hmmscan", usage, true}, args, command_line, mpi);
}

}  // namespace hpc::cli
