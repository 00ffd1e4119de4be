#include "io/run_file_io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "src/core/error.hpp"

namespace hpc {

void StagedRun::put(WireWriter& w) const {
  w.put(file);
  w.put(offset);
  w.put(rows);
  w.put(extra);
  w.put(tile);
}

StagedRun StagedRun::get(WireReader& r) {
  StagedRun s;
  s.file = r.get_string();
  s.offset = r.get<uint64_t>();
  s.rows = r.get<uint64_t>();
  s.extra = r.get<uint64_t>();
  s.tile = r.get<uint32_t>();
  return s;
}

RecordHeader RecordHeader::of(const char* kind, uint32_t tile, uint64_t rows, uint64_t extra) {
  RecordHeader h{};
  std::memcpy(h.magic, kind, 4);
  h.tile = tile, h.rows = rows, h.extra = extra;
  return h;
}

bool RecordHeader::matches(const char* kind, const StagedRun& run) const {
  return std::memcmp(magic, kind, 4) == 0 && tile == run.tile && rows == run.rows && extra == run.extra;
}

std::string sys_error(const std::string& what, const std::string& path) {
  return "cannot " + what + " " + path + ": " + std::strerror(errno);
}

AppendOnlyFile::~AppendOnlyFile() {
  if (fd_ >= 0) ::close(fd_);
}

void AppendOnlyFile::open() {
  if (fd_ >= 0) return;
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(sys_error("open the result run file", path_));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw Error(sys_error("stat", path_));
  size_ = uint64_t(st.st_size);
}

uint64_t AppendOnlyFile::size() {
  open();
  return size_;
}

void AppendOnlyFile::append(iovec* parts, int count) {
  open();
  while (count > 0) {
    const ssize_t n = ::writev(fd_, parts, std::min(count, IOV_MAX));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(sys_error("write the result run file", path_));
    size_ += uint64_t(n);
    size_t done = size_t(n);
    for (; count > 0 && done >= parts->iov_len; --count, ++parts) done -= parts->iov_len;
    if (count > 0) parts->iov_base = static_cast<char*>(parts->iov_base) + done, parts->iov_len -= done;
  }
}

StagedRun RecordFile::append(const char* kind, uint32_t tile, uint64_t rows, uint64_t extra, std::vector<iovec> parts) {
  const StagedRun run{name_, file_.size(), rows, extra, tile};
  RecordHeader h = RecordHeader::of(kind, tile, rows, extra);
  parts.insert(parts.begin(), {&h, sizeof h});
  file_.append(parts.data(), int(parts.size()));
  return run;
}

bool is_whole_record(const std::string& dir, const StagedRun& run, const char* kind, uint64_t bytes) {
  const std::string path = dir + "/" + run.file;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  RecordHeader h{};
  struct stat st {};
  const bool ok = ::fstat(fd, &st) == 0 && uint64_t(st.st_size) >= run.offset + bytes &&
                  pread_exactly(fd, &h, sizeof h, run.offset) && h.matches(kind, run);
  ::close(fd);
  return ok;
}

bool pread_exactly(int fd, void* to, uint64_t n, uint64_t at) {
  char* p = static_cast<char*>(to);
  while (n > 0) {
    const ssize_t k = ::pread(fd, p, size_t(std::min<uint64_t>(n, 1u << 30)), off_t(at));
    if (k < 0 && errno == EINTR) continue;
    if (k == 0) errno = 0;
    if (k <= 0) return false;
    p += k, n -= uint64_t(k), at += uint64_t(k);
  }
  return true;
}

void pwrite_exactly(int fd, const void* from, uint64_t n, uint64_t at, const std::string& path) {
  const char* p = static_cast<const char*>(from);
  while (n > 0) {
    const ssize_t k = ::pwrite(fd, p, size_t(std::min<uint64_t>(n, 1u << 30)), off_t(at));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) throw Error(sys_error("write the result run file", path));
    p += k, n -= uint64_t(k), at += uint64_t(k);
  }
}

RunFileHandles::~RunFileHandles() {
  for (const auto& f : fds_) ::close(f.second);
}

int RunFileHandles::fd(const std::string& name) {
  auto it = fds_.find(name);
  if (it == fds_.end()) {
    const std::string p = path(name);
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(sys_error("open the result run file", p));
    it = fds_.emplace(name, fd).first;
  }
  return it->second;
}

}  // namespace hpc
