"""The rows of a dataset file, in the order they are written.

Rows follow the games in order (run, game, turn), with one exception that keeps the file loadable:
`datasets.load_dataset("json")` fixes every column's type from the first batch it reads (about 10 MB) and refuses a
later batch whose type differs ("Couldn't cast array of type string to null"). A nullable column that is null
throughout the first batch would get the null type, so the first row written is the first one where the
nullable columns hold a value (a reasoning trace, a rating), if any row does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from pydantic import BaseModel

from harness.export import DATASET_FORMATS
from harness.export.datasets import log_rows, reward_rows
from harness.export.preferences import preference_rows
from harness.export.rows import Filters, LogRow, RewardRow
from harness.export.source import ExportGame, Selection

DATA_FILES = {fmt: f"{fmt}.jsonl" for fmt in DATASET_FORMATS}


def _has_reasoning(row: BaseModel) -> bool:
    return isinstance(row, LogRow) and row.reasoning is not None


def _has_rating(row: BaseModel) -> bool:
    return isinstance(row, RewardRow) and any(r.rating is not None for r in row.candidate_ratings)


def anchored(
    rows: Callable[[], Iterable[BaseModel]], typed: Callable[[BaseModel], bool]
) -> Iterator[BaseModel]:
    """Every row of `rows()`, with the first row for which `typed` holds moved to the front."""
    anchor = next(((i, row) for i, row in enumerate(rows()) if typed(row)), None)
    if anchor is None:
        yield from rows()
        return
    yield anchor[1]
    for i, row in enumerate(rows()):
        if i != anchor[0]:
            yield row


def dataset_rows(fmt: str, selection: Selection, filters: Filters) -> Iterator[BaseModel]:
    """The rows of a dataset export of format `fmt`, in writing order."""
    margin = filters.margin or 0.0
    builders: dict[str, Callable[[ExportGame], Iterable[BaseModel]]] = {
        "hanabilogs": log_rows,
        "hanabirewards": reward_rows,
        "preferences": lambda game: preference_rows(game, margin),
    }
    typed = {"hanabilogs": _has_reasoning, "hanabirewards": _has_rating}

    def rows() -> Iterator[BaseModel]:
        for game in selection.games:
            yield from builders[fmt](game)

    if fmt in typed:
        return anchored(rows, typed[fmt])
    return rows()
