"""Output whose reader has gone (`| head -1`) is dropped and the work goes on with the exit code it earns,
instead of a BrokenPipeError wherever the next print happens (or rich ending the process with exit code 1)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.console import Console

WIDE = 200  # the columns of a command's tables and lines written to a pipe or a file


class _DropWhenClosed:
    """A text stream that drops what it cannot write because its reader has gone."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.reader_gone = False

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._gone()
        return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._gone()

    def _gone(self) -> None:
        """Point the stream's descriptor at /dev/null, so its buffer and the last flush at exit go there."""
        self.reader_gone = True
        with contextlib.suppress(OSError, ValueError):  # a stream without a descriptor (a test's capture)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())
            os.close(null)
        with contextlib.suppress(OSError, ValueError):
            self._stream.flush()

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, ...: the stream's own
        return getattr(self._stream, name)


@contextlib.contextmanager
def output_may_close() -> Iterator[None]:
    """Within this block, stdout and stderr drop text once their reader has gone, instead of raising."""
    originals = sys.stdout, sys.stderr
    guarded = _DropWhenClosed(sys.stdout), _DropWhenClosed(sys.stderr)
    sys.stdout, sys.stderr = guarded
    try:
        yield
    finally:
        for stream in guarded:
            stream.flush()
        sys.stdout, sys.stderr = originals


def table_console() -> Console:
    """A console at the terminal's width, else (a pipe or a file) WIDE columns, so no cell is cut at 80."""
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=WIDE)
