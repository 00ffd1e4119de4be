#!/usr/bin/env python3
"""The resume journal of a run, for the kill tests (sourced through lib.bash).

  journal.py count OUT.journal                 whole tile records in the journal (0 if none)
  journal.py splits OUT.journal                whole split records (tiles too large for the device)
  journal.py largest OUT.journal               bytes of the largest tile record's payload (0 if none)
  journal.py wait PID OUT.journal K            returns once K tiles are journalled; exit 1 if
                                               process PID ended first or nothing came in 300 s
  journal.py kill-run OUT.journal K MS LOG CMD...
                                               starts CMD in a session of its own (output appended
                                               to LOG); once K tiles are journalled waits MS ms and
                                               sends SIGKILL to every process of the session until
                                               none is left; exit 1 (the session killed too) if the
                                               run ended first or nothing came within 300 s

Records: "HPJ1" kind(u8) length(u64, little-endian) payload crc32(u32); kind 'T' is a finished
tile, 'S' a tile split by the driver (io/tile_journal.hpp). Polling here, every 10 ms without starting a process, puts the kill
within a few ms of the K-th tile however loaded the machine is. kill-run starts the run itself,
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


def wait(pid, journal, k):
    deadline = time.time() + 300
    while time.time() < deadline and running(pid):
        if journal.count() >= k:
            return 0
        time.sleep(0.01)
    return 1


def kill_session(sid):  # until none is left: a rank being forked during a pass would escape it
    for _ in range(100):
        pids = [pid for pid in session_pids(sid) if running(pid)]
        if not pids:
            return True
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)
    return False


def kill_run(journal, k, ms, log, cmd):
    with open(log, "ab") as out:
        run = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True)
    t0 = time.time()
    missed = wait(run.pid, journal, k)
    if not missed:
        time.sleep(ms / 1000)
    if not kill_session(run.pid):
        print(f"journal.py: processes of session {run.pid} survived kill -9", file=sys.stderr)
    status = run.wait()
    if missed:  # (status -9: killed here after 300 s)
        print(f"journal.py: {journal.tiles} of {k} tiles seen in {journal.path}; the run's status {status} "
              f"after {time.time() - t0:.1f} s", file=sys.stderr)
    return missed


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
    elif sys.argv[1] == "wait":
        sys.exit(wait(int(sys.argv[2]), Journal(sys.argv[3]), int(sys.argv[4])))
    elif sys.argv[1] == "kill-run":
        sys.exit(kill_run(Journal(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6:]))
    else:
        sys.exit(f"journal.py: unknown command {sys.argv[1]}")
