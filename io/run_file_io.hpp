#pragma once
// The plain-file calls that the staged run files share (io/run_files.hpp for hits,
// io/row_runs.hpp for fixed-width tables) and the journal: errors that name the file, records
// appended to a file that is never truncated, reads that finish or say why, and each file of a
// run directory opened once however many runs it holds. And what every run record shares: its
// header and its place, which the worker sends and the master journals.
#include <sys/uio.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "src/core/wire.hpp"

namespace hpc {

// Where one tile's record lies in a run directory.
struct StagedRun {
  std::string file;  // name inside the run directory ("w3")
  uint64_t offset = 0;
  uint64_t rows = 0;
  uint64_t extra = 0;  // the record kind's own count: hits' CIGAR characters, a fixed row's bytes
  uint32_t tile = 0;
  void put(WireWriter& w) const;
  static StagedRun get(WireReader& r);
};

// A record's header: its kind (magic), then what its place says of it.
struct RecordHeader {
  char magic[4];
  uint32_t tile;
  uint64_t rows, extra;
  static RecordHeader of(const char* kind, uint32_t tile, uint64_t rows, uint64_t extra);
  bool matches(const char* kind, const StagedRun& run) const;
};
static_assert(sizeof(RecordHeader) == 24, "the record header is 24 bytes on every platform we build for");

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

// One worker's file of records (OUT.runs/<name>), opened at the first append.
class RecordFile {
 public:
  RecordFile(const std::string& dir, std::string name) : name_(std::move(name)), file_(dir + "/" + name_) {}
  // Appends one record, the header (`kind`, tile, rows, extra) then `parts`; returns its place.
  StagedRun append(const char* kind, uint32_t tile, uint64_t rows, uint64_t extra, std::vector<iovec> parts);
  // More bytes of the record appended last (its header's `extra` counted them): a record too
  // large to hold in memory at once is written in pieces; a resume checks it whole.
  void append_more(std::vector<iovec> parts) { file_.append(parts.data(), int(parts.size())); }

 private:
  std::string name_;
  AppendOnlyFile file_;
};

// True when `dir` holds `run`'s record whole (`bytes`, its header included) under a header that
// matches the place (a resume checks a journalled record this way).
bool is_whole_record(const std::string& dir, const StagedRun& run, const char* kind, uint64_t bytes);

// Reads n bytes at `at`: true when all were read; false when the read failed or the file ended
// first (errno then 0), so that hot callers build their messages only on failure.
bool pread_exactly(int fd, void* to, uint64_t n, uint64_t at);

// Writes n bytes at `at`, or throws an Error naming `path`.
void pwrite_exactly(int fd, const void* from, uint64_t n, uint64_t at, const std::string& path);

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
