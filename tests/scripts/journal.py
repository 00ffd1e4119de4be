#!/usr/bin/env python3
"""The resume journal of a run, for the kill tests (sourced through lib.bash).

  journal.py count OUT.journal                 whole tile records in the journal (0 if none)
  journal.py splits OUT.journal                whole split records (tiles too large for the device)
  journal.py largest OUT.journal               bytes of the largest tile record's payload (0 if none)
  journal.py kill-run OUT.journal K MS LOG CMD...
                                               starts CMD in a session of its own (output appended
                                               to LOG); once K tiles are journalled waits MS ms and
                                               sends SIGKILL to every process of the session until
                                               none is left
  journal.py signal-run OUT.journal K SIG TARGET LOG CMD...
                                               the same start; once K tiles are journalled sends
                                               signal SIG (TERM, USR1) to CMD (TARGET run) or to
                                               its hpcalign children (TARGET ranks: the ranks under
                                               mpirun, as srun signals them), waits for CMD's end and
                                               prints "STATUS MS": its exit status (128 + N for a
                                               death by signal N) and the ms from the signal
  Both exit 1 (after killing the session) if the run ended first or no K-th tile came within 300 s.

Records: "HPJ1" kind(u8) length(u64, little-endian) payload crc32(u32); kind 'T' is a finished
tile, 'S' a tile split by the driver (io/tile_journal.hpp). Polling here, every 10 ms without starting a process, puts the kill
within a few ms of the K-th tile however loaded the machine is. The poller starts the run itself,
once this interpreter is up: started beside a run, the interpreter took 1.2-1.6 s to begin
polling on a loaded 2-core machine, longer than a whole slowed msv run, which had then ended
(its journal removed) before the first poll.
"""
import os
import signal
import struct
import subprocess
import sys
import time


class Journal:
    def __init__(self, path):
        self.path, self.pos, self.tiles, self.splits, self.largest = path, 0, 0, 0, 0

    def count(self):  # reads only the records added since the last call
        try:
            with open(self.path, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                while self.pos + 13 <= size:
                    f.seek(self.pos)
                    head = f.read(13)
                    if head[:4] != b"HPJ1":
                        break
                    payload = struct.unpack_from("<Q", head, 5)[0]
                    end = self.pos + 13 + payload + 4
                    if end > size:
                        break
                    self.tiles += head[4:5] == b"T"
                    if head[4:5] == b"T":
                        self.largest = max(self.largest, payload)
                    self.splits += head[4:5] == b"S"
                    self.pos = end
        except OSError:
            pass
        return self.tiles


def session_pids(sid):
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.getsid(int(name)) == sid:
                    pids.append(int(name))
            except OSError:
                pass
    return pids


def running(pid):  # the process exists and is not a zombie
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def children(pid, name):  # the processes called NAME that PID started
    found = []
    for child in os.listdir("/proc"):
        try:
            with open(f"/proc/{child}/stat") as f:
                comm, rest = f.read().rsplit(")", 1)
            if int(rest.split()[1]) == pid and comm.split("(", 1)[1] == name:
                found.append(int(child))
        except (OSError, ValueError, IndexError):
            pass
    return found


def kill_session(sid):  # until none is left: a rank being forked during a pass would escape it
    for _ in range(100):
        pids = [pid for pid in session_pids(sid) if running(pid)]
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)
    print(f"journal.py: processes of session {sid} survived kill -9", file=sys.stderr)


class Run:
    """CMD in a session of its own (its output appended to LOG), polled for its K-th tile."""

    def __init__(self, journal, log, cmd):
        self.journal, self.t0 = journal, time.time()
        with open(log, "ab") as out:
            self.process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                            start_new_session=True)

    def reached(self, k):  # True once K tiles are journalled; else kills the session
        deadline = self.t0 + 300
        while time.time() < deadline and running(self.process.pid):
            if self.journal.count() >= k:
                return True
            time.sleep(0.01)
        status = self.end()
        print(f"journal.py: {self.journal.tiles} of {k} tiles seen in {self.journal.path}; the run's exit status "
              f"{status} after {time.time() - self.t0:.1f} s", file=sys.stderr)
        return False

    def end(self):  # kill -9 whatever is left of the session; CMD's exit status, as the shell's
        kill_session(self.process.pid)
        status = self.process.wait()
        return 128 - status if status < 0 else status


def kill_run(journal, k, ms, log, cmd):
    run = Run(journal, log, cmd)
    if not run.reached(k):
        return 1
    time.sleep(ms / 1000)
    run.end()
    return 0


def signal_run(journal, k, sig, target, log, cmd):
    run = Run(journal, log, cmd)
    if not run.reached(k):
        return 1
    t = time.time()
    pid = run.process.pid
    for p in [pid] if target == "run" else children(pid, "hpcalign"):
        os.kill(p, getattr(signal, "SIG" + sig))
    try:
        run.process.wait(timeout=300)
    except subprocess.TimeoutExpired:
        pass
    ms = round((time.time() - t) * 1000)
    print(run.end(), ms)
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "count":
        print(Journal(sys.argv[2]).count())
    elif sys.argv[1] == "splits":
        j = Journal(sys.argv[2])
        j.count()
        print(j.splits)
    elif sys.argv[1] == "largest":
        j = Journal(sys.argv[2])
        j.count()
        print(j.largest)
    elif sys.argv[1] == "kill-run":
        sys.exit(kill_run(Journal(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6:]))
    elif sys.argv[1] == "signal-run":
        a = sys.argv
        sys.exit(signal_run(Journal(a[2]), int(a[3]), a[4], a[5], a[6], a[7:]))
    else:
        sys.exit(f"journal.py: unknown command {sys.argv[1]}")
