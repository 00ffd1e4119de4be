#pragma once
// `hpcalign view`: prints a result file in a format other tools read.
#include <iosfwd>
#include <string>

#include "io/result_file.hpp"

namespace hpc {

// BLAST tabular (-outfmt 6), one line per hit, tab separated:
//   qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore
// length/mismatch/gapopen come from the CIGAR; numbers are formatted as BLAST+ does
// (see format_blast_evalue / format_blast_bits).
void print_blast6(const HitTable& t, std::ostream& out);

// All columns, full precision, with a header line (for scripts):
//   qseqid sseqid score bits evalue identity qstart qend sstart send cigar
void print_tsv(const HitTable& t, std::ostream& out);

// BLAST+ 2.12 tabular rules (checked against real blastp runs: tests/oracle/blastp_oracle_test.cpp):
//   evalue < 1e-180 -> "0.0";  < 0.0009 -> "%.2e" (3.00e-04, 2.37e-105);  < 0.1 -> "%.3f";
//   < 1 -> "%.2f";  < 10 -> "%.1f";  otherwise "%.0f".
std::string format_blast_evalue(double evalue);
//   bits > 99999 -> "%5.3e" (1.118e+05);  > 99.9 -> the integer part, truncated (BLAST casts
//   to long: 13490);  otherwise "%4.1f" (26.6, and " 9.2" with a leading space below 10).
std::string format_blast_bits(double bits);

// Reads `path` and prints it in `format` ("blast6" or "tsv") on `out`. Warns on `err` when the run
// did not finish (then prints the rows its finished tiles left in /staging/hits).
// Returns 0; throws hpc::Error for unknown formats and files that are not results.
int run_view(const std::string& path, const std::string& format, std::ostream& out, std::ostream& err);

}  // namespace hpc
