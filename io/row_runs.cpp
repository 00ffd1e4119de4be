#include "io/row_runs.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <queue>
#include <tuple>

#include "io/hdf5_columns.hpp"

namespace hpc {
namespace {

constexpr char kMagic[4] = {'H', 'P', 'T', '1'};

// The merge's window: rows read ahead of every run together, and rows merged before they are
// stored, each at most this many bytes (and at most kMaxRows rows a run or a store).
constexpr uint64_t kWindowBytes = uint64_t(64) << 20;
constexpr uint64_t kMaxRows = 1u << 16;

size_t type_bytes(RowType t) {
  switch (t) {
    case RowType::kU8: return 1;
    case RowType::kF64: return 8;
    default: return 4;
  }
}

// f(T{}) for the column type's C++ type.
template <class F>
void with_type(RowType t, F&& f) {
  switch (t) {
    case RowType::kU8: return f(uint8_t{});
    case RowType::kU32: return f(uint32_t{});
    case RowType::kI32: return f(int32_t{});
    case RowType::kF32: return f(float{});
    case RowType::kF64: return f(double{});
  }
}

uint64_t key_of(const char* row) {
  uint32_t a, b;
  std::memcpy(&a, row, 4);
  std::memcpy(&b, row + 4, 4);
  return uint64_t(a) << 32 | b;
}

// A run's bytes at `at`; the file ending first is a torn record.
void read_all_at(int fd, char* p, uint64_t n, uint64_t at, const std::string& path) {
  if (!pread_exactly(fd, p, n, at))
    throw Error(errno == 0 ? path + " ends inside a tile's rows" : sys_error("read", path));
}

// A run's rows, read a window at a time.
struct Cursor {
  int fd = -1;
  uint64_t next = 0;  // rows read so far
  std::string rows;   // the window
  size_t at = 0;      // the current row's byte offset in it
};

}  // namespace

size_t RowSchema::row_bytes() const {
  if (columns.size() < 2 || columns[0].type != RowType::kU32 || columns[1].type != RowType::kU32 ||
      columns[0].per_row != 1 || columns[1].per_row != 1)
    throw Error("internal: a row table's key is two uint32 columns");
  size_t n = 0;
  for (const RowColumn& c : columns) n += type_bytes(c.type) * c.per_row;
  return n;
}

StagedRun RowSchema::write(RecordFile& file, uint32_t tile, const Rows& packed) const {
  const size_t width = row_bytes();
  if (packed.size() % width != 0) throw Error("internal: rows packed with another schema's width");
  const size_t n = packed.size() / width;
  std::vector<std::pair<uint64_t, size_t>> keys(n);
  for (size_t i = 0; i < n; ++i) keys[i] = {key_of(packed.data() + i * width), i};
  std::sort(keys.begin(), keys.end());
  std::string sorted;
  sorted.reserve(packed.size());
  for (const auto& k : keys) sorted.append(packed, k.second * width, width);
  return file.append(kMagic, tile, n, width, {{&sorted[0], sorted.size()}});
}

bool RowSchema::is_whole(const std::string& dir, const StagedRun& run) const {
  return run.extra == row_bytes() && is_whole_record(dir, run, kMagic, sizeof(RecordHeader) + run.rows * run.extra);
}

void create_row_columns(h5::File& to, const RowSchema& schema, uint64_t rows) {
  for (const RowColumn& c : schema.columns) {
    h5::remove_object(to, c.path);
    const size_t chunk = size_t(std::min<uint64_t>(std::max<uint64_t>(rows * c.per_row, 1), h5::kDefaultChunk));
    with_type(c.type, [&](auto t) { h5::create_column<decltype(t)>(to, c.path, chunk); });
  }
}

uint64_t merge_row_runs(const std::string& dir, const std::vector<StagedRun>& runs, const RowSchema& schema,
                        h5::File& to) {
  const size_t row_bytes = schema.row_bytes();
  RunFileHandles files(dir);
  std::vector<Cursor> cursor(runs.size());
  uint64_t total = 0;
  for (size_t r = 0; r < runs.size(); ++r) {
    const std::string path = files.path(runs[r].file);
    cursor[r].fd = files.fd(runs[r].file);
    RecordHeader h{};
    read_all_at(cursor[r].fd, reinterpret_cast<char*>(&h), sizeof h, runs[r].offset, path);
    if (runs[r].extra != row_bytes || !h.matches(kMagic, runs[r]))
      throw Error(path + ": the record of tile " + std::to_string(runs[r].tile) + " is not where the journal says");
    total += runs[r].rows;
  }
  create_row_columns(to, schema, total);

  // A run's next window of rows; false at its end.
  const uint64_t window = std::clamp<uint64_t>(kWindowBytes / std::max<size_t>(runs.size(), 1) / row_bytes, 1, kMaxRows);
  const auto refill = [&](size_t r) {
    Cursor& c = cursor[r];
    const uint64_t n = std::min(window, runs[r].rows - c.next);
    if (n == 0) return false;
    c.rows.resize(n * row_bytes);
    read_all_at(c.fd, &c.rows[0], c.rows.size(), runs[r].offset + sizeof(RecordHeader) + c.next * row_bytes,
                dir + "/" + runs[r].file);
    c.next += n, c.at = 0;
    return true;
  };
  // The merged rows, stored a column at a time.
  const uint64_t store_rows = std::clamp<uint64_t>(kWindowBytes / row_bytes, 1, kMaxRows);
  std::string merged;
  const auto store = [&] {
    const size_t n = merged.size() / row_bytes;
    size_t offset = 0;
    for (const RowColumn& c : schema.columns) {
      with_type(c.type, [&](auto t) {
        using T = decltype(t);
        std::vector<T> values(n * c.per_row);
        for (size_t i = 0; i < n; ++i)
          std::memcpy(&values[i * c.per_row], merged.data() + i * row_bytes + offset, sizeof(T) * c.per_row);
        h5::append(to, c.path, values);
        offset += sizeof(T) * c.per_row;
      });
    }
    merged.clear();
  };

  // The smallest key first; a key in two runs (never, for a table's unique keys) by tile.
  using Head = std::tuple<uint64_t, uint32_t, size_t>;
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  for (size_t r = 0; r < runs.size(); ++r)
    if (refill(r)) heads.emplace(key_of(cursor[r].rows.data()), runs[r].tile, r);
  uint64_t written = 0;
  while (!heads.empty()) {
    const size_t r = std::get<2>(heads.top());
    heads.pop();
    Cursor& c = cursor[r];
    merged.append(c.rows, c.at, row_bytes);
    c.at += row_bytes;
    if (c.at < c.rows.size() || refill(r)) heads.emplace(key_of(c.rows.data() + c.at), runs[r].tile, r);
    if (merged.size() / row_bytes == store_rows) written += store_rows, store();
  }
  written += merged.size() / row_bytes;
  if (!merged.empty()) store();
  return written;
}

}  // namespace hpc
