#pragma once
// FASTA reader: plain or gzip (zlib reads both transparently), any line width.
// Ids are the first word of the header. Residues are read under BLAST's rules (U/O/J as X, a
// warning counts them; a final '*' dropped) or HMMER's (src/core/alphabet.hpp); any other
// non-letter byte in a sequence line is an error naming file and line.
// Duplicate ids are accepted, like duplicate HMM names (io/hmm_file.hpp): results refer to
// sequences by index and ids are only labels (tests/scripts/cli_bad_input_more.sh).
#include <string>
#include <vector>

#include "src/core/alphabet.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

struct FastaReport {
  size_t rare_letters = 0;      // U/O/J mapped to X
  size_t nucleotide_like = 0;   // records of 20+ residues, all A/C/G/T/U/N, mostly A/C/G/T
  size_t sequences = 0;
};

// Throws InputError (file:line) for missing/unreadable files, an empty file or set,
// text before the first '>', empty ids, invalid residue bytes, corrupt gzip data, a record
// without residues (CR-only line ends named as such), and bzip2/xz/zstd/zip/HDF5 data, named.
// `header_lines`, when given, gets each record's header line after '>' in file order, its line
// end ("\n" or "\r\n") removed and nothing else changed (blanks before the id, tabs, Ctrl-A and
// a '\r' inside kept): the same read gives the title columns and hmmsearch's descriptions.
SequenceSet read_fasta(const std::string& path, FastaReport* report = nullptr,
                       ResidueRules rules = ResidueRules::kBlast, std::vector<std::string>* header_lines = nullptr);
// The same parser over plain (not gzip) text already in memory; `name` is used in messages.
// Used by the fuzzer (tests/fuzz/) and by callers that already hold the text.
SequenceSet parse_fasta_text(const char* data, size_t size, const std::string& name,
                             FastaReport* report = nullptr, ResidueRules rules = ResidueRules::kBlast);
// The same read keeping no residues: the ids, every length 0, and `header_lines` as above.
// kChecked: each record's residues checked all the same, one record held at a time (title
// columns alone). kSkipped: residue lines passed over unread, for a file this run has read and
// checked already (hmmsearch's descriptions at the end: only the line ends are looked for).
enum class ResidueLines { kChecked, kSkipped };
SequenceSet read_fasta_headers(const std::string& path, std::vector<std::string>* header_lines,
                               ResidueRules rules = ResidueRules::kBlast,
                               ResidueLines residue_lines = ResidueLines::kChecked);
// A pipe or device (-q /dev/stdin): what a run read from it cannot be read again.
bool is_read_once(const std::string& path);
// On stderr, "hpcalign: warning: PATH: N U/O/J residues scored as X" when the report counted any,
// and a warning naming how many records look like DNA/RNA (read as protein all the same).
void warn_fasta_report(const std::string& path, const FastaReport& report);
// read_fasta under BLAST's rules, then its report's warnings unless `quiet`: a workload's input.
SequenceSet read_fasta_warned(const std::string& path, bool quiet);
// Writes the set as FASTA (">id", 60 residues a line), gzip-compressed when path ends in .gz.
// Throws Error naming the path when it cannot be written.
void write_fasta(const SequenceSet& set, const std::string& path);
// The same, compressed or not whatever the name (for a temporary name renamed afterwards).
void write_fasta(const SequenceSet& set, const std::string& path, bool gzip);

}  // namespace hpc
