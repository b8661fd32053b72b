"""Syncing game logs by the batch: a few threads per process fsync the logs written to, woken once for many lines.

A written line's log is only noted as pending, and the sync threads wake SYNC_EVERY_S after the first pending line
was noted (at once when a game waits for its line) and take the pending logs one by one until none is left, up to
SYNC_THREADS syncs at a time, so that a slow disk's syncs overlap. With a model that takes longer than that to
answer, a worker's games share each wake-up. A log that had to wait for its sync (a model answering faster, the
offline bots) turns eager: its lines wake a thread as they are written, and the sync overlaps the next move. The
guarantee: GameLog writes a line only once the line before it is on disk (`wait_synced`), so a machine crash costs
a game at most its last record; a log's waiters wake as soon as its own sync returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from dataclasses import dataclass, field

SYNC_EVERY_S = 0.05  # a line waits at most this long (plus the syncs before it) to be synced; models take longer
SYNC_THREADS = 4  # syncs at a time: a disk whose fsync takes milliseconds overlaps them
_DATA_SYNC = getattr(os, "fdatasync", os.fsync)  # macOS has no fdatasync; fsync also syncs the data


@dataclass(eq=False)
class SyncState:
    """One log's lines as the syncer sees them. Guarded by the syncer's lock."""

    fd: int
    written: int = 0  # lines written to the file
    synced: int = 0  # lines known to be on disk (or whose sync failed: see error)
    error: OSError | None = None  # a failed sync, until a waiter reports it
    eager: bool = False  # the game waited for a sync: wake a thread at each line
    waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None], int]] = field(default_factory=list)


class LogSyncer:
    """The process's sync threads and the logs waiting for them."""

    def __init__(self) -> None:
        # reentrant: the collector may finalize an abandoned game's wait (its `finally` takes this lock) in a thread
        # that already holds it
        lock = threading.RLock()
        self._work = threading.Condition(lock)  # the sync threads wait here for pending logs
        self._done = threading.Condition(lock)  # settle() waits here for a log's syncs to end
        self._pending: dict[SyncState, None] = {}  # the logs with lines to sync, oldest first (a dict: in order)
        self._due: float | None = None  # when the pending logs are to be synced (monotonic); None: none pending
        self._in_flight: dict[SyncState, int] = {}  # the logs being synced now, and their lines
        self._timer = False  # one idle thread waits for `_due`; the others wait to be woken
        self.wakeups = 0  # times a sync thread woke and found a log to sync
        for i in range(SYNC_THREADS):
            threading.Thread(target=self._run, name=f"log-sync-{i}", daemon=True).start()

    def written(self, state: SyncState) -> None:
        """A line was written to the log (and flushed): sync it soon."""
        with self._work:
            state.written += 1
            if not self._pending:
                self._due = time.monotonic() + SYNC_EVERY_S
                self._work.notify()  # an idle thread becomes the timer
            self._pending[state] = None
            if state.eager:
                self._due = 0.0
                self._work.notify()

    async def wait_synced(self, state: SyncState) -> None:
        """Return once every line written to the log is on disk; raise the OSError of a failed sync (once)."""
        with self._work:
            if state.synced >= state.written:
                self._raise_error(state)
                return
            loop = asyncio.get_running_loop()
            waiter: asyncio.Future[None] = loop.create_future()
            entry = (loop, waiter, state.written)
            state.waiters.append(entry)
            state.eager = True
            self._hurry(state)
        try:
            # shielded: a cancelled game must not cancel the wait of another; the sync itself runs regardless
            await asyncio.shield(waiter)
        finally:
            with self._work:
                if entry in state.waiters:
                    state.waiters.remove(entry)
        with self._work:
            self._raise_error(state)

    def settle(self, state: SyncState) -> OSError | None:
        """Block until the log's lines are synced and no thread holds its descriptor; forget the log (before its
        file is closed). Returns a failed sync's error not yet reported."""
        with self._work:
            if state.synced < state.written:
                self._hurry(state)
            while state.synced < state.written or state in self._in_flight:
                self._done.wait()
            error, state.error = state.error, None
            return error

    def _hurry(self, state: SyncState) -> None:
        """Have a thread sync the log's lines now (unless a sync in flight already covers them). Holds the lock."""
        if state not in self._pending and self._in_flight.get(state, 0) < state.written:
            self._pending[state] = None
        if self._pending:
            self._due = 0.0
            self._work.notify()

    @staticmethod
    def _raise_error(state: SyncState) -> None:
        if state.error is not None:
            error, state.error = state.error, None
            raise error

    def _take(self) -> tuple[SyncState, int]:
        """Wait until a pending log is due; take the oldest. Holds the lock."""
        woke = False
        while True:
            due = self._due
            if due is not None and (due == 0.0 or time.monotonic() >= due):
                state = next(iter(self._pending))
                del self._pending[state]
                lines = state.written  # what this sync covers: a line written after it starts needs another
                if self._pending:
                    self._due = 0.0  # the rest are due too: the next idle thread takes the next one
                    self._work.notify()
                else:
                    self._due = None
                self._in_flight[state] = lines
                self.wakeups += woke
                return state, lines
            if due is not None and not self._timer:
                self._timer = True
                try:
                    self._work.wait(due - time.monotonic())
                finally:
                    self._timer = False
            else:
                self._work.wait()
            woke = True

    def _run(self) -> None:
        while True:
            self._sync_one()  # its locals go with it: a thread keeps no log alive between syncs

    def _sync_one(self) -> None:
        with self._work:
            state, lines = self._take()
        error: OSError | None = None
        try:
            _DATA_SYNC(state.fd)
        except OSError as exc:  # a full disk, an I/O error: the game reports it at its next wait
            error = exc
        with self._work:
            if error is not None and state.error is None:
                state.error = error  # before `synced`: a game that sees its lines synced sees this
            state.synced = max(state.synced, lines)
            del self._in_flight[state]
            for loop, waiter, need in list(state.waiters):  # a finalized wait may drop its entry
                if need <= state.synced or state.error is not None:
                    with contextlib.suppress(RuntimeError):  # its loop closed meanwhile: nobody waits
                        loop.call_soon_threadsafe(_wake, waiter)
            self._done.notify_all()


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():  # a game cancelled meanwhile
        waiter.set_result(None)


_SYNCER: tuple[int, LogSyncer] | None = None
_SYNCER_LOCK = threading.Lock()


def _after_fork_in_child() -> None:
    global _SYNCER_LOCK
    _SYNCER_LOCK = threading.Lock()  # a fork while another thread held it must not leave the child's locked


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def syncer() -> LogSyncer:
    """This process's syncer (a forked worker starts its own: threads do not survive a fork)."""
    global _SYNCER
    current = _SYNCER
    if current is not None and current[0] == os.getpid():
        return current[1]
    with _SYNCER_LOCK:  # two threads asking first get one syncer
        if _SYNCER is None or _SYNCER[0] != os.getpid():
            _SYNCER = (os.getpid(), LogSyncer())
        return _SYNCER[1]
