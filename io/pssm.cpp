#include "io/pssm.hpp"

#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "src/core/error.hpp"

namespace hpc {
namespace {

std::vector<std::string> split_words(const std::string& line) {
  std::istringstream is(line);
  std::vector<std::string> words;
  for (std::string w; is >> w;) words.push_back(w);
  return words;
}

bool parse_int(const std::string& s, long& v) {
  char* end = nullptr;
  v = std::strtol(s.c_str(), &end, 10);
  return !s.empty() && *end == '\0';
}

// The header line: its first 20 words are single letters naming the 20 standard residues.
bool is_header(const std::vector<std::string>& w) {
  if (w.size() < 20) return false;
  for (int k = 0; k < 20; ++k)
    if (w[k].size() != 1 || encode_residue(w[k][0]) >= 20) return false;
  return true;
}

int floor_half(int a, int b) { return int(std::floor((a + b) / 2.0)); }

}  // namespace

Pssm parse_ascii_pssm(const std::string& text, const std::string& source) {
  Pssm out;
  out.source = source;
  std::istringstream in(text);
  std::string line;
  long lineno = 0;
  int column_code[20];
  bool have_header = false;
  std::vector<int32_t>& scores = out.profile.scores;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto w = split_words(line);
    if (!have_header) {
      if (!is_header(w)) continue;  // title lines before the header
      bool seen[20] = {false};
      for (int k = 0; k < 20; ++k) {
        column_code[k] = encode_residue(w[k][0]);
        if (seen[column_code[k]]) throw InputError(source, lineno, "PSSM header repeats residue " + w[k]);
        seen[column_code[k]] = true;
      }
      have_header = true;
      continue;
    }
    if (w.empty()) {
      if (!out.residues.empty()) break;  // the blank line that ends the rows
      continue;
    }
    long pos = 0;
    if (!parse_int(w[0], pos)) {
      if (!out.residues.empty()) break;  // footer without the blank line
      throw InputError(source, lineno, "PSSM has no rows: expected '<position> <residue> <20 scores>', got: " + line);
    }
    if (pos != long(out.residues.size()) + 1)
      throw InputError(source, lineno, "PSSM position " + std::to_string(pos) + " out of order (expected " +
                                           std::to_string(out.residues.size() + 1) + ")");
    if (w.size() < 22) throw InputError(source, lineno, "PSSM row has fewer than 20 scores");
    if (w[1].size() != 1 || encode_residue(w[1][0]) == kInvalidCode)
      throw InputError(source, lineno, "PSSM row residue '" + w[1] + "' is not a residue letter");
    int row[kAlphabetSize];
    for (int k = 0; k < 20; ++k) {
      long v = 0;
      if (!parse_int(w[2 + k], v) || v < -1000 || v > 1000)
        throw InputError(source, lineno, "PSSM score '" + w[2 + k] + "' is not an integer in [-1000, 1000]");
      row[column_code[k]] = int(v);
    }
    row[20] = floor_half(row[3], row[2]);   // B: D or N
    row[21] = floor_half(row[6], row[5]);   // Z: E or Q
    row[kCodeX] = kPssmScoreX;
    row[kCodeStop] = kPssmScoreStop;
    scores.insert(scores.end(), row, row + kAlphabetSize);
    out.residues.push_back(char(std::toupper(static_cast<unsigned char>(w[1][0]))));
  }
  if (!have_header) throw InputError(source, 0, "not a PSI-BLAST ASCII PSSM: no header line with the 20 residue columns");
  if (out.residues.empty()) throw InputError(source, lineno, "PSSM has no rows");
  out.profile.length = uint32_t(out.residues.size());
  return out;
}

Pssm read_ascii_pssm(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path, 0, "cannot open PSSM file");
  std::ostringstream ss;
  ss << f.rdbuf();
  return parse_ascii_pssm(ss.str(), path);
}

}  // namespace hpc
