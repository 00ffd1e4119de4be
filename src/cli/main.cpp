// hpcalign: GPU-accelerated protein sequence alignment for HPC clusters.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "kernels/device_environment.hpp"
#include "src/cli/commands.hpp"
#include "src/cli/version.hpp"
#include "src/core/driver_teardown_exit.hpp"
#include "src/core/error.hpp"
#include "src/core/tuning.hpp"

namespace {

const char* kUsage =
    "usage: hpcalign <command> [options]   (hpcalign <command> --help for its options)\n"
    "\n"
    "commands:\n"
    "  search   Smith-Waterman search of queries against a protein database (HDF5 hits)\n"
    "  allvsall every pair of a sequence set (or A x B) aligned: local, global, semiglobal\n"
    "  makedb   encode a FASTA database into an HDF5 database file for fast loading\n"
    "  pss      pairwise statistical significance (permutations, Gumbel fit, P-values)\n"
    "  view     print a result file (BLAST tabular: --format blast6)\n"
    "  merge    join search results of query shards (job arrays) into one file\n"
    "  msv      HMMER3 profile search filters (MSV, bias, Viterbi), exact to HMMER 3.3.2\n"
    "  hmmsearch HMMER 3.3.2's hmmsearch (its options; --tblout/--domtblout identical)\n"
    "  hmmscan  HMMER 3.3.2's hmmscan: sequences against a model library (--tblout/--domtblout identical)\n"
    "\n"
    "Runs as one process (threads, one per GPU or the CPU backend) or under mpirun/srun\n"
    "(rank 0 plans and writes the HDF5 file, the other ranks compute, one per GPU).\n"
    "hpcalign --help-tuning lists the HPCALIGN_* environment variables (tuning, tests).\n";

}  // namespace

int main(int argc, char** argv) {
  // Before MPI, which may start CUDA, and before any thread.
  if (argc > 1) hpc::set_cuda_environment_defaults(argv[1], std::vector<std::string>(argv + 2, argv + argc));
  try {
    hpc::check_tuning_environment();  // a bad HPCALIGN_* value stops every rank before MPI starts
  } catch (const std::exception& e) {
    std::cerr << "hpcalign: error: " << e.what() << "\n";
    return 1;
  }
  hpc::MpiContext mpi = hpc::mpi_start(&argc, &argv);
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
  std::vector<std::string> args(argv + std::min(argc, 2), argv + argc);
  const std::string cmd = argc > 1 ? argv[1] : "";
  int rc = 0;
  try {
    if (cmd == "search")
      rc = hpc::cli::search(args, command_line, mpi);
    else if (cmd == "allvsall")
      rc = hpc::cli::allvsall(args, command_line, mpi);
    else if (cmd == "makedb")
      rc = hpc::cli::makedb(args);
    else if (cmd == "pss")
      rc = hpc::cli::pss(args, command_line, mpi);
    else if (cmd == "view")
      rc = hpc::cli::view(args);
    else if (cmd == "merge")
      rc = hpc::cli::merge(args, command_line);
    else if (cmd == "msv")
      rc = hpc::cli::msv(args, command_line, mpi);
    else if (cmd == "hmmsearch")
      rc = hpc::cli::hmmsearch(args, command_line, mpi);
    else if (cmd == "hmmscan")
      rc = hpc::cli::hmmscan(args, command_line, mpi);
    else if (cmd == "--version" || cmd == "version")
      hpc::cli::print_version(std::cout);
    else if (cmd == "--help-tuning")
      hpc::print_tunables(std::cout, args.size() == 1 && args[0] == "--markdown");
    else if (cmd == "--help" || cmd == "-h" || cmd == "help")
      std::cout << kUsage;
    else {
      std::cerr << (cmd.empty() ? std::string() : "hpcalign: unknown command '" + cmd + "'\n") << kUsage;
      rc = 2;
    }
  } catch (const std::exception& e) {
    std::cerr << "hpcalign: error: " << (mpi.active && !mpi.is_master() ? "rank " + std::to_string(mpi.rank) + ": " : "")
              << e.what() << "\n";
    if (mpi.active && mpi.size > 1) hpc::mpi_abort(mpi, 1);
    rc = 1;
  }
  hpc::mpi_stop(mpi);
  // Every output is written and closed: the GPU driver's teardown need not hold up the caller.
  if (!mpi.active) hpc::exit_leaving_driver_teardown(rc);
  return rc;
}
