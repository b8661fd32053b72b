"""One writer per run directory: an advisory lock (flock) on `<run>/.lock`, holding who took it.

The kernel releases a flock when its process dies, so a lock left by a killed process never blocks: the next
process takes it over and is told whose it was (after giving a dead holder's workers, which share its lock, a
few seconds to exit). A second live process is refused with a message naming the holder.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from pathlib import Path
from types import TracebackType

from harness.schema.errors import Refused
from harness.schema.records import now_iso

LOCK_FILE = ".lock"
ORPHANS_EXIT_S = 5.0  # how long a dead holder's workers, which share its lock, may take to exit


class RunLock:
    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / LOCK_FILE
        self._fd: int | None = None
        self.previous_holder: dict[str, object] | None = None  # set when a dead process's lock was taken over

    def acquire(self) -> RunLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if not _take(fd):
            holder = _read_holder(fd)
            os.close(fd)
            who = f"process {holder.get('pid', '?')} on {holder.get('host', '?')} since {holder.get('since', '?')}"
            if holder.get("pid") and not _alive(holder):  # its workers outlived it and still hold the lock
                who = f"the worker processes of {who}, which has exited"
            raise Refused(
                f"{self.path.parent} is being written by {who}; wait for it to finish or stop it first"
            ) from None
        previous = _read_holder(fd)
        if previous:
            self.previous_holder = previous
        os.ftruncate(fd, 0)
        os.pwrite(
            fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": now_iso()}).encode(), 0
        )
        os.fsync(fd)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is None:
            return
        os.ftruncate(self._fd, 0)
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def _take(fd: int) -> bool:
    """Take the lock; while the holder it names is dead, wait up to ORPHANS_EXIT_S for the workers that share it."""
    deadline = time.monotonic() + ORPHANS_EXIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            holder = _read_holder(fd)
            if not holder.get("pid") or _alive(holder) or time.monotonic() >= deadline:
                return False
            time.sleep(0.05)


def holder_alive(run_dir: Path) -> bool:
    """Whether the process named in the run's lock file is still running (for listings; never takes the lock,
    so that looking cannot get in a writer's way). A released lock leaves the file empty."""
    path = run_dir / LOCK_FILE
    try:
        holder = json.loads(path.read_text() or "{}")
    except (OSError, ValueError):
        return False
    return _alive(holder)


def _alive(holder: dict[str, object]) -> bool:
    """Whether the process a lock file names runs (one on another host, or of unknown pid, counts as running)."""
    pid = holder.get("pid")
    if not isinstance(pid, int) or holder.get("host") != socket.gethostname():
        return bool(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _read_holder(fd: int) -> dict[str, object]:
    try:
        raw = os.pread(fd, 4096, 0)
        return json.loads(raw) if raw.strip() else {}
    except (OSError, ValueError):
        return {}
