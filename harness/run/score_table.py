"""What a run prints at its end: the score table (one row per player count) and a summary of the whole
session.

Counts cover every game of the run, whichever session played it, and every attempt ever made; error kinds are
an open set, counted by name from each game's facts (GameFacts). A missing figure is "-", never nan.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence

from pydantic import BaseModel
from rich.table import Table

from harness.schema.log_file import GameFacts
from harness.schema.moves import EndReason
from harness.schema.records import PROVIDER_ERROR_KINDS, GamePlan, GameResult


def _by_players(results: list[tuple[GamePlan, GameResult]]) -> list[tuple[int, list[GameResult]]]:
    by_players: dict[int, list[GameResult]] = defaultdict(list)
    for plan, result in results:
        by_players[plan.players].append(result)
    return sorted(by_players.items())


def score_table(results: list[tuple[GamePlan, GameResult]]) -> Table:
    table = Table(
        title="Scores per player count",
        caption="mean: fireworks at the end (the paper's score); engine: 0 after three strikes; "
        "struck out: all lives lost; interrupted: no usable reply within the limits, resumable",
    )
    for column in ("players", "games", "done", "mean", "s.e.", "engine", "perfect", "struck out"):
        table.add_column(column, justify="right")
    table.add_column("interrupted", justify="right", style="red")
    for players, games in _by_players(results):
        done = [r for r in games if r.status == "complete"]
        scores = [r.fireworks_score for r in done]
        mean = sum(scores) / len(scores) if scores else math.nan
        spread = _standard_error(scores)
        engine = sum(r.engine_score for r in done) / len(done) if done else math.nan
        table.add_row(
            str(players),
            str(len(games)),
            str(len(done)),
            figure(mean),
            figure(spread),
            figure(engine),
            str(sum(1 for s in scores if s == 25)),
            str(sum(1 for r in done if r.end_reason == EndReason.LIVES_LOST)),
            str(len(games) - len(done)),
        )
    return table


def figure(value: float) -> str:
    """A mean or spread for a table: two decimals, or "-" where there is none (no games, one game)."""
    return "-" if not math.isfinite(value) else f"{value:.2f}"


def _standard_error(values: list[int]) -> float:
    if len(values) < 2:
        return math.nan
    mean = sum(values) / len(values)
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return math.sqrt(variance / len(values))


def sweep_table(runs: list[tuple[object, list[tuple[GamePlan, GameResult]]]]) -> Table:
    """One row per run and player count: the grid at a glance."""
    table = Table(title="Sweep scores (fireworks at the end)", caption="not done: interrupted or unfinished, resumable")
    for column in ("model", "scaffold", "players", "games", "done", "mean", "s.e.", "not done"):
        table.add_column(column, justify="left" if column in ("model", "scaffold") else "right")
    for config, results in runs:
        seats = config.seats  # type: ignore[attr-defined]
        model = seats[0].model if len(seats) == 1 else " + ".join(s.model for s in seats)
        scaffold = "/".join(dict.fromkeys(s.scaffold for s in seats))
        for players, games in _by_players(results):
            scores = [r.fireworks_score for r in games if r.status == "complete"]
            mean = sum(scores) / len(scores) if scores else math.nan
            table.add_row(
                model,
                scaffold,
                str(players),
                str(len(games)),
                str(len(scores)),
                figure(mean),
                figure(_standard_error(scores)),
                str(len(games) - len(scores)),
            )
    return table


class RunSummary(BaseModel):
    """The end-of-run figures over every game of a run (or of every run of a sweep)."""

    games: int
    complete: int
    interrupted: int
    unfinished: int  # neither: stopped mid-game (no result line yet)
    mean_score: float | None
    standard_error: float | None
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None  # over the priced games; None when no game's cost is known
    unpriced_games: int  # games of a model LiteLLM has no price for: their cost is not in cost_usd
    cached_tokens: int = 0  # prompt tokens read from a prompt cache
    cache_write_tokens: int = 0  # prompt tokens written to one
    cache_saving_usd: float | None = None  # what prompt caching saved, where a price was known
    wall_s: float
    invalid_replies: dict[str, int]  # error kind -> attempts, over every move of every game
    provider_errors: dict[str, int]

    @property
    def cached_share(self) -> float | None:
        """The share of the prompt tokens read from a prompt cache; None without prompt tokens."""
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else None


def summarize(games: Sequence[tuple[GameResult | None, GameFacts | None]], wall_s: float) -> RunSummary:
    """Sum the results (None: a game without a result yet) and count the rejected attempts of each game's facts (None:
    a log that cannot be read) by kind."""
    results = [r for r, _ in games if r is not None]
    complete = [r for r in results if r.status == "complete"]
    scores = [r.fireworks_score for r in complete]
    kinds: Counter[str] = Counter()
    for _, facts in games:
        kinds.update(facts.error_kinds if facts is not None else {})
    spread = _standard_error(scores)
    costs = [r.cost_usd for r in results if r.cost_usd is not None]
    savings = [r.cache_saving_usd for r in results if r.cache_saving_usd is not None]
    return RunSummary(
        games=len(games),
        complete=len(complete),
        interrupted=len(results) - len(complete),
        unfinished=len(games) - len(results),
        mean_score=sum(scores) / len(scores) if scores else None,
        standard_error=spread if math.isfinite(spread) else None,
        prompt_tokens=sum(r.usage.prompt_tokens for r in results),
        completion_tokens=sum(r.usage.completion_tokens for r in results),
        cost_usd=sum(costs) if costs else None,
        unpriced_games=sum(1 for r in results if r.cost_usd is None and r.calls),
        cached_tokens=sum(r.usage.cached_tokens for r in results),
        cache_write_tokens=sum(r.usage.cache_write_tokens for r in results),
        cache_saving_usd=sum(savings) if savings else None,
        wall_s=wall_s,
        invalid_replies={k: n for k, n in sorted(kinds.items()) if k not in PROVIDER_ERROR_KINDS},
        provider_errors={k: n for k, n in sorted(kinds.items()) if k in PROVIDER_ERROR_KINDS},
    )


def summary_table(summary: RunSummary) -> Table:
    table = Table(title="Summary", show_header=False, title_justify="left")
    table.add_column("what")
    table.add_column("figure")
    games = f"{summary.games}: {summary.complete} complete, {summary.interrupted} interrupted"
    if summary.unfinished:
        games += f", {summary.unfinished} not finished"
    table.add_row("games", games)
    mean = "-" if summary.mean_score is None else f"{summary.mean_score:.2f}"
    if summary.standard_error is not None:
        mean += f" ± {summary.standard_error:.2f} (s.e.)"
    table.add_row("mean score", f"{mean} over complete games")
    table.add_row(
        "tokens",
        f"{summary.prompt_tokens + summary.completion_tokens:,} "
        f"({summary.prompt_tokens:,} prompt, {summary.completion_tokens:,} completion)",
    )
    table.add_row("cost", cost_line(summary.cost_usd, summary.unpriced_games))
    if summary.cached_tokens or summary.cache_write_tokens:
        table.add_row("prompt cache", cache_line(summary))
    table.add_row("wall time", _duration(summary.wall_s) + " this session")
    table.add_row("invalid replies", _by_kind(summary.invalid_replies))
    table.add_row("provider errors", _by_kind(summary.provider_errors))
    return table


def cache_line(summary: RunSummary) -> str:
    """What prompt caching did: the share of prompt tokens read from the cache, the tokens written, what it saved."""
    share = summary.cached_share or 0.0
    line = (
        f"{share:.0%} of prompt tokens read from the cache ({summary.cached_tokens:,}), "
        f"{summary.cache_write_tokens:,} written"
    )
    if summary.cache_saving_usd is not None:
        line += f"; saved ${summary.cache_saving_usd:.4f}"
    return line


def cost_line(cost_usd: float | None, unpriced_games: int) -> str:
    """A total cost as the report words it: "unpriced" when no cost is known, never $0 for an unknown price."""
    games = f"{unpriced_games} game{'' if unpriced_games == 1 else 's'} of models LiteLLM has no price for"
    if cost_usd is None:
        return f"unpriced ({games})" if unpriced_games else "-"
    if unpriced_games:
        return f"${cost_usd:.4f} (without {games})"
    return f"${cost_usd:.4f}"


def _by_kind(counts: dict[str, int]) -> str:
    if not counts:
        return "none"
    total = sum(counts.values())
    return f"{total}: " + ", ".join(
        f"{kind} {n}" for kind, n in sorted(counts.items(), key=lambda kv: -kv[1])
    )


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m {secs:02d}s" if hours else f"{minutes}m {secs:02d}s"
