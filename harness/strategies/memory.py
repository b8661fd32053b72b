"""`memory`: the paper's Mycroft working memory. A single call whose prompt shows the seat's notes from its previous
turn; the reply's deductions, ratings, move and reason become the notes for the next one, and its deductions are
scored against the engine's could-be sets (the move's `tracking`)."""

from __future__ import annotations

from typing import Any

from harness.formats import ParsedReply
from harness.strategies.asking import Decision
from harness.strategies.definition import ScaffoldDef
from harness.strategies.registry import TurnContext, register
from harness.strategies.rendering import render_memory_state
from harness.strategies.single import Single
from harness.view.seat_view import SeatView
from harness.view.tracking_score import score_deductions


def keeps_notes(scaffold: ScaffoldDef) -> bool:
    """Whether a scaffold's seats carry working-memory notes from move to move (the memory strategy)."""
    return scaffold.strategy == Memory.name


@register
class Memory(Single):
    name = "memory"

    def check(self, scaffold: ScaffoldDef) -> str | None:
        if scaffold.contract != "memory" or not scaffold.memory_template:
            return 'a working-memory scaffold needs contract = "memory" and a memory_template'
        return super().check(scaffold)

    async def decide(self, view: SeatView, ctx: TurnContext) -> Decision:
        decision = await super().decide(view, ctx)
        notes, tracking = seat_notes(ctx.scaffold, view, decision.reply, decision.calls[-1].final.reply or "")
        return Decision(reply=decision.reply, calls=decision.calls, memory=notes, tracking=tracking)


def seat_notes(
    scaffold: ScaffoldDef, view: SeatView, reply: ParsedReply, text: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the seat carries to its next turn after its accepted reply `text`, and the measured accuracy of the
    reply's deductions (the move's `tracking`). The RL environments carry a seat's notes through this too."""
    deductions = reply.extras.get("deductions", reply.extras.get("deduction"))  # -plus / the paper's
    notes = {
        "turn": view.turn,
        "state": render_memory_state(scaffold, view),
        "deductions": deductions,
        "move_ratings": [
            {"move": m.description, "rating": r} for m, r in zip(view.legal_moves, reply.ratings, strict=True)
        ],
        "action": view.legal_moves[reply.action].description,
        "reason": reply.reason,
        "reply": text,  # the full reply, as the paper's Mycroft shows it next turn
    }
    return notes, score_deductions(view, deductions).model_dump()
