#pragma once
// A process that used a GPU ends only once the driver has torn its context down, which it
// does when the process's last handle on the driver's device files closes: 0.09-0.13 s on an
// H100 after the last output is written (22 models x 207 M residues: ~10% of an hmmsearch run),
// _exit or not, and the shell waits for it. Once every output is written and closed, this exit
// hands those handles to a child process that outlives this one by an instant: the teardown
// runs there, after this process has returned its status. The GPU's memory is free ~0.1 s
// after the command returns, as it would be had the command itself waited.
#include <string>

namespace hpc {

// When a file under `device_prefix` is open: flushes stdio and the standard C++ streams,
// forks a child that keeps only those files open and leaves as soon as this process is gone,
// and ends this process with _exit(status) (no atexit handlers, no static destructors: every
// output must be complete and closed already). Otherwise, or if the fork fails, it returns
// and the caller exits as usual. Not for MPI ranks (the launcher owns their exit).
void exit_leaving_driver_teardown(int status, const std::string& device_prefix = "/dev/nvidia");

}  // namespace hpc
