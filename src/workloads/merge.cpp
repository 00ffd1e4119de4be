#include "src/workloads/merge.hpp"

#include <algorithm>
#include <iostream>
#include <set>

#include "io/hdf5_columns.hpp"
#include "io/result_file.hpp"
#include "src/core/error.hpp"
#include "src/workloads/run_attributes.hpp"

namespace hpc {
namespace {

// Attributes that must agree for hits to be comparable (E-values depend on the database size).
const char* const kStringKeys[] = {"workload", "matrix", "database_fingerprint"};
const char* const kIntKeys[] = {"gap_open", "gap_extend", "max_hits", "db_sequences", "db_residues"};
const char* const kDoubleKeys[] = {"max_evalue", "lambda", "K"};

struct Shard {
  std::string path;
  HitTable table;
  std::vector<std::pair<std::string, std::string>> keys;  // name -> value as text
};

std::string text_of(const h5::File& f, const std::string& name, int kind) {
  if (!h5::has_attribute(f, "", name)) return "(missing)";
  if (kind == 0) return h5::read_string_attribute(f, "", name);
  if (kind == 1) return std::to_string(h5::read_int_attribute(f, "", name));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", h5::read_double_attribute(f, "", name));
  return buf;
}

Shard load_shard(const std::string& path) {
  Shard s;
  s.path = path;
  // An unfinished run has only staging rows: read those, so the status check below names it.
  const bool has_hits = h5::is_hdf5(path) && h5::File(path, h5::Mode::kReadOnly).exists("hits");
  s.table = read_hit_table(path, has_hits ? "hits" : "staging/hits");  // checks it is an hpcalign result file
  if (s.table.status != "complete")
    throw Error("merge: " + path + " is from an unfinished run (status '" + s.table.status +
                "'); finish it with --resume first");
  h5::File f(path, h5::Mode::kReadOnly);
  // The database fingerprint recorded for --resume (content, not path), when present.
  const std::string fp = h5::has_attribute(f, "plan", "param:database")
                             ? h5::read_string_attribute(f, "plan", "param:database")
                             : std::string("(missing)");
  for (const char* k : kStringKeys)
    s.keys.emplace_back(k, std::string(k) == "database_fingerprint" ? fp : text_of(f, k, 0));
  for (const char* k : kIntKeys) s.keys.emplace_back(k, text_of(f, k, 1));
  for (const char* k : kDoubleKeys) s.keys.emplace_back(k, text_of(f, k, 2));
  return s;
}

void check_compatible(const Shard& first, const Shard& s) {
  std::string diffs;
  for (size_t i = 0; i < first.keys.size(); ++i)
    if (first.keys[i].second != s.keys[i].second)
      diffs += "\n  " + first.keys[i].first + ": '" + first.keys[i].second + "' in " + first.path + ", '" +
               s.keys[i].second + "' in " + s.path;
  if (first.keys[0].second != "search")
    throw Error("merge: " + first.path + " is a '" + first.keys[0].second + "' result; merge joins search results");
  if (s.table.target_ids != first.table.target_ids || s.table.target_lengths != first.table.target_lengths)
    diffs += "\n  targets: " + s.path + " was searched against another database than " + first.path;
  if (!diffs.empty()) throw Error("merge: incompatible runs; refusing to merge:" + diffs);
}

}  // namespace

uint32_t shard_query_base(uint64_t queries_before, uint64_t shard_queries) {
  if (queries_before > UINT32_MAX || shard_queries > UINT32_MAX - queries_before)
    throw Error("merge: the inputs hold " + std::to_string(queries_before + shard_queries) +
                " queries or more; a result file numbers at most 2^32-1");
  return uint32_t(queries_before);
}

int run_merge(const MergeOptions& opt) {
  if (opt.inputs.empty()) throw Error("merge: no input files");
  {
    std::set<std::string> seen;
    for (const std::string& p : opt.inputs) {
      if (p == opt.out_path) throw Error("merge: the output " + p + " is also an input");
      if (!seen.insert(p).second) throw Error("merge: " + p + " is given twice");
    }
  }
  std::vector<Shard> shards;
  for (const std::string& p : opt.inputs) {
    shards.push_back(load_shard(p));
    check_compatible(shards.front(), shards.back());
  }

  SequenceSet queries;  // ids and lengths only: result files keep no residues
  std::vector<uint32_t> query_lengths;
  std::vector<Hit> hits;
  std::set<std::string> ids;
  size_t duplicates = 0;
  for (Shard& s : shards) {
    const uint32_t base = shard_query_base(queries.size(), s.table.query_ids.size());
    for (size_t i = 0; i < s.table.query_ids.size(); ++i) {
      duplicates += !ids.insert(s.table.query_ids[i]).second;
      queries.ids.push_back(s.table.query_ids[i]);
      query_lengths.push_back(s.table.query_lengths.at(i));
    }
    for (Hit& h : s.table.hits) {
      if (h.query >= s.table.query_ids.size()) throw Error("merge: " + s.path + ": hit refers to a missing query");
      h.query += base;
      hits.push_back(std::move(h));
    }
  }
  if (duplicates && !opt.quiet)
    std::cerr << "hpcalign: merge: warning: " << duplicates << " query id(s) occur in more than one input\n";
  std::stable_sort(hits.begin(), hits.end(), hit_order);

  // A SequenceSet of the right lengths (residues unused by the sink, which stores id and length).
  queries.offsets.assign(1, 0);
  for (uint32_t len : query_lengths) queries.offsets.push_back(queries.offsets.back() + len);
  queries.residues.assign(queries.offsets.back(), 0);
  SequenceSet targets;
  targets.ids = shards.front().table.target_ids;
  for (uint32_t len : shards.front().table.target_lengths) targets.offsets.push_back(targets.offsets.back() + len);
  targets.residues.assign(targets.offsets.back(), 0);

  ResultFile out(opt.out_path);
  write_run_attributes(out, "search", opt.command_line, "merge", 0);
  {
    h5::File first(shards.front().path, h5::Mode::kReadOnly);
    for (const char* k : kStringKeys)
      if (std::string(k) != "database_fingerprint" && h5::has_attribute(first, "", k))
        out.set_attribute(k, h5::read_string_attribute(first, "", k));
    for (const char* k : kIntKeys)
      if (h5::has_attribute(first, "", k)) out.set_attribute(k, h5::read_int_attribute(first, "", k));
    for (const char* k : kDoubleKeys)
      if (h5::has_attribute(first, "", k)) out.set_attribute(k, h5::read_double_attribute(first, "", k));
    if (h5::has_attribute(first, "", "database"))
      out.set_attribute("database", h5::read_string_attribute(first, "", "database"));
  }
  std::string from;
  for (const std::string& p : opt.inputs) from += (from.empty() ? "" : " ") + p;
  out.set_attribute("merged_from", from);
  out.write_sequences("queries", queries);
  out.write_sequences("targets", targets);
  out.finish(hits);
  if (!opt.quiet)
    std::cerr << "hpcalign: merged " << shards.size() << " runs: " << queries.size() << " queries, " << hits.size()
              << " hits written to " << opt.out_path << "\n";
  return 0;
}

}  // namespace hpc
