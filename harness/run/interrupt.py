"""Ctrl-C during a session: the first press stops the games, the second exits at once.

On the first press no game starts a new model call: the calls in flight are cancelled (a move is logged only once
its reply is in, so a cancelled move is simply played again on resume), every log is closed intact, the status is
written and the command prints one line with the resume command (exit code 130). A second press while that happens
exits at once, as a kill would: the logs stay intact and resumable.

With worker processes the terminal's Ctrl-C reaches every process of the group; the workers ignore it and stop when
their parent tells them to (STOP_WORKER), so that one press is never counted twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator

EXIT_STOPPED = 130  # the shell's convention for a process ended by SIGINT
EXIT_FAILED = 1  # a session cut short by a disk fault or a lost worker: resumable (as interrupted games are)
STOP_WORKER = signal.SIGUSR1


class SessionStopped(Exception):
    """The user stopped the session; every log is intact and the run resumable."""


class Stop:
    """Whether the user asked the session to stop, and how to tell them to continue."""

    def __init__(self, resume_hint: str = "", signum: int = signal.SIGINT, second_exits: bool = True) -> None:
        self.resume_hint = resume_hint
        self.signum = signum
        self.second_exits = second_exits
        self.requested = False
        self._on_second: list[Callable[[], None]] = []

    def press(self, halt: Callable[[], None]) -> None:
        """One press of Ctrl-C (or one stop signal): halt on the first, exit at once on the second."""
        if self.requested and self.second_exits:
            for hook in self._on_second:
                with contextlib.suppress(Exception):
                    hook()
            if sys.stderr.isatty():  # the live display hid the cursor and is not there to show it again
                sys.stderr.write("\x1b[?25h\n")
            sys.stderr.write(f"Stopped at once by a second Ctrl-C; the logs are intact. {self.resume_hint}\n")
            sys.stderr.flush()
            os._exit(EXIT_STOPPED)
        self.requested = True
        halt()

    def on_second_press(self, hook: Callable[[], None]) -> None:
        """Run `hook` just before exiting on a second press (e.g. to kill worker processes)."""
        self._on_second.append(hook)

    @contextlib.contextmanager
    def in_loop(self, halt: Callable[[], None]) -> Iterator[None]:
        """While in this block, the stop signal calls `press(halt)` from the running event loop (main thread
        only; elsewhere signals cannot be caught and the block does nothing)."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(self.signum, self.press, halt)
        try:
            yield
        finally:
            loop.remove_signal_handler(self.signum)
            self._after()

    @contextlib.contextmanager
    def in_thread(self, halt: Callable[[], None]) -> Iterator[None]:
        """The same for a plain (non-asyncio) main thread."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = signal.signal(self.signum, lambda *_: self.press(halt))
        try:
            yield
        finally:
            signal.signal(self.signum, previous)
            self._after()

    def _after(self) -> None:
        """Once stopped, a further press while the session winds up exits at once, without a traceback."""
        if self.requested and self.second_exits:
            signal.signal(self.signum, lambda *_: self.press(lambda: None))
