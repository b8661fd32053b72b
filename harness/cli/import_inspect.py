"""`hanabi-eval import-inspect LOG... --out DIR`: Inspect logs of the hanabi task as run folders."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.arguments import folder
from harness.schema.errors import EXIT_FAILED, EXIT_OK, Refused


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "import-inspect", help="turn Inspect logs of the hanabi task into run folders (reads logs only)"
    )
    parser.add_argument(
        "logs", type=Path, nargs="+", metavar="LOG", help="Inspect log files (.eval or .json)"
    )
    parser.add_argument(
        "--out", type=folder, default=Path("results"), help="parent folder of run folders (default results)"
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    try:
        from harness.inspect.importer import import_log
    except ImportError:
        raise Refused(
            "import-inspect needs Inspect AI; install it with: pip install 'hanabi-eval[inspect]'"
        ) from None
    from harness.session.request import check_out

    check_out(args.out)  # as `run` checks it: no file on the way, not inside a run, writable
    interrupted = 0
    for log in args.logs:
        outcome = import_log(log, args.out, args.argv)
        interrupted += outcome.interrupted
        added, total = len(outcome.added), outcome.total
        print(
            f"{log} -> {outcome.run}: {added} game{'' if added == 1 else 's'} added, {len(outcome.unchanged)} "
            f"already there; the run holds {outcome.complete} complete and {outcome.interrupted} interrupted of "
            f"its {total} game{'' if total == 1 else 's'}"
        )
        for skipped in outcome.skipped:
            print(f"  not imported (no game log): {skipped}")
    return EXIT_FAILED if interrupted else EXIT_OK
