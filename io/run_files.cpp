#include "io/run_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include "io/hit_table.hpp"
#include "src/core/error.hpp"

namespace hpc {
namespace {

constexpr char kMagic[4] = {'H', 'P', 'R', '1'};
struct Header {
  char magic[4];
  uint32_t tile;
  uint64_t rows, chars;
};
static_assert(sizeof(Header) == 24, "the record header is 24 bytes on every platform we build for");

// Bytes per row of each column, in for_each_row_column order without identity.
constexpr uint64_t kColumnBytes[10] = {4, 4, 4, 8, 8, 4, 4, 4, 4, 8};
constexpr uint64_t kRowBytes = 52;

// Where column `column` of a record of `rows` rows starts, from the record's first byte
// (column 10: the characters).
uint64_t column_offset(uint64_t rows, size_t column) {
  uint64_t at = sizeof(Header);
  for (size_t k = 0; k < column; ++k) at += kColumnBytes[k] * rows;
  return at;
}

uint64_t record_bytes(uint64_t rows, uint64_t chars) { return sizeof(Header) + kRowBytes * rows + chars; }

std::string sys_error(const std::string& what, const std::string& path) {
  return "cannot " + what + " " + path + ": " + std::strerror(errno);
}

void write_all(int fd, iovec* parts, int count, const std::string& path) {
  while (count > 0) {
    const ssize_t n = ::writev(fd, parts, std::min(count, IOV_MAX));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(sys_error("write the result run file", path));
    size_t done = size_t(n);
    for (; count > 0 && done >= parts->iov_len; --count, ++parts) done -= parts->iov_len;
    if (count > 0) parts->iov_base = static_cast<char*>(parts->iov_base) + done, parts->iov_len -= done;
  }
}

}  // namespace

void StagedRun::put(WireWriter& w) const {
  w.put(file);
  w.put(offset);
  w.put(rows);
  w.put(chars);
  w.put(tile);
}

StagedRun StagedRun::get(WireReader& r) {
  StagedRun s;
  s.file = r.get_string();
  s.offset = r.get<uint64_t>();
  s.rows = r.get<uint64_t>();
  s.chars = r.get<uint64_t>();
  s.tile = r.get<uint32_t>();
  return s;
}

std::string run_directory_for(const std::string& out_path) { return out_path + ".runs"; }

// Only files this module names ("w<worker>", "master") are ever removed: a directory of that
// name holding anything else loses nothing else.
static void remove_run_files(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const bool ours = name == "master" || (name.size() > 1 && name[0] == 'w' &&
                                           name.find_first_not_of("0123456789", 1) == std::string::npos);
    if (ours && entry.is_regular_file(ec)) std::filesystem::remove(entry.path(), ec);
  }
}

void prepare_run_directory(const std::string& dir, bool empty) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw Error("cannot create the directory of result runs " + dir + ": " + (ec ? ec.message() : "not a directory"));
  if (empty) remove_run_files(dir);
}

void remove_run_directory(const std::string& dir) {
  remove_run_files(dir);
  std::error_code ec;
  std::filesystem::remove(dir, ec);  // only when empty; a leftover directory costs disk, not results
}

RunFileWriter::~RunFileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

StagedRun RunFileWriter::write(uint32_t tile, std::vector<Hit>& rows) {
  const std::string path = dir_ + "/" + name_;
  if (fd_ < 0) {
    // Appending, never truncating: records of earlier sessions may be journalled.
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error(sys_error("open the result run file", path));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw Error(sys_error("stat", path));
    size_ = uint64_t(st.st_size);
  }
  // hit_order from packed keys (sorting the rows themselves moved strings around).
  struct Key {
    uint64_t query_score;
    uint32_t target, row;
    bool operator<(const Key& o) const {
      return query_score != o.query_score ? query_score < o.query_score : target < o.target;
    }
  };
  std::vector<Key> keys(rows.size());
  for (size_t i = 0; i < rows.size(); ++i)
    keys[i] = {hit_order_key(rows[i].query, rows[i].aln.score), rows[i].target, uint32_t(i)};
  // Rows already grouped by query (an engine's pair order) need only each query's few rows sorted.
  const auto query_of = [](const Key& k) { return uint32_t(k.query_score >> 32); };
  if (std::is_sorted(keys.begin(), keys.end(), [&](const Key& a, const Key& b) { return query_of(a) < query_of(b); })) {
    for (auto first = keys.begin(); first != keys.end();) {
      const auto last = std::find_if(first, keys.end(), [&](const Key& k) { return query_of(k) != query_of(*first); });
      std::sort(first, last);
      first = last;
    }
  } else {
    std::sort(keys.begin(), keys.end());
  }
  std::vector<const Hit*> sorted(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) sorted[i] = &rows[keys[i].row];
  HitTableColumns c = hit_table_columns(sorted, 0, false);

  StagedRun run{name_, size_, c.rows(), c.cigar_chars.size(), tile};
  Header h{};
  std::memcpy(h.magic, kMagic, 4);
  h.tile = tile;
  h.rows = run.rows;
  h.chars = run.chars;
  std::vector<iovec> parts{{&h, sizeof h}};
  c.for_each_row_column(false, [&](const char*, auto& column) {
    parts.push_back({column.data(), column.size() * sizeof(column[0])});
  });
  parts.push_back({c.cigar_chars.data(), c.cigar_chars.size()});
  write_all(fd_, parts.data(), int(parts.size()), path);
  size_ += record_bytes(run.rows, run.chars);
  return run;
}

bool is_whole(const std::string& dir, const StagedRun& run) {
  const std::string path = dir + "/" + run.file;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Header h{};
  struct stat st {};
  const bool ok = ::fstat(fd, &st) == 0 && uint64_t(st.st_size) >= run.offset + record_bytes(run.rows, run.chars) &&
                  ::pread(fd, &h, sizeof h, off_t(run.offset)) == ssize_t(sizeof h) &&
                  std::memcmp(h.magic, kMagic, 4) == 0 && h.tile == run.tile && h.rows == run.rows &&
                  h.chars == run.chars;
  ::close(fd);
  return ok;
}

RunFiles::RunFiles(const std::string& dir, std::vector<StagedRun> runs) : dir_(dir), runs_(std::move(runs)) {
  std::map<std::string, int> open;
  for (const StagedRun& r : runs_) {
    auto it = open.find(r.file);
    if (it == open.end()) {
      const std::string path = dir_ + "/" + r.file;
      const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) throw Error(sys_error("open the result run file", path));
      fds_.push_back(fd);
      it = open.emplace(r.file, fd).first;
    }
    run_fd_.push_back(it->second);
  }
}

RunFiles::~RunFiles() {
  for (int fd : fds_) ::close(fd);
}

void RunFiles::read_at(size_t r, uint64_t offset, uint64_t bytes, void* out) const {
  char* to = static_cast<char*>(out);
  uint64_t at = runs_[r].offset + offset;
  while (bytes > 0) {
    const ssize_t n = ::pread(run_fd_[r], to, size_t(std::min<uint64_t>(bytes, 1u << 30)), off_t(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error(n == 0 ? dir_ + "/" + runs_[r].file + " ends inside tile " + std::to_string(runs_[r].tile) + "'s rows"
                         : sys_error("read", dir_ + "/" + runs_[r].file));
    to += n, at += uint64_t(n), bytes -= uint64_t(n);
  }
}

void RunFiles::read(size_t r, size_t column, uint64_t first, uint64_t n, void* out) const {
  read_at(r, column_offset(runs_[r].rows, column) + first * kColumnBytes[column], n * kColumnBytes[column], out);
}

uint64_t RunFiles::chars_before(size_t r, uint64_t row) const {
  uint64_t end = 0;
  if (row > 0) read(r, 9, row - 1, 1, &end);
  return end;
}

void RunFiles::read_chars(size_t r, uint64_t first, uint64_t n, uint8_t* out) const {
  read_at(r, column_offset(runs_[r].rows, 10) + first, n, out);
}

}  // namespace hpc
