#include "src/workloads/hit_wire.hpp"

#include "src/core/wire.hpp"

namespace hpc {

void put_hits(WireWriter& w, const std::vector<Hit>& hits) {
  size_t bytes = sizeof(uint64_t);
  for (const Hit& h : hits)
    bytes += 2 * sizeof(uint32_t) + 2 * sizeof(double) + sizeof(int32_t) + 4 * sizeof(uint32_t) + sizeof(uint64_t) +
             h.aln.cigar.size();
  w.reserve(bytes);
  w.put<uint64_t>(hits.size());
  for (const Hit& h : hits) {
    w.put(h.query);
    w.put(h.target);
    w.put(h.bits);
    w.put(h.evalue);
    w.put(h.aln.score);
    w.put(h.aln.qstart);
    w.put(h.aln.qend);
    w.put(h.aln.tstart);
    w.put(h.aln.tend);
    w.put(h.aln.cigar);
  }
}

std::vector<Hit> get_hits(WireReader& r) {
  std::vector<Hit> hits(r.get<uint64_t>());
  for (Hit& h : hits) {
    h.query = r.get<uint32_t>();
    h.target = r.get<uint32_t>();
    h.bits = r.get<double>();
    h.evalue = r.get<double>();
    h.aln.score = r.get<int32_t>();
    h.aln.qstart = r.get<uint32_t>();
    h.aln.qend = r.get<uint32_t>();
    h.aln.tstart = r.get<uint32_t>();
    h.aln.tend = r.get<uint32_t>();
    h.aln.cigar = r.get_string();
  }
  return hits;
}

std::string encode_hits(const std::vector<Hit>& hits) {
  WireWriter w;
  put_hits(w, hits);
  return w.take();
}

std::vector<Hit> decode_hits(const std::string& bytes) {
  WireReader r(bytes);
  return get_hits(r);
}

}  // namespace hpc
