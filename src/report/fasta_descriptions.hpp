#pragma once
// The ways reports show a FASTA record's header line (read_fasta's header_lines): result files
// keep ids only, so these columns come from the run's FASTA file.
#include <string>
#include <vector>

namespace hpc {

// The description (the header after the id and its blanks, to the line's end, a '\r' or a
// Ctrl-A, as easel cuts it; "" when none): what hmmsearch prints as "description of target".
std::string fasta_description(const std::string& header_line);
// Each record's description, from a file the hmmsearch or msv run asking has read and checked
// already (its residue lines are not read again); none from a pipe or device, which the run has
// read already.
std::vector<std::string> fasta_descriptions(const std::string& path);

// BLAST's stitle/salltitles of a database that `makeblastdb -in FILE.fa` made (no -parse_seqids):
// the whole line, leading and trailing blanks kept, up to a '\r'; each tab shown as three blanks,
// a Ctrl-A (nr's separator of merged deflines) as one, every other control or non-ASCII byte as
// '#' (makeblastdb 2.12 stores them so).
std::string blast_title(const std::string& header_line);

// MMseqs2's qheader/theader (createdb keeps the id, one blank, and the rest of the line after
// the id's first delimiter as it is, tabs included; nothing after the id: the id alone).
std::string mmseqs_header(const std::string& header_line);

}  // namespace hpc
