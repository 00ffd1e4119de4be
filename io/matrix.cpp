#include "io/matrix.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "io/builtin_matrices.hpp"
#include "src/core/error.hpp"

namespace hpc {

namespace {

constexpr int kStandardAminoAcids = 20;  // codes 0..19; B Z X * follow
constexpr int kMaxAbsScore = 1000;       // keeps every kernel's arithmetic far from overflow
constexpr int kStopSelfScore = 1;        // NCBI tables all score *-* as +1

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// Code of a matrix letter token; -1 for letters this tool does not score (J, O, U:
// they read as X). Throws for tokens that are not a letter or '*'.
int letter_code(const std::string& token, const std::string& source, long line) {
  const unsigned char c = static_cast<unsigned char>(token[0]);
  if (token.size() != 1 || !(std::isalpha(c) || c == '*'))
    throw InputError(source, line, "'" + token + "' is not a residue letter");
  if (is_rare_letter(c)) return -1;
  return encode_residue(c);
}

int parse_score(const std::string& token, const std::string& source, long line) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(token.c_str(), &end, 10);
  if (end == token.c_str() || *end != '\0' || errno == ERANGE)
    throw InputError(source, line, "'" + token + "' is not an integer score");
  if (v < -kMaxAbsScore || v > kMaxAbsScore)
    throw InputError(source, line, "score " + token + " is out of range (at most " +
                                       std::to_string(kMaxAbsScore) + " in magnitude)");
  return static_cast<int>(v);
}

// Gives B, Z, X, * a score where the file has none (rule documented in io/matrix.hpp).
void fill_missing_letters(ScoreMatrix& m, const std::array<bool, kAlphabetSize>& have) {
  int minimum = INT_MAX;
  for (int a = 0; a < kAlphabetSize; ++a)
    for (int b = 0; b < kAlphabetSize; ++b)
      if (have[a] && have[b]) minimum = std::min(minimum, m.score[a][b]);

  if (!have[kCodeX])
    for (int r = 0; r < kAlphabetSize; ++r) m.score[kCodeX][r] = m.score[r][kCodeX] = minimum;
  for (int missing : {20, 21}) {  // B, Z copy X's row and column
    if (have[missing]) continue;
    for (int r = 0; r < kAlphabetSize; ++r) {
      m.score[missing][r] = m.score[kCodeX][r];
      m.score[r][missing] = m.score[r][kCodeX];
    }
    m.score[missing][missing] = m.score[kCodeX][kCodeX];
  }
  if (!have[kCodeStop]) {
    for (int r = 0; r < kAlphabetSize; ++r) m.score[kCodeStop][r] = m.score[r][kCodeStop] = minimum;
    m.score[kCodeStop][kCodeStop] = kStopSelfScore;
  }
}

}  // namespace

std::vector<std::string> builtin_matrix_names() {
  std::vector<std::string> names;
  for (size_t i = 0; i < kBuiltinMatrixCount; ++i) names.push_back(kBuiltinMatrices[i].name);
  return names;
}

ScoreMatrix parse_ncbi_matrix(std::istream& in, const std::string& source) {
  ScoreMatrix m;
  m.name = source;
  std::vector<int> columns;  // code of each header column, -1 = ignored letter
  std::array<bool, kAlphabetSize> have_column{}, have_row{};
  long header_line = 0, line_no = 0;
  size_t rows_read = 0;

  for (std::string line; std::getline(in, line);) {
    ++line_no;
    const std::vector<std::string> words = split_words(line);
    if (words.empty() || words[0][0] == '#') continue;

    if (columns.empty()) {  // the first non-comment line is the header
      header_line = line_no;
      for (const std::string& w : words) {
        const int code = letter_code(w, source, line_no);
        if (code >= 0 && have_column[code])
          throw InputError(source, line_no, "letter '" + w + "' appears twice in the header");
        if (code >= 0) have_column[code] = true;
        columns.push_back(code);
      }
      continue;
    }

    if (words[0].size() != 1 || !(std::isalpha(static_cast<unsigned char>(words[0][0])) || words[0] == "*"))
      throw InputError(source, line_no, "row does not start with a residue letter (found '" + words[0] + "')");
    const int row = letter_code(words[0], source, line_no);
    if (words.size() - 1 != columns.size())
      throw InputError(source, line_no, "row '" + words[0] + "' has " + std::to_string(words.size() - 1) +
                                            " scores, the header has " + std::to_string(columns.size()) +
                                            " letters");
    ++rows_read;
    if (row < 0) continue;  // a J/O/U row: those letters score as X
    if (!have_column[row])
      throw InputError(source, line_no, "row letter '" + words[0] + "' is not in the header (matrix not square)");
    if (have_row[row]) throw InputError(source, line_no, "row '" + words[0] + "' appears twice");
    have_row[row] = true;
    for (size_t j = 0; j < columns.size(); ++j) {
      const int score = parse_score(words[j + 1], source, line_no);
      if (columns[j] >= 0) m.score[row][columns[j]] = score;
    }
  }

  if (columns.empty()) throw InputError(source, 0, "no header row of residue letters (empty matrix file?)");
  if (rows_read != columns.size())
    throw InputError(source, line_no, "matrix not square: " + std::to_string(columns.size()) +
                                          " columns but " + std::to_string(rows_read) + " rows");
  for (int code = 0; code < kAlphabetSize; ++code)
    if (have_column[code] && !have_row[code])
      throw InputError(source, line_no, std::string("matrix not square: no row for '") + kAlphabetLetters[code] + "'");
  for (int code = 0; code < kStandardAminoAcids; ++code)
    if (!have_column[code])
      throw InputError(source, header_line,
                       std::string("amino acid '") + kAlphabetLetters[code] + "' is missing from the matrix");
  fill_missing_letters(m, have_row);
  return m;
}

ScoreMatrix load_matrix(const std::string& name_or_path) {
  const std::string wanted = upper(name_or_path);
  for (size_t i = 0; i < kBuiltinMatrixCount; ++i) {
    const BuiltinMatrix& b = kBuiltinMatrices[i];
    if (wanted != b.name) continue;
    ScoreMatrix m;
    m.name = b.name;
    for (int r = 0; r < kAlphabetSize; ++r)
      for (int c = 0; c < kAlphabetSize; ++c) m.score[r][c] = b.score[r][c];
    return m;
  }

  struct stat st {};
  if (stat(name_or_path.c_str(), &st) != 0) {
    std::string names;
    for (const std::string& n : builtin_matrix_names()) names += (names.empty() ? "" : ", ") + n;
    throw Error("unknown matrix '" + name_or_path + "': not a built-in matrix (" + names +
                ") and no such file");
  }
  if (S_ISDIR(st.st_mode)) throw InputError(name_or_path, 0, "is a directory, not a matrix file");
  std::ifstream in(name_or_path);
  if (!in) throw InputError(name_or_path, 0, std::string("cannot open matrix file: ") + std::strerror(errno));
  return parse_ncbi_matrix(in, name_or_path);
}

}  // namespace hpc
