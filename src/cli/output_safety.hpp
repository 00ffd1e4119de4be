#pragma once
// What a run may write over (checked on rank 0 before anything is created):
//   - never an input: the output, its resume journal (OUT.journal) and any temporary name
//     are compared with every input by filesystem identity (st_dev, st_ino), not by name,
//     so `-o db.fa`, `-o ./db.fa` and a hard link are all refused;
//   - never an unfinished run (status "incomplete", or a journal present): only --resume
//     continues it; to start afresh the user removes it;
//   - an existing complete result, or any other existing file, only with --force.
// Every refusal throws hpc::Error naming the file and the option that would allow it.
#include <string>
#include <vector>

namespace hpc::cli {

struct OutputPolicy {
  bool resume = false;     // the workload's --resume (it checks the file itself)
  bool force = false;      // --force: overwrite a complete result or a foreign file
  bool resumable = true;   // the command writes a journal (tiled workloads)
};

// `inputs`: every file the command reads (empty entries ignored).
void check_output_is_safe(const std::string& out_path, const std::vector<std::string>& inputs,
                          const OutputPolicy& policy);

// True when a and b name the same existing file (same device and inode).
bool same_file(const std::string& a, const std::string& b);

}  // namespace hpc::cli
