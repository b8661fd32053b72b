"""`hanabi-eval import-inspect LOG... --out results/`: turn Inspect logs of the hanabi task (`inspect eval
hanabi_eval/hanabi`) into run folders that `report`, `export`, `values` and `runs` read like any run. Reads the
logs only; no model is called. Needs the `inspect` extra (`pip install 'hanabi-eval[inspect]'`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.arguments import folder
from harness.cli.errors import EXIT_INTERRUPTED, EXIT_OK, UsageError


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
        from harness.inspect.importer import ImportRefused, import_log
    except ImportError:
        raise UsageError(
            "import-inspect needs Inspect AI; install it with: pip install 'hanabi-eval[inspect]'"
        ) from None
    from harness.run.lock import RunLocked
    from harness.run.manifest import RunConfigError
    from harness.session.launch import SessionRefused
    from harness.session.request import check_out

    try:
        check_out(args.out)  # as `run` checks it: no file on the way, not inside a run, writable
    except SessionRefused as exc:
        raise UsageError(str(exc)) from None
    interrupted = 0
    for log in args.logs:
        try:
            outcome = import_log(log, args.out, args.argv)
        except (ImportRefused, RunConfigError, RunLocked) as exc:
            raise UsageError(str(exc)) from None
        interrupted += outcome.interrupted
        print(
            f"{log} -> {outcome.run}: {len(outcome.added)} games added, {len(outcome.unchanged)} already there; "
            f"the run holds {outcome.complete} complete and {outcome.interrupted} interrupted of its "
            f"{outcome.total} games"
        )
        for skipped in outcome.skipped:
            print(f"  not imported (no game log): {skipped}")
    return EXIT_INTERRUPTED if interrupted else EXIT_OK
