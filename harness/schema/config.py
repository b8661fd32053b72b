"""What a run is and how a session plays it: RunConfig, everything that decides what a run plays (its digest
is the run's identity, and names its folder) and the plan of its games; SessionOptions, how one session plays,
with every default and check of those options; RecordedConfig, the configuration as a manifest records it.

Settings that only change how a run is played (server URLs, deadlines, retry limits) are recorded per session
but left out of the identity, so changing one continues the same run.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from harness.schema.cards import MAX_PLAYERS, MAX_SEED, MIN_PLAYERS, MIN_SEED, validate_deck
from harness.schema.errors import Refused
from harness.schema.records import (
    GamePlan,
    SeatConfig,
    checked,
    count,
    game_id,
    seconds,
    unless_none,
    whole,
    whole_above_zero,
)
from harness.schema.secrets import safe_url

Rotation = Literal["seed", "all", "off"]


class SeedDeck(BaseModel):
    """One deal: a seed with the 50-card deck it deals and the seed set it was listed in (harness.engine.seeds
    resolves seed sets to these)."""

    model_config = ConfigDict(frozen=True)

    seed: int = Field(ge=MIN_SEED, le=MAX_SEED)  # the seeds the engine takes, even when a file gives the deck
    deck: tuple[str, ...]
    seed_set: str

    @field_validator("deck")
    @classmethod
    def _complete_deck(cls, deck: tuple[str, ...]) -> tuple[str, ...]:
        validate_deck(list(deck))
        return deck


class RetryPolicy(BaseModel):
    """How long to keep trying when the provider fails (not when the reply is bad: SessionOptions.reply_retries):
    retries, and the first and the longest wait of their exponential backoff. Each limit is checked here."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider_retries: int = 6
    wait_base_s: float = 2.0
    wait_max_s: float = 120.0

    _retries = field_validator("provider_retries")(whole)
    _first = field_validator("wait_base_s")(count)
    _longest = field_validator("wait_max_s")(seconds)


class ModelPrice(BaseModel):
    """A model's prices as a user gives them (--price, a sweep file's prices), in USD per million tokens: its input
    and output, and its prompt cache's reads and writes (None: as the input). Checked here: finite, 0 or more."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None

    _price = field_validator("input", "output", "cache_read", "cache_write")(unless_none(count))


def price_spec(spec: str) -> tuple[str, ModelPrice]:
    """`MODEL=INPUT,OUTPUT[,CACHE_READ[,CACHE_WRITE]]` (USD per million tokens, as --price takes it) as the model and
    its prices, each checked by ModelPrice. Raises Refused naming the spec."""
    model, sep, numbers = spec.rpartition("=")
    parts = numbers.split(",")
    if not sep or not model or not 2 <= len(parts) <= 4:
        raise Refused(
            f"--price {spec!r} is not MODEL=INPUT,OUTPUT[,CACHE_READ[,CACHE_WRITE]] (USD per million tokens), e.g. "
            "--price hosted_vllm/qwen3-8b=0.05,0.20"
        )
    if "/" not in model:
        raise Refused(
            f"--price {spec!r}: {model!r} names no provider; give the model string as --model or --seat names it "
            f"(PROVIDER/{model})"
        )
    try:
        values = [float(part) for part in parts]
    except ValueError:
        raise Refused(f"--price {spec!r}: {numbers!r} are not numbers (USD per million tokens)") from None
    keys = ("input", "output", "cache_read", "cache_write")
    return model, checked(ModelPrice, dict(zip(keys, values, strict=False)), lambda key: f"--price {spec!r}: {key}")


# The command line's flag of each session option (`run`, `resume` and `judge` take them; a sweep file names each by
# its key, the Inspect task by its own option name).
SESSION_FLAGS = {
    "timeout_s": "--timeout",
    "concurrency": "--concurrency",
    "workers": "--workers",
    "reply_retries": "--max-retries",
    "retry.provider_retries": "--provider-retries",
    "retry.wait_base_s": "--retry-wait",
    "retry.wait_max_s": "--retry-wait-max",
    "prompt_cache": "--prompt-cache",
    "max_cost_usd": "--max-cost",
    "prices": "--price",
}


def flag_of(path: str) -> str:
    """The command-line flag of a session option's field path."""
    return SESSION_FLAGS.get(path, path)


class SessionOptions(BaseModel):
    """How one session plays: games (or judge requests) at once, worker processes, re-asks, provider
    retries, request deadlines, the display, prompt caching, the budget and the prices given. Every default
    and check of these options is here, wherever they come from; `merged` puts the ones a user gave over a
    source's. No part of a run's identity: its manifest records them per session."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    concurrency: int = 8  # games in flight at once, across every run of the session
    workers: int = 1  # processes the games are spread over
    reply_retries: int = 3  # re-asks after an invalid reply
    retry: RetryPolicy = RetryPolicy()
    timeout_s: float | None = None  # every seat's request deadline; None: each seat keeps its own
    model_limits: dict[str, int] = {}  # games in flight at once per model (a sweep's models[].concurrency)
    show_progress: bool = True
    yes: bool = True  # start a run of more than LARGE_RUN games (or LARGE_COST_USD) without asking
    prompt_cache: bool = True  # mark and key stable prompt prefixes where the provider caches them
    max_cost_usd: float | None = None  # the runs' spend, every session's, that no call may take them past
    prices: dict[str, ModelPrice] = {}  # per model string: prices given by the user, over LiteLLM's

    _at_once = field_validator("concurrency")(whole_above_zero)
    _retries = field_validator("reply_retries")(whole)

    _budget = field_validator("max_cost_usd")(unless_none(count))
    _deadline = field_validator("timeout_s")(unless_none(seconds))

    @field_validator("workers")
    @classmethod
    def _workers(cls, value: int) -> int:
        cores = os.cpu_count() or 1
        if whole_above_zero(value) > 4 * cores:
            raise ValueError(
                f"is more than 4 processes per core ({cores} cores); use at most {4 * cores} (one per core is "
                "usually best)"
            )
        return value

    def merged(self, given: dict[str, Any], named: Callable[[str], str], source_name: str) -> SessionOptions:
        """These options with the ones a user gave over them (`given`: dotted field paths to values, only those
        given), each checked here and a bad one named as the user wrote it (`named`: a path to its flag or key).
        Refused when the waits contradict each other, naming each where the user can find it: its flag, or
        `source_name` ("the default", "the sweep file", "the run's record"). Prices given as --price specs add to
        (or replace) the ones these options hold, model by model."""
        values = self.model_dump()
        if isinstance(given.get("prices"), list | tuple):  # --price specs: over the prices already given
            given = {**given, "prices": {**self.prices, **dict(price_spec(spec) for spec in given["prices"])}}
        for path, value in given.items():
            *parents, name = path.split(".")
            place = values
            for parent in parents:
                place = place[parent]
            place[name] = value
        options = checked(SessionOptions, values, named)
        retry = options.retry
        if retry.wait_base_s > retry.wait_max_s:

            def said(key: str, seconds_: float) -> str:
                flag = named(f"retry.{key}")
                if f"retry.{key}" in given:
                    return f"{flag} {seconds_:g}"
                if source_name == "the default":
                    return f"{seconds_:g} s, the default of {flag}"
                return f"{seconds_:g} s, retry.{key} in {source_name}"

            raise Refused(
                f"the first retry wait ({said('wait_base_s', retry.wait_base_s)}) is longer than the longest "
                f"({said('wait_max_s', retry.wait_max_s)}); give a {named('retry.wait_max_s')} of at least "
                f"{retry.wait_base_s:g}, or a shorter {named('retry.wait_base_s')}"
            )
        return options

    def over_seats(self, seats: tuple[SeatConfig, ...]) -> tuple[SeatConfig, ...]:
        """The seats with this session's request deadline, where it sets one (their identity stays)."""
        if self.timeout_s is None:
            return seats
        timeout = {"timeout_s": self.timeout_s}
        return tuple(s.model_copy(update={"params": s.params.model_copy(update=timeout)}) for s in seats)

    def operational(self, seats: tuple[SeatConfig, ...]) -> dict[str, Any]:
        """What a manifest records of a session beside the run's identity: each seat's server, deployments and
        deadline, the re-asks and the provider retries, prompt caching, the budget and the prices given."""
        return {
            "api_bases": [safe_url(s.api_base) for s in seats],
            "deployments": [
                [{**d.model_dump(), "api_base": safe_url(d.api_base)} for d in s.deployments] for s in seats
            ],
            "timeouts_s": [s.params.timeout_s for s in seats],
            "reply_retries": self.reply_retries,
            "retry": self.retry.model_dump(),
            "prompt_cache": "on" if self.prompt_cache else "off",
            **({"max_cost_usd": self.max_cost_usd} if self.max_cost_usd is not None else {}),
            **({"prices": {m: p.model_dump() for m, p in self.prices.items()}} if self.prices else {}),
        }


class RunConfig(BaseModel):
    """Everything that decides what a run plays, and nothing else (its identity): who sits where with which scaffold
    and parameters, the player counts, the deals, the seating's rotation and the repeats. Two runs with equal configs
    play identical game plans."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seats: tuple[SeatConfig, ...]  # one entry: self-play; otherwise one per seat (a mixed team)
    players: tuple[int, ...]
    seeds: tuple[SeedDeck, ...]
    rotation: Rotation = "seed"  # mixed teams: who sits where, see rotations
    repeats: int = 1  # plays of each seed (the same deal, played again)

    @field_validator("players")
    @classmethod
    def _players(cls, counts: tuple[int, ...]) -> tuple[int, ...]:
        for players in counts:
            if not MIN_PLAYERS <= players <= MAX_PLAYERS:
                raise ValueError(f"is outside {MIN_PLAYERS}-{MAX_PLAYERS}; Hanabi takes 2 to 5 players")
        if len(set(counts)) != len(counts):
            raise ValueError("repeats a player count; list each count once")
        return counts

    @field_validator("repeats")
    @classmethod
    def _repeats(cls, repeats: int) -> int:
        if repeats < 1:
            raise ValueError("must be 1 or more (plays of each seed)")
        return repeats

    @model_validator(mode="after")
    def _team_size(self) -> RunConfig:
        if len(self.seats) > 1 and self.players != (len(self.seats),):
            raise ValueError(f"a team of {len(self.seats)} seats plays {len(self.seats)}-player games only")
        deals = {(s.seed_set, s.seed) for s in self.seeds}
        if len(deals) != len(self.seeds):  # two games of one id would write one log at once
            raise ValueError("a seed is listed twice; list each seed once and play it again with repeats")
        return self

    @property
    def mixed(self) -> bool:
        return len(set(self.seats)) > 1

    def identity(self) -> dict[str, Any]:
        """What decides the games' content: operational settings (server URL, client, timeout, retry
        limits) are left out, so changing one of them continues the same run."""
        identity = self.model_dump(
            mode="json",
            exclude={
                "seats": {"__all__": {"api_base": True, "deployments": True, "client": True, "params": {"timeout_s"}}},
            },
            include=set(RunConfig.model_fields),
        )
        if self.repeats == 1:  # one play per seed: the identity of runs made before repeats existed
            del identity["repeats"]
        for seat in identity["seats"]:  # likewise for seats without a thinking budget or a sample count
            if seat["params"].get("thinking_budget") is None:
                seat["params"].pop("thinking_budget", None)
            if seat.get("k") is None:
                seat.pop("k", None)
        return identity

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:10]

    def game_count(self) -> int:
        """How many games the run plays, counted without listing them (as len(plans()))."""
        return self.games_per_seed() * len(self.seeds)

    def games_per_seed(self) -> int:
        """The games each seed is played in: one per player count, seating and repeat."""
        seatings = len(self.seats) if self.mixed and self.rotation == "all" else 1
        return len(self.players) * seatings * self.repeats

    def games(self) -> Iterator[tuple[int, SeedDeck, int | None, tuple[SeatConfig, ...], int]]:
        """Every game of the run, in plan order, as (players, deal, rotation or None, seats, repeat): the plan
        without a GamePlan made for each, for checks that go over every game of a large grid once."""
        mixed = self.mixed  # hashes every seat: once, not per game
        mode: Rotation = self.rotation if mixed else "off"
        for players in self.players:
            team = self.seats * players if len(self.seats) == 1 else self.seats
            for index, seed in enumerate(self.seeds):
                for shift, seats in rotations(team, index, mode):
                    for repeat in range(self.repeats):
                        yield players, seed, shift if mixed else None, seats, repeat

    def longest_game_id(self) -> str:
        """The longest game id of the run, in bytes, found without listing them: an id's parts (player count, deal,
        seating, play) add up, and each is longest on its own where its number or name is."""
        deal = max(self.seeds, key=lambda s: len(f"{s.seed_set}{s.seed}".encode("utf-8", "surrogateescape")))
        return game_id(max(self.players), deal.seed_set, deal.seed, 0 if self.mixed else None, self.repeats - 1)

    def game_ids(self) -> Iterator[tuple[str, int]]:
        """Every game's id (the name of its log) and player count, in plan order."""
        for players, seed, shift, _, repeat in self.games():
            yield game_id(players, seed.seed_set, seed.seed, shift, repeat), players

    def plans(self) -> list[GamePlan]:
        """Every game of the run, in order: player count, seed, seating, repeat (a repeat plays the same
        deal with the same seating again, see game_id)."""
        return [
            GamePlan(
                game_id=game_id(players, seed.seed_set, seed.seed, shift, repeat),
                players=players,
                seed=seed.seed,
                seed_set=seed.seed_set,
                seats=seats,
                repeat=repeat,
            )
            for players, seed, shift, seats, repeat in self.games()
        ]

    def default_name(self) -> str:
        seed_sets = "+".join(sorted({s.seed_set for s in self.seeds}))
        players = "".join(str(p) for p in self.players)
        if len(self.seats) == 1:
            seat = self.seats[0]
            who = f"{_slug(seat.model)}-{seat.scaffold}" + (f"-k{seat.k}" if seat.k is not None else "")
        else:
            labels = [f"{_slug(s.model)}.{s.scaffold}" + (f".k{s.k}" if s.k else "") for s in self.seats]
            who = "team-" + "+".join(labels)
            if len(who) > 90:
                who = who[:90].rstrip("+-.")
        again = f"-x{self.repeats}" if self.repeats > 1 else ""
        return f"{who}-{players}p-{seed_sets}{again}-{self.digest()}"


class RecordedConfig(RunConfig):
    """A run's configuration as its manifest records it: its identity, with the re-asks and provider retries of the
    session that created it, which a resumed run keeps unless told otherwise (SessionOptions)."""

    reply_retries: int = SessionOptions.model_fields["reply_retries"].default
    retry: RetryPolicy = RetryPolicy()

    _retries = field_validator("reply_retries")(whole)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")


def rotations(
    seats: tuple[SeatConfig, ...], seed_index: int, mode: Rotation
) -> list[tuple[int, tuple[SeatConfig, ...]]]:
    """The seatings to play for the `seed_index`-th seed: (rotation number, seats in position order)."""
    n = len(seats)
    if n == 1 or mode == "off":
        return [(0, seats)]
    shifts = [seed_index % n] if mode == "seed" else list(range(n))
    return [(k, seats[k:] + seats[:k]) for k in shifts]
