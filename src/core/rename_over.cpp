#include "src/core/rename_over.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace hpc {

int rename_over(const std::string& from, const std::string& to) {
#if defined(__linux__) && defined(SYS_renameat2)
  struct stat st {};
  constexpr unsigned kExchange = 1u << 1;  // RENAME_EXCHANGE (linux/fs.h)
  if (::lstat(to.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      ::syscall(SYS_renameat2, AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), kExchange) == 0) {
    std::remove(from.c_str());  // the old file; left behind, it would cost disk, not results
    return 0;
  }
#endif
  return std::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

}  // namespace hpc
