#pragma once
// Puts a finished file in place of an existing one without the file system's flush: on ext4
// (auto_da_alloc) a rename that replaces a file starts writing the new file's dirty pages back
// inside the call, which then took 0.64 s of a 57,592-sequence screen's wall (its 1.4-1.6 GB
// /hits, 2 x H200 host; 1.5 GB on the build box's ext4: 0.28-0.36 s, an exchange 0.000 s).
#include <string>

namespace hpc {

// `from` takes the name `to`, as rename(from, to): where `to` is a regular file, the two names
// are exchanged (Linux renameat2 RENAME_EXCHANGE, as atomic as a rename: `to` always names a
// whole file) and the old file, now under `from`, is removed; elsewhere (no such file, no
// exchange on this system or file system) a plain rename. Returns 0, or the rename's errno.
int rename_over(const std::string& from, const std::string& to);

}  // namespace hpc
