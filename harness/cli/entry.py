"""The `hanabi-eval` console script and `python -m harness.cli`: loads the command line under a Ctrl-C guard.

Importing the command line takes about half a second; a Ctrl-C meanwhile gets the one line and exit code 130 that a
Ctrl-C gets later, never a traceback.
"""

from __future__ import annotations

import signal
import sys

EXIT_STOPPED = 130  # harness.run.interrupt.EXIT_STOPPED, which this module must not wait to import


def main() -> int:
    try:
        from harness.cli.main import main as command_line
    except KeyboardInterrupt:
        print("Stopped by Ctrl-C.", file=sys.stderr)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second press during the teardown changes nothing
        return EXIT_STOPPED
    return command_line()
