"""Best-of-K: score against k, the number of samples per move (the paper's Appendix E.1, Figure 20).

One curve per model and base prompt (a best-of-k scaffold sits on the curve of the single-call scaffold with
its prompt), over the complete games whose seats share model, prompt and k; only curves with two or more
values of k.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from functools import cache

from pydantic import BaseModel, ConfigDict

from harness.report.rows import GameRow
from harness.report.stats import Interval, estimate
from harness.schema.errors import Refused
from harness.strategies.definition import ScaffoldDef
from harness.strategies.scaffold import load_scaffold, scaffold_names


class KPoint(BaseModel):
    model_config = ConfigDict(frozen=True)

    curve: str  # model · base prompt
    k: int
    scaffolds: list[str]
    players: list[int]
    games: int
    mean: float | None
    se: float | None
    ci: Interval | None


@cache
def base_prompt(scaffold: str) -> str:
    """The single-call scaffold whose prompt a best-of-k scaffold samples; the scaffold itself otherwise."""
    try:
        definition = load_scaffold(scaffold)
    except Refused:
        return scaffold
    if definition.strategy != "best_of_k":
        return scaffold

    def prompt(found: ScaffoldDef) -> tuple[object, ...]:
        return found.system_template, found.user_template, found.state_template, found.context

    for name in scaffold_names():
        other = load_scaffold(name)
        if other.strategy == "single" and prompt(other) == prompt(definition):
            return name
    return scaffold


def best_of_k(rows: Sequence[GameRow]) -> list[KPoint]:
    games: dict[tuple[str, int], list[GameRow]] = defaultdict(list)
    for row in rows:
        if row.status != "complete" or row.k is None:
            continue
        models = set(row.model.split(" + "))
        prompts = {base_prompt(s.split(",")[0]) for s in row.scaffold.split(" + ")}
        if len(models) == 1 and len(prompts) == 1:
            games[(f"{models.pop()} · {prompts.pop()}", row.k)].append(row)
    varied = {curve for curve, _ in games if len({k for c, k in games if c == curve}) > 1}
    points = []
    for (curve, k), done in sorted(games.items()):
        if curve not in varied:
            continue
        mean = estimate([g.fireworks_score or 0 for g in done])
        points.append(
            KPoint(
                curve=curve,
                k=k,
                scaffolds=sorted({g.scaffold for g in done}),
                players=sorted({g.players for g in done}),
                games=mean.n,
                mean=mean.mean,
                se=mean.se,
                ci=mean.ci,
            )
        )
    return points
