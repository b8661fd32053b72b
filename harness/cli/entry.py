"""The `hanabi-eval` console script and `python -m harness.cli`: loads the command line under a Ctrl-C guard.

Importing the command line takes about half a second; a Ctrl-C meanwhile gets the one line and exit code 130 that a
Ctrl-C gets later, never a traceback. The import runs with SIGINT blocked and a press is answered once it is done:
a KeyboardInterrupt raised inside the import could land in code that a dataclass or a named tuple runs through
exec(), and CPython then ends the process by SIGINT (exit status -2) even though the exception was caught.
A press during a session can still land in such code (a lazy import): the command ends with an exec() that runs to
its end, which clears that mark, so its exit code is the one it returned.
"""

from __future__ import annotations

import signal
import sys

from harness.schema.errors import (
    EXIT_STOPPED,  # the standard library only: read before the command line loads
)


def main() -> int:
    try:
        return _load_and_run()
    finally:
        exec("")  # clears CPython's mark of a KeyboardInterrupt out of exec()'d code: see above


def _load_and_run() -> int:
    if not hasattr(signal, "pthread_sigmask"):  # no signal masks (Windows): catch the interrupt instead
        try:
            from harness.cli.main import main as command_line
        except KeyboardInterrupt:
            return _stopped()
        return command_line()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        from harness.cli.main import main as command_line
    finally:
        pressed = signal.SIGINT in signal.sigpending()
        if pressed:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the press is answered here, and a second one changes nothing
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if pressed:
        return _stopped()
    return command_line()


def _stopped() -> int:
    print("Stopped by Ctrl-C.", file=sys.stderr)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second press during the teardown changes nothing
    return EXIT_STOPPED
