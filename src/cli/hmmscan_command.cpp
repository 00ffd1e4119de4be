#include "src/cli/commands.hpp"
#include "src/cli/hmmer_command.hpp"
#include "src/cli/options.hpp"

namespace hpc::cli {

int hmmscan(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi) {
  const std::string usage =
      "usage: hpcalign hmmscan [options] <hmmfile> <seqfile>\n"
      "HMMER 3.3.2's hmmscan: each sequence of <seqfile> (FASTA, plain or .gz, or a makedb file) against\n"
      "every model of <hmmfile> (a model library such as Pfam-A.hmm), with hmmscan's option names and\n"
      "meanings. It is hmmsearch's computation (the same pipeline on every (model, sequence) pair, over\n"
      "threads, GPUs or MPI ranks; on a GPU the MSV and Viterbi filters run there, several models a\n"
      "launch, the rest on the host's threads), listed per query sequence: targets are the models,\n"
      "E-values use Z = the number of models, domZ = the models reported for that sequence, and\n"
      "--cut_ga/tc/nc each model's own cut-offs. <hmmfile> is read as text: hmmscan's hmmpress files\n"
      "(.h3m ...) are neither needed nor read. -o (else stdout) is hmmscan's report: per query sequence\n"
      "its hit list of models, domain tables and alignments and pipeline statistics (our own banner, no\n"
      "CPU time lines); --tblout, --domtblout and --pfamtblout are hmmscan's tables, identical to its own\n"
      "(hmmscan --cpu 1) but for the trailing '# Program:' comment block. --h5 FILE keeps every (model,\n"
      "sequence) hit with its domains, flagged by hmmscan's thresholds, and the pass counts (resumable\n"
      "with --resume). A --cut_ga/tc/nc run needs the cut-off on every model (hmmscan fails only when a\n"
      "model without it reaches its Viterbi filter).\n" +
      hmmer_residue_usage() + checkpoint_usage("--resume with the same --h5");
  return hmmer_command({"hmmscan", usage, true}, args, command_line, mpi);
}

}  // namespace hpc::cli
