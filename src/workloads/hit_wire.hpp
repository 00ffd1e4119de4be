#pragma once
// Hits as bytes (src/core/wire.hpp): how workers hand a tile's hits to the master, over
// MPI or through the local scheduler. Shared by the search and allvsall workloads.
#include <string>
#include <vector>

#include "src/core/alignment.hpp"
#include "src/core/wire.hpp"

namespace hpc {

// Streaming forms, for messages that carry more than the hits.
void put_hits(WireWriter& w, const std::vector<Hit>& hits);
std::vector<Hit> get_hits(WireReader& r);

std::string encode_hits(const std::vector<Hit>& hits);
std::vector<Hit> decode_hits(const std::string& bytes);  // throws hpc::Error on truncated bytes

}  // namespace hpc
