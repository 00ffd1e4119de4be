#pragma once
// FASTA reader: plain or gzip (zlib reads both transparently), any line width.
// Ids are the first word of the header. U/O/J are scored as X (a warning counts them);
// any other non-letter byte in a sequence line is an error naming file and line.
#include <string>

#include "src/core/sequence.hpp"

namespace hpc {

struct FastaReport {
  size_t rare_letters = 0;  // U/O/J mapped to X
};

// Throws InputError (file:line) for missing/unreadable files, an empty file or set,
// text before the first '>', empty ids, invalid residue bytes, corrupt gzip data.
SequenceSet read_fasta(const std::string& path, FastaReport* report = nullptr);

}  // namespace hpc
