"""The built-in players' replies: what `local/<bot>` and Inspect's `hanabi/<bot>` answer, from the seat's
view.

A built-in player decides from the seat's view alone (harness.bots) and answers in the call's reply format, as
a well-behaved model would. The strategy asking such a seat writes this reply and sends it in the request
metadata, so the model layer (harness.models.local, harness.inspect.bots) knows nothing of bots, formats or
views.
"""

from __future__ import annotations

from typing import Any

from harness.bots import get_bot
from harness.formats import get_format
from harness.schema.cards import COLOR_NAMES
from harness.view.seat_view import SeatView


def bot_reply(bot: str, view: SeatView, reply_format: str) -> str:
    """The reply built-in player `bot` sends for this view: the text a well-behaved model would send in this reply
    format (harness.formats)."""
    decision = get_bot(bot).decide(view)
    action, reason = decision.move_index, decision.reason
    if reply_format == "report":
        return f"Recommended move: {action} {view.legal_moves[action].description}.\nAnalysis: {reason}"
    fmt = get_format(reply_format)
    extras: dict[str, Any] = {}
    if "deductions" in fmt.fields:
        extras = {"deductions": deductions_of(view)}
    elif "deduction" in fmt.fields:
        extras = {"deduction": paper_deduction_of(view)}
    return fmt.write(action, [(i, round(r, 3)) for i, r in enumerate(decision.ratings)], reason, extras)


def deductions_of(view: SeatView) -> dict[str, Any]:
    """A complete deduction block in the Mycroft contract, taken from the could-be sets in the view."""

    def cards(knowledge_list: list[Any]) -> list[dict[str, Any]]:
        return [
            {"card": i, "colors": list(k.could_be_colors), "ranks": list(k.could_be_ranks)}
            for i, k in enumerate(knowledge_list)
        ]

    block = {f"player_{view.seat}": cards([c.knowledge for c in view.own_hand])}
    for hand in view.others:
        block[f"player_{hand.player}"] = cards([c.knowledge for c in hand.cards])
    return block


def paper_deduction_of(view: SeatView) -> dict[str, dict[str, str]]:
    """The paper's Mycroft deduction block ("you", "player+1", ...; "card0", ...), in words, from the view's
    could-be sets: what a player was told directly is "is", the rest "could be"."""

    def text(k: Any) -> str:
        color = f"color is {COLOR_NAMES[k.color]}" if k.color else f"color could be {', '.join(k.could_be_colors)}"
        rank = f"rank is {k.rank}" if k.rank else f"rank could be {', '.join(map(str, k.could_be_ranks))}"
        return f"{color}; {rank}"

    block = {"you": {f"card{c.index}": text(c.knowledge) for c in view.own_hand}}
    for hand in view.others:
        block[f"player+{hand.offset}"] = {f"card{c.index}": text(c.knowledge) for c in hand.cards}
    return block
