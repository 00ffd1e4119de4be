#include "src/plan/tile_split.hpp"

#include <algorithm>

namespace hpc {

std::vector<Tile> split_tile(const Tile& t) {
  Tile a = t, b = t;
  if (t.queries.size() > 1) {
    // Queries first: every half still sees the whole partition, so top-k lists just concatenate.
    const size_t half = t.queries.size() / 2;
    a.queries.assign(t.queries.begin(), t.queries.begin() + half);
    b.queries.assign(t.queries.begin() + half, t.queries.end());
    a.cells = t.cells * half / t.queries.size();
  } else if (t.part_end - t.part_begin > 1) {
    const uint32_t mid = t.part_begin + (t.part_end - t.part_begin) / 2;
    a.part_end = mid;
    b.part_begin = mid;
    a.cells = t.cells * (mid - t.part_begin) / (t.part_end - t.part_begin);
  } else {
    return {};
  }
  b.cells = t.cells - a.cells;
  return {std::move(a), std::move(b)};
}

void number_largest_first(std::vector<Tile>& tiles) {
  std::stable_sort(tiles.begin(), tiles.end(), [](const Tile& a, const Tile& b) { return a.cells > b.cells; });
  for (size_t i = 0; i < tiles.size(); ++i) tiles[i].id = uint32_t(i);
}

}  // namespace hpc
