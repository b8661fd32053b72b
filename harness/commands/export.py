"""`hanabi-eval export`: turn the complete games of run directories into a dataset or hanab.live replays.

Reads the logs only (never calls a model). Every input is checked before anything is written; the export folder is
written whole to a temporary folder and renamed into place, and an existing export is replaced only with --force.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from harness.cards import MAX_PLAYERS, MAX_SCORE, MIN_PLAYERS
from harness.commands import EXIT_OK, UsageError
from harness.export import FORMATS

if TYPE_CHECKING:
    from harness.export.rows import Filters
    from harness.export.source import ExportGame, Selection


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "export", help="export complete games as a training dataset or hanab.live replays (reads logs only)"
    )
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="run directories to read")
    parser.add_argument("--format", required=True, choices=FORMATS, help="what to write")
    parser.add_argument(
        "--out", required=True, type=Path, help="export folder (data file, README.md, export_manifest.json)"
    )
    parser.add_argument("--model", nargs="+", default=[], help="only seats played by these model strings")
    parser.add_argument("--scaffold", nargs="+", default=[], help="only seats using these scaffolds")
    parser.add_argument(
        "--players", nargs="+", type=int, default=[], help="only games of these player counts"
    )
    parser.add_argument("--seed-set", nargs="+", default=[], help="only games dealt from these seed sets")
    parser.add_argument(
        "--min-score", type=int, help="only games whose final fireworks score is at least this"
    )
    parser.add_argument(
        "--margin",
        type=float,
        help="preferences: smallest rating gap between chosen and rejected move (default 0.5)",
    )
    parser.add_argument("--force", action="store_true", help="replace an existing export at --out")
    parser.set_defaults(handler=handle)


def _filters(args: argparse.Namespace) -> Filters:
    from harness.export.preferences import DEFAULT_MARGIN
    from harness.export.rows import Filters

    for players in args.players:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise UsageError(f"--players {players} is outside {MIN_PLAYERS}-{MAX_PLAYERS}")
    if args.min_score is not None and not 0 <= args.min_score <= MAX_SCORE:
        raise UsageError(f"--min-score {args.min_score} is outside 0-{MAX_SCORE}")
    if args.margin is not None and args.format != "preferences":
        raise UsageError("--margin applies only to --format preferences")
    margin = args.margin if args.margin is not None else DEFAULT_MARGIN
    if args.format == "preferences" and not 0 < margin <= 2:
        raise UsageError(f"--margin {margin} must be above 0 and at most 2 (ratings lie in [-1, 1])")
    return Filters(
        models=tuple(args.model),
        scaffolds=tuple(args.scaffold),
        players=tuple(args.players),
        seed_sets=tuple(args.seed_set),
        min_score=args.min_score,
        margin=margin if args.format == "preferences" else None,
    )


def handle(args: argparse.Namespace) -> int:
    from harness.export.datasets import ExportDataError
    from harness.export.hanablive import ReplayError
    from harness.export.source import SourceError, select
    from harness.export.writer import OutPathError, check_out, write_export
    from harness.secrets import redact
    from harness.store import now_iso

    filters = _filters(args)
    try:
        check_out(args.out, args.force, args.runs)
        selection = select(args.runs, filters)
        command = redact(shlex.join(["hanabi-eval", *args.argv[1:]]))
        counter = _Counter()
        write_export(args.out, _files(args.format, selection, filters, command, now_iso(), counter))
    except (SourceError, OutPathError, ExportDataError, ReplayError) as exc:
        raise UsageError(str(exc)) from None
    unit = "replay files" if args.format == "hanablive" else "rows"
    print(
        f"Exported {counter.rows} {unit} from {len(selection.games)} games ({selection.moves} moves) as "
        f"{args.format} to {args.out}; skipped {selection.skipped_incomplete} interrupted or unfinished games"
    )
    return EXIT_OK


class _Counter:
    """Counts the rows of a data file while it is being written, for the card written after it."""

    def __init__(self) -> None:
        self.rows = 0

    def lines(self, rows: Iterable[BaseModel]) -> Iterator[str]:
        for row in rows:
            self.rows += 1
            yield row.model_dump_json() + "\n"

    def replay(self, render: Callable[[ExportGame], str], game: ExportGame) -> Iterator[str]:
        self.rows += 1
        yield render(game)


def _files(
    fmt: str, selection: Selection, filters: Filters, command: str, created_at: str, counter: _Counter
) -> list[tuple[str, Iterable[str]]]:
    """The export's files in writing order; each is produced only when written (see write_export), and the data
    rows are counted into `counter` as they are."""
    from harness.export import card as cards
    from harness.export.build import DATA_FILES, dataset_rows
    from harness.export.hanablive import file_name, replay_json
    from harness.export.writer import MANIFEST_NAME

    files: list[tuple[str, Iterable[str]]] = []
    if fmt == "hanablive":
        data_files = [file_name(g) for g in selection.games]
        for game in selection.games:
            files.append((file_name(game), counter.replay(replay_json, game)))
    else:
        data_files = [DATA_FILES[fmt]]
        files.append((DATA_FILES[fmt], counter.lines(dataset_rows(fmt, selection, filters))))

    def facts() -> cards.CardFacts:
        if counter.rows == 0:
            raise UsageError(_no_rows(fmt, filters))
        return cards.card_facts(fmt, selection, counter.rows, data_files, command, created_at, filters)

    def card_text() -> Iterator[str]:
        yield cards.render_card(facts())

    def manifest_text() -> Iterator[str]:
        yield cards.manifest(facts(), selection).model_dump_json(indent=2) + "\n"

    files.append(("README.md", card_text()))
    files.append((MANIFEST_NAME, manifest_text()))
    return files


def _no_rows(fmt: str, filters: Filters) -> str:
    if fmt == "preferences":
        return (
            f"no decided move has two ratings at least --margin {filters.margin} apart; lower --margin or "
            "export runs whose replies rate the moves"
        )
    return f"the selected games hold no {fmt} rows"
