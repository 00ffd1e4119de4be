#include "io/synthetic_database.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "src/core/error.hpp"
#include "src/core/philox.hpp"

namespace hpc {

namespace {

constexpr uint32_t kDomainTag = 0x53594E31u;  // "SYN1": apart from the permutation streams

// round(2^(2^-k) * 2^31) for k = 1..24: the factor of bit 32-k of a Q32 fraction.
constexpr uint32_t kExp2Bit[24] = {3037000500u, 2553802834u, 2341847524u, 2242560872u, 2194507417u, 2170868212u,
                                   2159144272u, 2153306067u, 2150392887u, 2148937775u, 2148210589u, 2147847087u,
                                   2147665360u, 2147574502u, 2147529075u, 2147506361u, 2147495005u, 2147489326u,
                                   2147486487u, 2147485068u, 2147484358u, 2147484003u, 2147483825u, 2147483737u};

// 0.62 / ln 2 in Q16: the log-sd 0.62 of the natural log as an exponent of 2 (0.61999 exactly).
constexpr int64_t kLog2SdQ16 = 58620;

}  // namespace

uint32_t exp2_fraction_q31(uint32_t f) {
  uint64_t m = uint64_t(1) << 31;  // 1.0; stays below 2^32 since 2^f < 2
  for (int k = 1; k <= 24; ++k)
    if (f & (uint32_t(1) << (32 - k))) m = (m * kExp2Bit[k - 1]) >> 31;
  return uint32_t(m);
}

uint32_t synthetic_length(const std::array<uint32_t, 12>& words) {
  const int64_t sum = std::accumulate(words.begin(), words.end(), int64_t(0));
  const int64_t z_q32 = sum - (int64_t(6) << 32);  // N(0,1)-like, |z| <= 6
  // t = 0.62 z / ln 2 in Q32, offset by 8 so that the shifts below act on non-negative values.
  const uint64_t t_q32 = uint64_t(z_q32 * kLog2SdQ16 + (int64_t(8) << 48)) >> 16;
  const int whole = int(t_q32 >> 32) - 8;  // -6 .. 5
  uint64_t v = uint64_t(kSyntheticMedianLength) * exp2_fraction_q31(uint32_t(t_q32));
  v = whole >= 0 ? (v << whole) >> 31 : v >> (31 - whole);
  return std::max<uint32_t>(kSyntheticMinLength, uint32_t(v));
}

SequenceSet synthetic_database(uint64_t residues, uint64_t seed) {
  std::array<uint32_t, 20> cumulative{};
  std::partial_sum(kSwissProtFrequency.begin(), kSwissProtFrequency.end(), cumulative.begin());
  // code_of[w] for w < total weight: a table lookup per residue instead of a search.
  std::vector<uint8_t> code_of(cumulative.back());
  for (uint8_t c = 0; c < 20; ++c)
    for (uint32_t x = c ? cumulative[c - 1] : 0; x < cumulative[c]; ++x) code_of[x] = c;
  SequenceSet set;
  set.source = "synthetic database (seed " + std::to_string(seed) + ")";
  std::vector<uint8_t> seq;
  for (uint64_t i = 0; set.total_residues() < residues; ++i) {
    if (i > UINT32_MAX) throw Error("synthetic database: too many sequences");
    PhiloxStream rng(seed, uint32_t(i), 0, kDomainTag);
    std::array<uint32_t, 12> words;
    for (uint32_t& w : words) w = rng.next();
    seq.resize(synthetic_length(words));
    for (uint8_t& r : seq) r = code_of[rng.below(uint32_t(code_of.size()))];
    set.add("syn" + std::to_string(i), seq.data(), seq.size());
  }
  return set;
}

}  // namespace hpc
