#include "src/cli/output_safety.hpp"

#include <sys/stat.h>

#include "io/database.hpp"
#include "io/result_file.hpp"
#include "io/tile_journal.hpp"
#include "src/core/error.hpp"

namespace hpc::cli {
namespace {

bool exists(const std::string& path, struct stat* st = nullptr) {
  struct stat s {};
  const bool ok = ::stat(path.c_str(), &s) == 0;
  if (ok && st) *st = s;
  return ok;
}

// "complete", "incomplete", or "" for a file that is no hpcalign result.
std::string result_status(const std::string& path) {
  if (!is_hdf5_file(path)) return "";
  try {
    if (read_string_attribute(path, "program") != "hpcalign") return "";
    return read_string_attribute(path, "status");
  } catch (const Error&) {
    return "";  // unreadable: treated as a foreign file
  }
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return exists(a, &sa) && exists(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

void check_output_is_safe(const std::string& out_path, const std::vector<std::string>& inputs,
                          const OutputPolicy& policy) {
  const std::string journal = TileJournal::path_for(out_path);
  for (const std::string& in : inputs) {
    if (in.empty()) continue;
    if (same_file(out_path, in))
      throw Error("refusing to write the output " + out_path + " over the input file " + in +
                  " (they are the same file); choose another -o");
    if (policy.resumable && same_file(journal, in))
      throw Error("refusing to run: the output's journal " + journal + " is the input file " + in +
                  "; choose another -o");
  }
  struct stat st {};
  const bool have_out = exists(out_path, &st);
  if (have_out && S_ISDIR(st.st_mode)) throw Error(out_path + " is a directory; -o needs a file name");
  if (policy.resume) return;  // the workload checks that the file is its unfinished run
  const bool have_journal = policy.resumable && exists(journal);
  const std::string status = have_out ? result_status(out_path) : "";
  if (have_journal || status == "incomplete")
    throw Error(out_path + " is an unfinished run (" +
                (have_journal ? "its journal " + journal + " is present" : std::string("status 'incomplete'")) +
                "): continue it with --resume, or remove " + out_path + (have_journal ? " and " + journal : "") +
                " to start afresh");
  if (!have_out || policy.force) return;
  if (status == "complete")
    throw Error(out_path + " already holds a complete result; pass --force to overwrite it");
  throw Error(out_path + " exists and is not an hpcalign result file; pass --force to overwrite it");
}

}  // namespace hpc::cli
