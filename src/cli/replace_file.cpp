#include "src/cli/replace_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "src/core/error.hpp"
#include "src/core/rename_over.hpp"

namespace hpc::cli {

void write_then_rename(const std::string& path, const std::function<void(const std::string& tmp)>& write) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;  // follows links
  // /dev/null, /dev/stdout, a pipe: written in place. Renaming over one would replace the
  // device node or pipe by a regular file (hmmsearch's users often write `-o /dev/null`).
  if (exists && !S_ISREG(st.st_mode)) {
    write(path);
    return;
  }
  // A link to a file: the file it names is replaced, the link stays.
  const std::string target = exists ? std::filesystem::canonical(path).string() : path;
  // Beside the target (same file system, so rename is atomic); the pid keeps concurrent runs apart.
  const std::string tmp = target + ".tmp." + std::to_string(::getpid());
  if (::access(tmp.c_str(), F_OK) == 0)
    throw Error("the temporary name " + tmp + " for " + path + " exists; refusing to write over it");
  try {
    write(tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (const int failed = rename_over(tmp, target)) {
    const std::string why = std::strerror(failed);
    std::remove(tmp.c_str());
    throw Error("cannot rename " + tmp + " to " + target + ": " + why);
  }
}

void write_text_file(const std::string& path, const std::string& text) {
  write_then_rename(path, [&](const std::string& tmp) {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    f.close();
    if (!f) throw Error("cannot write " + tmp);
  });
}

}  // namespace hpc::cli
