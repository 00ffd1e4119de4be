#include "src/core/printf_string.hpp"

#include <cstdarg>
#include <cstdio>

namespace hpc {

std::string printf_string(const char* fmt, ...) {
  va_list args, copy;
  va_start(args, fmt);
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string s(size_t(n) + 1, '\0');
  std::vsnprintf(s.data(), s.size(), fmt, args);
  va_end(args);
  s.resize(size_t(n));
  return s;
}

}  // namespace hpc
