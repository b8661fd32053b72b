"""Ctrl-C (or SIGTERM) during a session: the first press stops the games, the second exits at once.

On the first press no game starts a new model call, the calls in flight are cancelled (their move is played
again on resume), every log is closed intact, the status is written and the command prints one line with the
resume command (exit code 130). A second press exits at once, as a kill would, the logs intact. SIGTERM stops
a session as the first Ctrl-C does, named as such; outside a session it raises Terminated (`stop_on_sigterm`).
Worker processes ignore both and stop when their parent tells them to (STOP_WORKER): one press counts once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator

from harness.schema.errors import EXIT_STOPPED, Ended

STOP_WORKER = signal.SIGUSR1
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)  # what stops a session: Ctrl-C, and a kill's polite request
# A second stop signal this soon after the first is the same stop delivered twice (GNU timeout signals the command and
# then its process group), not a second press.
SAME_STOP_S = 0.25


def signal_name(signum: int) -> str:
    """A stop signal as the user knows it: "Ctrl-C" for SIGINT, else the signal's name ("SIGTERM")."""
    return "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name


class Terminated(KeyboardInterrupt):
    """SIGTERM where no session listens: stops the command as Ctrl-C's KeyboardInterrupt does."""


def stopped_by_ctrl_c(kept: str, command: str = "") -> Ended:
    """How a session that resumes by running the same command again ends on Ctrl-C: one line (naming that
    `command`, when given), exit code 130."""
    again = f"to go on: {command}" if command else "run the same command again to go on"
    return Ended(f"Stopped by Ctrl-C: {kept}; {again}", EXIT_STOPPED)


def cause(stopped: KeyboardInterrupt) -> str:
    """What stopped the command, as the one line says it."""
    return "SIGTERM" if isinstance(stopped, Terminated) else "Ctrl-C"


def _raise_terminated(*_: object) -> None:
    raise Terminated


def stop_on_sigterm() -> None:
    """From now on SIGTERM raises Terminated in the main thread, as SIGINT raises KeyboardInterrupt, so that a
    command stopped by a kill says so in one line and exits as after Ctrl-C (a session listens more closely)."""
    signal.signal(signal.SIGTERM, _raise_terminated)


class Stop:
    """Whether the user asked the session to stop, and how to tell them to continue."""

    def __init__(
        self, resume_hint: str = "", signums: tuple[int, ...] = STOP_SIGNALS, second_exits: bool = True
    ) -> None:
        self.resume_hint = resume_hint
        self.signums = signums
        self.second_exits = second_exits
        self.requested = False
        self.requested_at = 0.0  # time.monotonic() of the first press
        self.by = "Ctrl-C"  # what stopped it, once requested: "Ctrl-C" or "SIGTERM"
        self._on_second: list[Callable[[], None]] = []

    def press(self, halt: Callable[[], None], signum: int = signal.SIGINT) -> None:
        """One press of Ctrl-C (or one stop signal): halt on the first, exit at once on the second (a repeat within
        SAME_STOP_S of the first is that same press)."""
        if self.requested and time.monotonic() - self.requested_at < SAME_STOP_S:
            return
        if self.requested and self.second_exits:
            for hook in self._on_second:
                with contextlib.suppress(Exception):
                    hook()
            if sys.stderr.isatty():  # the live display hid the cursor and is not there to show it again
                sys.stderr.write("\x1b[?25h\n")
            sys.stderr.write(
                f"Stopped at once by a second {signal_name(signum)}; the logs are intact. {self.resume_hint}\n"
            )
            sys.stderr.flush()
            os._exit(EXIT_STOPPED)
        self.requested = True
        self.requested_at = time.monotonic()
        self.by = signal_name(signum)
        halt()

    def interruption(self) -> KeyboardInterrupt:
        """The exception to raise for this stop where no loop listens yet."""
        return Terminated() if self.by == "SIGTERM" else KeyboardInterrupt()

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
        for signum in self.signums:
            loop.add_signal_handler(signum, self.press, halt, signum)
        try:
            yield
        finally:
            for signum in self.signums:
                loop.remove_signal_handler(signum)
            self._after()

    @contextlib.contextmanager
    def in_thread(self, halt: Callable[[], None]) -> Iterator[None]:
        """The same for a plain (non-asyncio) main thread."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {
            signum: signal.signal(signum, lambda signum, _: self.press(halt, signum)) for signum in self.signums
        }
        try:
            yield
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            self._after()

    def _after(self) -> None:
        """Once stopped, a further press while the session winds up exits at once, without a traceback."""
        if self.requested and self.second_exits:
            for signum in self.signums:
                signal.signal(signum, lambda signum, _: self.press(lambda: None, signum))
