#!/usr/bin/env python3
"""The resume journal of a run, for the kill tests (sourced through lib.bash).

  journal.py count OUT.journal                 whole tile records in the journal (0 if none)
  journal.py splits OUT.journal                whole split records (tiles too large for the device)
  journal.py largest OUT.journal               bytes of the largest tile record's payload (0 if none)
  journal.py wait PID OUT.journal K            returns once K tiles are journalled; exit 1 if
                                               process PID ended first or nothing came in 300 s
  journal.py kill-after SID OUT.journal K MS   once K tiles are journalled, waits MS ms and sends
                                               SIGKILL to every process of session SID; exit 1 if
                                               the run ended first or nothing came within 300 s

Records: "HPJ1" kind(u8) length(u64, little-endian) payload crc32(u32); kind 'T' is a finished
tile, 'S' a tile split by the driver (io/tile_journal.hpp). Polling here, every 10 ms without starting a process, puts the kill
within a few ms of the K-th tile however loaded the machine is.
"""
import os
import signal
import struct
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


def running(pid):  # the session leader exists and is not a zombie
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


def kill_after(sid, journal, k, ms):
    if wait(sid, journal, k):
        return 1
    time.sleep(ms / 1000)
    for pid in session_pids(sid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
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
    elif sys.argv[1] == "wait":
        sys.exit(wait(int(sys.argv[2]), Journal(sys.argv[3]), int(sys.argv[4])))
    else:
        sys.exit(kill_after(int(sys.argv[2]), Journal(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])))
