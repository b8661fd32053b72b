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
from harness.scaffold import ScaffoldDef, render_messages
from harness.view import SeatView


class Decision(BaseModel):
    model_config = ConfigDict(frozen=True)

    reply: ParsedReply
    calls: list[Call]


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
        call = await self._ask("player", messages, view)
        return Decision(reply=call[1], calls=[call[0]])

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
