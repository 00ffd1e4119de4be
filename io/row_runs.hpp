#pragma once
// Result tables of fixed-width rows (pss's /pss, msv's /msv) staged and merged the way hits are
// (io/run_files.hpp): a worker sorts its tile's rows by the table's key and appends them as one
// record to its own run file, in the same directory and under the same names (OUT.runs/w<worker>,
// master); only the record's place reaches the master and its journal; at the end the journalled
// runs are merged by the key into the table's HDF5 columns, a bounded window of rows at a time.
// So rank 0 holds no more than that window of any workload's rows.
//
// A table's columns are listed once, as getters of its row type (RowFields): that list gives
// its schema (dataset, element type and values per row, in a row's order; pss's permuted
// scores: one per permutation) and packs its rows. The key is the first two columns, uint32
// each, ascending (query, target; model, target). Keys are unique within a run's rows (every
// pair is computed by one tile), so the merged table is the same for any tiling, worker or rank
// count, and resume.
//
// A record: header (magic "HPT1", tile id, rows, row bytes: StagedRun::extra), then the rows
// packed one after the other (each row's values in column order, as WireWriter::put appends
// them): the merge reads whole rows.
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "io/run_file_io.hpp"
#include "src/core/error.hpp"
#include "src/core/wire.hpp"

namespace hpc {

namespace h5 {
class File;
}

enum class RowType : uint8_t { kU8, kU32, kI32, kF32, kF64 };

template <class T>
constexpr RowType row_type() {
  if constexpr (std::is_same_v<T, uint8_t>) return RowType::kU8;
  else if constexpr (std::is_same_v<T, uint32_t>) return RowType::kU32;
  else if constexpr (std::is_same_v<T, int32_t>) return RowType::kI32;
  else if constexpr (std::is_same_v<T, float>) return RowType::kF32;
  else {
    static_assert(std::is_same_v<T, double>, "a row table's column is uint8, uint32, int32, float or double");
    return RowType::kF64;
  }
}

struct RowColumn {
  std::string path;  // the dataset ("pss/score")
  RowType type;
  uint32_t per_row = 1;  // values a row; the dataset holds them row after row
};

// A table's columns; the record kind of its rows (src/workloads/tile_runs.hpp), packed.
struct RowSchema {
  using Rows = std::string;
  std::vector<RowColumn> columns;  // columns[0], columns[1]: the key (uint32, one a row)
  size_t row_bytes() const;
  // Sorts the packed rows by the key and appends them to `file` as one record; returns its place.
  StagedRun write(RecordFile& file, uint32_t tile, const Rows& packed) const;
  // True when the record's header matches `run` and this schema, and the file holds all of it.
  bool is_whole(const std::string& dir, const StagedRun& run) const;
};

// A table's columns as getters of `Row`: its schema and how its rows are packed, from one list.
template <class Row>
class RowFields {
 public:
  // A column of one value a row, of `get`'s result type.
  template <class Get>
  RowFields& add(std::string path, Get get) {
    using T = std::decay_t<decltype(get(std::declval<const Row&>()))>;
    schema_.columns.push_back({std::move(path), row_type<T>(), 1});
    pack_.push_back([get](WireWriter& w, const Row& r) { w.put<T>(get(r)); });
    return *this;
  }
  // A column of `n` values a row: `get` returns a row's vector of them.
  template <class Get>
  RowFields& add_values(std::string path, uint32_t n, Get get) {
    using T = typename std::decay_t<decltype(get(std::declval<const Row&>()))>::value_type;
    schema_.columns.push_back({path, row_type<T>(), n});
    pack_.push_back([get, n, path](WireWriter& w, const Row& r) {
      const auto& values = get(r);
      if (values.size() != n) throw Error("internal: a row of " + path + " lacks its " + std::to_string(n) + " values");
      for (const T& v : values) w.put<T>(v);
    });
    return *this;
  }
  const RowSchema& schema() const { return schema_; }
  std::string pack(const std::vector<Row>& rows) const {
    WireWriter w;
    w.reserve(rows.size() * schema_.row_bytes());
    for (const Row& r : rows)
      for (const auto& pack : pack_) pack(w, r);
    return w.take();
  }

 private:
  RowSchema schema_;
  std::vector<std::function<void(WireWriter&, const Row&)>> pack_;
};

// The schema's columns, empty, in `to` (an existing one replaced), chunked as h5::write_column
// chunks a column of `rows` rows.
void create_row_columns(h5::File& to, const RowSchema& schema, uint64_t rows);
// Every run merged by the key into `to`'s columns of the schema (create_row_columns); returns
// the rows written.
uint64_t merge_row_runs(const std::string& dir, const std::vector<StagedRun>& runs, const RowSchema& schema,
                        h5::File& to);

}  // namespace hpc
