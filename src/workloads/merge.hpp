#pragma once
// `hpcalign merge a.h5 b.h5 ... -o all.h5`: joins the results of search runs over shards of
// one query set against one database (jobs/search-array.sbatch). Queries are concatenated
// in argument order and hit query indices re-based; targets must be identical. Runs with
// other database, matrix, gap costs, max-hits, E-value cut-off or statistics are refused,
// and so are unfinished runs.
#include <cstdint>
#include <string>
#include <vector>

namespace hpc {

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out_path;
  std::string command_line;
  bool quiet = false;
};

int run_merge(const MergeOptions& opt);

// The first query number of a shard of `shard_queries` queries after `queries_before` of the
// shards before it. Query numbers are 32-bit in every table (/hits' query column): past
// 2^32-1 queries in all the merge throws, where the cast had wrapped them onto other queries.
uint32_t shard_query_base(uint64_t queries_before, uint64_t shard_queries);

}  // namespace hpc
