"""Cross-play: a matrix of one seat's player (rows) against the player of every other seat (columns), the
paper's design (Section 6.1).

A player is a seat's label (model:scaffold, and its own k). A complete game of two players, one of them in a
single seat, counts in that cell (in both with two seats); self-play games of the players met, at the player
counts met, fill the diagonal; other line-ups are counted and left out.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from harness.report.rows import GameRow
from harness.report.stats import average, estimate


class CrossCell(BaseModel):
    model_config = ConfigDict(frozen=True)

    one: str  # the player of the single seat
    rest: str  # the player of every other seat (the same as `one` on the diagonal: self-play)
    players: int | None  # player count; None: pooled over player counts
    games: int
    mean: float | None  # fireworks at the end
    se: float | None
    engine_mean: float | None  # 0 after three strikes


class CrossPlay(BaseModel):
    model_config = ConfigDict(frozen=True)

    players: list[str]  # the matrix's rows and columns
    pooled: list[CrossCell]  # one per filled cell, player counts pooled
    by_players: list[CrossCell]  # one per filled cell and player count
    other_lineups: int  # complete mixed games that fit no cell


def _cells(row: GameRow) -> list[tuple[str, str]]:
    seats = Counter(row.seat_players)
    if len(seats) == 1:
        (player,) = seats
        return [(player, player)]
    if len(seats) != 2:
        return []
    (a, count_a), (b, count_b) = sorted(seats.items())
    cells = []
    if count_a == 1:
        cells.append((a, b))
    if count_b == 1:
        cells.append((b, a))
    return cells


def _cell(one: str, rest: str, players: int | None, games: Sequence[GameRow]) -> CrossCell:
    fireworks = estimate([g.fireworks_score or 0 for g in games])
    return CrossCell(
        one=one,
        rest=rest,
        players=players,
        games=fireworks.n,
        mean=fireworks.mean,
        se=fireworks.se,
        engine_mean=average([g.engine_score or 0 for g in games]),
    )


def crossplay(rows: Sequence[GameRow]) -> CrossPlay | None:
    done = [r for r in rows if r.status == "complete"]
    mixed = [r for r in done if len(set(r.seat_players)) > 1]
    if not mixed:
        return None
    cells: dict[tuple[str, str], list[GameRow]] = defaultdict(list)
    other = 0
    for row in mixed:
        placed = _cells(row)
        other += not placed
        for key in placed:
            cells[key].append(row)
    met = sorted({p for key in cells for p in key})
    counts = {r.players for r in mixed}
    for row in done:
        if len(set(row.seat_players)) == 1 and row.seat_players[0] in met and row.players in counts:
            cells[(row.seat_players[0], row.seat_players[0])].append(row)
    pooled = [_cell(one, rest, None, games) for (one, rest), games in sorted(cells.items())]
    per_count = []
    for (one, rest), games in sorted(cells.items()):
        for count in sorted({g.players for g in games}):
            per_count.append(_cell(one, rest, count, [g for g in games if g.players == count]))
    return CrossPlay(players=met, pooled=pooled, by_players=per_count, other_lineups=other)


def matrix(cross: CrossPlay) -> list[list[CrossCell | None]]:
    """The pooled cells as a grid: rows `one`, columns `rest`, both in `cross.players` order."""
    found = {(c.one, c.rest): c for c in cross.pooled}
    return [[found.get((one, rest)) for rest in cross.players] for one in cross.players]
