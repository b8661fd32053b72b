"""`hanabi-eval report RUN_DIR... --out DIR`: an HTML and Markdown report with tables, from the logs alone."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.cli.arguments import folder
from harness.report.grouping import DEFAULT_BY, DIMENSIONS
from harness.schema.errors import EXIT_OK


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "report", help="compare runs: HTML and Markdown report with CSV/JSON tables, from the logs"
    )
    parser.add_argument(
        "runs", type=Path, nargs="+", metavar="RUN_DIR", help="run directories, or folders that hold runs"
    )
    parser.add_argument(
        "--out",
        type=folder,
        required=True,
        help="a new or empty folder (or an earlier report's, with --force) for report.html, report.md and the tables",
    )
    parser.add_argument(
        "--by",
        nargs="+",
        action="extend",
        choices=DIMENSIONS,
        help=f"what games are grouped by (default: {' '.join(DEFAULT_BY)})",
    )
    parser.add_argument("--force", action="store_true", help="replace the report already in --out")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from harness.report.build import build_report

    content, written = build_report(args.runs, args.out, args.by or list(DEFAULT_BY), args.force)
    for skipped in content.skipped:
        print(f"warning: skipped {skipped.path}: {skipped.problem}", file=sys.stderr)
    runs = len(content.runs)
    print(
        f"Report on {runs} run{'s' if runs != 1 else ''}: {content.complete_games} complete games, "
        f"{len(content.not_complete)} not complete (listed, not counted)"
        + (
            f", {len(content.skipped)} unreadable log{'s' if len(content.skipped) != 1 else ''} skipped."
            if content.skipped
            else "."
        )
    )
    total = content.spending.total
    price = "unpriced" if total.cost_usd is None else f"${total.cost_usd:.4f}"
    unpriced = f" ({total.unpriced_games} games unpriced)" if total.pricing == "partly priced" else ""
    print(f"Total cost: {price}{unpriced}; {total.total_tokens:,} tokens.")
    print(f"HTML: {written[0]}")
    print(f"Markdown: {written[1]}")
    print(f"Tables (CSV and JSON): {args.out}")
    if any(path.suffix == ".png" for path in written):
        print(f"Plots (PNG): {args.out / 'figures'}")
    return EXIT_OK
