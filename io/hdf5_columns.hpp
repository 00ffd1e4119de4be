#pragma once
// A small RAII layer over the serial HDF5 C API for column files (README.md, "Result file"):
// every dataset is 1-D, chunked and extendible (numbers shuffled and deflated; strings,
// whose chunks hold only heap references, unfiltered), so h5py/pandas read it without our
// code. Every HDF5 failure becomes an hpc::Error naming the file and the object. Serial
// HDF5 is not thread-safe: callers keep one thread per file.
//
// Column element types: uint8_t, uint32_t, int32_t, uint64_t, float, double and
// std::string (stored as variable-length UTF-8); const char* columns (NUL-terminated strings
// that live elsewhere) can be created and appended, and read back as std::string.
#include <hdf5.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hpc::h5 {

// Owns one hid_t and closes it with the matching H5*close function.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : id_(other.id_), close_(other.close_) { other.id_ = -1; }
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  void reset();
  // Closes now and reports failure (a destructor cannot); used where the close
  // is the moment data reaches the disk.
  herr_t close_checked();

 private:
  hid_t id_ = -1;
  Closer close_ = nullptr;
};

enum class Mode { kCreate, kReadOnly, kReadWrite };

// An open HDF5 file. Object paths are relative to the root ("hits/query", "db").
class File {
 public:
  // kCreate truncates; errors read "cannot create <path>: <reason>" / "cannot open ...".
  File(const std::string& path, Mode mode);
  File(File&&) = default;
  File& operator=(File&&) = default;

  hid_t id() const { return file_.get(); }
  const std::string& path() const { return path_; }
  bool is_open() const { return file_.valid(); }
  void flush();
  void close();  // throws if HDF5 cannot write out what it holds

  bool exists(const std::string& object_path) const;  // every component checked
  // Creates every missing group along `group_path` ("staging/hits"); returns the last.
  Handle create_groups(const std::string& group_path);

 private:
  Handle file_;
  std::string path_;
};

// Chunk length for a column: 64Ki elements, or fewer when the caller knows the data is tiny.
constexpr size_t kDefaultChunk = 64 * 1024;
constexpr int kDeflateLevel = 4;
constexpr int kFastDeflateLevel = 1;

// Creates an empty extendible column (parent groups created as needed). kNumbers: numbers
// shuffled and deflated, strings not (their chunks hold 16-byte heap references); kAll: the
// references deflated too (a final table's empty CIGARs then cost nothing instead of 16 bytes
// a row); kNone: nothing filtered (scratch data written and read once: zlib was most of the
// cost of staging rows); kFast: numbers shuffled and deflated at level 1 (a merge's output:
// zlib at level 4 was most of the time of merging a screen, for files ~4% smaller); kStored:
// numbers shuffled and in deflate's stored blocks (level 0: the same filters as kFast's, read
// by any HDF5 reader, for data zlib cannot shrink: a merge's E-values, hit_table.hpp).
enum class Compression { kNumbers, kAll, kNone, kFast, kStored };
template <class T>
void create_column(File& file, const std::string& path, size_t chunk = kDefaultChunk,
                   Compression compression = Compression::kNumbers);
template <class T>
void append(File& file, const std::string& path, const std::vector<T>& values);
// Numbers deflated ahead of their append, on all cores and without HDF5 (any thread may call
// deflate_chunks while another writes the file), in the chunks of a column created with
// `chunk`: the file's one thread then only stores them (append_deflated). Empty when not worth it
// (one core, fewer than two chunks); append_deflated then appends as append() does.
struct DeflatedChunks {
  size_t chunk = 0;
  std::vector<std::vector<uint8_t>> chunks;
};
template <class T>
DeflatedChunks deflate_chunks(const T* values, size_t count, size_t chunk, int level = kDeflateLevel);
// Chunk k of the same (the values [k * chunk, ...) of `count`) into `out`, for callers that
// schedule the chunks of several columns at once; `plain`: scratch of at least chunk values.
template <class T>
bool deflate_chunk(const T* values, size_t count, size_t chunk, size_t k, int level, std::vector<uint8_t>& plain,
                   std::vector<uint8_t>& out);
// At least `at_least` bytes of scratch, borrowed from a pool that keeps them for the next
// borrower (a merge's deflating threads are new each segment; their buffers were not).
class PooledBytes {
 public:
  explicit PooledBytes(size_t at_least);
  ~PooledBytes();
  PooledBytes(const PooledBytes&) = delete;
  PooledBytes& operator=(const PooledBytes&) = delete;
  std::vector<uint8_t>& get() { return *bytes_; }

 private:
  std::unique_ptr<std::vector<uint8_t>> bytes_;
};
// The deflate level create_column sets for numbers (0: stored blocks; -1: not deflated, kNone).
int deflate_level(Compression compression);
template <class T>
void append_deflated(File& file, const std::string& path, const std::vector<T>& values, const DeflatedChunks& d);
// A column held open for a run of append_deflated calls by its only writer: a merge's output
// appends ~1,200 ranges to each column, and opening the column (its access list and chunk cache),
// checking its layout, reading its extent and closing it again at every append was on the
// storing thread, the merge's serial path. Destroyed before its file is closed.
class OpenColumn {
 public:
  OpenColumn(const File& file, std::string path);
  template <class T>
  void append_deflated(File& file, const std::vector<T>& values, const DeflatedChunks& d);

 private:
  Handle dset_;
  std::string path_;
  hsize_t extent_ = 0, chunk_ = 0;
  int ours_ = -1;  // has_our_layout, asked at the first append
};
// create_column + append, with a chunk no larger than the data.
template <class T>
void write_column(File& file, const std::string& path, const std::vector<T>& values,
                  size_t max_chunk = kDefaultChunk);
// A fixed-size column of numbers, contiguous and unfiltered: read back at the speed of a
// page-cache copy, for data read whole at every run (a database's residues and ids).
template <class T>
void write_contiguous_column(File& file, const std::string& path, const std::vector<T>& values);
// The whole column in one read (HDF5 converts stored numeric types to T).
template <class T>
std::vector<T> read_all(const File& file, const std::string& path);
uint64_t column_length(const File& file, const std::string& path);
// Shrinks (or grows) a column to `n` rows: resume cuts off rows of a tile whose write was cut short.
void resize_column(File& file, const std::string& path, uint64_t n);
// Names of the objects directly inside `group` (sorted); empty when the group does not exist.
std::vector<std::string> list_group(const File& file, const std::string& group);
// Unlinks an object (dataset or group) when it exists.
void remove_object(File& file, const std::string& path);

// Reads row ranges of one column through a dataset kept open, without a chunk cache: a merge
// reads large ranges of many runs of the same columns.
class RangeReader {
 public:
  RangeReader(const File& file, const std::string& path);
  uint64_t size() const { return rows_; }
  // Rows [first, first + count) into `out` (resized). T as in read_all.
  template <class T>
  void read(uint64_t first, uint64_t count, std::vector<T>& out) const;
  // The same for numbers, into memory the caller sized (a merge reads runs into one buffer).
  template <class T>
  void read_into(uint64_t first, uint64_t count, T* out) const;

 private:
  const File* file_;
  std::string path_;
  Handle dset_;
  uint64_t rows_ = 0;
};
// Copies `path` (a group or dataset, with everything below it and its attributes) from one
// file to another.
void copy_object(const File& from, File& to, const std::string& path);
// Copies every attribute of the root group (kept types: strings, integers, doubles).
void copy_root_attributes(const File& from, File& to);

// Attributes on any object ("" or "/" is the root). Setting replaces an existing one.
void set_attribute(File& file, const std::string& object, const std::string& name, const std::string& value);
void set_attribute(File& file, const std::string& object, const std::string& name, int64_t value);
void set_attribute(File& file, const std::string& object, const std::string& name, double value);
bool has_attribute(const File& file, const std::string& object, const std::string& name);
std::string read_string_attribute(const File& file, const std::string& object, const std::string& name);
// "2026-11-21T15:04:05Z": the form of the start_time/end_time attributes of every result file.
std::string utc_now_iso8601();
int64_t read_int_attribute(const File& file, const std::string& object, const std::string& name);
double read_double_attribute(const File& file, const std::string& object, const std::string& name);

// True when `path` is a readable file that starts with the HDF5 signature.
bool is_hdf5(const std::string& path);

}  // namespace hpc::h5
