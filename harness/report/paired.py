"""Paired comparisons between groups, deal by deal (the same deck at the same player count), pooled over
player counts and per player count. Only complete games of deals both groups played count; repeats of a deal
are averaged into one score before pairing."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
from pydantic import BaseModel, ConfigDict

from harness.report.grouping import grouped
from harness.report.rows import GameRow
from harness.report.stats import PairedStats, paired_stats

Deal = tuple[str, int]  # the deck's digest (GameRow.deal), players


class PairedComparison(BaseModel):
    model_config = ConfigDict(frozen=True)

    a: str
    b: str
    fireworks: PairedStats  # the main score: differences are A - B
    engine: PairedStats  # 0 after three strikes
    players: list[int]  # player counts among the pairs
    repeated_deals: int  # deals that A or B played more than once (their mean is used)
    games_a: int  # complete games of A on the paired deals (more than the pairs when deals were repeated)
    games_b: int
    unpaired_a: int  # deals A completed and B did not: left out of the comparison
    unpaired_b: int  # deals B completed and A did not


class PlayersComparison(PairedComparison):
    """The same comparison restricted to the deals of one player count."""

    player_count: int


class PairedSection(BaseModel):
    model_config = ConfigDict(frozen=True)

    comparisons: list[PairedComparison]  # pooled over player counts
    by_players: list[PlayersComparison]  # one per pair of groups and player count they share
    without_common_deals: list[tuple[str, str]]  # group pairs that share no complete deal


def _deal_means(games: dict[Deal, list[GameRow]], deals: list[Deal], field: str) -> list[float]:
    return [float(np.mean([getattr(r, field) for r in games[deal]])) for deal in deals]


def _compare(
    a: str, b: str, games_a: dict[Deal, list[GameRow]], games_b: dict[Deal, list[GameRow]], deals: list[Deal]
) -> dict[str, object]:
    counts = {d[1] for d in deals}  # the player counts compared: deals of others are no one's to pair
    return {
        "a": a,
        "b": b,
        **{
            name: paired_stats(_deal_means(games_a, deals, field), _deal_means(games_b, deals, field))
            for name, field in (("fireworks", "fireworks_score"), ("engine", "engine_score"))
        },
        "players": sorted(counts),
        "repeated_deals": sum(len(games_a[d]) > 1 or len(games_b[d]) > 1 for d in deals),
        "games_a": sum(len(games_a[d]) for d in deals),
        "games_b": sum(len(games_b[d]) for d in deals),
        "unpaired_a": sum(d not in games_b for d in games_a if d[1] in counts),
        "unpaired_b": sum(d not in games_a for d in games_b if d[1] in counts),
    }


def compare_groups(rows: Sequence[GameRow]) -> PairedSection:
    by_group = grouped((row for row in rows if row.status == "complete"), lambda row: row.group)
    table = {group: grouped(games, lambda row: (row.deal, row.players)) for group, games in by_group.items()}
    comparisons = []
    per_count = []
    disjoint = []
    for a, b in combinations(sorted(table), 2):
        deals = sorted(set(table[a]) & set(table[b]))
        if not deals:
            disjoint.append((a, b))
            continue
        comparisons.append(PairedComparison.model_validate(_compare(a, b, table[a], table[b], deals)))
        for count, mine in sorted(grouped(deals, lambda deal: deal[1]).items()):
            per_count.append(
                PlayersComparison.model_validate(
                    {**_compare(a, b, table[a], table[b], mine), "player_count": count}
                )
            )
    return PairedSection(comparisons=comparisons, by_players=per_count, without_common_deals=disjoint)
