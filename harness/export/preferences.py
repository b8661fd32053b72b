"""Preference pairs from logged move ratings, in the prompt/chosen/rejected form DPO and reward-model trainers read.

For each decided move, the best-rated legal move is paired with every legal move the model rated lower by at least
the margin. Both sides are replies in the output format of the call that chose the move (the scaffold's own call,
or the decider of a multi-call scaffold) that differ only in the chosen move: they carry the model's logged ratings
(and, for working-memory scaffolds, its logged deductions), a fixed one-sentence reason naming the move (not the
model's reasoning), and the move number. Each side parses, with the harness's own reply parser and that call's
required fields, to the move it names.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from harness.export.datasets import ExportDataError, chat, deciding_call_of, meta
from harness.export.rows import ChatMessage, PreferenceRow
from harness.export.source import ExportGame
from harness.records import MoveRecord
from harness.scaffold import CallDef, ScaffoldError, load_scaffold

DEFAULT_MARGIN = 0.5
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


def pairs(ratings: list[float | None], played: int, margin: float) -> list[tuple[int, int]]:
    """(best, worse) index pairs: the best-rated move against each move rated at least `margin` lower."""
    best = best_move(ratings, played)
    if best is None:
        return []
    top = ratings[best]
    assert top is not None
    return [
        (best, i)
        for i, r in enumerate(ratings)
        if r is not None and i != best and top - r >= margin - _TOLERANCE
    ]


def deciding_call(scaffold_name: str) -> CallDef:
    """The definition of the call that chooses a scaffold's move: its decider, or its own single call."""
    try:
        scaffold = load_scaffold(scaffold_name)
    except ScaffoldError:
        raise ExportDataError(
            f"scaffold {scaffold_name!r} of the logged games is not defined in scaffolds/; preference replies "
            "need its output format, so export from a checkout that has it"
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
            raise ExportDataError(
                f"turn {record.turn} of a {record.scaffold} seat has no logged deductions; the log is damaged"
            )
        else:
            extras["deductions"] = deductions
    return call.reply_format.write(index, rated, reason, extras)


def preference_rows(game: ExportGame, margin: float) -> Iterator[PreferenceRow]:
    for record in game.selected_moves():
        found = pairs(record.ratings, record.move_index, margin)
        if not found:
            continue
        reply_format = deciding_call(record.scaffold)
        call = deciding_call_of(record)
        columns = meta(game, record, game.header.seats[record.seat].model, call.role)
        prompt = chat(call.attempts[0].messages)
        try:
            texts = {i: reply_text(reply_format, record, i) for pair in found for i in pair}
        except ExportDataError as exc:
            raise ExportDataError(f"{game.run_id}/{game.header.game_id}: {exc}") from None
        for best, worse in found:
            chosen_rating, rejected_rating = record.ratings[best], record.ratings[worse]
            assert chosen_rating is not None and rejected_rating is not None
            yield PreferenceRow(
                **columns,
                prompt=prompt,
                chosen=[ChatMessage(role="assistant", content=texts[best])],
                rejected=[ChatMessage(role="assistant", content=texts[worse])],
                chosen_move_index=best,
                chosen_move=record.legal_moves[best],
                chosen_rating=chosen_rating,
                rejected_move_index=worse,
                rejected_move=record.legal_moves[worse],
                rejected_rating=rejected_rating,
                rating_gap=chosen_rating - rejected_rating,
                played_move_index=record.move_index,
            )
