#pragma once
// hmmsearch and hmmscan are one command (src/cli/hmmsearch_command.cpp) with two usages: the
// same options (HmmsearchGroup), inputs <hmmfile> <seqfile>, and run (src/workloads/hmmsearch.hpp).
#include <string>
#include <vector>

#include "mpi/scheduler.hpp"

namespace hpc::cli {

struct HmmerCommand {
  std::string name;   // "hmmsearch" or "hmmscan"
  std::string usage;  // --help's text before the options
  bool scan = false;  // hmmscan: hits listed per sequence
};

int hmmer_command(const HmmerCommand& command, const std::vector<std::string>& args, const std::string& command_line,
                  const MpiContext& mpi);

}  // namespace hpc::cli
