#pragma once
// Byte serialisation of tile descriptions and results: the same bytes travel over MPI
// and through the local scheduler, so one code path is exercised everywhere.
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "src/core/error.hpp"

namespace hpc {

class WireWriter {
 public:
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable<T>::value, "plain values only");
    buf_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void put(const std::string& s) {
    put<uint64_t>(s.size());
    buf_.append(s);
  }
  template <class T>
  void put_vector(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable<T>::value, "plain values only");
    put<uint64_t>(v.size());
    buf_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  // Room for n more bytes (a tile's hits are millions of small puts).
  void reserve(size_t n) { buf_.reserve(buf_.size() + n); }
  std::string take() { return std::move(buf_); }

 private:
  std::string buf_;
};

class WireReader {
 public:
  explicit WireReader(const std::string& bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}
  template <class T>
  T get() {
    T v;
    need(sizeof v);
    std::memcpy(&v, p_, sizeof v);
    p_ += sizeof v;
    return v;
  }
  std::string get_string() {
    const auto n = get<uint64_t>();
    need(n);
    std::string s(p_, n);
    p_ += n;
    return s;
  }
  template <class T>
  std::vector<T> get_vector() {
    const auto n = get<uint64_t>();
    need(n * sizeof(T));
    std::vector<T> v(n);
    if (n) std::memcpy(v.data(), p_, n * sizeof(T));
    p_ += n * sizeof(T);
    return v;
  }
  bool done() const { return p_ == end_; }

 private:
  void need(uint64_t n) const {
    if (uint64_t(end_ - p_) < n) throw Error("internal: truncated message between ranks");
  }
  const char* p_;
  const char* end_;
};

}  // namespace hpc
