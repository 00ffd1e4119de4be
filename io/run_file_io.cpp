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
