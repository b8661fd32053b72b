"""What Inspect's transcript shows of a game: each turn is a span holding the turn's model calls (Inspect records
each generate with its prompt and reply), then one info event naming the move played and every attempt of every
call, rejected ones with their error kind and the feedback sent back. `inspect view` shows them in turn order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
from inspect_ai.log import transcript
from inspect_ai.util import span

from harness.models.budget import LimitReached
from harness.play.agent import SeatAgent
from harness.schema.records import Call
from harness.strategies.asking import Decision, Journal, MoveInterrupted, journal_calls
from harness.view.seat_view import SeatView

TEMPLATES = Path(__file__).with_name("templates")
SOURCE = "hanabi"
_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=False, keep_trailing_newline=True
)


def _cell(text: str | None) -> str:
    """Text fit for one Markdown table cell: one line, no pipes, at most 300 characters."""
    flat = " ".join((text or "").split()).replace("|", "\\|")
    return flat if len(flat) <= 300 else flat[:297] + "..."


def turn_summary(
    view: SeatView, player: str, calls: list[Call], decision: Decision | None, stopped: str
) -> str:
    """The turn as Markdown: the move played (or why none was) and a row per attempt."""
    rows: list[dict[str, Any]] = [
        {
            "role": call.role,
            "number": attempt.number,
            "error_kind": attempt.error_kind,
            "error": _cell(attempt.error),
            "finish_reason": attempt.finish_reason,
            "prompt_tokens": attempt.usage.prompt_tokens,
            "completion_tokens": attempt.usage.completion_tokens,
        }
        for call in calls
        for attempt in call.attempts
    ]
    move = view.legal_moves[decision.reply.action].description if decision is not None else None
    return _ENV.get_template("turn.md.j2").render(
        turn=view.turn,
        seat=view.seat,
        player=player,
        move=move,
        move_index=decision.reply.action if decision is not None else None,
        reason=_cell(decision.reply.reason) if decision is not None else "",
        stopped=_cell(stopped),
        rows=rows,
    )


class TracedSeatAgent(SeatAgent):
    """A seat's agent whose every turn is a span of Inspect's transcript, closed by a summary of the turn."""

    async def decide(
        self,
        view: SeatView,
        memory: dict[str, Any] | None = None,
        journal: Journal | None = None,
        cache_key: str | None = None,
    ) -> Decision:
        async with span(f"turn {view.turn} · P{view.seat}", type="hanabi-turn"):
            try:
                decision = await super().decide(view, memory, journal, cache_key)
            except MoveInterrupted as stop:
                self._summarize(view, stop.calls, None, stop.reason)
                raise
            except LimitReached as limit:  # an Inspect limit: the calls the move was answered, the last included
                answered = journal_calls(journal or [], self.config.model)
                self._summarize(view, answered, None, limit.stopped_line)
                raise
            self._summarize(view, decision.calls, decision, "")
            return decision

    def _summarize(self, view: SeatView, calls: list[Call], decision: Decision | None, stopped: str) -> None:
        transcript().info(turn_summary(view, self.config.label, calls, decision, stopped), source=SOURCE)
