#pragma once
// Shared Boost.Program_options plumbing for the subcommands, and the option groups every
// command declares the same way (one spelling, one default, one validation each):
//   ScoringGroup  --matrix --gapopen --gapextend [--lambda --K]
//   RunGroup      --backend --threads --verbose --quiet --resume --progress-interval
//   OutputGroup   -o/--out --format --force     (src/cli/text_output.hpp)
//   HmmsearchGroup  hmmsearch's own options, under its names (-o -A -E -T --domE ... --cpu)
#include <boost/program_options.hpp>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "src/workloads/hmmsearch.hpp"
#include "src/workloads/run_settings.hpp"

namespace hpc::cli {

namespace po = boost::program_options;

// Parses args into vm. Returns -1 to go on, or the exit code to return now (help printed: 0;
// usage error printed: 2). Options in `hidden` parse but are not listed by --help.
int parse_or_help(const std::vector<std::string>& args, const std::string& usage, const po::options_description& opts,
                  const po::positional_options_description* positional, po::variables_map& vm,
                  const po::options_description* hidden = nullptr);

std::string checkpoint_usage(const std::string& sbatch_template);
// How sequences' letters are read: BLAST's rules (search, allvsall, pss) or HMMER's (msv).
std::string blast_residue_usage();
std::string hmmer_residue_usage();

// Substitution matrix and gap costs; Karlin-Altschul overrides where the command has statistics.
class ScoringGroup {
 public:
  // lambda/K null: the command has no --lambda/--K (pss fits its own).
  ScoringGroup(std::string& matrix, int& gap_open, int& gap_extend, std::optional<double>* lambda = nullptr,
               std::optional<double>* K = nullptr)
      : matrix_(matrix), gap_open_(gap_open), gap_extend_(gap_extend), lambda_(lambda), K_(K) {}
  void add_to(po::options_description& opts);
  // After parsing: the overrides, validated (both or neither, positive); throws po::error.
  void apply(const po::variables_map& vm);

 private:
  std::string& matrix_;
  int &gap_open_, &gap_extend_;
  std::optional<double>*lambda_, *K_;
  double lambda_value_ = 0, K_value_ = 0;
};

// How a tiled run executes and reports.
class RunGroup {
 public:
  explicit RunGroup(RunSettings& run)
      : backend_(run.backend), threads_(run.threads), verbose_(run.verbose), quiet_(run.quiet), resume_(run.resume) {}
  void add_to(po::options_description& opts);
  // Sets the progress interval of every Progress of the run.
  void apply() const;
  double progress_interval() const { return progress_interval_; }

 private:
  std::string& backend_;
  int& threads_;
  bool &verbose_, &quiet_, &resume_;
  double progress_interval_ = 30;
};

// hmmsearch's --F1 and --F2 (MSV/bias and Viterbi filter P-value thresholds): msv and hmmsearch.
void add_filter_thresholds(po::options_description& opts, double& F1, double& F2);

// HMMER 3.3.2 hmmsearch's options with its names, defaults and meanings (its thresholds,
// filters and outputs), into HmmsearchOptions; --h5 names the HDF5 result.
class HmmsearchGroup {
 public:
  explicit HmmsearchGroup(HmmsearchOptions& o) : o_(o) {}
  void add_to(po::options_description& opts);
  // After parsing: hmmsearch's incompatibilities and ranges (throws po::error), -Z, the cut-off.
  void apply(const po::variables_map& vm);

 private:
  HmmsearchOptions& o_;
  double Z_ = 0;
  int cpu_ = -1;
  bool cut_ga_ = false, cut_tc_ = false, cut_nc_ = false, max_ = false, nobias_ = false, nonull2_ = false;
  bool noali_ = false, notextw_ = false;
  int textw_ = 120;
  int64_t seed_ = 42;
  void apply_output_options(const po::variables_map& vm);
};

// Re-parse errors of apply() the way parse errors are reported (exit 2 with the usage).
int usage_error(const po::error& e, const std::string& usage);

}  // namespace hpc::cli
