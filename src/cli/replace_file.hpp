#pragma once
// Writes a file under a temporary name beside it and renames it into place once complete, so
// that a failed or killed write never leaves a truncated file under the real name (and an
// existing file stays intact until the new one is whole). For outputs without --resume
// (makedb, merge): a tiled run's unfinished file must stay under its own name for --resume.
#include <functional>
#include <string>

namespace hpc::cli {

// write(tmp) writes the whole file at tmp; then tmp is renamed to `path`. On an exception the
// temporary file is removed and the exception passes on. A `path` that exists and is not a
// regular file (/dev/null, /dev/stdout, a FIFO) is written in place: write(path); a symbolic
// link to a regular file keeps the link and replaces the file it points to.
void write_then_rename(const std::string& path, const std::function<void(const std::string& tmp)>& write);

// `text` as the whole file at `path`, by write_then_rename.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace hpc::cli
