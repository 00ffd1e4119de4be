#include "src/report/fasta_descriptions.hpp"

#include <zlib.h>

#include <memory>

#include "src/core/error.hpp"

namespace hpc {

std::vector<std::string> fasta_descriptions(const std::string& path) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose_r);
  if (!file) throw Error("cannot open " + path);
  std::vector<std::string> out;
  char buf[1 << 16];
  bool line_start = true, in_header = false;
  std::string header;
  while (gzgets(file.get(), buf, sizeof buf)) {
    std::string piece(buf);
    const bool line_end = !piece.empty() && piece.back() == '\n';
    if (line_start && !piece.empty() && piece[0] == '>') in_header = true, header.clear();
    if (in_header) header += piece;
    if (line_end && in_header) {
      // ">id description\r\n": the text after the id's run of blanks up to the first '\r' or
      // Ctrl-A (NCBI nr's separator of merged deflines) or the line's end, trailing blanks kept:
      // easel's description, as hmmsearch prints it ("desc \t" for ">id desc \t"). Blanks between
      // '>' and the id are skipped (the id is the reader's first word).
      header.resize(header.size() - 1);
      const size_t id_begin = header.find_first_not_of(" \t", 1);
      const size_t id_end = header.find_first_of(" \t\r\v\f", id_begin);
      const size_t desc = header.find_first_not_of(" \t", id_end);
      out.push_back(desc == std::string::npos ? "" : header.substr(desc, header.find_first_of("\r\x01", desc) - desc));
      in_header = false;
    }
    line_start = line_end;
  }
  int err = 0;
  gzerror(file.get(), &err);
  if (err != Z_OK && err != Z_STREAM_END) throw Error("cannot read " + path);
  return out;
}

}  // namespace hpc
