"""What the runs spent: tokens and cost per run, per group and overall, cost per game and per point.

Every attempt of every game counts. A game is priced when its cost is known; an unpriced one is never counted
as $0, and totals over a mix say how many games they leave out. Cost per point divides by the fireworks points
of the complete priced games.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from harness.report.grouping import grouped
from harness.report.rows import GameRow


class Spend(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str  # the run, the group, or "all runs"
    games: int  # every logged game
    complete: int
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    priced_games: int
    unpriced_games: int
    cost_usd: float | None  # over the priced games; None when no game is priced
    cost_per_game: float | None  # cost / priced games
    points: int  # fireworks points of the complete priced games
    cost_per_point: float | None
    mean_score: float | None  # mean fireworks score of the complete games, for the score-against-cost plot
    cached_tokens: int = 0  # prompt tokens read from a prompt cache
    cache_write_tokens: int = 0
    cache_saving_usd: float | None = None  # what prompt caching saved; None where no game recorded a saving

    @property
    def cached_share(self) -> float | None:
        """The share of the prompt tokens read from a prompt cache."""
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else None

    @property
    def pricing(self) -> str:
        """Whether the games had a price: priced, unpriced (no game had a cost) or partly priced."""
        if self.priced_games == 0:
            return "unpriced"
        return "priced" if self.unpriced_games == 0 else "partly priced"


def spend(name: str, rows: Sequence[GameRow]) -> Spend:
    priced = [r for r in rows if r.cost_usd is not None]
    cost = sum(r.cost_usd or 0.0 for r in priced) if priced else None
    points = sum(r.fireworks_score or 0 for r in priced if r.status == "complete")
    done = [r for r in rows if r.status == "complete"]
    savings = [r.cache_saving_usd for r in rows if r.cache_saving_usd is not None]
    return Spend(
        name=name,
        games=len(rows),
        complete=len(done),
        prompt_tokens=sum(r.prompt_tokens for r in rows),
        completion_tokens=sum(r.completion_tokens for r in rows),
        total_tokens=sum(r.total_tokens for r in rows),
        priced_games=len(priced),
        unpriced_games=len(rows) - len(priced),
        cost_usd=cost,
        cost_per_game=cost / len(priced) if cost is not None else None,
        points=points,
        cost_per_point=cost / points if cost is not None and points else None,
        mean_score=sum(r.fireworks_score or 0 for r in done) / len(done) if done else None,
        cached_tokens=sum(r.cached_tokens for r in rows),
        cache_write_tokens=sum(r.cache_write_tokens for r in rows),
        cache_saving_usd=sum(savings) if savings else None,
    )


class Spending(BaseModel):
    model_config = ConfigDict(frozen=True)

    runs: list[Spend]
    groups: list[Spend]
    total: Spend


def spending(rows: Sequence[GameRow]) -> Spending:
    by_run, by_group = grouped(rows, lambda row: row.run), grouped(rows, lambda row: row.group)
    return Spending(
        runs=[spend(name, by_run[name]) for name in sorted(by_run)],
        groups=[spend(name, by_group[name]) for name in sorted(by_group)],
        total=spend("all runs", rows),
    )
