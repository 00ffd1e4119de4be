#pragma once
// Protein alphabet. Codes follow the column order of NCBI matrix files:
// A R N D C Q E G H I L K M F P S T W Y V B Z X *  (codes 0..23).
// As BLAST does, U (selenocysteine), O (pyrrolysine) and J score as X;
// lower case is folded to upper case.
#include <array>
#include <cstdint>
#include <string>

namespace hpc {

constexpr int kAlphabetSize = 24;
constexpr char kAlphabetLetters[] = "ARNDCQEGHILKMFPSTWYVBZX*";
constexpr uint8_t kCodeX = 22;
constexpr uint8_t kCodeStop = 23;
constexpr uint8_t kInvalidCode = 0xFF;  // not a residue at all (digits, punctuation, control bytes)

// Byte -> code table; kInvalidCode for bytes that are not residues. Every letter
// has a code: the 23 of the alphabet, and U/O/J (rare letters, scored as X).
const std::array<uint8_t, 256>& residue_codes();
inline uint8_t encode_residue(unsigned char c) { return residue_codes()[c]; }
inline char decode_residue(uint8_t code) { return code < kAlphabetSize ? kAlphabetLetters[code] : '?'; }
std::string decode(const uint8_t* codes, size_t n);
// True for the letters that BLAST scores as X though they name real residues (U, O, J).
inline bool is_rare_letter(unsigned char c) { c &= 0xDF; return c == 'U' || c == 'O' || c == 'J'; }

}  // namespace hpc
