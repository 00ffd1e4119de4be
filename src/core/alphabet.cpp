#include "src/core/alphabet.hpp"

namespace hpc {

static std::array<uint8_t, 256> build_codes(ResidueRules rules) {
  std::array<uint8_t, 256> t{};
  t.fill(kInvalidCode);
  for (int i = 0; i < kAlphabetSize; ++i) {
    unsigned char c = static_cast<unsigned char>(kAlphabetLetters[i]);
    t[c] = static_cast<uint8_t>(i);
    if (c >= 'A' && c <= 'Z') t[c + 32] = static_cast<uint8_t>(i);
  }
  if (rules == ResidueRules::kBlast) {
    for (char c : {'U', 'O', 'J', 'u', 'o', 'j'}) t[static_cast<unsigned char>(c)] = kCodeX;
    return t;
  }
  for (int i = 0; kHmmerExtraLetters[i]; ++i) {
    const unsigned char c = static_cast<unsigned char>(kHmmerExtraLetters[i]);
    t[c] = t[c + 32] = static_cast<uint8_t>(kAlphabetSize + i);
  }
  for (char c : {'.', '_', '~'}) t[static_cast<unsigned char>(c)] = kCodeStop;
  return t;
}

const std::array<uint8_t, 256>& residue_codes(ResidueRules rules) {
  static const std::array<uint8_t, 256> blast = build_codes(ResidueRules::kBlast);
  static const std::array<uint8_t, 256> hmmer = build_codes(ResidueRules::kHmmer);
  return rules == ResidueRules::kBlast ? blast : hmmer;
}

std::string decode(const uint8_t* codes, size_t n) {
  std::string s(n, '?');
  for (size_t i = 0; i < n; ++i) s[i] = decode_residue(codes[i]);
  return s;
}

}  // namespace hpc
