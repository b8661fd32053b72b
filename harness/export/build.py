"""Writing an export: settings checked, runs read, files composed and written whole; rows in run, game and
turn order."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.export import DATASET_FORMATS
from harness.export import card as cards
from harness.export.card import Tally
from harness.export.datasets import log_rows, reward_rows
from harness.export.hanablive import file_name
from harness.export.preferences import preference_rows, within_budget
from harness.export.rows import ExportOptions, Filters, export_settings
from harness.export.schema import SCHEMA_VERSION
from harness.export.source import ExportGame, Selection, select
from harness.export.writer import MANIFEST_NAME, check_out, write_export
from harness.run.store import check_each_game_once, find_runs
from harness.schema.errors import Refused
from harness.schema.records import MoveRecord, now_iso
from harness.schema.secrets import redact

DATA_FILES = {fmt: f"{fmt}.jsonl" for fmt in DATASET_FORMATS}
Game = tuple[ExportGame, list[MoveRecord]]  # a game the export takes, with its logged moves
Say = Callable[[str], None]


def dataset_rows(
    fmt: str, games: Iterable[Game], filters: Filters, options: ExportOptions, dropped: list[int]
) -> Iterator[tuple[ExportGame, BaseModel]]:
    """A dataset's rows, in writing order, with their games; pairs over budget are counted in `dropped`."""
    margin = filters.margin or 0.0
    for game, moves in games:
        if fmt == "hanabilogs":
            found: list[BaseModel] = list(log_rows(game, moves, options.repair_dialogue))
        elif fmt == "hanabirewards":
            found = list(reward_rows(game, moves))
        else:
            pairs = preference_rows(game, moves, margin, options.pairs_per_move, options.repair_dialogue)
            kept, left_out = within_budget(list(pairs), options.max_game_bytes)
            found = list(kept)
            dropped[0] += left_out
        for row in found:
            yield game, row


def export(
    runs: list[Path], out: Path, fmt: str, given: dict[str, Any], force: bool, argv: list[str], warn: Say
) -> tuple[Selection, Tally]:
    """Export the complete games of `runs` in format `fmt` to `out`, written whole; return the games read and
    what the data files held. Raises Refused before anything is written for bad settings, runs or --out; a
    failed write, or no game to export once every log is read, leaves --out as it was. A damaged game log is
    left out, and `warn` told so."""
    filters, options = export_settings(fmt, given)
    found = find_runs(runs)
    check_out(out, force, found, fmt, SCHEMA_VERSION)
    check_each_game_once(found)
    command = redact(shlex.join(["hanabi-eval", *argv[1:]]))
    selection, tally = Selection(), Tally()
    write_export(out, export_files(fmt, found, selection, filters, options, command, now_iso(), tally, warn))
    return selection, tally


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
    """The export's files in writing order, each made when written (the data, then the card and manifest
    from what `selection` and `tally` gathered meanwhile)."""
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
    if tally.rows == 0 and fmt == "preferences":
        raise Refused(
            f"no decided move has two ratings at least --margin {filters.margin} apart; lower --margin or "
            "export runs whose replies rate the moves"
        )
    if tally.rows == 0:
        raise Refused(f"the selected games hold no {fmt} rows")
    facts = cards.card_facts(fmt, selection, tally, data_files, command, created_at, filters, options)
    yield "README.md", [cards.render_card(facts)]
    yield MANIFEST_NAME, [cards.manifest(facts, selection, tally).model_dump_json(indent=2) + "\n"]

