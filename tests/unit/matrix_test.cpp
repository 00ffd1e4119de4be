// io/matrix.cpp: the built-in tables, NCBI-format parsing, the fill rule, and errors.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "io/matrix.hpp"
#include "src/core/alphabet.hpp"
#include "src/core/error.hpp"
#include "test_support.hpp"

namespace hpc {
namespace {

int code(char c) { return encode_residue(static_cast<unsigned char>(c)); }
int at(const ScoreMatrix& m, char a, char b) { return m.score[code(a)][code(b)]; }

bool file_exists(const std::string& path) { return std::ifstream(path).good(); }

ScoreMatrix parse_text(const std::string& text) {
  std::istringstream in(text);
  return parse_ncbi_matrix(in, "test.mat");
}

// A well-formed 20-letter matrix (no B Z X *): 5 on the diagonal, -(i+j)%4 elsewhere.
std::string matrix_text(const std::string& letters = "ARNDCQEGHILKMFPSTWYV") {
  std::string t = "# comment line\n  ";
  for (char c : letters) t += std::string("  ") + c;
  t += "\n";
  for (size_t i = 0; i < letters.size(); ++i) {
    t += letters[i];
    for (size_t j = 0; j < letters.size(); ++j) t += " " + std::to_string(i == j ? 5 : -int((i + j) % 4));
    t += "\n";
  }
  return t;
}

TEST(Matrix, EveryBuiltinLoadsAndIsSymmetric) {
  const std::vector<std::string> names = builtin_matrix_names();
  EXPECT_EQ(names, (std::vector<std::string>{"BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80", "BLOSUM90", "PAM30",
                                             "PAM70", "PAM250"}));
  for (const std::string& name : names) {
    const ScoreMatrix m = load_matrix(name);
    EXPECT_EQ(m.name, name);
    for (int a = 0; a < kAlphabetSize; ++a)
      for (int b = 0; b < kAlphabetSize; ++b) EXPECT_EQ(m.score[a][b], m.score[b][a]) << name << " " << a << "," << b;
    for (int a = 0; a < 20; ++a) EXPECT_GT(m.score[a][a], 0) << name;  // identities score positive
  }
}

TEST(Matrix, BuiltinNamesAreCaseInsensitive) {
  EXPECT_EQ(load_matrix("blosum62").score, load_matrix("BLOSUM62").score);
  EXPECT_EQ(load_matrix("Pam250").name, "PAM250");
}

TEST(Matrix, WellKnownValues) {
  const ScoreMatrix b62 = load_matrix("BLOSUM62");
  EXPECT_EQ(at(b62, 'A', 'A'), 4);
  EXPECT_EQ(at(b62, 'W', 'W'), 11);
  EXPECT_EQ(at(b62, 'C', 'C'), 9);
  EXPECT_EQ(at(b62, 'W', 'C'), -2);
  EXPECT_EQ(at(b62, 'A', 'X'), -1);
  EXPECT_EQ(at(b62, 'N', 'B'), 4);
  EXPECT_EQ(at(b62, '*', 'A'), -4);
  EXPECT_EQ(at(b62, '*', '*'), 1);
  EXPECT_EQ(b62.max_score(), 11);
  EXPECT_EQ(b62.min_score(), -4);
  EXPECT_EQ(at(load_matrix("PAM30"), 'W', 'W'), 13);
  EXPECT_EQ(at(load_matrix("PAM250"), 'W', 'W'), 17);
  EXPECT_EQ(at(load_matrix("BLOSUM80"), 'A', 'A'), 5);  // NCBI's 1/2-bit table, not EMBOSS's 1/3-bit one
  EXPECT_EQ(at(load_matrix("BLOSUM45"), 'C', 'C'), 12);
}

// The built-ins were generated from NCBI's files; parsing those files must give them back.
TEST(Matrix, NcbiFilesParseToTheBuiltins) {
  for (const std::string& name : builtin_matrix_names()) {
    const std::string path = "/usr/share/ncbi/data/" + name;
    ASSERT_TRUE(file_exists(path)) << path << " absent (Debian package ncbi-data)";
    const ScoreMatrix parsed = load_matrix(path);
    EXPECT_EQ(parsed.name, path);
    EXPECT_EQ(parsed.score, load_matrix(name).score) << name;
  }
}

// EMBOSS's EBLOSUM62 has the same amino-acid scores; its B, Z, X differ from NCBI's
// (e.g. A-X 0 there, -1 in BLAST), which is why the built-ins come from NCBI's files.
TEST(Matrix, EmbossBlosum62MatchesOnAminoAcids) {
  const std::string path = "/usr/share/EMBOSS/data/EBLOSUM62";
  ASSERT_TRUE(file_exists(path)) << path << " absent (Debian package emboss-data)";
  const ScoreMatrix emboss = load_matrix(path), builtin = load_matrix("BLOSUM62");
  for (int a = 0; a < 20; ++a)
    for (int b = 0; b < 20; ++b) EXPECT_EQ(emboss.score[a][b], builtin.score[a][b]) << a << "," << b;
  EXPECT_EQ(at(emboss, '*', '*'), 1);
  EXPECT_EQ(at(emboss, 'A', 'X'), 0);
}

TEST(Matrix, MissingLettersAreFilled) {
  const ScoreMatrix m = parse_text(matrix_text());
  EXPECT_EQ(m.name, "test.mat");
  EXPECT_EQ(at(m, 'A', 'A'), 5);
  EXPECT_EQ(at(m, 'A', 'R'), -1);
  EXPECT_EQ(at(m, 'R', 'N'), -3);
  const int minimum = -3;
  for (char c : std::string("ARNDCQEGHILKMFPSTWYVBZX*")) {
    EXPECT_EQ(at(m, 'X', c), minimum) << c;
    EXPECT_EQ(at(m, c, 'X'), minimum) << c;
    if (c != '*') {
      EXPECT_EQ(at(m, '*', c), minimum) << c;
    }
  }
  EXPECT_EQ(at(m, 'B', 'A'), minimum);  // B and Z copy X
  EXPECT_EQ(at(m, 'Z', 'B'), minimum);
  EXPECT_EQ(at(m, '*', '*'), 1);
}

TEST(Matrix, BAndZCopyTheFilesX) {
  std::string text = "A R N D C Q E G H I L K M F P S T W Y V X\n";
  const std::string letters = "ARNDCQEGHILKMFPSTWYVX";
  for (char r : letters) {
    text += r;
    for (char c : letters) text += (r == 'X' || c == 'X') ? (r == c ? " -2" : " -1") : (r == c ? " 4" : " -3");
    text += "\n";
  }
  const ScoreMatrix m = parse_text(text);
  EXPECT_EQ(at(m, 'B', 'A'), -1);
  EXPECT_EQ(at(m, 'A', 'Z'), -1);
  EXPECT_EQ(at(m, 'B', 'B'), -2);
  EXPECT_EQ(at(m, 'X', 'X'), -2);
  EXPECT_EQ(at(m, '*', 'A'), -3);  // the file's minimum
}

TEST(Matrix, RareLettersInTheFileAreIgnored) {
  std::string text = matrix_text("ARNDCQEGHILKMFPSTWYVJU");
  const ScoreMatrix m = parse_text(text);
  EXPECT_EQ(at(m, 'A', 'A'), 5);
  EXPECT_EQ(at(m, 'U', 'A'), at(m, 'X', 'A'));  // U reads as X whatever the file says
}

TEST(Matrix, LoadFromPath) {
  const std::string path = test::temp_dir() + "/my.mat";
  std::ofstream(path) << matrix_text();
  const ScoreMatrix m = load_matrix(path);
  EXPECT_EQ(m.name, path);
  EXPECT_EQ(m.score, parse_text(matrix_text()).score);
}

TEST(Matrix, UnknownNameListsTheBuiltins) {
  const std::string path = test::temp_dir() + "/BLOSUM63";
  try {
    load_matrix(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("BLOSUM62"), std::string::npos) << what;
    EXPECT_NE(what.find("PAM250"), std::string::npos) << what;
  }
}

struct Malformed {
  std::string name, text;
  long line;
  std::string says;
};

TEST(MatrixErrors, MalformedFilesNameTheLine) {
  const std::string good = matrix_text();  // line 1 comment, 2 header, 3.. rows A R N ...
  auto replace_line = [&](int line, const std::string& with) {
    std::istringstream in(good);
    std::string out, l;
    for (int n = 1; std::getline(in, l); ++n) out += (n == line ? with : l) + "\n";
    return out;
  };
  const std::string row_n = "N -1 -3 5 -1 -2 -3 0 -1 -2 -3 0 -1 -2 -3 0 -1 -2 -3 0 -1";
  const std::vector<Malformed> cases = {
      {"comments only", "# nothing\n\n#\n", 0, "header"},
      {"short row", replace_line(5, "N -1 -3 5"), 5, "has 3 scores"},
      {"long row", replace_line(4, "R -1 5 -3 0 -1 -2 -3 0 -1 -2 -3 0 -1 -2 -3 0 -1 -2 -3 0 7"), 4, "has 21"},
      {"non-integer", replace_line(5, "N -1 -3 5 -1 -2 -3 0 -1 -2 -3 0 -1 -2 x3 0 -1 -2 -3 0 -1"), 5, "'x3'"},
      {"fraction", replace_line(5, "N -1 -3 5 -1 -2 -3 0 -1 -2 -3 0 -1 -2 1.5 0 -1 -2 -3 0 -1"), 5, "'1.5'"},
      {"out of range", replace_line(5, "N -1 -3 5000 -1 -2 -3 0 -1 -2 -3 0 -1 -2 -3 0 -1 -2 -3 0 -1"), 5, "range"},
      {"duplicate header letter", replace_line(2, "A R N D C Q E G H I L K M F P S T W Y A"), 2, "twice"},
      {"unknown header token", replace_line(2, "A R N D C Q E G H I L K M F P S T W Y 1"), 2, "'1'"},
      {"duplicate row", replace_line(6, row_n), 6, "twice"},
      {"row letter not in header", replace_line(5, "B -1 -3 5 -1 -2 -3 0 -1 -2 -3 0 -1 -2 -3 0 -1 -2 -3 0 -1"), 5,
       "not in the header"},
      {"row without letter", replace_line(5, "-1 -3 5 -1 -2 -3 0 -1 -2 -3 0 -1 -2 -3 0 -1 -2 -3 0 -1 0"), 5,
       "residue letter"},
      {"missing row", replace_line(22, "# V row removed"), 22, "not square"},
      {"missing amino acid", matrix_text("ARNDCQEGHILKMFPSTYVX"), 2, "'W' is missing"},
  };
  for (const Malformed& c : cases) {
    try {
      parse_text(c.text);
      ADD_FAILURE() << c.name << ": no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), c.line) << c.name << ": " << e.what();
      EXPECT_EQ(e.file(), "test.mat");
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << c.name << ": " << e.what();
    }
  }
}

TEST(MatrixErrors, BadFileOnDiskNamesIt) {
  const std::string path = test::temp_dir() + "/bad.mat";
  std::ofstream(path) << "A R\nA 1 2\nR 2 x\n";
  try {
    load_matrix(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 3);
  }
}

}  // namespace
}  // namespace hpc
