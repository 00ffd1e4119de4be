#pragma once
// Errors the user can act on. InputError carries the file and line so every
// message reads "file:line: what is wrong": the user can go straight to the bad input.
#include <stdexcept>
#include <string>

namespace hpc {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class InputError : public Error {
 public:
  InputError(const std::string& file, long line, const std::string& what)
      : Error(format(file, line, what)), file_(file), line_(line) {}
  const std::string& file() const { return file_; }
  long line() const { return line_; }

 private:
  static std::string format(const std::string& file, long line, const std::string& what) {
    return line > 0 ? file + ":" + std::to_string(line) + ": " + what : file + ": " + what;
  }
  std::string file_;
  long line_;
};

// A device ran out of memory on one piece of work. Distinguishable from other errors so
// that the driver splits the tile into smaller ones (src/workloads/tile_splits.hpp).
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

}  // namespace hpc
