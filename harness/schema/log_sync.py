"""Group commit for game logs: one thread per process fsyncs, in one pass, every log written to since its last pass.

Syncing each line in a pool thread as soon as it was written cost every move a thread wake-up, a Future and several
context switches (BENCHMARKS.md, section 1: this saved 0.2-0.5 ms of CPU per move at 64 games in 2 workers). Here a
line's log is only noted as pending. The thread
syncs the pending logs at most SYNC_EVERY_S after the first of them was noted, all in one pass, so with a model that
takes longer than that to answer, a worker's games share each wake-up. A log that had to wait for its sync (a model
answering faster, the offline bots) turns eager: its lines wake the thread as they are written, and the sync overlaps
the next move as it did before. The guarantee is unchanged: GameLog writes a line only once the line before it is on
disk (`wait_synced`), so a machine crash costs a game at most its last record.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from dataclasses import dataclass, field

SYNC_EVERY_S = 0.05  # a line waits at most this long (plus the pass) to be synced; models take longer to answer
_DATA_SYNC = getattr(os, "fdatasync", os.fsync)  # macOS has no fdatasync; fsync also syncs the data


@dataclass(eq=False)
class SyncState:
    """One log's lines as the syncer sees them. Guarded by the syncer's lock."""

    fd: int
    written: int = 0  # lines written to the file
    synced: int = 0  # lines known to be on disk (or whose sync failed: see error)
    error: OSError | None = None  # a failed sync, until a waiter reports it
    eager: bool = False  # the game waited for a sync: wake the thread at each line
    waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None], int]] = field(default_factory=list)


class LogSyncer:
    """The process's sync thread and the logs waiting for it."""

    def __init__(self) -> None:
        # reentrant: the collector may finalize an abandoned game's wait (its `finally` takes this lock) in a thread
        # that already holds it
        self._lock = threading.Condition(threading.RLock())
        self._pending: dict[SyncState, int] = {}  # log -> lines written when it was last noted
        self._urgent = False
        self._in_pass: dict[SyncState, int] = {}  # the logs the running pass syncs, and their lines
        self.passes = 0  # passes made so far (each syncs every log pending at its start)
        self._thread = threading.Thread(target=self._run, name="log-sync", daemon=True)
        self._thread.start()

    def written(self, state: SyncState) -> None:
        """A line was written to the log (and flushed): sync it soon."""
        with self._lock:
            state.written += 1
            was_idle = not self._pending
            self._pending[state] = state.written
            if state.eager:
                self._urgent = True
            if was_idle or state.eager:
                self._lock.notify_all()  # the thread, and any close() waiting in settle()

    async def wait_synced(self, state: SyncState) -> None:
        """Return once every line written to the log is on disk; raise the OSError of a failed sync (once)."""
        with self._lock:
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
            with self._lock:
                if entry in state.waiters:
                    state.waiters.remove(entry)
        with self._lock:
            self._raise_error(state)

    def settle(self, state: SyncState) -> OSError | None:
        """Block until the log's lines are synced and no pass holds its descriptor; forget the log (before its file
        is closed). Returns a failed sync's error not yet reported."""
        with self._lock:
            if state.synced < state.written:
                self._hurry(state)
            while state.synced < state.written or state in self._in_pass:
                self._lock.wait()
            self._pending.pop(state, None)
            error, state.error = state.error, None
            return error

    def _hurry(self, state: SyncState) -> None:
        """Have the thread sync the log's lines now (unless the running pass already covers them). Holds the lock."""
        if state not in self._pending and self._in_pass.get(state, 0) < state.written:
            self._pending[state] = state.written
        self._urgent = True
        self._lock.notify_all()  # the thread, and any close() waiting in settle()

    @staticmethod
    def _raise_error(state: SyncState) -> None:
        if state.error is not None:
            error, state.error = state.error, None
            raise error

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._pending:
                    self._lock.wait()
                deadline = time.monotonic() + SYNC_EVERY_S
                while not self._urgent and (left := deadline - time.monotonic()) > 0:
                    self._lock.wait(left)
                batch, self._pending, self._urgent = self._pending, {}, False
                self._in_pass = batch
                self.passes += 1
            errors: dict[SyncState, OSError] = {}
            for state in batch:
                try:
                    _DATA_SYNC(state.fd)
                except OSError as exc:  # a full disk, an I/O error: the game reports it at its next wait
                    errors[state] = exc
            with self._lock:
                for state, lines in batch.items():
                    if state in errors and state.error is None:
                        state.error = errors[state]  # before `synced`: a game that sees its lines synced sees this
                    state.synced = max(state.synced, lines)
                    for loop, waiter, need in list(state.waiters):  # a finalized wait may drop its entry
                        if need <= state.synced or state.error is not None:
                            with contextlib.suppress(RuntimeError):  # its loop closed meanwhile: nobody waits
                                loop.call_soon_threadsafe(_wake, waiter)
                self._in_pass = {}
                self._lock.notify_all()  # settle() waits for a pass to let go of a log


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():  # a game cancelled meanwhile
        waiter.set_result(None)


_SYNCER: tuple[int, LogSyncer] | None = None


def syncer() -> LogSyncer:
    """This process's syncer (a forked worker starts its own: threads do not survive a fork)."""
    global _SYNCER
    if _SYNCER is None or _SYNCER[0] != os.getpid():
        _SYNCER = (os.getpid(), LogSyncer())
    return _SYNCER[1]
