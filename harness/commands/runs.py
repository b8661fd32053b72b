"""`hanabi-eval runs [DIR]`: list the runs under a folder with their status and progress, read from disk.

A run whose status says "running" but whose writer is gone (killed, crashed, machine slept and restarted) is shown
as "stopped": `hanabi-eval resume` continues it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.commands import EXIT_OK, UsageError


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("runs", help="list runs and their progress")
    parser.add_argument(
        "folder", type=Path, nargs="?", default=Path("results"), help="where to look (default results)"
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from harness.progress_on_disk import run_progress

    if not args.folder.is_dir():
        raise UsageError(
            f"{args.folder} is not a folder; give the folder that holds your runs (default results)"
        )
    manifests = sorted(args.folder.rglob("manifest.json"))
    table = Table(title=f"Runs under {args.folder}")
    table.add_column("run", overflow="fold")
    for column in ("players", "status", "done", "interrupted", "total", "mean", "updated"):
        numeric = column in ("done", "interrupted", "total", "mean")
        table.add_column(column, justify="right" if numeric else "left")
    for manifest in manifests:
        progress = run_progress(manifest.parent)
        mean = f"{progress.mean_score:.2f}" if progress.mean_score is not None else "-"
        table.add_row(
            str(manifest.parent.relative_to(args.folder)),
            progress.players,
            progress.status,
            str(progress.complete),
            str(progress.interrupted),
            str(progress.total),
            mean,
            progress.updated_at or "-",
        )
    console = Console()
    if not manifests:
        console.print(f"No runs under {args.folder}.")
    else:
        console.print(table)
    return EXIT_OK
