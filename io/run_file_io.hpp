#pragma once
// The plain-file calls that the staged run files share (io/run_files.hpp for hits,
// io/row_runs.hpp for fixed-width tables) and the journal: errors that name the file, records
// appended to a file that is never truncated, reads that finish or say why, and each file of a
// run directory opened once however many runs it holds.
#include <sys/uio.h>

#include <cstdint>
#include <map>
#include <string>

namespace hpc {

// "cannot WHAT PATH: <errno's message>".
std::string sys_error(const std::string& what, const std::string& path);

// One worker's run file, opened (created or appended to, never truncated: records of earlier
// sessions may be journalled) at the first append.
class AppendOnlyFile {
 public:
  explicit AppendOnlyFile(std::string path) : path_(std::move(path)) {}
  ~AppendOnlyFile();
  AppendOnlyFile(const AppendOnlyFile&) = delete;
  AppendOnlyFile& operator=(const AppendOnlyFile&) = delete;
  // The file's size before the next append: where the next record starts.
  uint64_t size();
  // Writes the parts one after the other at the end (iovecs are consumed).
  void append(iovec* parts, int count);
  const std::string& path() const { return path_; }

 private:
  void open();
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Reads n bytes at `at`: true when all were read; false when the read failed or the file ended
// first (errno then 0), so that hot callers build their messages only on failure.
bool pread_exactly(int fd, void* to, uint64_t n, uint64_t at);

// Files of one run directory opened for reading, each once, closed together.
class RunFileHandles {
 public:
  explicit RunFileHandles(std::string dir) : dir_(std::move(dir)) {}
  ~RunFileHandles();
  RunFileHandles(const RunFileHandles&) = delete;
  RunFileHandles& operator=(const RunFileHandles&) = delete;
  int fd(const std::string& name);  // opened at its first use
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
  std::map<std::string, int> fds_;
};

}  // namespace hpc
