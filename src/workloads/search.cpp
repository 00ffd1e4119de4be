#include "src/workloads/search.hpp"

#include <algorithm>
#include <iostream>
#include <map>
#include <thread>

#include "io/database.hpp"
#include "io/fasta.hpp"
#include "io/matrix.hpp"
#include "io/result_file.hpp"
#include "kernels/backend.hpp"
#include "src/core/error.hpp"
#include "src/core/progress.hpp"
#include "src/core/wire.hpp"
#include "src/plan/search_plan.hpp"
#include "src/stats/karlin.hpp"
#include "src/workloads/run_attributes.hpp"

namespace hpc {
namespace {

std::string encode_hits(const std::vector<Hit>& hits) {
  WireWriter w;
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
  return w.take();
}

std::vector<Hit> decode_hits(const std::string& bytes) {
  WireReader r(bytes);
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

// Everything a rank needs to run search tiles; loaded identically on every rank.
struct SearchJob {
  SequenceSet queries;
  Database db;
  SearchSetup setup;
  KarlinParams karlin;
  std::vector<int32_t> min_score;  // per query: lowest score within --evalue
};

KarlinParams karlin_for(const SearchOptions& opt, const ScoreMatrix& m) {
  if (opt.lambda.has_value() != opt.K.has_value()) throw Error("--lambda and --K must be given together");
  if (opt.lambda) {
    if (!(*opt.lambda > 0) || !(*opt.K > 0)) throw Error("--lambda and --K must be positive");
    return {*opt.lambda, *opt.K, 0};
  }
  GapCosts g{opt.gap_open, opt.gap_extend};
  if (auto p = published_gapped_params(m.name, g)) return *p;
  std::string known;
  for (GapCosts c : supported_gap_costs(m.name)) known += " " + std::to_string(c.open) + "/" + std::to_string(c.extend);
  throw Error("no published Karlin-Altschul parameters for " + m.name + " with gap costs " + std::to_string(g.open) + "/" +
              std::to_string(g.extend) + (known.empty() ? std::string(" (matrix not in the tables)") : "; known:" + known) +
              ". Give --lambda and --K to use it anyway.");
}

void load_job(const SearchOptions& opt, SearchJob& job) {
  if (opt.gap_open < 0 || opt.gap_extend < 1) throw Error("gap costs must satisfy --gapopen >= 0 and --gapextend >= 1");
  if (opt.max_hits < 1) throw Error("--max-hits must be at least 1");
  if (!(opt.max_evalue > 0)) throw Error("--evalue must be positive");
  job.setup.matrix = load_matrix(opt.matrix);
  job.karlin = karlin_for(opt, job.setup.matrix);
  FastaReport rep;
  job.queries = read_fasta(opt.query_path, &rep);
  if (rep.rare_letters && !opt.quiet)
    std::cerr << "hpcalign: warning: " << opt.query_path << ": " << rep.rare_letters << " U/O/J residues scored as X\n";
  job.db = load_database(opt.db_path);
  if (job.db.seqs.empty()) throw InputError(opt.db_path, 0, "no sequences in the database");
  job.setup.queries = &job.queries;
  job.setup.db = &job.db;
  job.setup.gaps = {opt.gap_open, opt.gap_extend};
  job.setup.max_hits = opt.max_hits;
  const double n = double(job.db.seqs.total_residues());
  for (size_t q = 0; q < job.queries.size(); ++q)
    job.min_score.push_back(min_score_for_evalue(job.karlin, opt.max_evalue, job.queries.length(q), n));
}

class SearchWorker : public TileWorker {
 public:
  SearchWorker(const SearchJob& job, std::unique_ptr<SearchBackend> backend) : job_(job), backend_(std::move(backend)) {
    backend_->prepare(job_.setup);
  }
  DeviceCapacity capacity() const override { return backend_->capacity(); }

  std::string run(const Tile& tile) override {
    const auto top = backend_->search_tile(tile);
    std::vector<AlignRequest> reqs;
    std::vector<int32_t> scores;
    for (size_t k = 0; k < tile.queries.size(); ++k) {
      const uint32_t q = tile.queries[k];
      for (const ScoredTarget& st : top[k]) {
        if (st.score < job_.min_score[q]) break;  // sorted by score: the rest is worse
        reqs.push_back({q, st.target});
        scores.push_back(st.score);
      }
    }
    const auto alns = backend_->align(reqs);
    const double n = double(job_.db.seqs.total_residues());
    std::vector<Hit> hits(reqs.size());
    for (size_t i = 0; i < reqs.size(); ++i) {
      if (alns[i].score != scores[i])
        throw Error("internal: alignment score " + std::to_string(alns[i].score) + " differs from search score " +
                    std::to_string(scores[i]) + " for query " + job_.queries.ids[reqs[i].query] + " and target " +
                    job_.db.seqs.ids[reqs[i].target]);
      Hit& h = hits[i];
      h.query = reqs[i].query;
      h.target = reqs[i].target;
      h.aln = alns[i];
      h.bits = bit_score(job_.karlin, h.aln.score);
      h.evalue = evalue(job_.karlin, h.aln.score, job_.queries.length(h.query), n);
    }
    return encode_hits(hits);
  }

 private:
  const SearchJob& job_;
  std::unique_ptr<SearchBackend> backend_;
};

int default_threads(const MpiContext& mpi) {
  const int hc = std::max(1u, std::thread::hardware_concurrency());
  if (!mpi.active) return hc;
  const char* ls = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const int local = ls ? std::max(1, std::atoi(ls)) : 1;
  return std::max(1, hc / local);
}

// Keeps the best max_hits hits of each query over all tiles.
std::vector<Hit> best_hits(std::vector<Hit> hits, uint32_t max_hits) {
  std::sort(hits.begin(), hits.end(), hit_order);
  std::vector<Hit> out;
  uint32_t run = 0;
  for (size_t i = 0; i < hits.size(); ++i) {
    run = (i > 0 && hits[i].query == hits[i - 1].query) ? run + 1 : 0;
    if (run < max_hits) out.push_back(std::move(hits[i]));
  }
  return out;
}

}  // namespace

int run_search(const SearchOptions& opt, const MpiContext& mpi) {
  SearchJob job;
  load_job(opt, job);
  const BackendKind kind = parse_backend_kind(opt.backend);
  const int threads = opt.threads > 0 ? opt.threads : default_threads(mpi);
  const bool distributed = mpi.active && mpi.size > 1;

  std::unique_ptr<ResultFile> out;
  std::vector<Hit> collected;
  SearchPlan plan;
  std::unique_ptr<Progress> progress;
  std::string backend_name;

  SchedulerHooks hooks;
  hooks.make_worker = [&](int, int slot) -> std::unique_ptr<TileWorker> {
    const int devices = backend_device_count(kind);
    return std::make_unique<SearchWorker>(job, make_search_backend(kind, slot % devices, threads));
  };
  hooks.plan = [&](const std::vector<DeviceCapacity>& caps) {
    plan = plan_search(job.queries, job.db, caps);
    backend_name = caps.empty() ? "" : caps.front().name;
    if (opt.verbose)
      std::cerr << "hpcalign: " << caps.size() << " worker(s), " << backend_name << "; plan: " << plan.query_batches
                << " query batch(es) x " << plan.partitions << " partition(s) = " << plan.tiles.size()
                << " tiles, >= " << plan.min_tile_pairs << " pairs per tile to fill the device\n";
    write_run_attributes(*out, "search", opt.command_line, backend_name, caps.size());
    out->set_attribute("matrix", job.setup.matrix.name);
    out->set_attribute("gap_open", int64_t(opt.gap_open));
    out->set_attribute("gap_extend", int64_t(opt.gap_extend));
    out->set_attribute("max_hits", int64_t(opt.max_hits));
    out->set_attribute("max_evalue", opt.max_evalue);
    out->set_attribute("lambda", job.karlin.lambda);
    out->set_attribute("K", job.karlin.K);
    out->set_attribute("query_file", opt.query_path);
    out->set_attribute("database", opt.db_path);
    out->set_attribute("db_sequences", int64_t(job.db.seqs.size()));
    out->set_attribute("db_residues", int64_t(job.db.seqs.total_residues()));
    out->set_attribute("tiles", int64_t(plan.tiles.size()));
    out->set_attribute("tile_query_batches", int64_t(plan.query_batches));
    out->set_attribute("tile_db_partitions", int64_t(plan.partitions));
    out->set_attribute("tile_min_pairs", int64_t(plan.min_tile_pairs));
    out->write_sequences("queries", job.queries);
    out->write_sequences("targets", job.db.seqs);
    progress = std::make_unique<Progress>("search", plan.tiles.size(), plan.total_cells, opt.quiet);
    return plan.tiles;
  };
  hooks.on_result = [&](const Tile& tile, const std::string& bytes) {
    std::vector<Hit> hits = decode_hits(bytes);
    out->append_tile(tile.id, hits);
    collected.insert(collected.end(), std::make_move_iterator(hits.begin()), std::make_move_iterator(hits.end()));
    progress->tile_done(tile.cells);
  };

  // Created before any work, so an unwritable output fails fast.
  if (mpi.is_master()) out = std::make_unique<ResultFile>(opt.out_path);
  if (distributed)
    run_tiles_mpi(mpi, hooks);
  else
    run_tiles_local(backend_device_count(kind), hooks);

  if (!mpi.is_master()) return 0;
  const std::vector<Hit> final_hits = best_hits(std::move(collected), opt.max_hits);
  out->finish(final_hits);
  progress->finish();
  if (!opt.quiet)
    std::cerr << "hpcalign: " << final_hits.size() << " hits for " << job.queries.size() << " queries written to "
              << opt.out_path << "\n";
  return 0;
}

}  // namespace hpc
