"""The main result as one wide table per scoring convention (the paper's Figure 3 view): a row per group of
the `--by` dimensions other than players, a column per player count, then the row's mean with its interval.
Repeats of one deal are one sample; the game counts count every game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from harness.report.grouping import group_label, grouped
from harness.report.rows import GameRow
from harness.report.stats import Interval, estimate

ScoreConvention = Literal["fireworks", "engine"]
ALL_GAMES = "all games"  # the row label when the report is grouped by player count alone


class WideCell(BaseModel):
    model_config = ConfigDict(frozen=True)

    players: int
    games: int
    mean: float | None
    se: float | None


class WideRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    row: str
    cells: list[WideCell]  # one per player count of the table, in order (games 0 where the row has none)
    games: int  # complete games
    not_complete: int  # interrupted or unfinished games of the row
    mean: float | None
    se: float | None
    ci: Interval | None


class WideTable(BaseModel):
    model_config = ConfigDict(frozen=True)

    convention: ScoreConvention
    dimensions: list[str]
    player_counts: list[int]
    rows: list[WideRow]


def row_label(row: GameRow, by: Sequence[str]) -> str:
    dimensions = [d for d in by if d != "players"]
    return group_label({d: getattr(row, d) for d in dimensions}, dimensions) if dimensions else ALL_GAMES


def _score(row: GameRow, convention: ScoreConvention) -> int:
    return (row.fireworks_score if convention == "fireworks" else row.engine_score) or 0


def _deal_means(games: Sequence[GameRow], convention: ScoreConvention) -> list[float]:
    """One score per deal: the mean over the repeats of a game (same run, same game apart from its -playN suffix)."""
    deals = grouped(
        games, lambda g: (g.run_id, g.game_id.removesuffix(f"-play{g.repeat}") if g.repeat else g.game_id)
    )
    return [sum(_score(g, convention) for g in repeats) / len(repeats) for repeats in deals.values()]


def wide_table(rows: Sequence[GameRow], by: Sequence[str], convention: ScoreConvention) -> WideTable:
    counts = sorted({r.players for r in rows})
    by_row = grouped(rows, lambda row: row_label(row, by))
    table_rows = []
    for label in sorted(by_row):
        games = by_row[label]
        done = [g for g in games if g.status == "complete"]
        cells = []
        for count in counts:
            played = [g for g in done if g.players == count]
            stats = estimate(_deal_means(played, convention))
            cells.append(WideCell(players=count, games=len(played), mean=stats.mean, se=stats.se))
        overall = estimate(_deal_means(done, convention))
        table_rows.append(
            WideRow(
                row=label,
                cells=cells,
                games=len(done),
                not_complete=len(games) - len(done),
                mean=overall.mean,
                se=overall.se,
                ci=overall.ci,
            )
        )
    return WideTable(
        convention=convention,
        dimensions=[d for d in by if d != "players"],
        player_counts=counts,
        rows=table_rows,
    )


def flat_wide(tables: Sequence[WideTable]) -> list[dict[str, object]]:
    """The wide tables as flat rows for CSV/JSON: one row per table row, columns per player count."""
    flat: list[dict[str, object]] = []
    for table in tables:
        for row in table.rows:
            record: dict[str, object] = {"convention": table.convention, "row": row.row}
            for cell in row.cells:
                record[f"mean_{cell.players}p"] = cell.mean
                record[f"se_{cell.players}p"] = cell.se
                record[f"games_{cell.players}p"] = cell.games
            record.update(
                mean=row.mean,
                se=row.se,
                ci_low=row.ci.low if row.ci else None,
                ci_high=row.ci.high if row.ci else None,
                games=row.games,
                not_complete=row.not_complete,
            )
            flat.append(record)
    return flat
