#include "io/hdf5_columns.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#ifdef HPCALIGN_LIBDEFLATE
#include <libdeflate.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>

#include "src/core/error.hpp"
#include "src/core/on_all_cores.hpp"

namespace hpc::h5 {
namespace {

// HDF5 1.10 crashes in its exit-time cleanup (H5F__close_cb from H5_term_library) when an
// H5Fclose failed earlier, e.g. on a full disk, turning a clear error into a segfault. Every
// file is closed explicitly (File::close, or the Handle destructors while unwinding), so the
// cleanup is not needed: switch it off before the library initialises itself.
const bool kSkipHdf5ExitCleanup = (H5dont_atexit(), true);

// We report errors ourselves; HDF5's own stack dump on stderr would only confuse users.
void silence_hdf5_errors() {
  static const bool silenced = [] {
    H5open();
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)silenced;
}

// The innermost HDF5 error description, which is the one that says what went wrong
// ("unable to open file: ... error message = 'Permission denied'" -> "Permission denied").
std::string hdf5_reason() {
  std::string reason;
  auto take_first = [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
    auto* s = static_cast<std::string*>(out);
    if (n == 0 && e->desc) *s = e->desc;
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, take_first, &reason);
  H5Eclear2(H5E_DEFAULT);
  const std::string key = "error message = '";
  const size_t at = reason.find(key);
  if (at != std::string::npos) {
    const size_t begin = at + key.size();
    const size_t end = reason.find('\'', begin);
    reason = reason.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  }
  return reason.empty() ? "HDF5 error" : reason;
}

[[noreturn]] void fail(const std::string& what, const std::string& object, const std::string& file) {
  throw Error(file + ": cannot " + what + " '" + object + "': " + hdf5_reason());
}

hid_t check(hid_t id, const char* what, const std::string& object, const File& f) {
  if (id < 0) fail(what, object, f.path());
  return id;
}

std::string display_name(const std::string& object) { return object.empty() ? "/" : object; }

// "." names the root for H5Oopen; any other path is relative to the root.
const char* object_name(const std::string& object) {
  return object.empty() || object == "/" ? "." : object.c_str();
}

// Variable-length UTF-8: h5py returns these as str, not bytes.
Handle utf8_string_type() {
  Handle t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t.get(), H5T_VARIABLE);
  H5Tset_cset(t.get(), H5T_CSET_UTF8);
  return t;
}

template <class T> hid_t native_type();
template <> hid_t native_type<uint8_t>() { return H5T_NATIVE_UINT8; }
template <> hid_t native_type<uint32_t>() { return H5T_NATIVE_UINT32; }
template <> hid_t native_type<int32_t>() { return H5T_NATIVE_INT32; }
template <> hid_t native_type<uint64_t>() { return H5T_NATIVE_UINT64; }
template <> hid_t native_type<float>() { return H5T_NATIVE_FLOAT; }
template <> hid_t native_type<double>() { return H5T_NATIVE_DOUBLE; }
template <> hid_t native_type<int64_t>() { return H5T_NATIVE_INT64; }

template <class T>
constexpr bool is_text_v = std::is_same_v<T, std::string> || std::is_same_v<T, const char*>;

// Memory type for T; the Handle keeps a string type alive (numeric types need no closing).
template <class T>
Handle memory_type() {
  if constexpr (is_text_v<T>) return utf8_string_type();
  else return Handle(native_type<T>(), nullptr);
}

// Appends commit one chunk per flush; a cache of a few chunks keeps the partial last
// chunk in memory between appends of the same open dataset.
Handle dataset_access() {
  Handle dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
  H5Pset_chunk_cache(dapl.get(), 521, 8u << 20, 0.75);
  return dapl;
}

Handle open_dataset(const File& f, const std::string& path) {
  if (!f.exists(path)) throw Error(f.path() + ": no dataset '" + path + "'");
  Handle dapl = dataset_access();
  return Handle(check(H5Dopen2(f.id(), path.c_str(), dapl.get()), "open dataset", path, f), H5Dclose);
}

hsize_t extent_of(const Handle& dset, const std::string& path, const File& f) {
  Handle space(check(H5Dget_space(dset.get()), "read the shape of", path, f), H5Sclose);
  if (H5Sget_simple_extent_ndims(space.get()) != 1)
    throw Error(f.path() + ": dataset '" + path + "' is not one-dimensional");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.get(), &n, nullptr);
  return n;
}

Handle open_object(const File& f, const std::string& object) {
  return Handle(check(H5Oopen(f.id(), object_name(object), H5P_DEFAULT), "open", display_name(object), f),
                H5Oclose);
}

// Writes a scalar attribute, replacing any earlier one (its type may differ).
void write_scalar_attribute(File& f, const std::string& object, const std::string& name, hid_t type,
                            const void* value) {
  Handle obj = open_object(f, object);
  const std::string what = display_name(object) + "@" + name;
  const htri_t present = H5Aexists(obj.get(), name.c_str());
  if (present < 0) fail("check attribute", what, f.path());
  if (present > 0 && H5Adelete(obj.get(), name.c_str()) < 0) fail("replace attribute", what, f.path());
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  Handle attr(check(H5Acreate2(obj.get(), name.c_str(), type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                    "create attribute", what, f),
              H5Aclose);
  if (H5Awrite(attr.get(), type, value) < 0) fail("write attribute", what, f.path());
}

Handle open_attribute(const File& f, const std::string& object, const std::string& name) {
  if (!has_attribute(f, object, name))
    throw Error(f.path() + ": no attribute '" + name + "' on '" + display_name(object) + "'");
  Handle obj = open_object(f, object);
  return Handle(check(H5Aopen(obj.get(), name.c_str(), H5P_DEFAULT), "open attribute",
                      display_name(object) + "@" + name, f),
                H5Aclose);
}

template <class T>
T read_scalar_attribute(const File& f, const std::string& object, const std::string& name) {
  Handle attr = open_attribute(f, object, name);
  Handle type(H5Aget_type(attr.get()), H5Tclose);
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls != H5T_INTEGER && cls != H5T_FLOAT)
    throw Error(f.path() + ": attribute '" + name + "' on '" + display_name(object) + "' is not a number");
  T value{};
  if (H5Aread(attr.get(), native_type<T>(), &value) < 0)
    fail("read attribute", display_name(object) + "@" + name, f.path());
  return value;
}

// Link-creation properties that create the missing groups along a path ("staging/hits/score").
Handle link_with_parents() {
  Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  return lcpl;
}

// Runs work(k, scratch) for every chunk k < n on `threads` threads, each with its own
// scratch buffer of scratch_bytes; false as soon as one call returns false.
template <class Work>
bool for_chunks_on_cores(size_t threads, hsize_t n, size_t scratch_bytes, Work work) {
  std::atomic<hsize_t> next{0};
  std::atomic<bool> ok{true};
  auto run = [&] {
    std::vector<uint8_t> scratch(scratch_bytes);
    for (hsize_t k = next++; k < n && ok; k = next++)
      if (!work(k, scratch)) ok = false;
  };
  run_parts(threads, [&](size_t) { run(); });
  return ok;
}

// Undoes HDF5's shuffle filter on one chunk: byte j of element i sits at [j * chunk + i].
void unshuffle(const uint8_t* in, size_t chunk, size_t elem, uint8_t* out, size_t count) {
  for (size_t j = 0; j < elem; ++j)
    for (size_t i = 0; i < count; ++i) out[i * elem + j] = in[j * chunk + i];
}

// True when `dset` is stored exactly as create_column<T> writes it: chunked, shuffle
// then deflate, in T's native type. Sets `chunk` to the chunk length.
template <class T>
bool has_our_layout(const Handle& dset, hsize_t& chunk, int* level = nullptr) {
  Handle dcpl(H5Dget_create_plist(dset.get()), H5Pclose);
  if (H5Pget_layout(dcpl.get()) != H5D_CHUNKED || H5Pget_chunk(dcpl.get(), 1, &chunk) != 1) return false;
  if (H5Pget_nfilters(dcpl.get()) != 2) return false;
  const H5Z_filter_t expected[2] = {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE};
  for (unsigned k = 0; k < 2; ++k) {
    unsigned flags = 0, config = 0, values[8];
    size_t n_values = 8;
    if (H5Pget_filter2(dcpl.get(), k, &flags, &n_values, values, 0, nullptr, &config) != expected[k]) return false;
    if (level && expected[k] == H5Z_FILTER_DEFLATE) *level = n_values > 0 ? int(values[0]) : kDeflateLevel;
  }
  Handle stored(H5Dget_type(dset.get()), H5Tclose);
  return H5Tequal(stored.get(), native_type<T>()) > 0;
}

// HDF5 inflates chunks one after another on one core (~230 MB/s: about a second for
// 207M residues). Reading the compressed chunks as they are and inflating them on all
// cores leaves mostly the I/O. Returns false (and the caller uses H5Dread, which then
// reports any real error) whenever the dataset is not laid out as we write it.
template <class T>
bool read_chunks_in_parallel(const Handle& dset, hsize_t n, std::vector<T>& out) {
  const size_t threads = usable_cores();
  hsize_t chunk = 0;
  if (threads < 2 || !has_our_layout<T>(dset, chunk) || chunk == 0) return false;
  const hsize_t n_chunks = (n + chunk - 1) / chunk;
  if (n_chunks < 4) return false;

  std::vector<std::vector<uint8_t>> packed(n_chunks);
  for (hsize_t k = 0; k < n_chunks; ++k) {
    hsize_t offset = k * chunk, bytes = 0;
    uint32_t skipped_filters = 0;
    if (H5Dget_chunk_storage_size(dset.get(), &offset, &bytes) < 0 || bytes == 0) return false;
    packed[k].resize(bytes);
    if (H5Dread_chunk(dset.get(), H5P_DEFAULT, &offset, &skipped_filters, packed[k].data()) < 0 ||
        skipped_filters != 0)
      return false;
  }

  out.resize(n);
  const size_t chunk_bytes = chunk * sizeof(T);
  return for_chunks_on_cores(threads, n_chunks, chunk_bytes, [&](hsize_t k, std::vector<uint8_t>& plain) {
    uLongf len = chunk_bytes;
    if (uncompress(plain.data(), &len, packed[k].data(), packed[k].size()) != Z_OK || len != chunk_bytes) return false;
    const hsize_t first = k * chunk, count = std::min(chunk, n - first);
    auto* dst = reinterpret_cast<uint8_t*>(out.data() + first);
    if (sizeof(T) == 1) std::memcpy(dst, plain.data(), count);
    else unshuffle(plain.data(), chunk, sizeof(T), dst, count);
    std::vector<uint8_t>().swap(packed[k]);
    return true;
  });
}

// Sizes a large buffer in transparent huge pages where the kernel gives them on request only
// (madvise mode): 207M residues take ~100 page faults instead of ~50,000 (their load on an
// H100 host's 16 cores: 0.17-0.22 s before, under 0.11 s after), and freeing them is quicker.
template <class T>
void resize_in_huge_pages(std::vector<T>& out, size_t n) {
  out.reserve(n);
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(out.data()) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(out.data()) + n * sizeof(T)) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice: may fail
#endif
  out.resize(n);
}

// A contiguous, unfiltered dataset of T (write_contiguous_column) is read straight from the
// file with pread on all cores, at the dataset's address: HDF5 copies it on one thread (~0.1 s
// for 207M residues). False (the caller then uses H5Dread) for anything else, and for data too
// small to gain.
template <class T>
bool read_contiguous_in_parallel(const File& f, const Handle& dset, hsize_t n, std::vector<T>& out) {
  const size_t bytes = size_t(n) * sizeof(T);
  if (bytes < (size_t(16) << 20) || usable_cores() < 2) return false;
  Handle dcpl(H5Dget_create_plist(dset.get()), H5Pclose);
  if (H5Pget_layout(dcpl.get()) != H5D_CONTIGUOUS || H5Pget_nfilters(dcpl.get()) != 0) return false;
  Handle stored(H5Dget_type(dset.get()), H5Tclose);
  if (H5Tequal(stored.get(), native_type<T>()) <= 0 || H5Dget_storage_size(dset.get()) != bytes) return false;
  Handle fcpl(H5Fget_create_plist(f.id()), H5Pclose);
  hsize_t userblock = 1;
  const haddr_t at = H5Dget_offset(dset.get());  // from the start of the file when there is no user block
  if (H5Pget_userblock(fcpl.get(), &userblock) < 0 || userblock != 0 || at == HADDR_UNDEF) return false;
  const int fd = ::open(f.path().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  resize_in_huge_pages(out, n);
  std::atomic<bool> ok{true};
  run_ranges(bytes, usable_cores(), [&](size_t first, size_t last) {
    auto* dst = reinterpret_cast<char*>(out.data());
    while (first < last) {
      const ssize_t got = ::pread(fd, dst + first, last - first, off_t(at + first));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return void(ok = false);
      first += size_t(got);
    }
  });
  ::close(fd);
  return ok;
}

// Stores chunks deflated by deflate_chunks at rows first, first + chunk, ... (a chunk boundary)
// with H5Dwrite_chunk, bypassing HDF5's one-core filter pipeline. False on a failed write.
bool store_chunks(const Handle& dset, hsize_t first, const DeflatedChunks& d) {
  for (size_t k = 0; k < d.chunks.size(); ++k) {
    hsize_t offset = first + hsize_t(k) * d.chunk;
    if (H5Dwrite_chunk(dset.get(), H5P_DEFAULT, 0, &offset, d.chunks[k].size(), d.chunks[k].data()) < 0) return false;
  }
  return true;
}

// When the rows from `first` on start a chunk, deflated on all cores and stored as chunks;
// false (the caller then writes the rows through HDF5, which reports any real error) when
// deflate_chunks declines or a write fails. `chunk`: the dataset's (has_our_layout).
template <class T>
bool write_chunks_in_parallel(const Handle& dset, hsize_t chunk, int level, hsize_t first, const T* values,
                              hsize_t count) {
  if (chunk == 0 || first % chunk != 0) return false;
  const DeflatedChunks d = deflate_chunks(values, size_t(count), size_t(chunk), level);
  return !d.chunks.empty() && store_chunks(dset, first, d);
}

}  // namespace

// ---- Handle ----

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = other.id_;
    close_ = other.close_;
    other.id_ = -1;
  }
  return *this;
}

void Handle::reset() {
  if (id_ >= 0 && close_) close_(id_);
  id_ = -1;
}

herr_t Handle::close_checked() {
  herr_t rc = 0;
  if (id_ >= 0 && close_) rc = close_(id_);
  id_ = -1;
  return rc;
}

// ---- File ----

File::File(const std::string& path, Mode mode) : path_(path) {
  silence_hdf5_errors();
  hid_t id = -1;
  if (mode == Mode::kCreate) {
    id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (id < 0) throw Error("cannot create " + path + ": " + hdf5_reason());
  } else {
    const unsigned flags = mode == Mode::kReadOnly ? H5F_ACC_RDONLY : H5F_ACC_RDWR;
    id = H5Fopen(path.c_str(), flags, H5P_DEFAULT);
    if (id < 0) throw Error("cannot open " + path + ": " + hdf5_reason());
  }
  file_ = Handle(id, H5Fclose);
}

void File::flush() {
  if (H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0) fail("flush", "/", path_);
}

void File::close() {
  if (file_.valid() && file_.close_checked() < 0) fail("close", "/", path_);
}

bool File::exists(const std::string& object_path) const {
  // H5Lexists needs every parent to exist, so walk the path one component at a time.
  size_t pos = 0;
  while (pos < object_path.size()) {
    size_t slash = object_path.find('/', pos);
    if (slash == std::string::npos) slash = object_path.size();
    const std::string prefix = object_path.substr(0, slash);
    if (slash > pos && H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
    pos = slash + 1;
  }
  return true;
}

Handle File::create_groups(const std::string& group_path) {
  if (exists(group_path))
    return Handle(check(H5Gopen2(file_.get(), group_path.c_str(), H5P_DEFAULT), "open group", group_path, *this),
                  H5Gclose);
  const Handle lcpl = link_with_parents();
  return Handle(check(H5Gcreate2(file_.get(), group_path.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                      "create group", group_path, *this),
                H5Gclose);
}

// ---- columns ----

template <class T>
void create_column(File& f, const std::string& path, size_t chunk, Compression compression) {
  const hsize_t zero = 0, unlimited = H5S_UNLIMITED, chunk_len = std::max<size_t>(chunk, 1);
  Handle space(H5Screate_simple(1, &zero, &unlimited), H5Sclose);
  const Handle lcpl = link_with_parents();
  Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  // Strings are variable-length: the chunks hold only 16-byte heap references (the text sits
  // in HDF5's global heap, never filtered), so deflating them bought little and cost ~40% of
  // writing a column of millions of CIGARs.
  if (H5Pset_chunk(dcpl.get(), 1, &chunk_len) < 0 ||
      (compression != Compression::kNone && (!is_text_v<T> || compression == Compression::kAll) &&
       (H5Pset_shuffle(dcpl.get()) < 0 || H5Pset_deflate(dcpl.get(), unsigned(deflate_level(compression))) < 0)))
    fail("set up compression for", path, f.path());
  Handle type = memory_type<T>();
  Handle dapl = dataset_access();
  Handle dset(check(H5Dcreate2(f.id(), path.c_str(), type.get(), space.get(), lcpl.get(), dcpl.get(), dapl.get()),
                    "create dataset", path, f),
              H5Dclose);
}

template <class T>
void append(File& f, const std::string& path, const std::vector<T>& values) {
  if (values.empty()) return;
  Handle dset = open_dataset(f, path);
  const hsize_t old_n = extent_of(dset, path, f), count = values.size(), new_n = old_n + count;
  if (H5Dset_extent(dset.get(), &new_n) < 0) fail("extend dataset", path, f.path());
  // Rows [at, at + n) of values through HDF5's own pipeline.
  auto write_rows = [&](hsize_t at, hsize_t n) {
    if (n == 0) return;
    const hsize_t start = old_n + at;
    Handle file_space(check(H5Dget_space(dset.get()), "select rows of", path, f), H5Sclose);
    if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &start, nullptr, &n, nullptr) < 0)
      fail("select rows of", path, f.path());
    Handle mem_space(H5Screate_simple(1, &n, nullptr), H5Sclose);
    Handle type = memory_type<T>();
    herr_t rc;
    if constexpr (std::is_same_v<T, std::string>) {
      std::vector<const char*> ptrs(n);
      // An empty string as a null one: no heap object (read back, and by h5py, as "").
      for (hsize_t i = 0; i < n; ++i) ptrs[i] = values[at + i].empty() ? nullptr : values[at + i].c_str();
      rc = H5Dwrite(dset.get(), type.get(), mem_space.get(), file_space.get(), H5P_DEFAULT, ptrs.data());
    } else {  // numbers, or const char* already in the layout HDF5 takes
      rc = H5Dwrite(dset.get(), type.get(), mem_space.get(), file_space.get(), H5P_DEFAULT, values.data() + at);
    }
    if (rc < 0) fail("write dataset", path, f.path());
  };
  if constexpr (!is_text_v<T>) {
    // Fill the open chunk through HDF5, then the whole chunks from there on all cores.
    hsize_t chunk = 0;
    int level = kDeflateLevel;
    if (count >= 16 * 1024 && has_our_layout<T>(dset, chunk, &level) && chunk > 0 && count >= 4 * chunk) {
      const hsize_t head = std::min<hsize_t>(count, (chunk - old_n % chunk) % chunk);
      write_rows(0, head);
      if (write_chunks_in_parallel(dset, chunk, level, old_n + head, values.data() + head, count - head)) return;
      write_rows(head, count - head);
      return;
    }
  }
  write_rows(0, count);
}

// One chunk as a zlib stream, which HDF5's deflate filter reads whatever the strategy. Level 1
// (a merge's output) matches runs of equal bytes only (Z_RLE): the shuffled byte planes of
// result columns are mostly such runs, and zlib's LZ77 search at level 1 was over half of a
// screen's final merge (perf), for little more compression.
// zlib streams and byte buffers kept for the next chunk. A merge deflates each segment on the
// threads of a fresh run_parts: a thread_local scratch, and deflateInit2's ~256 KiB of state a
// chunk (trimmed back to the system at each deflateEnd), were allocated, faulted in and zeroed
// anew, segment after segment. deflateReset gives the stream of a fresh deflateInit2.
struct Deflater {
  z_stream z{};
  int level = -1;  // of the initialised stream; -1: none
  std::vector<uint8_t> out;
  ~Deflater() {
    if (level >= 0) deflateEnd(&z);
  }
};
template <class T>
class Pool {
 public:
  std::unique_ptr<T> take() {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) return std::make_unique<T>();
    std::unique_ptr<T> t = std::move(free_.back());
    free_.pop_back();
    return t;
  }
  void give(std::unique_ptr<T> t) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(t));
  }

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<T>> free_;
};
// One pool a level: a stream made for another level is set up anew (deflateInit2), and a merge
// deflates its E-values stored (level 0) beside its other columns at level 1.
static Pool<Deflater>& deflaters(int level) {
  static auto* pools = new Pool<Deflater>[10];  // never destroyed: threads may still return theirs at exit
  return pools[std::clamp(level, 0, 9)];
}
static Pool<std::vector<uint8_t>>& byte_buffers() {
  static Pool<std::vector<uint8_t>>* pool = new Pool<std::vector<uint8_t>>;
  return *pool;
}

PooledBytes::PooledBytes(size_t at_least) : bytes_(byte_buffers().take()) {
  if (bytes_->size() < at_least) bytes_->resize(at_least);
}
PooledBytes::~PooledBytes() { byte_buffers().give(std::move(bytes_)); }

// One chunk as a zlib stream, which HDF5's deflate filter reads whatever the strategy. Level 1
// (a merge's output) matches runs of equal bytes only (Z_RLE): the shuffled byte planes of
// result columns are mostly such runs, and zlib's LZ77 search at level 1 was over half of a
// screen's final merge (perf), for little more compression.
static bool deflate_one(const std::vector<uint8_t>& plain, size_t bytes, int level, std::vector<uint8_t>& out) {
  std::unique_ptr<Deflater> d = deflaters(level).take();
  z_stream& z = d->z;
  if (d->level != level) {
    if (d->level >= 0) deflateEnd(&z);
    z = z_stream{};
    d->level = -1;
    if (deflateInit2(&z, level, Z_DEFLATED, 15, 8, level == kFastDeflateLevel ? Z_RLE : Z_DEFAULT_STRATEGY) != Z_OK)
      return false;
    d->level = level;
  } else if (deflateReset(&z) != Z_OK) {
    return false;
  }
  // Into the deflater's scratch, then kept at its deflated size: `out` sized by deflateBound
  // (zero-filled, then shrunk in size only) had held a whole plain chunk of memory for every
  // deflated chunk, doubling what a merge's deflated tables took.
  std::vector<uint8_t>& scratch = d->out;
  scratch.resize(std::max<size_t>(scratch.size(), deflateBound(&z, uLong(bytes))));
  z.next_in = const_cast<Bytef*>(plain.data());
  z.avail_in = uInt(bytes);
  z.next_out = scratch.data();
  z.avail_out = uInt(scratch.size());
  const bool ok = deflate(&z, Z_FINISH) == Z_STREAM_END;
  out.assign(scratch.begin(), scratch.begin() + z.total_out);
  deflaters(level).give(std::move(d));
  return ok;
}

#ifdef HPCALIGN_LIBDEFLATE
// Text (a byte column at level 1: the CIGARs) as libdeflate's level-1 zlib stream. zlib's
// Z_RLE finds no runs there and only Huffman-codes it; libdeflate's matcher takes about half
// zlib's CPU a byte and leaves ~19% fewer bytes (balifam1000 CIGARs: 3.62:1 against 2.94:1),
// and a screen with alignments deflates ~10 GB of them in its final merge. Any zlib reader
// (HDF5's deflate filter) inflates it.
struct TextDeflater {
  libdeflate_compressor* c = libdeflate_alloc_compressor(kFastDeflateLevel);
  std::vector<uint8_t> out;
  ~TextDeflater() { libdeflate_free_compressor(c); }
};
static bool deflate_text(const std::vector<uint8_t>& plain, size_t bytes, std::vector<uint8_t>& out) {
  static auto* pool = new Pool<TextDeflater>;  // never destroyed, as the zlib streams' pools
  std::unique_ptr<TextDeflater> d = pool->take();
  if (!d->c) return false;
  d->out.resize(std::max(d->out.size(), libdeflate_zlib_compress_bound(d->c, bytes)));
  const size_t n = libdeflate_zlib_compress(d->c, plain.data(), bytes, d->out.data(), d->out.size());
  out.assign(d->out.begin(), d->out.begin() + n);
  pool->give(std::move(d));
  return n > 0;
}
#endif

// Blocks of 4 KiB OR-ed together (vectorised), stopping at the first that is not zero.
static bool all_zero(const uint8_t* p, size_t n) {
  for (size_t at = 0; at < n; at += 4096) {
    uint8_t any = 0;
    for (size_t i = at, end = std::min(n, at + 4096); i < end; ++i) any |= p[i];
    if (any) return false;
  }
  return true;
}

// A chunk of zero bytes deflated once per size and level: columns a run leaves at zero (a
// screen's score-only alignment coordinates, offsets and identities) are most of a table's
// chunks. zlib's output depends only on its input and settings, so the bytes are the same.
static bool deflate_zero_chunk(size_t bytes, int level, std::vector<uint8_t>& out) {
  static std::mutex mu;
  static std::map<std::pair<size_t, int>, std::vector<uint8_t>> made;
  std::lock_guard<std::mutex> lock(mu);
  auto it = made.find({bytes, level});
  if (it == made.end()) {
    std::vector<uint8_t> deflated;
    if (!deflate_one(std::vector<uint8_t>(bytes, 0), bytes, level, deflated)) return false;
    it = made.emplace(std::make_pair(bytes, level), std::move(deflated)).first;
  }
  out = it->second;
  return true;
}

// HDF5 deflates chunks one after another on one core, which made writing a few million result
// rows cost seconds. Here they are shuffled and deflated on all cores exactly as the dataset's
// filters would (the last chunk zero-padded: HDF5 reads it only up to the extent, and a later
// append rewrites it through the filters).
template <class T>
bool deflate_chunk(const T* values, size_t count, size_t chunk, size_t k, int level, std::vector<uint8_t>& plain,
                   std::vector<uint8_t>& out) {
  const size_t in_chunk = std::min(chunk, count - k * chunk), chunk_bytes = chunk * sizeof(T);
  const auto* src = reinterpret_cast<const uint8_t*>(values + k * chunk);
  // Shuffled or not, a chunk of zero values (padded with zeros) is zero bytes.
  if (all_zero(src, in_chunk * sizeof(T)))
    return deflate_zero_chunk(chunk_bytes, level, out);
  if (plain.size() < chunk_bytes) plain.resize(chunk_bytes);
  for (size_t j = 0; j < sizeof(T); ++j) {  // the shuffle filter: byte j of element i at [j * chunk + i]
    uint8_t* plane = plain.data() + j * chunk;
    for (size_t i = 0; i < in_chunk; ++i) plane[i] = src[i * sizeof(T) + j];
    std::fill(plane + in_chunk, plane + chunk, uint8_t(0));
  }
#ifdef HPCALIGN_LIBDEFLATE
  if constexpr (sizeof(T) == 1)
    if (level == kFastDeflateLevel) return deflate_text(plain, chunk_bytes, out);
#endif
  return deflate_one(plain, chunk_bytes, level, out);
}

int deflate_level(Compression compression) {
  switch (compression) {
    case Compression::kNone: return -1;
    case Compression::kFast: return kFastDeflateLevel;
    case Compression::kStored: return 0;
    default: return kDeflateLevel;
  }
}

// HDF5 deflates chunks one after another on one core, which made writing a few million result
// rows cost seconds. Here they are shuffled and deflated on all cores exactly as the dataset's
// filters would (the last chunk zero-padded: HDF5 reads it only up to the extent, and a later
// append rewrites it through the filters).
template <class T>
DeflatedChunks deflate_chunks(const T* values, size_t count, size_t chunk, int level) {
  DeflatedChunks d;
  const size_t n_chunks = chunk == 0 ? 0 : (count + chunk - 1) / chunk;
  if (usable_cores() < 2 || n_chunks < 2) return d;
  d.chunk = chunk;
  d.chunks.resize(n_chunks);
  const bool ok = for_chunks_on_cores(usable_cores(), n_chunks, chunk * sizeof(T), [&](hsize_t k, std::vector<uint8_t>& plain) {
    return deflate_chunk(values, count, chunk, size_t(k), level, plain, d.chunks[k]);
  });
  if (!ok) d.chunks.clear();
  return d;
}

template <class T>
void append_deflated(File& f, const std::string& path, const std::vector<T>& values, const DeflatedChunks& d) {
  OpenColumn(f, path).append_deflated(f, values, d);
}

OpenColumn::OpenColumn(const File& f, std::string path) : dset_(open_dataset(f, path)), path_(std::move(path)) {
  extent_ = extent_of(dset_, path_, f);
}

template <class T>
void OpenColumn::append_deflated(File& f, const std::vector<T>& values, const DeflatedChunks& d) {
  if (ours_ < 0) ours_ = has_our_layout<T>(dset_, chunk_);
  const hsize_t old_n = extent_, new_n = old_n + values.size();
  const bool fits = !d.chunks.empty() && ours_ > 0 && chunk_ == d.chunk && old_n % chunk_ == 0 &&
                    (values.size() + chunk_ - 1) / chunk_ == d.chunks.size();
  if (fits) {
    if (H5Dset_extent(dset_.get(), &new_n) < 0) fail("extend dataset", path_, f.path());
    if (store_chunks(dset_, old_n, d)) {
      extent_ = new_n;
      return;
    }
    if (H5Dset_extent(dset_.get(), &old_n) < 0) fail("shrink dataset", path_, f.path());
  }
  dset_.reset();
  append(f, path_, values);  // through HDF5, which reports any real error
  dset_ = open_dataset(f, path_);
  extent_ = extent_of(dset_, path_, f);
}

template <class T>
void write_column(File& f, const std::string& path, const std::vector<T>& values, size_t max_chunk) {
  create_column<T>(f, path, std::min(std::max<size_t>(values.size(), 1), max_chunk));
  append(f, path, values);
}

template <class T>
void write_contiguous_column(File& f, const std::string& path, const std::vector<T>& values) {
  static_assert(!is_text_v<T>, "numbers only");
  const hsize_t n = values.size();
  Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  const Handle lcpl = link_with_parents();
  Handle type = memory_type<T>();
  Handle dset(check(H5Dcreate2(f.id(), path.c_str(), type.get(), space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                    "create dataset", path, f),
              H5Dclose);
  if (n > 0 && H5Dwrite(dset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    fail("write dataset", path, f.path());
}

namespace {
// Reads variable-length strings (the selection `file_space`, or all) into `out`; `space` is the
// memory shape, which HDF5 needs to free its copies.
void read_strings(const Handle& dset, const Handle& space, hid_t mem_space, hid_t file_space, const std::string& path,
                  const File& f, std::vector<std::string>& out) {
  const hssize_t n = H5Sget_select_npoints(space.get());
  Handle type = utf8_string_type();
  std::vector<char*> ptrs(size_t(std::max<hssize_t>(n, 0)), nullptr);
  if (H5Dread(dset.get(), type.get(), mem_space, file_space, H5P_DEFAULT, ptrs.data()) < 0)
    fail("read dataset", path, f.path());
  out.reserve(ptrs.size());
  for (char* p : ptrs) out.emplace_back(p ? p : "");
#if H5_VERSION_GE(1, 12, 0)
  H5Treclaim(type.get(), space.get(), H5P_DEFAULT, ptrs.data());
#else
  H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, ptrs.data());
#endif
}
}  // namespace

template <class T>
std::vector<T> read_all(const File& f, const std::string& path) {
  Handle dset = open_dataset(f, path);
  const hsize_t n = extent_of(dset, path, f);
  std::vector<T> out;
  if (n == 0) return out;
  Handle type = memory_type<T>();
  if constexpr (std::is_same_v<T, std::string>) {
    Handle stored(H5Dget_type(dset.get()), H5Tclose);
    if (H5Tget_class(stored.get()) != H5T_STRING || H5Tis_variable_str(stored.get()) <= 0)
      throw Error(f.path() + ": dataset '" + path + "' does not hold variable-length strings");
    Handle space(H5Dget_space(dset.get()), H5Sclose);
    read_strings(dset, space, H5S_ALL, H5S_ALL, path, f, out);
  } else {
    if (read_chunks_in_parallel(dset, n, out) || read_contiguous_in_parallel(f, dset, n, out)) return out;
    out.resize(n);
    if (H5Dread(dset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
      fail("read dataset", path, f.path());
  }
  return out;
}

uint64_t column_length(const File& f, const std::string& path) {
  Handle dset = open_dataset(f, path);
  return extent_of(dset, path, f);
}

void resize_column(File& f, const std::string& path, uint64_t n) {
  Handle dset = open_dataset(f, path);
  const hsize_t new_n = n;
  if (H5Dset_extent(dset.get(), &new_n) < 0) fail("resize dataset", path, f.path());
}

std::vector<std::string> list_group(const File& f, const std::string& group) {
  std::vector<std::string> names;
  if (!f.exists(group)) return names;
  auto collect = [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
  };
  hsize_t idx = 0;
  if (H5Literate_by_name(f.id(), group.c_str(), H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &names, H5P_DEFAULT) < 0)
    fail("list group", group, f.path());
  return names;
}

void remove_object(File& f, const std::string& path) {
  if (f.exists(path) && H5Ldelete(f.id(), path.c_str(), H5P_DEFAULT) < 0) fail("remove", path, f.path());
}

// No chunk cache: a merge reads large ranges of unfiltered runs, which HDF5 then copies from
// the file straight into the caller's memory. With a cache, every chunk touched went through
// a buffer that HDF5's free lists kept after eviction (3,000 sequences, every pair kept: the
// merge's resident memory grew by 120 MB reading its first segment).
RangeReader::RangeReader(const File& f, const std::string& path) : file_(&f), path_(path) {
  if (!f.exists(path)) throw Error(f.path() + ": no dataset '" + path + "'");
  Handle dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
  H5Pset_chunk_cache(dapl.get(), 0, 0, 1.0);
  dset_ = Handle(check(H5Dopen2(f.id(), path.c_str(), dapl.get()), "open dataset", path, f), H5Dclose);
  rows_ = extent_of(dset_, path, f);
}

template <class T>
void RangeReader::read(uint64_t first, uint64_t count, std::vector<T>& out) const {
  if (first + count > rows_)
    throw Error(file_->path() + ": rows " + std::to_string(first) + "+" + std::to_string(count) + " beyond the " +
                std::to_string(rows_) + " of '" + path_ + "'");
  out.clear();
  if constexpr (!is_text_v<T>) {
    out.resize(count);
    read_into(first, count, out.data());
  } else if (count > 0) {
    const hsize_t start = first, n = count;
    Handle file_space(check(H5Dget_space(dset_.get()), "select rows of", path_, *file_), H5Sclose);
    if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &start, nullptr, &n, nullptr) < 0)
      fail("select rows of", path_, file_->path());
    Handle mem_space(H5Screate_simple(1, &n, nullptr), H5Sclose);
    read_strings(dset_, mem_space, mem_space.get(), file_space.get(), path_, *file_, out);
  }
}

template <class T>
void RangeReader::read_into(uint64_t first, uint64_t count, T* out) const {
  static_assert(!is_text_v<T>, "numbers only");
  if (first + count > rows_)
    throw Error(file_->path() + ": rows " + std::to_string(first) + "+" + std::to_string(count) + " beyond the " +
                std::to_string(rows_) + " of '" + path_ + "'");
  if (count == 0) return;
  const hsize_t start = first, n = count;
  Handle file_space(check(H5Dget_space(dset_.get()), "select rows of", path_, *file_), H5Sclose);
  if (H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, &start, nullptr, &n, nullptr) < 0)
    fail("select rows of", path_, file_->path());
  Handle mem_space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Handle type = memory_type<T>();
  if (H5Dread(dset_.get(), type.get(), mem_space.get(), file_space.get(), H5P_DEFAULT, out) < 0)
    fail("read dataset", path_, file_->path());
}

void copy_object(const File& from, File& to, const std::string& path) {
  if (H5Ocopy(from.id(), path.c_str(), to.id(), path.c_str(), H5P_DEFAULT, link_with_parents().get()) < 0)
    fail("copy", path, to.path());
}

void copy_root_attributes(const File& from, File& to) {
  std::vector<std::string> names;  // collected first: no C++ exception may cross HDF5's C frames
  auto collect = [](hid_t, const char* name, const H5A_info_t*, void* out) -> herr_t {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
  };
  Handle root = open_object(from, "");
  hsize_t idx = 0;
  if (H5Aiterate2(root.get(), H5_INDEX_NAME, H5_ITER_INC, &idx, collect, &names) < 0)
    fail("list the attributes of", "/", from.path());
  for (const std::string& name : names) {
    Handle attr = open_attribute(from, "", name);
    Handle type(H5Aget_type(attr.get()), H5Tclose);
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls == H5T_STRING)
      set_attribute(to, "", name, read_string_attribute(from, "", name));
    else if (cls == H5T_FLOAT)
      set_attribute(to, "", name, read_double_attribute(from, "", name));
    else if (cls == H5T_INTEGER)
      set_attribute(to, "", name, read_int_attribute(from, "", name));
    else
      throw Error(from.path() + ": attribute '" + name + "' on '/' has a type a result file never has");
  }
}

#define HPC_H5_COLUMN(T)                                                                         \
  template void RangeReader::read<T>(uint64_t, uint64_t, std::vector<T>&) const;                \
  template void create_column<T>(File&, const std::string&, size_t, Compression);                            \
  template void append<T>(File&, const std::string&, const std::vector<T>&);                    \
  template void write_column<T>(File&, const std::string&, const std::vector<T>&, size_t);      \
  template std::vector<T> read_all<T>(const File&, const std::string&);
HPC_H5_COLUMN(uint8_t)
template void write_contiguous_column<uint8_t>(File&, const std::string&, const std::vector<uint8_t>&);
HPC_H5_COLUMN(uint32_t)
HPC_H5_COLUMN(int32_t)
HPC_H5_COLUMN(uint64_t)
HPC_H5_COLUMN(float)
HPC_H5_COLUMN(double)
HPC_H5_COLUMN(std::string)
#undef HPC_H5_COLUMN
#define HPC_H5_DEFLATED(T)                                                                                  \
  template DeflatedChunks deflate_chunks<T>(const T*, size_t, size_t, int);                                  \
  template bool deflate_chunk<T>(const T*, size_t, size_t, size_t, int, std::vector<uint8_t>&, std::vector<uint8_t>&); \
  template void append_deflated<T>(File&, const std::string&, const std::vector<T>&, const DeflatedChunks&); \
  template void OpenColumn::append_deflated<T>(File&, const std::vector<T>&, const DeflatedChunks&);
HPC_H5_DEFLATED(uint8_t)
HPC_H5_DEFLATED(uint32_t)
HPC_H5_DEFLATED(int32_t)
HPC_H5_DEFLATED(uint64_t)
HPC_H5_DEFLATED(float)
HPC_H5_DEFLATED(double)
#define HPC_H5_READ_INTO(T) template void RangeReader::read_into<T>(uint64_t, uint64_t, T*) const;
HPC_H5_READ_INTO(uint8_t)
HPC_H5_READ_INTO(uint32_t)
HPC_H5_READ_INTO(int32_t)
HPC_H5_READ_INTO(uint64_t)
HPC_H5_READ_INTO(float)
HPC_H5_READ_INTO(double)
#undef HPC_H5_READ_INTO
#undef HPC_H5_DEFLATED
// Strings that live elsewhere (written without copying them; read back as std::string).
template void create_column<const char*>(File&, const std::string&, size_t, Compression);
template void append<const char*>(File&, const std::string&, const std::vector<const char*>&);

// ---- attributes ----

void set_attribute(File& f, const std::string& object, const std::string& name, const std::string& value) {
  Handle type = utf8_string_type();
  const char* p = value.c_str();
  write_scalar_attribute(f, object, name, type.get(), &p);
}

void set_attribute(File& f, const std::string& object, const std::string& name, int64_t value) {
  write_scalar_attribute(f, object, name, H5T_NATIVE_INT64, &value);
}

void set_attribute(File& f, const std::string& object, const std::string& name, double value) {
  write_scalar_attribute(f, object, name, H5T_NATIVE_DOUBLE, &value);
}

bool has_attribute(const File& f, const std::string& object, const std::string& name) {
  if (!f.exists(object == "/" ? "" : object)) return false;
  const htri_t present = H5Aexists_by_name(f.id(), object_name(object), name.c_str(), H5P_DEFAULT);
  if (present < 0) fail("check attribute", display_name(object) + "@" + name, f.path());
  return present > 0;
}

std::string read_string_attribute(const File& f, const std::string& object, const std::string& name) {
  Handle attr = open_attribute(f, object, name);
  const std::string what = display_name(object) + "@" + name;
  Handle stored(H5Aget_type(attr.get()), H5Tclose);
  if (H5Tget_class(stored.get()) != H5T_STRING)
    throw Error(f.path() + ": attribute '" + name + "' on '" + display_name(object) + "' is not a string");
  if (H5Tis_variable_str(stored.get()) > 0) {
    Handle type = utf8_string_type();
    char* p = nullptr;
    if (H5Aread(attr.get(), type.get(), &p) < 0) fail("read attribute", what, f.path());
    std::string value = p ? p : "";
    H5free_memory(p);
    return value;
  }
  // Fixed-length strings (written by other tools): read the bytes, stop at the first NUL.
  const size_t size = H5Tget_size(stored.get());
  std::string buf(size, '\0');
  if (H5Aread(attr.get(), stored.get(), buf.data()) < 0) fail("read attribute", what, f.path());
  return buf.substr(0, buf.find('\0'));
}

int64_t read_int_attribute(const File& f, const std::string& object, const std::string& name) {
  return read_scalar_attribute<int64_t>(f, object, name);
}

double read_double_attribute(const File& f, const std::string& object, const std::string& name) {
  return read_scalar_attribute<double>(f, object, name);
}

bool is_hdf5(const std::string& path) {
  // The signature sits at offset 0, or after a user block at 512, 1024, 2048, ... bytes.
  static const char kSignature[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  for (std::streamoff at = 0; at + 8 <= size; at = at == 0 ? 512 : at * 2) {
    char head[8];
    in.seekg(at);
    if (!in.read(head, 8)) return false;
    if (std::memcmp(head, kSignature, 8) == 0) return true;
  }
  return false;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace hpc::h5
