"""Writing an export (`hanabi-eval export`): its settings checked, its runs read, its files composed and written whole.
The rows of a dataset file come in the order they are written: games in order (run, game), moves in turn order.

Every row model has only non-null columns (harness/export/schema.py), so no row order is needed to make `datasets`
infer the right types: any file, even one row long, reads to the declared features.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel

from harness.export import DATASET_FORMATS
from harness.export import card as cards
from harness.export.card import Tally
from harness.export.datasets import log_rows, reward_rows
from harness.export.hanablive import file_name
from harness.export.preferences import preference_rows, within_budget
from harness.export.rows import ExportOptions, Filters, PreferenceRow, export_settings
from harness.export.schema import SCHEMA_VERSION
from harness.export.source import ExportGame, Selection, select
from harness.export.writer import MANIFEST_NAME, check_out, write_export
from harness.run.store import check_each_game_once, find_runs
from harness.schema.errors import Refused
from harness.schema.records import MoveRecord, now_iso
from harness.schema.secrets import redact

DATA_FILES = {fmt: f"{fmt}.jsonl" for fmt in DATASET_FORMATS}
GameRows = Callable[[ExportGame, list[MoveRecord]], Iterable[BaseModel]]
Say = Callable[[str], None]


def game_rows(fmt: str, filters: Filters, options: ExportOptions) -> GameRows:
    """The function that gives one game's rows of format `fmt` from its logged moves."""
    margin = filters.margin or 0.0
    builders: dict[str, GameRows] = {
        "hanabilogs": lambda game, moves: log_rows(game, moves, options.repair_dialogue),
        "hanabirewards": reward_rows,
        "preferences": lambda game, moves: preference_rows(
            game, moves, margin, options.pairs_per_move, options.repair_dialogue
        ),
    }
    return builders[fmt]


def dataset_rows(
    fmt: str,
    games: Iterable[tuple[ExportGame, list[MoveRecord]]],
    filters: Filters,
    options: ExportOptions,
    dropped: list[int] | None = None,
) -> Iterator[tuple[ExportGame, BaseModel]]:
    """The rows of a dataset export of format `fmt`, in writing order, each with its game. Preference pairs beyond
    a game's size budget are left out (counted into `dropped[0]`)."""
    rows = game_rows(fmt, filters, options)
    for game, moves in games:
        found = list(rows(game, moves))
        if fmt == "preferences":
            pairs, left_out = within_budget(cast(list[PreferenceRow], found), options.max_game_bytes)
            found = list(pairs)
            if dropped is not None:
                dropped[0] += left_out
        for row in found:
            yield game, row


@dataclass(frozen=True)
class Exported:
    """What an export wrote: the games it read and what its data files held."""

    selection: Selection
    tally: Tally


def export(
    runs: list[Path], out: Path, fmt: str, given: dict[str, Any], force: bool, argv: list[str], warn: Say
) -> Exported:
    """Export the complete games of `runs` in format `fmt` to `out`, written whole (raises Refused before anything is
    written for bad settings, runs or --out; a failed write, or no game to export once every log is read, leaves
    --out as it was). A damaged game log is left out, and `warn` told so."""
    filters, options = export_settings(fmt, given)
    found = find_runs(runs)
    check_out(out, force, found, fmt, SCHEMA_VERSION)
    check_each_game_once(found)
    command = redact(shlex.join(["hanabi-eval", *argv[1:]]))
    selection, tally = Selection(), Tally()
    write_export(out, export_files(fmt, found, selection, filters, options, command, now_iso(), tally, warn))
    return Exported(selection=selection, tally=tally)


def export_files(
    fmt: str,
    runs: list[Path],
    selection: Selection,
    filters: Filters,
    options: ExportOptions,
    command: str,
    created_at: str,
    tally: Tally,
    warn: Say,
) -> Iterator[tuple[str, Iterable[str]]]:
    """The export's files in writing order, each produced only when written (see write_export): the games are read
    one at a time while the data is written (into `selection`), and the data is measured into `tally`, for the card
    and manifest written after it."""
    games = select(runs, filters, selection)
    if fmt == "hanablive":
        for game, moves in games:
            yield file_name(game), tally.replay(game, moves)
        data_files = [file_name(g) for g in selection.games]
    else:
        yield DATA_FILES[fmt], tally.lines(dataset_rows(fmt, games, filters, options, tally.dropped))
        data_files = [DATA_FILES[fmt]]
    for problem in selection.corrupt:
        warn(f"warning: {problem}; the game is left out of the export")
    if tally.rows == 0:
        raise Refused(_no_rows(fmt, filters))
    facts = cards.card_facts(fmt, selection, tally, data_files, command, created_at, filters, options)
    yield "README.md", [cards.render_card(facts)]
    yield MANIFEST_NAME, [cards.manifest(facts, selection, tally).model_dump_json(indent=2) + "\n"]


def _no_rows(fmt: str, filters: Filters) -> str:
    if fmt == "preferences":
        return (
            f"no decided move has two ratings at least --margin {filters.margin} apart; lower --margin or "
            "export runs whose replies rate the moves"
        )
    return f"the selected games hold no {fmt} rows"
