#pragma once
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11):
// a counter-based RNG, so the random numbers of permutation k of subject s are a pure
// function of (seed, s, k, position) and any backend regenerates them anywhere.
// Header-only and host/device so the CUDA path includes the very same code.
#include <cstdint>

#if defined(__CUDACC__)
#define HPC_HD __host__ __device__ __forceinline__
#else
#define HPC_HD inline
#endif

namespace hpc {

struct Philox4x32Counter {
  uint32_t v[4];
};
struct Philox4x32Key {
  uint32_t v[2];
};

HPC_HD Philox4x32Counter philox4x32_10(Philox4x32Counter c, Philox4x32Key k) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // round multipliers
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k.v[0] += kW0;
      k.v[1] += kW1;
    }
    const uint64_t p0 = uint64_t(kM0) * c.v[0];
    const uint64_t p1 = uint64_t(kM1) * c.v[2];
    const uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
    const uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
    c = Philox4x32Counter{{hi1 ^ c.v[1] ^ k.v[0], lo1, hi0 ^ c.v[3] ^ k.v[1], lo0}};
  }
  return c;
}

// A stream of random words: counter = (block, b, a, domain tag), key = seed. Each Philox call
// gives 4 words; block counts the calls. The tag keeps the streams of different uses apart.
class PhiloxStream {
 public:
  HPC_HD PhiloxStream(uint64_t seed, uint32_t a, uint32_t b, uint32_t domain_tag)
      : key_{{uint32_t(seed), uint32_t(seed >> 32)}}, ctr_{{0u, b, a, domain_tag}} {}

  HPC_HD uint32_t next() {
    if (used_ == 4) {
      out_ = philox4x32_10(ctr_, key_);
      ++ctr_.v[0];
      used_ = 0;
    }
    return out_.v[used_++];
  }
  // Uniform integer in [0, range), range >= 1, without bias (Lemire's multiply-and-reject).
  HPC_HD uint32_t below(uint32_t range) {
    uint64_t m = uint64_t(next()) * range;
    uint32_t low = uint32_t(m);
    if (low < range) {
      const uint32_t threshold = uint32_t(-range) % range;
      while (low < threshold) {
        m = uint64_t(next()) * range;
        low = uint32_t(m);
      }
    }
    return uint32_t(m >> 32);
  }

 private:
  Philox4x32Key key_;
  Philox4x32Counter ctr_;
  Philox4x32Counter out_{};
  int used_ = 4;
};

// The random words of permutation k of subject s.
class PermutationStream : public PhiloxStream {
 public:
  static constexpr uint32_t kDomainTag = 0x50535331u;  // "PSS1"
  HPC_HD PermutationStream(uint64_t seed, uint32_t subject, uint32_t k) : PhiloxStream(seed, subject, k, kDomainTag) {}
};

// Fisher-Yates (Durstenfeld) in place: for i = n-1 .. 1 swap a[i] with a[j], j uniform in [0, i].
template <class T>
HPC_HD void shuffle_in_place(T* a, uint32_t n, PermutationStream& rng) {
  for (uint32_t i = n; i > 1; --i) {
    const uint32_t j = rng.below(i);
    const T t = a[i - 1];
    a[i - 1] = a[j];
    a[j] = t;
  }
}

}  // namespace hpc
