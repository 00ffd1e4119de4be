#pragma once
// The descriptions of a FASTA file's records (the header after the id and its blanks, to the
// line's end, a '\r' or a Ctrl-A, as easel cuts it; "" when none), in file order: what hmmsearch
// prints as "description of target". Result files keep ids only.
#include <string>
#include <vector>

namespace hpc {

// Plain or gzip FASTA. Throws hpc::Error when the file cannot be read.
std::vector<std::string> fasta_descriptions(const std::string& path);

}  // namespace hpc
