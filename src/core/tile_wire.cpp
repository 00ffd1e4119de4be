#include "src/core/tile.hpp"
#include "src/core/wire.hpp"

namespace hpc {

std::string encode_tile(const Tile& t) {
  WireWriter w;
  w.put(t.id);
  w.put_vector(t.queries);
  w.put(t.part_begin);
  w.put(t.part_end);
  w.put(t.cells);
  return w.take();
}

Tile decode_tile(const std::string& bytes) {
  WireReader r(bytes);
  Tile t;
  t.id = r.get<uint32_t>();
  t.queries = r.get_vector<uint32_t>();
  t.part_begin = r.get<uint32_t>();
  t.part_end = r.get<uint32_t>();
  t.cells = r.get<uint64_t>();
  return t;
}

}  // namespace hpc
