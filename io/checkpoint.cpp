#include "io/checkpoint.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <vector>

#include "io/hit_table.hpp"
#include "io/result_lifecycle.hpp"
#include "src/core/error.hpp"
#include "src/core/on_all_cores.hpp"

namespace hpc::checkpoint {
namespace {

using result_lifecycle::kTileDone;  // io/result_lifecycle.cpp writes it
const std::string kPlan = "plan";

std::string attribute_name(const RunParameter& p) { return "param:" + p.name; }

uint32_t crc_serial(uint32_t crc, const Bytef* p, size_t n) {
  while (n > 0) {  // zlib's length is a uInt: feed huge buffers in pieces
    const uInt piece = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    crc = static_cast<uint32_t>(crc32(crc, p, piece));
    p += piece;
    n -= piece;
  }
  return crc;
}

// Large buffers (a 207M-residue database: ~0.15 s on one core) in pieces on all cores, joined
// with crc32_combine: the same value as one pass.
uint32_t crc_bytes(uint32_t crc, const void* data, size_t n) {
  const auto* p = static_cast<const Bytef*>(data);
  constexpr size_t kPiece = size_t(16) << 20;
  if (n < 2 * kPiece) return crc_serial(crc, p, n);
  const size_t pieces = std::min<size_t>((n + kPiece - 1) / kPiece, usable_cores());
  if (pieces < 2) return crc_serial(crc, p, n);
  const size_t len = (n + pieces - 1) / pieces;
  std::vector<uint32_t> part(pieces);
  run_parts(pieces, [&](size_t k) { part[k] = crc_serial(0, p + k * len, std::min(len, n - k * len)); });
  for (size_t k = 0; k < pieces; ++k)
    crc = static_cast<uint32_t>(crc32_combine(crc, part[k], static_cast<z_off_t>(std::min(len, n - k * len))));
  return crc;
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

}  // namespace

void store_plan(h5::File& f, const std::vector<Tile>& tiles, const std::vector<RunParameter>& params) {
  std::vector<uint32_t> id, begin, end, count, queries;
  std::vector<uint64_t> cells;
  for (const Tile& t : tiles) {
    id.push_back(t.id);
    begin.push_back(t.part_begin);
    end.push_back(t.part_end);
    cells.push_back(t.cells);
    count.push_back(static_cast<uint32_t>(t.queries.size()));
    queries.insert(queries.end(), t.queries.begin(), t.queries.end());
  }
  h5::remove_object(f, kPlan);  // a fresh plan replaces whatever an aborted start left
  h5::write_column(f, kPlan + "/id", id);
  h5::write_column(f, kPlan + "/part_begin", begin);
  h5::write_column(f, kPlan + "/part_end", end);
  h5::write_column(f, kPlan + "/cells", cells);
  h5::write_column(f, kPlan + "/query_count", count);
  h5::write_column(f, kPlan + "/queries", queries);
  for (const RunParameter& p : params) h5::set_attribute(f, kPlan, attribute_name(p), p.value);
  // Written last: a plan without it is one whose writing was interrupted.
  h5::set_attribute(f, kPlan, "tiles", int64_t(tiles.size()));
  f.flush();
}

bool has_plan(const h5::File& f) { return f.exists(kPlan) && h5::has_attribute(f, kPlan, "tiles"); }

std::vector<Tile> load_plan(const h5::File& f) {
  if (!has_plan(f)) throw Error(f.path() + ": no stored plan (/plan) to resume from");
  const auto id = h5::read_all<uint32_t>(f, kPlan + "/id");
  const auto begin = h5::read_all<uint32_t>(f, kPlan + "/part_begin");
  const auto end = h5::read_all<uint32_t>(f, kPlan + "/part_end");
  const auto cells = h5::read_all<uint64_t>(f, kPlan + "/cells");
  const auto count = h5::read_all<uint32_t>(f, kPlan + "/query_count");
  const auto queries = h5::read_all<uint32_t>(f, kPlan + "/queries");
  const size_t n = id.size();
  if (begin.size() != n || end.size() != n || cells.size() != n || count.size() != n ||
      int64_t(n) != h5::read_int_attribute(f, kPlan, "tiles"))
    throw Error(f.path() + ": the stored plan (/plan) is damaged: its columns disagree in length");
  std::vector<Tile> tiles(n);
  size_t q = 0;
  for (size_t i = 0; i < n; ++i) {
    if (q + count[i] > queries.size()) throw Error(f.path() + ": the stored plan (/plan/queries) is damaged");
    tiles[i].id = id[i];
    tiles[i].part_begin = begin[i];
    tiles[i].part_end = end[i];
    tiles[i].cells = cells[i];
    tiles[i].queries.assign(queries.begin() + q, queries.begin() + q + count[i]);
    q += count[i];
  }
  return tiles;
}

void verify_parameters(const h5::File& f, const std::vector<RunParameter>& params) {
  std::vector<RunParameter> stored;
  for (const RunParameter& p : params)
    if (h5::has_attribute(f, kPlan, attribute_name(p)))
      stored.push_back({p.name, h5::read_string_attribute(f, kPlan, attribute_name(p))});
  verify_parameters(f.path(), stored, params);
}

void verify_parameters(const std::string& source, const std::vector<RunParameter>& stored,
                       const std::vector<RunParameter>& params) {
  std::string diffs;
  for (const RunParameter& p : params) {
    std::string old = "(not recorded)";
    for (const RunParameter& s : stored)
      if (s.name == p.name) old = s.value;
    if (old != p.value) diffs += "\n  " + p.name + ": the file has '" + old + "', this run '" + p.value + "'";
  }
  if (!diffs.empty())
    throw Error("--resume: " + source + " was written by a run with other parameters; refusing to mix results:" +
                diffs + "\n(run with the original parameters, or without --resume to start over)");
}

std::vector<uint32_t> recover_ledger(h5::File& f, const std::string& staging_group) {
  // Ledger: id is appended before status; a row counts only when both landed.
  const auto ids = h5::read_all<uint32_t>(f, "tiles/id");
  const auto status = h5::read_all<uint8_t>(f, "tiles/status");
  const size_t rows = std::min(ids.size(), status.size());
  std::vector<uint32_t> done;
  for (size_t i = 0; i < rows; ++i)
    if (status[i] == kTileDone) done.push_back(ids[i]);
  h5::resize_column(f, "tiles/id", rows);
  h5::resize_column(f, "tiles/status", rows);

  // Staging rows arrive tile by tile, each tile's rows before its ledger row, so the rows of
  // finished tiles form a prefix; anything after it belongs to a tile cut short.
  const std::set<uint32_t> finished(done.begin(), done.end());
  const auto tile_of_row = h5::read_all<uint32_t>(f, staging_group + "/tile");
  size_t keep = 0;
  while (keep < tile_of_row.size() && finished.count(tile_of_row[keep])) ++keep;
  // A batch's rows are one sorted run of several tiles: a tile with rows past the prefix (its
  // batch's ledger cut short) is not done either, and runs again.
  std::set<uint32_t> cut;
  for (size_t i = keep; i < tile_of_row.size(); ++i) cut.insert(tile_of_row[i]);
  done.erase(std::remove_if(done.begin(), done.end(), [&](uint32_t id) { return cut.count(id) > 0; }), done.end());
  const auto damaged = [&](const std::string& path) {
    return Error(f.path() + ": '" + path + "' is shorter than the ledger says; the file is damaged");
  };
  for (const std::string& column : h5::list_group(f, staging_group)) {
    const std::string path = staging_group + "/" + column;
    if (column == "cigar_chars") continue;  // cut below, to the kept rows' CIGARs
    if (h5::column_length(f, path) < keep) throw damaged(path);
    h5::resize_column(f, path, keep);
  }
  const std::string chars = staging_group + "/cigar_chars";
  if (f.exists(chars)) {
    const uint64_t n = cigar_chars_for_rows(f, staging_group, keep);
    if (h5::column_length(f, chars) < n) throw damaged(chars);
    h5::resize_column(f, chars, n);
  }
  f.flush();
  return done;
}

std::vector<Tile> remaining_tiles(const std::vector<Tile>& plan, const std::vector<uint32_t>& done) {
  const std::set<uint32_t> finished(done.begin(), done.end());
  std::vector<Tile> out;
  for (const Tile& t : plan)
    if (!finished.count(t.id)) out.push_back(t);
  return out;
}

Crc32& Crc32::add(const void* data, size_t bytes) {
  crc_ = crc_bytes(crc_, data, bytes);
  return *this;
}

Crc32& Crc32::append(uint32_t crc, size_t bytes) {
  crc_ = uint32_t(crc32_combine(crc_, crc, z_off_t(bytes)));
  return *this;
}

std::string Crc32::hex() const { return hex32(crc_); }

std::string exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string fingerprint(const SequenceSet& seqs) {
  Crc32 crc;
  for (const std::string& id : seqs.ids) crc.add(id);
  crc.add(seqs.offsets).add(seqs.residues);
  return std::to_string(seqs.size()) + " sequences, " + std::to_string(seqs.total_residues()) + " residues, crc32 " +
         crc.hex();
}

std::string fingerprint(const ScoreMatrix& m) {
  Crc32 crc;
  for (const auto& row : m.score) crc.add(row.data(), row.size() * sizeof(row[0]));
  return m.name + " crc32 " + crc.hex();
}

}  // namespace hpc::checkpoint
