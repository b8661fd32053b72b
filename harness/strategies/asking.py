"""Asking a seat's model for one call of a move, strictly: the one re-ask loop every strategy shares.

A bad reply (harness.formats: empty, unparseable, ambiguous, cut off, filtered, oversized, a missing field, an
illegal move) is answered with feedback in the format's own words and asked again, up to a limit. A rejected
reply is logged whole up to 20,000 characters, a longer one as its start and the length and digest of the rest
(Attempt.rejected). When the limits run out the move is not made: MoveInterrupted carries every attempt of the
move, so the game stops with its log intact. No move is ever invented, guessed or substituted for a model.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Collection, Sequence
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict

from harness.formats import ParsedReply, ReplyFormat, ReplyProblem
from harness.models.budget import LimitReached
from harness.models.caller import ModelCaller
from harness.models.client import FatalModelError, ProviderGaveUp
from harness.models.model_names import OFFLINE_REPLY_KEY
from harness.models.prompt_cache import (
    PROMPT_CACHE_KEY,
    SHARED_CHARS,
    Prefix,
    prefix_chars,
    shared_prefix,
    starts_with,
    with_break,
)
from harness.schema.moves import Move
from harness.schema.records import REPLY_ERROR_KINDS, Attempt, Call, Message, SeatConfig
from harness.schema.secrets import REDACTED
from harness.strategies.definition import CallDef
from harness.strategies.offline_reply import bot_reply
from harness.strategies.rendering import render_template
from harness.view.seat_view import SeatView

REASK_REPLY_CHARS = 2_000  # a re-ask quotes at most this much of the failed reply
READ_INLINE_CHARS = 20_000  # longer replies are read in a thread


class Decision(BaseModel):
    """A seat's move: the reply that chose it and every call made for it."""

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


class Answer(NamedTuple):
    """One call's valid reply: the call with all its attempts, and what was read from its last reply."""

    call: Call
    reply: ParsedReply | str  # str: a free-text report (contract "report")

    @property
    def move(self) -> ParsedReply:
        """The move the reply chose; only calls with a move contract have one."""
        assert isinstance(self.reply, ParsedReply), (
            f"the {self.call.role} call answers with a report, not a move"
        )
        return self.reply


Journal = list[tuple[str, list[Attempt]]]  # each call of a move so far: its role and its attempts, as they arrive


def journal_calls(journal: Journal, model: str) -> list[Call]:
    """The calls of a journal that got at least one answer, as their records keep them."""
    return [Call(role=role, model=model, attempts=list(attempts)) for role, attempts in journal if attempts]


class Asker:
    """Asks one seat's model about one view, each call read strictly and re-asked on a bad reply; every call's
    attempts go into `journal` as they arrive, so that a move stopped half-way can still log what it was
    answered.

    Where the provider caches prompts, calls of the move that share a long prefix (best-of-k's samples, a
    mixture's advisers) are sent one first and the rest when it has returned, each marked where the prefix
    ends, as is a later call of the move that starts with it (the final agent). `cache_key` keeps the
    game-seat's calls on one cache (OpenAI's prompt_cache_key)."""

    def __init__(
        self,
        config: SeatConfig,
        client: ModelCaller,
        reply_retries: int,
        view: SeatView,
        journal: Journal | None = None,
        cache_key: str | None = None,
    ) -> None:
        self.config = config
        self.client = client
        self.reply_retries = reply_retries
        self.view = view
        self.journal: Journal = [] if journal is None else journal
        self.cache_key = cache_key
        self._shared: list[tuple[list[Message], Prefix]] = []  # prefixes this move's calls shared and sent

    async def ask_all(self, calls: Sequence[tuple[CallDef, list[Message]]]) -> list[Answer]:
        """Several calls at once, or one first and the rest when it has returned where they share a cached prefix.
        If any fails, MoveInterrupted holds every call's attempts (the first failure's reason); a first call sent
        alone that fails leaves the others unsent."""
        shared = self._shared_prefix([m for _, m in calls]) if len(calls) > 1 else None
        if shared is not None:
            calls = [(c, with_break(m, shared)) for c, m in calls]
            self._shared.append((calls[0][1], shared))
        outcomes: list[Any] = []
        rest = calls
        if len(calls) == 1 or shared is not None:
            rest = calls[1:]
            try:  # awaited directly: gather's tasks would each wait a turn of a busy event loop
                outcomes.append(await self.ask(*calls[0]))
            except MoveInterrupted as stop:
                outcomes, rest = [stop], []
        if rest:
            outcomes += await asyncio.gather(*(self.ask(c, m) for c, m in rest), return_exceptions=True)
        made: list[Call] = []
        failure: MoveInterrupted | None = None
        for outcome in outcomes:
            if isinstance(outcome, MoveInterrupted):
                made.extend(outcome.calls)
                failure = failure or outcome
            elif isinstance(outcome, BaseException):
                raise outcome
            else:
                made.append(outcome.call)
        if failure is not None:
            raise MoveInterrupted(failure.reason, made)
        return [o for o in outcomes if isinstance(o, Answer)]

    def _shared_prefix(self, prompts: list[list[Message]]) -> Prefix | None:
        """The prefix the prompts share, where the provider caches prompts and it is long enough to be worth
        waiting for (prompt_cache.SHARED_CHARS)."""
        if not self.client.caches_prompts:
            return None
        shared = shared_prefix(prompts)
        if shared is None or prefix_chars(prompts[0], shared) < SHARED_CHARS:
            return None
        return shared

    def _marked(self, messages: list[Message]) -> list[Message]:
        """A call's messages with a break where they start with a prefix this move's calls shared and sent."""
        for prompt, prefix in self._shared:
            if starts_with(messages, prompt, prefix):
                messages = with_break(messages, prefix)
        return messages

    async def ask(
        self,
        spec: CallDef,
        messages: list[Message],
        allowed: Collection[int] | None = None,
        earlier: Sequence[Call] = (),
    ) -> Answer:
        """One logical call: ask, read the reply strictly in the call's format, and re-ask on a bad reply.
        `allowed` limits the moves the reply may choose; `earlier` are the move's calls already made, kept in
        the MoveInterrupted raised if this one fails. A re-ask holds the original prompt, the failed reply
        (cut to REASK_REPLY_CHARS) and the feedback, or the feedback alone where that overflows the context
        window; the same failed reply twice stops the re-asks at once ("repeated_reply")."""
        fmt = spec.reply_format
        view = self.view
        attempts: list[Attempt] = []
        self.journal.append((spec.role, attempts))
        metadata: dict[str, Any] = {}
        bot = self.client.offline_bot
        if bot is not None:  # a built-in player: its reply, from the seat's view, for the offline provider to send
            metadata = {OFFLINE_REPLY_KEY: bot_reply(bot, view, fmt.name)}
        if self.cache_key is not None:
            metadata[PROMPT_CACHE_KEY] = self.cache_key
        if self._shared and self.client.caches_prompts:
            messages = self._marked(messages)
        original = messages
        failed_replies: dict[bytes, int] = {}  # failed reply digest -> the attempt that first sent it
        max_tokens: int | None = None
        while True:
            try:
                got = await self.client.call(
                    messages, metadata, first_number=len(attempts) + 1, max_tokens=max_tokens
                )
            except ProviderGaveUp as exc:
                attempts.extend(exc.attempts)
                raise MoveInterrupted(str(exc), [*earlier, self._call(spec.role, attempts)]) from None
            except LimitReached as exc:  # the move stops unmade; the journal keeps what it was answered
                attempts.extend(exc.attempts)
                raise
            except FatalModelError as exc:
                attempts.extend(exc.attempts)
                if exc.attempt.error_kind == "context_overflow" and len(messages) > len(original) + 1:
                    # the quoted failed reply pushed the re-ask past the context window: the feedback alone
                    messages = [*original, messages[-1]]
                    continue
                raise MoveInterrupted(str(exc), [*earlier, self._call(spec.role, attempts)]) from None
            attempts.extend(got)
            answer = got[-1]
            try:
                parsed = await _read(fmt, answer, view.engine_moves, allowed)
            except ReplyProblem as problem:
                text = answer.reply or ""
                seen = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()  # not 10 MB per reply
                first = failed_replies.get(seen) if text.strip() else None
                failed_replies.setdefault(seen, answer.number)
                if first is not None:
                    error = f"the same reply as attempt {first}, which was rejected: {problem.kind}"
                    attempts[-1] = answer.rejected("repeated_reply", error)
                    reason = (
                        f"{self.config.model} sent the same invalid reply again as {spec.role} "
                        f"(repeated_reply; first rejected as {problem.kind}: {_first_line(str(problem))})"
                    )
                    raise MoveInterrupted(reason, [*earlier, self._call(spec.role, attempts)]) from None
                attempts[-1] = answer.rejected(problem.kind, str(problem))
                bad_replies = sum(1 for a in attempts if a.error_kind in REPLY_ERROR_KINDS)
                if bad_replies > self.reply_retries:
                    reason = (
                        f"{self.config.model} gave {bad_replies} invalid replies in a row as {spec.role} "
                        f"(last: {problem.kind}: {_first_line(str(problem))})"
                    )
                    raise MoveInterrupted(reason, [*earlier, self._call(spec.role, attempts)]) from None
                if problem.kind == "truncated":
                    max_tokens = self.config.params.max_tokens_on_truncation or max_tokens
                messages = reask_messages(original, text, str(problem))
                continue
            return Answer(self._call(spec.role, attempts), parsed)

    def _call(self, role: str, attempts: list[Attempt]) -> Call:
        return Call(role=role, model=self.config.model, attempts=attempts)


def decider_report(view: SeatView, answer: Answer) -> dict[str, Any]:
    """What a decider is shown of an earlier call: its role, its text, and the move it chose if it chose one."""
    call, reply = answer
    report: dict[str, Any] = {"role": call.role, "text": call.final.reply or ""}
    if isinstance(reply, ParsedReply):
        report.update(
            action=reply.action,
            move=view.legal_moves[reply.action].description,
            reason=reply.reason,
            ratings=reply.ratings,
        )
    return report


def reask_messages(original: list[Message], text: str, feedback: str) -> list[Message]:
    """The request that answers a rejected reply: the original prompt, the reply (cut to REASK_REPLY_CHARS) and the
    feedback naming the problem in the format's own words."""
    return [*original, Message(role="assistant", content=_cut(text)), Message(role="user", content=feedback)]


async def _read(
    fmt: ReplyFormat, answer: Attempt, moves: Sequence[Move], allowed: Collection[int] | None
) -> ParsedReply | str:
    """Read an answer in its format. A reply cut off by the token limit, stopped by a content filter or
    holding a credential of the run (redacted on arrival) is never used. Long replies are read in a thread, so
    no game waits on another's reading."""
    n_legal = len(moves)
    text = answer.reply or ""
    stop = {"length": "truncated", "content_filter": "content_filter"}.get(answer.finish_reason or "")
    if stop is None and (REDACTED in text or REDACTED in (answer.reasoning or "")):
        stop = "echoed_secret"  # a credential was taken out: an echo, no answer
    if stop is not None:
        raise ReplyProblem(stop, fmt.feedback(stop, range(n_legal) if allowed is None else allowed))
    if len(text) > READ_INLINE_CHARS:
        return await asyncio.to_thread(fmt.read, text, n_legal, allowed, moves)
    return fmt.read(text, n_legal, allowed, moves)


def _cut(text: str) -> str:
    """A failed reply as a re-ask quotes it: whole up to REASK_REPLY_CHARS, else its start and its end."""
    if len(text) <= REASK_REPLY_CHARS:
        return text
    half = REASK_REPLY_CHARS // 2
    marker = render_template("formats/cut_reply.j2", left_out=len(text) - 2 * half).strip()
    return f"{text[:half]}\n{marker}\n{text[-half:]}"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text
