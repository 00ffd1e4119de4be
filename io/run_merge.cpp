#include "io/run_merge.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <thread>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <numeric>
#include <optional>
#include <queue>
#include <type_traits>

#include "io/hdf5_columns.hpp"
#include "io/hit_table.hpp"
#include "src/core/error.hpp"
#include "src/core/free_heap.hpp"
#include "src/core/on_all_cores.hpp"
#include "src/core/chunk_pool.hpp"
#include "src/core/cigar_identity.hpp"
#include "src/core/tuning.hpp"

namespace hpc {
namespace {

constexpr uint64_t kIndexBlockRows = 1u << 20;  // query column read this much at a time
// What a segment's row and read byte cost the merge in all, for segments cut to its memory
// budget (MergeRules::memory): score-only, ~450 bytes a row (two segments read, 52 bytes a row
// each, kSegmentsDeflating + 2 = four merged tables of 56, the parts' scratch of 20, the
// deflated chunks, the allocator's slack: 3,000 sequences, 617 Ki rows a segment, peaked 228
// MiB above the compute phase's with three tables); with CIGARs, ~7 bytes a byte read (each
// character held in the two segments, four merged tables and deflated).
constexpr uint64_t kHeldRowBytes = 448;
constexpr uint64_t kHeldPerByteRead = 7;
constexpr uint64_t kRowBytes = 52;
constexpr uint64_t kScoreOnlyRowBytes = 28;  // the kScoreOnlyColumns
// Segments deflated at once: the merging thread hands segment s to the deflaters once segment
// s - 2's are done, not s - 1's, so the deflaters keep the cores busy across a segment's tail
// (with one at a time, a screen's final merge on a 2-GPU host waited ~1.8 s for them).
constexpr size_t kSegmentsDeflating = 2;

// The merge's threads a stage: every CPU of the job. A merge runs after the tiles (or at idle
// priority beside them), and its parts are independent; usable_cores()'s 16 left half of a
// 32-core host idle through a screen's final merge.
size_t merge_cores() { return all_usable_cores(); }

// A merge well within its budget is still cut into about this many segments (of at least
// kPipelinedRows rows, two chunks): its stages overlap only across segments, and with the few
// segments the budget alone made (3 score-only, 6 with CIGARs: 20,000 sequences, 3.16 M rows)
// the first read and the last deflate and store stood alone on its path, and the tables'
// first touch grew with the segment (2 x H100 host: 0.34 s score-only, 1.0-1.16 s with CIGARs).
constexpr uint64_t kPipelinedSegments = 16;
constexpr uint64_t kPipelinedRows = 2 * h5::kDefaultChunk;

// The threads a merge's stage runs on: its rules' (a background merge beside others), else every core.
size_t merge_threads(const MergeRules& rules) { return rules.threads ? rules.threads : merge_cores(); }

// Runs r of [0, n) on `cores` threads where the source allows it, else one after the other.
template <class F>
void for_each_run(const SortedRuns& in, size_t cores, F&& f) {
  const size_t n = in.count();
  if (cores < 2 || !in.concurrent_reads() || n < 2) {
    for (size_t r = 0; r < n; ++r) f(r, size_t(0));
    return;
  }
  const size_t parts = std::min(n, cores);
  run_parts(parts, [&](size_t p) {
    for (size_t r = p; r < n; r += parts) f(r, p);
  });
}

// Blocks of the run's query column, [at, at + block.size()) in turn, until `more` says stop.
template <class F>
void scan_queries(const SortedRuns& in, size_t r, F&& more) {
  std::vector<uint32_t> block;
  const uint64_t rows = in.rows(r);
  for (uint64_t at = 0; at < rows; at += kIndexBlockRows) {
    block.resize(std::min(kIndexBlockRows, rows - at));
    in.read(r, 0, at, block.size(), block.data());
    if (!more(at, block)) return;
  }
}

// Rows and CIGAR characters per query over all runs.
struct QueryLoad {
  std::vector<uint64_t> rows, chars;  // chars empty when no run has characters (score-only)
};

// Characters of each row of the block at rows [at, at + n) of run r, added to its query's.
void add_chars(const SortedRuns& in, size_t r, uint64_t at, const std::vector<uint32_t>& block,
               std::vector<uint64_t>& ends, std::vector<uint64_t>& chars) {
  ends.resize(block.size());
  in.read(r, 9, at, block.size(), ends.data());
  uint64_t before = in.chars_before(r, at);
  for (size_t i = 0; i < block.size(); ++i) chars[block[i]] += ends[i] - before, before = ends[i];
}

QueryLoad load_per_query(const SortedRuns& in, size_t cores) {
  bool any_chars = false;
  for (size_t r = 0; r < in.count() && !any_chars; ++r)
    any_chars = in.rows(r) > 0 && in.chars_before(r, in.rows(r)) > in.chars_before(r, 0);
  const size_t parts = in.concurrent_reads() ? std::max<size_t>(1, std::min(in.count(), cores)) : 1;
  std::vector<QueryLoad> per(parts);
  for_each_run(in, cores, [&](size_t r, size_t p) {
    std::vector<uint64_t> ends;
    scan_queries(in, r, [&](uint64_t at, const std::vector<uint32_t>& block) {
      QueryLoad& l = per[p];
      if (!block.empty() && block.back() >= l.rows.size()) {  // a run is sorted
        l.rows.resize(size_t(block.back()) + 1);
        if (any_chars) l.chars.resize(l.rows.size());
      }
      for (uint32_t q : block) ++l.rows[q];
      if (any_chars) add_chars(in, r, at, block, ends, l.chars);
      return true;
    });
  });
  QueryLoad total;
  for (const QueryLoad& l : per) {
    if (l.rows.size() > total.rows.size()) total.rows.resize(l.rows.size());
    for (size_t q = 0; q < l.rows.size(); ++q) total.rows[q] += l.rows[q];
  }
  if (any_chars) {
    total.chars.resize(total.rows.size());
    for (const QueryLoad& l : per)
      for (size_t q = 0; q < l.chars.size(); ++q) total.chars[q] += l.chars[q];
  }
  return total;
}

// Query ranges [cuts[s], cuts[s + 1]) of at most max_rows rows and max_bytes bytes (rows of
// kRowBytes and their characters; `chars` empty: none), or of one query.
std::vector<uint32_t> cut_by_rows(const std::vector<uint64_t>& per_query, uint32_t from, uint32_t to,
                                  uint64_t max_rows, const std::vector<uint64_t>& chars = {},
                                  uint64_t max_bytes = UINT64_MAX) {
  std::vector<uint32_t> cuts{from};
  uint64_t in = 0, bytes = 0;
  for (uint32_t q = from; q < to; ++q) {
    const uint64_t b = per_query[q] * kRowBytes + (chars.empty() ? 0 : chars[q]);
    if (in > 0 && (in + per_query[q] > max_rows || bytes + b > max_bytes)) {
      cuts.push_back(q);
      in = bytes = 0;
    }
    in += per_query[q];
    bytes += b;
  }
  cuts.push_back(to);
  return cuts;
}

// starts[r][s]: the first row of run r whose query is >= cuts[s] (the run's end past its last).
// Cuts ascending (repeats allowed), the first at most any run's first query, the last past every
// run's last.
std::vector<std::vector<uint64_t>> segment_starts(const SortedRuns& in, const std::vector<uint32_t>& cuts, size_t cores) {
  std::vector<std::vector<uint64_t>> starts(in.count());
  for_each_run(in, cores, [&](size_t r, size_t) {
    std::vector<uint64_t>& st = starts[r];
    st.assign(cuts.size(), in.rows(r));
    st[0] = 0;
    size_t s = 1;
    scan_queries(in, r, [&](uint64_t at, const std::vector<uint32_t>& block) {
      for (; s + 1 < cuts.size() && block.back() >= cuts[s]; ++s)
        st[s] = at + uint64_t(std::lower_bound(block.begin(), block.end(), cuts[s]) - block.begin());
      return s + 1 < cuts.size();
    });
  });
  return starts;
}

// One segment's rows, run after run; cigar_end holds offsets into this cigar_chars.
struct Segment {
  HitTableColumns rows;
  std::vector<size_t> run_begin;  // run r's rows: [run_begin[r], run_begin[r + 1])
  // False when no run of the segment has coordinates (SortedRuns::has_coordinates): its columns
  // from qstart on are then left empty, and every row's are zero.
  bool coordinates = true;
  uint64_t begin(size_t i) const { return i ? rows.cigar_end[i - 1] : 0; }
};

// Rows [starts[r][a], starts[r][b]) of every run r, the runs read on `cores` threads.
void read_segment(const SortedRuns& in, const std::vector<std::vector<uint64_t>>& starts, size_t a, size_t b,
                  Segment& seg, size_t cores) {
  seg.run_begin.assign(1, 0);
  seg.coordinates = false;
  for (size_t r = 0; r < starts.size(); ++r) {
    const auto& st = starts[r];
    seg.run_begin.push_back(seg.run_begin.back() + (st[b] - st[a]));
    if (st[b] > st[a] && in.has_coordinates(r)) seg.coordinates = true;
  }
  const size_t n = seg.run_begin.back();
  const size_t columns = seg.coordinates ? SIZE_MAX : kScoreOnlyColumns;
  size_t k = 0;
  seg.rows.for_each_row_column(false, [&](const char*, auto& column) { column.resize(k++ < columns ? n : 0); });
  std::vector<uint64_t> chars_from(starts.size());  // where each run's piece of characters starts
  for_each_run(in, cores, [&](size_t r, size_t) {
    const uint64_t first = starts[r][a], count = starts[r][b] - first;
    if (count == 0) return;
    size_t c = 0;
    seg.rows.for_each_row_column(false, [&](const char*, auto& column) {
      if (c < columns) in.read(r, c, first, count, column.data() + seg.run_begin[r]);
      ++c;
    });
    if (seg.coordinates) chars_from[r] = in.chars_before(r, first);
  });
  seg.rows.cigar_chars.clear();
  if (!seg.coordinates) return;  // no characters, no offsets
  uint64_t local = 0;  // the runs' characters, one after the other
  std::vector<uint64_t> chars_at(starts.size());
  for (size_t r = 0; r < starts.size(); ++r) {
    chars_at[r] = local;
    for (size_t i = seg.run_begin[r]; i < seg.run_begin[r + 1]; ++i) seg.rows.cigar_end[i] += local - chars_from[r];
    if (seg.run_begin[r + 1] > seg.run_begin[r]) local = seg.rows.cigar_end[seg.run_begin[r + 1] - 1];
  }
  seg.rows.cigar_chars.resize(local);
  if (local == 0) return;  // score-only: no characters to read (and no threads to start for none)
  for_each_run(in, cores, [&](size_t r, size_t) {
    const uint64_t count = (r + 1 < starts.size() ? chars_at[r + 1] : local) - chars_at[r];
    if (count > 0) in.read_chars(r, chars_from[r], count, seg.rows.cigar_chars.data() + chars_at[r]);
  });
}

// The staging rows of a result file (HDF5: one reader at a time), runs at (first row, rows).
class StagingRuns : public SortedRuns {
 public:
  using Runs = std::vector<std::pair<uint64_t, uint64_t>>;
  StagingRuns(const h5::File& f, const std::string& group, const Runs& runs) : chars_(f, group + "/cigar_chars"), runs_(runs) {
    HitTableColumns names;
    names.for_each_row_column(false, [&](const char* name, auto&) { columns_.emplace_back(f, group + "/" + name); });
  }
  size_t count() const override { return runs_.size(); }
  uint64_t rows(size_t r) const override { return runs_[r].second; }
  void read(size_t r, size_t column, uint64_t first, uint64_t n, void* out) const override {
    const uint64_t at = runs_[r].first + first;
    switch (column) {  // the column's type, in for_each_row_column order
      case 2: return columns_[column].read_into(at, n, static_cast<int32_t*>(out));
      case 3:
      case 4: return columns_[column].read_into(at, n, static_cast<double*>(out));
      case 9: return columns_[column].read_into(at, n, static_cast<uint64_t*>(out));
      default: return columns_[column].read_into(at, n, static_cast<uint32_t*>(out));
    }
  }
  uint64_t chars_before(size_t r, uint64_t row) const override {
    const uint64_t at = runs_[r].first + row;  // offsets run through the whole dataset
    uint64_t end = 0;
    if (at > 0) columns_.back().read_into(at - 1, 1, &end);
    return end;
  }
  void read_chars(size_t, uint64_t first, uint64_t n, uint8_t* out) const override { chars_.read_into(first, n, out); }

 private:
  std::vector<h5::RangeReader> columns_;
  h5::RangeReader chars_;
  const Runs& runs_;
};

// A row's place within its query in hit_order: score descending, then target (its run, then its
// place in the run, break ties). One key for merge_part's sort and split_query's walk.
inline uint64_t score_target_key(int32_t score, uint32_t target) {
  return uint64_t(uint32_t(int64_t(INT32_MAX) - score)) << 32 | target;
}

// The rows of queries [qa, qb) of the segment in hit_order, cut by the rules: indices into it.
// Every query's rows (counts[q - qa]: how many the segment holds) are bucketed run after run,
// then sorted by score descending, target, then index (run, then place in the run: the runs'
// order on ties).
// Sorting a query's few thousand rows, read in order, cost far less than a heap over the runs.
// False when the runs hold more rows than they counted (they changed under the merge).
// `rows`: the part's scratch, kept from segment to segment (a fresh one a segment and part
// left freed blocks that the allocator kept).
struct PartRow {
  uint64_t score_target;  // score descending, then target
  uint32_t at;
  bool operator<(const PartRow& o) const {
    return score_target != o.score_target ? score_target < o.score_target : at < o.at;
  }
};
bool merge_part(const Segment& seg, uint32_t qa, uint32_t qb, const uint64_t* counts, const MergeRules& rules,
                std::vector<PartRow>& rows, std::vector<uint32_t>& out) {
  const HitTableColumns& c = seg.rows;
  std::vector<size_t> bucket(size_t(qb - qa) + 1, 0);  // query q's rows: [bucket[q - qa], bucket[q - qa + 1])
  for (uint32_t q = qa; q < qb; ++q) bucket[q - qa + 1] = bucket[q - qa] + counts[q - qa];
  rows.resize(bucket.back());
  std::vector<size_t> fill(bucket.begin(), bucket.end() - 1);
  for (size_t r = 0; r + 1 < seg.run_begin.size(); ++r) {
    const auto first = c.query.begin() + seg.run_begin[r], last = c.query.begin() + seg.run_begin[r + 1];
    const size_t lo = size_t(std::lower_bound(first, last, qa) - c.query.begin());
    const size_t hi = size_t(std::lower_bound(first, last, qb) - c.query.begin());
    for (size_t i = lo; i < hi; ++i) {
      size_t& to = fill[c.query[i] - qa];
      if (to == bucket[c.query[i] - qa + 1]) return false;
      rows[to++] = {score_target_key(c.score[i], c.target[i]), uint32_t(i)};
    }
  }
  const bool keep_all = rules.max_per_query == 0 && rules.max_evalue == std::numeric_limits<double>::infinity();
  out.clear();
  out.reserve(rules.max_per_query ? std::min<size_t>(rows.size(), size_t(qb - qa) * rules.max_per_query) : rows.size());
  for (uint32_t q = qa; q < qb; ++q) {
    const auto first = rows.begin() + bucket[q - qa], last = rows.begin() + bucket[q - qa + 1];
    std::sort(first, last);
    if (keep_all) {  // no cut to check: the E-values are not read (a random read a row)
      for (auto it = first; it != last; ++it) out.push_back(it->at);
      continue;
    }
    uint64_t query_rows = 0;
    for (auto it = first; it != last; ++it, ++query_rows)
      // !(e > max): NaN E-values (modes without statistics) are kept.
      if ((rules.max_per_query == 0 || query_rows < rules.max_per_query) && !(c.evalue[it->at] > rules.max_evalue))
        out.push_back(it->at);
  }
  return true;
}

// The characters of rows `picked` of the segment (their CIGARs' total length).
uint64_t picked_chars(const Segment& seg, const std::vector<uint32_t>& picked) {
  if (seg.rows.cigar_chars.empty()) return 0;  // score-only: no row has a CIGAR
  uint64_t chars = 0;
  for (uint32_t i : picked) chars += seg.rows.cigar_end[i] - seg.begin(i);
  return chars;
}

// Rows `picked` of the segment into out[at...), CIGARs at out's characters [chars_at...).
// Column by column: each pass reads one column of the part's rows (a few MB, cache-resident),
// where a row at a time read every column's line from memory.
// Identity (the final table's) only `with_identity`.
void gather(const Segment& seg, const std::vector<uint32_t>& picked, HitTableColumns& out, size_t at,
            uint64_t chars_at, bool with_identity) {
  const HitTableColumns& c = seg.rows;
  const auto column = [&](const auto& from, auto& to) {
    auto* o = to.data() + at;
    const auto* f = from.data();
    for (size_t k = 0; k < picked.size(); ++k) o[k] = f[picked[k]];
  };
  column(c.query, out.query);
  column(c.target, out.target);
  column(c.score, out.score);
  column(c.bits, out.bits);
  column(c.evalue, out.evalue);
  if (!seg.coordinates) {  // every row's coordinates zero (none read)
    for (auto* to : {&out.qstart, &out.qend, &out.tstart, &out.tend}) std::fill_n(to->begin() + at, picked.size(), 0u);
  } else {
    column(c.qstart, out.qstart);
    column(c.qend, out.qend);
    column(c.tstart, out.tstart);
    column(c.tend, out.tend);
  }
  if (c.cigar_chars.empty()) {  // no CIGARs: every offset the same, identity 0
    std::fill_n(out.cigar_end.begin() + at, picked.size(), chars_at);
    std::fill_n(out.identity.begin() + at, picked.size(), 0.f);
    return;
  }
  // The picked rows lie all over the segment (its runs one after the other): each row's CIGAR
  // end and characters are cache misses. So the ends kEndsAhead rows ahead and the characters
  // kCharsAhead rows ahead (their ends fetched by then) are prefetched while this row is copied.
  // Addresses taken as numbers, not pointers: a prefetch never faults.
  constexpr size_t kEndsAhead = 16, kCharsAhead = 8;
  const auto prefetch = [](const void* p, size_t offset) {
    __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(p) + offset));
  };
  for (size_t k = 0; k < picked.size(); ++k) {
    if (k + kEndsAhead < picked.size()) {  // the row's end and the one before it (its begin)
      const uint64_t* end = c.cigar_end.data() + picked[k + kEndsAhead];
      prefetch(end, 0), prefetch(end, size_t(0) - sizeof(uint64_t));
    }
    if (k + kCharsAhead < picked.size()) {
      const uint8_t* chars = c.cigar_chars.data() + seg.begin(picked[k + kCharsAhead]);
      prefetch(chars, 0), prefetch(chars, 64);
    }
    const size_t i = picked[k], o = at + k;
    const uint64_t b = seg.begin(i), e = c.cigar_end[i];
    std::copy(c.cigar_chars.begin() + b, c.cigar_chars.begin() + e, out.cigar_chars.begin() + (chars_at - out.chars_base));
    chars_at += e - b;
    out.cigar_end[o] = chars_at;
    const std::string_view cigar(reinterpret_cast<const char*>(c.cigar_chars.data()) + b, e - b);
    out.identity[o] = e == b || !with_identity ? 0.f : cigar_identity(cigar);
  }
}

// Moves the last n rows of `t` (and their CIGARs) to a table of their own.
HitTableColumns take_last_rows(HitTableColumns& t, size_t n) {
  HitTableColumns rest;
  const size_t keep = t.rows() - n;
  rest.chars_base = keep ? t.cigar_end[keep - 1] : t.chars_base;
  rest.cigar_chars.assign(t.cigar_chars.begin() + (rest.chars_base - t.chars_base), t.cigar_chars.end());
  t.cigar_chars.resize(rest.chars_base - t.chars_base);
  const auto tail = [&](auto& from, auto& to) {
    to.assign(from.begin() + keep, from.end());
    from.resize(keep);
  };
  tail(t.query, rest.query);
  tail(t.target, rest.target);
  tail(t.score, rest.score);
  tail(t.bits, rest.bits);
  tail(t.evalue, rest.evalue);
  tail(t.qstart, rest.qstart);
  tail(t.qend, rest.qend);
  tail(t.tstart, rest.tstart);
  tail(t.tend, rest.tend);
  tail(t.identity, rest.identity);
  tail(t.cigar_end, rest.cigar_end);
  return rest;
}

// The characters of `t` past its last whole chunk of `chars_chunk` go to the front of `carry`
// (the rows after t's): each append then starts the CIGAR column at a chunk boundary, so its
// chunks are deflated on all cores beside the others and stored whole, where a partial chunk
// went through HDF5's one-core filters and was read back, inflated and rewritten next time.
void keep_whole_char_chunks(HitTableColumns& t, HitTableColumns& carry, uint64_t chars_chunk) {
  const uint64_t end = t.chars_base + t.cigar_chars.size(), whole = end / chars_chunk * chars_chunk;
  if (whole <= t.chars_base) return;  // less than a chunk: nothing is whole yet, all of it waits
  carry.cigar_chars.insert(carry.cigar_chars.begin(), t.cigar_chars.begin() + (whole - t.chars_base), t.cigar_chars.end());
  carry.chars_base = whole;
  t.cigar_chars.resize(whole - t.chars_base);
}

// `to` becomes `from`'s rows followed by room for more, `rows` and `chars` in all (its buffers
// reused: a fresh table a segment faulted in hundreds of megabytes of new pages each time;
// and resized before `from` is copied in, so that only rows past its old size are zeroed, not
// the whole table on the merging thread).
void copy_rows_then_size(const HitTableColumns& from, HitTableColumns& to, size_t rows, uint64_t chars) {
  using C = HitTableColumns;
  const auto copy = [&](size_t n, auto... column) {
    ((to.*column).resize(n), ...);
    (std::copy((from.*column).begin(), (from.*column).end(), (to.*column).begin()), ...);
  };
  copy(rows, &C::query, &C::target, &C::qstart, &C::qend, &C::tstart, &C::tend, &C::score, &C::bits, &C::evalue,
       &C::identity, &C::cigar_end);
  copy(chars, &C::cigar_chars);
  to.chars_base = from.chars_base;
}

// /hits of a result file: whole chunks deflated on all cores, stored through HDF5.
class HitsOutput : public MergeOutput {
 public:
  // `aligned`: the rows have CIGARs (their identities then go stored: create_hit_table).
  HitsOutput(h5::File& to, std::string group, uint64_t rows, bool aligned)
      : to_(to), group_(std::move(group)), chunk_(std::min<uint64_t>(std::max<uint64_t>(rows, 1), h5::kDefaultChunk)),
        aligned_(aligned) {
    create_hit_table(to_, group_, true, chunk_, h5::Compression::kFast, aligned_);
    columns_.emplace(to_, group_, true);
  }
  size_t chunk() const override { return chunk_; }
  size_t chars_chunk() const override { return cigar_chars_chunk(chunk_); }
  bool with_identity() const override { return true; }
  DeflatedHitTable prepare(HitTableColumns& t, size_t threads) override {
    return deflate_hit_table(t, true, chunk_, h5::Compression::kFast, threads, aligned_);
  }
  void store(HitTableColumns& t, const DeflatedHitTable& d) override { columns_->append(t, d); }

 private:
  h5::File& to_;
  std::string group_;
  size_t chunk_;
  bool aligned_;
  std::optional<HitTableAppender> columns_;  // open from the table's creation to the merge's end
};

// A merge that keeps every row knows where each row goes from the counts alone: row g of the
// output is row g - first_row[q] of its query q. So the output is cut into ranges of whole
// chunks (rows [g0, g1), g0 a multiple of the chunk), and each range is merged start to end on
// one thread: its rows read from every run (where g0 falls inside a query, that query's rows of
// each run cut by rank: split_query), bucketed, sorted, gathered and deflated; the caller's
// thread stores the ranges in order. A range reads its own rows only, whatever a query's rows
// (reading a split query whole had held up to that query's rows a thread: ~48 MB past the budget
// for a query of a 1 M-sequence screen). A range needs no other's rows (no carry from one to the
// next) and no barrier: the per-segment chain on all cores (parts, copies, gather, each waited
// for) had left a screen's final merge at ~55% of 32 cores.
// Memory: each thread holds its range's rows as read (28 bytes a row score-only, else 52) and
// its scratch (kRangeScratchRowBytes: bucketing), each range merged and not yet stored its table and chunks
// (kRangeSlotRowBytes: 56 merged, ~12 deflated); the threads may run kRangeSlots ranges ahead of
// the store. Characters: ~1 byte held by the thread, ~2 by the range.
constexpr size_t kRangeSlots = 2;
constexpr uint64_t kRangeScratchRowBytes = 20, kRangeSlotRowBytes = 68;
constexpr uint64_t kRangeThreadCharBytes = 1, kRangeSlotCharBytes = 2;
// Ranges of this many rows where the budget allows (each run a range touches costs it ~5
// reads), and at least kRangesPerThread a thread (the last ones' imbalance); below
// kMinRangeReadRows fewer threads, each with larger ranges.
constexpr uint64_t kRangeRows = 1u << 17;
constexpr uint64_t kRangesPerThread = 4;
constexpr uint64_t kMinRangeReadRows = 1u << 13;

// Where the ranges that start inside one query start in each run. The query's rows of run r are
// [from[r], to[r]) (in hit_order), walked in merge_part's order (score_target_key, then run, then
// place) through a heap of the runs, `block` rows of each run's score and target read at a time;
// at the i-th of `ranks` (ascending, each below the query's rows) every run's place is kept:
// places[i][r], run r's first row ranked ranks[i] or later. The whole query is walked once,
// whatever the ranges inside it, in ~16 bytes a run's row of the block.
std::vector<std::vector<uint64_t>> split_query(const SortedRuns& in, const std::vector<uint64_t>& from,
                                               const std::vector<uint64_t>& to, const std::vector<uint64_t>& ranks,
                                               uint64_t block) {
  struct Cursor {
    size_t run;
    uint64_t at, end;            // rows [at, end) not yet walked
    std::vector<uint64_t> keys;  // of rows [at - k, at - k + keys.size())
    size_t k = 0;
  };
  std::vector<Cursor> runs;
  for (size_t r = 0; r < from.size(); ++r)
    if (to[r] > from[r]) runs.push_back({r, from[r], to[r], {}, 0});
  std::vector<int32_t> score;
  std::vector<uint32_t> target;
  const auto load = [&](Cursor& c) {  // its next block
    const size_t n = size_t(std::min(block, c.end - c.at));
    score.resize(n), target.resize(n), c.keys.resize(n);
    in.read(c.run, 2, c.at, n, score.data());
    in.read(c.run, 1, c.at, n, target.data());
    for (size_t i = 0; i < n; ++i) c.keys[i] = score_target_key(score[i], target[i]);
    c.k = 0;
  };
  using Head = std::pair<uint64_t, size_t>;  // a run's next key, the run's place in `runs` (ties: the runs' order)
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  for (size_t j = 0; j < runs.size(); ++j) {
    load(runs[j]);
    heads.push({runs[j].keys[0], j});
  }
  std::vector<std::vector<uint64_t>> places(ranks.size());
  uint64_t walked = 0;
  for (size_t i = 0; i < ranks.size(); ++i) {
    for (; walked < ranks[i]; ++walked) {
      if (heads.empty()) throw Error("the sorted runs changed while they were merged (fewer rows than counted)");
      const size_t j = heads.top().second;
      Cursor& c = runs[j];
      heads.pop();
      ++c.at;
      if (++c.k == c.keys.size()) {
        if (c.at == c.end) continue;
        load(c);
      }
      heads.push({c.keys[c.k], j});
    }
    places[i] = from;
    for (const Cursor& c : runs) places[i][c.run] = c.at;
  }
  return places;
}

bool merge_in_ranges(const SortedRuns& in, const MergeOutput& out, const MergeRules& rules, const QueryLoad& load) {
  const bool keep_all = rules.max_per_query == 0 && rules.max_evalue == std::numeric_limits<double>::infinity();
  // CIGARs of a chunked output must start their own chunks (keep_whole_char_chunks): not here.
  return keep_all && in.concurrent_reads() && (load.chars.empty() || out.chars_chunk() == 1);
}

uint64_t merge_ranges(const SortedRuns& in, MergeOutput& output, const MergeRules& rules, const QueryLoad& load,
                      MergeTimes& times) {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  auto clock = Clock::now();
  const std::vector<uint64_t>& per_query = load.rows;
  const size_t queries = per_query.size();
  std::vector<uint64_t> first_row(queries + 1, 0), first_char(queries + 1, 0);
  for (size_t q = 0; q < queries; ++q) {
    first_row[q + 1] = first_row[q] + per_query[q];
    first_char[q + 1] = first_char[q] + (load.chars.empty() ? 0 : load.chars[q]);
  }
  const uint64_t total = first_row[queries];
  const uint64_t chunk = std::max<size_t>(1, output.chunk());
  const uint64_t memory = rules.memory ? rules.memory : merge_memory();
  size_t threads = total < (1u << 14) ? 1 : merge_threads(rules);
  const uint64_t chars_per_row = (first_char[queries] + total - 1) / total;
  bool coordinates = false;
  for (size_t r = 0; r < in.count() && !coordinates; ++r) coordinates = in.rows(r) > 0 && in.has_coordinates(r);
  const uint64_t thread_row_bytes = (coordinates ? kRowBytes : kScoreOnlyRowBytes) + kRangeScratchRowBytes;
  const auto fitting_rows = [&](size_t t) {  // rows a range may hold with t threads
    return memory / (t * (thread_row_bytes + kRangeThreadCharBytes * chars_per_row) +
                     (t + kRangeSlots) * (kRangeSlotRowBytes + kRangeSlotCharBytes * chars_per_row));
  };
  while (threads > 1 && fitting_rows(threads) < std::max(chunk, kMinRangeReadRows)) threads = threads * 3 / 4;
  uint64_t range = rules.segment_rows ? rules.segment_rows
                                      : std::min({fitting_rows(threads), kRangeRows,
                                                  std::max(kMinRangeReadRows, total / (threads * kRangesPerThread))});
  range = std::max<uint64_t>(1, range / chunk) * chunk;
  const size_t ranges = size_t((total + range - 1) / range);
  threads = std::max<size_t>(1, std::min(threads, ranges));
  // The query of output row g: the last q with first_row[q] <= g (empty queries skipped).
  const auto query_of = [&](uint64_t g) {
    return uint32_t(std::upper_bound(first_row.begin(), first_row.end(), g) - first_row.begin() - 1);
  };
  // Range k reads rows [starts[r][column[k]], starts[r][column[k + 1]]) of every run r, and its
  // output's characters start at chars_at[k]. One scan of the runs finds where each range's
  // first query starts in every run (and where the query after a split one starts); where the
  // range's first row falls inside that query, its column is moved on to the query's rows of that
  // rank in each run (split_query). One table, a column a range (and a split query's end).
  struct SplitQuery {
    uint32_t query;
    std::vector<size_t> ranges;  // those starting inside it
    size_t end = 0;              // the column of the next query's start
  };
  std::vector<uint32_t> cuts;  // ascending: segment_starts' cut values, one a column
  std::vector<size_t> column(ranges + 1);
  std::vector<SplitQuery> split;
  std::vector<uint64_t> chars_at(ranges + 1);
  for (size_t k = 0; k <= ranges; ++k) {
    const uint32_t q = k < ranges ? query_of(k * range) : uint32_t(queries);
    if (!split.empty() && split.back().end == 0 && split.back().query < q)
      split.back().end = cuts.size(), cuts.push_back(split.back().query + 1);
    column[k] = cuts.size();
    cuts.push_back(q);
    chars_at[k] = first_char[q];
    if (k == ranges || first_row[q] == k * range) continue;
    if (split.empty() || split.back().query != q) split.push_back({q, {}, 0});
    split.back().ranges.push_back(k);
  }
  auto starts = segment_starts(in, cuts, merge_threads(rules));
  const size_t parts = std::min(threads, split.size());
  run_parts(parts, [&](size_t p) {
    std::vector<uint64_t> from(in.count()), to(in.count()), ranks;
    for (size_t i = p; i < split.size(); i += parts) {
      const SplitQuery& sq = split[i];
      size_t walked_runs = 0;  // runs holding rows of the query: each walked a block at a time
      for (size_t r = 0; r < in.count(); ++r) {
        from[r] = starts[r][column[sq.ranges[0]]], to[r] = starts[r][sq.end];
        walked_runs += to[r] > from[r];
      }
      ranks.clear();
      for (size_t k : sq.ranges) ranks.push_back(k * range - first_row[sq.query]);
      const uint64_t share = memory / parts / (16 * std::max<size_t>(1, walked_runs));  // rows a run's block
      const uint64_t block = std::clamp<uint64_t>(share, 1, kIndexBlockRows);
      const auto places = split_query(in, from, to, ranks, block);
      for (size_t j = 0; j < ranks.size(); ++j) {
        const size_t k = sq.ranges[j];
        for (size_t r = 0; r < in.count(); ++r) {
          starts[r][column[k]] = places[j][r];
          if (!load.chars.empty() && places[j][r] > from[r])
            chars_at[k] += in.chars_before(r, places[j][r]) - in.chars_before(r, from[r]);
        }
      }
    }
  });
  times.count += since(clock);

  struct Ready {
    HitTableColumns rows;
    DeflatedHitTable deflated;
    bool done = false;
  };
  std::vector<Ready> slot(threads + kRangeSlots);  // range k in slot k % size, once stored - k < size
  // Each wait its own condition, woken one thread at a time: one condition woken for all at
  // every range merged and stored had 32 threads racing for the mutex at each, and the storing
  // thread (the merge's serial path) spent 0.28-0.45 s of a screen's final merge getting it back.
  std::mutex mu;
  std::condition_variable range_done;  // the storing thread's next range (range `stored`)
  std::condition_variable slot_free;   // the threads' next slot
  size_t stored = 0, next = 0;
  bool failed = false;
  std::exception_ptr error;
  double read_s = 0, merge_s = 0, deflate_s = 0;
  uint64_t most_read_rows = 0;
  // Inside a catch: the first failure is the one rethrown; every waiting thread wakes to stop.
  const auto fail = [&] {
    std::lock_guard<std::mutex> lock(mu);
    if (!error) error = std::current_exception();
    failed = true;
    range_done.notify_all();
    slot_free.notify_all();
  };
  const auto worker = [&] {
    Segment seg;
    std::vector<PartRow> part_rows;
    std::vector<uint32_t> picked;
    std::vector<uint64_t> counts;
    uint64_t most_read = 0;
    double reading = 0, merging = 0, deflating = 0;
    try {
      for (;;) {
        size_t k;
        {
          std::unique_lock<std::mutex> lock(mu);
          slot_free.wait(lock, [&] { return failed || next >= ranges || next < stored + slot.size(); });
          if (failed || next >= ranges) break;
          k = next++;
        }
        auto t = Clock::now();
        const uint64_t g0 = k * range, g1 = std::min(total, g0 + range);
        const uint32_t qa = query_of(g0), qb = query_of(g1 - 1) + 1;
        read_segment(in, starts, column[k], column[k + 1], seg, 1);
        most_read = std::max<uint64_t>(most_read, seg.run_begin.back());
        reading += since(t);
        t = Clock::now();
        counts.resize(qb - qa);  // each query's rows inside [g0, g1)
        for (uint32_t q = qa; q < qb; ++q) counts[q - qa] = std::min(g1, first_row[q + 1]) - std::max(g0, first_row[q]);
        const size_t n = size_t(g1 - g0);
        if (!merge_part(seg, qa, qb, counts.data(), rules, part_rows, picked) || picked.size() != n)
          throw Error("the sorted runs changed while they were merged (not the rows counted)");
        Ready& r = slot[k % slot.size()];
        static const HitTableColumns kNone;
        HitTableColumns& out = r.rows;
        copy_rows_then_size(kNone, out, n, picked_chars(seg, picked));  // sizes the columns (and chars_base: 0)
        out.chars_base = chars_at[k];
        gather(seg, picked, out, 0, chars_at[k], output.with_identity());
        merging += since(t);
        t = Clock::now();
        r.deflated = output.prepare(out, 1);
        deflating += since(t);
        bool next_to_store;
        {
          std::lock_guard<std::mutex> lock(mu);
          r.done = true;
          next_to_store = k == stored;
        }
        if (next_to_store) range_done.notify_one();
      }
    } catch (...) {
      fail();
    }
    std::lock_guard<std::mutex> lock(mu);
    read_s += reading, merge_s += merging, deflate_s += deflating;
    most_read_rows = std::max(most_read_rows, most_read);
  };
  std::vector<std::thread> pool;
  for (size_t k = 0; k < threads; ++k) pool.emplace_back(worker);
  uint64_t written = 0;
  double store_s = 0, waited_s = 0;
  const auto looping = Clock::now();
  try {
    for (size_t k = 0; k < ranges; ++k) {
      Ready& r = slot[k % slot.size()];
      auto t = Clock::now();
      {
        std::unique_lock<std::mutex> lock(mu);
        range_done.wait(lock, [&] { return failed || r.done; });
        if (failed) break;
      }
      waited_s += since(t);
      t = Clock::now();
      output.store(r.rows, r.deflated);
      store_s += since(t);
      written += r.rows.rows();
      r.deflated = {};
      {
        std::lock_guard<std::mutex> lock(mu);
        r.done = false;
        ++stored;
      }
      slot_free.notify_one();  // one more range may start
    }
  } catch (...) {
    fail();
  }
  times.store_loop += since(looping) - store_s - waited_s;
  slot_free.notify_all();  // threads still waiting for a slot: none is left
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  times.read += read_s, times.merge += merge_s, times.deflate += deflate_s;
  times.store += store_s, times.waited += waited_s;
  times.segments += ranges;
  times.most_rows_read = std::max(times.most_rows_read, most_read_rows);
  return written;
}

}  // namespace

DeflatedHitTable MergeOutput::prepare(HitTableColumns&, size_t) { return {}; }

uint64_t merge_memory() { return uint64_t(*tuning_number(Tunable::kMergeMemory)) << 20; }  // the table has its default
uint64_t final_merge_memory() { return uint64_t(*tuning_number(Tunable::kFinalMergeMemory)) << 20; }

uint64_t SortedRuns::total_rows() const {
  uint64_t total = 0;
  for (size_t r = 0; r < count(); ++r) total += rows(r);
  return total;
}

uint64_t SortedRuns::total_chars() const {
  uint64_t total = 0;
  for (size_t r = 0; r < count(); ++r) total += chars_before(r, rows(r)) - chars_before(r, 0);
  return total;
}

uint64_t merge_sorted_runs(const h5::File& from, const std::string& group,
                           const std::vector<std::pair<uint64_t, uint64_t>>& runs, h5::File& to,
                           const std::string& out_group, const MergeRules& rules) {
  return merge_sorted_runs(StagingRuns(from, group, runs), to, out_group, rules);
}

uint64_t merge_sorted_runs(const SortedRuns& in, h5::File& to, const std::string& out_group, const MergeRules& rules) {
  HitsOutput out(to, out_group, in.total_rows(), in.total_chars() > 0);
  return merge_sorted_runs(in, out, rules);
}

uint64_t merge_sorted_runs(const SortedRuns& in, MergeOutput& output, const MergeRules& rules) {
  unmap_large_blocks_when_freed();
  MergeTimes times;
  auto clock = std::chrono::steady_clock::now();
  const auto lap = [](std::chrono::steady_clock::time_point& t) {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - t).count();
    t = now;
    return s;
  };
  const size_t cores = merge_threads(rules);
  const QueryLoad load = load_per_query(in, cores);
  const std::vector<uint64_t>& per_query = load.rows;
  const auto report = [&](const MergeTimes& done) {
    if (!rules.times) return;
    MergeTimes& t = *rules.times;
    t.count += done.count, t.read += done.read, t.merge += done.merge;
    t.deflate += done.deflate, t.store += done.store, t.waited += done.waited;
    t.store_loop += done.store_loop;
    t.segments += done.segments;
    t.most_rows_read = std::max(t.most_rows_read, done.most_rows_read);
  };
  if (merge_in_ranges(in, output, rules, load) && in.total_rows() > 0) {
    times.count = lap(clock);
    const uint64_t written = merge_ranges(in, output, rules, load, times);
    report(times);
    return written;
  }
  // Segments within the memory budget, whatever the number of runs, and for a merge within it,
  // about kPipelinedSegments of them.
  const uint64_t memory = rules.memory ? rules.memory : merge_memory();
  const uint64_t total_rows = std::accumulate(per_query.begin(), per_query.end(), uint64_t(0));
  const uint64_t total_chars = std::accumulate(load.chars.begin(), load.chars.end(), uint64_t(0));
  const uint64_t total_bytes = total_rows * kRowBytes + total_chars;
  const uint64_t pipelined_rows = std::max(kPipelinedRows, total_rows / kPipelinedSegments);
  const uint64_t pipelined_bytes = std::max(kPipelinedRows * kRowBytes, total_bytes / kPipelinedSegments);
  const std::vector<uint32_t> cuts = cut_by_rows(
      per_query, 0, uint32_t(per_query.size()),
      rules.segment_rows ? rules.segment_rows : std::min(memory / kHeldRowBytes, pipelined_rows), load.chars,
      rules.segment_bytes ? rules.segment_bytes : std::min(memory / kHeldPerByteRead, pipelined_bytes));
  // The freed buffers of a segment with CIGARs back to the system only where the whole merge
  // would not fit the budget: otherwise they stay within it anyway, and each trim made the next
  // segment fault the same pages in again.
  const bool trim_each_segment = total_rows * kHeldRowBytes + total_chars * kHeldPerByteRead > memory;
  const auto starts = segment_starts(in, cuts, cores);
  const size_t chunk = output.chunk();
  times.count = lap(clock);

  // Serial HDF5: a source read through it (staging rows) takes turns with the writes.
  std::mutex hdf5;
  const auto hdf5_turn = [&] { return in.concurrent_reads() ? std::unique_lock<std::mutex>() : std::unique_lock<std::mutex>(hdf5); };
  const size_t segments = cuts.size() - 1;
  Segment seg[2];
  const auto read = [&](size_t s) {
    auto t = std::chrono::steady_clock::now();
    const auto turn = hdf5_turn();
    read_segment(in, starts, s, s + 1, seg[s % 2], cores);
    // Read for good: a merged run's space may go now, beside the merge, not at the removal.
    for_each_run(in, cores, [&](size_t r, size_t) { in.consumed(r, starts[r][s + 1]); });
    return lap(t);
  };
  // Merged rows, kSegmentsDeflating + 2 tables: segment s is gathered while the segments before
  // it are deflated and the one before those stored (the stores in order, one at a time;
  // deflating and storing one after the other had made the writes the merge's critical path).
  constexpr size_t kTables = kSegmentsDeflating + 2;
  HitTableColumns merged[kTables];
  const auto deflate = [&](HitTableColumns& t) {
    auto started = std::chrono::steady_clock::now();
    DeflatedHitTable d = output.prepare(t, cores);
    return std::make_pair(std::move(d), lap(started));
  };
  const auto store = [&](HitTableColumns& t, const DeflatedHitTable& d) {
    auto started = std::chrono::steady_clock::now();
    const auto turn = hdf5_turn();
    output.store(t, d);
    return lap(started);
  };
  std::future<double> reading = std::async(std::launch::async, read, 0);
  std::deque<std::future<std::pair<DeflatedHitTable, double>>> deflating;  // segments s - deflating.size() ... s - 1
  std::future<double> storing;
  // Segment `s`'s chunks (the oldest deflating), once deflated, to the file after the store
  // before them.
  const auto store_deflated = [&](size_t s) {
    auto [d, deflate_seconds] = deflating.front().get();
    deflating.pop_front();
    times.deflate += deflate_seconds;
    if (storing.valid()) times.store += storing.get();
    storing = std::async(std::launch::async, [&, s, d = std::move(d)] { return store(merged[s % kTables], d); });
  };
  HitTableColumns carry;  // merged rows short of a whole chunk, written with the next segment's
  std::vector<std::vector<uint32_t>> picked;  // each part's rows of the segment
  std::vector<std::vector<PartRow>> part_rows;
  uint64_t written = 0;
  // The parts' threads, kept for the merge's rounds (none for a merge too small to cut).
  ChunkPool pool(in.total_rows() < (1u << 14) ? 1 : cores);
  for (size_t s = 0; s < segments; ++s) {
    times.read += reading.get();
    if (s + 1 < segments) reading = std::async(std::launch::async, read, s + 1);
    times.waited += lap(clock);
    const Segment& sg = seg[s % 2];
    times.most_rows_read = std::max<uint64_t>(times.most_rows_read, sg.run_begin.back());
    // Parts of the segment for the cores, cut by query at about equal rows.
    const uint64_t rows = sg.run_begin.back();
    const size_t part_cores = rows < (1u << 14) ? 1 : cores;
    const std::vector<uint32_t> parts = cut_by_rows(per_query, cuts[s], cuts[s + 1], (rows + part_cores - 1) / part_cores);
    picked.resize(parts.size() - 1);
    part_rows.resize(picked.size());
    std::vector<uint64_t> part_chars(picked.size());
    std::atomic<bool> counted{true};
    pool.run_parts(picked.size(), [&](size_t p) {
      if (!merge_part(sg, parts[p], parts[p + 1], per_query.data() + parts[p], rules, part_rows[p], picked[p]))
        counted = false;
      part_chars[p] = picked_chars(sg, picked[p]);
    });
    if (!counted) throw Error("the sorted runs changed while they were merged (more rows than counted)");
    // The table stored kTables segments ago is free again (its store was waited for last time).
    HitTableColumns& out = merged[s % kTables];
    std::vector<size_t> row_at{carry.rows()};
    std::vector<uint64_t> chars_at{carry.chars_base + carry.cigar_chars.size()};
    for (size_t p = 0; p < picked.size(); ++p) {
      row_at.push_back(row_at.back() + picked[p].size());
      chars_at.push_back(chars_at.back() + part_chars[p]);
    }
    copy_rows_then_size(carry, out, row_at.back(), chars_at.back() - carry.chars_base);
    pool.run_parts(picked.size(), [&](size_t p) { gather(sg, picked[p], out, row_at[p], chars_at[p], output.with_identity()); });
    // Whole chunks only (the last segment: everything): a partial chunk appended now would be
    // inflated and deflated again, on one core, by the next append.
    carry = take_last_rows(out, s + 1 == segments ? 0 : out.rows() % chunk);
    if (s + 1 < segments) keep_whole_char_chunks(out, carry, output.chars_chunk());
    times.merge += lap(clock);
    if (deflating.size() == kSegmentsDeflating) store_deflated(s - kSegmentsDeflating);
    // The parts' and deflaters' buffers of the segments before, where CIGARs make them large
    // and uneven (a trim a segment of score-only rows cost the screen's merge ~0.5 s).
    if (chars_at.back() > 0 && trim_each_segment) release_free_heap();
    times.waited += lap(clock);
    written += out.rows();
    deflating.push_back(std::async(std::launch::async, deflate, std::ref(out)));
  }
  while (!deflating.empty()) store_deflated(segments - deflating.size());
  if (storing.valid()) times.store += storing.get();
  times.waited += lap(clock);
  times.segments = cuts.size() - 1;
  report(times);
  return written;
}

}  // namespace hpc
