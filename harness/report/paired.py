"""Paired comparisons between groups: games of the same deal (seed set, seed, player count) compared seed by seed.

Only complete games count, and only deals that both groups played. When a group played a deal more than once
(several runs in one group), the mean of its scores on that deal is used, and the comparison says how often.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from itertools import combinations

import numpy as np
from pydantic import BaseModel, ConfigDict

from harness.report.load import GameRow
from harness.report.stats import PairedStats, paired_stats

Deal = tuple[str, int, int]  # seed set, seed, players


class PairedComparison(BaseModel):
    model_config = ConfigDict(frozen=True)

    a: str
    b: str
    fireworks: PairedStats  # the main score: differences are A - B
    engine: PairedStats  # 0 after three strikes
    players: list[int]  # player counts among the pairs
    repeated_deals: int  # deals that A or B played more than once (their mean is used)


class PairedSection(BaseModel):
    model_config = ConfigDict(frozen=True)

    comparisons: list[PairedComparison]
    without_common_deals: list[tuple[str, str]]  # group pairs that share no complete deal


def _scores_by_deal(rows: Sequence[GameRow]) -> dict[str, dict[Deal, list[GameRow]]]:
    table: dict[str, dict[Deal, list[GameRow]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if row.status == "complete":
            table[row.group][(row.seed_set, row.seed, row.players)].append(row)
    return table


def _deal_means(games: dict[Deal, list[GameRow]], deals: list[Deal], field: str) -> list[float]:
    return [float(np.mean([getattr(r, field) for r in games[deal]])) for deal in deals]


def compare_groups(rows: Sequence[GameRow]) -> PairedSection:
    table = _scores_by_deal(rows)
    comparisons = []
    disjoint = []
    for a, b in combinations(sorted(table), 2):
        deals = sorted(set(table[a]) & set(table[b]))
        if not deals:
            disjoint.append((a, b))
            continue
        comparisons.append(
            PairedComparison(
                a=a,
                b=b,
                fireworks=paired_stats(
                    _deal_means(table[a], deals, "fireworks_score"),
                    _deal_means(table[b], deals, "fireworks_score"),
                ),
                engine=paired_stats(
                    _deal_means(table[a], deals, "engine_score"),
                    _deal_means(table[b], deals, "engine_score"),
                ),
                players=sorted({d[2] for d in deals}),
                repeated_deals=sum(len(table[a][d]) > 1 or len(table[b][d]) > 1 for d in deals),
            )
        )
    return PairedSection(comparisons=comparisons, without_common_deals=disjoint)
