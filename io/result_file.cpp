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
#include "io/hit_table.hpp"
#include "io/result_lifecycle.hpp"
#include "io/run_merge.hpp"
#include "src/core/error.hpp"
#include "src/core/on_all_cores.hpp"
#include "src/core/rename_over.hpp"

namespace hpc {
namespace {

// Gives the heap's free pages back to the system. Every batch is decoded on a new writer
// thread, so glibc spreads a run's short-lived buffers over many arenas (and raises its mmap
// threshold after the first big free): without this, their freed pages stayed resident and
// grew with the run (3,000 sequences, every pair kept: 281 MiB peak instead of 131).
void release_free_memory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

// Staging columns take one append per batch of tiles; unfiltered (written and read once).
constexpr size_t kStagingChunk = 64 * 1024;
constexpr size_t kStagingBatchTiles = 256;  // stage_in_batches: write once this many tiles wait
// stage_in_batches: tiles waiting beyond this many bytes make the caller wait for the writer
// (the memory of a run stays bounded, however fast the workers deliver).
constexpr size_t kMaxWaitingBytes = 8u << 20;

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
  uint64_t staged_rows = 0, staged_chars = 0;
  Impl(const std::string& path, h5::Mode mode) : file(path, mode) {}

  // The batch's rows, sorted together (hit_order), appended to /staging/hits as one run (a
  // batch holds at most kMaxWaitingBytes of results: the runs to merge at the end are few),
  // then the ledger, in one flush: after a crash a tile is either done with all its rows on
  // disk, or not done (rows without a ledger entry are ignored).
  void write(Batch b) {
    std::vector<std::vector<Hit>> tiles;  // each tile's rows, left where its row maker put them
    std::vector<uint32_t> ids;
    size_t n = 0;
    for (auto& [id, rows] : b.tiles) {
      if (cancel_staging) return;
      tiles.push_back(std::exchange(rows, nullptr)());  // the tile's bytes go now
      n += tiles.back().size();
      ids.push_back(id);
    }
    // The run's order (hit_order), from packed keys: sorting indices through the rows
    // themselves (a cache miss a comparison) was most of a batch's time.
    struct Key {
      uint64_t query_score;
      uint32_t target, row;
      bool operator<(const Key& o) const {
        return query_score != o.query_score ? query_score < o.query_score : target < o.target;
      }
    };
    std::vector<Key> keys;
    std::vector<const Hit*> rows;
    std::vector<uint32_t> row_tile;
    keys.reserve(n);
    rows.reserve(n);
    row_tile.reserve(n);
    for (size_t t = 0; t < tiles.size(); ++t)
      for (const Hit& h : tiles[t]) {
        keys.push_back({hit_order_key(h.query, h.aln.score), h.target, uint32_t(rows.size())});
        rows.push_back(&h);
        row_tile.push_back(ids[t]);
      }
    std::sort(keys.begin(), keys.end());
    std::vector<const Hit*> sorted(n);
    std::vector<uint32_t> sorted_tile(n);
    for (size_t i = 0; i < n; ++i) {
      sorted[i] = rows[keys[i].row];
      sorted_tile[i] = row_tile[keys[i].row];
    }
    HitTableColumns cols = hit_table_columns(sorted, staged_chars, false);
    // Rows without their ledger entry are dropped by a resume, so stopping here is safe.
    if (!append_hit_table(file, "staging/hits", cols, false, &cancel_staging) || cancel_staging) return;
    h5::append(file, "staging/hits/tile", sorted_tile);
    result_lifecycle::append_ledger(file, ids);
    file.flush();
    if (n > 0) runs.emplace_back(staged_rows, n);
    staged_rows += n;
    if (!cols.cigar_end.empty()) staged_chars = cols.cigar_end.back();
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
    staged_chars = h5::column_length(file, "staging/hits/cigar_chars");
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
  create_hit_table(f, "staging/hits", false, kStagingChunk, h5::Compression::kNone);
  h5::create_column<uint32_t>(f, "staging/hits/tile", kStagingChunk, h5::Compression::kNone);
  result_lifecycle::create_ledger(f);
  result_lifecycle::begin(f);  // flushed: a run that dies before its first tile leaves a readable file
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
  result_lifecycle::write_sequences(impl_->file, group, seqs);
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
  std::vector<const Hit*> rows(final_hits.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = &final_hits[i];
  HitTableColumns cols = hit_table_columns(rows, 0, true);
  const size_t chunk = std::min(std::max<size_t>(final_hits.size(), 1), h5::kDefaultChunk);
  create_hit_table(f, "hits", true, chunk, h5::Compression::kNumbers);
  append_hit_table(f, "hits", cols, true);
  result_lifecycle::complete(f);
  f.flush();
  h5::remove_object(f, "staging");
  h5::remove_object(f, "tiles");
  f.flush();
  impl_->finished = true;
  f.close();
}

size_t ResultFile::staged_runs() const {
  impl_->drain();
  return impl_->runs.size();
}

uint64_t ResultFile::finish_merged(uint32_t max_per_query, double max_evalue) {
  return finish_merged_from(nullptr, MergeRules{max_per_query, max_evalue});
}

uint64_t ResultFile::finish_merged(const SortedRuns& runs, const MergeRules& rules) {
  return finish_merged_from(&runs, rules);
}

uint64_t ResultFile::finish_merged_from(const SortedRuns* runs, const MergeRules& rules) {
  impl_->require_open("finish");
  Impl& m = *impl_;
  auto clock = std::chrono::steady_clock::now();
  const auto lap = [&](double MergeTimes::*stage) {  // --verbose's stages, where the caller asked
    const auto now = std::chrono::steady_clock::now();
    if (rules.times) rules.times->*stage += std::chrono::duration<double>(now - clock).count();
    clock = now;
  };
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
    lap(&MergeTimes::opening);
    rows = runs ? merge_sorted_runs(*runs, to, "hits", rules)
                : merge_sorted_runs(from, "staging/hits", m.runs, to, "hits", rules);
    clock = std::chrono::steady_clock::now();
    result_lifecycle::complete(to);
    to.close();
  }
  if (const int failed = rename_over(fresh, path_))
    throw Error("cannot replace " + path_ + " by the finished " + fresh + ": " + std::strerror(failed));
  lap(&MergeTimes::closing);
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

static HitTable read_hit_table_in(const h5::File& f, const std::string& group) {
  HitTable t;
  const auto column = [&](const std::string& path, auto none) {
    return f.exists(path) ? h5::read_all<typename decltype(none)::value_type>(f, path) : none;
  };
  t.status = h5::read_string_attribute(f, "", "status");
  t.query_ids = column("queries/id", std::vector<std::string>{});
  t.query_lengths = column("queries/length", std::vector<uint32_t>{});
  t.target_ids = column("targets/id", std::vector<std::string>{});
  t.target_lengths = column("targets/length", std::vector<uint32_t>{});
  if (!f.exists(group)) throw Error(f.path() + ": no '" + group + "' table in this result file");
  t.hits = read_hit_rows(f, group);
  return t;
}

const std::vector<uint32_t>& ResultFile::finished_tiles() const { return impl_->finished_tiles; }

std::vector<Hit> ResultFile::finished_hits() const {
  return read_hit_table_in(impl_->file, "staging/hits").hits;  // recover_ledger left only finished tiles' rows
}

void ResultFile::mark_stopped(const std::string& signal_name) {
  impl_->require_open("mark a stop");
  impl_->write_waiting(false);
  result_lifecycle::mark_stopped(impl_->file, signal_name);
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
