"""`hanabi-eval view PATH...`: browse runs and games move by move, served on 127.0.0.1 or as a static site."""

from __future__ import annotations

import argparse
import errno
import os
import sys
import threading
import time
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli.arguments import folder
from harness.cli.run import check_table_options
from harness.schema.errors import EXIT_OK, Refused

if TYPE_CHECKING:
    from harness.web.catalog import Catalog, RunEntry


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "view", help="see games move by move in a browser: a local server, or a static site with --out"
    )
    parser.add_argument(
        "paths", type=Path, nargs="+", metavar="PATH", help="run directories, or folders that hold runs"
    )
    parser.add_argument("--port", type=int, help="serve on this port of 127.0.0.1 (default: a free one)")
    parser.add_argument("--open", action="store_true", help="open the viewer in the default browser")
    parser.add_argument("--out", type=folder, help="write a static site into this folder instead of serving")
    parser.add_argument("--force", action="store_true", help="replace an existing site at --out")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from harness.web.catalog import Catalog

    if args.out is not None and args.port is not None:
        raise Refused("--port serves the pages and --out writes them as files; give one of the two")
    if args.force and args.out is None:
        raise Refused("--force replaces a site at --out; it needs --out")
    check_table_options(args)
    catalog = Catalog(args.paths)
    sources = [str(p) for p in args.paths]
    if args.out is not None:
        return _write(catalog, args, sources)
    return _serve(catalog, args, sources)


def _warn_skipped(runs: list[RunEntry]) -> None:
    for run in runs:
        for skipped in run.skipped:
            print(f"warning: skipped {skipped.path}: {skipped.problem}", file=sys.stderr)


def _counts(runs: list[RunEntry]) -> str:
    games = sum(len(run.games) for run in runs)
    return f"{len(runs)} run{'s' if len(runs) != 1 else ''} and {games} game{'s' if games != 1 else ''}"


def _write(catalog: Catalog, args: argparse.Namespace, sources: list[str]) -> int:
    from harness.schema.log_file import LogCorrupt
    from harness.web.site import check_out, write_site

    check_out(args.out, args.force, args.paths)
    started = time.monotonic()
    runs = catalog.runs()
    _warn_skipped(runs)
    try:
        write_site(catalog, args.out, sources, jobs=os.cpu_count() or 1)
    except LogCorrupt as exc:  # a log damaged since it was read: nothing is written
        raise Refused(f"{exc}; a log changed while the site was written, so nothing was written") from None
    index = args.out / "index.html"
    print(
        f"Wrote the viewer of {_counts(runs)} to {args.out} in {time.monotonic() - started:.1f} s; open {index}"
    )
    if args.open:
        webbrowser.open(index.resolve().as_uri())
    return EXIT_OK


def _serve(catalog: Catalog, args: argparse.Namespace, sources: list[str]) -> int:
    from harness.web.server import HOST, ViewerServer

    try:
        server = ViewerServer(catalog, sources, args.port or 0)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise Refused(
                f"--port {args.port} is in use on {HOST}; give another port, or leave it out"
            ) from None
        raise Refused(
            f"cannot serve on {HOST}:{args.port}: {exc.strerror or exc}; give another port"
        ) from None
    print(f"Reading the game logs below {', '.join(sources)} ...", flush=True)
    started = time.monotonic()
    runs = catalog.runs()  # read every log once now, so the first page is quick
    _warn_skipped(runs)
    print(
        f"Serving the viewer of {_counts(runs)} (read in {time.monotonic() - started:.1f} s) at {server.url}  "
        "(read-only; Ctrl-C stops)",
        flush=True,
    )
    if args.open:  # in a thread: a terminal browser (lynx, w3m) keeps webbrowser.open waiting while it shows the page
        threading.Thread(target=webbrowser.open, args=(server.url,), daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("Viewer stopped.", file=sys.stderr)
    finally:
        server.stop()
    return EXIT_OK
