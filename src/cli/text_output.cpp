#include "src/cli/text_output.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "io/result_file.hpp"
#include "io/run_files.hpp"
#include "io/tile_journal.hpp"
#include "src/core/error.hpp"

namespace hpc::cli {

// fd 1 points at stderr while the workload runs, so that its stdout lines do not mix with the text.
struct OutputGroup::StdoutToStderr {
  int saved = -1;
  StdoutToStderr() {
    std::fflush(stdout);
    std::cout.flush();
    saved = ::dup(STDOUT_FILENO);
    if (saved >= 0) ::dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  ~StdoutToStderr() {
    std::fflush(stdout);
    std::cout.flush();
    if (saved >= 0) ::dup2(saved, STDOUT_FILENO), ::close(saved);
  }
};

std::string make_temp_output() {
  const char* dir = std::getenv("TMPDIR");
  std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/hpcalign-XXXXXX.h5";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkstemps(name.data(), 3);
  if (fd < 0) throw Error("cannot create a temporary output file like " + pattern);
  ::close(fd);
  return name.data();
}

std::string output_usage() {
  return std::string(
             "Output: -o OUT.h5 writes the HDF5 result; --format F also prints it as text on stdout (as\n"
             "`hpcalign view OUT.h5 --format F` would); -o - (or --format without -o) prints text only. An\n"
             "existing complete OUT is replaced only with --force; an unfinished one only by --resume; an input\n"
             "never.\nFORMATS: ") +
         kFormatHelp;
}

OutputGroup::OutputGroup(std::string& out_path, std::string kind) : out_path_(out_path), kind_(std::move(kind)) {}

OutputGroup::~OutputGroup() {
  redirect_.reset();
  if (text_only_ && !keep_temp_ && !out_path_.empty()) {
    std::remove(out_path_.c_str());
    std::remove(TileJournal::path_for(out_path_).c_str());
    remove_run_directory(run_directory_for(out_path_));  // left by a run that failed
  }
}

void OutputGroup::add_to(po::options_description& opts) {
  po::options_description group("output");
  group.add_options()
    ("out,o", po::value(&out_path_),
     "output HDF5 file; '-': text on stdout only (the HDF5 result goes to a temporary file)")
    ("format", po::value(&format_),
     "also print the result as text on stdout (without -o: text only); see FORMATS above");
  add_force(group, force_);
  opts.add(group);
}

void OutputGroup::prepare(const std::vector<std::string>& inputs, bool resume, bool master, ViewRequest sequences) {
  view_ = std::move(sequences);
  view_.format = format_;
  if (out_path_.empty() && format_.empty()) throw po::error("-o OUT.h5, -o - or --format is required");
  try {
    check_view_format(kind_, format_);
    check_view_inputs(kind_, view_);
  } catch (const Error& e) {
    throw po::error(e.what());
  }
  text_only_ = out_path_.empty() || out_path_ == "-";
  if (text_only_ && resume) throw po::error("--resume needs the unfinished run's file: -o OUT.h5");
  if (text_only_) {
    out_path_ = master ? make_temp_output() : std::string("(rank 0's temporary file)");
    if (!master) return;
  } else if (master) {
    check_output_is_safe(out_path_, inputs, OutputPolicy{resume, force_, true});
  }
  view_.path = out_path_;
  if (master && writes_text()) redirect_ = std::make_unique<StdoutToStderr>();
}

int OutputGroup::finish(int run_rc, bool master) {
  redirect_.reset();
  if (!master || !writes_text() || run_rc != 0) return run_rc;
  if (read_string_attribute(out_path_, "status") != "complete") {
    if (text_only_) keep_temp_ = true;
    std::cerr << "hpcalign: the run did not finish; no text printed" +
                     (text_only_ ? std::string(" (its result is in ") + out_path_ + ": --resume -o " + out_path_ +
                                       " finishes it)"
                                 : std::string())
              << "\n";
    return text_only_ ? 1 : run_rc;
  }
  return run_view(view_, std::cout, std::cerr);
}

}  // namespace hpc::cli
