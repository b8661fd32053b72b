"""State tracking of working-memory seats (Mycroft): the accuracy measured on every move of complete games
(MoveRecord.tracking), averaged per group and per bin of turns, beside the judge's mean rating per bin."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from harness.report.grouping import grouped
from harness.report.rows import TrackedMove
from harness.report.stats import average

TURN_BIN = 5  # turns per point of the accuracy-over-turns plot


class TrackingFigures(BaseModel):
    model_config = ConfigDict(frozen=True)

    group: str
    moves: int  # moves with a measurement
    own_exact: float | None  # None: no measured move (a bin only the judge rated)
    own_precision: float | None
    own_recall: float | None
    others_exact: float | None
    others_precision: float | None
    others_recall: float | None


class TrackingSummary(TrackingFigures):
    games: int


class TrackingByTurn(TrackingFigures):
    first_turn: int
    last_turn: int
    judged_turns: int = 0  # turns of this bin the judge rated
    judge_overall: float | None = None  # their mean overall rating (0-1)


def _figures(moves: Sequence[TrackedMove]) -> dict[str, float | None]:
    tracked = [m.tracking for m in moves]
    figures: dict[str, float | None] = {}
    for side in ("own", "others"):
        for measure in ("exact", "precision", "recall"):
            values = [getattr(getattr(t, side), measure) for t in tracked]
            figures[f"{side}_{measure}"] = average(values)
    return figures


def tracking_summaries(moves: Sequence[TrackedMove]) -> list[TrackingSummary]:
    return [
        TrackingSummary(
            group=group,
            games=len({(m.run_id, m.game_id) for m in measured}),
            moves=len(measured),
            **_figures(measured),
        )
        for group, measured in sorted(grouped(moves, lambda move: move.group).items())
    ]


def tracking_by_turn(
    moves: Sequence[TrackedMove], judged: dict[tuple[str, int], tuple[int, float]] | None = None
) -> list[TrackingByTurn]:
    """Per group and bin of TURN_BIN turns: the measured figures, and the judge's (turns, mean overall rating)
    from `judged` (keyed by group and bin index) where it rated turns of that bin."""
    judged = judged or {}
    bins = grouped(moves, lambda move: (move.group, (move.turn - 1) // TURN_BIN))
    rows = []
    for group, index in sorted(set(bins) | set(judged)):
        in_bin = bins.get((group, index), [])
        judged_turns, judge_overall = judged.get((group, index), (0, None))
        rows.append(
            TrackingByTurn(
                group=group,
                first_turn=index * TURN_BIN + 1,
                last_turn=(index + 1) * TURN_BIN,
                moves=len(in_bin),
                judged_turns=judged_turns,
                judge_overall=judge_overall,
                **_figures(in_bin),
            )
        )
    return rows
