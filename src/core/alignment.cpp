#include "src/core/alignment.hpp"

#include <cctype>
#include <charconv>

#include "src/core/error.hpp"

namespace hpc {

CigarStats cigar_stats(std::string_view cigar) {
  CigarStats s;
  uint64_t n = 0;
  bool have_n = false;
  char prev = 0;
  for (char c : cigar) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      n = n * 10 + uint64_t(c - '0');
      have_n = true;
      if (n > UINT32_MAX) throw Error("CIGAR run too long: " + std::string(cigar));
      continue;
    }
    if (!have_n) throw Error("malformed CIGAR (op without length): " + std::string(cigar));
    const uint32_t k = static_cast<uint32_t>(n);
    switch (c) {
      case '=': s.matches += k; s.query_span += k; s.target_span += k; break;
      case 'X': s.mismatches += k; s.query_span += k; s.target_span += k; break;
      case 'I': s.query_span += k; if (prev != 'I') ++s.gap_opens; break;
      case 'D': s.target_span += k; if (prev != 'D') ++s.gap_opens; break;
      default: throw Error(std::string("malformed CIGAR (unknown op '") + c + "'): " + std::string(cigar));
    }
    s.length += k;
    prev = c;
    n = 0;
    have_n = false;
  }
  if (have_n) throw Error("malformed CIGAR (trailing length): " + std::string(cigar));
  return s;
}

std::string cigar_from_reversed_ops(const char* ops, size_t count) {
  // Runs into a stack buffer with to_chars: screens build millions of these.
  std::string cigar;
  char buf[256];
  size_t used = 0;
  for (size_t k = count; k > 0;) {
    const char op = ops[k - 1];
    size_t run = 0;
    while (k > 0 && ops[k - 1] == op) --k, ++run;
    if (used + 24 > sizeof(buf)) cigar.append(buf, used), used = 0;
    used = size_t(std::to_chars(buf + used, buf + sizeof(buf), run).ptr - buf);
    buf[used++] = op;
  }
  cigar.append(buf, used);
  return cigar;
}

}  // namespace hpc
