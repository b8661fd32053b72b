"""The table page's options (`--port`, `--host`, `--open`) for the commands that play human seats (`play`, `run`,
`resume`), and serving it around their play: harness.web.table."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from harness.schema.errors import Refused
from harness.schema.records import SeatConfig
from harness.web.table import TableServer, serving_table


def add_table_options(parser: argparse.ArgumentParser, what: str = "when a seat is human") -> None:
    parser.add_argument("--port", type=int, help=f"serve the table page on this port ({what}; default: a free one)")
    parser.add_argument(
        "--host",
        metavar="ADDRESS",
        help="serve the table page on this address instead of 127.0.0.1 (a LAN address: others can reach it)",
    )
    parser.add_argument("--open", action="store_true", help="open each human seat's table page in the browser")


def check_table_options(args: argparse.Namespace) -> None:
    port = getattr(args, "port", None)
    if port is not None and not 1 <= port <= 65535:
        raise Refused(f"--port {port} is outside 1-65535; give a free port, or leave it out for any")


@contextlib.contextmanager
def table_for(
    seats: Iterable[SeatConfig], args: argparse.Namespace, runs: Path
) -> Iterator[TableServer | None]:
    """Serve a table page per human seat of `seats` while the block plays the run or sweep folder `runs` (nothing
    without human seats); its addresses are printed whole, one a line, never wrapped."""
    check_table_options(args)
    names = list(dict.fromkeys(seat.model for seat in seats if seat.human))
    with serving_table(names, getattr(args, "host", None), getattr(args, "port", None),
                       getattr(args, "open", False), lambda line: print(line, flush=True), runs) as server:
        yield server


def linger(server: TableServer | None) -> None:
    """Once the games are over, keep the pages (the scores and their viewer links) until Ctrl-C."""
    if server is None:
        return
    print("The games are over; their table pages and viewer pages stay open until Ctrl-C.", file=sys.stderr,
          flush=True)
    with contextlib.suppress(KeyboardInterrupt):  # SIGTERM too (harness.run.interrupt.stop_on_sigterm)
        while True:
            time.sleep(0.5)
