"""A seat's player: turns a SeatView into a validated Decision by asking its model through its scaffold.

Bad replies (unparseable, a missing field, an illegal move) are answered with a message naming the problem and the
model is asked again, up to a limit; provider errors are retried inside ModelClient. When the limits run out the
move is not made: MoveInterrupted carries every attempt so the game stops with its log intact. No move is ever
invented, guessed or substituted for a model.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from harness.models import FatalModelError, ModelClient, ProviderGaveUp
from harness.records import Attempt, Call, Message, SeatConfig
from harness.replies import ParsedReply, ReplyProblem, parse_reply
from harness.scaffold import ScaffoldDef, render_memory_state, render_messages
from harness.tracking import score_deductions
from harness.view import SeatView


class Decision(BaseModel):
    model_config = ConfigDict(frozen=True)

    reply: ParsedReply
    calls: list[Call]
    memory: dict[str, Any] | None = None  # what the seat carries to its next turn (working-memory scaffolds)
    tracking: dict[str, Any] | None = None  # measured accuracy of the reply's deductions


class MoveInterrupted(RuntimeError):
    """The seat could not produce a valid move within the limits; the game must stop, resumable."""

    def __init__(self, reason: str, calls: list[Call]) -> None:
        super().__init__(reason)
        self.reason = reason
        self.calls = calls


class SeatAgent:
    def __init__(
        self, config: SeatConfig, scaffold: ScaffoldDef, client: ModelClient, reply_retries: int
    ) -> None:
        self.config = config
        self.scaffold = scaffold
        self.client = client
        self.reply_retries = reply_retries

    async def decide(self, view: SeatView, memory: dict[str, Any] | None = None) -> Decision:
        messages = render_messages(self.scaffold, view, memory)
        call, reply = await self._ask("player", messages, view)
        if not self.scaffold.context.working_memory:
            return Decision(reply=reply, calls=[call])
        deductions = reply.extras.get("deductions")
        notes = {
            "turn": view.turn,
            "state": render_memory_state(self.scaffold, view),
            "deductions": deductions,
            "move_ratings": [
                {"move": m.description, "rating": r}
                for m, r in zip(view.legal_moves, reply.ratings, strict=True)
            ],
            "action": view.legal_moves[reply.action].description,
            "reason": reply.reason,
        }
        tracking = score_deductions(view, deductions).model_dump()
        return Decision(reply=reply, calls=[call], memory=notes, tracking=tracking)

    async def _ask(self, role: str, messages: list[Message], view: SeatView) -> tuple[Call, ParsedReply]:
        """One logical call: ask, validate, re-ask with feedback on a bad reply."""
        attempts: list[Attempt] = []
        metadata = {
            "view": view.model_dump(mode="json"),
            "output": self.scaffold.output,
            "contract": self.scaffold.contract,
        }
        n_legal = len(view.legal_moves)
        bad_replies = 0
        while True:
            try:
                got = await self.client.call(messages, metadata, first_number=len(attempts) + 1)
            except ProviderGaveUp as exc:
                attempts.extend(exc.attempts)
                raise MoveInterrupted(str(exc), [self._call(role, attempts)]) from None
            except FatalModelError as exc:
                attempts.append(exc.attempt)
                raise MoveInterrupted(str(exc), [self._call(role, attempts)]) from None
            attempts.extend(got)
            answer = got[-1]
            try:
                parsed = parse_reply(
                    answer.reply or "", n_legal, self.scaffold.contract, self.scaffold.required_fields
                )
            except ReplyProblem as problem:
                attempts[-1] = answer.model_copy(update={"error_kind": problem.kind, "error": str(problem)})
                bad_replies += 1
                if bad_replies > self.reply_retries:
                    reason = (
                        f"{self.config.model} gave {bad_replies} invalid replies in a row "
                        f"(last: {problem.kind}: {problem})"
                    )
                    raise MoveInterrupted(reason, [self._call(role, attempts)]) from None
                messages = [
                    *messages,
                    Message(role="assistant", content=answer.reply or ""),
                    Message(role="user", content=str(problem)),
                ]
                continue
            return self._call(role, attempts), parsed

    def _call(self, role: str, attempts: list[Attempt]) -> Call:
        return Call(role=role, model=self.config.model, attempts=attempts)
