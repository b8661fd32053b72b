"""InspectCaller: a seat's ModelCaller backed by an Inspect model, so that `inspect eval` plays through the same
scaffolds, strict reading and re-asks as `hanabi-eval run`, while Inspect's providers, connection limits, retries,
timeouts, token limits and cache serve each request.

Each `generate` is one Attempt ($0 for a reply from Inspect's cache). A provider error that outlasts Inspect's retries
is a failed attempt (ProviderGaveUp where retrying could fix its kind, else FatalModelError). An Inspect limit goes on
up as InspectLimitReached, both Inspect's LimitExceededError (Inspect ends the sample as for any limit) and the
harness's LimitReached (the log keeps the move's answered calls). Anything else passes through untouched.
"""

from __future__ import annotations

import re
import time
from contextvars import ContextVar
from typing import Any

from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ContentReasoning,
    GenerateConfig,
    Model,
    ModelOutput,
)
from inspect_ai.util import LimitExceededError
from tenacity import RetryError

from harness.models.budget import LimitReached
from harness.models.client import FatalModelError, ProviderGaveUp, received
from harness.schema.records import Attempt, ErrorKind, Message, SeatConfig, Usage

# Inspect's stop reasons in the harness's (the OpenAI) terms; "unknown" is no reason reported
FINISH_REASONS = {
    "stop": "stop",
    "max_tokens": "length",
    "model_length": "length",
    "content_filter": "content_filter",
    "tool_calls": "tool_calls",
}
_CONTEXT_OVERFLOW = re.compile(
    r"context[ _](?:length|window|size)|maximum context|too many tokens|prompt is too long", re.IGNORECASE
)
# how far back the transcript a call's own event is looked for: past the events of every call of its move at once
RECENT_EVENTS = 256
_RETRYABLE: frozenset[ErrorKind] = frozenset({"rate_limited", "server_error", "timeout", "connection"})
# What a seat's request carries besides its messages, for the built-in players only (the `hanabi/` model
# API, harness.inspect.bots): the seat's view and the reply format. Set around one `generate`, which runs in
# the caller's task (its retries and limits included), so it reaches that API unchanged and no other provider.
SEAT_REQUEST: ContextVar[dict[str, Any] | None] = ContextVar("hanabi_seat_request", default=None)


class InspectLimitReached(LimitExceededError, LimitReached):
    """An Inspect limit reached while a move was being asked: Inspect's error as Inspect raised it, with the call's
    attempts for the game's log."""

    @classmethod
    def of(cls, limit: LimitExceededError, attempts: list[Attempt]) -> InspectLimitReached:
        reached = cls(limit.type, value=limit.value, limit=limit.limit, message=limit.message, source=limit.source)
        reached.attempts = attempts
        reached.stopped_line = f"Inspect's {limit.type} limit ({limit.limit_str}) ended the game during this move"
        return reached


class InspectCaller:
    """Answers one seat's prompts through an Inspect model."""

    def __init__(self, seat: SeatConfig, model: Model) -> None:
        self.seat = seat
        self.model = model

    @property
    def caches_prompts(self) -> bool:
        """Inspect's providers cache as Inspect has them do: calls are sent as the strategies make them."""
        return False

    @property
    def offline_bot(self) -> str | None:
        """The built-in player behind a `hanabi/<bot>` model (harness.inspect.bots); None for any other model."""
        bot = getattr(self.model.api, "offline_bot", None)
        return bot if isinstance(bot, str) else None

    async def call(
        self,
        messages: list[Message],
        metadata: dict[str, Any],
        first_number: int,
        max_tokens: int | None = None,
    ) -> list[Attempt]:
        """One Inspect generate (with Inspect's retries inside it) as one attempt."""
        base = Attempt(number=first_number, messages=list(messages))
        config = GenerateConfig(max_tokens=max_tokens) if max_tokens is not None else GenerateConfig()
        token = SEAT_REQUEST.set(metadata if self.offline_bot is not None else None)
        chat = [_chat(m) for m in messages]
        started = time.perf_counter()
        try:
            output = await self.model.generate(chat, config=config)
        except LimitExceededError as limit:
            event = _event_of(chat[-1].id)
            answered = event.output if event is not None and not event.pending and event.error is None else None
            latency = time.perf_counter() - started
            raise InspectLimitReached.of(limit, [attempt_of(base, answered, latency)] if answered else []) from None
        except Exception as raised:
            exc = _cause(raised)
            kind = error_kind(exc)
            if kind is None:
                raise  # not a provider error: Inspect records it as the sample's error
            failed = _failed(base, kind, safe_error(exc), time.perf_counter() - started)
            if kind in _RETRYABLE:
                gave_up = f"{self.seat.model}: provider kept failing after Inspect's retries ({failed.error})"
                raise ProviderGaveUp(gave_up, [failed]) from None
            raise FatalModelError(f"{self.seat.model}: {failed.error}", failed) from None
        finally:
            SEAT_REQUEST.reset(token)
        latency = time.perf_counter() - started
        if output.stop_reason == "model_length" and (output.usage is None or output.usage.output_tokens <= 0):
            # Inspect turns a context-window error into an output holding the error text: no reply was made
            error = received(f"context_length_exceeded: {output.completion}")[:500]
            failed = _failed(base, "context_overflow", error, latency)
            raise FatalModelError(f"{self.seat.model}: {failed.error}", failed)
        attempt = attempt_of(base, output, latency)
        event = _event_of(chat[-1].id)
        if event is not None and event.cache == "read":  # Inspect's cache answered: the reply cost nothing now
            attempt = attempt.model_copy(update={"cost_usd": 0.0})
        return [attempt]


def _failed(base: Attempt, kind: ErrorKind, error: str, latency: float) -> Attempt:
    return base.model_copy(update={"error_kind": kind, "error": error, "latency_s": latency})


def attempt_of(base: Attempt, output: ModelOutput, latency: float) -> Attempt:
    """The attempt a model output makes: its text and reasoning redacted, its finish reason in the harness's terms."""
    content = output.choices[0].message.content if output.choices else ""
    parts = content if isinstance(content, list) else []
    blocks = [c.reasoning for c in parts if isinstance(c, ContentReasoning)]
    reasoning = "\n".join(blocks) or None
    finish = FINISH_REASONS.get(output.stop_reason) if output.choices else "no_choices"
    usage = output.usage
    return base.model_copy(
        update={
            "reply": received(output.completion),
            "reasoning": received(reasoning) if reasoning else None,
            "finish_reason": finish,
            "usage": Usage(
                prompt_tokens=usage.input_tokens,
                completion_tokens=usage.output_tokens,
                cached_tokens=usage.input_tokens_cache_read or 0,
                reasoning_tokens=usage.reasoning_tokens or 0,
            )
            if usage is not None
            else Usage(),
            "cost_usd": usage.total_cost if usage is not None else None,
            "latency_s": output.time if output.time is not None else latency,
            "resolved_model": received(output.model) if output.model else None,
        }
    )


def _event_of(last_message_id: str | None) -> ModelEvent | None:
    """The sample's transcript event of the model call whose last input message has this id (each call sends
    messages of its own). Inspect completes a call's event before its token limit refuses to return the output, and
    marks a reply from its cache there."""
    for event in reversed(transcript().history.recent_events(RECENT_EVENTS)):
        if isinstance(event, ModelEvent) and event.input and event.input[-1].id == last_message_id:
            return event
    return None


def _cause(exc: Exception) -> BaseException:
    """The provider's error inside Inspect's "retries ran out" wrapper (tenacity's RetryError)."""
    if isinstance(exc, RetryError):
        last = exc.last_attempt.exception()
        if last is not None:
            return last
    return exc


def _chat(message: Message) -> ChatMessage:
    kind = {"system": ChatMessageSystem, "assistant": ChatMessageAssistant}.get(message.role, ChatMessageUser)
    return kind(content=message.content)


def _status_of(exc: BaseException) -> int | None:
    for holder in (exc, getattr(exc, "response", None)):
        status = getattr(holder, "status_code", None)
        if isinstance(status, int):
            return status
    return None


def error_kind(exc: BaseException) -> ErrorKind | None:
    """The error kind of an exception a provider raised through Inspect, or None for one that is not a provider's
    (a bug, a cancelled call): those are Inspect's to report. Read from the HTTP status and the exception's class
    names, which the OpenAI, Anthropic, Google and httpx clients and Inspect's own timeouts share."""
    names = " ".join(cls.__name__ for cls in type(exc).__mro__)
    status = _status_of(exc)
    if status == 429 or "RateLimit" in names:
        return "rate_limited"
    if _CONTEXT_OVERFLOW.search(str(exc)) and (status is None or 400 <= status < 500):
        return "context_overflow"
    if status in (401, 403) or "Authentication" in names or "PermissionDenied" in names:
        return "authentication"
    if status == 404 or "NotFound" in names:
        return "not_found"
    if isinstance(exc, TimeoutError) or "Timeout" in names:
        return "timeout"
    if "Connect" in names:
        return "connection"
    if status is not None and status >= 500:
        return "server_error"
    client = status is not None and 400 <= status < 500
    if client or "BadRequest" in names or "UnprocessableEntity" in names:
        return "bad_request"
    return None


def safe_error(exc: BaseException) -> str:
    """The first line of an error, without anything that looks like a key."""
    # Inspect's own error leads with the request
    message = str(getattr(exc, "provider_message", None) or exc).strip()
    text = message.splitlines()[0] if message else type(exc).__name__
    return received(f"{type(exc).__name__}: {text}")[:500]
