#pragma once
// -o/--out, --format and --force for every workload, and the text the run prints when it is over.
//   -o OUT.h5              the HDF5 result only
//   -o OUT.h5 --format F   the HDF5 result, then its text in format F on stdout
//   -o - [--format F]      text only: the HDF5 result goes to a temporary file (removed at the end)
//   --format F (no -o)     the same as -o -
// Text is rendered from the finished file by `view`'s code (src/workloads/view.hpp), once the run
// completed; a run stopped by a signal prints none (its file stays resumable; a temporary one is
// kept and named). While text goes to stdout, what the workload prints there (msv's pipeline
// counts) goes to stderr.
#include <memory>
#include <string>
#include <vector>

#include "src/cli/options.hpp"
#include "src/cli/output_safety.hpp"
#include "src/workloads/view.hpp"

namespace hpc::cli {

class OutputGroup {
 public:
  // `out_path`: the workload's output field, set to the real (or temporary) HDF5 path by prepare().
  // `kind`: what the workload writes, for the formats it accepts ("hits", "pss" or "msv").
  OutputGroup(std::string& out_path, std::string kind);
  ~OutputGroup();
  void add_to(po::options_description& opts);
  // After parsing, before the run (every rank calls it; only `master` checks and creates files):
  // refuses a format the workload's result has not (before hours of work), resolves `-o -`,
  // refuses unsafe outputs (src/cli/output_safety.hpp). `sequences`: where the
  // text's sequence columns read residues (query file, target file).
  void prepare(const std::vector<std::string>& inputs, bool resume, bool master, ViewRequest sequences = {});
  bool writes_text() const { return !format_.empty() || text_only_; }
  // After the run: prints the text (master only) and returns the exit code.
  int finish(int run_rc, bool master);

 private:
  struct StdoutToStderr;
  std::string& out_path_;
  std::string kind_, format_;
  bool force_ = false, text_only_ = false;
  bool keep_temp_ = false;
  ViewRequest view_;
  std::unique_ptr<StdoutToStderr> redirect_;
};

// The -o/--format paragraph and the formats, for every workload's --help.
std::string output_usage();

// A temporary HDF5 path (in $TMPDIR or /tmp), created empty so the name is ours.
std::string make_temp_output();

}  // namespace hpc::cli
