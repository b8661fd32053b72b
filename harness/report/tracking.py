"""State tracking of working-memory seats (Mycroft) in the report: the accuracy measured on every move
(MoveRecord.tracking: exact-match rate, precision and recall, for the seat's own hand and for the other players'
knowledge), averaged per group and per bin of turns. Complete games only; every measured move weighs the same.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from harness.report.load import MoveRow

TURN_BIN = 5  # turns per point of the accuracy-over-turns plot


class TrackingFigures(BaseModel):
    model_config = ConfigDict(frozen=True)

    group: str
    moves: int  # moves with a measurement
    own_exact: float
    own_precision: float
    own_recall: float
    others_exact: float
    others_precision: float
    others_recall: float


class TrackingSummary(TrackingFigures):
    games: int


class TrackingByTurn(TrackingFigures):
    first_turn: int
    last_turn: int


def _figures(moves: Sequence[MoveRow]) -> dict[str, float]:
    tracked = [m.tracking for m in moves if m.tracking is not None]
    figures = {}
    for side in ("own", "others"):
        for measure in ("exact", "precision", "recall"):
            figures[f"{side}_{measure}"] = float(
                np.mean([getattr(getattr(t, side), measure) for t in tracked])
            )
    return figures


def _measured(moves: Sequence[MoveRow]) -> dict[str, list[MoveRow]]:
    by_group: dict[str, list[MoveRow]] = defaultdict(list)
    for move in moves:
        if move.tracking is not None and move.game_status == "complete":
            by_group[move.group].append(move)
    return by_group


def tracking_summaries(moves: Sequence[MoveRow]) -> list[TrackingSummary]:
    return [
        TrackingSummary(
            group=group,
            games=len({(m.run_id, m.game_id) for m in measured}),
            moves=len(measured),
            **_figures(measured),
        )
        for group, measured in sorted(_measured(moves).items())
    ]


def tracking_by_turn(moves: Sequence[MoveRow]) -> list[TrackingByTurn]:
    rows = []
    for group, measured in sorted(_measured(moves).items()):
        bins: dict[int, list[MoveRow]] = defaultdict(list)
        for move in measured:
            bins[(move.turn - 1) // TURN_BIN].append(move)
        for index, in_bin in sorted(bins.items()):
            rows.append(
                TrackingByTurn(
                    group=group,
                    first_turn=index * TURN_BIN + 1,
                    last_turn=(index + 1) * TURN_BIN,
                    moves=len(in_bin),
                    **_figures(in_bin),
                )
            )
    return rows
