"""A seat's player: turns a SeatView into a validated Decision by asking its model through its scaffold.

Bad replies (unparseable, a missing field, an illegal move) are answered with a message naming the problem and the
model is asked again, up to a limit; provider errors are retried inside ModelClient. When the limits run out the
move is not made: MoveInterrupted carries every attempt so the game stops with its log intact. No move is ever
invented, guessed or substituted for a model.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, ConfigDict

from harness.models import FatalModelError, ModelClient, ProviderGaveUp
from harness.records import Attempt, Call, Message, SeatConfig
from harness.replies import ParsedReply, ReplyProblem, parse_reply
from harness.scaffold import CallDef, ScaffoldDef, render_call, render_memory_state
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
        scaffold = self.scaffold
        players = view.num_players
        first = [(c, render_call(scaffold, c, view, memory)) for c in scaffold.parallel_calls(players)]
        outcomes: list[Any]
        if len(first) == 1:  # awaited directly: gather's tasks would each wait a turn of a busy event loop
            try:
                outcomes = [await self._ask(*first[0], view)]
            except MoveInterrupted as stop:
                outcomes = [stop]
        else:
            outcomes = await asyncio.gather(
                *(self._ask(c, m, view) for c, m in first), return_exceptions=True
            )
        calls: list[Call] = []
        failure: MoveInterrupted | None = None
        for outcome in outcomes:
            if isinstance(outcome, MoveInterrupted):
                calls.extend(outcome.calls)
                failure = failure or outcome
            elif isinstance(outcome, BaseException):
                raise outcome
            else:
                calls.append(outcome[0])
        if failure is not None:
            raise MoveInterrupted(failure.reason, calls)
        answers = [o for o in outcomes if isinstance(o, tuple)]
        final = scaffold.final_call
        if final is None:
            (call, reply) = answers[0]
            assert isinstance(reply, ParsedReply)
            return self._with_memory(view, reply, calls)
        reports = [_report(view, call, reply) for call, reply in answers]
        sampled = None
        if scaffold.strategy == "best_of_k":  # the final agent chooses among the sampled moves only
            sampled = tuple(dict.fromkeys(r["action"] for r in reports))
        decider_messages = render_call(scaffold, final, view, memory, reports, sampled)
        try:
            call, reply = await self._ask(final, decider_messages, view, sampled)
        except MoveInterrupted as stop:
            raise MoveInterrupted(stop.reason, calls + stop.calls) from None
        assert isinstance(reply, ParsedReply)
        return Decision(reply=reply, calls=[*calls, call])

    def _with_memory(self, view: SeatView, reply: ParsedReply, calls: list[Call]) -> Decision:
        if not self.scaffold.context.working_memory:
            return Decision(reply=reply, calls=calls)
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
        return Decision(reply=reply, calls=calls, memory=notes, tracking=tracking)

    async def _ask(
        self, spec: CallDef, messages: list[Message], view: SeatView, allowed: tuple[int, ...] | None = None
    ) -> tuple[Call, ParsedReply | str]:
        """One logical call: ask, validate against the call's contract, re-ask with feedback on a bad reply.
        `allowed`: the only moves this call may choose (best-of-k's final agent: the sampled moves)."""
        attempts: list[Attempt] = []
        metadata: dict[str, Any] = {}
        if self.client.reads_view:  # only the offline provider decides from the view itself
            metadata = {
                "view": view.model_dump(mode="json"),
                "output": spec.output,
                "contract": spec.contract,
            }
        n_legal = len(view.legal_moves)
        bad_replies = 0
        while True:
            try:
                got = await self.client.call(messages, metadata, first_number=len(attempts) + 1)
            except ProviderGaveUp as exc:
                attempts.extend(exc.attempts)
                raise MoveInterrupted(str(exc), [self._call(spec.role, attempts)]) from None
            except FatalModelError as exc:
                attempts.append(exc.attempt)
                raise MoveInterrupted(str(exc), [self._call(spec.role, attempts)]) from None
            attempts.extend(got)
            answer = got[-1]
            try:
                parsed = _validate(answer.reply or "", n_legal, spec)
                if allowed is not None:
                    _check_sampled(parsed, allowed, view)
            except ReplyProblem as problem:
                attempts[-1] = answer.model_copy(update={"error_kind": problem.kind, "error": str(problem)})
                bad_replies += 1
                if bad_replies > self.reply_retries:
                    reason = (
                        f"{self.config.model} gave {bad_replies} invalid replies in a row as {spec.role} "
                        f"(last: {problem.kind}: {problem})"
                    )
                    raise MoveInterrupted(reason, [self._call(spec.role, attempts)]) from None
                messages = [
                    *messages,
                    Message(role="assistant", content=answer.reply or ""),
                    Message(role="user", content=str(problem)),
                ]
                continue
            return self._call(spec.role, attempts), parsed

    def _call(self, role: str, attempts: list[Attempt]) -> Call:
        return Call(role=role, model=self.config.model, attempts=attempts)


def _validate(text: str, n_legal: int, spec: CallDef) -> ParsedReply | str:
    if spec.contract == "report":
        if not text.strip():
            raise ReplyProblem("empty_reply", "Your reply was empty. Write the analysis you were asked for.")
        return text.strip()
    return parse_reply(text, n_legal, spec.contract, spec.required_fields)


def _check_sampled(parsed: ParsedReply | str, allowed: tuple[int, ...], view: SeatView) -> None:
    """Best-of-k: a final choice that no sample made is refused, and the model is asked again."""
    if isinstance(parsed, ParsedReply) and parsed.action not in allowed:
        moves = ", ".join(f"{i} {view.legal_moves[i].description}" for i in allowed)
        raise ReplyProblem(
            "illegal_move",
            f"Move {parsed.action} was not chosen by any of the sampled answers. You may only choose one of the "
            f"sampled moves: {moves}. Answer again in the same format.",
        )


def _report(view: SeatView, call: Call, reply: ParsedReply | str) -> dict[str, Any]:
    """What a decider is shown of an earlier call: its role, its text, and the move it chose if it chose one."""
    report: dict[str, Any] = {"role": call.role, "text": call.final.reply or ""}
    if isinstance(reply, ParsedReply):
        report.update(
            action=reply.action,
            move=view.legal_moves[reply.action].description,
            reason=reply.reason,
            ratings=reply.ratings,
        )
    return report
