#include "io/hit_table.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <type_traits>

#include "io/hdf5_columns.hpp"
#include "src/core/cigar_identity.hpp"
#include "src/core/error.hpp"
#include "src/core/on_all_cores.hpp"

namespace hpc {

std::string HitTableColumns::cigar(size_t i) const {
  const uint64_t begin = i ? cigar_end[i - 1] : chars_base;
  return std::string(cigar_chars.begin() + (begin - chars_base), cigar_chars.begin() + (cigar_end[i] - chars_base));
}

namespace {

// cigar_of(k): row k's CIGAR (a string or a view).
template <class CigarOf>
HitTableColumns gather_columns(const std::vector<const Hit*>& rows, uint64_t chars_base, bool with_identity,
                               const CigarOf& cigar_of) {
  HitTableColumns c;
  const size_t n = rows.size();
  c.chars_base = chars_base;
  c.for_each_row_column(with_identity, [&](const char*, auto& column) { column.resize(n); });
  const auto row = [&](size_t k) -> const Hit& { return *rows[k]; };
  uint64_t end = chars_base;  // offsets first (one pass), then every column on all cores
  for (size_t k = 0; k < n; ++k) c.cigar_end[k] = end += cigar_of(k).size();
  c.cigar_chars.resize(end - chars_base);
  const auto fill = [&](size_t from, size_t to) {
    for (size_t k = from; k < to; ++k) {
      const Hit& h = row(k);
      c.query[k] = h.query;
      c.target[k] = h.target;
      c.score[k] = h.aln.score;
      c.bits[k] = h.bits;
      c.evalue[k] = h.evalue;
      c.qstart[k] = h.aln.qstart;
      c.qend[k] = h.aln.qend;
      c.tstart[k] = h.aln.tstart;
      c.tend[k] = h.aln.tend;
      const auto& cigar = cigar_of(k);
      std::copy(cigar.begin(), cigar.end(), c.cigar_chars.begin() + (c.cigar_end[k] - cigar.size() - chars_base));
      if (with_identity) c.identity[k] = cigar.empty() ? 0.f : cigar_identity(std::string_view(cigar));
    }
  };
  run_ranges(n, n < (1u << 16) ? 1 : usable_cores(), fill);
  return c;
}

}  // namespace

HitTableColumns hit_table_columns(const std::vector<const Hit*>& rows, uint64_t chars_base, bool with_identity) {
  return gather_columns(rows, chars_base, with_identity,
                        [&](size_t k) -> const std::string& { return rows[k]->aln.cigar; });
}

HitTableColumns hit_table_columns(const std::vector<const Hit*>& rows, uint64_t chars_base, bool with_identity,
                                  const std::function<std::string_view(size_t)>& cigar_of) {
  return gather_columns(rows, chars_base, with_identity, cigar_of);
}

namespace {
// A chunk of cigar_chars holds the CIGARs of about as many rows as the other columns' chunks.
constexpr size_t kCharsPerRow = 16;
}  // namespace

size_t cigar_chars_chunk(size_t chunk) { return chunk * kCharsPerRow; }

// A merge's E-values (kFast) go in stored blocks: their six low byte planes are random mantissa
// bits, which zlib shrank by ~1% at ~12 ns a byte; with the two exponent planes, 6.8 of their 8
// bytes a row, and ~60% of the merge's deflating CPU (66 ns a row against 4 stored). A hit then
// takes ~1.2 bytes more (a screen's ~9.0 -> ~10.2). Old files read as before: only the level differs.
// So do the identities of rows with CIGARs (`aligned`): matches / columns as floats, whose low
// mantissa planes zlib's Z_RLE only Huffman-codes, 2.7 of 4 bytes a row for ~70 ns a row (build
// box, 4,000 balifam1000 sequences), a tenth of the merge's deflating CPU with the CIGARs'.
// Score-only tables keep level 1: their identities are zero chunks that deflate to nothing.
namespace {
h5::Compression column_compression(const char* name, h5::Compression compression, bool aligned) {
  const bool stored = std::strcmp(name, "evalue") == 0 || (aligned && std::strcmp(name, "identity") == 0);
  return compression == h5::Compression::kFast && stored ? h5::Compression::kStored : compression;
}
}  // namespace

void create_hit_table(h5::File& file, const std::string& group, bool with_identity, size_t chunk,
                      h5::Compression compression, bool aligned) {
  HitTableColumns empty;
  empty.for_each_row_column(with_identity, [&](const char* name, auto& column) {
    using T = typename std::decay_t<decltype(column)>::value_type;
    h5::create_column<T>(file, group + "/" + name, chunk, column_compression(name, compression, aligned));
  });
  h5::create_column<uint8_t>(file, group + "/cigar_chars", cigar_chars_chunk(chunk), compression);
}

bool append_hit_table(h5::File& file, const std::string& group, HitTableColumns& cols, bool with_identity,
                      const std::atomic<bool>* cancel) {
  bool done = true;
  cols.for_each_row_column(with_identity, [&](const char* name, auto& column) {
    if (cancel && *cancel) done = false;
    if (done) h5::append(file, group + "/" + name, column);
  });
  if (done && !(cancel && *cancel)) {
    h5::append(file, group + "/cigar_chars", cols.cigar_chars);
    return true;
  }
  return false;
}

DeflatedHitTable deflate_hit_table(HitTableColumns& cols, bool with_identity, size_t chunk,
                                   h5::Compression compression, size_t threads, bool aligned) {
  DeflatedHitTable d;
  if (h5::deflate_level(compression) < 0 || chunk == 0) return d;
  // One deflater a column and a task a chunk: a segment's few chunks a column then still keep
  // every core busy.
  std::vector<std::function<bool(size_t, std::vector<uint8_t>&, std::vector<uint8_t>&)>> deflaters;
  std::vector<std::pair<size_t, size_t>> tasks;  // (column, chunk)
  size_t scratch = 0;
  const auto add = [&](const auto& column, size_t column_chunk, int level) {
    using T = typename std::decay_t<decltype(column)>::value_type;
    const size_t n = (column.size() + column_chunk - 1) / column_chunk;
    d.columns.push_back({column_chunk, std::vector<std::vector<uint8_t>>(n)});
    for (size_t k = 0; k < n; ++k) tasks.emplace_back(deflaters.size(), k);
    deflaters.push_back([&column, column_chunk, level](size_t k, std::vector<uint8_t>& plain, std::vector<uint8_t>& out) {
      return h5::deflate_chunk(column.data(), column.size(), column_chunk, k, level, plain, out);
    });
    scratch = std::max(scratch, column_chunk * sizeof(T));
  };
  cols.for_each_row_column(with_identity, [&](const char* name, auto& column) {
    add(column, chunk, h5::deflate_level(column_compression(name, compression, aligned)));
  });
  if (cols.chars_base % cigar_chars_chunk(chunk) == 0) {
    add(cols.cigar_chars, cigar_chars_chunk(chunk), h5::deflate_level(compression));
  } else {  // characters that do not start a chunk: appended through HDF5
    d.columns.emplace_back();
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> ok{true};
  run_parts(std::max<size_t>(1, std::min(threads, tasks.size())), [&](size_t) {
    h5::PooledBytes pooled(scratch);
    std::vector<uint8_t>& plain = pooled.get();
    for (size_t t = next++; t < tasks.size() && ok; t = next++)
      if (!deflaters[tasks[t].first](tasks[t].second, plain, d.columns[tasks[t].first].chunks[tasks[t].second]))
        ok = false;
  });
  if (!ok) d.columns.clear();  // append_hit_table then writes through HDF5, which reports any real error
  return d;
}

void append_hit_table(h5::File& file, const std::string& group, HitTableColumns& cols, bool with_identity,
                      const DeflatedHitTable& deflated) {
  HitTableAppender(file, group, with_identity).append(cols, deflated);
}

HitTableAppender::HitTableAppender(h5::File& file, const std::string& group, bool with_identity)
    : file_(file), with_identity_(with_identity) {
  HitTableColumns names;
  names.for_each_row_column(with_identity,
                            [&](const char* name, auto&) { columns_.emplace_back(file, group + "/" + name); });
  columns_.emplace_back(file, group + "/cigar_chars");
}

HitTableAppender::~HitTableAppender() = default;

void HitTableAppender::append(HitTableColumns& cols, const DeflatedHitTable& deflated) {
  static const h5::DeflatedChunks none;
  size_t k = 0;
  const auto chunks = [&]() -> const h5::DeflatedChunks& {
    return deflated.columns.empty() ? none : deflated.columns[k];
  };
  cols.for_each_row_column(with_identity_, [&](const char*, auto& column) {
    columns_[k].append_deflated(file_, column, chunks());
    ++k;
  });
  columns_[k].append_deflated(file_, cols.cigar_chars, chunks());
}

namespace {

template <class T>
std::vector<T> read_column(const h5::File& f, const std::string& path, size_t rows) {
  std::vector<T> v = h5::read_all<T>(f, path);
  if (v.size() != rows)
    throw Error(f.path() + ": column '" + path + "' has " + std::to_string(v.size()) + " rows, expected " +
                std::to_string(rows));
  return v;
}

}  // namespace

std::vector<Hit> read_hit_rows(const h5::File& f, const std::string& group) {
  HitTableColumns c;
  c.query = h5::read_all<uint32_t>(f, group + "/query");
  const size_t rows = c.query.size();
  const bool ragged = f.exists(group + "/cigar_end");
  c.for_each_row_column(false, [&](const char* name, auto& column) {
    using T = typename std::decay_t<decltype(column)>::value_type;
    if (std::string(name) == "query" || (!ragged && std::string(name) == "cigar_end")) return;
    column = read_column<T>(f, group + "/" + name, rows);
  });
  std::vector<std::string> old_cigars;  // files written before the ragged column
  if (ragged) {
    c.cigar_chars = h5::read_all<uint8_t>(f, group + "/cigar_chars");
    for (size_t i = 0; i < rows; ++i)
      if (c.cigar_end[i] > c.cigar_chars.size() || c.cigar_end[i] < (i ? c.cigar_end[i - 1] : 0))
        throw Error(f.path() + ": '" + group + "/cigar_end' row " + std::to_string(i) +
                    " points outside cigar_chars; the file is damaged");
  } else {
    old_cigars = read_column<std::string>(f, group + "/cigar", rows);
  }
  std::vector<Hit> hits(rows);
  for (size_t i = 0; i < rows; ++i) {
    Hit& h = hits[i];
    h.query = c.query[i];
    h.target = c.target[i];
    h.bits = c.bits[i];
    h.evalue = c.evalue[i];
    h.aln.score = c.score[i];
    h.aln.qstart = c.qstart[i];
    h.aln.qend = c.qend[i];
    h.aln.tstart = c.tstart[i];
    h.aln.tend = c.tend[i];
    h.aln.cigar = ragged ? c.cigar(i) : std::move(old_cigars[i]);
  }
  return hits;
}

uint64_t cigar_chars_for_rows(const h5::File& f, const std::string& group, uint64_t rows) {
  if (rows == 0) return 0;
  std::vector<uint64_t> end;
  h5::RangeReader(f, group + "/cigar_end").read(rows - 1, 1, end);
  return end.at(0);
}

}  // namespace hpc
