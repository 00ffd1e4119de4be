#include "io/result_file.hpp"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <fstream>
#include <functional>
#include <thread>
#include <type_traits>
#include <utility>

#include "io/checkpoint.hpp"
#include "io/hdf5_columns.hpp"
#include "src/core/error.hpp"
#include "src/core/on_all_cores.hpp"

namespace hpc {
namespace {

// Gives the heap's free pages back to the system. Every batch is decoded on a new writer
// thread (and its rows built on all cores), so glibc spreads a run's short-lived buffers over
// many arenas; without this, their freed pages counted as resident memory that grew with
// the length of the run (a 45M-row screen: 332 MiB peak).
void release_free_memory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

// Staging columns take one small append per tile; a short chunk keeps the cost of
// rewriting the partial last chunk at every flush small.
constexpr size_t kStagingChunk = 8 * 1024;
constexpr size_t kLedgerChunk = 1024;
constexpr uint8_t kTileDone = 1;
constexpr size_t kStagingBatchTiles = 256;  // stage_in_batches: write once this many tiles wait
// stage_in_batches: tiles waiting beyond this many bytes make the caller wait for the writer
// (the memory of a run stays bounded, however fast the workers deliver).
constexpr size_t kMaxWaitingBytes = 8u << 20;
// finish_merged: rows held by the merge's read buffers (all runs together) and its output buffer.
constexpr size_t kMergeWindowRows = 256 * 1024;
constexpr size_t kMergeMinRunRows = 1024;
constexpr size_t kMergeOutputRows = 4 * h5::kDefaultChunk;

// The hit table as columns, the shape it has on disk. Written from hits, the CIGAR column
// points into the hits' strings (a screen writes millions: copying each cost more than the
// HDF5 write); read back, it holds strings.
template <class Text>
struct HitColumnsOf {
  std::vector<uint32_t> query, target, qstart, qend, tstart, tend;
  std::vector<int32_t> score;
  std::vector<double> bits, evalue;
  std::vector<float> identity;  // fraction of alignment columns that are '=' (0..1)
  std::vector<Text> cigar;

  HitColumnsOf() = default;
  // Rows hits[order[k]] (every row in order without `order`). An empty CIGAR is stored as a
  // null string: no heap object (h5py reads it as '').
  explicit HitColumnsOf(const std::vector<Hit>& hits, const std::vector<uint32_t>* order = nullptr) {
    static_assert(std::is_same_v<Text, const char*>, "columns built from hits point into them");
    const size_t n = hits.size();
    for_each([&](const char*, auto& column) { column.resize(n); });
    auto fill = [&](size_t from, size_t to) {
      for (size_t k = from; k < to; ++k) {
        const Hit& h = hits[order ? (*order)[k] : k];
        query[k] = h.query;
        target[k] = h.target;
        score[k] = h.aln.score;
        bits[k] = h.bits;
        evalue[k] = h.evalue;
        qstart[k] = h.aln.qstart;
        qend[k] = h.aln.qend;
        tstart[k] = h.aln.tstart;
        tend[k] = h.aln.tend;
        identity[k] = static_cast<float>(cigar_stats(h.aln.cigar).identity());  // parses the CIGAR
        cigar[k] = h.aln.cigar.empty() ? nullptr : h.aln.cigar.c_str();
      }
    };
    // A screen's millions of rows on all cores (parsing the CIGARs is most of it).
    run_ranges(n, n < (1u << 16) ? 1 : usable_cores(), fill);
  }

  // Visits every column with its name: one list for create, append and read.
  template <class F>
  void for_each(F&& f) {
    f("query", query);
    f("target", target);
    f("score", score);
    f("bits", bits);
    f("evalue", evalue);
    f("qstart", qstart);
    f("qend", qend);
    f("tstart", tstart);
    f("tend", tend);
    f("identity", identity);
    f("cigar", cigar);
  }
};
using HitColumns = HitColumnsOf<const char*>;      // to write (views of the hits)
using ReadHitColumns = HitColumnsOf<std::string>;  // read back

// The final table compressed (CIGAR references too); staging rows, written and read once,
// not at all.
void create_hit_columns(h5::File& file, const std::string& group, size_t chunk, h5::Compression compression) {
  HitColumns empty;
  empty.for_each([&](const char* name, auto& column) {
    using T = typename std::decay_t<decltype(column)>::value_type;
    h5::create_column<T>(file, group + "/" + name, chunk, compression);
  });
}

// Appends every column. With `cancel` (staging rows, see end_staging()) it stops, returning
// false, once that is set: checked before each column and, within the CIGAR column
// (variable-length strings, by far the slowest), every kCancelPiece rows, so that a finished
// run does not wait for a staging batch nobody needs. A stopped append leaves the group's
// columns of unequal length; recover_ledger cuts them to the rows of finished tiles.
constexpr size_t kCancelPiece = 1 << 16;
bool append_hit_columns(h5::File& file, const std::string& group, HitColumns& cols,
                        const std::atomic<bool>* cancel = nullptr) {
  bool done = true;
  cols.for_each([&](const char* name, auto& column) {
    if (cancel && *cancel) done = false;
    if (!done) return;
    using Column = std::decay_t<decltype(column)>;
    if (!cancel || !std::is_same_v<Column, std::vector<const char*>> || column.size() <= kCancelPiece)
      return h5::append(file, group + "/" + name, column);
    for (size_t first = 0; first < column.size() && done; first += kCancelPiece) {
      h5::append(file, group + "/" + name,
                 Column(column.begin() + first, column.begin() + std::min(column.size(), first + kCancelPiece)));
      done = !*cancel;
    }
  });
  return done;
}

// The final /hits: the CIGAR column (variable-length strings, written by HDF5 on this thread,
// ~0.2 us a row) while the number columns are deflated on the other cores, then stored as
// ready chunks; each alone took 0.6-1 s for the 3M rows of a 20,000-sequence screen.
void write_final_hit_columns(h5::File& file, const std::string& group, HitColumns& cols, size_t chunk) {
  std::vector<h5::DeflatedChunks> deflated;
  std::thread deflater([&] {
    cols.for_each([&](const char*, auto& column) {
      using T = typename std::decay_t<decltype(column)>::value_type;
      if constexpr (std::is_arithmetic_v<T>) deflated.push_back(h5::deflate_chunks(column.data(), column.size(), chunk));
    });
  });
  try {
    cols.for_each([&](const char* name, auto& column) {
      using T = typename std::decay_t<decltype(column)>::value_type;
      if constexpr (!std::is_arithmetic_v<T>) h5::append(file, group + "/" + name, column);
    });
  } catch (...) {
    deflater.join();
    throw;
  }
  deflater.join();
  size_t k = 0;
  cols.for_each([&](const char* name, auto& column) {
    using T = typename std::decay_t<decltype(column)>::value_type;
    if constexpr (std::is_arithmetic_v<T>) h5::append_deflated(file, group + "/" + name, column, deflated[k++]);
  });
}

}  // namespace

struct ResultFile::Impl {
  h5::File file;
  bool finished = false;
  std::vector<uint32_t> finished_tiles;
  // Batched staging (stage_in_batches): tiles waiting to be written, and the batch being
  // written on a background thread (the only thread touching the file meanwhile: every
  // other use of the file drains it first, so the serial HDF5 library is never entered twice).
  struct Batch {
    std::vector<std::pair<uint32_t, std::function<std::vector<Hit>()>>> tiles;  // id, its rows
    size_t bytes = 0;  // what the tiles' row makers hold, as their callers said
  };
  double batch_seconds = -1;  // < 0: every tile written at once, on the caller's thread
  Batch waiting;
  std::thread writer;
  std::atomic<bool> writer_busy{false};
  std::atomic<bool> cancel_staging{false};  // finish(): the batch in flight may stop early
  std::exception_ptr writer_error;
  std::chrono::steady_clock::time_point last_write = std::chrono::steady_clock::now();
  // The staged runs: each finished tile's rows, sorted, at [first, first + count) of /staging/hits.
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  uint64_t staged_rows = 0;
  Impl(const std::string& path, h5::Mode mode) : file(path, mode) {}

  // The batch's rows, sorted together (hit_order), appended to /staging/hits as one run (a
  // batch holds at most kMaxWaitingBytes of results: the runs to merge at the end are few),
  // then the ledger, in one flush: after a crash a tile is either done with all its rows on
  // disk, or not done (rows without a ledger entry are ignored).
  void write(Batch b) {
    std::vector<Hit> hits;
    std::vector<uint32_t> rows_tile, ids;
    for (auto& [id, rows] : b.tiles) {
      if (cancel_staging) return;
      std::vector<Hit> h = std::exchange(rows, nullptr)();  // the tile's bytes go now
      rows_tile.insert(rows_tile.end(), h.size(), id);
      hits.insert(hits.end(), std::make_move_iterator(h.begin()), std::make_move_iterator(h.end()));
      ids.push_back(id);
    }
    // The run's order (hit_order), each row's tile id with it.
    std::vector<uint32_t> order(hits.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return hit_order(hits[x], hits[y]); });
    std::vector<uint32_t> sorted_tile(order.size());
    for (size_t i = 0; i < order.size(); ++i) sorted_tile[i] = rows_tile[order[i]];
    HitColumns cols(hits, &order);
    // Rows without their ledger entry are dropped by a resume, so stopping here is safe.
    if (!append_hit_columns(file, "staging/hits", cols, &cancel_staging) || cancel_staging) return;
    h5::append(file, "staging/hits/tile", sorted_tile);
    h5::append(file, "tiles/id", ids);
    h5::append(file, "tiles/status", std::vector<uint8_t>(ids.size(), kTileDone));
    file.flush();
    if (!hits.empty()) runs.emplace_back(staged_rows, hits.size());
    staged_rows += hits.size();
    release_free_memory();
  }
  // Waits for the background batch; rethrows its error.
  void drain() {
    if (writer.joinable()) writer.join();
    if (writer_error) std::rethrow_exception(std::exchange(writer_error, nullptr));
  }
  // Writes what waits: on a background thread (batch mode, during the run) or here. While
  // a background batch is still being written, the tiles keep waiting for the next one: the
  // caller (the master, receiving results) never waits for the disk.
  void write_waiting(bool background) {
    if (background && writer_busy) return;
    drain();
    if (waiting.tiles.empty()) return;
    last_write = std::chrono::steady_clock::now();
    if (!background) return write(std::exchange(waiting, Batch{}));
    writer_busy = true;
    writer = std::thread([this, b = std::exchange(waiting, Batch{})]() mutable {
      try {
        write(std::move(b));
      } catch (...) {
        writer_error = std::current_exception();
      }
      writer_busy = false;
    });
  }

  // The runs of a reopened file: its staging rows cut where hit_order restarts (a run ends
  // there; two runs that happen to continue each other merge the same as one).
  void recover_runs() {
    const std::vector<uint32_t> query = h5::read_all<uint32_t>(file, "staging/hits/query");
    const std::vector<uint32_t> target = h5::read_all<uint32_t>(file, "staging/hits/target");
    const std::vector<int32_t> score = h5::read_all<int32_t>(file, "staging/hits/score");
    uint64_t first = 0;
    for (size_t i = 1; i <= query.size(); ++i) {
      const bool restart = i == query.size() || query[i] < query[i - 1] ||
                           (query[i] == query[i - 1] && (score[i] > score[i - 1] ||
                                                         (score[i] == score[i - 1] && target[i] <= target[i - 1])));
      if (restart) {
        runs.emplace_back(first, i - first);
        first = i;
      }
    }
    staged_rows = query.size();
  }

  void require_open(const char* what) const {
    if (finished) throw Error(file.path() + ": cannot " + what + " after the result file was finished");
  }
};

static h5::File open_result_file(const std::string& path);

ResultFile::ResultFile(const std::string& path, OpenMode mode) : path_(path) {
  if (mode == OpenMode::kResume) {
    open_result_file(path);  // says clearly what is wrong with a file that is not ours
    impl_ = std::make_unique<Impl>(path, h5::Mode::kReadWrite);
    h5::File& f = impl_->file;
    const std::string status = h5::read_string_attribute(f, "", "status");
    if (status != "incomplete")
      throw Error("--resume: " + path + " has status '" + status + "'; only an unfinished run can be resumed");
    h5::remove_object(f, "hits");  // a finish() cut short: rebuilt at the end
    impl_->finished_tiles = checkpoint::recover_ledger(f, "staging/hits");
    impl_->recover_runs();
    const int64_t resumed = h5::has_attribute(f, "", "resumed") ? h5::read_int_attribute(f, "", "resumed") : 0;
    h5::set_attribute(f, "", "resumed", resumed + 1);
    h5::set_attribute(f, "", "resume_time", h5::utc_now_iso8601());
    f.flush();
    return;
  }
  impl_ = std::make_unique<Impl>(path, h5::Mode::kCreate);
  h5::File& f = impl_->file;
  h5::set_attribute(f, "", "program", std::string("hpcalign"));
  h5::set_attribute(f, "", "version", std::string(HPCALIGN_VERSION));
  h5::set_attribute(f, "", "start_time", h5::utc_now_iso8601());
  h5::set_attribute(f, "", "status", std::string("incomplete"));
  create_hit_columns(f, "staging/hits", kStagingChunk, h5::Compression::kNone);
  h5::create_column<uint32_t>(f, "staging/hits/tile", kStagingChunk, h5::Compression::kNone);
  h5::create_column<uint32_t>(f, "tiles/id", kLedgerChunk);
  h5::create_column<uint8_t>(f, "tiles/status", kLedgerChunk);
  // On disk at once: a run that dies before its first tile still leaves a readable file.
  f.flush();
}

ResultFile::ResultFile(const std::string& path) : ResultFile(path, OpenMode::kCreate) {}

ResultFile::~ResultFile() {
  // An unfinished file stays "incomplete"; whatever was flushed per tile is kept.
  // Closing cannot throw from a destructor, so errors here are dropped.
  try {
    if (impl_ && impl_->file.is_open() && !impl_->finished) impl_->write_waiting(false);
  } catch (const std::exception&) {
  }
  if (impl_ && impl_->writer.joinable()) impl_->writer.join();  // write_waiting threw before joining
  try {
    if (impl_ && impl_->file.is_open()) impl_->file.close();
  } catch (const Error&) {
  }
}

void ResultFile::set_attribute(const std::string& name, const std::string& value) {
  impl_->require_open("set an attribute");
  impl_->drain();
  h5::set_attribute(impl_->file, "", name, value);
}

void ResultFile::set_attribute(const std::string& name, int64_t value) {
  impl_->require_open("set an attribute");
  impl_->drain();
  h5::set_attribute(impl_->file, "", name, value);
}

void ResultFile::set_attribute(const std::string& name, double value) {
  impl_->require_open("set an attribute");
  impl_->drain();
  h5::set_attribute(impl_->file, "", name, value);
}

void ResultFile::write_sequences(const std::string& group, const SequenceSet& seqs) {
  impl_->require_open("write sequences");
  impl_->drain();
  if (group != "queries" && group != "targets")
    throw Error(path_ + ": sequence group must be 'queries' or 'targets', not '" + group + "'");
  std::vector<uint32_t> lengths(seqs.size());
  for (size_t i = 0; i < seqs.size(); ++i) lengths[i] = seqs.length(i);
  h5::write_column(impl_->file, group + "/id", seqs.ids);
  h5::write_column(impl_->file, group + "/length", lengths);
}

void ResultFile::append_tile(uint32_t tile_id, const std::vector<Hit>& hits) {
  append_tile_lazily(tile_id, [hits] { return hits; }, hits.size() * sizeof(Hit));
}

void ResultFile::append_tile_lazily(uint32_t tile_id, std::function<std::vector<Hit>()> rows, size_t bytes) {
  impl_->require_open("append a tile");
  Impl& m = *impl_;
  m.waiting.tiles.emplace_back(tile_id, std::move(rows));
  m.waiting.bytes += bytes;
  const double since = std::chrono::duration<double>(std::chrono::steady_clock::now() - m.last_write).count();
  if (m.batch_seconds < 0) {
    m.write_waiting(false);
  } else if (m.waiting.bytes >= kMaxWaitingBytes) {
    m.drain();  // bounded memory: past the limit, the caller waits for the batch being written
    m.write_waiting(true);
  } else if (m.waiting.tiles.size() >= kStagingBatchTiles || since >= m.batch_seconds) {
    m.write_waiting(true);
  }
}

void ResultFile::stage_in_batches(double seconds) { impl_->batch_seconds = std::max(seconds, 0.0); }

void ResultFile::end_staging() {
  impl_->require_open("end the staging");
  impl_->cancel_staging = true;
  impl_->drain();
  impl_->waiting = {};
}

void ResultFile::finish(const std::vector<Hit>& final_hits) {
  impl_->require_open("finish");
  // /hits supersedes the staging rows and the ledger (they exist for a look at an unfinished
  // run; a resume rebuilds from the journal): both go once the file is complete.
  end_staging();
  h5::File& f = impl_->file;
  HitColumns cols(final_hits);
  const size_t chunk = std::min(std::max<size_t>(final_hits.size(), 1), h5::kDefaultChunk);
  create_hit_columns(f, "hits", chunk, h5::Compression::kAll);
  write_final_hit_columns(f, "hits", cols, chunk);
  h5::set_attribute(f, "", "end_time", h5::utc_now_iso8601());
  h5::set_attribute(f, "", "status", std::string("complete"));
  f.flush();
  h5::remove_object(f, "staging");
  h5::remove_object(f, "tiles");
  f.flush();
  impl_->finished = true;
  f.close();
}

namespace {

// One staged run being merged: its next rows, read kMergeWindowRows / runs at a time.
struct RunCursor {
  uint64_t next = 0, end = 0;  // rows of /staging/hits not yet buffered
  ReadHitColumns buf;
  size_t at = 0;
  bool empty() const { return at == buf.query.size(); }
};

void move_row(ReadHitColumns& from, size_t i, ReadHitColumns& to) {
  to.query.push_back(from.query[i]);
  to.target.push_back(from.target[i]);
  to.score.push_back(from.score[i]);
  to.bits.push_back(from.bits[i]);
  to.evalue.push_back(from.evalue[i]);
  to.qstart.push_back(from.qstart[i]);
  to.qend.push_back(from.qend[i]);
  to.tstart.push_back(from.tstart[i]);
  to.tend.push_back(from.tend[i]);
  to.identity.push_back(from.identity[i]);
  to.cigar.push_back(std::move(from.cigar[i]));
}

// k-way merge of the sorted runs of `from`'s staging rows into `to`'s /hits.
uint64_t merge_runs(const h5::File& from, const std::vector<std::pair<uint64_t, uint64_t>>& runs, h5::File& to,
                    uint32_t max_per_query, double max_evalue) {
  std::vector<h5::RangeReader> readers;
  ReadHitColumns names;
  names.for_each([&](const char* name, auto&) { readers.emplace_back(from, std::string("staging/hits/") + name); });
  const size_t piece = std::max(kMergeMinRunRows, kMergeWindowRows / std::max<size_t>(runs.size(), 1));
  std::vector<RunCursor> cursors(runs.size());
  const auto refill = [&](RunCursor& c) {
    const uint64_t n = std::min<uint64_t>(piece, c.end - c.next);
    size_t k = 0;
    c.buf.for_each([&](const char*, auto& column) { readers[k++].read(c.next, n, column); });
    c.next += n;
    c.at = 0;
  };
  // The heap's order is hit_order on the runs' current rows (a min-heap: std's is a max-heap).
  const auto after = [&](size_t a, size_t b) {
    const RunCursor &x = cursors[a], &y = cursors[b];
    if (x.buf.query[x.at] != y.buf.query[y.at]) return x.buf.query[x.at] > y.buf.query[y.at];
    if (x.buf.score[x.at] != y.buf.score[y.at]) return x.buf.score[x.at] < y.buf.score[y.at];
    return x.buf.target[x.at] > y.buf.target[y.at];
  };
  std::vector<size_t> heap;
  uint64_t total = 0;
  for (size_t r = 0; r < runs.size(); ++r) {
    cursors[r].next = runs[r].first;
    cursors[r].end = runs[r].first + runs[r].second;
    total += runs[r].second;
    refill(cursors[r]);
    if (!cursors[r].empty()) heap.push_back(r);
  }
  std::make_heap(heap.begin(), heap.end(), after);
  const size_t chunk = std::min<uint64_t>(std::max<uint64_t>(total, 1), h5::kDefaultChunk);
  create_hit_columns(to, "hits", chunk, h5::Compression::kAll);
  ReadHitColumns out;
  uint64_t written = 0, query_rows = 0;
  uint32_t last_query = 0;
  const auto flush = [&] {
    written += out.query.size();
    out.for_each([&](const char* name, auto& column) {
      h5::append(to, std::string("hits/") + name, column);
      column.clear();
    });
    release_free_memory();
  };
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), after);
    RunCursor& c = cursors[heap.back()];
    const uint32_t q = c.buf.query[c.at];
    query_rows = (written + out.query.size() > 0 && q == last_query) ? query_rows + 1 : 0;
    last_query = q;
    // !(e > max): NaN E-values (modes without statistics) are kept.
    if ((max_per_query == 0 || query_rows < max_per_query) && !(c.buf.evalue[c.at] > max_evalue))
      move_row(c.buf, c.at, out);
    ++c.at;
    if (c.empty() && c.next < c.end) refill(c);
    if (c.empty()) {
      c.buf = ReadHitColumns{};
      heap.pop_back();
    } else {
      std::push_heap(heap.begin(), heap.end(), after);
    }
    if (out.query.size() >= kMergeOutputRows) flush();
  }
  flush();
  return written;
}

}  // namespace

size_t ResultFile::staged_runs() const {
  impl_->drain();
  return impl_->runs.size();
}

uint64_t ResultFile::finish_merged(uint32_t max_per_query, double max_evalue) {
  impl_->require_open("finish");
  Impl& m = *impl_;
  m.write_waiting(false);  // every tile's run on disk
  m.file.flush();
  m.file.close();
  const std::string fresh = path_ + ".finishing";
  uint64_t rows = 0;
  {
    const h5::File from(path_, h5::Mode::kReadOnly);
    h5::File to(fresh, h5::Mode::kCreate);
    h5::copy_root_attributes(from, to);
    for (const std::string& name : h5::list_group(from, "/"))
      if (name != "staging" && name != "tiles" && name != "hits") h5::copy_object(from, to, name);
    rows = merge_runs(from, m.runs, to, max_per_query, max_evalue);
    h5::set_attribute(to, "", "end_time", h5::utc_now_iso8601());
    h5::set_attribute(to, "", "status", std::string("complete"));
    to.close();
  }
  if (std::rename(fresh.c_str(), path_.c_str()) != 0)
    throw Error("cannot replace " + path_ + " by the finished " + fresh + ": " + std::strerror(errno));
  m.finished = true;
  return rows;
}

// ---- read side ----

static h5::File open_result_file(const std::string& path) {
  if (!std::ifstream(path)) throw Error("cannot open " + path + ": " + std::strerror(errno));
  if (!h5::is_hdf5(path)) throw Error(path + " is not an hpcalign result file (not HDF5)");
  h5::File f(path, h5::Mode::kReadOnly);
  if (h5::has_attribute(f, "", "format") && h5::read_string_attribute(f, "", "format") == "hpcalign-db")
    throw Error(path + " is an hpcalign database (from makedb), not a result file");
  if (!h5::has_attribute(f, "", "program") || h5::read_string_attribute(f, "", "program") != "hpcalign" ||
      !h5::has_attribute(f, "", "status"))
    throw Error(path + " is not an hpcalign result file");
  return f;
}

namespace {

template <class T>
std::vector<T> read_column(const h5::File& f, const std::string& path) {
  return f.exists(path) ? h5::read_all<T>(f, path) : std::vector<T>{};
}

}  // namespace

static HitTable read_hit_table_in(const h5::File& f, const std::string& group) {
  const std::string& path = f.path();
  HitTable t;
  t.status = h5::read_string_attribute(f, "", "status");
  t.query_ids = read_column<std::string>(f, "queries/id");
  t.query_lengths = read_column<uint32_t>(f, "queries/length");
  t.target_ids = read_column<std::string>(f, "targets/id");
  t.target_lengths = read_column<uint32_t>(f, "targets/length");
  if (!f.exists(group)) throw Error(path + ": no '" + group + "' table in this result file");

  ReadHitColumns cols;
  size_t rows = 0;
  bool first = true;
  cols.for_each([&](const char* name, auto& column) {
    using T = typename std::decay_t<decltype(column)>::value_type;
    column = h5::read_all<T>(f, group + "/" + name);
    if (first) rows = column.size();
    first = false;
    if (column.size() != rows)
      throw Error(path + ": column '" + group + "/" + name + "' has " + std::to_string(column.size()) +
                  " rows, expected " + std::to_string(rows));
  });
  t.hits.resize(rows);
  for (size_t i = 0; i < rows; ++i) {
    Hit& h = t.hits[i];
    h.query = cols.query[i];
    h.target = cols.target[i];
    h.bits = cols.bits[i];
    h.evalue = cols.evalue[i];
    h.aln.score = cols.score[i];
    h.aln.qstart = cols.qstart[i];
    h.aln.qend = cols.qend[i];
    h.aln.tstart = cols.tstart[i];
    h.aln.tend = cols.tend[i];
    h.aln.cigar = std::move(cols.cigar[i]);
  }
  return t;
}

const std::vector<uint32_t>& ResultFile::finished_tiles() const { return impl_->finished_tiles; }

std::vector<Hit> ResultFile::finished_hits() const {
  return read_hit_table_in(impl_->file, "staging/hits").hits;  // recover_ledger left only finished tiles' rows
}

void ResultFile::mark_stopped(const std::string& signal_name) {
  impl_->require_open("mark a stop");
  impl_->write_waiting(false);
  h5::set_attribute(impl_->file, "", "stopped_by_signal", signal_name);
  impl_->file.flush();
}

h5::File& ResultFile::h5_file() {
  impl_->drain();
  return impl_->file;
}

HitTable read_hit_table(const std::string& path, const std::string& group) {
  return read_hit_table_in(open_result_file(path), group);
}

std::string read_string_attribute(const std::string& path, const std::string& name) {
  h5::File f(path, h5::Mode::kReadOnly);
  return h5::read_string_attribute(f, "", name);
}

}  // namespace hpc
