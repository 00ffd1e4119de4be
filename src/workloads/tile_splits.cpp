#include "src/workloads/tile_splits.hpp"

#include <algorithm>
#include <iostream>

#include "src/core/error.hpp"

namespace hpc {

TileSplits::TileSplits(Rule rule, const std::vector<Tile>& tiles) : rule_(std::move(rule)) {
  for (const Tile& t : tiles) next_id_ = std::max(next_id_, t.id + 1);
}

std::vector<Tile> TileSplits::split(const Tile& tile, const std::string& why) {
  std::vector<Tile> pieces = rule_(tile);
  if (pieces.size() < 2)
    throw Error("tile " + std::to_string(tile.id) + " does not fit the device even as a single pair: " + why);
  for (Tile& t : pieces) t.id = next_id_++;
  std::cerr << "hpcalign: out of memory on tile " << tile.id << " (" << tile.queries.size() << " x "
            << tile.part_end - tile.part_begin << "): splitting it into tiles " << pieces.front().id << ".."
            << pieces.back().id << " (" << why << ")\n";
  return pieces;
}

}  // namespace hpc
