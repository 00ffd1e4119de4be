#pragma once
// The hit table as HDF5 columns (README.md, "Result file"): one schema for /hits and for the
// staging rows of an unfinished run (/staging/hits, plus 'tile', minus the derived 'identity').
// The CIGARs are one ragged column: 'cigar_chars' (uint8, every row's CIGAR one after the
// other) and 'cigar_end' (uint64, where row i's CIGAR ends in cigar_chars; it starts where row
// i-1's ends). Variable-length strings went through HDF5's type conversion at ~0.2 us a row,
// even when empty (--score-only): most of what writing and merging a screen cost.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/alignment.hpp"

namespace hpc {

namespace h5 {
class File;
class OpenColumn;
enum class Compression;
struct DeflatedChunks;
}  // namespace h5

struct HitTableColumns {
  std::vector<uint32_t> query, target, qstart, qend, tstart, tend;
  std::vector<int32_t> score;
  std::vector<double> bits, evalue;
  std::vector<float> identity;      // final table: fraction of alignment columns that are '='
  std::vector<uint64_t> cigar_end;  // absolute offsets into the dataset's cigar_chars
  std::vector<uint8_t> cigar_chars;
  uint64_t chars_base = 0;  // offset of cigar_chars[0] in the dataset (where row 0's CIGAR starts)

  size_t rows() const { return query.size(); }
  std::string cigar(size_t i) const;

  // The columns with one value per row, with their names (identity only in the final table).
  template <class F>
  void for_each_row_column(bool with_identity, F&& f) {
    f("query", query);
    f("target", target);
    f("score", score);
    f("bits", bits);
    f("evalue", evalue);
    f("qstart", qstart);
    f("qend", qend);
    f("tstart", tstart);
    f("tend", tend);
    if (with_identity) f("identity", identity);
    f("cigar_end", cigar_end);
  }
};

// hit_order as one number and the target: query, then score descending.
inline uint64_t hit_order_key(uint32_t query, int32_t score) {
  return uint64_t(query) << 32 | uint32_t(int64_t(INT32_MAX) - score);
}

// The rows as columns; the CIGAR offsets start at `chars_base` (the characters already in the
// dataset). Built on all cores for big tables.
HitTableColumns hit_table_columns(const std::vector<const Hit*>& rows, uint64_t chars_base, bool with_identity);
// The same with row k's CIGAR cigar_of(k) instead of its hit's (an engine's one buffer of them).
HitTableColumns hit_table_columns(const std::vector<const Hit*>& rows, uint64_t chars_base, bool with_identity,
                                  const std::function<std::string_view(size_t)>& cigar_of);
// The CIGAR characters' chunk in a table whose other columns have chunks of `chunk` rows.
size_t cigar_chars_chunk(size_t chunk);
// Empty columns of the table under `group` ("hits", "staging/hits"). `aligned`: its rows have
// CIGARs (a merge's kFast output then stores its identities, column_compression in hit_table.cpp).
void create_hit_table(h5::File& file, const std::string& group, bool with_identity, size_t chunk,
                      h5::Compression compression, bool aligned = false);
// Appends every column. With `cancel` it stops, returning false, once that is set (checked
// before each column); the table's columns then have unequal lengths (a resume cuts them).
bool append_hit_table(h5::File& file, const std::string& group, HitTableColumns& cols, bool with_identity,
                      const std::atomic<bool>* cancel = nullptr);
// Every column's chunks deflated as create_hit_table(..., chunk, compression, aligned) set them up, on
// `threads` threads at once (the chunks of all columns one list of work), without HDF5: any thread may
// deflate while another writes the file. The rows must start at a chunk boundary of the table.
struct DeflatedHitTable {
  std::vector<h5::DeflatedChunks> columns;  // for_each_row_column order, then cigar_chars; empty: not deflated
};
DeflatedHitTable deflate_hit_table(HitTableColumns& cols, bool with_identity, size_t chunk, h5::Compression compression,
                                   size_t threads, bool aligned = false);
// append_hit_table storing those chunks as they are (a column that does not fit goes through HDF5).
void append_hit_table(h5::File& file, const std::string& group, HitTableColumns& cols, bool with_identity,
                      const DeflatedHitTable& deflated);
// append_hit_table's columns held open from one append to the next (h5::OpenColumn): a merge's
// output, which appends its ranges one after the other. Destroyed before its file is closed.
class HitTableAppender {
 public:
  HitTableAppender(h5::File& file, const std::string& group, bool with_identity);
  ~HitTableAppender();
  HitTableAppender(const HitTableAppender&) = delete;
  HitTableAppender& operator=(const HitTableAppender&) = delete;
  void append(HitTableColumns& cols, const DeflatedHitTable& deflated);

 private:
  h5::File& file_;
  bool with_identity_;
  std::vector<h5::OpenColumn> columns_;  // for_each_row_column order, then cigar_chars
};
// The whole table as hits (also reads the variable-length 'cigar' column of older files).
std::vector<Hit> read_hit_rows(const h5::File& file, const std::string& group);
// Rows of the table for cutting it at `rows` rows (checkpoint recovery): cigar_chars ends
// where row rows-1's CIGAR ends.
uint64_t cigar_chars_for_rows(const h5::File& file, const std::string& group, uint64_t rows);

}  // namespace hpc
