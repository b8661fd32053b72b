"""The score table printed at the end of a run: one row per player count, from the games' results."""

from __future__ import annotations

import math
from collections import defaultdict

from rich.table import Table

from harness.engine import EndReason
from harness.records import GameResult
from harness.store import GamePlan


def score_table(results: list[tuple[GamePlan, GameResult]]) -> Table:
    by_players: dict[int, list[GameResult]] = defaultdict(list)
    for plan, result in results:
        by_players[plan.players].append(result)
    table = Table(
        title="Scores per player count",
        caption="mean: fireworks at the end (the paper's score); engine: 0 after three strikes; "
        "struck out: all lives lost; stopped: interrupted, resumable",
    )
    for column in ("players", "games", "done", "mean", "s.e.", "engine", "perfect", "struck out"):
        table.add_column(column, justify="right")
    table.add_column("stopped", justify="right", style="red")
    for players in sorted(by_players):
        games = by_players[players]
        done = [r for r in games if r.status == "complete"]
        scores = [r.fireworks_score for r in done]
        mean = sum(scores) / len(scores) if scores else math.nan
        spread = _standard_error(scores)
        engine = sum(r.engine_score for r in done) / len(done) if done else math.nan
        table.add_row(
            str(players),
            str(len(games)),
            str(len(done)),
            f"{mean:.2f}",
            f"{spread:.2f}",
            f"{engine:.2f}",
            str(sum(1 for s in scores if s == 25)),
            str(sum(1 for r in done if r.end_reason == EndReason.LIVES_LOST)),
            str(len(games) - len(done)),
        )
    return table


def _standard_error(values: list[int]) -> float:
    if len(values) < 2:
        return math.nan
    mean = sum(values) / len(values)
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return math.sqrt(variance / len(values))


def sweep_table(runs: list[tuple[object, list[tuple[GamePlan, GameResult]]]]) -> Table:
    """One row per run and player count: the grid at a glance."""
    table = Table(title="Sweep scores (fireworks at the end)", caption="stopped: interrupted, resumable")
    for column in ("model", "scaffold", "players", "games", "done", "mean", "s.e.", "stopped"):
        table.add_column(column, justify="left" if column in ("model", "scaffold") else "right")
    for config, results in runs:
        seats = config.seats  # type: ignore[attr-defined]
        model = seats[0].model if len(seats) == 1 else " + ".join(s.model for s in seats)
        scaffold = "/".join(dict.fromkeys(s.scaffold for s in seats))
        by_players: dict[int, list[GameResult]] = defaultdict(list)
        for plan, result in results:
            by_players[plan.players].append(result)
        for players in sorted(by_players):
            games = by_players[players]
            scores = [r.fireworks_score for r in games if r.status == "complete"]
            mean = sum(scores) / len(scores) if scores else math.nan
            table.add_row(
                model,
                scaffold,
                str(players),
                str(len(games)),
                str(len(scores)),
                f"{mean:.2f}",
                f"{_standard_error(scores):.2f}",
                str(len(games) - len(scores)),
            )
    return table
