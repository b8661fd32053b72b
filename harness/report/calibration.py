"""Calibration: a model's own move ratings and choices against the engine's move values (`values`).

Per valued decision: the Spearman correlation of the reply's ratings with the values over the moves it rated
(none when fewer than two were rated, or their ratings or values are all equal), the regret of the chosen
move, and whether it was one of the best. Per group and player count: their means (harness/report/stats.py
estimate).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict
from scipy import stats as scipy_stats

from harness.report.grouping import grouped
from harness.report.rows import GameRow
from harness.report.stats import Estimate, estimate
from harness.schema.records import MoveRecord
from harness.schema.value_records import DecisionValueRecord, aligned

NoCorrelation = Literal["unrated", "tied"]


class DecisionCalibration(BaseModel):
    """One valued decision: the model's ratings against the engine values, and the regret of its choice."""

    model_config = ConfigDict(frozen=True)

    run: str
    run_id: str
    game_id: str
    group: str
    players: int
    turn: int
    seat: int
    rated_moves: int  # legal moves the reply rated (validly)
    spearman: float | None  # over the rated moves; None: see no_correlation
    no_correlation: NoCorrelation | None  # "unrated": fewer than 2 moves rated; "tied": ratings or values all equal
    chosen_value: float
    best_value: float
    regret: float  # best_value - chosen_value
    chose_best: bool  # the chosen move's value equals the best value
    rollouts: int
    base_seed: int
    bot: str


class GroupCalibration(BaseModel):
    """One group at one player count. `valued_games` 0: no values, every mean None."""

    model_config = ConfigDict(frozen=True)

    group: str
    players: int
    complete_games: int
    valued_games: int  # complete games with at least one valued decision
    not_complete_games: int  # interrupted or unfinished: never valued
    decisions: int  # valued decisions
    unvalued_decisions: int  # decisions of valued games that have no values (e.g. before --from-turn)
    correlated: int  # decisions with a rank correlation
    skipped_unrated: int  # valued decisions with fewer than 2 rated moves
    skipped_tied: int  # valued decisions whose rated moves' ratings or values are all equal
    spearman: Estimate  # over the decisions with a rank correlation
    regret: Estimate
    best_share: Estimate  # share of decisions whose chosen move was one of the best
    rollouts: list[int]  # the values' rollout counts (one, unless runs were valued differently)
    base_seeds: list[int]
    bots: list[str]


def rank_correlation(ratings: Sequence[float | None], values: Sequence[float]) -> tuple[float | None, int]:
    """Spearman's rho between the given ratings and the values of the same moves, and how many moves were rated;
    rho is None with fewer than 2 rated moves or when either side is constant over them."""
    pairs = [(r, v) for r, v in zip(ratings, values, strict=True) if r is not None]
    if len(pairs) < 2:
        return None, len(pairs)
    rated, valued = zip(*pairs, strict=True)
    if len(set(rated)) < 2 or len(set(valued)) < 2:
        return None, len(pairs)
    return float(scipy_stats.spearmanr(rated, valued).statistic), len(pairs)


def decision(game: GameRow, record: MoveRecord, values: DecisionValueRecord) -> DecisionCalibration:
    moves = aligned(values, record.legal_moves, record.move_index, game.game_id)
    worth = [m.value for m in moves]
    rho, rated = rank_correlation(record.ratings, worth)
    best = max(worth)
    chosen = worth[record.move_index]
    return DecisionCalibration(
        run=game.run,
        run_id=game.run_id,
        game_id=game.game_id,
        group=game.group,
        players=game.players,
        turn=record.turn,
        seat=record.seat,
        rated_moves=rated,
        spearman=rho,
        no_correlation=None if rho is not None else "unrated" if rated < 2 else "tied",
        chosen_value=chosen,
        best_value=best,
        regret=best - chosen,
        chose_best=chosen == best,
        rollouts=values.rollouts,
        base_seed=values.base_seed,
        bot=values.bot,
    )


def calibration(
    games: Sequence[GameRow], valued: Sequence[GameRow], judged: Sequence[DecisionCalibration]
) -> list[GroupCalibration]:
    """Per group and player count (every group with games), from the games with values and their valued decisions
    `judged`."""
    by_key = grouped(judged, lambda item: (item.group, item.players))
    valued_by_key = grouped(valued, lambda game: (game.group, game.players))
    table = []
    for key, members in sorted(grouped(games, lambda game: (game.group, game.players)).items()):
        complete = [g for g in members if g.status == "complete"]
        with_values, found = valued_by_key[key], by_key[key]
        correlated = [d.spearman for d in found if d.spearman is not None]
        table.append(
            GroupCalibration(
                group=key[0],
                players=key[1],
                complete_games=len(complete),
                valued_games=len(with_values),
                not_complete_games=len(members) - len(complete),
                decisions=len(found),
                unvalued_decisions=sum(g.moves for g in with_values) - len(found),
                correlated=len(correlated),
                skipped_unrated=sum(d.no_correlation == "unrated" for d in found),
                skipped_tied=sum(d.no_correlation == "tied" for d in found),
                spearman=estimate(correlated),
                regret=estimate([d.regret for d in found]),
                best_share=estimate([float(d.chose_best) for d in found]),
                rollouts=sorted({d.rollouts for d in found}),
                base_seeds=sorted({d.base_seed for d in found}),
                bots=sorted({d.bot for d in found}),
            )
        )
    return table


def flat_calibration(table: Sequence[GroupCalibration]) -> list[dict[str, object]]:
    """For CSV/JSON: every figure as `<name>_n`, `_mean`, `_se`, `_ci_low`, `_ci_high`, the same columns in every row
    (a group without values has empty cells, never zeros)."""
    flat = []
    for row in table:
        record: dict[str, object] = row.model_dump(exclude={"spearman", "regret", "best_share"})
        for name in ("spearman", "regret", "best_share"):
            figure: Estimate = getattr(row, name)
            record[f"{name}_n"] = figure.n
            record[f"{name}_mean"] = figure.mean
            record[f"{name}_se"] = figure.se
            record[f"{name}_ci_low"] = figure.ci.low if figure.ci else None
            record[f"{name}_ci_high"] = figure.ci.high if figure.ci else None
        flat.append(record)
    return flat
