#include "io/hmm_file.hpp"

#include <zlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <future>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "src/core/error.hpp"
#include "src/core/on_all_cores.hpp"

namespace hpc {
namespace {

// The file (plain or gzip) read a block at a time.
class HmmReader {
 public:
  HmmReader(const std::string& path, size_t block) : path_(path), f_(gzopen(path.c_str(), "rb"), gzclose_r), block_(block) {
    if (!f_) throw InputError(path, 0, std::string("cannot open HMM file: ") + std::strerror(errno));
  }
  // Appends up to a block to `text` (read straight into its tail); false at the end of the file.
  bool append_block(std::string& text) {
    const size_t before = text.size();
    text.resize(before + block_);
    const int n = gzread(f_.get(), &text[before], unsigned(block_));
    text.resize(before + size_t(std::max(n, 0)));
    if (n < 0) {
      int err = 0;
      throw InputError(path_, 0, std::string("cannot read HMM file (") + gzerror(f_.get(), &err) + ")");
    }
    return n > 0;
  }
  size_t block() const { return block_; }

 private:
  std::string path_;
  std::unique_ptr<gzFile_s, int (*)(gzFile)> f_;
  size_t block_;
};

using Words = std::vector<std::string_view>;

bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_blank(std::string_view line) { return std::all_of(line.begin(), line.end(), is_space); }

// Bit i set where line[from + i] is whitespace, for the (up to 64) characters from `from` on.
uint64_t space_bits(std::string_view line, size_t from) {
  const size_t n = std::min<size_t>(64, line.size() - from);
  const char* const p = line.data() + from;
  uint64_t bits = 0;
  size_t i = 0;
#if defined(__SSE2__)
  // 16 at a time: ' ', or '\t'..'\r' (signed compares: bytes of 128 and up are not spaces).
  for (; i + 16 <= n; i += 16) {
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i space = _mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8(' ')),
                                       _mm_and_si128(_mm_cmpgt_epi8(c, _mm_set1_epi8('\t' - 1)),
                                                     _mm_cmplt_epi8(c, _mm_set1_epi8('\r' + 1))));
    bits |= uint64_t(uint32_t(_mm_movemask_epi8(space))) << i;
  }
#endif
  for (; i < n; ++i) bits |= uint64_t(is_space(p[i])) << i;
  return bits;
}

// The '\n's of `text` (std::count's loop widened each byte to 64 bits: a twentieth of a
// 2,000-model file's load, on the reading thread).
size_t count_newlines(std::string_view text) {
  size_t count = 0, i = 0;
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n');
  while (i + 16 <= text.size()) {
    // Up to 255 blocks of 16 counted in byte lanes (a match is -1: subtracted), then summed.
    __m128i lanes = _mm_setzero_si128();
    for (size_t blocks = 0; blocks < 255 && i + 16 <= text.size(); ++blocks, i += 16)
      lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i)), newline));
    const __m128i sums = _mm_sad_epu8(lanes, _mm_setzero_si128());
    count += size_t(_mm_cvtsi128_si32(sums)) + size_t(_mm_cvtsi128_si32(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; i < text.size(); ++i) count += text[i] == '\n';
  return count;
}

// Whitespace as `istream >> word` sees it in the C locale; a stream per line had made parsing
// a 4 MB, 22-model file take 70 ms. The words are views of the line, into a vector the parser
// reuses (a string per word had been a fifth of a 2,000-model file's parse), found 64
// characters at a time from their whitespace bits (a test and a branch a character had been a
// tenth).
void split_words(std::string_view line, Words& words) {
  words.clear();
  size_t start = 0;
  bool in_word = false;
  uint64_t space_before = 1;  // the character before the block (the line's start: a space)
  for (size_t from = 0; from < line.size(); from += 64) {
    const size_t n = std::min<size_t>(64, line.size() - from);
    const uint64_t space = space_bits(line, from) | (n < 64 ? ~uint64_t(0) << n : 0);  // past the end: spaces
    const uint64_t after = space << 1 | space_before;
    // Where a word starts (not a space, after one) or ends (a space after a word), in order.
    for (uint64_t edges = (~space & after) | (space & ~after); edges != 0; edges &= edges - 1) {
      const size_t at = from + size_t(__builtin_ctzll(edges));
      if (in_word) words.emplace_back(line.data() + start, at - start);
      else start = at;
      in_word = !in_word;
    }
    space_before = space >> 63;
  }
  if (in_word) words.emplace_back(line.data() + start, line.size() - start);
}

// The rest of a tagged line after the tag and its whitespace ("DESC  some words").
std::string_view rest_after_tag(std::string_view line) {
  size_t p = line.find_first_of(" \t");
  if (p == std::string_view::npos) return {};
  p = line.find_first_not_of(" \t", p);
  if (p == std::string_view::npos) return {};
  size_t e = line.find_last_not_of(" \t\r");
  return line.substr(p, e - p + 1);
}

// The lines as getline cuts them (no empty last line after a final '\n'), without a '\r' end,
// as views of `text`; find rather than a stream: a fifth less of the reading thread's time on a
// 2,000-model file.
std::vector<std::string_view> split_lines(const std::string& text) {
  std::vector<std::string_view> lines;
  const std::string_view all(text);
  for (size_t p = 0; p < all.size();) {
    size_t end = all.find('\n', p);
    if (end == std::string_view::npos) end = all.size();
    const size_t next = end + 1;
    if (end > p && all[end - 1] == '\r') --end;
    lines.push_back(all.substr(p, end - p));
    p = next;
  }
  return lines;
}

// A message part given as text or as a function that makes it: a node's messages are made
// only when it fails (making them for every node had been a tenth of the parse).
std::string text(const char* s) { return s; }
template <class Make, class = decltype(std::declval<const Make&>()())>
std::string text(const Make& make) {
  return make();
}

// `word` is the decimal digits of k, as to_string(k) writes them.
bool spells(std::string_view word, int k) {
  char digits[16];
  const auto r = std::to_chars(digits, digits + sizeof digits, k);
  return word == std::string_view(digits, size_t(r.ptr - digits));
}

// Digits with an optional fraction ("2.68618", "12", "0.5"), of 15 digits at most: the correctly
// rounded double, what from_chars and strtod give, is then one division of two exact doubles
// (Clinger's fast path), at a fraction of their cost. False for any other token.
bool plain_decimal(std::string_view tok, double& value) {
  static constexpr double kTens[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  uint64_t digits = 0;
  size_t i = 0, n = 0, point = std::string_view::npos;
  for (; i < tok.size(); ++i) {
    const char c = tok[i];
    if (c >= '0' && c <= '9') {
      digits = digits * 10 + uint64_t(c - '0');
      ++n;
    } else if (c == '.' && point == std::string_view::npos && i > 0) {
      point = i;
    } else {
      return false;
    }
  }
  if (n == 0 || n > 15 || point + 1 == tok.size()) return false;  // "5." goes the long way
  const size_t fraction = point == std::string_view::npos ? 0 : tok.size() - point - 1;
  value = double(digits) / kTens[fraction];
  return true;
}

// A chunk's text that ends inside a model (premature end of file): where the whole file goes on
// after the chunk, its parse reads on into the next one, so this is the file's error only where
// the chunk's end is the file's.
class TextEnd : public InputError {
 public:
  using InputError::InputError;
};

// Where a chunk's text ran out inside a model: the model's first line in the chunk (the models
// before it are whole) and the message should the file end there.
struct RanOut {
  size_t model_line;
  InputError error;
};

class Parser {
 public:
  // line_offset: the lines of the file before `lines` (a later chunk's line numbers).
  Parser(const std::vector<std::string_view>& lines, const std::string& name, size_t first_line = 0, long line_offset = 0)
      : name_(name), lines_(lines), pos_(first_line), offset_(line_offset) {}

  // Every model from the current line on. With `ran_out`, a model the text ends inside stops the
  // parse (not an error) and is noted there; the models before it are returned.
  std::vector<HmmModel> parse_all(std::optional<RanOut>* ran_out = nullptr) {
    std::vector<HmmModel> models;
    for (;;) {
      skip_blank();
      if (at_end()) break;
      const size_t start = pos_;
      try {
        models.push_back(parse_one());
      } catch (const TextEnd& e) {
        if (!ran_out) throw;
        ran_out->emplace(RanOut{start, e});
        return models;
      }
    }
    if (models.empty()) throw InputError(name_, 0, "no HMM in the file");
    return models;
  }

  // One model from the current line on; true when it ends (blank lines skipped) at `next`.
  bool parse_one_ending_at(size_t next, HmmModel& out) {
    out = parse_one();
    skip_blank();
    return pos_ == next;
  }
  // Only blank lines before `line`.
  bool blank_until(size_t line) {
    skip_blank();
    return pos_ == line;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw InputError(name_, offset_ + long(pos_ + 1), what); }
  [[noreturn]] void fail_at_end(const std::string& what) const { throw TextEnd(name_, offset_ + long(lines_.size()), what); }
  bool at_end() const { return pos_ >= lines_.size(); }
  void skip_blank() {
    while (!at_end() && is_blank(lines_[pos_])) ++pos_;
  }
  // The words of the next line into words_, failing with `what` at EOF. The body has no blank
  // lines (hmmbuild writes none), so one is an error like in the header; callers may then
  // index w[0].
  template <class What>
  const Words& next_words(const What& what) {
    if (at_end()) fail_at_end("premature end of file: " + text(what));
    split_words(lines_[pos_], words_);
    if (words_.empty()) fail("blank line inside an HMM body: expected " + text(what));
    return words_;
  }

  // The current line is the text of the one three lines up (a body line, there and parsed).
  bool repeats_line_above() const { return !at_end() && pos_ >= 3 && lines_[pos_] == lines_[pos_ - 3]; }

  template <class What>
  float number(std::string_view tok, const What& what) const {
    double fast = 0;
    if (plain_decimal(tok, fast)) return float(fast);
    // from_chars next: correctly rounded like glibc's strtod, the same double, without the
    // locale and multi-precision paths that made strtod a fifth of a large model file's parse.
    // Anything it does not take whole and normal ('+', hex, out of range, subnormal) goes
    // through strtod as before, for its value or its error.
    const auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), fast);
    if (ec == std::errc() && ptr == tok.data() + tok.size() && std::isfinite(fast) &&
        (fast == 0 || std::fabs(fast) >= std::numeric_limits<double>::min()))
      return float(fast);
    const std::string s(tok);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
      fail("invalid " + text(what) + " '" + s + "': expected a number");
    return float(v);
  }
  int integer(std::string_view tok, const char* what) const {
    // Up to seven digits (a MAP field, LENG): strtol's value, without a copy to end it.
    if (!tok.empty() && tok.size() <= 7 && std::all_of(tok.begin(), tok.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      int v = 0;
      for (char c : tok) v = v * 10 + (c - '0');
      if (v <= 1000000) return v;
    }
    const std::string s(tok);
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(s.c_str(), &end, 10);
    if (end == s.c_str() || *end != '\0' || errno == ERANGE || v < 0 || v > 1000000)
      fail(std::string("invalid ") + what + " '" + s + "': expected a non-negative integer");
    return int(v);
  }
  long long integer64(std::string_view tok, const char* what) const {
    const std::string s(tok);
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (end == s.c_str() || *end != '\0' || errno == ERANGE || v < 0)
      fail(std::string("invalid ") + what + " '" + s + "': expected a non-negative integer");
    return v;
  }
  static bool same_word(std::string_view a, const char* b) {
    if (a.size() != std::strlen(b)) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (char(std::toupper(static_cast<unsigned char>(a[i]))) != b[i]) return false;
    return true;
  }
  // "STATS LOCAL MSV|VITERBI|FORWARD mu|tau lambda" (3/b on); returns the line's bit.
  int stats_line(const Words& w, HmmModel& m) const {
    if (w.size() < 5) fail("too few fields on STATS line");
    if (!same_word(w[1], "LOCAL")) fail("STATS: expected LOCAL, got '" + std::string(w[1]) + "'");
    const float a = number(w[3], "STATS value"), b = number(w[4], "STATS value");
    if (same_word(w[2], "MSV")) return m.msv_mu = a, m.msv_lambda = b, 1;
    if (same_word(w[2], "VITERBI")) return m.vit_mu = a, m.vit_lambda = b, 2;
    if (same_word(w[2], "FORWARD")) return m.fwd_tau = a, m.fwd_lambda = b, 4;
    fail("STATS: unknown distribution '" + std::string(w[2]) + "' (MSV, VITERBI or FORWARD)");
  }
  // 3/a: "STATS LOCAL VLAMBDA|VMU|FTAU value", spread over the six parameters as HMMER does.
  int stats_line_3a(const Words& w, HmmModel& m) const {
    if (w.size() < 4) fail("too few fields on STATS line");
    if (!same_word(w[1], "LOCAL")) fail("STATS: expected LOCAL, got '" + std::string(w[1]) + "'");
    const float v = number(w[3], "STATS value");
    if (same_word(w[2], "VLAMBDA")) return m.msv_lambda = m.vit_lambda = m.fwd_lambda = v, 1;
    if (same_word(w[2], "VMU")) return m.msv_mu = m.vit_mu = v, 2;
    if (same_word(w[2], "FTAU")) return m.fwd_tau = v, 4;
    fail("STATS: unknown 3/a parameter '" + std::string(w[2]) + "' (VLAMBDA, VMU or FTAU)");
  }
  // A -ln(p) field: '*' is p = 0. Converted as HMMER does: expf of the float-rounded value.
  template <class What>
  float probability(std::string_view tok, const What& what) const {
    if (tok == "*") return 0.0f;
    const float v = number(tok, what);
    if (v < 0) fail("invalid " + text(what) + " '" + std::string(tok) + "': -ln(p) cannot be negative");
    return std::exp(-v);
  }
  bool yes_no(const Words& w) const {
    if (w.size() < 2) fail("missing yes/no after " + std::string(w[0]));
    std::string v(w[1]);
    for (char& c : v) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (v == "yes") return true;
    if (v == "no") return false;
    fail("expected yes or no after " + std::string(w[0]) + ", got '" + std::string(w[1]) + "'");
  }

  template <size_t N, class What>
  void probabilities(const Words& w, size_t first, std::array<float, N>& out, const What& what) {
    if (w.size() < first + N)
      fail("too few fields on " + text(what) + ": expected " + std::to_string(N) + ", got " +
           std::to_string(w.size() - std::min(first, w.size())));
    for (size_t i = 0; i < N; ++i) out[i] = probability(w[first + i], what);
  }

  HmmModel parse_one() {
    HmmModel m;
    m.source = name_;
    m.first_line = offset_ + long(pos_ + 1);
    split_words(lines_[pos_], words_);
    const std::string_view tag0 = words_[0];
    if (tag0.substr(0, 7) != "HMMER3/" || tag0.size() != 8 || tag0[7] < 'a' || tag0[7] > 'f') {
      if (tag0.substr(0, 6) == "HMMER2") fail("HMMER2 format is not supported (convert it with hmmconvert)");
      fail("expected a HMMER3/f header (HMMER3/a..f), found '" + std::string(tag0) + "'");
    }
    m.format = std::string(tag0.substr(5));
    const char version = tag0[7];
    ++pos_;
    parse_header(m, version);
    parse_body(m, version);
    return m;
  }

  // A cut-off value: a number, the last one followed by Pfam's ';' (HMMER reads it with atof).
  float cutoff_value(std::string_view tok, std::string_view tag) const {
    if (!tok.empty() && tok.back() == ';') tok.remove_suffix(1);
    return number(tok, [&] { return std::string(tag) + " cut-off"; });
  }
  void cutoff(const Words& w, HmmCutoff& c) const {
    if (w.size() < 3 || (w.size() == 3 && w[2] == ";"))
      fail("too few fields on " + std::string(w[0]) + " line: expected two cut-offs (sequence, domain)");
    c.seq = cutoff_value(w[1], w[0]);
    c.dom = cutoff_value(w[2], w[0]);
    c.set = true;
  }
  // HMMER reads NSEQ, LENG and MAXL with atoi and refuses 0.
  int positive(std::string_view tok, const char* tag) const {
    const int v = integer(tok, tag);
    if (v == 0) fail(std::string("invalid ") + tag + " '" + std::string(tok) + "': must be positive");
    return v;
  }

  void parse_header(HmmModel& m, char version) {
    bool have_alph = false;
    int stats_seen = 0;
    const Words& w = words_;
    for (;;) {
      if (at_end()) fail_at_end("premature end of file in the header of model '" + m.name + "' (no HMM line)");
      const std::string_view line = lines_[pos_];
      split_words(line, words_);
      if (w.empty()) fail("blank line inside an HMM header");
      const std::string_view tag = w[0];
      auto need = [&](size_t n) {
        if (w.size() < n) fail("too few fields on " + std::string(tag) + " line");
      };
      if (tag == "HMM") break;
      if (tag == "NAME") need(2), m.name = std::string(w[1]);
      else if (tag == "ACC") need(2), m.accession = std::string(w[1]);
      else if (tag == "DESC") need(2), m.description = std::string(rest_after_tag(line));
      else if (tag == "LENG") need(2), m.length = positive(w[1], "LENG");
      else if (tag == "MAXL" && version >= 'c') need(2), m.max_length = positive(w[1], "MAXL");
      else if (tag == "ALPH") {
        need(2);
        std::string a(w[1]);
        for (char& c : a) c = char(std::tolower(static_cast<unsigned char>(c)));
        if (a == "dna" || a == "rna")
          fail("model '" + m.name + "' has a " + std::string(w[1]) + " alphabet: protein models only (ALPH amino)");
        if (a != "amino") fail("unknown alphabet '" + std::string(w[1]) + "' (protein models only: ALPH amino)");
        have_alph = true;
      } else if (tag == "RF") m.has_rf = yes_no(w);
      else if (tag == "MM") m.has_mm = yes_no(w);
      else if (tag == "CONS") m.has_cons = yes_no(w);
      else if (tag == "CS") m.has_cs = yes_no(w);
      else if (tag == "MAP") m.has_map = yes_no(w);
      else if (tag == "DATE") need(2), m.date = std::string(rest_after_tag(line));
      else if (tag == "COM") {
        need(3);  // "COM   [1] hmmbuild ...": the command's number, then the command
        if (!m.command_log.empty()) m.command_log += '\n';
        m.command_log += rest_after_tag(rest_after_tag(line));
      } else if (tag == "NSEQ") need(2), m.nseq = positive(w[1], "NSEQ");
      else if (tag == "EFFN") {
        need(2);
        m.effn = number(w[1], "EFFN");
        if (!(m.effn > 0)) fail("invalid EFFN '" + std::string(w[1]) + "': must be positive");
      } else if (tag == "CKSUM") {
        need(2);
        const long long v = integer64(w[1], "CKSUM");
        if (v > 0xFFFFFFFFll) fail("invalid CKSUM '" + std::string(w[1]) + "': expected an unsigned 32-bit number");
        m.checksum = (unsigned long)v;
      } else if (tag == "GA") cutoff(w, m.ga);
      else if (tag == "TC") cutoff(w, m.tc);
      else if (tag == "NC") cutoff(w, m.nc);
      else if (tag == "STATS") stats_seen |= version >= 'b' ? stats_line(w, m) : stats_line_3a(w, m);
      // Any other tag (Pfam's BM and SM, for instance) is skipped, as HMMER skips it.
      ++pos_;
    }
    if (version < 'e') m.has_cons = false;  // no consensus column before 3/e
    if (version < 'f') m.has_mm = false;    // no MM column before 3/f
    if (m.name.empty()) fail("model has no NAME line");
    if (m.length <= 0) fail("model '" + m.name + "' has no LENG line");
    if (!have_alph) fail("model '" + m.name + "' has no ALPH line");
    if (stats_seen != 0 && stats_seen != 7) fail("model '" + m.name + "' is missing one or more STATS LOCAL lines");
    m.has_stats = stats_seen == 7;
    // The HMM line (in words_) names the 20 residues in HMMER's order.
    if (w.size() != 1 + kHmmAlphabet) fail("HMM line must list the 20 amino acids");
    for (int x = 0; x < kHmmAlphabet; ++x)
      if (w[1 + x].size() != 1 || std::toupper(static_cast<unsigned char>(w[1 + x][0])) != kHmmResidues[x])
        fail("HMM line: expected residue " + std::string(1, kHmmResidues[x]) + " in column " + std::to_string(x + 1) +
             ", got '" + std::string(w[1 + x]) + "'");
    ++pos_;
    next_words("transition header line after HMM");  // "m->m m->i ..." carries nothing
    ++pos_;
  }

  void parse_body(HmmModel& m, char version) {
    const int M = m.length;
    // Each node takes 3 lines, plus node 0's 2 and the closing //: checked before allocating
    // M+1 nodes, so a tiny file claiming a huge LENG fails fast instead of allocating.
    if (lines_.size() - pos_ < size_t(3) * size_t(M) + 3)
      fail_at_end("premature end of file: model '" + m.name + "' is truncated; LENG says " + std::to_string(M) +
                  " nodes but only " + std::to_string(lines_.size() - pos_) + " body lines follow");
    m.mat.assign(M + 1, {});
    m.t.assign(M + 1, {});
    std::vector<std::array<float, kHmmAlphabet>> ins(M + 1);  // checked, in numbers_crc, not kept
    if (m.has_cons) m.consensus.assign(M + 1, ' ');
    if (m.has_rf) m.rf.assign(M + 1, ' ');
    if (m.has_cs) m.cs.assign(M + 1, ' ');
    const Words& w = next_words("model body");
    if (w[0] == "COMPO") {
      probabilities(w, 1, m.compo, "COMPO line");
      m.has_compo = true;
      ++pos_;
      next_words("node 0 insert emissions");
    }
    probabilities(w, 0, ins[0], "node 0 insert emission line");
    ++pos_;
    probabilities(next_words("node 0 transitions"), 0, m.t[0], "node 0 transition line");
    ++pos_;
    // Annotation columns after the 20 match emissions, by format version.
    const bool has_cons_col = version >= 'e', has_mm_col = version >= 'f';
    const size_t annot = 3 + (has_cons_col ? 1 : 0) + (has_mm_col ? 1 : 0);
    for (int k = 1; k <= M; ++k) {
      const auto node = [k](const char* what) { return "node " + std::to_string(k) + what; };
      next_words([&] { return node(" match line (model has LENG ") + std::to_string(M) + ")"; });
      if (w[0] == "//") fail("model '" + m.name + "' ends after " + std::to_string(k - 1) + " nodes; LENG says " + std::to_string(M));
      if (!spells(w[0], k)) fail("expected match line of node " + std::to_string(k) + ", found '" + std::string(w[0]) + "'");
      probabilities(w, 1, m.mat[k], [&] { return node(" match line"); });
      if (w.size() < 1 + kHmmAlphabet + annot)
        fail(node(" match line: missing annotation fields (MAP") + std::string(has_cons_col ? " CONS" : "") + " RF" +
             (has_mm_col ? " MM" : "") + " CS)");
      size_t f = 1 + kHmmAlphabet;
      const std::string_view map = w[f++];
      if (m.has_map) integer(map, "MAP field");
      if (has_cons_col) {
        const char c = w[f++][0];
        if (m.has_cons) m.consensus[k] = c;
      }
      if (m.has_rf) m.rf[k] = w[f][0];
      ++f;
      if (has_mm_col) ++f;
      if (m.has_cs) m.cs[k] = w[f][0];
      ++pos_;
      // An insert or transition line of the same text as the node before's (three lines up:
      // node 0's too) has its numbers: most of a Pfam model's insert lines, about half its
      // transition lines, and all but a few of a single-sequence model's.
      if (repeats_line_above()) ins[k] = ins[k - 1];
      else probabilities(next_words([&] { return node(" insert line"); }), 0, ins[k], [&] { return node(" insert emission line"); });
      ++pos_;
      if (repeats_line_above()) m.t[k] = m.t[k - 1];
      else probabilities(next_words([&] { return node(" transition line"); }), 0, m.t[k], [&] { return node(" transition line"); });
      ++pos_;
    }
    next_words([&] { return "missing // at the end of model '" + m.name + "'"; });
    if (w[0] != "//") fail("expected // after node " + std::to_string(M) + " of model '" + m.name + "'");
    ++pos_;
    uLong crc = crc32(0, Z_NULL, 0);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(m.mat.data()), uInt(m.mat.size() * sizeof m.mat[0]));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(ins.data()), uInt(ins.size() * sizeof ins[0]));
    m.numbers_crc = uint32_t(crc32(crc, reinterpret_cast<const Bytef*>(m.t.data()), uInt(m.t.size() * sizeof m.t[0])));
  }

  std::string name_;
  const std::vector<std::string_view>& lines_;
  size_t pos_ = 0;
  long offset_ = 0;
  Words words_;  // the current line's words (split_words' vector, reused line after line)
};

// parse_hmm_text of a chunk of the file that starts after `line_offset` lines, on `cores` threads;
// with `ran_out`, Parser::parse_all's.
std::vector<HmmModel> parse_chunk(const std::string& text, const std::string& name, long line_offset, size_t cores,
                                  std::optional<RanOut>* ran_out = nullptr) {
  const std::vector<std::string_view> lines = split_lines(text);
  // A file of many models (a Pfam-sized batch) is parsed on all cores, a model per magic
  // line. Unless every model parses and ends exactly where the next begins, the serial
  // parse below runs instead: it reports the first error in file order.
  std::vector<size_t> starts;
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].substr(0, 5) == "HMMER") starts.push_back(i);
  if (starts.size() >= 4 && Parser(lines, name).blank_until(starts[0])) {
    std::vector<HmmModel> models(starts.size());
    std::vector<char> whole(starts.size(), 0);
    run_ranges(starts.size(), cores, [&](size_t first, size_t last) {
      for (size_t k = first; k < last; ++k) try {
          const size_t next = k + 1 < starts.size() ? starts[k + 1] : lines.size();
          whole[k] = Parser(lines, name, starts[k], line_offset).parse_one_ending_at(next, models[k]);
        } catch (const std::exception&) {
        }
    });
    if (std::all_of(whole.begin(), whole.end(), [](char c) { return c != 0; })) return models;
  }
  return Parser(lines, name, 0, line_offset).parse_all(ran_out);
}

// Where the text's last model-ending line ("//" its first word) ends: text before it is
// whole models (or an error); 0 when there is none.
size_t after_last_model_end(const std::string& text) {
  for (size_t p = text.rfind("\n//"); p != std::string::npos && p > 0; p = text.rfind("\n//", p - 1)) {
    const size_t eol = text.find('\n', p + 1);
    if (eol == std::string::npos) continue;
    const char c = text[p + 3];
    if (c == ' ' || (c >= '\t' && c <= '\r')) return eol + 1;
  }
  return 0;
}

}  // namespace

std::vector<HmmModel> parse_hmm_text(const std::string& text, const std::string& name) {
  return parse_chunk(text, name, 0, usable_cores());
}

namespace {

// The file cut into chunks of whole models: each at least `chunk_bytes` (else the rest of the
// file), ending after a line whose first word is "//" at its start.
class ChunkCutter {
 public:
  ChunkCutter(const std::string& path, size_t chunk_bytes)
      : reader_(path, std::clamp<size_t>(chunk_bytes, 1, size_t(1) << 20)), chunk_bytes_(chunk_bytes) {}

  // Reads until the next chunk can be cut; false at the end (blank lines after the last model
  // left, see append_rest). Calling it again before take() reads nothing more.
  bool fill() {
    for (;;) {
      while (more_ && text_.size() < chunk_bytes_) more_ = reader_.append_block(text_);
      cut_ = more_ ? after_last_model_end(text_) : text_.size();
      if (cut_ == 0 && more_) {  // no model ends yet: read on
        more_ = reader_.append_block(text_);
        continue;
      }
      const bool blank = std::all_of(text_.begin(), text_.begin() + long(cut_), [](char c) { return std::isspace((unsigned char)c); });
      return more_ || !blank || chunks_ == 0;  // else blank lines after the last model
    }
  }
  // The chunk fill() found, and the file's lines before it.
  void take(std::string& chunk, long& lines_before) {
    lines_before = lines_before_;
    lines_before_ += long(count_newlines(std::string_view(text_).substr(0, cut_)));
    // The chunk keeps the text read (no copy of its 16 MB); what follows the cut starts the next.
    chunk.swap(text_);
    text_.reserve(chunk_bytes_ + reader_.block());
    text_.assign(chunk, cut_, std::string::npos);
    chunk.resize(cut_);
    ++chunks_;
  }
  // The next chunk, else what is left of the file (blank lines), appended to `text`; false
  // when nothing is left.
  bool append_rest(std::string& text) {
    if (fill()) {
      std::string chunk;
      long lines_before = 0;
      take(chunk, lines_before);
      text += chunk;
      return true;
    }
    if (text_.empty()) return false;
    text += text_;
    text_.clear();
    return true;
  }
  // The last chunk has been cut (all of the file was read into it).
  bool at_end() const { return !more_ && text_.empty(); }

 private:
  HmmReader reader_;
  size_t chunk_bytes_;
  std::string text_;  // read, not yet cut
  bool more_ = true;
  size_t cut_ = 0;  // where fill() cuts text_
  long lines_before_ = 0;
  size_t chunks_ = 0;
};

// A chunk handed to a parsing thread, with its first line in the file.
struct ChunkInFlight {
  long lines_before;
  std::shared_ptr<const std::string> text;
  std::future<std::vector<HmmModel>> models;
  std::shared_ptr<std::optional<RanOut>> ran_out;  // set by the parse
};

// Where line `line` (from 0) of `text` begins.
size_t line_start(const std::string& text, size_t line) {
  size_t p = 0;
  for (; line > 0; --line) p = text.find('\n', p) + 1;
  return p;
}

}  // namespace

// The file a chunk of whole models at a time (16 MB of text by default), so that the text and its
// lines never sit in memory beside the parsed models of a Pfam-sized file (1.5 GB of text,
// ~1 KB a node with its lines). The calling thread reads (and inflates) while up to `depth`
// chunks parse on threads of their own, each on `cores / depth` threads: at most depth + 1
// chunks of text are held; their models join in file order. Each chunk knows its first line,
// so its errors are the whole file's (message and line), and the first failed chunk in file
// order is the one reported; nothing is read twice. Only a chunk whose text ends inside a model
// (the model's "//" not where the cut took it, or a LENG beyond it) does not know: that model on
// is parsed again with the text after it, at least as much again each time, until it parses or
// fails before that text's end, or the file ends.
std::vector<HmmModel> read_hmm_file(const std::string& path, size_t chunk_bytes, size_t threads) {
  const size_t cores = std::max<size_t>(1, threads ? threads : usable_cores());
  const size_t depth = std::min<size_t>(cores, 4), per_chunk = (cores + depth - 1) / depth;
  ChunkCutter cutter(path, chunk_bytes);
  std::vector<HmmModel> models;
  std::deque<ChunkInFlight> in_flight;
  // The next of the file's text after the chunk joined: the chunks in flight, then the file's
  // (read but not cut first); false when there is none.
  const auto append_following = [&](std::string& text) {
    if (in_flight.empty()) return cutter.append_rest(text);
    text += *in_flight.front().text;
    in_flight.pop_front();  // waits for its parse
    return true;
  };
  const auto join_oldest = [&] {
    ChunkInFlight c = std::move(in_flight.front());
    in_flight.pop_front();
    for (HmmModel& m : c.models.get()) models.push_back(std::move(m));  // an error is the file's
    std::optional<RanOut> ran_out = std::move(*c.ran_out);
    std::string text;
    long lines_before = c.lines_before;
    const std::string* from = c.text.get();
    while (ran_out) {
      text = from->substr(line_start(*from, ran_out->model_line));
      lines_before += long(ran_out->model_line);
      const size_t want = 2 * text.size();
      bool grew = false;
      while (text.size() < want && append_following(text)) grew = true;
      if (!grew) throw ran_out->error;  // the chunk's end is the file's
      ran_out.reset();
      for (HmmModel& m : parse_chunk(text, path, lines_before, cores, &ran_out)) models.push_back(std::move(m));
      from = &text;
    }
  };
  // The next chunk is read before the oldest is joined, and cut (copied) after: one chunk of
  // text less is held while it waits.
  for (size_t chunks = 0; cutter.fill(); ++chunks) {
    if (in_flight.size() == depth) join_oldest();
    if (!cutter.fill()) break;  // the oldest chunk's last model took the rest of the file
    std::string chunk;
    long lines_before = 0;
    cutter.take(chunk, lines_before);
    // A file of one chunk parses on every core, as the models of a chunk are independent.
    const size_t chunk_cores = chunks == 0 && cutter.at_end() ? cores : per_chunk;
    auto text = std::make_shared<const std::string>(std::move(chunk));
    auto ran_out = std::make_shared<std::optional<RanOut>>();
    in_flight.push_back({lines_before, text, std::async(std::launch::async, [&path, chunk_cores, lines_before, text, ran_out] {
                           return parse_chunk(*text, path, lines_before, chunk_cores, ran_out.get());
                         }), ran_out});
  }
  while (!in_flight.empty()) join_oldest();
  return models;
}

}  // namespace hpc
