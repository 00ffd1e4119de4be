#pragma once
// The header lines of a FASTA file's records, in file order, and the ways reports show them.
// Result files keep ids only: these columns read the run's FASTA file again.
#include <string>
#include <vector>

namespace hpc {

// Each record's header line after '>', its line end ("\n" or "\r\n") removed, nothing else
// changed. Plain or gzip FASTA (a leading UTF-8 byte-order mark skipped; the sequence reader
// refuses such a file, so a run that read it never gets here).
// Throws hpc::Error when the file cannot be read.
std::vector<std::string> fasta_header_lines(const std::string& path);

// The description (the header after the id and its blanks, to the line's end, a '\r' or a
// Ctrl-A, as easel cuts it; "" when none): what hmmsearch prints as "description of target".
std::string fasta_description(const std::string& header_line);
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
