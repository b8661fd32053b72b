"""Preference pairs for DPO and reward models: per decided move, replies in the deciding call's format
choosing the best-rated move and one rated at least the margin lower, alike but for the move (and reason)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from harness.export.datasets import accepted, decision_columns
from harness.export.rewards import preference_gap
from harness.export.rows import DEFAULT_PAIRS_PER_MOVE, ChatMessage, PreferenceRow
from harness.export.source import ExportGame
from harness.schema.errors import Refused
from harness.schema.records import MoveRecord
from harness.strategies.definition import CallDef
from harness.strategies.scaffold import load_scaffold


def within_budget(rows: list[PreferenceRow], budget: int | None) -> tuple[list[PreferenceRow], int]:
    """A game's rows that fit in `budget` bytes of JSONL (all of them when they do), in their original order, and
    how many were left out: moves' first pairs (and repair pairs) before further pairs of a move, each by largest
    rating gap, earlier turns first on a tie."""
    sizes = [len(row.model_dump_json().encode("utf-8")) + 1 for row in rows]
    if budget is None or sum(sizes) <= budget:
        return rows, 0
    keep: set[int] = set()
    used = 0
    # First every move's main pair (its first rating pair, and repair pairs), largest gap first; then
    # further pairs.
    for i in sorted(range(len(rows)), key=lambda i: (rows[i].pair_index > 0, -rows[i].rating_gap, rows[i].turn, i)):
        if used + sizes[i] <= budget:
            keep.add(i)
            used += sizes[i]
    return [row for i, row in enumerate(rows) if i in keep], len(rows) - len(keep)
REASON = "I choose {description}."  # the reason both sides of a pair give: it names the move, nothing more
_TOLERANCE = 1e-9  # ratings are decimals read into floats: 0.97 - 0.47 must count as a gap of 0.5


def best_move(ratings: list[float | None], played: int) -> int | None:
    """The best-rated move; on a tie, the move played if it is among the best, else the lowest index."""
    rated = [r for r in ratings if r is not None]
    if not rated:
        return None
    top = max(rated)
    best = [i for i, r in enumerate(ratings) if r == top]
    return played if played in best else best[0]


def pairs(
    ratings: list[float | None], played: int, margin: float, per_move: int | None = DEFAULT_PAIRS_PER_MOVE
) -> list[tuple[int, int]]:
    """(best, worse): the best move against those `margin` lower, worst first; `per_move` (None: all)."""
    best = best_move(ratings, played)
    if best is None:
        return []
    top = ratings[best]
    assert top is not None
    worse = sorted(
        (r, i) for i, r in enumerate(ratings) if r is not None and i != best and top - r >= margin - _TOLERANCE
    )
    chosen = worse if per_move is None else worse[:per_move]
    return [(best, i) for _, i in chosen]


def deciding_call(scaffold_name: str) -> CallDef:
    """The definition of the call that chooses a scaffold's move: its decider, or its own single call."""
    try:
        scaffold = load_scaffold(scaffold_name)
    except Refused:
        raise Refused(
            f"scaffold {scaffold_name!r} of the logged games is not defined in scaffolds/; preference replies "
            "need its output format, so export from a checkout that has it, or leave its seats out with --scaffold"
        ) from None
    return scaffold.decider or scaffold.base


def reply_text(call: CallDef, record: MoveRecord, index: int) -> str:
    """A well-formed reply in the reply format of `call` (harness.formats) that chooses legal move `index`."""
    reason = REASON.format(description=record.legal_moves[index])
    rated = [(i, r) for i, r in enumerate(record.ratings) if r is not None]
    extras: dict[str, Any] = {}
    if call.contract == "memory":
        deductions = (record.memory or {}).get("deductions")
        if "deduction" in call.reply_format.fields:  # the paper's Mycroft: the block is optional, kept as given
            if deductions is not None:
                extras["deduction"] = deductions
        elif deductions is None:
            raise Refused(
                f"turn {record.turn} of a {record.scaffold} seat has no logged deductions; the log is damaged"
            )
        else:
            extras["deductions"] = deductions
    return call.reply_format.write(index, rated, reason, extras)


def repair_rows(game: ExportGame, record: MoveRecord) -> Iterator[PreferenceRow]:
    """A pair per rejected reply of the deciding call (not a cut one): the accepted reply chosen over it."""
    call, columns = decision_columns(game, record)
    final = accepted(game, record, call)
    played = record.ratings[record.move_index]
    for attempt in call.attempts[:-1]:
        if attempt.reply is None:
            continue  # a provider error: no reply to prefer against
        if attempt.cut:
            continue  # the log keeps only the start of this long reply: no longer the model's words to train on
        yield PreferenceRow(
            **columns,
            chosen=[ChatMessage(role="assistant", content=final.reply or "")],
            rejected=[ChatMessage(role="assistant", content=attempt.reply)],
            chosen_move_index=record.move_index,
            chosen_move=record.legal_moves[record.move_index],
            chosen_rating=0.0 if played is None else played,
            rejected_move_index=-1,
            rejected_move="",
            rejected_rating=0.0,
            rating_gap=0.0,
            played_move_index=record.move_index,
            pair_index=0,
            pair_kind="repair",
            rejected_error=attempt.error_kind or "",
        )


def preference_rows(
    game: ExportGame,
    moves: list[MoveRecord],
    margin: float,
    per_move: int | None = DEFAULT_PAIRS_PER_MOVE,
    repair: bool = False,
) -> Iterator[PreferenceRow]:
    for record in game.selected(moves):
        if game.header.seats[record.seat].human:  # a person's move: no prompt, no ratings
            continue
        if repair:
            yield from repair_rows(game, record)
        found = pairs(record.ratings, record.move_index, margin, per_move)
        if not found:
            continue
        reply_format = deciding_call(record.scaffold)
        columns = decision_columns(game, record)[1]
        try:
            texts = {i: reply_text(reply_format, record, i) for pair in found for i in pair}
        except Refused as exc:
            raise Refused(f"{game.run_id}/{game.header.game_id}: {exc}") from None
        for pair_index, (best, worse) in enumerate(found):
            chosen_rating, rejected_rating = record.ratings[best], record.ratings[worse]
            assert chosen_rating is not None and rejected_rating is not None
            yield PreferenceRow(
                **columns,
                chosen=[ChatMessage(role="assistant", content=texts[best])],
                rejected=[ChatMessage(role="assistant", content=texts[worse])],
                chosen_move_index=best,
                chosen_move=record.legal_moves[best],
                chosen_rating=chosen_rating,
                rejected_move_index=worse,
                rejected_move=record.legal_moves[worse],
                rejected_rating=rejected_rating,
                rating_gap=preference_gap(record.ratings, best, worse),
                played_move_index=record.move_index,
                pair_index=pair_index,
                pair_kind="ratings",
                rejected_error="",
            )
