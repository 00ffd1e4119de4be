#pragma once
// Shared Boost.Program_options plumbing for the subcommands.
#include <boost/program_options.hpp>
#include <iostream>
#include <string>
#include <vector>

namespace hpc::cli {

namespace po = boost::program_options;

// Parses args into vm. Returns -1 to go on, or the exit code to return now (help printed: 0;
// usage error printed: 2).
int parse_or_help(const std::vector<std::string>& args, const std::string& usage, const po::options_description& opts,
                  const po::positional_options_description* positional, po::variables_map& vm);

// --resume and the checkpoint paragraph of the usage text, the same for every tiled workload.
void add_resume_option(po::options_description& opts, bool& resume);
std::string checkpoint_usage(const std::string& sbatch_template);
// How sequences' letters are read: BLAST's rules (search, allvsall, pss) or HMMER's (msv).
std::string blast_residue_usage();
std::string hmmer_residue_usage();

}  // namespace hpc::cli
