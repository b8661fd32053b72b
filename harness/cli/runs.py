"""`hanabi-eval runs [DIR]`: list the runs under a folder with their status and progress, from disk."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.streams import table_console
from harness.schema.errors import EXIT_OK, Refused

COLUMNS = ("players", "status", "done", "interrupted", "total", "corrupt", "mean", "cached", "updated (UTC)")


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("runs", help="list runs and their progress")
    parser.add_argument(
        "folder", type=Path, nargs="?", default=Path("results"), help="where to look (default results)"
    )
    parser.set_defaults(handler=handle)


def cache_cell(share: float | None, saving: float | None) -> str:
    """The share of a run's prompt tokens read from the cache, and what that saved where priced."""
    if not share:
        return "-"
    return f"{share:.0%}" + (f" · saved ${saving:.2f}" if saving is not None else "")


def handle(args: argparse.Namespace) -> int:
    from rich.markup import escape
    from rich.table import Table

    from harness.run.progress_on_disk import run_progress
    from harness.run.store import runs_below
    from harness.schema.log_file import DAMAGED_LOG_FIX

    if not args.folder.exists():
        raise Refused(
            f"{args.folder} does not exist: no runs yet (hanabi-eval run writes them there), or give the folder "
            "that holds your runs"
        )
    if not args.folder.is_dir():
        raise Refused(
            f"{args.folder} is not a folder; give the folder that holds your runs (default results)"
        )
    runs = runs_below(args.folder)
    progresses = [(run, run_progress(run)) for run in runs]
    damaged = any(p.corrupt for _, p in progresses)
    cached = any(p.cached_share for _, p in progresses)
    table = Table(title=f"Runs under {args.folder}")
    table.add_column("run", overflow="fold")
    columns = [c for c in COLUMNS if (c != "corrupt" or damaged) and (c != "cached" or cached)]
    for column in columns:
        numeric = column in ("done", "interrupted", "total", "mean", "corrupt", "cached")
        table.add_column(column, justify="right" if numeric else "left", no_wrap=column == "status")
    for folder, progress in progresses:
        cells = {
            "players": progress.players,
            "status": progress.status,
            "done": str(progress.complete),
            "interrupted": str(progress.interrupted),
            "total": str(progress.total),
            "corrupt": f"[red]{len(progress.corrupt)}[/red]" if progress.corrupt else "0",
            "mean": f"{progress.mean_score:.2f}" if progress.mean_score is not None else "-",
            "cached": cache_cell(progress.cached_share, progress.cache_saving_usd),
            "updated (UTC)": (progress.updated_at or "-")[:16].replace("T", " "),
        }
        table.add_row(str(folder.relative_to(args.folder)), *(cells[column] for column in columns))
    console = table_console()
    if not runs:
        console.print(f"No runs under {args.folder}.")
        return EXIT_OK
    console.print(table)
    for folder, progress in progresses:
        if progress.problem is not None:
            console.print(f"[red]unreadable[/red] {escape(progress.problem)}", soft_wrap=True)
        for where in progress.corrupt:
            console.print(
                f"[red]corrupt log[/red] {escape(str(folder / where))}; report and export leave this game out, "
                f"resume refuses it: {escape(DAMAGED_LOG_FIX)}",
                soft_wrap=True,
            )
    return EXIT_OK
