"""Reliability over all games of a group, interrupted and unfinished ones included (no survivorship): games
that stopped, calls, attempts, retries and attempts per error kind, per move attempted (logged moves plus
moves that could not be made)."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from harness.report.grouping import grouped
from harness.report.rows import GameRow
from harness.report.stats import ratio
from harness.schema.records import PROVIDER_ERROR_KINDS


class KindCount(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: str
    provider: bool  # a provider error (rate limit, server error, timeout, connection), not an invalid reply
    attempts: int
    per_move: float | None


class GroupReliability(BaseModel):
    model_config = ConfigDict(frozen=True)

    group: str
    games: int
    complete: int
    interrupted: int
    unfinished: int
    interrupted_share: float | None  # interrupted / games
    moves_attempted: int
    calls: int
    attempts: int
    retries: int
    retries_per_move: float | None
    invalid_replies: int
    invalid_per_move: float | None
    provider_errors: int
    replies_cut: int  # rejected replies the logs keep only the start of (counted in their kinds all the same)
    kinds: list[KindCount]  # one per error kind of the whole report, in the table's column order


def error_kinds(rows: Sequence[GameRow]) -> list[str]:
    """Every error kind the logs hold: invalid-reply kinds first, then provider errors, each alphabetically."""
    kinds = {kind for row in rows for kind in row.error_kinds}
    return sorted(kinds, key=lambda kind: (kind in PROVIDER_ERROR_KINDS, kind))


def reliability(rows: Sequence[GameRow]) -> list[GroupReliability]:
    kinds = error_kinds(rows)
    by_group = grouped(rows, lambda row: row.group)
    table = []
    for group in sorted(by_group):
        games = by_group[group]
        moves = sum(g.moves + g.failed_moves for g in games)
        counts = {kind: sum(g.error_kinds.get(kind, 0) for g in games) for kind in kinds}
        retries = sum(g.retries for g in games)
        invalid = sum(g.invalid_replies for g in games)
        interrupted = sum(g.status == "interrupted" for g in games)
        table.append(
            GroupReliability(
                group=group,
                games=len(games),
                complete=sum(g.status == "complete" for g in games),
                interrupted=interrupted,
                unfinished=sum(g.status == "unfinished" for g in games),
                interrupted_share=ratio(interrupted, len(games)),
                moves_attempted=moves,
                calls=sum(g.calls for g in games),
                attempts=sum(g.attempts for g in games),
                retries=retries,
                retries_per_move=ratio(retries, moves),
                invalid_replies=invalid,
                invalid_per_move=ratio(invalid, moves),
                provider_errors=sum(g.provider_errors for g in games),
                replies_cut=sum(g.replies_cut for g in games),
                kinds=[
                    KindCount(
                        kind=kind,
                        provider=kind in PROVIDER_ERROR_KINDS,
                        attempts=counts[kind],
                        per_move=ratio(counts[kind], moves),
                    )
                    for kind in kinds
                ],
            )
        )
    return table


def flat_reliability(table: Sequence[GroupReliability]) -> list[dict[str, object]]:
    """For CSV/JSON: the kinds as columns `<kind>` (attempts) and `<kind>_per_move`."""
    flat = []
    for row in table:
        record: dict[str, object] = row.model_dump(exclude={"kinds"})
        for kind in row.kinds:
            record[kind.kind] = kind.attempts
            record[f"{kind.kind}_per_move"] = kind.per_move
        flat.append(record)
    return flat
