"""What marks a move worth a look, read from the log alone: strikes, re-asked moves, and the regret of a choice
against the engine's move values (`hanabi-eval values`).

A strike is a move after which the team has fewer lives (a play that did not score). A re-asked move is one with
more than one attempt in any of its calls: an invalid reply re-asked with feedback, or a provider error retried.
Regret is the best legal move's engine value minus the chosen move's, in points.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.engine.game import MAX_LIFE_TOKENS
from harness.schema.records import MoveRecord
from harness.schema.value_records import DecisionValueRecord, MoveValueRecord, ValuesUnreadable, aligned


def strike_turns(moves: Sequence[MoveRecord]) -> list[int]:
    lives = MAX_LIFE_TOKENS
    turns = []
    for record in moves:
        if record.life_tokens_after < lives:
            turns.append(record.turn)
        lives = record.life_tokens_after
    return turns


def reasked(record: MoveRecord) -> bool:
    return any(len(call.attempts) > 1 for call in record.calls)


def reasked_turns(moves: Sequence[MoveRecord]) -> list[int]:
    return [record.turn for record in moves if reasked(record)]


def aligned_values(record: MoveRecord, values: DecisionValueRecord | None) -> list[MoveValueRecord] | None:
    """The decision's engine values in the order of its logged legal moves, or None when it has none (or they do
    not describe this decision: the report names such a values file as unreadable)."""
    if values is None:
        return None
    try:
        return aligned(values, record.legal_moves, record.move_index, "")
    except ValuesUnreadable:
        return None


def regret(record: MoveRecord, values: DecisionValueRecord | None) -> float | None:
    moves = aligned_values(record, values)
    if not moves:
        return None
    return max(m.value for m in moves) - moves[record.move_index].value


def regrets(moves: Sequence[MoveRecord], values: dict[int, DecisionValueRecord]) -> dict[int, float]:
    """Regret by turn, for the valued decisions."""
    return {r.turn: value for r in moves if (value := regret(r, values.get(r.turn))) is not None}
