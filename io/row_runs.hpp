#pragma once
// Result tables of fixed-width rows (pss's /pss, msv's /msv) staged and merged the way hits are
// (io/run_files.hpp): a worker sorts its tile's rows by the table's key and appends them as one
// record to its own run file, in the same directory and under the same names (OUT.runs/w<worker>,
// master); only the record's place reaches the master and its journal; at the end the journalled
// runs are merged by the key into the table's HDF5 columns, a bounded window of rows at a time.
// So rank 0 holds no more than that window of any workload's rows.
//
// A table's schema lists its columns in a row's order: dataset, element type and values per row
// (pss's permuted scores: one per permutation). The key is the first two columns, uint32 each,
// ascending (query, target; model, target). Keys are unique within a run's rows (every pair is
// computed by one tile), so the merged table is the same for any tiling, worker or rank count,
// and resume.
//
// A record: header (magic "HPT1", tile id, rows, row bytes), then the rows packed one after the
// other (each row's values in column order, as WireWriter::put appends them): the merge reads
// whole rows.
#include <cstdint>
#include <string>
#include <vector>

#include "io/run_file_io.hpp"
#include "src/core/wire.hpp"

namespace hpc {

namespace h5 {
class File;
}

enum class RowType : uint8_t { kU8, kU32, kI32, kF32, kF64 };

struct RowColumn {
  std::string path;  // the dataset ("pss/score")
  RowType type;
  uint32_t per_row = 1;  // values a row; the dataset holds them row after row
};

struct RowSchema {
  std::vector<RowColumn> columns;  // columns[0], columns[1]: the key (uint32, one a row)
  size_t row_bytes() const;
};

// Where one tile's sorted rows lie.
struct RowRun {
  std::string file;  // name inside the run directory ("w3")
  uint64_t offset = 0, rows = 0;
  uint32_t tile = 0;
  void put(WireWriter& w) const;
  static RowRun get(WireReader& r);
};

// One worker's file of row records, opened (created or appended to) at the first write.
class RowRunWriter {
 public:
  RowRunWriter(const std::string& dir, std::string name, const RowSchema& schema);
  // Appends the packed rows, sorted by the key, as one record; returns its place.
  RowRun write(uint32_t tile, const std::string& packed);

 private:
  std::string name_;
  size_t row_bytes_;
  AppendOnlyFile file_;
};

// True when the record's header matches `run` and the file holds all of it.
bool is_whole(const std::string& dir, const RowRun& run, const RowSchema& schema);

// The schema's columns, empty, in `to` (an existing one replaced), chunked as h5::write_column
// chunks a column of `rows` rows.
void create_row_columns(h5::File& to, const RowSchema& schema, uint64_t rows);
// Every run merged by the key into `to`'s columns of the schema (create_row_columns); returns
// the rows written.
uint64_t merge_row_runs(const std::string& dir, const std::vector<RowRun>& runs, const RowSchema& schema, h5::File& to);

}  // namespace hpc
