#pragma once
// One function per subcommand; each parses its own options (Boost.Program_options)
// and returns the exit code. Usage errors exit 2, run errors 1.
#include <string>
#include <vector>

#include "mpi/scheduler.hpp"

namespace hpc::cli {

int search(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi);
int allvsall(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi);
int makedb(const std::vector<std::string>& args);
int view(const std::vector<std::string>& args);
int merge(const std::vector<std::string>& args, const std::string& command_line);
int msv(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi);
int hmmsearch(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi);
int hmmscan(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi);
int pss(const std::vector<std::string>& args, const std::string& command_line, const MpiContext& mpi);

}  // namespace hpc::cli
