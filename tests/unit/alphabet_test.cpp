// src/core/alphabet.cpp: codes in NCBI matrix order, case folding, rare letters, invalid bytes.
#include <gtest/gtest.h>

#include <string>

#include "src/core/alphabet.hpp"

namespace hpc {
namespace {

TEST(Alphabet, CodesFollowNcbiMatrixOrder) {
  const std::string letters = "ARNDCQEGHILKMFPSTWYVBZX*";
  ASSERT_EQ(letters.size(), size_t(kAlphabetSize));
  for (int i = 0; i < kAlphabetSize; ++i) {
    EXPECT_EQ(encode_residue(letters[i]), i) << letters[i];
    EXPECT_EQ(decode_residue(uint8_t(i)), letters[i]);
  }
  EXPECT_EQ(encode_residue('X'), kCodeX);
  EXPECT_EQ(encode_residue('*'), kCodeStop);
}

TEST(Alphabet, LowerCaseFolds) {
  for (char c = 'a'; c <= 'z'; ++c) EXPECT_EQ(encode_residue(c), encode_residue(char(c - 32))) << c;
}

TEST(Alphabet, RareLettersScoreAsX) {
  for (char c : std::string("UOJuoj")) {
    EXPECT_EQ(encode_residue(c), kCodeX) << c;
    EXPECT_TRUE(is_rare_letter(c)) << c;
  }
  for (char c : std::string("AXBZxz*")) EXPECT_FALSE(is_rare_letter(c)) << c;
}

TEST(Alphabet, NonResiduesAreInvalid) {
  int letters = 0;
  for (int b = 0; b < 256; ++b) {
    const bool letter = (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z');
    if (letter) ++letters;
    if (letter || b == '*')
      EXPECT_LT(encode_residue(uint8_t(b)), kAlphabetSize) << b;
    else
      EXPECT_EQ(encode_residue(uint8_t(b)), kInvalidCode) << b;
  }
  EXPECT_EQ(letters, 52);
}

// HMMER's rules (Easel's amino alphabet, esl_alphabet.c create_amino): U, O, J codes of their
// own; '*' and the gap/missing symbols '.', '_', '~' the nonresidue; '-' and digits invalid.
TEST(Alphabet, HmmerRules) {
  const auto& t = residue_codes(ResidueRules::kHmmer);
  EXPECT_EQ(t['U'], kCodeU);
  EXPECT_EQ(t['o'], kCodeO);
  EXPECT_EQ(t['J'], kCodeJ);
  for (char c : std::string("*._~")) EXPECT_EQ(t[uint8_t(c)], kCodeStop) << c;
  for (char c : std::string("-1 #")) EXPECT_EQ(t[uint8_t(c)], kInvalidCode) << c;
  for (char c : std::string("ARNDCQEGHILKMFPSTWYVBZXarndbzx"))
    EXPECT_EQ(t[uint8_t(c)], encode_residue(c)) << c;  // the rest as BLAST's rules read them
  EXPECT_EQ(decode_residue(kCodeU), 'U');
  EXPECT_EQ(decode_residue(kCodeJ), 'J');
  EXPECT_EQ(decode_residue(kHmmerAlphabetSize), '?');
}

TEST(Alphabet, DecodeRoundTrips) {
  const std::string text = "MKV*BZX";
  std::vector<uint8_t> codes;
  for (char c : text) codes.push_back(encode_residue(c));
  EXPECT_EQ(decode(codes.data(), codes.size()), text);
  EXPECT_EQ(decode_residue(kHmmerAlphabetSize), '?');
  EXPECT_EQ(decode_residue(kInvalidCode), '?');
}

}  // namespace
}  // namespace hpc
