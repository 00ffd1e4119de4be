#include "io/tile_journal.hpp"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>

#include "io/run_file_io.hpp"
#include "src/core/error.hpp"
#include "src/core/wire.hpp"

namespace hpc {
namespace {

constexpr char kMagic[4] = {'H', 'P', 'J', '1'};
constexpr size_t kHeader = 4 + 1 + 8, kTrailer = 4;

// The CRC-32 of the bytes (on all cores for large payloads: a global screen's tiles carry
// tens of MB of CIGARs).
uint32_t crc_of(const std::string& s) { return checkpoint::Crc32().add(s.data(), s.size()).value(); }

void put_list(WireWriter& w, const std::vector<checkpoint::RunParameter>& list) {
  w.put<uint64_t>(list.size());
  for (const auto& p : list) {
    w.put(p.name);
    w.put(p.value);
  }
}

std::vector<checkpoint::RunParameter> get_list(WireReader& r) {
  std::vector<checkpoint::RunParameter> list(r.get<uint64_t>());
  for (auto& p : list) {
    p.name = r.get_string();
    p.value = r.get_string();
  }
  return list;
}

std::string encode_plan(const std::vector<Tile>& plan, const std::vector<checkpoint::RunParameter>& params,
                        const std::vector<checkpoint::RunParameter>& notes) {
  WireWriter w;
  w.put<uint64_t>(plan.size());
  for (const Tile& t : plan) w.put(encode_tile(t));
  put_list(w, params);
  put_list(w, notes);
  return w.take();
}

}  // namespace

TileJournal::Contents TileJournal::read(const std::string& path, bool with_payloads) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(sys_error("open", path));
  in.seekg(0, std::ios::end);
  const uint64_t size = uint64_t(in.tellg());
  in.seekg(0);
  Contents c;
  uint64_t pos = 0;
  char head[kHeader];
  std::string payload;
  while (pos + kHeader + kTrailer <= size && in.read(head, kHeader) && std::memcmp(head, kMagic, 4) == 0) {
    const char kind = head[4];
    uint64_t len;
    std::memcpy(&len, head + 5, 8);
    if (len > size - pos - kHeader - kTrailer) break;  // torn tail
    payload.resize(len);
    uint32_t crc;
    if (!in.read(payload.data(), std::streamsize(len)) || !in.read(reinterpret_cast<char*>(&crc), 4)) break;
    if (crc != crc_of(payload)) break;  // torn or damaged: nothing after it is trusted
    WireReader r(payload);
    if (kind == 'P' && !c.has_plan) {
      c.plan.resize(r.get<uint64_t>());
      for (Tile& t : c.plan) t = decode_tile(r.get_string());
      c.params = get_list(r);
      if (!r.done()) c.notes = get_list(r);  // journals of earlier versions end here
      c.has_plan = true;
    } else if (kind == 'S' && c.has_plan) {
      const auto parent = r.get<uint32_t>();
      std::vector<Tile> pieces(r.get<uint64_t>());
      for (Tile& t : pieces) t = decode_tile(r.get_string());
      c.splits.emplace_back(parent, std::move(pieces));
    } else if (kind == 'T' && c.has_plan) {
      const auto id = r.get<uint32_t>();
      c.records.push_back({id, pos + kHeader, len});
      if (with_payloads) c.tiles.emplace_back(id, r.get_string());
    } else {
      break;
    }
    pos += kHeader + len + kTrailer;
    c.valid_bytes = pos;
  }
  return c;
}

std::string TileJournal::read_tile(std::istream& in, const TileRecord& record) {
  std::string payload(record.length, '\0');
  in.seekg(std::streamoff(record.offset));
  if (!in.read(payload.data(), std::streamsize(record.length)))
    throw Error("the resume journal ends before tile " + std::to_string(record.id) + "'s record");
  WireReader r(payload);
  r.get<uint32_t>();
  return r.get_string();
}

TileJournal::TileJournal(const std::string& path, const std::vector<Tile>& plan,
                         const std::vector<checkpoint::RunParameter>& params,
                         const std::vector<checkpoint::RunParameter>& notes)
    : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error(sys_error("create the resume journal", path));
  write_record('P', encode_plan(plan, params, notes));
}

TileJournal::TileJournal(const std::string& path, uint64_t valid_bytes) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0) throw Error(sys_error("open the resume journal", path));
  if (::ftruncate(fd_, static_cast<off_t>(valid_bytes)) != 0 || ::lseek(fd_, 0, SEEK_END) < 0)
    throw Error(sys_error("cut the torn tail of", path));
}

TileJournal::~TileJournal() {
  if (fd_ < 0) return;
  ::fdatasync(fd_);  // a stopped run's last tiles reach the disk before it exits
  ::close(fd_);
}

void TileJournal::append_tile(uint32_t tile_id, const std::string& result) {
  WireWriter w;
  w.put(tile_id);
  w.put(result);
  write_record('T', w.take());
}

void TileJournal::append_split(uint32_t parent, const std::vector<Tile>& pieces) {
  WireWriter w;
  w.put(parent);
  w.put<uint64_t>(pieces.size());
  for (const Tile& t : pieces) w.put(encode_tile(t));
  write_record('S', w.take());
}

void TileJournal::write_record(char kind, const std::string& payload) {
  char head[13];
  std::memcpy(head, kMagic, 4);
  head[4] = kind;
  const uint64_t len = payload.size();
  std::memcpy(head + 5, &len, 8);
  const uint32_t crc = crc_of(payload);
  // One writev() per record (no copy of a payload of tens of MB): a kill leaves it whole or
  // torn at the end, never interleaved; a short write continues where it stopped.
  iovec parts[3] = {{head, sizeof head}, {const_cast<char*>(payload.data()), payload.size()},
                    {const_cast<uint32_t*>(&crc), sizeof crc}};
  iovec* next = parts;
  int left = 3;
  while (left > 0) {
    const ssize_t n = ::writev(fd_, next, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(sys_error("write the resume journal", path_));
    size_t done = size_t(n);
    for (; left > 0 && done >= next->iov_len; --left, ++next) done -= next->iov_len;
    if (left > 0) next->iov_base = static_cast<char*>(next->iov_base) + done, next->iov_len -= done;
  }
  sync(kind != 'T');
}

// fdatasync for the plan record, then with the first record a second or more after the last
// sync, and at close: a killed process loses nothing (its writes are in the page cache); a node
// that crashes loses the records since the last sync (tiles that finished within a second of
// one another), which the reader drops as a torn tail and a resume recomputes. Syncing every tile
// had made the master the limit of screens with tens of MB of CIGARs per tile.
void TileJournal::sync(bool now) {
  const auto t = std::chrono::steady_clock::now();
  if (!now && t - synced_ < std::chrono::seconds(1)) return;
  if (::fdatasync(fd_) != 0) throw Error(sys_error("sync the resume journal", path_));
  synced_ = t;
}

void TileJournal::remove() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(path_.c_str());
}

}  // namespace hpc
