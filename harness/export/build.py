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
from harness.export.source import ExportGame, Selection, find_runs, select
from harness.export.writer import MANIFEST_NAME, check_out, write_export
from harness.schema.errors import Refused
from harness.schema.records import now_iso
from harness.schema.secrets import redact

DATA_FILES = {fmt: f"{fmt}.jsonl" for fmt in DATASET_FORMATS}
Say = Callable[[str], None]


def game_rows(fmt: str, filters: Filters, options: ExportOptions) -> Callable[[ExportGame], Iterable[BaseModel]]:
    """The function that gives one game's rows of format `fmt`."""
    margin = filters.margin or 0.0
    builders: dict[str, Callable[[ExportGame], Iterable[BaseModel]]] = {
        "hanabilogs": lambda game: log_rows(game, options.repair_dialogue),
        "hanabirewards": reward_rows,
        "preferences": lambda game: preference_rows(
            game, margin, options.pairs_per_move, options.repair_dialogue
        ),
    }
    return builders[fmt]


def dataset_rows(
    fmt: str, selection: Selection, filters: Filters, options: ExportOptions, dropped: list[int] | None = None
) -> Iterator[tuple[ExportGame, BaseModel]]:
    """The rows of a dataset export of format `fmt`, in writing order, each with its game. Preference pairs beyond
    a game's size budget are left out (counted into `dropped[0]`)."""
    rows = game_rows(fmt, filters, options)
    for game in selection.games:
        found = list(rows(game))
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
    written for bad settings, runs or --out; a failed write leaves --out as it was). A damaged game log is left out,
    and `warn` told so."""
    filters, options = export_settings(fmt, given)
    found = find_runs(runs)
    check_out(out, force, found, fmt, SCHEMA_VERSION)
    selection = select(found, filters)
    for problem in selection.corrupt:
        warn(f"warning: {problem}; the game is left out of the export")
    command = redact(shlex.join(["hanabi-eval", *argv[1:]]))
    tally = Tally()
    write_export(out, export_files(fmt, selection, filters, options, command, now_iso(), tally))
    return Exported(selection=selection, tally=tally)


def export_files(
    fmt: str,
    selection: Selection,
    filters: Filters,
    options: ExportOptions,
    command: str,
    created_at: str,
    tally: Tally,
) -> list[tuple[str, Iterable[str]]]:
    """The export's files in writing order; each is produced only when written (see write_export), and the data
    is measured into `tally` as it is, for the card and manifest written after it."""
    files: list[tuple[str, Iterable[str]]] = []
    if fmt == "hanablive":
        data_files = [file_name(g) for g in selection.games]
        for game in selection.games:
            files.append((file_name(game), tally.replay(game)))
    else:
        data_files = [DATA_FILES[fmt]]
        rows = dataset_rows(fmt, selection, filters, options, tally.dropped)
        files.append((DATA_FILES[fmt], tally.lines(rows)))

    def facts() -> cards.CardFacts:
        if tally.rows == 0:
            raise Refused(_no_rows(fmt, filters))
        return cards.card_facts(fmt, selection, tally, data_files, command, created_at, filters, options)

    def card_text() -> Iterator[str]:
        yield cards.render_card(facts())

    def manifest_text() -> Iterator[str]:
        yield cards.manifest(facts(), selection, tally).model_dump_json(indent=2) + "\n"

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
