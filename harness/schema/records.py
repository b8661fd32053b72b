"""The records a run writes and every reader (resume, export, report) reads: one schema, versioned.

A game log is JSONL: a GameHeader line, one MoveRecord line per move, and a GameResult line when the game stops
(complete or interrupted). Records never hold API keys or authorised URLs.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Collection, Iterable
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, NamedTuple, TypeVar, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_serializer,
)

from harness.schema.errors import Refused
from harness.schema.moves import EndReason, Move

SCHEMA_VERSION = 1


DEFAULT_TIMEOUT_S = 600.0  # every request's overall deadline unless a seat, a sweep or --timeout sets another
REASONING_EFFORTS = ("minimal", "low", "medium", "high")
Checked = TypeVar("Checked", bound=BaseModel)
Value = TypeVar("Value")


def seconds(value: float) -> float:
    """A wait or a deadline a user gave: finite and above 0 (nan and inf are not times a request can wait)."""
    if not (value > 0 and math.isfinite(value)):
        raise ValueError("must be a finite number of seconds above 0")
    return value


def count(value: float) -> float:
    """A wait in seconds, a price or a budget in USD, any of which may be 0: finite, 0 or more (nan is not >= 0)."""
    if not (value >= 0 and math.isfinite(value)):
        raise ValueError("must be a finite number, 0 or more")
    return value


def whole(value: int) -> int:
    """A number of retries: a whole number, 0 or more."""
    if value < 0:
        raise ValueError("must be a whole number, 0 or more")
    return value


def is_digits(text: str) -> bool:
    """Whether `text` is a whole number written in ASCII digits: str.isdigit alone also takes "²", which int()
    refuses, so a number typed by a user or sent to a server is checked with this before int()."""
    return text.isascii() and text.isdigit()


def whole_above_zero(value: int) -> int:
    """Games, requests or processes at once: a whole number above 0."""
    if value <= 0:
        raise ValueError("must be a whole number above 0")
    return value


def unless_none(check: Callable[[Value], Value]) -> Callable[[Value | None], Value | None]:
    """`check` for a value that may be left unset (None), as a field validator."""
    return lambda value: None if value is None else check(value)


class GenerationParams(BaseModel):
    """Sampling parameters sent with every call of a seat. None means the provider's default. Each is checked here,
    once, whichever way it was given (the command line, a --seat spec, a sweep file, `judge`): see checked_params."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float | None = None
    max_tokens: int | None = None
    reasoning_effort: str | None = None
    thinking_budget: int | None = None  # reasoning tokens allowed (LiteLLM `thinking`)
    timeout_s: float = DEFAULT_TIMEOUT_S  # an overall deadline per request, however slowly the answer arrives
    # after a reply cut off by the token limit, re-ask with this larger limit (None: keep max_tokens). Left out of
    # the record when unset, so runs made before it existed keep their configuration digest.
    max_tokens_on_truncation: int | None = Field(default=None, exclude_if=lambda value: value is None)

    @field_validator("temperature")
    @classmethod
    def _temperature(cls, value: float | None) -> float | None:
        if value is not None and not 0.0 <= value <= 2.0:  # nan is not either
            raise ValueError("is outside 0-2")
        return value

    _tokens = field_validator("max_tokens", "thinking_budget", "max_tokens_on_truncation")(
        unless_none(whole_above_zero)
    )
    _timeout = field_validator("timeout_s")(seconds)

    @field_validator("reasoning_effort")
    @classmethod
    def _effort(cls, value: str | None) -> str | None:
        if value is not None and value not in REASONING_EFFORTS:
            raise ValueError(f"must be one of {', '.join(REASONING_EFFORTS)}")
        return value


def checked(model: type[Checked], values: dict[str, Any], named: Callable[[str], str], whole: str = "") -> Checked:
    """`values` as a `model`, every field checked by the model itself; a refusal names the first bad value as the user
    gave it: `named` turns a field's dotted path ("retry.wait_base_s") into the flag, key or option they wrote, and
    `whole` leads the message of a check across fields (which names them itself)."""
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        error = exc.errors()[0]
        message = error["msg"].removeprefix("Value error, ")
        if not error["loc"]:
            raise Refused(f"{whole}{message}") from None
        path = ".".join(str(part) for part in error["loc"] if not isinstance(part, int))  # players.0 is players
        given = error.get("input")
        shown = " ".join(map(str, given)) if isinstance(given, list | tuple) else given  # as typed: `2 2`
        raise Refused(f"{named(path)} {shown} {message}") from None


def checked_params(values: dict[str, Any], where: str, from_flags: Collection[str] = ()) -> GenerationParams:
    """Generation parameters given by a user, checked; a refusal names the first bad one as it was given:
    `where` "--" gives `--temperature 3.0 is outside 0-2`, "--seat 'x': " gives `--seat 'x': timeout inf ...`;
    the parameters in `from_flags` came from command-line flags instead, and are named as those."""

    def named(name: str) -> str:
        name = name.removesuffix("_s") if name == "timeout_s" else name
        if name in from_flags or f"{name}_s" in from_flags:  # given on the command line, not where `where` says
            return "--" + name.replace("_", "-")
        return where + (name.replace("_", "-") if where == "--" else name)

    params = checked(GenerationParams, values, named)
    raised, limit = params.max_tokens_on_truncation, params.max_tokens
    if raised is not None and limit is not None and raised < limit:
        raise Refused(
            f"{named('max_tokens_on_truncation')} {raised} is below {named('max_tokens')} {limit}: a reply cut off "
            f"by the token limit would be re-asked with a smaller limit; give at least {limit}"
        )
    return params


class Deployment(BaseModel):
    """One backend serving a seat's model (a LiteLLM Router deployment): a replica, a key or a region. Keys
    are named by environment variable, never written in a config or a log."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    api_base: str | None = None
    api_key_env: str | None = None
    model: str | None = None  # the provider's model id on this deployment, if it differs from the seat's
    rpm: int | None = Field(default=None, gt=0)  # requests per minute this deployment accepts
    tpm: int | None = Field(default=None, gt=0)  # tokens per minute
    max_parallel_requests: int | None = Field(default=None, gt=0)


# How a seat's requests are sent: through LiteLLM, or straight to an OpenAI-compatible server by the `openai` SDK.
ClientName = Literal["litellm", "openai"]


HUMAN = "human"  # the model string of a seat a person plays: `human` or `human:NAME`


class SeatConfig(BaseModel):
    """Who plays a seat: a LiteLLM model string with its scaffold and parameters."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    scaffold: str
    api_base: str | None = None
    params: GenerationParams = GenerationParams()
    deployments: tuple[Deployment, ...] = ()  # when set, requests are spread over these by a LiteLLM Router
    k: int | None = Field(default=None, ge=1, le=7)  # samples per move, for best-of-k scaffolds only
    client: ClientName = "litellm"

    @model_serializer(mode="wrap")
    def _without_default_client(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A LiteLLM seat is written as before the client could be chosen, so its records stay as they were."""
        data: dict[str, Any] = handler(self)
        if data.get("client") == "litellm":
            del data["client"]
        return data

    @property
    def human(self) -> bool:
        """A person plays this seat from the table page (`human` or `human:NAME`), not a model."""
        return self.model == HUMAN or self.model.startswith(HUMAN + ":")

    @property
    def models(self) -> tuple[str, ...]:
        """The model strings the seat may call: its own, and its deployments' (each once, in order)."""
        return tuple(dict.fromkeys([self.model, *(d.model or self.model for d in self.deployments)]))

    @property
    def setting(self) -> str:
        """The scaffold, with `,k=N` for a best-of-k seat that sets its sample count: k=1 and k=3 are two settings."""
        return self.scaffold + (f",k={self.k}" if self.k is not None else "")

    @property
    def label(self) -> str:
        """`model:scaffold`, with `,k=N` for a best-of-k seat that sets its sample count (as a --seat spec); a
        human seat is its name alone."""
        return self.model if self.human else f"{self.model}:{self.setting}"


class Usage(BaseModel):
    """Tokens of one attempt (or a sum of attempts) as the provider reported them. `prompt_tokens` counts every
    prompt token, those read from and written to a prompt cache included: `cached_tokens` were read from the cache,
    `cache_write_tokens` written to it (Anthropic charges a write; left out of the record when 0)."""

    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    # prompt tokens written to the provider's cache (Anthropic bills a write); absent when 0
    cache_write_tokens: int = Field(default=0, exclude_if=lambda value: value == 0)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def cached_share(self) -> float | None:
        """The share of the prompt tokens read from a prompt cache; None without prompt tokens."""
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else None

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )


ErrorKind = Literal[
    # provider errors, retried with backoff
    "rate_limited",  # 429
    "server_error",  # 5xx
    "timeout",  # no complete answer within the request's overall deadline (--timeout)
    "connection",
    # provider errors that retrying cannot fix: the move stops at once
    "authentication",  # 401, 403
    "not_found",  # 404: unknown model or path
    "bad_request",  # 400, 422
    "context_overflow",  # the prompt does not fit the model's context window
    # replies that cannot be used: re-asked with feedback in the scaffold's format
    "empty_reply",
    "unparseable",
    "missing_field",
    "illegal_move",
    "ambiguous",  # more than one reading: two moves, "2.5", a split number, a move only in a nested field
    "truncated",  # finish_reason "length": cut off by the token limit, never played
    "content_filter",  # finish_reason "content_filter"
    "oversized",  # too long or too deeply nested to read
    "repeated_reply",  # the same failed reply again: retries stop early
    "echoed_secret",  # the reply held a credential the run sends (a server echoing the request): never used
]
# The two kinds of error, each listed once. Readers (report, summary) treat error kinds as an open set and group by
# them; older logs hold a subset. Provider errors are retried by the model client (or stop the move at once); reply
# errors are re-asked, and each counts against --max-retries.
PROVIDER_ERROR_KINDS = frozenset(
    {
        "rate_limited",
        "server_error",
        "timeout",
        "connection",
        "authentication",
        "not_found",
        "bad_request",
        "context_overflow",
    }
)
REPLY_ERROR_KINDS = frozenset(get_args(ErrorKind)) - PROVIDER_ERROR_KINDS


# How long a marked part of a prompt stays the same: every turn of the seat (rules), or every call of one move.
CacheScope = Literal["turn", "move"]


class CacheBreak(NamedTuple):
    """The end of a stable part of a message's content, where a prompt cache may mark a breakpoint: its first
    `chars` characters are the same on every turn of the seat (`turn`), or in every call of the move (`move`)."""

    chars: int
    scope: CacheScope


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str
    # where the prompt's templates marked the end of a stable part (harness.strategies.rendering): what a prompt
    # cache may mark. Never sent as text nor logged: the log keeps the content, and each attempt where it was marked.
    cache_breaks: tuple[CacheBreak, ...] = Field(default=(), exclude=True)


class CacheMark(BaseModel):
    """A prompt-cache breakpoint sent with a request: after the first `chars` characters of message `message` (its
    whole content when `chars` is its length), a prefix of about `tokens` tokens counting every message before."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    message: int
    chars: int
    tokens: int


REJECTED_TEXT_KEPT_CHARS = 20_000  # a rejected reply (or its reasoning) longer than this keeps only its start


class LeftOut(BaseModel):
    """The end of a long rejected reply (or its reasoning) that its record does not keep: how many characters and
    their digest, so the whole text can still be told apart from another (and checked against a copy of it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    chars: int  # characters left out, after the kept start
    sha256: str  # hex SHA-256 of the left-out characters, UTF-8 encoded


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(text: str) -> str:
    """The text with each lone surrogate replaced by U+FFFD, as a UTF-8 decoder replaces a broken byte. A server may
    send one as a JSON escape (`"\\udc80"`); no UTF-8 file can hold it, so a record keeping it could not be written."""
    return text if text.isascii() else _LONE_SURROGATE.sub("\ufffd", text)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def storable_parsed(value: Any, text: str) -> Any:
    """A value parsed from the JSON `text` with `storable` strings, changed in place: a JSON escape can make a lone
    surrogate that the text itself does not hold. Walked (without recursion) only when the text has such an
    escape."""
    if not _SURROGATE_ESCAPE.search(text):
        return value
    if isinstance(value, str):
        return storable(value)
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            items = [(storable(k) if isinstance(k, str) else k, v) for k, v in node.items()]
            node.clear()
            for key, item in items:
                node[key] = storable(item) if isinstance(item, str) else item
                if isinstance(item, dict | list):
                    stack.append(item)
        elif isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, str):
                    node[i] = storable(item)
                elif isinstance(item, dict | list):
                    stack.append(item)
    return value


def keep_start(text: str | None) -> tuple[str | None, LeftOut | None]:
    """A rejected text as its record keeps it: whole up to REJECTED_TEXT_KEPT_CHARS, else its first
    REJECTED_TEXT_KEPT_CHARS characters and a LeftOut for the rest."""
    if text is None or len(text) <= REJECTED_TEXT_KEPT_CHARS:
        return text, None
    rest = text[REJECTED_TEXT_KEPT_CHARS:]
    digest = hashlib.sha256(rest.encode("utf-8", "surrogatepass")).hexdigest()
    return text[:REJECTED_TEXT_KEPT_CHARS], LeftOut(chars=len(rest), sha256=digest)


class Attempt(BaseModel):
    """One request to a model and what came back, good or bad."""

    model_config = ConfigDict(extra="forbid")

    number: int  # 1-based within the call
    messages: list[Message]  # exactly what was sent
    reply: str | None = None  # the raw reply text (only its start, when reply_left_out is set)
    reasoning: str | None = None  # the provider's reasoning trace, when it returns one
    # A rejected reply too long to keep whole keeps only its start in `reply`, and this the length and SHA-256 of
    # the rest; absent otherwise, and in logs written before it existed.
    reply_left_out: LeftOut | None = Field(default=None, exclude_if=lambda value: value is None)
    reasoning_left_out: LeftOut | None = Field(default=None, exclude_if=lambda value: value is None)
    error_kind: ErrorKind | None = None  # None: the reply was used
    error: str | None = None  # the problem, as told to the model or read from the provider
    finish_reason: str | None = None  # as the provider reported it: "stop", "length", "content_filter", ...
    usage: Usage = Usage()
    cost_usd: float | None = None  # as reported; None on an answered attempt: unknown (see total_cost)
    latency_s: float = 0.0
    resolved_model: str | None = None  # the model id the provider reports
    # the prompt-cache breakpoints sent with the request (Anthropic's cache_control), absent when none were
    cache_marks: list[CacheMark] | None = Field(default=None, exclude_if=lambda value: value is None)
    # what the cache reads and writes of this attempt saved against the same prompt sent uncached, at the model's
    # prices (negative when writes cost more than reads saved); absent without cache tokens or without a price
    cache_saving_usd: float | None = Field(default=None, exclude_if=lambda value: value is None)

    @property
    def cost_unknown(self) -> bool:
        """Answered (`reply` is set, if only "") without a cost: a model LiteLLM has no price for."""
        return self.cost_usd is None and self.reply is not None

    @property
    def cut(self) -> bool:
        """Its record keeps only the start of the reply or of the reasoning (a long rejected reply)."""
        return self.reply_left_out is not None or self.reasoning_left_out is not None

    @property
    def reply_chars(self) -> int | None:
        """The length of the reply as it came back, what the record left out included."""
        if self.reply is None:
            return None
        return len(self.reply) + (self.reply_left_out.chars if self.reply_left_out else 0)

    def rejected(self, kind: str, error: str) -> Attempt:
        """This attempt as its record keeps it once its reply is rejected (`kind`, `error`): a reply or reasoning
        longer than REJECTED_TEXT_KEPT_CHARS cut to its start, with the length and digest of the rest. A rejected
        reply is never read again, so a 10 MB reply costs its log 20,000 characters, not 10 MB per attempt."""
        reply, reply_left_out = keep_start(self.reply)
        reasoning, reasoning_left_out = keep_start(self.reasoning)
        return self.model_copy(
            update={
                "error_kind": kind,
                "error": error,
                "reply": reply,
                "reply_left_out": reply_left_out or self.reply_left_out,
                "reasoning": reasoning,
                "reasoning_left_out": reasoning_left_out or self.reasoning_left_out,
            }
        )


def total_cost(attempts: Iterable[Attempt]) -> float | None:
    """What the attempts cost as the providers reported it, or None when that is not known: an answered
    attempt without a cost (`cost_unknown`) makes the total unknown, whatever the others cost (a free
    built-in player beside an unpriced model is not $0). An attempt without an answer adds nothing, so a
    priced model's game that failed at its first call costs $0, not "unpriced"."""
    costs: list[float] = []
    for attempt in attempts:
        if attempt.cost_unknown:
            return None
        if attempt.cost_usd is not None:
            costs.append(attempt.cost_usd)
    return sum(costs, 0.0)


def total_saving(attempts: Iterable[Attempt]) -> float | None:
    """What prompt caching saved over the attempts (Attempt.cache_saving_usd summed), None when none recorded one."""
    savings = [a.cache_saving_usd for a in attempts if a.cache_saving_usd is not None]
    return sum(savings, 0.0) if savings else None


class Call(BaseModel):
    """All attempts of one logical model call (one role of one move), ending in a valid reply or giving up."""

    model_config = ConfigDict(extra="forbid")

    role: str  # "player" for single-call scaffolds
    model: str
    attempts: list[Attempt]

    @property
    def final(self) -> Attempt:
        return self.attempts[-1]


class MoveRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["move"] = "move"
    turn: int
    seat: int
    player: str  # the seat's player label, e.g. "openai/gpt-4.1:watson"
    scaffold: str
    legal_moves: list[str]  # descriptions, in the order the model saw them
    move_index: int
    move: Move
    ratings: list[float | None]  # one per legal move; None where the reply gave none or an invalid one
    invalid_ratings: dict[str, str] = {}  # legal move index -> the out-of-range or unreadable value given
    reason: str = ""
    calls: list[Call]
    memory: dict[str, Any] | None = None  # working memory the seat carries to its next turn (Mycroft)
    tracking: dict[str, Any] | None = None  # measured state-tracking scores for this move (Mycroft)
    digest_after: str  # engine state fingerprint after the move, for resume checks
    fireworks_after: int
    life_tokens_after: int
    info_tokens_after: int

    @property
    def usage(self) -> Usage:
        return sum((a.usage for c in self.calls for a in c.attempts), Usage())

    @property
    def cost_usd(self) -> float | None:
        return total_cost(a for c in self.calls for a in c.attempts)

    @property
    def latency_s(self) -> float:
        return sum(a.latency_s for c in self.calls for a in c.attempts)

    @property
    def retries(self) -> int:
        return sum(len(c.attempts) - 1 for c in self.calls)


class GameHeader(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["header"] = "header"
    schema_version: int = SCHEMA_VERSION
    run_id: str
    game_id: str
    seed: int
    seed_set: str
    repeat: int = 0  # which play of this seed (0-based), when a run plays each seed more than once
    deck: list[str]
    players: int
    seats: list[SeatConfig]
    harness_version: str
    git_commit: str | None
    started_at: str
    sent_params: list[dict[str, Any]] = []  # per seat: the parameters sent to LiteLLM with every call


class GameResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["result"] = "result"
    # stopped: the run was stopped while this move was being asked (Ctrl-C, SIGTERM, its budget, an Inspect limit;
    # `interrupted_reason` says which). Not a result of the game,
    # which stays unfinished (GameLogContents.result): the line keeps the calls already answered for the move, asked
    # again on resume, so that what they cost and the replies they rejected are counted.
    status: Literal["complete", "interrupted", "stopped"]
    interrupted_reason: str | None = None
    interrupted_seat: int | None = None
    end_reason: EndReason | None = None
    fireworks_score: int  # fireworks at the end (the paper's convention; kept after a third strike)
    engine_score: int  # 0 after three strikes (AH2AC2 / SPIN-Bench convention)
    turns: int
    lives_lost: int
    hints_given: int
    calls: int
    retries: int
    invalid_replies: int
    provider_errors: int
    usage: Usage
    cost_usd: float | None  # total_cost of every attempt: None when not known
    # total_saving of every attempt: what prompt caching saved; absent when no attempt recorded a saving
    cache_saving_usd: float | None = Field(default=None, exclude_if=lambda value: value is None)
    failed_calls: list[Call] = []  # interrupted or stopped: every attempt of the move that was not made
    finished_at: str


LogLine = Annotated[GameHeader | MoveRecord | GameResult, Field(discriminator="type")]
LOG_LINE: TypeAdapter[GameHeader | MoveRecord | GameResult] = TypeAdapter(LogLine)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def game_id(players: int, seed_set: str, seed: int, rotation: int | None = None, repeat: int = 0) -> str:
    """The id of one game of a run, and the name of its log: the player count, the deal, then (mixed teams) the
    seating's rotation and (from the second play of a deal on) the play, e.g. `3p-standard-seed4-r1-play1`."""
    seating = f"-r{rotation}" if rotation is not None else ""
    again = f"-play{repeat}" if repeat > 0 else ""
    return f"{players}p-{seed_set}-seed{seed}{seating}{again}"


class GamePlan(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    game_id: str
    players: int
    seed: int
    seed_set: str
    seats: tuple[SeatConfig, ...]
    repeat: int = 0  # which play of the seed (0-based), when a run plays each seed more than once


class RunStatus(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Literal[
        "running", "interrupted", "complete", "stopped", "failed", "budget"
    ]  # stopped: Ctrl-C; failed: disk; budget: stopped at --max-cost
    games_total: int
    games_complete: int
    games_interrupted: int
    reason: str | None = None
    updated_at: str
