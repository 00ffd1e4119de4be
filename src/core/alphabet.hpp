#pragma once
// Protein alphabet. Codes follow the column order of NCBI matrix files:
// A R N D C Q E G H I L K M F P S T W Y V B Z X *  (codes 0..23).
// Two residue rules read sequences into these codes:
//  - the matrix's (search, allvsall, pss, makedb; kBlast): U (selenocysteine), O (pyrrolysine)
//    and J score as X; a '*' ending a sequence is dropped (a stop-codon marker). blastp 2.12
//    agrees on O, '*', B, Z, X and lower case but scores U as C, gives J a row of its own and
//    keeps a final '*' (tests/oracle/blastp_rare_letters_test.cpp).
//  - HMMER's (msv, which claims hmmsearch's results; Easel's amino alphabet): U, O and J get
//    codes of their own after the 24 (hmmsearch scores U as C, O as K, J as the mean over
//    I and L, B over D and N, Z over E and Q, X over all 20: src/hmm/null_model.hpp); '*'
//    and Easel's gap and missing-data symbols '.', '_' and '~' read as the nonresidue '*'
//    (the filters score all four alike), and a final '*' stays a residue.
// Lower case is folded to upper case under both.
#include <array>
#include <cstdint>
#include <string>

namespace hpc {

constexpr int kAlphabetSize = 24;
constexpr char kAlphabetLetters[] = "ARNDCQEGHILKMFPSTWYVBZX*";
constexpr uint8_t kCodeX = 22;
constexpr uint8_t kCodeStop = 23;
constexpr uint8_t kCodeU = 24, kCodeO = 25, kCodeJ = 26;  // HMMER's rules only
constexpr int kHmmerAlphabetSize = 27;
constexpr char kHmmerExtraLetters[] = "UOJ";
constexpr uint8_t kInvalidCode = 0xFF;  // not a residue at all (digits, punctuation, control bytes)

// Byte -> code table; kInvalidCode for bytes that are not residues. Every letter
// has a code: the 23 of the alphabet, and U/O/J (rare letters, scored as X).
enum class ResidueRules { kBlast, kHmmer };
const std::array<uint8_t, 256>& residue_codes(ResidueRules rules = ResidueRules::kBlast);
inline uint8_t encode_residue(unsigned char c) { return residue_codes()[c]; }
inline char decode_residue(uint8_t code) {
  return code < kAlphabetSize ? kAlphabetLetters[code]
         : code < kHmmerAlphabetSize ? kHmmerExtraLetters[code - kAlphabetSize] : '?';
}
std::string decode(const uint8_t* codes, size_t n);
// True for the letters scored as X under kBlast though they name real residues (U, O, J).
inline bool is_rare_letter(unsigned char c) { c &= 0xDF; return c == 'U' || c == 'O' || c == 'J'; }

}  // namespace hpc
