#pragma once
// Tabular hit output in BLAST's column vocabulary (blastp -outfmt "6 ..."), for search and
// allvsall result files (and merged ones):
//   qseqid sseqid pident nident length mismatch positive gapopen gaps ppos qstart qend sstart
//   send evalue bitscore score qlen slen qcovs qcovhsp qseq sseq cigar stitle salltitles
// pident and ppos are percentages (as BLAST prints them); cigar is ours (=/X/I/D, target as
// reference). qcovs equals qcovhsp: a pair has one alignment. qseq/sseq/positive/ppos need the
// sequences (and the matrix), stitle/salltitles/qheader/theader the header lines: the caller
// supplies them. One record has one title: salltitles is stitle (blast_title).
//
// Format strings (`--format`):
//   blast6            the 12 columns of BLAST -outfmt 6, BLAST's number formatting
//   tsv               a header line, then qseqid sseqid score bitscore evalue pident qstart qend
//                     sstart send cigar at full precision (for scripts)
//   "6 NAME NAME ..." BLAST's custom columns, BLAST's formatting ("6" alone is blast6)
//   "NAME,NAME,..."   MMseqs2's --format-output spelling: its names (query target fident pident
//                     nident alnlen mismatch gapopen qstart qend tstart tend evalue bits raw qlen
//                     tlen qcov qaln taln cigar qheader theader) or BLAST's; fident and qcov are fractions there
// Absent values print as BLAST prints them, "N/A": bitscore and evalue of modes without
// Karlin-Altschul statistics (allvsall global/semiglobal), and every alignment column
// (coordinates, identities, sequences, cigar) of a pair without an alignment (score-only runs).
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "io/result_file.hpp"
#include "src/core/scoring.hpp"
#include "src/core/sequence.hpp"

namespace hpc {

enum class HitColumn {
  qseqid, sseqid, pident, fident, nident, length, mismatch, positive, gapopen, gaps, ppos, qstart, qend, sstart,
  send, evalue, bitscore, score, qlen, slen, qcovs, qcovhsp, qcov, qseq, sseq, cigar, stitle, salltitles, qheader,
  theader
};

struct HitColumns {
  std::vector<HitColumn> columns;
  bool header = false;   // tsv: one line of column names first
  bool precise = false;  // tsv: full precision instead of BLAST's rounding
  bool needs_sequences() const;
  bool needs_matrix() const;
  bool needs_query_headers() const;
  bool needs_target_headers() const;
};

// Whether a column's value comes from the pair's alignment (coordinates, identities, sequences,
// cigar): "N/A" for a pair without one.
bool column_needs_alignment(HitColumn c);

// Parses a format string as above; nullopt when it is not a hit format (pairwise, tblout, ...).
// Throws hpc::Error naming an unknown column.
std::optional<HitColumns> parse_hit_columns(const std::string& format);

// What the rows refer to; sequences and matrix only when the columns need them.
struct HitSource {
  const HitTable& table;
  const SequenceSet* queries = nullptr;  // index-matched to table.query_ids
  const SequenceSet* targets = nullptr;
  const ScoreMatrix* matrix = nullptr;
  const std::vector<std::string>* query_headers = nullptr;  // header lines (read_fasta's header_lines)
  const std::vector<std::string>* target_headers = nullptr;
};

void print_hit_columns(const HitColumns& format, const HitSource& source, std::ostream& out);

// Bounds-checked id of a row's query or target ("hit refers to query 7 but the file lists 3").
const std::string& hit_id(const std::vector<std::string>& ids, uint32_t index, const char* what);

// BLAST's whole percentages (qcovs, qcovhsp; the pairwise display's Identities (..%)): rounded,
// but 100 only when part == whole (99.57 prints 99), as blastp 2.12 prints them.
long blast_percent(uint64_t part, uint64_t whole);

// BLAST+ 2.12 tabular rules (checked against real blastp runs: tests/oracle/blastp_oracle_test.cpp):
//   evalue < 1e-180 -> "0.0";  < 0.0009 -> "%.2e" (3.00e-04, 2.37e-105);  < 0.1 -> "%.3f";
//   < 1 -> "%.2f";  < 10 -> "%.1f";  otherwise "%.0f".
std::string format_blast_evalue(double evalue);
//   bits > 99999 -> "%5.3e" (1.118e+05);  > 99.9 -> the integer part, truncated (BLAST casts
//   to long: 13490);  otherwise "%4.1f" (26.6, and " 9.2" with a leading space below 10).
std::string format_blast_bits(double bits);

}  // namespace hpc
