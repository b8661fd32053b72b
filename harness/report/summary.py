"""Per-group figures: scores under both conventions, game flow, invalid replies and retries, tokens, cost and
latency; the scores per player count; the mean score per scaffold and model. Only complete games count; the
others are counted beside."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from harness.report.grouping import grouped
from harness.report.rows import GameRow
from harness.report.stats import ScoreStats, average, ratio, score_stats


class GroupSummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    group: str
    games: int  # complete games: the ones counted
    not_complete: int  # interrupted or unfinished games of this group, listed separately
    players: list[int]
    fireworks: ScoreStats  # fireworks at the end (the paper's convention, the main score)
    engine: ScoreStats  # 0 after three strikes (AH2AC2 / SPIN-Bench)
    perfect: int
    perfect_share: float | None
    struck_out: int
    struck_out_share: float | None
    turns_mean: float | None
    lives_lost_mean: float | None
    hints_mean: float | None
    moves: int
    invalid_replies: int
    invalid_per_move: float | None
    retries: int
    retries_per_move: float | None
    tokens_per_game: float | None
    prompt_tokens_per_game: float | None
    completion_tokens_per_game: float | None
    cost_games: int  # complete games whose provider reported a cost
    cost_per_game: float | None  # mean over those games
    latency_mean_s: float | None
    latency_median_s: float | None


class PlayersSummary(BaseModel):
    model_config = ConfigDict(frozen=True)

    group: str
    players: int
    games: int
    fireworks: ScoreStats
    engine: ScoreStats
    perfect_share: float | None
    struck_out_share: float | None


class HeatCell(BaseModel):
    """Mean fireworks score of one scaffold with one model, player counts pooled."""

    model_config = ConfigDict(frozen=True)

    scaffold: str
    model: str
    games: int
    players: list[int]
    mean: float


def complete(rows: Sequence[GameRow]) -> list[GameRow]:
    return [r for r in rows if r.status == "complete"]


def group_summaries(rows: Sequence[GameRow], latencies: Mapping[str, list[float]]) -> list[GroupSummary]:
    """Each group's figures; `latencies`: per group, the latency of every move of its complete games."""
    by_group = grouped(rows, lambda row: row.group)
    return [_summary(group, by_group[group], latencies.get(group, [])) for group in sorted(by_group)]


def _scores(done: Sequence[GameRow]) -> dict[str, Any]:
    """Both scores of complete games, and the shares of perfect and struck-out games."""
    return {
        "fireworks": score_stats([r.fireworks_score or 0 for r in done]),
        "engine": score_stats([r.engine_score or 0 for r in done]),
        "perfect_share": ratio(sum(bool(r.perfect) for r in done), len(done)),
        "struck_out_share": ratio(sum(bool(r.struck_out) for r in done), len(done)),
    }


def _summary(group: str, rows: list[GameRow], latencies: list[float]) -> GroupSummary:
    done = complete(rows)
    moves = sum(r.moves for r in done)
    invalid = sum(r.invalid_replies or 0 for r in done)
    retries = sum(r.retries or 0 for r in done)
    costs = [r.cost_usd for r in done if r.cost_usd is not None]
    return GroupSummary(
        group=group,
        games=len(done),
        not_complete=len(rows) - len(done),
        players=sorted({r.players for r in done}),
        perfect=sum(bool(r.perfect) for r in done),
        struck_out=sum(bool(r.struck_out) for r in done),
        turns_mean=average([r.moves for r in done]),
        lives_lost_mean=average([r.lives_lost or 0 for r in done]),
        hints_mean=average([r.hints_given or 0 for r in done]),
        moves=moves,
        invalid_replies=invalid,
        invalid_per_move=ratio(invalid, moves),
        retries=retries,
        retries_per_move=ratio(retries, moves),
        tokens_per_game=average([r.total_tokens or 0 for r in done]),
        prompt_tokens_per_game=average([r.prompt_tokens or 0 for r in done]),
        completion_tokens_per_game=average([r.completion_tokens or 0 for r in done]),
        cost_games=len(costs),
        cost_per_game=average(costs),
        latency_mean_s=average(latencies),
        latency_median_s=float(np.median(latencies)) if latencies else None,
        **_scores(done),
    )


def players_summaries(rows: Sequence[GameRow]) -> list[PlayersSummary]:
    cells = grouped(complete(rows), lambda row: (row.group, row.players))
    return [
        PlayersSummary(group=group, players=players, games=len(done), **_scores(done))
        for (group, players), done in sorted(cells.items())
    ]


def heat_cells(rows: Sequence[GameRow]) -> list[HeatCell]:
    cells = grouped(complete(rows), lambda row: (row.scaffold, row.model))
    return [
        HeatCell(
            scaffold=scaffold,
            model=model,
            games=len(done),
            players=sorted({r.players for r in done}),
            mean=float(np.mean([r.fireworks_score or 0 for r in done])),
        )
        for (scaffold, model), done in sorted(cells.items())
    ]
