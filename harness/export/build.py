"""The rows of a dataset file, in the order they are written: games in order (run, game), moves in turn order.

Every row model has only non-null columns (harness/export/schema.py), so no row order is needed to make `datasets`
infer the right types: any file, even one row long, reads to the declared features.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import cast

from pydantic import BaseModel

from harness.export import DATASET_FORMATS
from harness.export.datasets import log_rows, reward_rows
from harness.export.preferences import preference_rows, within_budget
from harness.export.rows import ExportOptions, Filters, PreferenceRow
from harness.export.source import ExportGame
from harness.schema.records import MoveRecord

DATA_FILES = {fmt: f"{fmt}.jsonl" for fmt in DATASET_FORMATS}
GameRows = Callable[[ExportGame, list[MoveRecord]], Iterable[BaseModel]]


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
