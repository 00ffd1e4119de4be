#include "io/run_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "io/hit_table.hpp"
#include "src/core/error.hpp"
#include "src/core/on_all_cores.hpp"

namespace hpc {
namespace {

constexpr char kMagic[4] = {'H', 'P', 'R', '1'};

// Bytes per row of each column, in for_each_row_column order without identity; the CIGAR
// characters follow them as column kCharsColumn.
constexpr size_t kCharsColumn = 10;
constexpr uint64_t kColumnBytes[kCharsColumn] = {4, 4, 4, 8, 8, 4, 4, 4, 4, 8};
// Bytes per row of the first `columns` columns.
constexpr uint64_t row_bytes(size_t columns) {
  uint64_t b = 0;
  for (size_t k = 0; k < columns; ++k) b += kColumnBytes[k];
  return b;
}
constexpr uint64_t kRowBytes = row_bytes(kCharsColumn);

// A record whose rows have neither coordinates nor CIGARs (a score-only run's): only its first
// kScoreOnlyColumns columns are written (28 of a row's 52 bytes), the others read back as zeros.
constexpr char kScoresMagic[4] = {'H', 'P', 'S', '1'};
constexpr uint64_t kScoreRowBytes = row_bytes(kScoreOnlyColumns);
static_assert(kRowBytes == 52 && kScoreRowBytes == 28, "the run files' row layout");

// Where column `column` of a record of `rows` rows starts, from the record's first byte.
uint64_t column_offset(uint64_t rows, size_t column) {
  uint64_t at = sizeof(RecordHeader);
  for (size_t k = 0; k < column; ++k) at += kColumnBytes[k] * rows;
  return at;
}

// CIGAR characters written at a time from an engine's buffer (HitRecords::write).
constexpr size_t kCigarWriteBytes = size_t(1) << 20;
// How far ahead of the copy a CIGAR's first bytes are fetched (HitRecords::write).
constexpr size_t kCigarPrefetchRows = 16;

// CIGAR k's first two cache lines (a screen's CIGARs average ~50 characters). The second
// address may lie past the buffer (taken as a number, not a pointer): a prefetch never faults.
inline void prefetch_cigar(const CigarBuffer& cigars, size_t k) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(cigars.chars.data() + cigars.begin[k]);
  __builtin_prefetch(reinterpret_cast<const void*>(at));
  __builtin_prefetch(reinterpret_cast<const void*>(at + 64));
}

}  // namespace

std::string run_directory_for(const std::string& out_path) { return out_path + ".runs"; }

std::string merged_run_name(uint64_t n) { return "i" + std::to_string(n); }
std::string background_run_name(uint64_t n) { return "b" + std::to_string(n); }

// A letter then digits: "w<worker>", merged_run_name's "i<n>".
static bool numbered(const std::string& name, char letter) {
  return name.size() > 1 && name[0] == letter && name.find_first_not_of("0123456789", 1) == std::string::npos;
}

// Only files this module names ("w<worker>", "master", the merges' "i<n>" and "b<n>") are ever removed: a
// directory of that name holding anything else loses nothing else. `workers`: theirs too.
// Removed on all cores: a screen leaves gigabytes of run files, and freeing one file's pages is
// independent of another's (one after the other took ~1 s of a 57,592-sequence screen's end).
static void remove_run_files(const std::string& dir, bool workers) {
  std::error_code ec;
  std::vector<std::filesystem::path> ours;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const bool named = numbered(name, 'i') || numbered(name, 'b') || (workers && (name == "master" || numbered(name, 'w')));
    if (named && entry.is_regular_file(ec)) ours.push_back(entry.path());
  }
  run_ranges(ours.size(), all_usable_cores(), [&](size_t begin, size_t end) {
    std::error_code failed;  // a file left behind costs disk, not results
    for (size_t k = begin; k < end; ++k) std::filesystem::remove(ours[k], failed);
  });
}

void prepare_run_directory(const std::string& dir, bool empty) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw Error("cannot create the directory of result runs " + dir + ": " + (ec ? ec.message() : "not a directory"));
  remove_run_files(dir, empty);  // a merge's runs are never journalled: a resume makes them again
}

void remove_run_directory(const std::string& dir) {
  remove_run_files(dir, true);
  std::error_code ec;
  std::filesystem::remove(dir, ec);  // only when empty; a leftover directory costs disk, not results
}

StagedRun HitRecords::write(RecordFile& file, uint32_t tile, Rows& rows, const CigarBuffer* cigars) const {
  // hit_order from packed keys (sorting the rows themselves moved strings around).
  struct Key {
    uint64_t query_score;
    uint32_t target, row;
    bool operator<(const Key& o) const {
      return query_score != o.query_score ? query_score < o.query_score : target < o.target;
    }
  };
  std::vector<Key> keys(rows.size());
  for (size_t i = 0; i < rows.size(); ++i)
    keys[i] = {hit_order_key(rows[i].query, rows[i].aln.score), rows[i].target, uint32_t(i)};
  // Rows already grouped by query (an engine's pair order) need only each query's few rows sorted.
  const auto query_of = [](const Key& k) { return uint32_t(k.query_score >> 32); };
  if (std::is_sorted(keys.begin(), keys.end(), [&](const Key& a, const Key& b) { return query_of(a) < query_of(b); })) {
    for (auto first = keys.begin(); first != keys.end();) {
      const auto last = std::find_if(first, keys.end(), [&](const Key& k) { return query_of(k) != query_of(*first); });
      std::sort(first, last);
      first = last;
    }
  } else {
    std::sort(keys.begin(), keys.end());
  }
  std::vector<const Hit*> sorted(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) sorted[i] = &rows[keys[i].row];
  HitTableColumns c = cigars ? hit_table_columns(sorted, 0, false, [](size_t) { return std::string_view(); })
                             : hit_table_columns(sorted, 0, false);
  // `cigars`' characters go to the file through a bounded buffer after the columns, not into
  // them: a screen's long-sequence tiles hold hundreds of thousands of ~400-character CIGARs a
  // worker (a write part a CIGAR, tried first, cost half again as much staging time).
  uint64_t chars = c.cigar_chars.size();
  if (cigars)
    for (size_t k = 0; k < c.rows(); ++k) c.cigar_end[k] = chars += cigars->length[keys[k].row];
  const auto zero = [](const std::vector<uint32_t>& v) { return std::all_of(v.begin(), v.end(), [](uint32_t x) { return x == 0; }); };
  const bool scores_only = chars == 0 && zero(c.qstart) && zero(c.qend) && zero(c.tstart) && zero(c.tend);

  std::vector<iovec> parts;
  c.for_each_row_column(false, [&](const char*, auto& column) {
    if (!scores_only || parts.size() < kScoreOnlyColumns) parts.push_back({column.data(), column.size() * sizeof(column[0])});
  });
  if (!scores_only) parts.push_back({c.cigar_chars.data(), c.cigar_chars.size()});
  const StagedRun run = file.append(scores_only ? kScoresMagic : kMagic, tile, c.rows(), chars, std::move(parts));
  if (cigars && chars > 0) {
    std::vector<char> buffer;
    buffer.reserve(kCigarWriteBytes);
    const auto flush = [&] {
      file.append_more({{buffer.data(), buffer.size()}});
      buffer.clear();
    };
    // The rows' CIGARs lie in the engine's launch order, the rows go in hit order: each CIGAR
    // is a cache miss, so the ones kCigarPrefetchRows ahead are fetched while this one is copied.
    for (size_t i = 0; i < keys.size(); ++i) {
      if (i + kCigarPrefetchRows < keys.size()) prefetch_cigar(*cigars, keys[i + kCigarPrefetchRows].row);
      const std::string_view v = cigars->at(keys[i].row);
      if (!buffer.empty() && buffer.size() + v.size() > kCigarWriteBytes) flush();
      buffer.insert(buffer.end(), v.begin(), v.end());
    }
    if (!buffer.empty()) flush();
  }
  return run;
}

bool HitRecords::is_whole(const std::string& dir, const StagedRun& run) const {
  return is_whole_record(dir, run, kMagic, sizeof(RecordHeader) + kRowBytes * run.rows + run.extra) ||
         (run.extra == 0 && is_whole_record(dir, run, kScoresMagic, sizeof(RecordHeader) + kScoreRowBytes * run.rows));
}

MergedRunFile::MergedRunFile(const std::string& dir, std::string name, uint64_t rows, uint64_t chars, bool scores_only)
    : name_(std::move(name)), path_(dir + "/" + name_), rows_(rows), chars_(chars), scores_only_(scores_only && chars == 0) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(sys_error("create the result run file", path_));
}

MergedRunFile::~MergedRunFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!finished_) ::unlink(path_.c_str());
}

void MergedRunFile::store(HitTableColumns& piece, const DeflatedHitTable&) {
  if (written_ + piece.rows() > rows_ || piece.chars_base + piece.cigar_chars.size() > chars_)
    throw Error("internal: a merge wrote more rows than its run " + path_ + " holds");
  size_t k = 0;
  piece.for_each_row_column(false, [&](const char*, auto& column) {
    const uint64_t bytes = kColumnBytes[k];
    if (!scores_only_ || k < kScoreOnlyColumns)
      pwrite_exactly(fd_, column.data(), bytes * column.size(), column_offset(rows_, k) + bytes * written_, path_);
    ++k;
  });
  pwrite_exactly(fd_, piece.cigar_chars.data(), piece.cigar_chars.size(), column_offset(rows_, kCharsColumn) + piece.chars_base,
                 path_);
  written_ += piece.rows();
}

StagedRun MergedRunFile::finish() {
  if (written_ != rows_) throw Error("internal: a merge wrote fewer rows than its run " + path_ + " holds");
  const RecordHeader h = RecordHeader::of(scores_only_ ? kScoresMagic : kMagic, 0, rows_, chars_);
  pwrite_exactly(fd_, &h, sizeof h, 0, path_);
  finished_ = true;
  return {name_, 0, rows_, chars_, 0};
}

RunFiles::RunFiles(const std::string& dir, std::vector<StagedRun> runs, bool release_merged)
    : runs_(std::move(runs)), files_(dir) {
  for (size_t r = 0; r < runs_.size(); ++r) {
    run_fd_.push_back(files_.fd(runs_[r].file));
    RecordHeader h{};
    if (runs_[r].rows > 0) read_at(r, 0, sizeof h, &h);
    scores_only_.push_back(runs_[r].rows > 0 && h.matches(kScoresMagic, runs_[r]));
    const std::string& name = runs_[r].file;
    const bool ours = release_merged && (numbered(name, 'i') || numbered(name, 'b'));
    release_fd_.push_back(ours ? ::open(files_.path(name).c_str(), O_WRONLY | O_CLOEXEC) : -1);
    released_.emplace_back(kCharsColumn + 1, 0);
  }
}

RunFiles::~RunFiles() {
  for (int fd : release_fd_)
    if (fd >= 0) ::close(fd);
}

// Holes punched a run at a time once this many of its consumed bytes are held (and at its
// end), at block boundaries: a few large calls, and no partial block zeroed (written) in vain.
constexpr uint64_t kReleaseStepBytes = uint64_t(64) << 20;
constexpr uint64_t kReleaseAlign = 4096;

void RunFiles::consumed(size_t r, uint64_t rows) const {
  int& fd = release_fd_[r];
  if (fd < 0 || rows == 0) return;
  const StagedRun& run = runs_[r];
  // Column k's bytes consumed; the CIGAR ends keep their last row: the next segment's read
  // starts with it (chars_before). The characters are found before any column is freed.
  const size_t columns = scores_only_[r] ? kScoreOnlyColumns : kCharsColumn;
  std::vector<uint64_t> ends(kCharsColumn + 1, 0);
  for (size_t k = 0; k < columns; ++k) ends[k] = kColumnBytes[k] * (k == 9 && rows < run.rows ? rows - 1 : rows);
  if (!scores_only_[r]) ends[kCharsColumn] = rows < run.rows ? chars_before(r, rows) : run.extra;
  uint64_t pending = 0;
  for (size_t k = 0; k <= kCharsColumn; ++k) pending += ends[k] - std::min(ends[k], released_[r][k]);
  if (pending < kReleaseStepBytes && rows < run.rows) return;
  for (size_t k = 0; k <= kCharsColumn && fd >= 0; ++k) {
    const uint64_t base = run.offset + column_offset(run.rows, k);
    const uint64_t from = (base + released_[r][k] + kReleaseAlign - 1) / kReleaseAlign * kReleaseAlign;
    const uint64_t to = (base + ends[k]) / kReleaseAlign * kReleaseAlign;
    if (to <= from) continue;
    // A file system without holes (EOPNOTSUPP) or any failure: the space goes at the removal, as before.
    if (::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(from), off_t(to - from)) != 0) {
      ::close(fd);
      fd = -1;
    }
    released_[r][k] = to - base;
  }
}

void RunFiles::read_at(size_t r, uint64_t offset, uint64_t bytes, void* out) const {
  if (pread_exactly(run_fd_[r], out, bytes, runs_[r].offset + offset)) return;
  const std::string path = files_.path(runs_[r].file);
  throw Error(errno == 0 ? path + " ends inside tile " + std::to_string(runs_[r].tile) + "'s rows"
                         : sys_error("read", path));
}

void RunFiles::read(size_t r, size_t column, uint64_t first, uint64_t n, void* out) const {
  if (column == 9 && runs_[r].extra == 0) {  // offsets into no characters (score-only): all 0, not read
    std::fill_n(static_cast<uint64_t*>(out), n, uint64_t(0));
    return;
  }
  if (scores_only_[r] && column >= kScoreOnlyColumns) {  // coordinates the record left out: zeros
    std::fill_n(static_cast<uint8_t*>(out), n * kColumnBytes[column], uint8_t(0));
    return;
  }
  read_at(r, column_offset(runs_[r].rows, column) + first * kColumnBytes[column], n * kColumnBytes[column], out);
}

uint64_t RunFiles::chars_before(size_t r, uint64_t row) const {
  uint64_t end = 0;
  if (row > 0) read(r, 9, row - 1, 1, &end);
  return end;
}

void RunFiles::read_chars(size_t r, uint64_t first, uint64_t n, uint8_t* out) const {
  read_at(r, column_offset(runs_[r].rows, kCharsColumn) + first, n, out);
}

}  // namespace hpc
